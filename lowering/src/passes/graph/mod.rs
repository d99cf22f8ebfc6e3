//! The model's graph (TOSA and `func`, before any lowering): the entry's shapes, names and
//! attributes, the TFLite ops umac replaces, the state's globals, decompositions TOSA's lowering
//! lacks, verification.

pub mod decompose_transpose_conv2d;
pub mod expose_intermediates;
pub mod isolate_global_values;
pub mod legalize_tfl_lstm;
pub mod on_target_functions;
pub mod refine_entry_results;
pub mod rename_entry;
pub mod resolve_slice_sizes;
pub mod set_entry_shapes;
pub mod strip_entry_attributes;
pub mod tabulate_lookups;
pub mod verify;

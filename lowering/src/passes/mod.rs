//! umac passes written in Rust, one file each, named after the pass (`umac-fold-padding` is
//! `fold_padding.rs`). A pass is defined through [`crate::pass::UmacPass`]; shared IR helpers live
//! in `umac_dialects::ir`, so no pass imports another (the float-arithmetic expansions share
//! `float_text`, which writes their MLIR text).

pub mod apply_scale_32;
pub mod channels_innermost;
pub mod decompose_transpose_conv2d;
pub mod elide_output_copies;
pub mod expand_exp_tanh;
pub mod expand_log_sin_cos;
pub mod expand_rounding;
pub mod expand_sqrt;
pub mod expose_intermediates;
mod float_text;
pub mod fold_padding;
pub mod fold_zero_points;
pub mod im2col;
pub mod isolate_global_values;
pub mod legalize_tfl_lstm;
pub mod lower_call_extern;
pub mod narrow_reduction_inputs;
pub mod on_target_functions;
pub mod order_constant_globals;
pub mod outline_operators;
pub mod plan_memory;
pub mod profile_hooks;
pub mod recompute_elementwise;
pub mod refine_entry_results;
pub mod rename_entry;
pub mod resolve_slice_sizes;
pub mod set_entry_shapes;
pub mod split_borders;
pub mod strided_copy_to_linalg;
pub mod strip_entry_attributes;
pub mod tile_and_fuse;
pub mod vectorize_dot_products;
pub mod vectorize_elementwise_loops;
pub mod verify;

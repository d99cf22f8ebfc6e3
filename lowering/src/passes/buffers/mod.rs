//! Buffers (after bufferization): constant globals' names, copies elided or made linalg, the static
//! memory plan.

pub mod elide_output_copies;
pub mod elide_slice_copies;
pub mod order_constant_globals;
pub mod plan_memory;
pub mod strided_copy_to_linalg;

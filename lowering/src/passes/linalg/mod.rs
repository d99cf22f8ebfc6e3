//! linalg on tensors (after TOSA's lowering, before bufferization): rescale arithmetic, zero
//! points, fusion and recomputation, padding folded into windows, patches, tiling.

pub mod apply_scale_32;
pub mod fold_padding;
pub mod fold_zero_points;
pub mod im2col;
pub mod narrow_reduction_inputs;
pub mod recompute_elementwise;
pub mod tile_and_fuse;

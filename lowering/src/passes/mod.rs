//! umac passes written in Rust, one file each.

pub mod fold_padding;
pub mod fold_zero_points;
pub mod outline_operators;
pub mod plan_memory;
pub mod splice;
pub mod split_borders;
pub mod strided_copy;
pub mod tile_and_fuse;
pub mod transpose_conv;
pub mod verify;

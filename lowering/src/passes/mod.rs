//! umac passes written in Rust, one file each.

pub mod strided_copy;
pub mod transpose_conv;
pub mod verify;

//! umac passes written in Rust, one file each.

pub mod verify;

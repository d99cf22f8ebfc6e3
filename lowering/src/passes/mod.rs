//! umac passes written in Rust, one file each, named after the pass (`umac-fold-padding` is
//! `linalg/fold_padding.rs`), in a folder for the level of IR they work on: the graph, linalg on
//! tensors, buffers, the executor, the loops inside operators, scalar math. A pass is defined
//! through [`crate::pass::UmacPass`]. No pass imports another: what passes share lives in a module
//! named for it (`umac_dialects::ir`, `crate::schedule`, `crate::windows`, the math passes'
//! `float_ops`), which `tools/tests/house_rules.rs` checks.

pub mod buffers;
pub mod executor;
pub mod graph;
pub mod linalg;
pub mod loops;
pub mod math;

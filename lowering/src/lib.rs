//! umac's passes and named pipelines, and the textual pass-pipeline parser that mixes them with
//! every upstream MLIR pass in one `builtin.module(...)` string, as `mlir-opt` users write it.
//!
//! MLIR's C API cannot register a Rust pass by name, so [`build_pass_manager`] parses the
//! pipeline itself: umac passes become external passes, umac pipelines expand in place, and every
//! other element is handed to MLIR's own parser, in order, into the same pass manager.

pub mod entry;
pub mod memory_plan;
pub mod options;
pub mod owned_pass;
pub mod pass_manager;
pub mod passes;
pub mod pipeline;
pub mod pipelines;
pub mod registry;
mod stderr_capture;

pub use pass_manager::build_pass_manager;
pub use pipeline::PipelineError;
pub use registry::{PassInfo, PassKind, lookup, register, registry};

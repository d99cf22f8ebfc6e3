//! umac's passes and the stages its lowerings are built from, and the textual pass-pipeline
//! parser that mixes them with every upstream MLIR pass in one `builtin.module(...)` string, as
//! `mlir-opt` users write it.
//!
//! MLIR's C API cannot register a Rust pass by name, so [`build_pass_manager`] parses the
//! pipeline itself: umac passes become external passes, umac pipelines expand in place, and every
//! other element is handed to MLIR's own parser, in order, into the same pass manager.
//!
//! - [`passes`]: one file per pass; [`pass`]: how a pass is defined; [`registry`]: every pass
//!   and named pipeline by name; [`stages`]: the one list of lowering stages, with [`Phase`]s.
//! - [`pipeline_syntax`] parses pipeline text, [`options`] pass options, [`pass_manager`] builds
//!   and runs pass managers.

pub mod entry;
mod error;
pub mod linalg_kinds;
pub mod memory_plan;
pub mod options;
pub mod pass;
pub mod pass_manager;
pub mod passes;
pub mod pipeline_syntax;
pub mod registry;
pub mod stages;
mod stderr_capture;

pub use error::{Error, report};
pub use pass_manager::{build_pass_manager, run_on_function};
pub use pipeline_syntax::PipelineError;
pub use registry::{PassInfo, PassKind, lookup, register, registry};
pub use stages::{Phase, Step};

//! umac's passes and the stages its lowerings are built from, and the textual pass-pipeline
//! parser that mixes them with every upstream MLIR pass in one `builtin.module(...)` string, as
//! `mlir-opt` users write it.
//!
//! umac passes and pipelines are exported into MLIR's own pass registry ([`pass`]), so MLIR's
//! pipeline parser — and mlir-opt's command line in `umac-opt` — handle them like upstream ones.
//!
//! - [`passes`]: one file per pass; [`pass`]: how a pass is defined and run by MLIR;
//!   [`registry`]: every pass and named pipeline by name; [`stages`]: the one list of lowering
//!   stages, with [`Phase`]s; [`supported_ops`]: the TOSA operators umac compiles and is tested on.
//! - [`options`] parses pass options, [`pass_manager`] builds and runs pass managers.

pub mod entry;
mod error;
pub mod linalg_kinds;
pub mod memory_plan;
pub mod memory_pools;
pub mod options;
pub mod pass;
pub mod pass_manager;
pub mod passes;
pub mod registry;
pub mod schedule;
pub mod stages;
mod stderr_capture;
pub mod supported_ops;
mod tosa_elementwise;
pub mod transform;
mod unit_expansion;
mod windows;

pub use error::{Error, report};
pub use pass_manager::PipelineError;
pub use pass_manager::{build_pass_manager, run_on_function};
pub use registry::{PassInfo, PassKind, lookup, register, registry};
pub use stages::{Phase, Step};

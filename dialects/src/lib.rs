//! umac's own dialects and the MLIR context every umac tool works in.
//!
//! - [`context`] builds a context with every upstream dialect, pass and LLVM translation
//!   registered, ready for TOSA input and for umac's ops.
//! - [`umac`] defines the `umac` dialect (ops and discardable attributes) and its verifier.
//! - [`source`] parses MLIR text or bytecode with real file names and line numbers, and prints it back.
//! - [`location`] turns MLIR locations into `file:line:col` and emits located errors.
//! - [`diagnostics`] copies diagnostics out of MLIR; [`text`] prints MLIR objects without panicking.
//! - [`native`] is the C++ glue (`cxx/`): the umac dialect registered, umac passes in MLIR's pass
//!   registry, MLIR's mlir-opt driver and parser.
//! - [`build`] builds a function op by op, without MLIR text.
//! - [`ir`] holds the IR helpers every pass shares (names, attributes, shapes, building ops and
//!   functions, replacing an op by IR written as text).

pub mod build;
pub mod context;
pub mod diagnostics;
pub mod ir;
pub mod location;
pub mod native;
pub mod scf;
pub mod source;
pub mod text;
pub mod umac;

pub use context::{ContextOptions, create_context};
pub use diagnostics::{Diag, Severity, attach_handler, detach_handler};
pub use location::{FileLineCol, emit_error, file_line_col, set_location};

/// What can go wrong in IR work.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The problem was reported as a diagnostic at the offending op.
    #[error("see the errors reported above")]
    Reported,
    /// umac built IR that MLIR rejected: a bug in umac, not in the input.
    #[error("internal error: {0}")]
    Internal(String),
    /// The IR is not what a rewrite works on (its words).
    #[error("{0}")]
    Invalid(String),
}

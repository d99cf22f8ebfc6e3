//! umac's reference engine: loop-level MLIR to Cranelift IR, run with `cranelift-jit` or written
//! as a host object with `cranelift-object`.
//!
//! Input is the level `umac-lower-to-host-loops` produces: `func` + `cf` + `arith` + `math` +
//! `memref` (after `expand-strided-metadata` and `convert-scf-to-cf`). MLIR blocks map one to one
//! to Cranelift blocks; a memref value becomes its base pointer plus whatever of its offset, sizes
//! and strides the type leaves dynamic; integers of any width up to 64 bits live in the smallest
//! Cranelift integer type that holds them, kept sign-extended (i1 as 0/1). Constants
//! (`memref.global`) are emitted once as data. An op the engine cannot translate is a located
//! error, never a panic.
//!
//! `translate/` holds the translation: the dispatch (`mod.rs`), one module per dialect
//! (`arith.rs`, `memref.rs`, `math.rs`) and the state they share (`state.rs`), which is all they
//! import; `tests/files/*.mlir` are its file tests.

mod data;
mod jit;
mod object;
mod translate;
pub mod types;

pub use jit::{JitProgram, compile_jit};
pub use object::compile_object;
pub use translate::{EntryPoint, translate_module};

/// The entry wrapper's type: `int32_t (const void *const inputs[], void *const outputs[], void *workspace)`.
pub type EntryFn = unsafe extern "C" fn(*const *const u8, *const *mut u8, *mut u8) -> i32;

/// What can go wrong translating or compiling.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An op or type the engine does not handle; the message carries its location.
    #[error("{0}")]
    Unsupported(String),
    /// Cranelift rejected what we built (a bug in this crate).
    #[error("Cranelift: {0}")]
    Cranelift(String),
}

/// Shorthand.
pub type Result<T> = std::result::Result<T, Error>;

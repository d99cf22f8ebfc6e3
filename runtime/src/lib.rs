//! The runtime side of umac: tensors and their `.npy` files, and the firmware harness that runs
//! compiled models on emulated boards ([`firmware`]). Nothing here depends on the compiler, so
//! firmware tools and simulators can use it without pulling MLIR in.

pub mod firmware;
pub mod kernels;
mod npy;
mod tensor;

pub use npy::{read_npy, write_npy};
pub use tensor::{DType, Tensor};

/// What can go wrong reading or writing tensors.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not an `.npy` array umac can use.
    #[error("{path}: {message}")]
    Format {
        /// The file.
        path: String,
        /// What is wrong.
        message: String,
    },
}

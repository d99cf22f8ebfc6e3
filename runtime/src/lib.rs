//! The runtime side of umac: tensors and their `.npy` files, and the firmware harness that runs
//! compiled models on emulated boards ([`firmware`]). Nothing here depends on the compiler, so
//! firmware tools and simulators can use it without pulling MLIR in.

pub mod firmware;
mod npy;
pub mod profile;
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
    /// Building or running a firmware harness failed (the compiler's or QEMU's words).
    #[error("{0}")]
    Harness(String),
}

/// The test data the repository carries (models, references, conformance tests), for tests and
/// benchmarks.
pub mod testdata {
    use std::path::{Path, PathBuf};

    /// A deterministic xorshift generator for property and fuzz tests: the same values on every
    /// run, so a failure reproduces from its seed.
    #[derive(Clone, Debug)]
    pub struct Rng(pub u64);

    impl Rng {
        /// The next 64 random bits.
        #[allow(clippy::should_implement_trait)]
        pub fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        /// Uniform in `low..=high`.
        pub fn range(&mut self, low: i64, high: i64) -> i64 {
            low + (self.next() % (high - low + 1) as u64) as i64
        }

        /// Uniform in `0..n` (0 when `n` is 0).
        pub fn below(&mut self, n: usize) -> usize {
            if n == 0 { 0 } else { (self.next() % n as u64) as usize }
        }

        /// `n` random bytes.
        pub fn bytes(&mut self, n: usize) -> Vec<u8> {
            (0..n).map(|_| self.next() as u8).collect()
        }

        /// A fair coin.
        pub fn coin(&mut self) -> bool {
            self.next() & 1 == 1
        }
    }

    /// `<checkout>/test/<sub>`: the test data the repository carries (`models/mlperf-tiny`,
    /// `models/lstm-16x8`, `tosa-conformance`, ...; each folder's README says where it came from).
    ///
    /// # Panics
    /// When the directory is missing: the checkout is incomplete, and a test that silently does
    /// not run must not pass.
    pub fn dir(sub: &str) -> PathBuf {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../test").join(sub);
        assert!(dir.is_dir(), "{} is missing: the checkout is incomplete", dir.display());
        dir
    }
}

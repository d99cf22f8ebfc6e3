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

    /// The single-operator models of `test/models/tflite-ops` (its `cases.json`), and how a
    /// result is compared with TFLite Micro's there.
    pub mod tflite_ops {
        use crate::{DType, Tensor, read_npy};
        use std::path::{Path, PathBuf};

        /// One case: a model, its reference directory and what its JSON entry says.
        pub struct Case {
            pub name: String,
            pub model: PathBuf,
            pub refs: PathBuf,
            pub inputs: usize,
            pub outputs: usize,
            pub native: bool,
            pub known_failure: Option<String>,
        }

        impl Case {
            /// Inference `k`'s input (`what` "input") or TFLite Micro's output ("output") `j`.
            pub fn reference(&self, what: &str, k: usize, j: usize) -> Tensor {
                let file = if j == 0 { format!("{what}_{k}.npy") } else { format!("{what}_{k}_{j}.npy") };
                read_npy(&self.refs.join(file)).unwrap_or_else(|e| panic!("{}: {e}", self.name))
            }
        }

        /// Every case of `dir/cases.json`, and the number of inferences each has.
        ///
        /// # Panics
        /// When the file is missing or not what gen.py writes.
        pub fn cases(dir: &Path) -> (Vec<Case>, usize) {
            let text = std::fs::read_to_string(dir.join("cases.json")).expect("cases.json is readable");
            let json: serde_json::Value = serde_json::from_str(&text).expect("cases.json is JSON");
            let per_case = json["inputs_per_case"].as_u64().expect("inputs_per_case") as usize;
            let cases = json["cases"]
                .as_array()
                .expect("a list of cases")
                .iter()
                .map(|c| {
                    let file = c["file"].as_str().expect("a file");
                    Case {
                        name: file.trim_end_matches(".tflite").to_string(),
                        model: dir.join(file),
                        refs: dir.join(c["ref"].as_str().expect("a reference directory")),
                        inputs: c["inputs"].as_u64().expect("an input count") as usize,
                        outputs: c.get("outputs").and_then(|n| n.as_u64()).unwrap_or(1) as usize,
                        native: c["native"].as_bool().expect("native"),
                        known_failure: c.get("known_failure").and_then(|r| r.as_str()).map(String::from),
                    }
                })
                .collect();
            (cases, per_case)
        }

        /// How `got` differs from `want` (`None`: it does not): integers byte for byte, floats
        /// within 1e-5 of the larger magnitude or 1e-6 absolute.
        pub fn difference(got: &Tensor, want: &Tensor) -> Option<String> {
            if (got.dtype, &got.shape) != (want.dtype, &want.shape) {
                return Some(format!("{} {:?} instead of {} {:?}", got.dtype, got.shape, want.dtype, want.shape));
            }
            if want.dtype != DType::F32 {
                let size = want.dtype.size();
                let differ =
                    got.data.chunks_exact(size).zip(want.data.chunks_exact(size)).filter(|(a, b)| a != b).count();
                return (differ > 0).then(|| format!("{differ} of {} elements differ", want.len()));
            }
            let floats = |t: &Tensor| -> Vec<f32> {
                t.data.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
            };
            let (mut differ, mut worst) = (0, 0f32);
            for (x, y) in floats(got).into_iter().zip(floats(want)) {
                let d = (x - y).abs();
                if d.is_nan() || d > (1e-5 * x.abs().max(y.abs())).max(1e-6) {
                    differ += 1;
                    worst = worst.max(d);
                }
            }
            (differ > 0).then(|| format!("{differ} of {} elements differ, by up to {worst}", want.len()))
        }
    }
}

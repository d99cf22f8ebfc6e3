//! umac's model readers: no Python, no MLIR. Each writes TOSA MLIR text, which the tools parse,
//! each op located where it comes from in the file.
//!
//! - [`tflite`]: `.tflite` files, each TFLite operator legalized to TOSA as TFLite Micro's kernel
//!   computes it.
//! - [`tosa`]: TOSA 1.0 flatbuffers (`.tosa`, as ExecuTorch's Arm backend writes them for
//!   PyTorch models), op for op.
//!
//! Files are untrusted input: both readers check what they read and are fuzzed in the tests.

mod emit;
pub mod tflite;
pub mod tosa;

/// What went wrong reading a model: at an operator (its index, builtin name and first output's
/// name), or in the file as a whole.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    /// `operator #3 (CONV_2D, output 'conv1')`, when an operator is at fault.
    pub operator: Option<String>,
    pub message: String,
    /// The operator is one the reader does not legalize (yet): another converter may.
    pub unsupported: bool,
}

impl Error {
    pub(crate) fn model(message: String) -> Error {
        Error { operator: None, message, unsupported: false }
    }
    /// Something the reader does not take (yet).
    pub(crate) fn unsupported(message: String) -> Error {
        Error { operator: None, message, unsupported: true }
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.operator {
            Some(operator) => write!(f, "{operator}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for Error {}

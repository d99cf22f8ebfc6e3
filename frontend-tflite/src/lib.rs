//! umac's `.tflite` reader: TFLite flatbuffers (read with planus from `schema/tflite.fbs`)
//! legalized to TOSA MLIR text as TFLite Micro computes them, each op located at the TFLite
//! operator it comes from. No Python, no MLIR: the tools parse the text.
//!
//! ```text
//! model.tflite ── model::read ──▶ Model (tensors, operators, options; checked)
//!              ── legalize    ──▶ TOSA MLIR text (`func.func @main`), or an Error naming the operator
//! ```
//!
//! Which operators are read, for which types, is [`ops::SUPPORTED`]; any other is an error at the
//! operator (`operator #3 (CUMSUM): ...`), never a guess.

mod builtin_operators;
mod emit;
pub mod model;
mod ops;
mod quant;
#[allow(dead_code)]
mod softmax_tables;

#[allow(clippy::all, dead_code, unused_imports, missing_docs, unreachable_pub)]
mod schema {
    include!(concat!(env!("OUT_DIR"), "/tflite_schema.rs"));
}

pub use builtin_operators::BUILTIN_OPERATORS;
pub use model::{DType, Model, Operator, Quantization, Tensor, read};
pub use ops::SUPPORTED;

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

impl Operator {
    /// How umac names it: `operator #3 (CONV_2D, output 'conv1')`.
    pub fn label(&self, model: &Model) -> String {
        match self.outputs.first().map(|&t| &model.tensors[t].name) {
            Some(tensor) => format!("operator #{} ({}, output '{tensor}')", self.index, self.kind),
            None => format!("operator #{} ({})", self.index, self.kind),
        }
    }
}

/// Reads the `.tflite` file `bytes` (named `file` in locations) and returns its first subgraph as
/// TOSA MLIR text: `func.func @main`, each op located at
/// `loc("operator #3 (CONV_2D, output 'conv1')"("model.tflite":0:3))`.
pub fn to_tosa(bytes: &[u8], file: &str) -> Result<String, Error> {
    let model = read(bytes)?;
    // Each operator writes its constant operands' data: many operators sharing one constant
    // would make the text quadratic in the file's size.
    let operands = model.operators.iter().flat_map(|op| op.inputs.iter().flatten());
    let constants: usize = operands.map(|&t| model.tensors[t].data.map_or(0, <[u8]>::len)).sum();
    if constants > 16 * bytes.len() {
        return Err(Error::model(format!(
            "its operators read {constants} bytes of constants, over 16 times the file's size (each writes its own)"
        )));
    }
    ops::legalize(&model, file)
}

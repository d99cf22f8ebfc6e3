//! `.tflite` files: TFLite flatbuffers (read with planus from `schema/tflite.fbs`) legalized to
//! TOSA MLIR text as TFLite Micro computes them, each op located at the TFLite operator it comes
//! from.
//!
//! ```text
//! model.tflite ── model::read ──▶ Model (tensors, operators, options; checked)
//!              ── legalize    ──▶ TOSA MLIR text (`func.func @main`), or an Error naming the operator
//! ```
//!
//! Which operators are read, for which types, is [`SUPPORTED`]; any other is an error at the
//! operator (`operator #3 (CUMSUM): ...`), never a guess.

mod builtin_operators;
mod fixed_point;
pub use fixed_point::SIGMOID_TABLE;
mod listing;
pub mod model;
mod ops;
mod quant;
#[allow(dead_code)]
mod softmax_tables;

#[allow(clippy::all, dead_code, unused_imports, missing_docs, unreachable_pub)]
mod schema {
    include!(concat!(env!("OUT_DIR"), "/tflite_schema.rs"));
}

pub use crate::Error;
pub(crate) use crate::emit;
pub use builtin_operators::BUILTIN_OPERATORS;
pub use listing::{
    Listed, ListedTensor, io_quantization, io_tensors, lstm_attribute, metadata, operand_data, operators, tensors,
};
pub use model::{DType, Model, Operator, Quantization, Subgraph, Tensor, read};
pub use ops::SUPPORTED;

impl Operator {
    /// How umac names it: `operator #3 (CONV_2D, output 'conv1')`.
    pub fn label(&self, graph: &Subgraph) -> String {
        match self.outputs.first().map(|&t| &graph.tensors[t].name) {
            Some(tensor) => format!("operator #{} ({}, output '{tensor}')", self.index, self.kind),
            None => format!("operator #{} ({})", self.index, self.kind),
        }
    }
}

/// Reads the `.tflite` file `bytes` (named `file` in locations) and returns its first subgraph as
/// TOSA MLIR text: `func.func @main`, each op located at
/// `loc("operator #3 (CONV_2D, output 'conv1')"("model.tflite":0:3))`.
pub fn to_tosa(bytes: &[u8], file: &str) -> Result<String, Error> {
    let model = checked(bytes)?;
    ops::legalize(&model, file)
}

/// The part of the `.tflite` file `bytes`' first subgraph that computes tensors `results` from
/// tensors `arguments` (by index, as [`tensors`] lists them), as TOSA MLIR text like
/// [`to_tosa`]'s: what the CPU runs before, between and after a device's custom operators.
/// Custom operators, and operators that need one's outputs (or another tensor not among the
/// arguments), are left out; a result nothing then computes is an error.
pub fn to_tosa_between(bytes: &[u8], file: &str, arguments: &[usize], results: &[usize]) -> Result<String, Error> {
    let model = checked(bytes)?;
    let count = model.main().tensors.len();
    if let Some(t) = arguments.iter().chain(results).find(|&&t| t >= count) {
        return Err(Error::model(format!("it has {count} tensors, not a tensor #{t}")));
    }
    ops::legalize_between(&model, file, arguments, results, true)
}

/// The model `bytes` holds, read and checked, when its constants stay a reasonable size.
fn checked(bytes: &[u8]) -> Result<Model<'_>, Error> {
    let model = read(bytes)?;
    // Each operator writes its constant operands' data: many operators sharing one constant
    // would make the text quadratic in the file's size.
    let main = model.main();
    let operands = main.operators.iter().flat_map(|op| op.inputs.iter().flatten());
    let constants: usize = operands.map(|&t| main.tensors[t].data.map_or(0, <[u8]>::len)).sum();
    if constants > 16 * bytes.len() {
        return Err(Error::model(format!(
            "its operators read {constants} bytes of constants, over 16 times the file's size (each writes its own)"
        )));
    }
    Ok(model)
}

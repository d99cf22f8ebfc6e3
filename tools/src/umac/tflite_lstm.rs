//! What `umac-legalize-tfl-lstm` needs of a `.tflite` LSTM that the converter's TOSA does not
//! carry: its tensors' quantization and its options, read from the flatbuffer and attached to
//! the `tfl.unidirectional_sequence_lstm` op as `umac.lstm` (the dictionary umac's own reader
//! writes, `umac_frontend::tflite::lstm_attribute`).

use melior::{
    Context,
    ir::{
        Attribute, Module,
        operation::{OperationLike, WalkOrder, WalkResult},
    },
};
use umac_dialects::umac::TFL_LSTM_OP as LSTM_OP;

/// Attaches `umac.lstm` to every LSTM op of `module`, located at its TFLite operator (see
/// `tflite::name_operators`), from the model's flatbuffer `bytes`.
pub fn attach(context: &Context, module: &Module, bytes: &[u8]) -> Result<(), String> {
    let mut result = Ok(());
    module.as_operation().walk(WalkOrder::PreOrder, |op| {
        if umac_dialects::ir::op_name(&op) != LSTM_OP || result.is_err() {
            return WalkResult::Advance;
        }
        let location = op.location();
        let at = location.is_name().then(|| location.name_child_location());
        let Some(index) = at.filter(|l| l.is_file_line_col_range()).map(|l| l.file_line_col_range_start_column())
        else {
            return WalkResult::Advance;
        };
        match parameters(bytes, index).and_then(|text| {
            Attribute::parse(context, &text).ok_or_else(|| format!("internal error: '{text}' does not parse"))
        }) {
            Ok(attribute) => umac_dialects::ir::set_attribute(&op, umac_dialects::umac::LSTM_ATTR, attribute),
            Err(e) => result = Err(format!("operator #{index} (UNIDIRECTIONAL_SEQUENCE_LSTM): {e}")),
        }
        WalkResult::Advance
    });
    result
}

/// The `umac.lstm` dictionary of operator `index` of the first subgraph.
fn parameters(bytes: &[u8], index: usize) -> Result<String, String> {
    umac_frontend::tflite::lstm_attribute(bytes, index).map_err(|e| e.message)
}

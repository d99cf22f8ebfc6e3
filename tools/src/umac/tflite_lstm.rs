//! What `umac-legalize-tfl-lstm` needs of a `.tflite` LSTM that the converter's TOSA does not
//! carry: its tensors' quantization and its options, read from the flatbuffer and attached to
//! the `tfl.unidirectional_sequence_lstm` op as `umac.lstm`.

use super::tflite::FlatBuffer;
use melior::{
    Context,
    ir::{
        Attribute, Module,
        operation::{OperationLike, WalkOrder, WalkResult},
    },
};
use umac_dialects::text::float_literal;
use umac_lowering::passes::legalize_tfl_lstm::LSTM_OP;

/// TFLite's `UNIDIRECTIONAL_SEQUENCE_LSTM` inputs whose quantization the kernel uses: the input,
/// the eight weights, the hidden (output) state and the cell state.
const INPUT: usize = 0;
const HIDDEN_STATE: usize = 18;
const CELL_STATE: usize = 19;

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
    let fb = FlatBuffer(bytes);
    let bad = || "malformed .tflite flatbuffer".to_string();
    let (subgraph, tensors) = fb.first_subgraph().ok_or_else(bad)?;
    let op = fb.table_at_vector(fb.vector(subgraph, 3).ok_or_else(bad)?, index).ok_or_else(bad)?;
    let inputs = fb.vector(op, 1).ok_or_else(bad)?;
    // Operator input k's tensor table, `None` when absent (-1).
    let tensor = |k: usize| -> Result<Option<usize>, String> {
        if k >= inputs.1 {
            return Ok(None);
        }
        let index = fb.u32(inputs.0 + 4 * k).ok_or_else(bad)? as i32;
        if index < 0 {
            return Ok(None);
        }
        fb.table_at_vector(tensors, index as usize).map(Some).ok_or_else(bad)
    };
    // One scale and zero point per tensor (TFLite Micro's LSTM is per tensor).
    let quantization = |k: usize, what: &str| -> Result<Option<(f32, i64)>, String> {
        let Some(t) = tensor(k)? else { return Ok(None) };
        let q = fb.quantization(t);
        match (q.scale.as_slice(), q.zero_point.as_slice()) {
            ([], _) => Ok(None),
            ([scale], [] | [_]) => Ok(Some((*scale, q.zero_point.first().copied().unwrap_or(0)))),
            _ => Err(format!("the {what} (input #{k}) is quantized per channel: TFLite Micro's LSTM takes one scale")),
        }
    };
    // UnidirectionalSequenceLSTMOptions: fused_activation_function (0), cell_clip (1),
    // proj_clip (2), time_major (3).
    let options = fb.table(op, 4);
    let activation = options.map_or(Some(0), |o| fb.scalar(o, 0, 1)).ok_or_else(bad)?;
    let cell_clip = f32::from_bits(options.map_or(Some(0), |o| fb.scalar(o, 1, 4)).ok_or_else(bad)?);
    let time_major = options.map_or(Some(0), |o| fb.scalar(o, 3, 1)).ok_or_else(bad)? != 0;
    let activation = match activation {
        4 => "tanh".to_string(),
        6 => "sigmoid".to_string(),
        code => format!("fused activation {code}"),
    };
    let mut entries = vec![
        format!("cell_activation = \"{activation}\""),
        format!("cell_clip = {} : f32", float_literal(cell_clip)),
        format!("time_major = {time_major}"),
    ];
    if let Some((input_scale, input_zero_point)) = quantization(INPUT, "input")? {
        let mut scales = Vec::new();
        for k in 1..=8 {
            let (scale, zero_point) = quantization(k, "weights")?.ok_or("its weights are not quantized")?;
            if zero_point != 0 {
                return Err(format!(
                    "weights #{k} have zero point {zero_point}: TFLite Micro's LSTM takes symmetric weights"
                ));
            }
            scales.push(float_literal(scale));
        }
        let (hidden_scale, hidden_zero_point) =
            quantization(HIDDEN_STATE, "hidden state")?.ok_or("its hidden state is not quantized")?;
        let (cell_scale, _) = quantization(CELL_STATE, "cell state")?.ok_or("its cell state is not quantized")?;
        entries.extend([
            format!("input_scale = {} : f32", float_literal(input_scale)),
            format!("input_zero_point = {input_zero_point} : i64"),
            format!("weight_scales = array<f32: {}>", scales.join(", ")),
            format!("hidden_scale = {} : f32", float_literal(hidden_scale)),
            format!("hidden_zero_point = {hidden_zero_point} : i64"),
            format!("cell_scale = {} : f32", float_literal(cell_scale)),
        ]);
    }
    Ok(format!("{{{}}}", entries.join(", ")))
}

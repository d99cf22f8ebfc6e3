//! UNIDIRECTIONAL_SEQUENCE_LSTM: kept as `tfl.unidirectional_sequence_lstm` with its operands and
//! a `umac.lstm` dictionary of what the flatbuffer says about it (quantization and options);
//! umac's pass `umac-legalize-tfl-lstm` writes its time loop (TFLite Micro's kernel).

use super::{Cx, OpResult, Value, bad, ty, unsupported};
use crate::tflite::{
    emit::{Ty, float},
    model::{Operator, Options, Subgraph},
};

/// Operand positions of TFLite's LSTM: the input, the state variables.
const INPUT: usize = 0;
const HIDDEN_STATE: usize = 18;
const CELL_STATE: usize = 19;
const OPERANDS: usize = 24;

pub fn lstm(cx: &mut Cx, op: &Operator) -> OpResult {
    let Options::Lstm { activation, cell_clip, time_major, .. } = op.options else {
        return bad("its options are not an LSTM's");
    };
    let attribute = parameters(cx.graph, op, activation, cell_clip, time_major)?;
    let mut operands: Vec<Value> = Vec::with_capacity(OPERANDS);
    let mut none = None;
    for k in 0..OPERANDS {
        let value = match cx.optional(op, k) {
            None => none
                .get_or_insert_with(|| cx.func.raw("\"tfl.no_value\"() {value} : () -> none", Ty::new(&[], "none")))
                .clone(),
            Some(tensor) if tensor.is_variable && tensor.data.is_none() => {
                // The state's initial value is the pass's to set (TFLite's: the zero point).
                let zero = if tensor.dtype == crate::tflite::model::DType::F32 { "0.0" } else { "0" };
                cx.func.constant(ty(tensor), zero.into())
            }
            Some(_) => cx.value(op, k)?,
        };
        operands.push(value);
    }
    let output = cx.output(op, 0)?;
    let names: Vec<&str> = operands.iter().map(|v| v.name.as_str()).collect();
    let types: Vec<String> =
        operands.iter().map(|v| if v.ty.elem == "none" { "none".to_string() } else { v.type_text() }).collect();
    let text = format!(
        "\"tfl.unidirectional_sequence_lstm\"({}) {{umac.lstm = {attribute}}} : ({}) -> {}",
        names.join(", "),
        types.join(", "),
        ty(output).text()
    );
    let y = cx.func.raw(&text, ty(output));
    cx.define(op, 0, y)
}

/// The `umac.lstm` dictionary of LSTM `op` of `model`, for the converter's TOSA, which keeps the
/// LSTM but drops its quantization and options.
pub fn attribute(graph: &Subgraph, op: &Operator) -> OpResult<String> {
    let Options::Lstm { activation, cell_clip, time_major, .. } = op.options else {
        return bad("its options are not an LSTM's");
    };
    parameters(graph, op, activation, cell_clip, time_major)
}

/// The `umac.lstm` dictionary (see `umac-legalize-tfl-lstm`).
fn parameters(graph: &Subgraph, op: &Operator, activation: i8, cell_clip: f32, time_major: bool) -> OpResult<String> {
    let quantization = |k: usize, what: &str| -> OpResult<Option<(f32, i64)>> {
        let Some(t) = op.inputs.get(k).copied().flatten().map(|t| &graph.tensors[t]) else { return Ok(None) };
        match t.quantization.as_ref().map(|q| q.single()) {
            None => Ok(None),
            Some(Some(q)) => Ok(Some(q)),
            Some(None) => unsupported(format!(
                "the {what} (input #{k}) is quantized per channel: TFLite Micro's LSTM takes one scale"
            )),
        }
    };
    let activation = match activation {
        4 => "tanh".to_string(),
        6 => "sigmoid".to_string(),
        code => format!("fused activation {code}"),
    };
    let mut entries = vec![
        format!("cell_activation = \"{activation}\""),
        format!("cell_clip = {} : f32", float(cell_clip)),
        format!("time_major = {time_major}"),
    ];
    if let Some((input_scale, input_zero_point)) = quantization(INPUT, "input")? {
        let mut scales = Vec::new();
        for k in 1..=8 {
            let Some((scale, zero_point)) = quantization(k, "weights")? else {
                return unsupported("its weights are not quantized");
            };
            if zero_point != 0 {
                return unsupported(format!(
                    "weights #{k} have zero point {zero_point}: TFLite Micro's LSTM takes symmetric weights"
                ));
            }
            scales.push(float(scale));
        }
        let Some((hidden_scale, hidden_zero_point)) = quantization(HIDDEN_STATE, "hidden state")? else {
            return unsupported("its hidden state is not quantized");
        };
        let Some((cell_scale, _)) = quantization(CELL_STATE, "cell state")? else {
            return unsupported("its cell state is not quantized");
        };
        entries.extend([
            format!("input_scale = {} : f32", float(input_scale)),
            format!("input_zero_point = {input_zero_point} : i64"),
            format!("weight_scales = array<f32: {}>", scales.join(", ")),
            format!("hidden_scale = {} : f32", float(hidden_scale)),
            format!("hidden_zero_point = {hidden_zero_point} : i64"),
            format!("cell_scale = {} : f32", float(cell_scale)),
        ]);
    }
    Ok(format!("{{{}}}", entries.join(", ")))
}

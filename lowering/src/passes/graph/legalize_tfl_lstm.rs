//! `umac-legalize-tfl-lstm`: replaces each `tfl.unidirectional_sequence_lstm` that
//! `tosa-converter-for-tflite` leaves in TFLite's dialect by TOSA, `tensor`, `linalg` and `scf` on
//! tensors: a time loop (`scf.for`, not unrolled) over one LSTM step, bit-exact with TFLite
//! Micro's kernel for int8 models (int8 activations and weights, int32 biases, int16 cell), the
//! same structure in float for float models. `step.rs` writes the IR.
//!
//! The converter's TOSA keeps the op's operands but not their quantization or the op's options;
//! `umac` reads them from the `.tflite` flatbuffer and attaches them as `umac.lstm`:
//! ```mlir
//! %y = "tfl.unidirectional_sequence_lstm"(%x, %w_ii, ..., %no_value, ...) {umac.lstm = {
//!     input_scale = 0.02688 : f32, input_zero_point = 8 : i64,
//!     weight_scales = array<f32: ...>,            // input_to_{input,forget,cell,output}, recurrent_to_...
//!     hidden_scale = 0.0045 : f32, hidden_zero_point = -5 : i64, cell_scale = 6.1035156e-05 : f32,
//!     cell_clip = 10.0 : f32, cell_activation = "tanh", time_major = false}} : (...) -> tensor<1x16x12xi8>
//! ```
//! (a float LSTM needs only the last three).
//!
//! The hidden and cell state are TFLite's variable tensors: they persist from one inference to
//! the next, as in TFLite Micro (which resets them only when asked), so each becomes a mutable
//! `ml_program.global` holding TFLite's initial value (the zero point of an int8 tensor, else 0),
//! loaded before the loop and stored after it. Inside the loop they are carried in place.
//!
//! TFLite Micro's kernel takes no peephole, projection, layer norm or coupled input and forget
//! gate (CIFG); neither does this pass: such an LSTM, a 16x8 LSTM and one without `umac.lstm` are
//! errors at the op.

mod step;

use crate::{
    Error,
    error::report,
    pass::{UmacPass, boxed, replace_with},
    registry::{PassInfo, PassKind},
};
use melior::ir::{OperationRef, operation::OperationLike};
use mlir_sys::*;
use step::{Lstm, Quantized, quantize_multiplier};
use umac_dialects::{
    build::Builder,
    ir::{
        attribute, collect, element_type, op_name, static_tensor_shape, symbol_name, top_level_ops, type_text,
        with_context,
    },
    text::{str_ref, string_from},
};

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    name: "umac-legalize-tfl-lstm",
    summary: "Replace tfl.unidirectional_sequence_lstm by a time loop over TOSA (TFLite Micro's integer kernel, or float)",
    anchor: "builtin.module",
    options: &[],
    kind: PassKind::Pass(|_| boxed(LegalizeTflLstm)),
};

// The op this pass replaces, and the placeholder of absent operands.
use umac_dialects::umac::{TFL_LSTM_OP as LSTM_OP, TFL_NO_VALUE_OP as NO_VALUE_OP};

struct LegalizeTflLstm;

impl UmacPass for LegalizeTflLstm {
    fn run(&mut self, operation: OperationRef) -> Result<(), Error> {
        let mut failed = false;
        // State globals get names no symbol of the module has.
        let taken: Vec<String> = top_level_ops(operation).iter().filter_map(symbol_name).collect();
        let mut next = 0;
        for raw in collect(operation, |op| op_name(op) == LSTM_OP) {
            // SAFETY: each op is alive until replaced below, one at a time.
            let op = unsafe { OperationRef::from_raw(raw) };
            while taken.iter().any(|t| t.starts_with(&format!("umac_lstm{next}_"))) {
                next += 1;
            }
            let globals = [format!("umac_lstm{next}_hidden"), format!("umac_lstm{next}_cell")];
            next += 1;
            let lstm = match read(&op, globals) {
                Ok(lstm) => lstm,
                Err(message) => {
                    report(op.location(), &message.to_string());
                    failed = true;
                    continue;
                }
            };
            // The globals go to the top of the module (each LSTM's in front of the ones before;
            // the cell's first), with the op's location; the op's replacement in front of it.
            let first = top_level_ops(operation)[0];
            with_context(&op, |context| {
                let mut globals = Builder::before(context, first);
                globals.set_location(op.location().to_raw());
                for k in [1, 0] {
                    lstm.write_global(&mut globals, k);
                }
                globals.done()
            })?;
            replace_with(op, |b| vec![lstm.write(b)])?;
        }
        // The placeholders of absent operands, now unused.
        for raw in collect(operation, |op| op_name(op) == NO_VALUE_OP) {
            // SAFETY: the op is alive; it is erased only when nothing uses its result.
            unsafe {
                if mlirValueGetFirstUse(mlirOperationGetResult(raw, 0)).ptr.is_null() {
                    mlirOperationDestroy(raw);
                }
            }
        }
        if failed { Err(Error::Reported) } else { Ok(()) }
    }
}

/// The static shape and element type of operand `i`, `None` if it is absent (`none`).
fn operand(op: &OperationRef, i: usize) -> Result<Option<(Vec<i64>, String)>, Error> {
    // SAFETY: the op is alive and has at least `i + 1` operands (checked by the caller).
    let ty = unsafe { mlirValueGetType(mlirOperationGetOperand(op.to_raw(), i as isize)) };
    // SAFETY: a type of a live value.
    if unsafe { mlirTypeIsANone(ty) } {
        return Ok(None);
    }
    let shape = static_tensor_shape(ty)
        .ok_or_else(|| Error::Invalid(format!("operand #{i} must be a tensor of static shape")))?;
    Ok(Some((shape, type_text(element_type(ty)))))
}

/// The LSTM `op` computes, from its operands' types and its `umac.lstm` attribute.
fn read(op: &OperationRef, globals: [String; 2]) -> Result<Lstm, Error> {
    if op.operand_count() != 24 || op.result_count() != 1 {
        return Err(Error::Invalid(format!("'{LSTM_OP}' must have 24 operands and one result")));
    }
    for (i, what) in [(9, "peephole"), (10, "peephole"), (11, "peephole"), (16, "projection"), (17, "projection")]
        .into_iter()
        .chain((20..24).map(|i| (i, "layer normalization")))
    {
        if operand(op, i)?.is_some() {
            return Err(Error::Invalid(format!(
                "an LSTM with {what} weights (operand #{i}) is not supported yet (nor by TFLite Micro)"
            )));
        }
    }
    let Some((x, element)) = operand(op, 0)? else { return Err(Error::Invalid("the LSTM has no input".into())) };
    let weights: Vec<(Vec<i64>, String)> = (1..=8)
        .map(|i| {
            operand(op, i)?.ok_or_else(|| {
                Error::Invalid(format!(
                    "operand #{i} is absent: an LSTM with coupled input and forget gates (CIFG) is not supported yet"
                ))
            })
        })
        .collect::<Result<_, _>>()?;
    let [a, b, features] = x[..] else {
        return Err(Error::Invalid(format!("the LSTM's input must be rank 3, not {x:?}")));
    };
    let state = weights[0].0[0];
    // SAFETY: the op is alive and has one result.
    let result_type = unsafe { mlirValueGetType(mlirOperationGetResult(op.to_raw(), 0)) };
    let dict = attribute_dict(op);
    let time_major = dict.and_then(|d| bool_entry(d, "time_major")).unwrap_or(false);
    let (batch, steps) = if time_major { (b, a) } else { (a, b) };
    for (k, (shape, _)) in weights.iter().enumerate() {
        let expected = [state, if k < 4 { features } else { state }];
        if shape[..] != expected {
            return Err(Error::Invalid(format!("weights #{} have shape {shape:?}, expected {expected:?}", k + 1)));
        }
    }
    if static_tensor_shape(result_type).as_deref() != Some(&[a, b, state][..]) {
        return Err(Error::Invalid(format!("the LSTM's result must be {a}x{b}x{state}")));
    }
    let Some(dict) = dict else {
        return Err(Error::Invalid("the LSTM has no 'umac.lstm' attribute (its quantization and options, which umac reads from the .tflite file)".into()));
    };
    let cell_tanh = match string_entry(dict, "cell_activation").as_deref() {
        Some("tanh") | None => true,
        Some("sigmoid") => false,
        Some(other) => {
            return Err(Error::Invalid(format!(
                "the cell gate's activation '{other}' is not supported (tanh or sigmoid)"
            )));
        }
    };
    let cell_clip = float_entry(dict, "cell_clip").unwrap_or(0.0) as f32;
    let quantized = match element.as_str() {
        "f32" => None,
        "i8" => Some(quantized(dict, cell_clip)?),
        other => {
            return Err(Error::Invalid(format!(
                "an LSTM with {other} activations is not supported yet (int8 with an int16 cell, or float32)"
            )));
        }
    };
    for (shape, ty) in &weights {
        let expected = if quantized.is_some() { "i8" } else { "f32" };
        if ty != expected {
            return Err(Error::Invalid(format!(
                "weights of {shape:?} are {ty}, expected {expected} for {element} activations"
            )));
        }
    }
    Ok(Lstm { batch, steps, features, state, time_major, cell_tanh, quantized, cell_clip, globals })
}

/// The integer parameters, computed as TFLite Micro's `PrepareGateParametersInteger` does.
fn quantized(dict: MlirAttribute, cell_clip: f32) -> Result<Quantized, Error> {
    let need =
        |name: &str| float_entry(dict, name).ok_or_else(|| Error::Invalid(format!("'umac.lstm' has no '{name}'")));
    let need_int =
        |name: &str| int_entry(dict, name).ok_or_else(|| Error::Invalid(format!("'umac.lstm' has no '{name}'")));
    let (input_scale, hidden_scale, cell_scale) =
        (need("input_scale")? as f32, need("hidden_scale")? as f32, need("cell_scale")? as f32);
    let weight_scales = f32_array_entry(dict, "weight_scales")
        .filter(|s| s.len() == 8)
        .ok_or_else(|| Error::Invalid("'umac.lstm' needs 'weight_scales', 8 per-tensor scales".into()))?;
    if cell_scale <= 0.0 || hidden_scale <= 0.0 || input_scale <= 0.0 {
        return Err(Error::Invalid("the LSTM's scales must be positive".into()));
    }
    let multiplier = |real: f64| {
        quantize_multiplier(real)
            .ok_or_else(|| Error::Invalid(format!("a rescale by {real} is out of the range TOSA can express")))
    };
    // Fully connected layers to the gates' 2^-12 (TFLite: the float product of the scales).
    let gate_scale = 2f64.powi(-12);
    let fc = |x: f32, w: f32| multiplier(f64::from(x * w) / gate_scale);
    let input_fc = [0, 1, 2, 3].map(|k| fc(input_scale, weight_scales[k]));
    let recurrent_fc = [4, 5, 6, 7].map(|k| fc(hidden_scale, weight_scales[k]));
    // Products of gate outputs at 2^-15 (TFLite: the double product of the scales).
    let gate_output = f64::from(2f32.powi(-15));
    let cell = f64::from(cell_scale);
    let power = (cell_scale.ln() * (1.0 / 2f32.ln())).round();
    if ((cell_scale.ln() * (1.0 / 2f32.ln())) - power).abs() >= 1e-3 {
        return Err(Error::Invalid(format!(
            "the cell state's scale {cell_scale} must be a power of two (TFLite Micro's integer LSTM)"
        )));
    }
    let clip = f64::from(cell_clip) / cell;
    Ok(Quantized {
        input_zero_point: need_int("input_zero_point")?,
        hidden_zero_point: need_int("hidden_zero_point")?,
        input_fc: collect_array(input_fc)?,
        recurrent_fc: collect_array(recurrent_fc)?,
        forget_cell: multiplier(gate_output * cell / cell)?,
        input_cell: multiplier(gate_output * gate_output / cell)?,
        hidden: multiplier(gate_output * gate_output / f64::from(hidden_scale))?,
        cell_clip: if cell_clip > 0.0 { clip.clamp(-32768.0, 32767.0).trunc() as i64 } else { 0 },
        cell_scale_power: power as i32,
    })
}

fn collect_array(values: [Result<(i32, i8), Error>; 4]) -> Result<[(i32, i8); 4], Error> {
    let [a, b, c, d] = values;
    Ok([a?, b?, c?, d?])
}

fn attribute_dict(op: &OperationRef) -> Option<MlirAttribute> {
    // SAFETY: the op is alive.
    let dict = unsafe { attribute(op.to_raw(), umac_dialects::umac::LSTM_ATTR)? };
    // SAFETY: a live attribute.
    unsafe { mlirAttributeIsADictionary(dict) }.then_some(dict)
}

fn entry(dict: MlirAttribute, name: &str) -> Option<MlirAttribute> {
    // SAFETY: `dict` is a live dictionary attribute.
    let value = unsafe { mlirDictionaryAttrGetElementByName(dict, str_ref(name)) };
    (!value.ptr.is_null()).then_some(value)
}

fn float_entry(dict: MlirAttribute, name: &str) -> Option<f64> {
    let value = entry(dict, name)?;
    // SAFETY: a live attribute, checked to be a float.
    unsafe { mlirAttributeIsAFloat(value).then(|| mlirFloatAttrGetValueDouble(value)) }
}

fn int_entry(dict: MlirAttribute, name: &str) -> Option<i64> {
    let value = entry(dict, name)?;
    // SAFETY: a live attribute, checked to be an integer.
    unsafe { mlirAttributeIsAInteger(value).then(|| mlirIntegerAttrGetValueInt(value)) }
}

fn bool_entry(dict: MlirAttribute, name: &str) -> Option<bool> {
    let value = entry(dict, name)?;
    // SAFETY: a live attribute, checked to be a bool.
    unsafe { mlirAttributeIsABool(value).then(|| mlirBoolAttrGetValue(value)) }
}

fn string_entry(dict: MlirAttribute, name: &str) -> Option<String> {
    let value = entry(dict, name)?;
    // SAFETY: a live attribute, checked to be a string.
    unsafe { mlirAttributeIsAString(value).then(|| string_from(mlirStringAttrGetValue(value))) }
}

fn f32_array_entry(dict: MlirAttribute, name: &str) -> Option<Vec<f32>> {
    let value = entry(dict, name)?;
    // SAFETY: a live attribute, checked to be a dense f32 array.
    unsafe {
        mlirAttributeIsADenseF32Array(value)
            .then(|| (0..mlirDenseArrayGetNumElements(value)).map(|i| mlirDenseF32ArrayGetElement(value, i)).collect())
    }
}

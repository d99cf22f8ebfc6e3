//! SVDF: TFLite Micro's kernel (`svdf_common.cc`) with its activation state as a
//! `tosa.variable`, carried from one inference to the next.
//!
//! The state is `[batch, filters · memory]`, each filter's `memory` newest feature values, oldest
//! first. An inference shifts every filter's history by one, appends the feature projection of
//! the input (`input · weights_featureᵀ`) as the newest value, takes each filter's dot product
//! of its history with its time weights, sums `rank` filters per unit and adds the bias.
//!
//! - int8 (time weights and state int16 or int8, bias int32): the feature sum scaled by
//!   `s_in · s_feature / s_state`, clamped to the state type, plus the state's zero point (stored
//!   as the state type, wrapping as C's conversion does); the unit sums scaled by
//!   `s_state · s_time / s_out` plus the output zero point, clamped to int8. TFLite Micro applies
//!   no fused activation here.
//! - float32: the same in float, then the fused activation.
//!
//! Before the first inference the state holds TFLite Micro's initial value: the zero point of an
//! int8 state, else 0 (`MicroInterpreterGraph::ResetTensorData`).

use super::{Cx, OpResult, bad, per_tensor, scale32, unsupported};
use crate::tflite::{
    emit::{Ty, float},
    model::{DType, Operator, Options},
};

const INPUT: usize = 0;
const WEIGHTS_FEATURE: usize = 1;
const WEIGHTS_TIME: usize = 2;
const BIAS: usize = 3;
const STATE: usize = 4;

pub fn svdf(cx: &mut Cx, op: &Operator) -> OpResult {
    let Options::Svdf { rank, activation, .. } = op.options else { return bad("its options are not an SVDF's") };
    let input = cx.tensor(op, INPUT)?;
    let feature = cx.tensor(op, WEIGHTS_FEATURE)?;
    let time = cx.tensor(op, WEIGHTS_TIME)?;
    let state = cx.tensor(op, STATE)?;
    let output = cx.output(op, 0)?;
    let [batch, input_size] = dims2(&input.shape, "its input")?;
    let [filters, feature_size] = dims2(&feature.shape, "its feature weights")?;
    let [time_filters, memory] = dims2(&time.shape, "its time weights")?;
    if feature_size != input_size || time_filters != filters {
        return bad(format!(
            "its weights {:?} (feature) and {:?} (time) do not fit its input {:?}",
            feature.shape, time.shape, input.shape
        ));
    }
    if rank <= 0 || filters % rank != 0 || memory <= 0 {
        return bad(format!("rank {rank} does not divide its {filters} filters (memory {memory})"));
    }
    let units = filters / rank;
    if state.shape != [batch, filters * memory] || !state.is_variable {
        return bad(format!(
            "its state '{}' is {:?}{}, TFLite Micro wants a variable tensor of [{batch}, {}]",
            state.name,
            state.shape,
            if state.is_variable { "" } else { " and not a variable tensor" },
            filters * memory
        ));
    }
    if output.shape != [batch, units] {
        return bad(format!("its output is {:?}, TFLite Micro writes [{batch}, {units}]", output.shape));
    }
    if let Some(bias) = cx.optional(op, BIAS)
        && bias.shape != [units]
    {
        return bad(format!("its bias is {:?}, TFLite Micro wants [{units}]", bias.shape));
    }
    let int8 = match (input.dtype, feature.dtype, time.dtype, state.dtype, output.dtype) {
        (DType::F32, DType::F32, DType::F32, DType::F32, DType::F32) => false,
        (DType::I8, DType::I8, DType::I16 | DType::I8, s, DType::I8) if s == time.dtype => true,
        (DType::F32, DType::I8, ..) => return unsupported("it is hybrid (float32 input, int8 weights)"),
        _ => {
            return unsupported(format!(
                "its types (input {}, weights {} and {}, state {}, output {}) are not ones TFLite Micro's SVDF takes",
                input.dtype.name(),
                feature.dtype.name(),
                time.dtype.name(),
                state.dtype.name(),
                output.dtype.name()
            ));
        }
    };
    let state_zp = if int8 { per_tensor(state, "its state")?.1 } else { 0 };
    let state_ty = Ty::new(&[batch, filters, memory], state.dtype.mlir());
    let initial = match state.dtype {
        DType::F32 => "0.0".to_string(),
        DType::I8 => state_zp.to_string(),
        _ => "0".to_string(),
    };
    let symbol = cx.func.variable(&format!("svdf_{}", state.name), &state_ty, &initial);
    let old = cx.func.variable_read(&symbol, &state_ty);

    // The projection of the input onto each filter: [1, batch, input] · [1, input, filters].
    let x = cx.value(op, INPUT)?;
    let x = cx.func.reshape(&x, &[1, batch, input_size]);
    let w = cx.value(op, WEIGHTS_FEATURE)?;
    let w = cx.func.reshape(&w, &[1, filters, input_size]);
    let w = super::transpose_value(cx, &w, &[0, 2, 1]);
    let projected = if int8 {
        let (in_scale, in_zp) = per_tensor(input, "its input")?;
        // TFLite Micro reads the feature weights' scale, not their zero point.
        let (feature_scale, _) = per_tensor(feature, "its feature weights")?;
        let (state_scale, _) = per_tensor(state, "its state")?;
        let (a_zp, b_zp) = (cx.func.scalar("i8", in_zp), cx.func.scalar("i8", 0));
        let sum = cx.func.op("matmul", &[&x, &w, &a_zp, &b_zp], "", Ty::new(&[1, batch, filters], "i32"));
        let scale = f64::from(in_scale * feature_scale / state_scale);
        let scaled = cx.rescale(&sum, "i32", &[scale32(scale)], 0, 0, true, true);
        let (low, high) = super::int_range(state.dtype)?;
        let clamped = cx.clamp_int(&scaled, low, high);
        let zp = cx.func.broadcast(3, "i32", state_zp);
        let shifted = cx.func.op("add", &[&clamped, &zp], "", clamped.ty.clone());
        cx.func.op("cast", &[&shifted], "", shifted.ty.with_elem(state.dtype.mlir()))
    } else {
        let zero = cx.func.constant(Ty::new(&[1], "f32"), float(0.0));
        cx.func.op("matmul", &[&x, &w, &zero, &zero], "", Ty::new(&[1, batch, filters], "f32"))
    };
    let newest = cx.func.reshape(&projected, &[batch, filters, 1]);
    let new = if memory == 1 {
        newest
    } else {
        let history = super::slice(cx, &old, &[0, 0, 1], &[batch, filters, memory - 1]);
        super::concat(cx, &[history, newest], 2)
    };

    // Each filter's history · its time weights, summed over `rank` filters per unit, plus bias.
    let weights = cx.value(op, WEIGHTS_TIME)?;
    let weights = cx.func.reshape(&weights, &[1, filters, memory]);
    let sum_ty = Ty::new(&[batch, units, 1], if int8 { "i32" } else { "f32" });
    let (h, t) = if int8 {
        let t32 = state_ty.with_elem("i32");
        let h = cx.func.op("cast", &[&new], "", t32.clone());
        let zp = cx.func.broadcast(3, "i32", state_zp);
        let h = cx.func.op("sub", &[&h, &zp], "", t32);
        let t = cx.func.op("cast", &[&weights], "", weights.ty.with_elem("i32"));
        (h, t)
    } else {
        (new.clone(), weights)
    };
    let no_shift = cx.func.scalar("i8", 0);
    let products = cx.func.op("mul", &[&h, &t, &no_shift], "", h.ty.clone());
    let per_filter = cx.func.op("reduce_sum", &[&products], "axis = 2 : i32", h.ty.with_shape(&[batch, filters, 1]));
    let per_filter = cx.func.reshape(&per_filter, &[batch, units, rank]);
    let mut sum = cx.func.op("reduce_sum", &[&per_filter], "axis = 2 : i32", sum_ty);
    if cx.optional(op, BIAS).is_some() {
        let bias = cx.value(op, BIAS)?;
        if bias.ty.elem != sum.ty.elem {
            return unsupported(format!("its bias is {}", bias.ty.elem));
        }
        let bias = cx.func.reshape(&bias, &[1, units, 1]);
        sum = cx.func.op("add", &[&sum, &bias], "", sum.ty.clone());
    }
    let sum = cx.func.reshape(&sum, &[batch, units]);
    let result = if int8 {
        let (state_scale, _) = per_tensor(state, "its state")?;
        let (time_scale, _) = per_tensor(time, "its time weights")?;
        let (out_scale, out_zp) = per_tensor(output, "its output")?;
        let scale = f64::from(state_scale * time_scale / out_scale);
        cx.rescale(&sum, "i8", &[scale32(scale)], 0, out_zp, true, true)
    } else {
        cx.float_activation(&sum, activation)?
    };
    // Written last: nothing reads the new state after it (no copy to keep, see
    // `umac-isolate-global-values`).
    cx.func.variable_write(&symbol, &new);
    cx.define(op, 0, result)
}

/// The two dimensions of a rank-2 shape.
fn dims2(shape: &[i64], what: &str) -> OpResult<[i64; 2]> {
    match shape {
        &[a, b] if a > 0 && b > 0 => Ok([a, b]),
        _ => bad(format!("{what} is {shape:?}, not two nonzero dimensions")),
    }
}

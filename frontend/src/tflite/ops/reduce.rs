//! Reductions over constant axes: MEAN, SUM, REDUCE_MAX, REDUCE_MIN, ARG_MAX, ARG_MIN, CUMSUM,
//! and L2_NORMALIZATION over the last one.
//!
//! Quantized MEAN and SUM are TFLite Micro's `QuantizedMeanOrSum`: the raw values summed in 32
//! bits less `zero point · count`, scaled by `s_in / s_out` (TFLite's QuantizeMultiplier) whose
//! multiplier MEAN divides by the count as `⌊m · 2^n / count⌋` with `n = ⌊log2 count⌋` (at most
//! 32, and at most 31 plus the exponent), a double-rounding `rescale` to the output zero point,
//! saturated. REDUCE_MAX and REDUCE_MIN compare raw values (TFLite Micro requires int8 in and
//! out to share a quantization). ARG_MAX and ARG_MIN give the first index of the extreme value,
//! as TFLite Micro's strict comparison does.

use super::{
    Cx, OpResult, Value, bad, check_output, concat, constant_ints, per_tensor, positive_axis, scale32, slice,
    unsupported,
};
use crate::tflite::{
    emit::Ty,
    fixed_point::quantize_multiplier,
    model::{DType, Operator, Options},
};

/// The reduced axes of operand 1 (constant INT32), non-negative, sorted, without repeats.
fn axes(cx: &Cx, op: &Operator, rank: usize) -> OpResult<Vec<usize>> {
    let tensor = cx.tensor(op, 1)?;
    if tensor.dtype != DType::I32 {
        return bad("its axes are not INT32");
    }
    let mut axes = constant_ints(tensor)?.into_iter().map(|a| positive_axis(a, rank)).collect::<OpResult<Vec<_>>>()?;
    axes.sort_unstable();
    axes.dedup();
    Ok(axes)
}

/// `name` (`reduce_sum`, `reduce_max`, ...) over each of `axes` in turn, keeping the dimensions.
fn reduce_each(cx: &mut Cx, x: &Value, name: &str, axes: &[usize], extra: &str) -> Value {
    let mut y = x.clone();
    for &axis in axes {
        let mut shape = y.ty.shape.clone();
        shape[axis] = 1;
        y = cx.func.op(name, &[&y], &format!("axis = {axis} : i32{extra}"), Ty::new(&shape, y.ty.elem));
    }
    y
}

/// MEAN, SUM, REDUCE_MAX or REDUCE_MIN.
pub fn reduce(cx: &mut Cx, op: &Operator) -> OpResult {
    let (input, output) = (cx.tensor(op, 0)?, cx.output(op, 0)?);
    let axes = axes(cx, op, input.shape.len())?;
    let count: i64 = axes.iter().map(|&a| input.shape[a]).product();
    let kept: i64 = input.shape.iter().product::<i64>() / count.max(1);
    if count <= 0 || output.shape.iter().product::<i64>() != kept || output.dtype != input.dtype {
        return bad(format!(
            "it reduces {} {:?} over axes {axes:?} to {} {:?}",
            input.dtype.name(),
            input.shape,
            output.dtype.name(),
            output.shape
        ));
    }
    let x = cx.value(op, 0)?;
    let kind = op.kind.as_str();
    let y = match (input.dtype, kind) {
        (DType::F32, "MEAN" | "SUM") => {
            let total = reduce_each(cx, &x, "reduce_sum", &axes, "");
            if kind == "MEAN" {
                let rank = total.ty.rank();
                let shift = cx.func.scalar("i8", 0);
                let factor = cx.func.broadcast_f32(rank, 1.0 / count as f32);
                cx.func.op("mul", &[&total, &factor, &shift], "", total.ty.clone())
            } else {
                total
            }
        }
        (DType::I8 | DType::I16, "MEAN" | "SUM") => {
            let (in_scale, in_zp) = per_tensor(input, "its input")?;
            let (out_scale, out_zp) = per_tensor(output, "its output")?;
            if input.dtype == DType::I16 && (in_zp != 0 || out_zp != 0) {
                return unsupported("int16 with a nonzero zero point");
            }
            let wide = cx.rescale(&x, "i32", &[(1 << 30, 30)], in_zp, 0, true, true);
            let total = reduce_each(cx, &wide, "reduce_sum", &axes, "");
            let (multiplier, exponent) = output_multiplier(in_scale, out_scale, (kind == "MEAN").then_some(count));
            let shift = 31 - exponent;
            if !(2..=62).contains(&shift) {
                return unsupported(format!(
                    "a scale ratio of {} (outside what TOSA's rescale takes)",
                    in_scale / out_scale
                ));
            }
            cx.rescale(&total, output.dtype.mlir(), &[(multiplier, shift as i8)], 0, out_zp, true, true)
        }
        (DType::F32 | DType::I8, "REDUCE_MAX" | "REDUCE_MIN") => {
            if input.dtype == DType::I8 && per_tensor(input, "its input")? != per_tensor(output, "its output")? {
                return bad("its int8 input and output are quantized differently, which TFLite Micro refuses");
            }
            let name = if kind == "REDUCE_MAX" { "reduce_max" } else { "reduce_min" };
            // TFLite Micro's `in > current` never takes a NaN.
            let nan = if input.dtype == DType::F32 { ", nan_mode = #tosa.nan_mode<IGNORE>" } else { "" };
            reduce_each(cx, &x, name, &axes, nan)
        }
        (other, _) => return unsupported(format!("{kind} of {}", other.name())),
    };
    let y = cx.func.reshape(&y, &output.shape);
    cx.define(op, 0, y)
}

/// L2_NORMALIZATION over the last dimension. int8: see [`super::l2_int8`]. float32: TFLite Micro's
/// `x / max(sqrt(Σ x²), 1e-6)`, the square root as 1 / rsqrt and the division as a product by
/// the reciprocal (a few ulp).
pub fn l2_normalization(cx: &mut Cx, op: &Operator) -> OpResult {
    let input = cx.tensor(op, 0)?;
    check_output(cx, op, 0, &input.shape, input.dtype)?;
    if input.shape.is_empty() {
        return bad("its input is a scalar");
    }
    let x = cx.value(op, 0)?;
    let axis = input.shape.len() - 1;
    match input.dtype {
        DType::F32 => {}
        DType::I8 => {
            let (_, zp) = per_tensor(input, "its input")?;
            let y = super::l2_int8::l2_normalization_int8(cx, &x, zp);
            return cx.define(op, 0, y);
        }
        other => {
            return unsupported(format!("L2_NORMALIZATION of {} (TFLite Micro takes int8, float32)", other.name()));
        }
    }
    let shift = cx.func.scalar("i8", 0);
    let squares = cx.func.op("mul", &[&x, &x, &shift], "", x.ty.clone());
    let sum = reduce_each(cx, &squares, "reduce_sum", &[axis], "");
    let inverse = cx.func.op("rsqrt", &[&sum], "", sum.ty.clone());
    let norm = cx.func.op("reciprocal", &[&inverse], "", sum.ty.clone());
    let epsilon = cx.func.broadcast_f32(sum.ty.rank(), 1e-6);
    let norm = cx.func.op("maximum", &[&norm, &epsilon], "", sum.ty.clone());
    let scale = cx.func.op("reciprocal", &[&norm], "", sum.ty.clone());
    let y = cx.func.op("mul", &[&x, &scale, &shift], "", x.ty.clone());
    cx.define(op, 0, y)
}

/// The longest axis a float CUMSUM sums (one slice and one addition per position).
const MAX_RUNNING_SUM: i64 = 64;

/// CUMSUM along one constant axis, `exclusive` (each position the sum before it) and `reverse`
/// (summing from the end) as options. float32: TFLite Micro's running sum, added in its order
/// (one slice and one addition per position, for axes up to [`MAX_RUNNING_SUM`] long). int8 (TFLite Micro's kernel, as ADD_N's):
/// each `(q - zp) · 2^20` halved, summed exactly in 32 bits in log2 steps after its start value
/// (`-zp · 2^20` halved), scaled by `2 s / (2^20 · s_out)` to the output zero point, saturated.
pub fn cumsum(cx: &mut Cx, op: &Operator) -> OpResult {
    let (exclusive, reverse) = match op.options {
        Options::Cumsum { exclusive, reverse } => (exclusive, reverse),
        Options::None => (false, false),
        _ => return bad("its options are not CUMSUM's"),
    };
    let input = cx.tensor(op, 0)?;
    let rank = input.shape.len();
    let axis = match constant_ints(cx.tensor(op, 1)?)?.as_slice() {
        &[axis] => positive_axis(axis, rank)?,
        other => return bad(format!("it takes one axis, not {other:?}")),
    };
    check_output(cx, op, 0, &input.shape, input.dtype)?;
    let mut x = cx.value(op, 0)?;
    if reverse {
        x = cx.func.op("reverse", &[&x], &format!("axis = {axis} : i32"), x.ty.clone());
    }
    let y = match input.dtype {
        DType::F32 if input.shape[axis] <= MAX_RUNNING_SUM => running_sum(cx, &x, axis, exclusive),
        DType::F32 => {
            // Summed in another order, the partial sums would round differently from TFLite
            // Micro's (beyond 1e-5 where they cancel): not written.
            return unsupported(format!(
                "a float32 CUMSUM over {} elements (at most {MAX_RUNNING_SUM})",
                input.shape[axis]
            ));
        }
        DType::I8 => {
            let (scale, zp) = per_tensor(input, "its input")?;
            let (out_scale, out_zp) = per_tensor(cx.output(op, 0)?, "its output")?;
            let shifted = cx.rescale(&x, "i32", &[(1 << 30, 10)], zp, 0, true, true);
            let halved = cx.rescale(&shifted, "i32", &[scale32(0.5)], 0, 0, true, true);
            let mut sum = prefix_sums(cx, &halved, axis);
            if exclusive {
                sum = cx.func.op("sub", &[&sum, &halved], "", sum.ty.clone());
            }
            let start = cx.func.broadcast(rank, "i32", -zp * (1 << 19));
            let total = cx.func.op("add", &[&sum, &start], "", sum.ty.clone());
            let multiplier = scale32(2.0 * f64::from(scale) / (f64::from(1u32 << 20) * f64::from(out_scale)));
            cx.rescale(&total, "i8", &[multiplier], 0, out_zp, true, true)
        }
        other => return unsupported(format!("CUMSUM of {} (TFLite Micro takes float32 and int8)", other.name())),
    };
    let y = if reverse { cx.func.op("reverse", &[&y], &format!("axis = {axis} : i32"), y.ty.clone()) } else { y };
    cx.define(op, 0, y)
}

/// The float running sum along `axis` in TFLite Micro's order: `acc = 0; acc += x[k]`, each
/// position taking `acc` after (or, `exclusive`, before) its addition.
fn running_sum(cx: &mut Cx, x: &Value, axis: usize, exclusive: bool) -> Value {
    let mut size = x.ty.shape.clone();
    let length = size[axis];
    size[axis] = 1;
    let zero = cx.func.constant(Ty::new(&size, "f32"), crate::tflite::emit::float(0.0));
    let mut accumulator = zero.clone();
    let mut parts = Vec::with_capacity(length as usize);
    for k in 0..length {
        let mut start = vec![0; size.len()];
        start[axis] = k;
        let element = slice(cx, x, &start, &size);
        if exclusive {
            parts.push(accumulator.clone());
        }
        accumulator = cx.func.op("add", &[&accumulator, &element], "", accumulator.ty.clone());
        if !exclusive {
            parts.push(accumulator.clone());
        }
    }
    concat(cx, &parts, axis)
}

/// Inclusive prefix sums along `axis` in log2 steps: `x += x shifted by 1, 2, 4, ...` (the
/// shifted copy zero-filled at the front).
fn prefix_sums(cx: &mut Cx, x: &Value, axis: usize) -> Value {
    let length = x.ty.shape[axis];
    let mut sum = x.clone();
    let mut step = 1;
    while step < length {
        let mut kept = sum.ty.shape.clone();
        kept[axis] = length - step;
        let head = slice(cx, &sum, &vec![0; kept.len()], &kept);
        let mut zeros_shape = sum.ty.shape.clone();
        zeros_shape[axis] = step;
        let zeros = if sum.ty.elem == "f32" {
            cx.func.constant(Ty::new(&zeros_shape, "f32"), crate::tflite::emit::float(0.0))
        } else {
            cx.func.constant(Ty::new(&zeros_shape, sum.ty.elem), "0".into())
        };
        let shifted = concat(cx, &[zeros, head], axis);
        sum = cx.func.op("add", &[&sum, &shifted], "", sum.ty.clone());
        step *= 2;
    }
    sum
}

/// TFLite Micro's multiplier and exponent for a quantized SUM (`count` none) or MEAN over
/// `count` elements: QuantizeMultiplier of `s_in / s_out`, for MEAN divided by the count.
fn output_multiplier(in_scale: f32, out_scale: f32, count: Option<i64>) -> (i32, i32) {
    let (multiplier, exponent) = quantize_multiplier(f64::from(in_scale) / f64::from(out_scale));
    match count {
        None => (multiplier, exponent),
        Some(count) => {
            let n = (63 - (count as u64).leading_zeros() as i32).min(32).min(31 + exponent);
            (((i64::from(multiplier) << n) / count) as i32, exponent - n)
        }
    }
}

/// ARG_MAX or ARG_MIN (float32 or int8 in, INT32 out, one constant axis): TOSA's `argmax`, of
/// the negated values for ARG_MIN (floats negated, integers as `-1 - x`, both order-reversing
/// without overflow).
pub fn arg(cx: &mut Cx, op: &Operator) -> OpResult {
    let input = cx.tensor(op, 0)?;
    let rank = input.shape.len();
    let axes = match constant_ints(cx.tensor(op, 1)?)?.as_slice() {
        &[axis] => positive_axis(axis, rank)?,
        other => return bad(format!("it takes one axis, not {other:?}")),
    };
    let mut shape = input.shape.clone();
    shape.remove(axes);
    check_output(cx, op, 0, &shape, DType::I32)?;
    let x = cx.value(op, 0)?;
    let x = match (input.dtype, op.kind.as_str()) {
        (DType::F32 | DType::I8, "ARG_MAX") => x,
        (DType::F32, _) => {
            let zp = cx.func.constant(x.ty.with_shape(&[1]), crate::tflite::emit::float(0.0));
            cx.func.op("negate", &[&x, &zp, &zp], "", x.ty.clone())
        }
        (DType::I8, _) => cx.func.op("bitwise_not", &[&x], "", x.ty.clone()),
        (other, _) => return unsupported(format!("{} of {}", op.kind, other.name())),
    };
    let nan = if input.dtype == DType::F32 { ", nan_mode = #tosa.nan_mode<IGNORE>" } else { "" };
    let y = cx.func.op("argmax", &[&x], &format!("axis = {axes} : i32{nan}"), Ty::new(&shape, "i32"));
    cx.define(op, 0, y)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_and_sum_multipliers() {
        // SUM, scales 0.1 to 0.4: 0.25 = 2^30 · 2^-1 / 2^31.
        assert_eq!(output_multiplier(0.1, 0.4, None), (1 << 30, -1));
        // MEAN of 20, one scale: 1.0 = 2^30 · 2^1; n = 4; 2^34 / 20 = 858993459.2.
        assert_eq!(output_multiplier(0.5, 0.5, Some(20)), (858993459, -3));
        // MEAN of 1 keeps the multiplier.
        assert_eq!(output_multiplier(0.5, 0.5, Some(1)), (1 << 30, 1));
        // 2^-20 over 1024: exponent -19, n = log2 1024 = 10 (under 32 and 31 - 19 = 12).
        assert_eq!(output_multiplier(2f32.powi(-20), 1.0, Some(1024)), (1 << 30, -29));
        // 2^40 elements: n stops at 32.
        assert_eq!(output_multiplier(1.0, 1.0, Some(1i64 << 40)).1, 1 - 32);
    }
}

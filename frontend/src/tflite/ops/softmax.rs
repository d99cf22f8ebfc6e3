//! SOFTMAX and LOG_SOFTMAX over the last dimension.

use super::{Cx, OpResult, Value, bad, per_tensor, unsupported};
use crate::tflite::{
    emit::Ty,
    model::{DType, Operator, Options},
    quant::multiplier32,
    softmax_tables::{int8_exp_tables, int16_diff_rescale, int16_exp_table, int16_reciprocal_table},
};

/// Float: `exp(β (x - max)) / Σ`, as TFLite Micro's float kernel computes it. int8 and int16:
/// TFLite Micro's fixed-point kernels (exp by table lookup, the sum's reciprocal by Newton's
/// method or a table); see `softmax_tables` for their constants.
pub fn softmax(cx: &mut Cx, op: &Operator) -> OpResult {
    let input = cx.tensor(op, 0)?;
    let output = cx.output(op, 0)?;
    let Options::Softmax { beta } = op.options else { return bad("its options are not SOFTMAX's") };
    if input.shape != output.shape || input.shape.is_empty() {
        return bad(format!("it maps {:?} to {:?}", input.shape, output.shape));
    }
    let x = cx.value(op, 0)?;
    let axis = input.shape.len() - 1;
    let mut reduced = input.shape.clone();
    reduced[axis] = 1;
    let y = match (input.dtype, output.dtype) {
        (DType::F32, DType::F32) => {
            let max = cx.func.op("reduce_max", &[&x], &format!("axis = {axis} : i32"), Ty::new(&reduced, "f32"));
            let mut d = cx.func.op("sub", &[&x, &max], "", x.ty.clone());
            let shift = cx.func.scalar("i8", 0);
            if beta != 1.0 {
                let b = cx.func.broadcast_f32(x.ty.rank(), beta);
                d = cx.func.op("mul", &[&d, &b, &shift], "", x.ty.clone());
            }
            let e = cx.func.op("exp", &[&d], "", x.ty.clone());
            let sum = cx.func.op("reduce_sum", &[&e], &format!("axis = {axis} : i32"), Ty::new(&reduced, "f32"));
            let r = cx.func.op("reciprocal", &[&sum], "", sum.ty.clone());
            cx.func.op("mul", &[&e, &r, &shift], "", x.ty.clone())
        }
        (DType::I8, DType::I8) => {
            let (in_scale, in_zp) = per_tensor(input, "its input")?;
            if per_tensor(output, "its output")? != (1.0 / 256.0, -128) {
                return bad(
                    "its output is not quantized with scale 1/256 and zero point -128, as TFLite Micro requires",
                );
            }
            int8(cx, &x, axis, &reduced, in_zp, int8_exp_tables(beta, in_scale))
        }
        (DType::I16, DType::I16) => {
            let (in_scale, in_zp) = per_tensor(input, "its input")?;
            let (out_scale, out_zp) = per_tensor(output, "its output")?;
            if in_zp != 0 || out_zp != 0 {
                return bad("its int16 input or output has a nonzero zero point");
            }
            int16(cx, &x, axis, &reduced, (in_scale, beta), out_scale)
        }
        (a, b) => return unsupported(format!("SOFTMAX from {} to {}", a.name(), b.name())),
    };
    cx.define(op, 0, y)
}

/// Shifts of `x` by a constant: `logical_left_shift` for positive `amount`, rounding
/// `arithmetic_right_shift` for negative.
fn shift(cx: &mut Cx, x: &Value, amount: i64) -> Value {
    let by = cx.func.broadcast(x.ty.rank(), "i32", amount.abs());
    if amount >= 0 {
        cx.func.op("logical_left_shift", &[x, &by], "", x.ty.clone())
    } else {
        cx.func.op("arithmetic_right_shift", &[x, &by], "round = true", x.ty.clone())
    }
}

/// `a · b · 2^-shift` in 32 bits (`tosa.mul` with a shift).
fn mul(cx: &mut Cx, a: &Value, b: &Value, by: i64) -> Value {
    let by = cx.func.scalar("i8", by);
    let shape = if a.ty.shape.iter().product::<i64>() >= b.ty.shape.iter().product::<i64>() { a } else { b };
    cx.func.op("mul", &[a, b, &by], "", shape.ty.clone())
}

fn binary(cx: &mut Cx, name: &str, a: &Value, b: &Value) -> Value {
    let shape = if a.ty.shape.iter().product::<i64>() >= b.ty.shape.iter().product::<i64>() { a } else { b };
    cx.func.op(name, &[a, b], "", shape.ty.clone())
}

fn table(cx: &mut Cx, x: &Value, values: &[i16]) -> Value {
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    let t = cx.func.bytes(Ty::new(&[values.len() as i64], "i16"), &bytes);
    cx.func.op("table", &[x, &t], "", x.ty.with_elem("i32"))
}

/// TFLite Micro's int8 softmax: `exp(x - max)` as the sum of four table lookups on the 8-bit
/// difference (bits 31..24, 23..16, 15..8, 7..0 of the Q0.31 exponential), the sum's reciprocal
/// by three Newton-Raphson steps, the product shifted to the output's 1/256 steps.
fn int8(cx: &mut Cx, x: &Value, axis: usize, reduced: &[i64], zp: i64, tables: [Vec<i16>; 4]) -> Value {
    let wide = cx.rescale(x, "i32", &[(1 << 30, 30)], zp, 0, false, true);
    let max = cx.func.op("reduce_max", &[&wide], &format!("axis = {axis} : i32"), Ty::new(reduced, "i32"));
    let diff = binary(cx, "sub", &wide, &max);
    let index = cx.rescale(&diff, "i16", &[(1 << 30, 23)], 0, 0, false, true);
    let parts: Vec<Value> = tables.iter().map(|t| table(cx, &index, t)).collect();
    let parts = [shift(cx, &parts[0], 17), shift(cx, &parts[1], 9), shift(cx, &parts[2], 1), shift(cx, &parts[3], -7)];
    let exp = binary(cx, "add", &parts[0], &parts[1]);
    let exp = binary(cx, "add", &exp, &parts[2]);
    let exp = binary(cx, "add", &exp, &parts[3]);
    let scaled = shift(cx, &exp, -12);
    let sum = cx.func.op("reduce_sum", &[&scaled], &format!("axis = {axis} : i32"), Ty::new(reduced, "i32"));
    let clz = cx.func.op("clz", &[&sum], "", sum.ty.clone());
    let rank = sum.ty.rank();
    let one = cx.func.broadcast(rank, "i32", 1);
    let headroom = binary(cx, "sub", &clz, &one);
    let normalized = cx.func.op("logical_left_shift", &[&sum, &headroom], "", sum.ty.clone());
    // Newton-Raphson for 1/normalized in Q2.29: start at 48/17 - 32/17 · d.
    let k1 = cx.func.broadcast(rank, "i32", -1_010_580_540);
    let k2 = cx.func.broadcast(rank, "i32", 1_515_870_810);
    let one_q29 = cx.func.broadcast(rank, "i32", 536_870_912);
    let four = cx.func.broadcast(rank, "i32", 4);
    let t = mul(cx, &normalized, &k1, 31);
    let mut estimate = binary(cx, "add", &t, &k2);
    for _ in 0..3 {
        let product = mul(cx, &estimate, &normalized, 31);
        let error = binary(cx, "sub", &one_q29, &product);
        let step = mul(cx, &estimate, &error, 31);
        let step = mul(cx, &step, &four, 0);
        estimate = binary(cx, "add", &estimate, &step);
    }
    let product = mul(cx, &exp, &estimate, 30);
    let thirty_five = cx.func.broadcast(rank, "i32", 35);
    let right = binary(cx, "sub", &thirty_five, &clz);
    let y = cx.func.op("arithmetic_right_shift", &[&product, &right], "round = true", product.ty.clone());
    cx.rescale(&y, "i8", &[(1 << 30, 30)], 0, -128, false, true)
}

/// TFLite Micro's int16 softmax: `exp(x - max)` from a 513-entry table over [-10, 0], the sum's
/// reciprocal from a table of `1 / (1 + x)` over [0, 1].
fn int16(cx: &mut Cx, x: &Value, axis: usize, reduced: &[i64], (in_scale, beta): (f32, f32), out_scale: f32) -> Value {
    let wide = cx.rescale(x, "i32", &[(1 << 30, 30)], 0, 0, false, true);
    let max = cx.func.op("reduce_max", &[&wide], &format!("axis = {axis} : i32"), Ty::new(reduced, "i32"));
    let diff = binary(cx, "sub", &wide, &max);
    let diff = cx.rescale(&diff, "i32", &[int16_diff_rescale(in_scale, beta)], 0, 0, true, true);
    let rank = diff.ty.rank();
    let offset = cx.func.broadcast(rank, "i32", 32767);
    let index = binary(cx, "add", &diff, &offset);
    // TFLite Micro saturates the index: differences below the table's -10 take its first entry.
    let index = cx.clamp_int(&index, -32768, 32767);
    let index = cx.func.op("cast", &[&index], "", index.ty.with_elem("i16"));
    let exp = table(cx, &index, &int16_exp_table());
    let exp = shift(cx, &exp, -7);
    let sum = cx.func.op("reduce_sum", &[&exp], &format!("axis = {axis} : i32"), Ty::new(reduced, "i32"));
    let clz = cx.func.op("clz", &[&sum], "", sum.ty.clone());
    let one = cx.func.broadcast(rank, "i32", 1);
    let headroom = binary(cx, "sub", &clz, &one);
    let normalized = cx.func.op("logical_left_shift", &[&sum, &headroom], "", sum.ty.clone());
    let half = cx.func.broadcast(rank, "i32", 1 << 30);
    let fraction = binary(cx, "sub", &normalized, &half);
    let fraction = shift(cx, &fraction, -14);
    let bias = cx.func.broadcast(rank, "i32", 32768);
    let index = binary(cx, "sub", &fraction, &bias);
    let index = cx.func.op("cast", &[&index], "", index.ty.with_elem("i16"));
    let reciprocal = table(cx, &index, &int16_reciprocal_table());
    let reciprocal = shift(cx, &reciprocal, -7);
    let product = mul(cx, &reciprocal, &exp, 0);
    let thirty_one = cx.func.broadcast(rank, "i32", 31);
    let right = binary(cx, "sub", &thirty_one, &clz);
    let y = cx.func.op("arithmetic_right_shift", &[&product, &right], "round = true", product.ty.clone());
    let scale = (1.0 / f64::from(out_scale)) / 32768.0;
    cx.rescale(&y, "i16", &[multiplier32(scale)], 0, 0, false, true)
}

/// LOG_SOFTMAX on float32: TFLite Micro's `x - max - log(Σ exp(x - max))`.
pub fn log_softmax(cx: &mut Cx, op: &Operator) -> OpResult {
    let (input, output) = (cx.tensor(op, 0)?, cx.output(op, 0)?);
    if input.shape != output.shape || input.shape.is_empty() || input.dtype != output.dtype {
        return bad(format!("it maps {:?} to {:?}", input.shape, output.shape));
    }
    if input.dtype == DType::I8 {
        return super::log_softmax_int8::log_softmax_int8(cx, op);
    }
    if input.dtype != DType::F32 {
        return unsupported(format!("LOG_SOFTMAX of {}", input.dtype.name()));
    }
    let x = cx.value(op, 0)?;
    let axis = input.shape.len() - 1;
    let mut reduced = input.shape.clone();
    reduced[axis] = 1;
    let max = cx.func.op("reduce_max", &[&x], &format!("axis = {axis} : i32"), Ty::new(&reduced, "f32"));
    let d = cx.func.op("sub", &[&x, &max], "", x.ty.clone());
    let e = cx.func.op("exp", &[&d], "", x.ty.clone());
    let sum = cx.func.op("reduce_sum", &[&e], &format!("axis = {axis} : i32"), Ty::new(&reduced, "f32"));
    let log = cx.func.op("log", &[&sum], "", sum.ty.clone());
    let y = cx.func.op("sub", &[&d, &log], "", x.ty.clone());
    cx.define(op, 0, y)
}

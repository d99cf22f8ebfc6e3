//! ADD, SUB, MUL, PRELU and quantized SQUARED_DIFFERENCE (with broadcasting), ADD_N and LEAKY_RELU.

use super::{Cx, OpResult, Value, bad, per_tensor, scale32, to_rank, ty, unsupported};
use crate::tflite::model::{DType, Operator, Options, Tensor};

/// The fused activation of ADD, SUB or MUL (none when the options table is absent).
fn arithmetic_activation(op: &Operator) -> OpResult<i8> {
    match op.options {
        Options::Arithmetic { activation, .. } => Ok(activation),
        Options::None => Ok(0),
        _ => bad(format!("its options are not {}'s", op.kind)),
    }
}

/// The scales and zero points of a binary operator's inputs and output.
type Quantization3 = [(f32, i64); 3];

fn quantization3(a: &Tensor, b: &Tensor, out: &Tensor) -> OpResult<Quantization3> {
    Ok([per_tensor(a, "its first input")?, per_tensor(b, "its second input")?, per_tensor(out, "its output")?])
}

/// int16 operands must be symmetric (TFLite's int16 quantization; TOSA's `rescale` takes no
/// zero point on int16 either).
fn symmetric16(q: &Quantization3) -> OpResult {
    if q.iter().any(|&(_, zp)| zp != 0) {
        return unsupported("int16 with a nonzero zero point");
    }
    Ok(())
}

/// ADD or SUB. Float: the operation and the fused activation. int8 and int16: TFLite Micro's
/// general kernel (`AddElementwise`/`SubElementwise`): each input `(q - zp) · 2^left_shift`
/// (20 for int8, 15 for int16) scaled by `scale / (2 · max input scale)`, the sum or difference
/// scaled by `2 · max input scale / (2^left_shift · output scale)` plus the output zero point,
/// every scaling TFLite's MultiplyByQuantizedMultiplierSmallerThanOneExp (a double-rounding
/// `rescale`), then the activation's clamp. TFLite Micro takes this path for int16 whatever
/// `pot_scale_int16` says.
/// A binary operator's inputs and output, its fused activation, and its operands' values at the
/// output's rank (TOSA broadcasts equal ranks only).
#[allow(clippy::type_complexity)]
fn binary_operands<'m, 'a>(
    cx: &mut Cx<'m, 'a>,
    op: &Operator,
) -> OpResult<(&'m Tensor<'a>, &'m Tensor<'a>, &'m Tensor<'a>, i8, Value, Value)> {
    let (a, b, out) = (cx.tensor(op, 0)?, cx.tensor(op, 1)?, cx.output(op, 0)?);
    let activation = arithmetic_activation(op)?;
    let rank = out.shape.len();
    let x = cx.value(op, 0)?;
    let y = cx.value(op, 1)?;
    Ok((a, b, out, activation, to_rank(cx, &x, rank), to_rank(cx, &y, rank)))
}

pub fn add_sub(cx: &mut Cx, op: &Operator, subtract: bool) -> OpResult {
    let (a, b, out, activation, x, y) = binary_operands(cx, op)?;
    let name = if subtract { "sub" } else { "add" };
    let result = match (a.dtype, b.dtype, out.dtype) {
        (DType::F32, DType::F32, DType::F32) => {
            let z = cx.func.op(name, &[&x, &y], "", ty(out));
            cx.float_activation(&z, activation)?
        }
        (DType::I8, DType::I8, DType::I8) | (DType::I16, DType::I16, DType::I16) => {
            let q @ [(sa, za), (sb, zb), (so, zo)] = quantization3(a, b, out)?;
            let wide16 = out.dtype == DType::I16;
            if wide16 {
                symmetric16(&q)?;
            }
            let left_shift = if wide16 { 15 } else { 20 };
            let twice_max = 2.0 * f64::from(sa.max(sb));
            let shifted = |cx: &mut Cx, v: &Value, zp: i64, scale: f32| {
                let wide = if wide16 {
                    // As the converter writes it: widen, then shift left by 15.
                    let wide = cx.func.op("cast", &[v], "", v.ty.with_elem("i32"));
                    let by = cx.func.broadcast(out.shape.len(), "i32", left_shift);
                    cx.func.op("logical_left_shift", &[&wide, &by], "", wide.ty.clone())
                } else {
                    // (q - zp) · 2^30 · 2^-10 = (q - zp) · 2^20, exactly.
                    cx.rescale(v, "i32", &[(1 << 30, 10)], zp, 0, true, true)
                };
                cx.rescale(&wide, "i32", &[scale32(f64::from(scale) / twice_max)], 0, 0, true, true)
            };
            let x = shifted(cx, &x, za, sa);
            let y = shifted(cx, &y, zb, sb);
            let z = cx.func.op(name, &[&x, &y], "", ty(out).with_elem("i32"));
            let multiplier = scale32(twice_max / (f64::from(1u32 << left_shift) * f64::from(so)));
            let z = cx.rescale(&z, out.dtype.mlir(), &[multiplier], 0, zo, true, true);
            cx.quantized_activation(&z, activation, out)?
        }
        (a, b, o) => return unsupported(format!("{} and {} to {}", a.name(), b.name(), o.name())),
    };
    cx.define(op, 0, result)
}

/// MUL. Float: the product and the fused activation. int8 and int16: TFLite Micro's
/// `MulElementwise`: `(a - za) · (b - zb)` in 32 bits, scaled by `sa · sb / so` (computed in
/// double; MultiplyByQuantizedMultiplier, a double-rounding `rescale`) plus the output zero
/// point, then the activation's clamp.
pub fn mul(cx: &mut Cx, op: &Operator) -> OpResult {
    let (a, b, out, activation, x, y) = binary_operands(cx, op)?;
    let result = match (a.dtype, b.dtype, out.dtype) {
        (DType::F32, DType::F32, DType::F32) => {
            let shift = cx.func.scalar("i8", 0);
            let z = cx.func.op("mul", &[&x, &y, &shift], "", ty(out));
            cx.float_activation(&z, activation)?
        }
        (DType::I8, DType::I8, DType::I8) | (DType::I16, DType::I16, DType::I16) => {
            let q @ [(sa, za), (sb, zb), (so, zo)] = quantization3(a, b, out)?;
            if out.dtype == DType::I16 {
                symmetric16(&q)?;
            }
            // `q - zp` in 32 bits: a rescale by exactly 1.
            let x = cx.rescale(&x, "i32", &[(1 << 30, 30)], za, 0, true, true);
            let y = cx.rescale(&y, "i32", &[(1 << 30, 30)], zb, 0, true, true);
            let shift = cx.func.scalar("i8", 0);
            let z = cx.func.op("mul", &[&x, &y, &shift], "", ty(out).with_elem("i32"));
            let multiplier = scale32(f64::from(sa) * f64::from(sb) / f64::from(so));
            let z = cx.rescale(&z, out.dtype.mlir(), &[multiplier], 0, zo, true, true);
            cx.quantized_activation(&z, activation, out)?
        }
        (a, b, o) => return unsupported(format!("{} and {} to {}", a.name(), b.name(), o.name())),
    };
    cx.define(op, 0, result)
}

/// LEAKY_RELU. Float: TFLite Micro's `x > 0 ? x : alpha · x`. int8 and int16: its
/// `QuantizeLeakyRelu`: `q - zp_in` scaled by `s_in / s_out` where it is not negative and by
/// `alpha · s_in / s_out` where it is (each MultiplyByQuantizedMultiplier, a double-rounding
/// `rescale`), plus the output zero point, saturated to the type. Written as both rescales and a
/// `select` on `zp_in > q`, which is exact for any alpha (the converter's `maximum` of the two
/// is exact only for alpha ≤ 1).
pub fn leaky_relu(cx: &mut Cx, op: &Operator) -> OpResult {
    let (input, out) = (cx.tensor(op, 0)?, cx.output(op, 0)?);
    let Options::LeakyRelu { alpha } = op.options else { return bad("its options are not LEAKY_RELU's") };
    if input.shape != out.shape {
        return bad(format!("it maps {:?} to {:?}", input.shape, out.shape));
    }
    let x = cx.value(op, 0)?;
    let rank = x.ty.rank();
    let bool_ty = x.ty.with_elem("i1");
    let result = match (input.dtype, out.dtype) {
        (DType::F32, DType::F32) => {
            let zero = cx.func.broadcast_f32(rank, 0.0);
            let positive = cx.func.op("greater", &[&x, &zero], "", bool_ty);
            let a = cx.func.broadcast_f32(rank, alpha);
            let shift = cx.func.scalar("i8", 0);
            let scaled = cx.func.op("mul", &[&x, &a, &shift], "", x.ty.clone());
            cx.func.op("select", &[&positive, &x, &scaled], "", x.ty.clone())
        }
        (DType::I8, DType::I8) | (DType::I16, DType::I16) => {
            let (si, zi) = per_tensor(input, "its input")?;
            let (so, zo) = per_tensor(out, "its output")?;
            if input.dtype == DType::I16 && (zi != 0 || zo != 0) {
                return unsupported("int16 with a nonzero zero point");
            }
            if alpha.is_nan() || alpha < 0.0 {
                return unsupported(format!("alpha {alpha} (only alpha ≥ 0 is read)"));
            }
            let elem = out.dtype.mlir();
            let identity = scale32(f64::from(si) / f64::from(so));
            let scaled = scale32(f64::from(si) * f64::from(alpha) / f64::from(so));
            let identity = cx.rescale(&x, elem, &[identity], zi, zo, true, true);
            let scaled = cx.rescale(&x, elem, &[scaled], zi, zo, true, true);
            let zp = cx.func.broadcast(rank, input.dtype.mlir(), zi);
            let negative = cx.func.op("greater", &[&zp, &x], "", bool_ty);
            cx.func.op("select", &[&negative, &scaled, &identity], "", x.ty.with_elem(elem))
        }
        (a, o) => return unsupported(format!("{} to {}", a.name(), o.name())),
    };
    cx.define(op, 0, result)
}

/// PRELU (with broadcasting). Float: TFLite Micro's `x >= 0 ? x : x · alpha`. int8 (int8
/// alpha) and int16 (int8 alpha): its `BroadcastPrelu4DSlow`: `q - zp_in` scaled by
/// `s_in / s_out` where it is not negative, else `(q - zp_in) · (alpha - zp_alpha)` scaled by
/// `s_in · s_alpha / s_out` (each a double-rounding `rescale`), plus the output zero point,
/// saturated.
pub fn prelu(cx: &mut Cx, op: &Operator) -> OpResult {
    let (input, alpha, out) = (cx.tensor(op, 0)?, cx.tensor(op, 1)?, cx.output(op, 0)?);
    let rank = out.shape.len();
    let x = cx.value(op, 0)?;
    let a = cx.value(op, 1)?;
    if x.ty.rank() > rank || a.ty.rank() > rank {
        return bad(format!("its operands {:?} and {:?} have more dimensions than its output", x.ty.shape, a.ty.shape));
    }
    let (x, a) = (to_rank(cx, &x, rank), to_rank(cx, &a, rank));
    let shift = cx.func.scalar("i8", 0);
    let result = match (input.dtype, alpha.dtype, out.dtype) {
        (DType::F32, DType::F32, DType::F32) => {
            let zero = cx.func.broadcast_f32(rank, 0.0);
            let keep = cx.func.op("greater_equal", &[&x, &zero], "", x.ty.with_elem("i1"));
            let scaled = cx.func.op("mul", &[&x, &a, &shift], "", ty(out));
            cx.func.op("select", &[&keep, &x, &scaled], "", ty(out))
        }
        (DType::I8, DType::I8, DType::I8) | (DType::I16, DType::I8, DType::I16) => {
            let [(si, zi), (sa, za), (so, zo)] = quantization3(input, alpha, out)?;
            if input.dtype == DType::I16 && (zi != 0 || zo != 0) {
                return unsupported("int16 with a nonzero zero point");
            }
            let elem = out.dtype.mlir();
            let v = cx.rescale(&x, "i32", &[(1 << 30, 30)], zi, 0, true, true);
            let w = cx.rescale(&a, "i32", &[(1 << 30, 30)], za, 0, true, true);
            let product = cx.func.op("mul", &[&v, &w, &shift], "", ty(out).with_elem("i32"));
            let identity = cx.rescale(&v, elem, &[scale32(f64::from(si) / f64::from(so))], 0, zo, true, true);
            let multiplier = scale32(f64::from(si) * f64::from(sa) / f64::from(so));
            let scaled = cx.rescale(&product, elem, &[multiplier], 0, zo, true, true);
            let zero = cx.func.broadcast(rank, "i32", 0);
            let keep = cx.func.op("greater_equal", &[&v, &zero], "", v.ty.with_elem("i1"));
            cx.func.op("select", &[&keep, &identity, &scaled], "", ty(out))
        }
        (i, a, o) => return unsupported(format!("{}, alpha {} to {}", i.name(), a.name(), o.name())),
    };
    cx.define(op, 0, result)
}

/// Quantized SQUARED_DIFFERENCE (int8, int16; broadcasting): TFLite Micro's kernel, each input
/// `(q - zp) · 2^left_shift` (7 for int8, 0 for int16) scaled by `scale / (2 · max input scale)`,
/// the difference squared in 32 bits and scaled by `(2 · max input scale)² / (2^(2 · left_shift) ·
/// s_out)` plus the output zero point, saturated.
pub fn squared_difference(cx: &mut Cx, op: &Operator) -> OpResult {
    let (a, b, out, _, x, y) = binary_operands(cx, op)?;
    if a.dtype != out.dtype || b.dtype != out.dtype || !matches!(out.dtype, DType::I8 | DType::I16) {
        return unsupported(format!("{} and {} to {}", a.dtype.name(), b.dtype.name(), out.dtype.name()));
    }
    let q @ [(sa, za), (sb, zb), (so, zo)] = quantization3(a, b, out)?;
    let wide16 = out.dtype == DType::I16;
    if wide16 {
        symmetric16(&q)?;
    }
    let left_shift = if wide16 { 0 } else { 7 };
    let twice_max = 2.0 * f64::from(sa.max(sb));
    let scaled = |cx: &mut Cx, v: &Value, zp: i64, scale: f32| {
        // (q - zp) · 2^30 · 2^-(30 - left_shift) = (q - zp) · 2^left_shift, exactly.
        let shifted = cx.rescale(v, "i32", &[(1 << 30, 30 - left_shift)], zp, 0, true, true);
        cx.rescale(&shifted, "i32", &[scale32(f64::from(scale) / twice_max)], 0, 0, true, true)
    };
    let x = scaled(cx, &x, za, sa);
    let y = scaled(cx, &y, zb, sb);
    let t = ty(out).with_elem("i32");
    let difference = cx.func.op("sub", &[&x, &y], "", t.clone());
    let shift = cx.func.scalar("i8", 0);
    let square = cx.func.op("mul", &[&difference, &difference, &shift], "", t);
    // The kernel multiplies the int power of two by the f32 output scale in f32.
    let denominator = f64::from((1u32 << (2 * left_shift)) as f32 * so);
    let z = cx.rescale(&square, out.dtype.mlir(), &[scale32(twice_max * twice_max / denominator)], 0, zo, true, true);
    cx.define(op, 0, z)
}

/// ADD_N: float32 summed in order; int8 (every input quantized alike) as TFLite Micro's
/// `AddN`: each `(q - zp) · 2^20` halved (its multiplier for `s / (2 s)`), summed after the
/// kernel's own start value (`-zp · 2^20` halved: it starts from the input offset, not 0), the
/// sum scaled by `2 s / (2^20 · s_out)` to the output zero point, saturated.
pub fn add_n(cx: &mut Cx, op: &Operator) -> OpResult {
    let out = cx.output(op, 0)?;
    let n = op.inputs.len();
    if n == 0 {
        return bad("it has no operands");
    }
    let first = cx.tensor(op, 0)?;
    for k in 0..n {
        let t = cx.tensor(op, k)?;
        if t.shape != out.shape || t.dtype != out.dtype {
            return bad(format!(
                "its operand #{k} is {} {:?}, its output {} {:?}",
                t.dtype.name(),
                t.shape,
                out.dtype.name(),
                out.shape
            ));
        }
        if out.dtype == DType::I8 && per_tensor(t, "an operand")? != per_tensor(first, "its first operand")? {
            return bad("its int8 operands are quantized differently, which TFLite Micro refuses");
        }
    }
    let t = ty(out);
    let z = match out.dtype {
        DType::F32 => {
            let mut sum = cx.value(op, 0)?;
            for k in 1..n {
                let v = cx.value(op, k)?;
                sum = cx.func.op("add", &[&sum, &v], "", t.clone());
            }
            sum
        }
        DType::I8 => {
            let (s, zp) = per_tensor(first, "its first operand")?;
            let (so, zo) = per_tensor(out, "its output")?;
            let half = scale32(0.5);
            // The start value: (-zp · 2^20) halved, exactly.
            let mut sum = cx.func.broadcast(out.shape.len(), "i32", -zp * (1 << 19));
            for k in 0..n {
                let v = cx.value(op, k)?;
                let shifted = cx.rescale(&v, "i32", &[(1 << 30, 10)], zp, 0, true, true);
                let halved = cx.rescale(&shifted, "i32", &[half], 0, 0, true, true);
                sum = cx.func.op("add", &[&sum, &halved], "", t.with_elem("i32"));
            }
            let multiplier = scale32(2.0 * f64::from(s) / (f64::from(1u32 << 20) * f64::from(so)));
            cx.rescale(&sum, "i8", &[multiplier], 0, zo, true, true)
        }
        other => return unsupported(format!("ADD_N of {} (TFLite Micro takes float32 and int8)", other.name())),
    };
    cx.define(op, 0, z)
}

//! Elementwise math: float32 unary operators (ABS, NEG, EXP, LOG, SQRT, RSQRT, FLOOR, CEIL,
//! ROUND, SIN, COS, TANH, LOGISTIC, RELU, RELU6, HARD_SWISH, ELU, SQUARE) and binary ones
//! (MAXIMUM, MINIMUM, DIV, SQUARED_DIFFERENCE), each as TFLite Micro's kernel computes it; and
//! the integer kernels TOSA's integer ops reproduce exactly (RELU, RELU6, ABS, MAXIMUM, MINIMUM).
//!
//! Float results are TFLite Micro's up to the rounding of the math library (`exp`, `log`, `sin`,
//! `cos`, `tanh`), and where TOSA has no single op, a few ulp: SQRT is `1 / rsqrt(x)`, DIV
//! `a · (1 / b)`, HARD_SWISH's `/ 6` a product by `1 / 6`, ELU's `expm1` a polynomial near 0.

use super::{Cx, OpResult, Value, bad, int_range, per_tensor, scale32, to_rank, ty, unsupported};
use crate::tflite::{
    emit::float,
    model::{DType, Operator, Options, Tensor},
};

/// The input and output of a one-operand operator, of one shape.
fn unary_operands<'m, 'a>(cx: &Cx<'m, 'a>, op: &Operator) -> OpResult<(&'m Tensor<'a>, &'m Tensor<'a>)> {
    let (input, out) = (cx.tensor(op, 0)?, cx.output(op, 0)?);
    if input.shape != out.shape {
        return bad(format!("it maps {:?} to {:?}", input.shape, out.shape));
    }
    Ok((input, out))
}

/// A float32 unary operator: TFLite Micro's float kernel, as TOSA ops.
pub fn float_unary(cx: &mut Cx, op: &Operator) -> OpResult {
    let (input, out) = unary_operands(cx, op)?;
    if (input.dtype, out.dtype) != (DType::F32, DType::F32) {
        return match op.kind.as_str() {
            "RELU" | "RELU6" | "ABS" => quantized_unary(cx, op, input, out),
            "LOGISTIC" | "TANH" | "HARD_SWISH" | "ELU" | "RSQRT" => super::activation::quantized(cx, op),
            _ => unsupported(format!("{} to {} (only float32 is read)", input.dtype.name(), out.dtype.name())),
        };
    }
    let x = cx.value(op, 0)?;
    let t = x.ty.clone();
    let rank = t.rank();
    let bool_ty = t.with_elem("i1");
    let simple = |cx: &mut Cx, name: &str, x: &Value| cx.func.op(name, &[x], "", t.clone());
    let y = match op.kind.as_str() {
        "ABS" => simple(cx, "abs", &x),
        "EXP" => simple(cx, "exp", &x),
        "LOG" => simple(cx, "log", &x),
        "FLOOR" => simple(cx, "floor", &x),
        "CEIL" => simple(cx, "ceil", &x),
        "SIN" => simple(cx, "sin", &x),
        "COS" => simple(cx, "cos", &x),
        "TANH" => simple(cx, "tanh", &x),
        // TFLite Micro's `1.f / std::sqrt(f)`.
        "RSQRT" => simple(cx, "rsqrt", &x),
        // 1 / rsqrt(x): 0 at 0 (1 / inf), NaN below, inf at inf, like sqrt.
        "SQRT" => {
            let r = simple(cx, "rsqrt", &x);
            simple(cx, "reciprocal", &r)
        }
        "NEG" => {
            let zp = cx.func.constant(t.with_shape(&[1]), float(0.0));
            cx.func.op("negate", &[&x, &zp, &zp], "", t.clone())
        }
        "SQUARE" => {
            let shift = cx.func.scalar("i8", 0);
            cx.func.op("mul", &[&x, &x, &shift], "", t.clone())
        }
        // `val < 0 ? 0 : val` (NaN passes).
        "RELU" => cx.clamp_f32(&x, 0.0, f32::INFINITY),
        "RELU6" => cx.clamp_f32(&x, 0.0, 6.0),
        // TFLite's RoundToNearest: floor, plus one when the rest is over one half, or one half
        // and the floor odd (half to even).
        "ROUND" => {
            let floor = simple(cx, "floor", &x);
            let rest = cx.func.op("sub", &[&x, &floor], "", t.clone());
            let half = cx.func.broadcast_f32(rank, 0.5);
            let over = cx.func.op("greater", &[&rest, &half], "", bool_ty.clone());
            let tie = cx.func.op("equal", &[&rest, &half], "", bool_ty.clone());
            // The floor is odd when half of it has a fraction.
            let shift = cx.func.scalar("i8", 0);
            let halved = cx.func.op("mul", &[&floor, &half, &shift], "", t.clone());
            let whole = simple(cx, "floor", &halved);
            let even = cx.func.op("equal", &[&halved, &whole], "", bool_ty.clone());
            let odd = cx.func.op("logical_not", &[&even], "", bool_ty.clone());
            let odd_tie = cx.func.op("logical_and", &[&tie, &odd], "", bool_ty.clone());
            let up = cx.func.op("logical_or", &[&over, &odd_tie], "", bool_ty.clone());
            // NaN: TFLite Micro takes `floor + 1`, NaN as well.
            let one = cx.func.broadcast_f32(rank, 1.0);
            let next = cx.func.op("add", &[&floor, &one], "", t.clone());
            cx.func.op("select", &[&up, &next, &floor], "", t.clone())
        }
        // TFLite's reference Logistic: 1 above 16.619047, exp(x) below -9, 1 / (1 + exp(-x))
        // between.
        "LOGISTIC" => {
            let zp = cx.func.constant(t.with_shape(&[1]), float(0.0));
            let negated = cx.func.op("negate", &[&x, &zp, &zp], "", t.clone());
            let e = simple(cx, "exp", &negated);
            let one = cx.func.broadcast_f32(rank, 1.0);
            let sum = cx.func.op("add", &[&one, &e], "", t.clone());
            let sigmoid = simple(cx, "reciprocal", &sum);
            let low = cx.func.broadcast_f32(rank, -9.0);
            let below = cx.func.op("greater", &[&low, &x], "", bool_ty.clone());
            let ex = simple(cx, "exp", &x);
            let y = cx.func.op("select", &[&below, &ex, &sigmoid], "", t.clone());
            let high = cx.func.broadcast_f32(rank, 16.619_047);
            let above = cx.func.op("greater", &[&x, &high], "", bool_ty.clone());
            cx.func.op("select", &[&above, &one, &y], "", t.clone())
        }
        // `in · min(6, max(0, in + 3)) / 6`.
        "HARD_SWISH" => {
            let three = cx.func.broadcast_f32(rank, 3.0);
            let shifted = cx.func.op("add", &[&x, &three], "", t.clone());
            let clamped = cx.clamp_f32(&shifted, 0.0, 6.0);
            let shift = cx.func.scalar("i8", 0);
            let product = cx.func.op("mul", &[&x, &clamped, &shift], "", t.clone());
            let sixth = cx.func.broadcast_f32(rank, 1.0 / 6.0);
            cx.func.op("mul", &[&product, &sixth, &shift], "", t.clone())
        }
        // `x < 0 ? expm1(x) : x`. expm1 is `exp(x) - 1` below -1/2 (no cancellation there), and
        // its Taylor polynomial to degree 10 above (error under 2^-27 relative).
        "ELU" => {
            let e = simple(cx, "exp", &x);
            let one = cx.func.broadcast_f32(rank, 1.0);
            let less = cx.func.op("sub", &[&e, &one], "", t.clone());
            let shift = cx.func.scalar("i8", 0);
            // x · (1 + x/2 · (1 + x/3 · (... (1 + x/10)))), innermost first.
            let mut p = one.clone();
            for k in (2..=10).rev() {
                let c = cx.func.broadcast_f32(rank, 1.0 / k as f32);
                let scaled = cx.func.op("mul", &[&x, &c, &shift], "", t.clone());
                let term = cx.func.op("mul", &[&scaled, &p, &shift], "", t.clone());
                p = cx.func.op("add", &[&one, &term], "", t.clone());
            }
            let series = cx.func.op("mul", &[&x, &p, &shift], "", t.clone());
            let minus_half = cx.func.broadcast_f32(rank, -0.5);
            let near = cx.func.op("greater", &[&x, &minus_half], "", bool_ty.clone());
            let expm1 = cx.func.op("select", &[&near, &series, &less], "", t.clone());
            let zero = cx.func.broadcast_f32(rank, 0.0);
            let negative = cx.func.op("greater", &[&zero, &x], "", bool_ty.clone());
            cx.func.op("select", &[&negative, &expm1, &x], "", t.clone())
        }
        other => return bad(format!("internal error: {other} is not a float unary operator")),
    };
    cx.define(op, 0, y)
}

/// The integer kernels. RELU: TFLite Micro's `ReluQuantized`, `q - zp_in` scaled by
/// `s_in / s_out` (the ratio in float, MultiplyByQuantizedMultiplier: a double-rounding
/// `rescale`) plus `zp_out`, clamped to `[zp_out, max]`. RELU6: its `Relu6Quantized`, which clamps
/// the input's integers to `[zp_in, round(6 / s_in) + zp_in]` and rescales nothing, whatever the
/// output's quantization. ABS: its `AbsEvalQuantized`, `|q - zp_in|`, scaled by `s_in / s_out`
/// when the scales differ, plus `zp_out`, saturated.
fn quantized_unary(cx: &mut Cx, op: &Operator, input: &Tensor, out: &Tensor) -> OpResult {
    if input.dtype != out.dtype || !matches!(input.dtype, DType::I8 | DType::I16) {
        return unsupported(format!("{} to {}", input.dtype.name(), out.dtype.name()));
    }
    if input.quantization.is_none() || out.quantization.is_none() {
        return unsupported(format!("{} without quantization", input.dtype.name()));
    }
    let (si, zi) = per_tensor(input, "its input")?;
    let (so, zo) = per_tensor(out, "its output")?;
    let (qmin, qmax) = int_range(input.dtype)?;
    if input.dtype == DType::I16 && op.kind != "RELU6" && (zi != 0 || zo != 0) {
        return unsupported("int16 with a nonzero zero point (TFLite Micro refuses it)");
    }
    if !(qmin..=qmax).contains(&zi) || !(qmin..=qmax).contains(&zo) {
        return unsupported("a zero point outside the type's range");
    }
    let elem = out.dtype.mlir();
    let x = cx.value(op, 0)?;
    let y = match op.kind.as_str() {
        "RELU6" => {
            let six = (f64::from(6.0f32 / si).round() + zi as f64).clamp(qmin as f64, qmax as f64) as i64;
            cx.clamp_int(&x, zi, six)
        }
        "RELU" => {
            let multiplier = rescale_multiplier(si / so, qmax - qmin)?;
            let y = cx.rescale(&x, elem, &[multiplier], zi, zo, true, true);
            cx.clamp_int(&y, zo, qmax)
        }
        _ => {
            // `q - zp_in` exactly in 32 bits, its absolute value, then the scaling.
            let wide = cx.rescale(&x, "i32", &[(1 << 30, 30)], zi, 0, true, true);
            let magnitude = cx.func.op("abs", &[&wide], "", wide.ty.clone());
            let multiplier = if si == so { (1 << 30, 30) } else { rescale_multiplier(si / so, qmax - qmin)? };
            cx.rescale(&magnitude, elem, &[multiplier], 0, zo, true, true)
        }
    };
    cx.define(op, 0, y)
}

/// The multiplier of a float `ratio` as TFLite's QuantizeMultiplier gives it, when TOSA's
/// `rescale` computes MultiplyByQuantizedMultiplier with it exactly on values up to `span` in
/// magnitude: TFLite shifts left in 32 bits first, so a left shift that overflows there is not
/// reproduced.
fn rescale_multiplier(ratio: f32, span: i64) -> OpResult<(i32, i8)> {
    let (m, shift) = scale32(f64::from(ratio));
    // A right shift below 31 is a left shift of 31 - shift in TFLite's terms.
    let left = 31 - i64::from(shift);
    if left > 0 && span << left > i64::from(i32::MAX) {
        return unsupported(format!("a scale ratio of {ratio} (TFLite Micro's 32-bit left shift overflows)"));
    }
    Ok((m, shift))
}

/// MAXIMUM, MINIMUM, DIV and SQUARED_DIFFERENCE, with broadcasting (up to TFLite Micro's 5
/// dimensions). MAXIMUM and MINIMUM: TFLite Micro's `el1 > el2 ? el1 : el2` (`<` for the
/// minimum) on the raw elements, quantized ones included, whatever their quantization (it reads
/// none): a `select` for floats (exact on NaN and signed zeros), TOSA's `maximum`/`minimum` for
/// integers. DIV (float32): the quotient clamped to the fused activation's range, which for none
/// is the finite floats (TFLite Micro's CalculateActivationRange). SQUARED_DIFFERENCE (float32):
/// `(a - b)²`.
pub fn binary(cx: &mut Cx, op: &Operator) -> OpResult {
    let (a, b, out) = (cx.tensor(op, 0)?, cx.tensor(op, 1)?, cx.output(op, 0)?);
    if a.dtype != out.dtype || b.dtype != out.dtype {
        return bad(format!("{} and {} to {}", a.dtype.name(), b.dtype.name(), out.dtype.name()));
    }
    let rank = out.shape.len();
    if rank > 5 {
        return unsupported(format!("rank {rank} (TFLite Micro broadcasts at most 5 dimensions)"));
    }
    let x = cx.value(op, 0)?;
    let y = cx.value(op, 1)?;
    let (x, y) = (to_rank(cx, &x, rank), to_rank(cx, &y, rank));
    let t = ty(out);
    let float = out.dtype == DType::F32;
    let z = match op.kind.as_str() {
        "MAXIMUM" | "MINIMUM" if float => {
            let (p, q) = if op.kind == "MAXIMUM" { (&x, &y) } else { (&y, &x) };
            let pick = cx.func.op("greater", &[p, q], "", t.with_elem("i1"));
            cx.func.op("select", &[&pick, &x, &y], "", t)
        }
        "MAXIMUM" | "MINIMUM" => {
            if !matches!(out.dtype, DType::I8 | DType::I16 | DType::I32) {
                return unsupported(format!("{} of {}", op.kind, out.dtype.name()));
            }
            cx.func.op(&op.kind.to_lowercase(), &[&x, &y], "", t)
        }
        "SQUARED_DIFFERENCE" if !float => return super::elementwise::squared_difference(cx, op),
        "DIV" if out.dtype == DType::I8 => return super::div_int8::div_int8(cx, op),
        _ if !float => return unsupported(format!("{} of {} (only float32 is read)", op.kind, out.dtype.name())),
        "DIV" => {
            let activation = match op.options {
                Options::Arithmetic { activation, .. } => activation,
                Options::None => 0,
                _ => return bad("its options are not DIV's"),
            };
            if !(0..=3).contains(&activation) {
                return unsupported(format!("fused activation {activation} on DIV"));
            }
            // A divisor under 2^-64 in magnitude (whose reciprocal may overflow) and its dividend
            // are first scaled by 2^64, exactly.
            let shift = cx.func.scalar("i8", 0);
            let magnitude = cx.func.op("abs", &[&y], "", y.ty.clone());
            let tiny = cx.func.broadcast_f32(rank, 2f32.powi(-64));
            let small = cx.func.op("greater", &[&tiny, &magnitude], "", y.ty.with_elem("i1"));
            let (up, unit) = (cx.func.broadcast_f32(rank, 2f32.powi(64)), cx.func.broadcast_f32(rank, 1.0));
            let scale = cx.func.op("select", &[&small, &up, &unit], "", y.ty.clone());
            let x = cx.func.op("mul", &[&x, &scale, &shift], "", t.clone());
            let y = cx.func.op("mul", &[&y, &scale, &shift], "", y.ty.clone());
            let reciprocal = cx.func.op("reciprocal", &[&y], "", y.ty.clone());
            let quotient = cx.func.op("mul", &[&x, &reciprocal, &shift], "", t);
            match activation {
                0 => cx.clamp_f32(&quotient, f32::MIN, f32::MAX),
                code => cx.float_activation(&quotient, code)?,
            }
        }
        "SQUARED_DIFFERENCE" => {
            let difference = cx.func.op("sub", &[&x, &y], "", t.clone());
            let shift = cx.func.scalar("i8", 0);
            cx.func.op("mul", &[&difference, &difference, &shift], "", t)
        }
        other => return bad(format!("internal error: {other} is not a binary operator")),
    };
    cx.define(op, 0, z)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn left_shift_overflow() {
        // 0.5: a right shift, always exact.
        assert_eq!(rescale_multiplier(0.5, 65535).ok(), Some((1 << 30, 31)));
        // 4.0 is a left shift by 3: 255 · 8 fits, 65535 · 2^20 would not.
        assert_eq!(rescale_multiplier(4.0, 255).ok(), Some((1 << 30, 28)));
        assert!(rescale_multiplier(2f32.powi(20), 65535).is_err());
    }
}

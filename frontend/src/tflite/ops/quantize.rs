//! QUANTIZE and DEQUANTIZE.

use super::{Cx, OpResult, Value, bad, per_tensor, scale32, unsupported};
use crate::tflite::{
    emit::{Ty, float},
    model::{DType, Operator},
};

/// QUANTIZE. Between integer types (int8, int16): TFLite Micro's `Requantize`, `q - zp_in`
/// scaled by `s_in / s_out` (MultiplyByQuantizedMultiplier, a double-rounding `rescale`) plus
/// the output zero point, saturated.
///
/// From float32 TFLite Micro's `AffineQuantize` computes `round(x / scale) + zp` with an f32
/// division, rounding half away from zero, saturated. TOSA has no float division, and the
/// converter's `x · f32(1 / scale)` then `tosa.cast` (half to even) differs by one for about
/// one value in a thousand. To int8 umac computes it exactly: the result only grows with x, so
/// it is fixed by the 255 smallest floats at which it reaches each int8 value, found at compile
/// time with TFLite Micro's own f32 division ([`int8_thresholds`]). The model takes the
/// candidate `x · (1 / scale)` rounded, then moves it by one where x lies below its threshold or
/// at or above the next one (a gather of the two from the table). NaN, which TFLite Micro casts
/// with undefined behaviour, gives the zero point. To int16 (65,536 thresholds would be 256 KB)
/// the quotient itself: `x · (1 / scale)` at a power-of-two scale, where it is exact, else the
/// f32 division TOSA lacks, `arith.divf` on the tensor (upstream's
/// `convert-elementwise-to-linalg` lowers it with the rest), then rounded half away from zero.
pub fn quantize(cx: &mut Cx, op: &Operator) -> OpResult {
    let (input, out) = (cx.tensor(op, 0)?, cx.output(op, 0)?);
    if input.shape != out.shape {
        return bad(format!("it maps {:?} to {:?}", input.shape, out.shape));
    }
    let x = cx.value(op, 0)?;
    let (so, zo) = per_tensor(out, "its output")?;
    let elem = out.dtype.mlir();
    let result = match (input.dtype, out.dtype) {
        (DType::I8 | DType::I16, DType::I8 | DType::I16) => {
            let (si, zi) = per_tensor(input, "its input")?;
            if (input.dtype == DType::I16 && zi != 0) || (out.dtype == DType::I16 && zo != 0) {
                return unsupported("int16 with a nonzero zero point");
            }
            let multiplier = scale32(f64::from(si) / f64::from(so));
            cx.rescale(&x, elem, &[multiplier], zi, zo, true, true)
        }
        (DType::F32, DType::I8) => from_float_to_int8(cx, &x, so, zo)?,
        (DType::F32, DType::I16) if so > 0.0 && so.is_finite() && zo == 0 => from_float_to_int16(cx, &x, so),
        (DType::F32, DType::I16) => {
            return unsupported(format!("QUANTIZE from float32 to int16 with scale {so} and zero point {zo}"));
        }
        (a, o) => return unsupported(format!("{} to {}", a.name(), o.name())),
    };
    cx.define(op, 0, result)
}

/// TFLite Micro's int8 QUANTIZE of one float: `clamp(round_half_away(x / scale) + zp)`.
fn affine_quantize(x: f32, scale: f32, zp: i64) -> i64 {
    // (An infinite quotient saturates; TFLite Micro's cast of it is undefined.)
    ((x / scale).round() as i64).saturating_add(zp).clamp(-128, 127)
}

/// A float's position in the order of floats (`-0.0` and `0.0` share one).
fn order_key(x: f32) -> i64 {
    let bits = x.to_bits();
    if bits >> 31 == 1 { -i64::from(bits & 0x7fff_ffff) } else { i64::from(bits) }
}

/// The float at an [`order_key`].
fn from_order_key(key: i64) -> f32 {
    if key < 0 { f32::from_bits((-key) as u32 | 0x8000_0000) } else { f32::from_bits(key as u32) }
}

/// For each int8 value `v` from -128 to 128 (index `v + 128`), the smallest float whose
/// TFLite Micro QUANTIZE is at least `v`: -inf for -128, +inf for 128 (never reached). `scale`
/// must be positive and finite.
pub(crate) fn int8_thresholds(scale: f32, zp: i64) -> Vec<f32> {
    let (lowest, highest) = (order_key(f32::NEG_INFINITY), order_key(f32::INFINITY));
    let mut table = vec![f32::NEG_INFINITY];
    for v in -127..=127 {
        // The first key in [lowest, highest] whose value reaches v (the values only grow).
        let (mut low, mut high) = (lowest, highest);
        while low < high {
            let middle = low + (high - low) / 2;
            if affine_quantize(from_order_key(middle), scale, zp) >= v { high = middle } else { low = middle + 1 }
        }
        table.push(from_order_key(low));
    }
    table.push(f32::INFINITY);
    table
}

/// `x · (1 / scale)` with NaN as 0, clamped to `[-bound, bound]` (so that a cast to i32 is
/// defined).
fn scaled_number(cx: &mut Cx, x: &Value, scale: f32, bound: f32) -> Value {
    let rank = x.ty.rank();
    let is_number = cx.func.op("equal", &[x, x], "", x.ty.with_elem("i1"));
    let zero = cx.func.broadcast_f32(rank, 0.0);
    let number = cx.func.op("select", &[&is_number, x, &zero], "", x.ty.clone());
    let inverse = cx.func.broadcast_f32(rank, 1.0 / scale);
    let shift = cx.func.scalar("i8", 0);
    let product = cx.func.op("mul", &[&number, &inverse, &shift], "", x.ty.clone());
    cx.clamp_f32(&product, -bound, bound)
}

/// [`quantize`] from float32 to int8.
fn from_float_to_int8(cx: &mut Cx, x: &Value, scale: f32, zp: i64) -> OpResult<Value> {
    if !(scale.is_finite() && scale > 0.0 && (-128..=127).contains(&zp)) {
        return bad(format!("its output scale {scale} and zero point {zp} are not an int8 quantization"));
    }
    let rank = x.ty.rank();
    let bool_ty = x.ty.with_elem("i1");
    let i32_ty = x.ty.with_elem("i32");
    // The candidate: x / scale approximated and kept within i32, rounded, plus zp, saturated,
    // as an index 0..=255 into the thresholds.
    let bounded = scaled_number(cx, x, scale, 1024.0);
    let rounded = cx.func.op("cast", &[&bounded], "", i32_ty.clone());
    let offset = cx.func.broadcast(rank, "i32", zp + 128);
    let shifted = cx.func.op("add", &[&rounded, &offset], "", i32_ty.clone());
    let index = cx.clamp_int(&shifted, 0, 255);
    let one = cx.func.broadcast(rank, "i32", 1);
    let next = cx.func.op("add", &[&index, &one], "", i32_ty.clone());
    let bytes: Vec<u8> = int8_thresholds(scale, zp).iter().flat_map(|t| t.to_le_bytes()).collect();
    let table = cx.func.bytes(Ty::new(&[1, 257, 1], "f32"), &bytes);
    let (reach, next_reach) = (super::lookup(cx, &table, &index), super::lookup(cx, &table, &next));
    // One down below its threshold, one up at or above the next one.
    let below = cx.func.op("greater", &[&reach, x], "", bool_ty.clone());
    let above = cx.func.op("greater_equal", &[x, &next_reach], "", bool_ty);
    let down = cx.func.op("sub", &[&index, &one], "", i32_ty.clone());
    let moved = cx.func.op("select", &[&below, &down, &index], "", i32_ty.clone());
    let moved = cx.func.op("select", &[&above, &next, &moved], "", i32_ty.clone());
    let base = cx.func.broadcast(rank, "i32", 128);
    let value = cx.func.op("sub", &[&moved, &base], "", i32_ty);
    Ok(cx.func.op("cast", &[&value], "", x.ty.with_elem("i8")))
}

/// [`quantize`] from float32 to int16 (zero point 0): `x / scale` as TFLite Micro's f32 division
/// gives it (at a power-of-two scale `x · (1 / scale)`, the same exactly; else `arith.divf`);
/// TOSA's cast rounds it half to even, and a tie (a difference of exactly 1/2, exact below 2^24)
/// goes away from zero instead. NaN gives 0.
fn from_float_to_int16(cx: &mut Cx, x: &Value, scale: f32) -> Value {
    let rank = x.ty.rank();
    let bool_ty = x.ty.with_elem("i1");
    let i32_ty = x.ty.with_elem("i32");
    let y = if scale.log2().fract() == 0.0 {
        scaled_number(cx, x, scale, 65536.0)
    } else {
        let is_number = cx.func.op("equal", &[x, x], "", bool_ty.clone());
        let zero = cx.func.broadcast_f32(rank, 0.0);
        let number = cx.func.op("select", &[&is_number, x, &zero], "", x.ty.clone());
        let divisor = cx.func.constant(x.ty.clone(), float(scale));
        let text = format!("arith.divf {}, {} : {}", number.name, divisor.name, x.ty.text());
        let quotient = cx.func.raw(&text, x.ty.clone());
        cx.clamp_f32(&quotient, -65536.0, 65536.0)
    };
    let zero = cx.func.broadcast_f32(rank, 0.0);
    let even = cx.func.op("cast", &[&y], "", i32_ty.clone());
    let back = cx.func.op("cast", &[&even], "", x.ty.clone());
    let rest = cx.func.op("sub", &[&y, &back], "", x.ty.clone());
    let magnitude = cx.func.op("abs", &[&rest], "", x.ty.clone());
    let half = cx.func.broadcast_f32(rank, 0.5);
    let tie = cx.func.op("equal", &[&magnitude, &half], "", bool_ty.clone());
    let positive = cx.func.op("greater_equal", &[&y, &zero], "", bool_ty);
    let minus_half = cx.func.broadcast_f32(rank, -0.5);
    let outward = cx.func.op("select", &[&positive, &half, &minus_half], "", x.ty.clone());
    let away = cx.func.op("add", &[&y, &outward], "", x.ty.clone());
    let away = cx.func.op("cast", &[&away], "", i32_ty.clone());
    let rounded = cx.func.op("select", &[&tie, &away, &even], "", i32_ty);
    let saturated = cx.clamp_int(&rounded, -32768, 32767);
    cx.func.op("cast", &[&saturated], "", x.ty.with_elem("i16"))
}

/// DEQUANTIZE, int8 or int16 to float32. TFLite Micro: `float(double(scale) · (q - zp))`, the
/// product exact in double and rounded once to float. Here `q - zp` exactly in f32 (a cast,
/// and a subtraction of small integers), times the f32 scale: the same single rounding of the
/// same exact product.
pub fn dequantize(cx: &mut Cx, op: &Operator) -> OpResult {
    let (input, out) = (cx.tensor(op, 0)?, cx.output(op, 0)?);
    if input.shape != out.shape {
        return bad(format!("it maps {:?} to {:?}", input.shape, out.shape));
    }
    let result = match (input.dtype, out.dtype) {
        (DType::I8 | DType::I16, DType::F32) => {
            let (scale, zp) = per_tensor(input, "its input")?;
            let x = cx.value(op, 0)?;
            let rank = x.ty.rank();
            let mut y = cx.func.op("cast", &[&x], "", x.ty.with_elem("f32"));
            if zp != 0 {
                let z = cx.func.constant(y.ty.with_shape(&vec![1; rank]), float(zp as f32));
                y = cx.func.op("sub", &[&y, &z], "", y.ty.clone());
            }
            let s = cx.func.broadcast_f32(rank, scale);
            let shift = cx.func.scalar("i8", 0);
            cx.func.op("mul", &[&y, &s, &shift], "", y.ty.clone())
        }
        (a, o) => return unsupported(format!("{} to {}", a.name(), o.name())),
    };
    cx.define(op, 0, result)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds() {
        // Scale 0.5, zero point 0: x / 0.5 rounds half away from zero, so 1 is reached at 0.25,
        // -1 at just above -0.75 (-0.75 / 0.5 = -1.5 rounds to -2), 127 at 63.25.
        let t = int8_thresholds(0.5, 0);
        assert_eq!(t.len(), 257);
        assert_eq!((t[0], t[256]), (f32::NEG_INFINITY, f32::INFINITY));
        assert_eq!(t[129], 0.25);
        assert_eq!(t[127], f32::from_bits((-0.75f32).to_bits() - 1));
        assert_eq!(t[255], 63.25);
        // -127 is reached right above -63.75 (which rounds to -128); a zero point shifts them.
        assert_eq!(t[1], f32::from_bits((-63.75f32).to_bits() - 1));
        assert_eq!(int8_thresholds(0.5, 10)[139], 0.25);
        // Every threshold is where the value steps: just below it the value is one less.
        for scale in [0.5f32, 0.1, 0.0073, 3.7] {
            let t = int8_thresholds(scale, -5);
            for (v, &at) in (-127i64..=127).zip(&t[1..256]) {
                let before = from_order_key(order_key(at) - 1);
                assert_eq!(affine_quantize(at, scale, -5), v, "{scale} {v}");
                assert_eq!(affine_quantize(before, scale, -5), v - 1, "{scale} {v}");
            }
        }
    }
}

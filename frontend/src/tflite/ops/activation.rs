//! Quantized activations as TFLite Micro's kernels compute them:
//! - int8 LOGISTIC, TANH, HARD_SWISH, ELU and RSQRT: each maps the 256 int8 values through a function
//!   of the quantization, so umac evaluates TFLite Micro's kernel on every value at compile time
//!   (its gemmlowp fixed point, [`crate::tflite::fixed_point`], or ELU's float table) and writes
//!   a `tosa.table`. Exact by construction.
//! - int16 LOGISTIC and TANH: TFLite's 256-entry sigmoid table with linear interpolation
//!   (`reference_integer_ops::Logistic` / `Tanh` for int16), written as TOSA integer ops and a
//!   `gather` into the table.

use super::{Cx, OpResult, Value, bad, per_tensor, unsupported};
use crate::tflite::{
    emit::Ty,
    fixed_point::{
        SIGMOID_TABLE, doubling_high_mul, doubling_high_mul_16, input_radius, logistic, multiply_by_pot,
        multiply_by_quantized_multiplier, quantize_multiplier, rounding_divide_by_pot, tanh,
    },
    model::{DType, Operator},
};

/// LOGISTIC, TANH, HARD_SWISH, ELU or RSQRT on int8, LOGISTIC or TANH on int16.
pub fn quantized(cx: &mut Cx, op: &Operator) -> OpResult {
    let (input, out) = (cx.tensor(op, 0)?, cx.output(op, 0)?);
    if input.shape != out.shape || input.dtype != out.dtype {
        return bad(format!(
            "it maps {} {:?} to {} {:?}",
            input.dtype.name(),
            input.shape,
            out.dtype.name(),
            out.shape
        ));
    }
    let (in_scale, in_zp) = per_tensor(input, "its input")?;
    let (out_scale, out_zp) = per_tensor(out, "its output")?;
    let (in_zp, out_zp) = (in_zp as i32, out_zp as i32);
    let x = cx.value(op, 0)?;
    let y = match (input.dtype, op.kind.as_str()) {
        (DType::I8, kind) => {
            let table = match kind {
                "LOGISTIC" => {
                    if out_zp != -128 {
                        return bad(format!("its int8 output has zero point {out_zp}; TFLite Micro requires -128"));
                    }
                    sigmoid_int8(in_scale, in_zp, false)
                }
                "TANH" => sigmoid_int8(in_scale, in_zp, true),
                "HARD_SWISH" => match hard_swish_int8(in_scale, in_zp, out_scale, out_zp) {
                    Some(table) => table,
                    None => return bad("its output scale is below its input scale / 128, which TFLite Micro refuses"),
                },
                "ELU" => elu_int8(in_scale, in_zp, out_scale, out_zp),
                "RSQRT" => rsqrt_int8(in_scale, in_zp, out_scale, out_zp),
                _ => return unsupported("int8 (only float32 is read)"),
            };
            let bytes: Vec<u8> = table.iter().map(|&v| v as u8).collect();
            let table = cx.func.bytes(Ty::new(&[256], "i8"), &bytes);
            cx.func.op("table", &[&x, &table], "", x.ty.clone())
        }
        (DType::I16, kind @ ("LOGISTIC" | "TANH")) => {
            if in_zp != 0 || out_zp != 0 {
                return bad("its int16 zero points are not 0, as TFLite Micro requires");
            }
            if (f64::from(out_scale).log2() + 15.0).abs() >= 1e-3 {
                return bad(format!("its int16 output scale is {out_scale}; TFLite Micro requires 2^-15"));
            }
            let is_tanh = kind == "TANH";
            sigmoid_int16(cx, &x, int16_input_rescale(in_scale, is_tanh), is_tanh)
        }
        (other, _) => return unsupported(format!("{} (only float32, and int8 or int16 as listed)", other.name())),
    };
    cx.define(op, 0, y)
}

/// TFLite Micro's int8 LOGISTIC (`tanh` false) or TANH for each input value -128..=127, in
/// `tosa.table` order. The output quantization is the kernel's, not the model's: LOGISTIC writes
/// scale 1/256 with zero point -128, TANH scale 1/128 with zero point 0.
pub(crate) fn sigmoid_int8(in_scale: f32, in_zp: i32, is_tanh: bool) -> [i8; 256] {
    const INPUT_INTEGER_BITS: i32 = 4;
    // frexp of `s_in · 2^27`, the mantissa rounded to 31 bits (no renormalization: a mantissa
    // that rounds to 2^31 wraps, as the C++ cast does on every target TFLite Micro runs on).
    let real = f64::from(in_scale) * f64::from(1u32 << (31 - INPUT_INTEGER_BITS));
    let (mantissa, shift) = crate::tflite::quant::frexp(real);
    let multiplier = (mantissa * 2147483648.0).round() as i64 as i32;
    let radius = input_radius(INPUT_INTEGER_BITS, shift);
    std::array::from_fn(|i| {
        let input = i as i32 - 128 - in_zp;
        if input <= -radius {
            return -128;
        }
        if input >= radius {
            return 127;
        }
        let q4 = multiply_by_quantized_multiplier(input, multiplier, shift);
        let value = if is_tanh {
            rounding_divide_by_pot(tanh(q4, INPUT_INTEGER_BITS), 24)
        } else {
            rounding_divide_by_pot(logistic(q4, INPUT_INTEGER_BITS), 23) - 128
        };
        value.clamp(-128, 127) as i8
    })
}

/// TFLite Micro's int8 HARD_SWISH table (`reference_ops::HardSwish` with the multipliers of
/// `HardSwishPrepare`), `None` where TFLite Micro refuses the scales (an output multiplier
/// above 1).
pub(crate) fn hard_swish_int8(in_scale: f32, in_zp: i32, out_scale: f32, out_zp: i32) -> Option<[i8; 256]> {
    // The scales are f32 as in the kernel; only the quotients are widened.
    let hires_input_scale = (1.0f32 / 128.0) * in_scale;
    let reluish_scale = 3.0f32 / 32768.0;
    let (out_m, out_exp) = quantize_multiplier(f64::from(hires_input_scale / out_scale));
    let (relu_m, relu_exp) = quantize_multiplier(f64::from(hires_input_scale / reluish_scale));
    if out_exp > 0 {
        return None;
    }
    let (out_m, relu_m) = (down_scale_to_16(out_m), down_scale_to_16(relu_m));
    let saturating_left_shift = |v: i16, amount: i32| -> i16 {
        (i64::from(v) << amount.clamp(0, 48)).clamp(i64::from(i16::MIN), i64::from(i16::MAX)) as i16
    };
    let divide = |v: i16, exponent: i32| rounding_divide_by_pot(i32::from(v), exponent as u32) as i16;
    Some(std::array::from_fn(|i| {
        let input = (i as i32 - 128 - in_zp) as i16;
        let hires = input.wrapping_mul(1 << 7);
        let preshift_output = doubling_high_mul_16(hires, out_m);
        let mut reluish = hires;
        if relu_exp > 0 {
            reluish = saturating_left_shift(reluish, relu_exp - 1);
        }
        reluish = doubling_high_mul_16(reluish, relu_m);
        if relu_exp > 0 {
            reluish = saturating_left_shift(reluish, 1);
        }
        if relu_exp < 0 {
            reluish = divide(reluish, -relu_exp);
        }
        reluish = ((i32::from(reluish) + (1 << 15)) >> 1) as i16;
        // SaturatingDoublingHighMul: truncating, not rounding.
        let product = if reluish == i16::MIN && preshift_output == i16::MIN {
            i16::MAX
        } else {
            ((i32::from(reluish) * i32::from(preshift_output)) / (1 << 15)) as i16
        };
        let output = divide(product, -out_exp).wrapping_add(out_zp as i16);
        output.clamp(-128, 127) as i8
    }))
}

/// TFLite's `DownScaleInt32ToInt16Multiplier`: the upper 16 bits, rounded, saturating.
fn down_scale_to_16(multiplier: i32) -> i16 {
    if multiplier >= i32::MAX - (1 << 15) { i16::MAX } else { ((multiplier + (1 << 15)) >> 16) as i16 }
}

/// TFLite Micro's int8 ELU table (`PopulateLookupTable` with `x < 0 ? exp(x) - 1 : x`), in f32
/// as the kernel computes it.
pub(crate) fn elu_int8(in_scale: f32, in_zp: i32, out_scale: f32, out_zp: i32) -> [i8; 256] {
    let inverse_scale = 1.0 / out_scale;
    std::array::from_fn(|i| {
        let value = i as i32 - 128;
        let dequantized = in_scale * (value - in_zp) as f32;
        let transformed = if dequantized < 0.0 { dequantized.exp() - 1.0 } else { dequantized };
        let quantized = ((transformed * inverse_scale).round() + out_zp as f32) as i32;
        quantized.clamp(-128, 127) as i8
    })
}

/// TFLite Micro's int8 RSQRT (`RsqrtEvalQuantized`): `1 / sqrt(q - zp)` from TFLite's
/// fixed-point inverse square root (`GetInvSqrtQuantizedMultiplierExp`), scaled by
/// `1 / (sqrt(s_in) · s_out)`; `q = zp` gives 127. Values below the zero point, for which TFLite
/// Micro stops the inference with an error, give the value of `q - zp = 1`.
pub(crate) fn rsqrt_int8(in_scale: f32, in_zp: i32, out_scale: f32, out_zp: i32) -> [i8; 256] {
    const SHIFT: i32 = 20;
    let (multiplier, shift) = quantize_multiplier(1.0 / f64::from(in_scale.sqrt() * out_scale));
    std::array::from_fn(|i| {
        let value = i as i32 - 128 - in_zp;
        if value == 0 {
            return 127;
        }
        let (inv_sqrt, inv_shift) = inv_sqrt_multiplier(value);
        let data = multiply_by_quantized_multiplier(1, inv_sqrt, inv_shift + SHIFT);
        let output = multiply_by_quantized_multiplier(data, multiplier, shift - SHIFT) + out_zp;
        output.clamp(-128, 127) as i8
    })
}

/// TFLite's `GetInvSqrtQuantizedMultiplierExp(input, -1)`: `1 / sqrt(input)` as a multiplier and
/// a left shift, by five Newton-Raphson steps in gemmlowp's Q3.28.
fn inv_sqrt_multiplier(mut input: i32) -> (i32, i32) {
    if input <= 1 {
        return (i32::MAX, 0);
    }
    let mut shift = 11;
    while input >= 1 << 29 {
        input /= 4;
        shift += 1;
    }
    let max_left_shift_bits = (input as u32).leading_zeros() as i32 - 1;
    let left_shift_bit_pairs = max_left_shift_bits / 2 - 1;
    shift -= left_shift_bit_pairs;
    input <<= 2 * left_shift_bit_pairs;
    // Q3.28 (gemmlowp `FixedPoint<int32_t, 3>`); products of two Q3 are Q6, of three Q9.
    let fixed_input = input >> 1;
    let half_input = rounding_divide_by_pot(fixed_input, 1);
    let half_three = (1 << 28) + (1 << 27);
    let mut x = 1 << 28;
    for _ in 0..5 {
        let x3 = multiply_by_pot(doubling_high_mul(doubling_high_mul(x, x), x), 6);
        let difference = doubling_high_mul(half_three, x).wrapping_sub(doubling_high_mul(half_input, x3));
        x = multiply_by_pot(difference, 3);
    }
    const HALF_SQRT_2: i32 = 1518500250;
    let mut inv_sqrt = doubling_high_mul(x, HALF_SQRT_2);
    if shift < 0 {
        inv_sqrt <<= -shift;
        shift = 0;
    }
    (inv_sqrt, -shift)
}

/// The int16 kernels' input rescale `(multiplier, right shift)` onto the table's grid (3 · 4096
/// steps per unit; TFLite Micro's `CalculateArithmeticOpData`): a power-of-two input scale the
/// kernel takes exactly (2^-12; for TANH also 2^-11), any other as a multiplier below 2^15.
pub(crate) fn int16_input_rescale(in_scale: f32, is_tanh: bool) -> (i32, u32) {
    const INPUT_INTEGER_BITS: i32 = 3;
    let log2 = f64::from(in_scale).log2();
    let rounded = log2.round();
    let pot = (log2 - rounded).abs() < 1e-3;
    let left_shift = (15 - INPUT_INTEGER_BITS) + rounded as i32;
    if pot && (left_shift == 0 || (is_tanh && left_shift == 1)) {
        return (3 << left_shift, 0);
    }
    let mut multiplier = f64::from(in_scale) * 4096.0 * 3.0;
    let mut shift = 0;
    while multiplier <= 32767.0 / 2.0 && shift <= 30 {
        shift += 1;
        multiplier *= 2.0;
    }
    (multiplier as i32, shift)
}

/// TFLite's int16 LOGISTIC or TANH of `x` after the input rescale `(multiplier, shift)`: the
/// sigmoid table at `|x| / 2^9` (TANH: `/ 2^8`, as tanh(x) = 2 sigmoid(2x) - 1) with linear
/// interpolation on the remaining bits, mirrored for negative inputs, saturated from entry 255.
fn sigmoid_int16(cx: &mut Cx, x: &Value, (multiplier, shift): (i32, u32), is_tanh: bool) -> Value {
    let rank = x.ty.rank();
    let t32 = x.ty.with_elem("i32");
    let bool_ty = x.ty.with_elem("i1");
    let no_shift = cx.func.scalar("i8", 0);
    let c = |cx: &mut Cx, v: i64| cx.func.broadcast(rank, "i32", v);
    let x32 = cx.func.op("cast", &[x], "", t32.clone());
    // (x · multiplier + round) >> shift, in i32 (|x · multiplier| < 2^30).
    let m = c(cx, i64::from(multiplier));
    let scaled = cx.func.op("mul", &[&x32, &m, &no_shift], "", t32.clone());
    let rounded = if shift > 0 {
        let round = c(cx, 1 << (shift - 1));
        let sum = cx.func.op("add", &[&scaled, &round], "", t32.clone());
        let s = c(cx, i64::from(shift));
        cx.func.op("arithmetic_right_shift", &[&sum, &s], "round = false", t32.clone())
    } else {
        scaled
    };
    let abs = cx.func.op("abs", &[&rounded], "", t32.clone());
    let fraction_bits = if is_tanh { 8 } else { 9 };
    let bits = c(cx, fraction_bits);
    let high = cx.func.op("arithmetic_right_shift", &[&abs, &bits], "round = false", t32.clone());
    let mask = c(cx, (1 << fraction_bits) - 1);
    let fraction = cx.func.op("bitwise_and", &[&abs, &mask], "", t32.clone());
    // Entries uh and uh + 1 for uh < 255; from 255 on the result saturates (selected below).
    let last = c(cx, 254);
    let index = cx.func.op("minimum", &[&high, &last], "", t32.clone());
    let one = c(cx, 1);
    let next = cx.func.op("add", &[&index, &one], "", t32.clone());
    let ua = gather_table(cx, &index);
    let ub = gather_table(cx, &next);
    let step = cx.func.op("sub", &[&ub, &ua], "", t32.clone());
    let slope = cx.func.op("mul", &[&fraction, &step, &no_shift], "", t32.clone());
    let base_scale = c(cx, 1 << fraction_bits);
    let base = cx.func.op("mul", &[&ua, &base_scale, &no_shift], "", t32.clone());
    let interpolated = cx.func.op("add", &[&base, &slope], "", t32.clone());
    let limit = c(cx, 255);
    let saturates = cx.func.op("greater_equal", &[&high, &limit], "", bool_ty.clone());
    let saturated = c(cx, if is_tanh { 0xFFFF << 8 } else { 0x7FFF << 10 });
    let result = cx.func.op("select", &[&saturates, &saturated, &interpolated], "", t32.clone());
    // Mirror and round: LOGISTIC `(r + 2^9) >> 10` or `(2^25 - r + 2^9 - 1) >> 10`; TANH
    // `(r - 2^23 + 2^7) >> 8` or `(2^23 - r + 2^7 - 1) >> 8`.
    let (bias, positive_offset, out_shift) = if is_tanh { (1 << 23, 1 << 7, 8) } else { (1 << 25, 1 << 9, 10) };
    let positive = if is_tanh {
        let offset = c(cx, positive_offset - bias);
        cx.func.op("add", &[&result, &offset], "", t32.clone())
    } else {
        let offset = c(cx, positive_offset);
        cx.func.op("add", &[&result, &offset], "", t32.clone())
    };
    let negative_offset = c(cx, bias + positive_offset - 1);
    let negative = cx.func.op("sub", &[&negative_offset, &result], "", t32.clone());
    let zero = c(cx, 0);
    let non_negative = cx.func.op("greater_equal", &[&rounded, &zero], "", bool_ty);
    let chosen = cx.func.op("select", &[&non_negative, &positive, &negative], "", t32.clone());
    let s = c(cx, out_shift);
    let shifted = cx.func.op("arithmetic_right_shift", &[&chosen, &s], "round = false", t32);
    cx.func.op("cast", &[&shifted], "", x.ty.clone())
}

/// `SIGMOID_TABLE[index]` for each element of the i32 `index`.
fn gather_table(cx: &mut Cx, index: &Value) -> Value {
    let values: Vec<i32> = SIGMOID_TABLE.iter().map(|&v| i32::from(v)).collect();
    let table = super::i32_table(cx, &values);
    super::lookup(cx, &table, index)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sigmoid_table_is_tflites() {
        // Spot values of kernels/internal/common.h, and sigmoid(i / 24) within 1.2 steps.
        assert_eq!((SIGMOID_TABLE[0], SIGMOID_TABLE[4], SIGMOID_TABLE[255]), (32768, 35493, 65535));
        for (i, &v) in SIGMOID_TABLE.iter().enumerate() {
            let exact = 65536.0 / (1.0 + (-(i as f64) / 24.0).exp());
            assert!((f64::from(v) - exact).abs() < 1.2, "{i}: {v} vs {exact}");
        }
    }

    /// The table's entry for int8 value `v`.
    fn at(table: &[i8; 256], v: i32) -> i8 {
        table[(v + 128) as usize]
    }

    #[test]
    fn int8_logistic_and_tanh() {
        // Input scale 1/16, zero point 0: radius 120 (7.5), so -120 and 120 saturate.
        let sigmoid = sigmoid_int8(1.0 / 16.0, 0, false);
        assert_eq!(at(&sigmoid, 0), 0); // 0.5 · 256 - 128
        assert_eq!(at(&sigmoid, 16), 59); // sigmoid(1) = 0.731059 · 256 = 187.15 → 187 - 128
        assert_eq!(at(&sigmoid, -16), -59); // 0.268941 · 256 = 68.85 → 69 - 128
        assert_eq!((at(&sigmoid, -120), at(&sigmoid, 120)), (-128, 127));
        assert_eq!(at(&sigmoid, 119), 127); // sigmoid(7.4375) · 256 = 255.85 → 256, clamped
        let t = sigmoid_int8(1.0 / 16.0, 0, true);
        assert_eq!(at(&t, 0), 0);
        assert_eq!(at(&t, 8), 59); // tanh(0.5) = 0.462117 · 128 = 59.15
        assert_eq!(at(&t, -8), -59);
        assert_eq!(at(&t, 64), 127); // tanh(4) · 128 = 127.94 → 128, clamped
        // A zero point shifts the table: value 10 with zero point 10 is 0.
        assert_eq!(at(&sigmoid_int8(1.0 / 16.0, 10, false), 10), 0);
    }

    #[test]
    fn int8_hard_swish_and_elu() {
        // Scales 1/16 in and out, zero points 0: x · relu6(x + 3) / 6.
        let h = hard_swish_int8(1.0 / 16.0, 0, 1.0 / 16.0, 0).unwrap();
        assert_eq!(at(&h, 0), 0);
        assert_eq!(at(&h, 64), 64); // 4 ≥ 3: x
        assert_eq!(at(&h, -64), 0); // -4 ≤ -3: 0
        assert_eq!(at(&h, 16), 11); // 1 · 4 / 6 = 0.667 · 16 = 10.67
        assert_eq!(at(&h, -16), -5); // -1 · 2 / 6 = -0.333 · 16 = -5.33
        assert!(hard_swish_int8(1.0, 0, 1.0 / 1024.0, 0).is_none());
        let e = elu_int8(1.0 / 16.0, 0, 1.0 / 16.0, 0);
        assert_eq!(at(&e, 32), 32);
        assert_eq!(at(&e, -16), -10); // exp(-1) - 1 = -0.632 · 16 = -10.1
        assert_eq!(at(&e, -128), -16); // exp(-8) - 1 ≈ -1
    }

    #[test]
    fn int8_rsqrt() {
        // Input scale 1/16, output 1/64: x = q / 16, 1 / sqrt(x) = 4 / sqrt(q), · 64 = 256 / sqrt(q).
        let r = rsqrt_int8(1.0 / 16.0, 0, 1.0 / 64.0, 0);
        assert_eq!(at(&r, 0), 127);
        assert_eq!(at(&r, 16), 64); // 256 / 4
        assert_eq!(at(&r, 100), 26); // 25.6
        assert_eq!(at(&r, 127), 23); // 22.72
        // 1 / sqrt(q) itself in Q31 for q = 4: 0.5.
        let (m, shift) = inv_sqrt_multiplier(4);
        assert!((f64::from(m) * 2f64.powi(shift) / 2147483648.0 - 0.5).abs() < 1e-6, "{m} {shift}");
    }

    #[test]
    fn int16_rescale() {
        assert_eq!(int16_input_rescale(1.0 / 4096.0, false), (3, 0));
        assert_eq!(int16_input_rescale(1.0 / 2048.0, true), (6, 0));
        // 2^-11 is not a power-of-two case for LOGISTIC: 2^-11 · 12288 = 6, doubled to 24576.
        assert_eq!(int16_input_rescale(1.0 / 2048.0, false), (24576, 12));
        // 0.001 · 12288 = 12.288, doubled 11 times: 25165.8 → 25165.
        assert_eq!(int16_input_rescale(0.001, false), (25165, 11));
    }
}

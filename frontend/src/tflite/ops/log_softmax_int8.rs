//! int8 LOG_SOFTMAX as TFLite Micro's `reference_ops::LogSoftmaxQuantized` computes it, in TOSA
//! integer ops over the last dimension.
//!
//! Per row: the differences `d = q - max` (-255..=0) index two tables computed at compile time,
//! each difference's `exp` in Q12 (0 below TFLite's `diff_min`) and its Q5.26 value; the row's
//! sum of exps goes through TFLite's fixed-point `log_x_for_x_greater_than_or_equal_to_1`
//! (here as TOSA ops, step for step: [`fixed_point::log_x_ge_1`] is the same on scalars); each
//! output is `(d_q5 - log_sum) / 2^22` rounded, plus 127, or -128 where `d` is at most the
//! row's adjusted `diff_min`. The output is TFLite's fixed quantization, scale 16/256 and zero
//! point 127.

use super::{Cx, OpResult, Value, bad, i32_table, int_ops::Ints, lookup, per_tensor};
use crate::tflite::{
    emit::Ty,
    fixed_point::{self, LOG_CONSTANTS, exp_on_negative_values, multiply_by_quantized_multiplier},
    model::{DType, Operator},
};

/// TFLite's Q-formats: the scaled differences Q5.26, the sum of exps Q12.19, the output Q4.27.
const INPUT_BITS: i32 = 5;
const ACCUMULATION_BITS: i32 = 12;
const OUTPUT_BITS: i32 = 4;

pub fn log_softmax_int8(cx: &mut Cx, op: &Operator) -> OpResult {
    let (input, output) = (cx.tensor(op, 0)?, cx.output(op, 0)?);
    if input.dtype != DType::I8 || output.dtype != DType::I8 {
        return bad(format!("{} to {}", input.dtype.name(), output.dtype.name()));
    }
    let (scale, _) = per_tensor(input, "its input")?;
    if per_tensor(output, "its output")? != (16.0 / 256.0, 127) {
        return bad("its output is not quantized with scale 16/256 and zero point 127, as TFLite Micro requires");
    }
    // PreprocessLogSoftmaxScalingExp(beta 1, scale, 5).
    let real = (f64::from(scale) * f64::from(1 << (31 - INPUT_BITS))).min(f64::from(i32::MAX));
    let (multiplier, left_shift) = fixed_point::quantize_multiplier(real);
    if left_shift < 0 {
        return bad(format!("its input scale {scale} is below 2^-26 (TFLite Micro's multiplier would be under one)"));
    }
    let reverse = f64::from(1i32.wrapping_shl((31 - left_shift) as u32)) / f64::from(multiplier);
    let (reverse_multiplier, reverse_shift) = fixed_point::quantize_multiplier(reverse);
    if reverse_shift > 0 {
        return bad(format!("its input scale {scale} gives a reverse scaling over one"));
    }
    let diff_min = -fixed_point::input_radius(INPUT_BITS, left_shift);

    // Per difference d = -255..=0 (index d + 255): exp in Q12 (0 under diff_min), d in Q5.26.
    let (mut exps, mut scaled) = (Vec::new(), Vec::new());
    for d in -255..=0 {
        let q5 = multiply_by_quantized_multiplier(d, multiplier, left_shift);
        let exp =
            if d >= diff_min { rescale_down(exp_on_negative_values(q5, INPUT_BITS), ACCUMULATION_BITS) } else { 0 };
        exps.push(exp);
        scaled.push(q5);
    }

    let x = cx.value(op, 0)?;
    let shape = input.shape.clone();
    let axis = shape.len() - 1;
    let mut reduced = shape.clone();
    reduced[axis] = 1;
    let max = cx.func.op("reduce_max", &[&x], &format!("axis = {axis} : i32"), Ty::new(&reduced, "i8"));
    let x32 = cx.rescale(&x, "i32", &[(1 << 30, 30)], 0, 0, true, true);
    let max32 = cx.rescale(&max, "i32", &[(1 << 30, 30)], 0, 0, true, true);
    let rank = shape.len();
    let mut t = Ints::new(cx, rank);
    let diff = t.op("sub", &x32, &max32);
    let offset = t.c(255);
    let index = t.op("add", &diff, &offset);
    let gather = |t: &mut Ints, values: &[i32]| {
        let table = i32_table(t.cx, values);
        lookup(t.cx, &table, &index)
    };
    let exp = gather(&mut t, &exps);
    let q5 = gather(&mut t, &scaled);
    let sum = t.cx.func.op("reduce_sum", &[&exp], &format!("axis = {axis} : i32"), Ty::new(&reduced, "i32"));
    let log_sum = log_x_ge_1(&mut t, &sum);
    // adjusted_diff_min = max(diff_min - 1, MBQM(log_sum + INT_MIN, reverse, reverse_shift)).
    let int_min = t.c(i64::from(i32::MIN));
    let shifted = t.op("add", &log_sum, &int_min);
    let reverse_multiplier = t.c(i64::from(reverse_multiplier));
    let product = t.high_mul(&shifted, &reverse_multiplier);
    let right = t.c(i64::from(-reverse_shift));
    let limit = t.rounding_divide(&product, &right);
    let floor = t.c(i64::from(diff_min) - 1);
    let adjusted = t.op("maximum", &limit, &floor);
    // Above it: (d_q5 - log_sum) / 2^22 rounded, + 127, clamped; else -128.
    let difference = t.op("sub", &q5, &log_sum);
    let exponent = t.c(i64::from(31 - INPUT_BITS - OUTPUT_BITS));
    let rounded = t.rounding_divide(&difference, &exponent);
    let top = t.c(127);
    let value = t.op("add", &rounded, &top);
    let value = t.cx.clamp_int(&value, -128, 127);
    let above = t.compare("greater", &diff, &adjusted);
    let bottom = t.c(-128);
    let result = t.select(&above, &value, &bottom);
    let result = t.cx.func.op("cast", &[&result], "", result.ty.with_elem("i8"));
    cx.define(op, 0, result)
}

/// `Rescale<to_bits>` of a Q0.31 raw value (a rounding right shift).
fn rescale_down(raw: i32, to_bits: i32) -> i32 {
    fixed_point::rounding_divide_by_pot(raw, to_bits as u32)
}

/// [`fixed_point::log_x_ge_1`]`(z, 12, 5)` on a tensor of Q12.19 sums, in TOSA ops.
fn log_x_ge_1(t: &mut Ints, z: &Value) -> Value {
    let [log_2, sqrt_sqrt_half, sqrt_half, _, alpha_n, alpha_d, alpha_i, alpha_f] =
        LOG_CONSTANTS.map(|c| t.c(i64::from(c)));
    let accum_bits = INPUT_BITS + 1;
    let shifted_quarter = t.c(i64::from(rescale_down(LOG_CONSTANTS[3], accum_bits)));
    let one = t.c(1);
    let headroom_plus_1 = t.clz(z);
    let headroom = t.op("sub", &headroom_plus_1, &one);
    let r_a_tmp = t.saturating_shl_by(z, &headroom);
    let r_a = t.high_mul(&r_a_tmp, &sqrt_half);
    let r_a = t.saturating_shl(&r_a, 1);
    // (input bits - headroom + 1) · 2^25 ± 1/4: no saturation (|k| ≤ 20).
    let bits = t.c(i64::from(ACCUMULATION_BITS));
    let k_a = t.op("sub", &bits, &headroom_plus_1);
    let to_accum = t.c(i64::from(31 - accum_bits));
    let k_a = t.op("logical_left_shift", &k_a, &to_accum);
    let z_a_pow = t.op("add", &k_a, &shifted_quarter);
    let z_b = t.high_mul(z, &sqrt_half);
    let z_b_clz = t.clz(&z_b);
    let z_b_headroom = t.op("sub", &z_b_clz, &one);
    let r_b = t.saturating_shl_by(z, &z_b_headroom);
    let k_b = t.op("sub", &bits, &z_b_headroom);
    let k_b = t.op("logical_left_shift", &k_b, &to_accum);
    let z_b_pow = t.op("sub", &k_b, &shifted_quarter);
    let r = t.op("minimum", &r_a, &r_b);
    let z_pow = t.op("maximum", &z_a_pow, &z_b_pow);
    // RoundingHalfSum(r, 2^-1/4) of two non-negatives without overflow: (r >> 1) + c/2 rounded.
    let half_r = t.shr(&r, &one);
    let half_c = t.c(i64::from(LOG_CONSTANTS[1] / 2 + (LOG_CONSTANTS[1] & 1)));
    let p = t.op("add", &half_r, &half_c);
    let q = t.op("sub", &r, &sqrt_sqrt_half);
    let q = t.op("add", &q, &q);
    let common_sq = t.high_mul(&q, &q);
    let qr = t.high_mul(&q, &r);
    let q_cube = t.high_mul(&q, &common_sq);
    let q_cube_n = t.high_mul(&q_cube, &alpha_n);
    let num = t.op("add", &qr, &q_cube_n);
    let d_sq = t.high_mul(&alpha_d, &common_sq);
    let inner = t.op("add", &alpha_i, &q);
    let inner = t.op("add", &inner, &d_sq);
    let p_inner = t.high_mul(&p, &inner);
    let f_q = t.high_mul(&alpha_f, &q);
    let denom_minus_one = t.op("add", &p_inner, &f_q);
    let recip = one_over_one_plus_x(t, &denom_minus_one);
    let six = t.c(i64::from(accum_bits));
    let num_scaled = t.rounding_divide(&num, &six);
    let a = t.high_mul(&z_pow, &log_2);
    let b = t.high_mul(&num_scaled, &recip);
    let sum = t.op("add", &a, &b);
    t.saturating_shl(&sum, i64::from(accum_bits - INPUT_BITS))
}

/// gemmlowp's `one_over_one_plus_x_for_x_in_0_1` on a tensor of Q0.31 values in [0, 1).
fn one_over_one_plus_x(t: &mut Ints, a: &Value) -> Value {
    // RoundingHalfSum(a, 1): (a + 2^31) / 2 = (a >> 1) + 2^30.
    let one = t.c(1);
    let half_a = t.shr(a, &one);
    let quarter = t.c(1 << 30);
    let half_denominator = t.op("add", &half_a, &quarter);
    let c48 = t.c(1_515_870_810);
    let c32 = t.c(-1_010_580_540);
    let one_q2 = t.c(1 << 29);
    let product = t.high_mul(&half_denominator, &c32);
    let mut x = t.op("add", &c48, &product);
    for _ in 0..3 {
        let times_x = t.high_mul(&half_denominator, &x);
        let one_minus = t.op("sub", &one_q2, &times_x);
        let correction = t.high_mul(&x, &one_minus);
        let correction = t.saturating_shl(&correction, 2);
        x = t.op("add", &x, &correction);
    }
    t.saturating_shl(&x, 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// exp(0) (Q0.31, one unit short of 1) in Q12 rounds to 1.0, 2^19; the row sum of a row of
    /// one element is then 1.0, whose log is 0 within 2^-20.
    #[test]
    fn a_single_element_row() {
        assert_eq!(rescale_down(i32::MAX, ACCUMULATION_BITS), 1 << 19);
        assert!(fixed_point::log_x_ge_1(1 << 19, ACCUMULATION_BITS, INPUT_BITS).abs() < 1 << 6);
    }
}

//! gemmlowp's fixed-point arithmetic and TFLite's multiplier helpers, bit for bit: what TFLite
//! Micro's integer kernels compute, evaluated at compile time to build their tables (softmax's
//! exp, the int8 activations' lookup tables).
//!
//! A gemmlowp `FixedPoint<int32_t, k>` is an i32 `raw` meaning `raw / 2^(31 - k)`; functions take
//! `k` as `integer_bits`. Arithmetic wraps where the C++ relies on two's complement.

/// `SaturatingRoundingDoublingHighMul`: round(a * b / 2^31), saturating MIN * MIN.
pub(crate) fn doubling_high_mul(a: i32, b: i32) -> i32 {
    if a == i32::MIN && b == i32::MIN {
        return i32::MAX;
    }
    let ab = i64::from(a) * i64::from(b);
    let nudge = if ab >= 0 { 1i64 << 30 } else { 1 - (1i64 << 30) };
    // i64 `/` truncates towards zero, as C++ does.
    ((ab + nudge) / (1i64 << 31)) as i32
}

/// The int16 `SaturatingRoundingDoublingHighMul`: round(a * b / 2^15), saturating MIN * MIN.
pub(crate) fn doubling_high_mul_16(a: i16, b: i16) -> i16 {
    if a == i16::MIN && b == i16::MIN {
        return i16::MAX;
    }
    let ab = i32::from(a) * i32::from(b);
    let nudge = if ab >= 0 { 1 << 14 } else { 1 - (1 << 14) };
    ((ab + nudge) / (1 << 15)) as i16
}

/// `RoundingDivideByPOT`: x / 2^exponent rounded half away from zero (an exponent above 31,
/// undefined in C, divides by 2^31).
pub(crate) fn rounding_divide_by_pot(x: i32, exponent: u32) -> i32 {
    if exponent == 0 {
        return x;
    }
    let exponent = exponent.min(31);
    let mask = ((1i64 << exponent) - 1) as i32;
    let threshold = (mask >> 1) + i32::from(x < 0);
    (x >> exponent) + i32::from((x & mask) > threshold)
}

/// `SaturatingRoundingMultiplyByPOT<exponent>`: a left shift saturating at the i32 range, or a
/// rounding right shift.
pub(crate) fn multiply_by_pot(x: i32, exponent: i32) -> i32 {
    if exponent >= 0 {
        (i64::from(x) << exponent.min(32)).clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32
    } else {
        rounding_divide_by_pot(x, exponent.unsigned_abs())
    }
}

/// `Rescale<to_bits>` of a `FixedPoint<int32_t, from_bits>`.
fn rescale(raw: i32, from_bits: i32, to_bits: i32) -> i32 {
    multiply_by_pot(raw, from_bits - to_bits)
}

/// `RoundingHalfSum`: (a + b) / 2 rounded half away from zero.
fn rounding_half_sum(a: i32, b: i32) -> i32 {
    let sum = i64::from(a) + i64::from(b);
    ((sum + if sum >= 0 { 1 } else { -1 }) / 2) as i32
}

/// TFLite's `MultiplyByQuantizedMultiplier` (double rounding): `x · 2^max(shift, 0)`, the
/// doubling high product with `multiplier`, then a rounding right shift by `max(-shift, 0)`.
pub(crate) fn multiply_by_quantized_multiplier(x: i32, multiplier: i32, shift: i32) -> i32 {
    let left = x.wrapping_mul(1i32.wrapping_shl(shift.max(0) as u32));
    rounding_divide_by_pot(doubling_high_mul(left, multiplier), (-shift).max(0) as u32)
}

/// `exp_on_interval_between_negative_one_quarter_and_0_excl` on a Q0.31 raw value: a 4th-order
/// Taylor expansion of exp around -1/8, result in Q0.31.
fn exp_on_quarter_interval(a: i32) -> i32 {
    const EXP_MINUS_ONE_EIGHTH: i32 = 1895147668;
    const ONE_THIRD: i32 = 715827883;
    let x = a.wrapping_add(1 << 28);
    let x2 = doubling_high_mul(x, x);
    let x3 = doubling_high_mul(x2, x);
    let x4 = doubling_high_mul(x2, x2);
    let x4_over_4 = rounding_divide_by_pot(x4, 2);
    let cubic = doubling_high_mul(x4_over_4.wrapping_add(x3), ONE_THIRD).wrapping_add(x2);
    let poly = rounding_divide_by_pot(cubic, 1);
    EXP_MINUS_ONE_EIGHTH.wrapping_add(doubling_high_mul(EXP_MINUS_ONE_EIGHTH, x.wrapping_add(poly)))
}

/// `exp_on_negative_values` of a `FixedPoint<int32_t, integer_bits>`, result in Q0.31. Like
/// upstream it is total: positive inputs give the same (meaningless) bits as the C++.
pub(crate) fn exp_on_negative_values(a: i32, integer_bits: i32) -> i32 {
    let fractional_bits = 31 - integer_bits;
    let one_quarter = 1i32 << (fractional_bits - 2);
    let a_mod_quarter_minus_quarter = (a & (one_quarter - 1)) - one_quarter;
    let mut result = exp_on_quarter_interval(rescale(a_mod_quarter_minus_quarter, integer_bits, 0));
    let remainder = a_mod_quarter_minus_quarter.wrapping_sub(a);
    // exp(-2^e) in Q0.31 for e = -2..=4, applied for each set bit of the remainder that the
    // input's integer bits can hold.
    const BARREL: [(i32, i32); 7] =
        [(-2, 1672461947), (-1, 1302514674), (0, 790015084), (1, 290630308), (2, 39332535), (3, 720401), (4, 242)];
    for (exponent, multiplier) in BARREL {
        if integer_bits > exponent && remainder & (1i32 << (fractional_bits + exponent)) != 0 {
            result = doubling_high_mul(result, multiplier);
        }
    }
    if integer_bits > 5 && a < -(1i32 << (36 - integer_bits)) {
        result = 0;
    }
    if a == 0 { i32::MAX } else { result }
}

/// The Newton-Raphson reciprocal both sigmoid helpers share: `x ≈ 1 / half_denominator` in
/// Q2.29, `half_denominator = (a + 1) / 2` in Q0.31.
fn newton_reciprocal(half_denominator: i32) -> i32 {
    const FORTY_EIGHT_SEVENTEENTHS: i32 = 1515870810; // Q2.29
    const MINUS_THIRTY_TWO_SEVENTEENTHS: i32 = -1010580540;
    const ONE_Q2: i32 = 1 << 29;
    let mut x =
        FORTY_EIGHT_SEVENTEENTHS.wrapping_add(doubling_high_mul(half_denominator, MINUS_THIRTY_TWO_SEVENTEENTHS));
    for _ in 0..3 {
        let half_denominator_times_x = doubling_high_mul(half_denominator, x);
        let one_minus = ONE_Q2.wrapping_sub(half_denominator_times_x);
        x = x.wrapping_add(rescale(doubling_high_mul(x, one_minus), 4, 2));
    }
    x
}

/// TFLite's `GetReciprocal(x, 31, &shift)` for `x > 0`: `1 / x` as a Q0.31 multiplier of
/// [1/2, 1] and the number of bits of `x` above 1.0 (`x ≈ 2^shift / multiplier`).
pub(crate) fn reciprocal(x: i32) -> (i32, i32) {
    let headroom_plus_one = (x as u32).leading_zeros();
    let shift = 31 - headroom_plus_one as i32;
    let shifted_sum_minus_one = ((x as u32) << headroom_plus_one).wrapping_sub(1 << 31) as i32;
    (one_over_one_plus_x(shifted_sum_minus_one), shift)
}

/// `one_over_one_plus_x_for_x_in_0_1`: 1 / (1 + a) for a Q0.31 `a` in [0, 1], in Q0.31.
pub(crate) fn one_over_one_plus_x(a: i32) -> i32 {
    let x = newton_reciprocal(rounding_half_sum(a, i32::MAX));
    // ExactMulByPot<-1> reads the Q2.29 raw as Q1.30; Rescale<0> doubles it, saturating.
    rescale(x, 1, 0)
}

/// TFLite's `log_x_for_x_greater_than_or_equal_to_1<output_bits>` of a
/// `FixedPoint<int32_t, input_bits>` `z ≥ 1`: ln(z) in Q`output_bits`, as TFLite computes it
/// (log2 from the headroom, refined by a rational approximation around the fourth root of 2).
/// The constants and every step are TFLite's; [`LOG_CONSTANTS`] names them for the TOSA version
/// (int8 LOG_SOFTMAX), which computes the same on tensors; this scalar one is its reference.
#[cfg(test)]
pub(crate) fn log_x_ge_1(z: i32, input_bits: i32, output_bits: i32) -> i32 {
    let [log_2, sqrt_sqrt_half, sqrt_half, one_quarter, alpha_n, alpha_d, alpha_i, alpha_f] = LOG_CONSTANTS;
    let accum_bits = output_bits + 1;
    let shifted_quarter = rescale(one_quarter, 0, accum_bits);
    let z_a_headroom_plus_1 = (z as u32).leading_zeros() as i32;
    let r_a_tmp = multiply_by_pot(z, z_a_headroom_plus_1 - 1);
    let r_a = multiply_by_pot(doubling_high_mul(r_a_tmp, sqrt_half), 1);
    let z_a_pow_2_adj =
        saturating_add(multiply_by_pot(input_bits - z_a_headroom_plus_1, 31 - accum_bits), shifted_quarter);
    let z_b = doubling_high_mul(z, sqrt_half);
    let z_b_headroom = (z_b as u32).leading_zeros() as i32 - 1;
    let r_b = multiply_by_pot(z, z_b_headroom);
    let z_b_pow_2_adj = saturating_add(multiply_by_pot(input_bits - z_b_headroom, 31 - accum_bits), -shifted_quarter);
    let r = r_a.min(r_b);
    let z_pow_2_adj = z_a_pow_2_adj.max(z_b_pow_2_adj);
    let p = rounding_half_sum(r, sqrt_sqrt_half);
    let q = r.wrapping_sub(sqrt_sqrt_half);
    let q = q.wrapping_add(q);
    let common_sq = doubling_high_mul(q, q);
    let num = doubling_high_mul(q, r).wrapping_add(doubling_high_mul(doubling_high_mul(q, common_sq), alpha_n));
    let inner = alpha_i.wrapping_add(q).wrapping_add(doubling_high_mul(alpha_d, common_sq));
    let denom_minus_one = doubling_high_mul(p, inner).wrapping_add(doubling_high_mul(alpha_f, q));
    let recip_denom = one_over_one_plus_x(denom_minus_one);
    let num_scaled = rescale(num, 0, accum_bits);
    let sum = doubling_high_mul(z_pow_2_adj, log_2).wrapping_add(doubling_high_mul(num_scaled, recip_denom));
    rescale(sum, accum_bits, output_bits)
}

/// The Q0.31 constants of [`log_x_ge_1`]: ln 2, 2^-1/4, 2^-1/2, 1/4, and the rational
/// approximation's alpha_n, alpha_d, alpha_i, alpha_f.
pub(crate) const LOG_CONSTANTS: [i32; 8] =
    [1488522236, 1805811301, 1518500250, 536870912, 117049297, 127690142, 1057819769, 638450708];

/// `SaturatingAddNonGemmlowp`: a + b saturated to the i32 range.
#[cfg(test)]
fn saturating_add(a: i32, b: i32) -> i32 {
    a.saturating_add(b)
}

/// `one_minus_x_over_one_plus_x_for_x_in_0_1`: (1 - a) / (1 + a) for a Q0.31 `a`, in Q0.31.
fn one_minus_x_over_one_plus_x(a: i32) -> i32 {
    let x = newton_reciprocal(rounding_half_sum(a, i32::MAX));
    rescale(x.wrapping_sub(1 << 29), 2, 0)
}

/// gemmlowp's `logistic` of a `FixedPoint<int32_t, integer_bits>`, in Q0.31.
pub(crate) fn logistic(a: i32, integer_bits: i32) -> i32 {
    if a == 0 {
        return 1 << 30;
    }
    let abs = if a > 0 { a } else { a.wrapping_neg() };
    let positive = one_over_one_plus_x(exp_on_negative_values(abs.wrapping_neg(), integer_bits));
    if a > 0 { positive } else { i32::MAX.wrapping_sub(positive) }
}

/// gemmlowp's `tanh` of a `FixedPoint<int32_t, integer_bits>`, in Q0.31.
pub(crate) fn tanh(a: i32, integer_bits: i32) -> i32 {
    if a == 0 {
        return 0;
    }
    let negative = if a < 0 { a } else { a.wrapping_neg() };
    // neg_tanh_on_negative_values: ExactMulByPot<1> reads the raw with one more integer bit.
    let t = one_minus_x_over_one_plus_x(exp_on_negative_values(negative, integer_bits + 1));
    if a < 0 { t.wrapping_neg() } else { t }
}

/// TFLite's `QuantizeMultiplier`: `d = m · 2^shift / 2^31` with `m` in [2^30, 2^31) (0 for 0),
/// `shift` the exponent (positive for a left shift).
pub(crate) fn quantize_multiplier(d: f64) -> (i32, i32) {
    if d == 0.0 {
        return (0, 0);
    }
    let (q, mut shift) = crate::tflite::quant::frexp(d);
    let mut q_fixed = (q * (1u64 << 31) as f64).round() as i64;
    if q_fixed == 1i64 << 31 {
        q_fixed /= 2;
        shift += 1;
    }
    if shift < -31 {
        return (0, 0);
    }
    (q_fixed as i32, shift)
}

/// TFLite's `CalculateInputRadius`: the largest input magnitude, after `left_shift`, whose
/// rescaled value stays below the fixed-point range of `integer_bits` integer bits.
pub(crate) fn input_radius(integer_bits: i32, left_shift: i32) -> i32 {
    let max = ((1i64 << integer_bits) - 1) as f64 * (1i64 << (31 - integer_bits)) as f64 / 2f64.powi(left_shift);
    max.floor() as i32
}

/// TFLite's `sigmoid_table_uint16` (kernels/internal/common.h): sigmoid(i / 24) in 0.16 fixed
/// point, which TFLite's int16 `Logistic` and `Tanh` (and its LSTM's gates) interpolate. It is
/// data, not a formula: 44 entries are one above round(65536·sigmoid(i/24)), so bit-exactness
/// with TFLite Micro needs these very numbers.
pub const SIGMOID_TABLE: [u16; 256] = [
    32768, 33451, 34133, 34813, 35493, 36169, 36843, 37513, 38180, 38841, 39498, 40149, 40794, 41432, 42064, 42688,
    43304, 43912, 44511, 45102, 45683, 46255, 46817, 47369, 47911, 48443, 48964, 49475, 49975, 50464, 50942, 51409,
    51865, 52311, 52745, 53169, 53581, 53983, 54374, 54755, 55125, 55485, 55834, 56174, 56503, 56823, 57133, 57433,
    57724, 58007, 58280, 58544, 58800, 59048, 59288, 59519, 59743, 59959, 60168, 60370, 60565, 60753, 60935, 61110,
    61279, 61441, 61599, 61750, 61896, 62036, 62172, 62302, 62428, 62549, 62666, 62778, 62886, 62990, 63090, 63186,
    63279, 63368, 63454, 63536, 63615, 63691, 63765, 63835, 63903, 63968, 64030, 64090, 64148, 64204, 64257, 64308,
    64357, 64405, 64450, 64494, 64536, 64576, 64614, 64652, 64687, 64721, 64754, 64786, 64816, 64845, 64873, 64900,
    64926, 64950, 64974, 64997, 65019, 65039, 65060, 65079, 65097, 65115, 65132, 65149, 65164, 65179, 65194, 65208,
    65221, 65234, 65246, 65258, 65269, 65280, 65291, 65301, 65310, 65319, 65328, 65337, 65345, 65352, 65360, 65367,
    65374, 65381, 65387, 65393, 65399, 65404, 65410, 65415, 65420, 65425, 65429, 65433, 65438, 65442, 65445, 65449,
    65453, 65456, 65459, 65462, 65465, 65468, 65471, 65474, 65476, 65479, 65481, 65483, 65485, 65488, 65489, 65491,
    65493, 65495, 65497, 65498, 65500, 65501, 65503, 65504, 65505, 65507, 65508, 65509, 65510, 65511, 65512, 65513,
    65514, 65515, 65516, 65517, 65517, 65518, 65519, 65520, 65520, 65521, 65522, 65522, 65523, 65523, 65524, 65524,
    65525, 65525, 65526, 65526, 65526, 65527, 65527, 65528, 65528, 65528, 65529, 65529, 65529, 65529, 65530, 65530,
    65530, 65530, 65531, 65531, 65531, 65531, 65531, 65532, 65532, 65532, 65532, 65532, 65532, 65533, 65533, 65533,
    65533, 65533, 65533, 65533, 65533, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65535,
];

#[cfg(test)]
mod tests {
    use super::*;

    const Q31: f64 = 2147483648.0;

    #[test]
    fn rounding() {
        assert_eq!(rounding_divide_by_pot(5, 1), 3);
        assert_eq!(rounding_divide_by_pot(-5, 1), -3);
        assert_eq!(rounding_divide_by_pot(-6, 2), -2);
        assert_eq!(rounding_divide_by_pot(7, 0), 7);
        assert_eq!(multiply_by_pot(1 << 30, 1), i32::MAX);
        assert_eq!(multiply_by_pot(-(1 << 30), 2), i32::MIN);
        assert_eq!(multiply_by_pot(12, -2), 3);
        assert_eq!(doubling_high_mul(1 << 30, 1 << 30), 1 << 29);
        assert_eq!(doubling_high_mul(i32::MIN, i32::MIN), i32::MAX);
        assert_eq!(doubling_high_mul_16(i16::MIN, i16::MIN), i16::MAX);
        assert_eq!(doubling_high_mul_16(1 << 14, -(1 << 14)), -(1 << 13));
        assert_eq!(rounding_half_sum(3, 4), 4);
        assert_eq!(rounding_half_sum(-3, -4), -4);
        // 100 · 0.75 with the multiplier 0.75 · 2^31, no shift; 100 · 3 = 100 · 0.75 · 2^2.
        assert_eq!(multiply_by_quantized_multiplier(100, 3 << 29, 0), 75);
        assert_eq!(multiply_by_quantized_multiplier(100, 3 << 29, 2), 300);
        assert_eq!(multiply_by_quantized_multiplier(100, 3 << 29, -3), 9);
    }

    #[test]
    fn functions_approximate_their_real_values() {
        for k in [0, 3, 4, 5] {
            for real in [-7.5f64, -3.0, -1.0, -0.3, -0.01, 0.02, 0.4, 1.0, 2.5, 7.9] {
                if real.abs() >= f64::from(1 << k) {
                    continue;
                }
                let raw = (real * 2f64.powi(31 - k)).round() as i32;
                if real < 0.0 {
                    let exp = f64::from(exp_on_negative_values(raw, k)) / Q31;
                    assert!((exp - real.exp()).abs() < 1e-6, "exp({real}) Q{k}: {exp}");
                }
                let sigmoid = f64::from(logistic(raw, k)) / Q31;
                assert!((sigmoid - 1.0 / (1.0 + (-real).exp())).abs() < 1e-6, "logistic({real}) Q{k}: {sigmoid}");
                let t = f64::from(tanh(raw, k)) / Q31;
                assert!((t - real.tanh()).abs() < 1e-6, "tanh({real}) Q{k}: {t}");
            }
        }
        assert_eq!(logistic(0, 4), 1 << 30);
        assert_eq!(tanh(0, 4), 0);
        assert_eq!(exp_on_negative_values(0, 4), i32::MAX);
        // Odd symmetry is exact: tanh(-x) = -tanh(x), logistic(-x) = 1 - logistic(x).
        assert_eq!(tanh(-12345678, 4), -tanh(12345678, 4));
        assert_eq!(logistic(-12345678, 4), i32::MAX - logistic(12345678, 4));
        // ln z for z ≥ 1 in Q12, to Q5: within 2^-20 of the real logarithm.
        for real in [1.0f64, 1.0001, 1.5, 2.0, std::f64::consts::E, 10.0, 100.5, 1234.0, 4095.9] {
            let z = (real * f64::from(1 << 19)).round() as i32;
            let log = f64::from(log_x_ge_1(z, 12, 5)) / f64::from(1 << 26);
            assert!((log - real.ln()).abs() < 2f64.powi(-20), "ln({real}): {log}");
        }
        // 1/x = multiplier · 2^-shift / 2^31: 1 (2^31 - 1, 0: one unit short of 1), 3, 255.
        assert_eq!(reciprocal(1), (i32::MAX, 0));
        for x in [2, 3, 7, 100, 255, 1 << 20] {
            let (multiplier, shift) = reciprocal(x);
            let real = f64::from(multiplier) / Q31 / f64::from(1 << shift);
            assert!((real * f64::from(x) - 1.0).abs() < 1e-8, "1/{x}: {multiplier} >> {shift}");
            assert!(multiplier >= 1 << 30, "1/{x}: the multiplier is in [1/2, 1]");
        }
    }

    #[test]
    fn multipliers_and_radius() {
        assert_eq!(quantize_multiplier(0.5), (1 << 30, 0));
        assert_eq!(quantize_multiplier(3.0), (3 << 29, 2));
        assert_eq!(quantize_multiplier(0.0), (0, 0));
        // TFLite's int8 LOGISTIC at input scale 1/16: 2^27 / 16 = 2^23 = 0.5 · 2^24.
        let (m, shift) = quantize_multiplier(f64::from(1u32 << 27) / 16.0);
        assert_eq!((m, shift), (1 << 30, 24));
        // 15 · 2^27 / 2^24 = 120: inputs beyond ±120 steps of 1/16 (±7.5) saturate.
        assert_eq!(input_radius(4, shift), 120);
    }
}

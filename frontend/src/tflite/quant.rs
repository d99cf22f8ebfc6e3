//! Fixed-point multipliers as TFLite Micro and TOSA's `rescale` take them.

/// `scale` as a 32-bit multiplier and a right shift (TOSA `rescale` with `scale32`): `scale ≈
/// multiplier · 2^-shift`, the multiplier in [2^30, 2^31) (TFLite's QuantizeMultiplier: frexp,
/// the mantissa rounded half away from zero to 31 bits). A shift above 62 moves into the
/// multiplier; a scale of 0 is (0, 2).
pub fn multiplier32(scale: f64) -> (i32, i8) {
    multiplier(scale, 31)
}

/// The same with a 16-bit multiplier (`rescale` without `scale32`), as TFLite Micro shortens the
/// 32-bit one for 64-bit accumulators (its MultiplyByQuantizedMultiplier on int64): the upper 16
/// bits rounded, saturating at `0x7fff`, the shift 16 smaller.
pub fn multiplier16(scale: f64) -> (i32, i8) {
    let (m, s) = multiplier32(scale);
    (if m < 0x7fff_0000 { (m + (1 << 15)) >> 16 } else { 0x7fff }, s - 16)
}

fn multiplier(scale: f64, bits: i32) -> (i32, i8) {
    if scale == 0.0 || !scale.is_finite() {
        return (0, 2);
    }
    let (mantissa, exponent) = frexp(scale);
    let one = (1i64 << bits) as f64;
    let mut m = (mantissa * one).round() as i64;
    let mut exponent = exponent;
    if m == 1i64 << bits {
        m /= 2;
        exponent += 1;
    }
    let mut shift = bits - exponent;
    if shift > 62 {
        m >>= (shift - 62).min(bits);
        shift = 62;
    }
    if shift < 2 {
        // Scales of 2^29 and more: no TFLite model has them; saturate.
        return (((1i64 << bits) - 1) as i32, 2);
    }
    (m as i32, shift as i8)
}

/// `value = mantissa · 2^exponent`, the mantissa in [0.5, 1) (C's frexp; 0, infinities and NaN
/// come back as they are, with exponent 0).
pub(crate) fn frexp(value: f64) -> (f64, i32) {
    if value == 0.0 || !value.is_finite() {
        return (value, 0);
    }
    let bits = value.to_bits();
    let exponent = ((bits >> 52) & 0x7ff) as i32;
    if exponent == 0 {
        // Subnormal: scale up first.
        let (m, e) = frexp(value * f64::powi(2.0, 64));
        return (m, e - 64);
    }
    let mantissa = f64::from_bits((bits & !(0x7ffu64 << 52)) | (1022u64 << 52));
    (mantissa, exponent - 1022)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn multipliers() {
        // 0.5 = 2^30 · 2^-31; 1.0 = 2^30 · 2^-30; 0.75 = 3 · 2^29 · 2^-31.
        assert_eq!(multiplier32(0.5), (1 << 30, 31));
        assert_eq!(multiplier32(1.0), (1 << 30, 30));
        assert_eq!(multiplier32(0.75), (3 << 29, 31));
        // Rounds to 2^31: halved, one shift less.
        assert_eq!(multiplier32(1.0 - 1e-12), (1 << 30, 30));
        assert_eq!(multiplier16(0.5), (1 << 14, 15));
        // 0x7fff_8000 · 2^-31 rounds up past 16 bits: saturates, as TFLite Micro does.
        assert_eq!(multiplier16(f64::from(0x7fff_8000u32) / 2f64.powi(31)), (0x7fff, 15));
        assert_eq!(multiplier32(0.0), (0, 2));
        // Tiny scales keep shift 62 and shrink the multiplier.
        assert_eq!(multiplier32(2f64.powi(-40)), (1 << 22, 62));
        assert_eq!(frexp(8.0), (0.5, 4));
    }
}

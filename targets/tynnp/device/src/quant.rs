//! The arithmetic every int8 output stage shares (targets/tynnp/docs/isa.md, section 5): TOSA's
//! `apply_scale_32`, `reciprocal_scale` for average pooling, and the output stage itself.

/// TOSA `apply_scale_32`: `(value · multiplier + round) >> shift` in 64 bits, `round` being half
/// of the last bit kept, moved by `±2^30` for double rounding when the shift exceeds 31. `None`
/// when the operands break the contract (`multiplier < 0`, `shift` outside 2..=62, or a result
/// that does not fit in 32 bits).
pub fn apply_scale_32(value: i32, multiplier: i32, shift: i32, double_round: bool) -> Option<i32> {
    if multiplier < 0 || !(2..=62).contains(&shift) {
        return None;
    }
    let mut round = 1i64 << (shift - 1);
    if double_round && shift > 31 {
        round += if value >= 0 { 1 << 30 } else { -(1 << 30) };
    }
    let result = (i64::from(value) * i64::from(multiplier) + round) >> shift;
    i32::try_from(result).ok()
}

/// TOSA `reciprocal_scale(count)`: the multiplier and shift that divide by `count` (> 0).
pub fn reciprocal_scale(count: u32) -> (i32, i32) {
    debug_assert!(count > 0);
    let k = 32 - (count - 1).leading_zeros() as i32;
    let numerator = ((1i64 << 30) + 1) << k;
    ((numerator / i64::from(count)) as i32, 30 + k)
}

/// An output stage: per-channel (or per-tensor) scale, rounding, zero point and clamp — or raw
/// int32 accumulators.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutputStage {
    /// One multiplier per channel, or one for all.
    pub multipliers: Vec<i32>,
    /// One shift per channel, or one for all.
    pub shifts: Vec<i8>,
    /// TOSA's DOUBLE_ROUND rather than SINGLE_ROUND.
    pub double_round: bool,
    /// Write the int32 accumulators unchanged.
    pub raw: bool,
    /// Added after scaling.
    pub output_zp: i32,
    /// Lower clamp bound (within int8).
    pub min: i32,
    /// Upper clamp bound (within int8).
    pub max: i32,
}

impl OutputStage {
    /// Bytes per output element.
    pub fn element_bytes(&self) -> usize {
        if self.raw { 4 } else { 1 }
    }

    /// The output value of accumulator `acc` in `channel`; `None` if the scale is out of contract.
    pub fn apply(&self, acc: i32, channel: usize) -> Option<i32> {
        if self.raw {
            return Some(acc);
        }
        let pick = |n: usize| if n == 1 { 0 } else { channel };
        let multiplier = *self.multipliers.get(pick(self.multipliers.len()))?;
        let shift = i32::from(*self.shifts.get(pick(self.shifts.len()))?);
        let scaled = apply_scale_32(acc, multiplier, shift, self.double_round)?;
        Some(scaled.saturating_add(self.output_zp).clamp(self.min, self.max))
    }

    /// Writes `value` as output element `index` of `out`.
    pub fn store(&self, out: &mut [u8], index: usize, value: i32) {
        if self.raw {
            out[index * 4..index * 4 + 4].copy_from_slice(&value.to_le_bytes());
        } else {
            out[index] = value as i8 as u8;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn apply_scale_rounds_half_up_and_double_rounds_by_sign() {
        // 100 · 2^30 >> 31 = 50; 3 · 2^30 >> 31 = 1.5 -> 2 (round half up); -3 -> -1.5 -> -1.
        assert_eq!(apply_scale_32(100, 1 << 30, 31, false), Some(50));
        assert_eq!(apply_scale_32(3, 1 << 30, 31, false), Some(2));
        assert_eq!(apply_scale_32(-3, 1 << 30, 31, false), Some(-1));
        // Double rounding only moves results when shift > 31: 3 · (2^31 - 1) / 2^32 = 1.4999...;
        // single rounding gives 1, double rounding adds another quarter: 2.
        assert_eq!(apply_scale_32(3, i32::MAX, 32, false), Some(1));
        assert_eq!(apply_scale_32(3, i32::MAX, 32, true), Some(2));
        // -1 · 2^30 with shift 32: single (-2^30 + 2^31) >> 32 = 0; double (-2^30 + 2^31 - 2^30) >> 32 = 0.
        assert_eq!(apply_scale_32(-1, 1 << 30, 32, true), Some(0));
        // A value where they differ: 2^30 + 1 at multiplier 2^30, shift 32 ->
        // single: (2^60 + 2^30 + 2^31) >> 32 = 2^28 + 0 (0.75 rounds down in the low part);
        // exact: (2^60 + 2^30)/2^32 = 2^28 + 0.25, +0.5 = 0.75 -> 2^28; double: + 0.25 more -> 1.0 -> 2^28 + 1.
        assert_eq!(apply_scale_32((1 << 30) + 1, 1 << 30, 32, false), Some(1 << 28));
        assert_eq!(apply_scale_32((1 << 30) + 1, 1 << 30, 32, true), Some((1 << 28) + 1));
        assert_eq!(apply_scale_32(1, -1, 31, false), None);
        assert_eq!(apply_scale_32(1, 1, 1, false), None);
        assert_eq!(apply_scale_32(1, 1, 63, false), None);
        assert_eq!(apply_scale_32(i32::MAX, i32::MAX, 2, false), None);
    }

    #[test]
    fn reciprocal_scale_divides() {
        // count 9: k = 4, multiplier = ((2^30 + 1) << 4) / 9, shift 34.
        assert_eq!(reciprocal_scale(9), (((((1i64 << 30) + 1) << 4) / 9) as i32, 34));
        assert_eq!(reciprocal_scale(1), (((1 << 30) + 1), 30));
        for count in 1..=100u32 {
            let (m, s) = reciprocal_scale(count);
            for sum in [-5000i32, -1, 0, 7, 12345] {
                let q = apply_scale_32(sum, m, s, false).unwrap();
                let exact = f64::from(sum) / f64::from(count);
                assert!((f64::from(q) - exact).abs() <= 0.5 + 1e-4, "{sum}/{count} -> {q}");
            }
        }
    }

    #[test]
    fn output_stage_per_channel_and_clamp() {
        let stage = OutputStage {
            multipliers: vec![1 << 30, 1 << 29],
            shifts: vec![31, 31],
            double_round: true,
            raw: false,
            output_zp: -10,
            min: -128,
            max: 20,
        };
        assert_eq!(stage.apply(100, 0), Some(20)); // 50 - 10 = 40 -> clamped to 20
        assert_eq!(stage.apply(100, 1), Some(15)); // 25 - 10
        assert_eq!(stage.apply(-1000, 1), Some(-128)); // -250 - 10 -> -128
        let mut out = [0u8; 2];
        stage.store(&mut out, 1, -3);
        assert_eq!(out, [0, 0xfd]);
    }
}

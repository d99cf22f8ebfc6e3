//! Pooling (`NPU_OP_POOL`) of 8-bit feature maps: the maximum or the average of each window
//! (`POOLING_MODE_MAX`, `POOLING_MODE_AVERAGE`), of the IFM less its zero point, scaled by the
//! global `NPU_SET_OFM_SCALE` (an average is the window's sum times the scale: Vela programs
//! `1 / window` as a 32-bit multiplier and shift), plus the OFM zero point, clamped.
//!
//! A lookup-table activation maps the result as an elementwise operation's does.
//!
//! Rounding (`round_mode` of `NPU_SET_OFM_PRECISION`): `ROUND_MODE_DBL` as a convolution's;
//! `ROUND_MODE_NATURAL` rounds the exact product half up; `ROUND_MODE_TRUNCATE` toward zero.
//! An average with the scale 1 (Vela's for padded windows, whose element counts differ) is the
//! hardware's own division by the count of the window's elements inside the IFM, rounded half
//! away from zero.

use crate::{
    activation::Activation,
    error::EthosUError,
    feature_map::Which,
    machine::{Machine, OutputStage},
    registers::Operation,
};

/// `acc · multiplier / 2^shift` rounded as `mode` says (a register's `round_mode`).
pub fn scale(acc: i64, multiplier: u32, shift: u32, mode: u64) -> i64 {
    let product = i128::from(acc) * i128::from(multiplier);
    match mode {
        0 => crate::conv::scale_dbl(acc, multiplier, shift),
        2 if shift > 0 => ((product + (1 << (shift - 1))) >> shift) as i64,
        1 if shift > 0 => (product / (1i128 << shift)) as i64,
        _ => product as i64,
    }
}

impl Machine {
    pub(crate) fn pool(&mut self, op: &Operation) -> Result<(), EthosUError> {
        let (ifm, ofm) = (op.feature_map(Which::Ifm)?, op.feature_map(Which::Ofm)?);
        // The mode is the operation's own parameter.
        let mode = match op.command.field("pooling_mode").map(|f| f.value(op.param, 0)) {
            Some(mode @ 0..=2) => mode,
            _ => return Err(op.unsupported("this pooling mode")),
        };
        if mode == 2 {
            return self.reduce_sum(op);
        }
        let rounding = op.register("NPU_SET_OFM_PRECISION", "round_mode")?;
        let (shift, multiplier) =
            (op.register("NPU_SET_OFM_SCALE", "shift")?, op.register("NPU_SET_OFM_SCALE", "scale")?);
        let ofm_shape = [
            op.register("NPU_SET_OFM_HEIGHT_M1", "height_m1")? + 1,
            op.register("NPU_SET_OFM_WIDTH_M1", "width_m1")? + 1,
            op.register("NPU_SET_OFM_DEPTH_M1", "depth_m1")? + 1,
        ];
        let [kw, kh] = op.kernel()?;
        let [sx, sy] = op.stride()?;
        let padding = op.padding()?;
        let [top, left, bottom, right] = padding;
        let ih = ((ofm_shape[0] - 1) * sy + kh).saturating_sub(top + bottom);
        let iw = ((ofm_shape[1] - 1) * sx + kw).saturating_sub(left + right);
        let depth = ofm_shape[2];
        self.fits(op, &ofm, ofm_shape, "the OFM")?;
        let input = self.ifm_values(op, &ifm, [ih, iw, depth])?;
        let ifm_zero = ifm.zero();
        let stage = OutputStage::of(op, &ofm)?;
        let activation = self.activation(op)?;
        let mut out = Vec::with_capacity((ofm_shape[0] * ofm_shape[1] * depth) as usize);
        for oy in 0..ofm_shape[0] as i64 {
            for ox in 0..ofm_shape[1] as i64 {
                for c in 0..depth as usize {
                    let (mut acc, mut count): (Option<i64>, i64) = (None, 0);
                    for ky in 0..kh as i64 {
                        let y = oy * sy as i64 - top as i64 + ky;
                        for kx in 0..kw as i64 {
                            let x = ox * sx as i64 - left as i64 + kx;
                            if y < 0 || y >= ih as i64 || x < 0 || x >= iw as i64 {
                                continue;
                            }
                            let v = input[((y * iw as i64 + x) as usize) * depth as usize + c] - ifm_zero;
                            count += 1;
                            acc = Some(match (mode, acc) {
                                (0, Some(a)) => a.max(v),
                                (_, Some(a)) => a + v,
                                (_, None) => v,
                            });
                        }
                    }
                    let acc = acc.ok_or_else(|| op.error("a window lies wholly in the padding".into()))?;
                    // An average scaled by 1 is the hardware's own: the sum over the window's
                    // elements inside the IFM divided by their count, rounded as the mode says.
                    let value = if mode == 1 && (multiplier, shift) == (1, 0) {
                        average(acc, count)
                    } else {
                        scale(acc, multiplier as u32, shift as u32, rounding)
                    };
                    out.push(Activation::finish(activation.as_ref(), &stage, value));
                }
            }
        }
        self.store_feature_map(op, &ofm, ofm_shape, &out, "the OFM")
    }
}

/// The hardware's average `sum / count`, rounded half away from zero as TFLite's average pool
/// rounds, whatever the rounding mode says (Vela sets ROUND_MODE_NATURAL; found on Vela's
/// streams: every padded average pool of the sweep is exact this way, and not rounded half up).
fn average(sum: i64, count: i64) -> i64 {
    if sum >= 0 { (sum + count / 2) / count } else { (sum - count / 2) / count }
}

impl Machine {
    /// `POOLING_MODE_REDUCE_SUM`: each pixel's IFM channels (less the zero point) summed into the
    /// OFM's one channel, scaled and through the output stage.
    fn reduce_sum(&mut self, op: &Operation) -> Result<(), EthosUError> {
        let (ifm, ofm) = (op.feature_map(Which::Ifm)?, op.feature_map(Which::Ofm)?);
        let [h, w] = [
            op.register("NPU_SET_OFM_HEIGHT_M1", "height_m1")? + 1,
            op.register("NPU_SET_OFM_WIDTH_M1", "width_m1")? + 1,
        ];
        let depth = op.register("NPU_SET_IFM_DEPTH_M1", "depth_m1")? + 1;
        let input = self.feature_map_values(op, &ifm, [h, w, depth], "the IFM")?;
        let (shift, multiplier) =
            (op.register("NPU_SET_OFM_SCALE", "shift")?, op.register("NPU_SET_OFM_SCALE", "scale")?);
        let rounding = op.register("NPU_SET_OFM_PRECISION", "round_mode")?;
        let stage = OutputStage::of(op, &ofm)?;
        let zero = ifm.zero();
        let out: Vec<i64> = input
            .chunks(depth as usize)
            .map(|pixel| {
                stage.apply(scale(pixel.iter().map(|v| v - zero).sum(), multiplier as u32, shift as u32, rounding))
            })
            .collect();
        self.store_feature_map(op, &ofm, [h, w, 1], &out, "the OFM")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn natural_rounding_rounds_half_up_and_truncation_toward_zero() {
        // 1/125 as Vela programs it for KWS's 5x25 average pool: 2199023256 / 2^38.
        let (m, s) = (2_199_023_256, 38);
        assert_eq!(scale(250, m, s, 2), 2);
        assert_eq!(scale(-250, m, s, 2), -2);
        assert_eq!(scale(312, m, s, 2), 2); // 2.496
        assert_eq!(scale(313, m, s, 2), 3); // 2.504
        assert_eq!(scale(-313, m, s, 2), -3);
        // Exact halves round up: 3 / 2 = 1.5 → 2, -3 / 2 → -1.
        assert_eq!(scale(3, 1, 1, 2), 2);
        assert_eq!(scale(-3, 1, 1, 2), -1);
        assert_eq!(scale(-3, 1, 1, 1), -1);
        assert_eq!(scale(7, 1, 0, 2), 7);
        // The hardware's averages: 7 / 2 = 3.5 → 4, -7 / 2 = -3.5 → -4, 5 / 4 → 1, -5 / 4 → -1.
        assert_eq!((average(7, 2), average(-7, 2), average(5, 4), average(-5, 4)), (4, -4, 1, -1));
    }
}

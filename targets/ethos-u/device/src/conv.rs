//! Convolutions and depthwise convolutions (`NPU_OP_CONV`, `NPU_OP_DEPTHWISE`) of 8- and 16-bit
//! IFMs into 8-, 16- or 32-bit OFMs: for each OFM element, the sum over the kernel of `(ifm - ifm zero point) · weight` (an
//! IFM element the kernel reaches outside the IFM, in its padding, adds nothing), plus its
//! channel's bias, scaled by its channel's multiplier and shift, plus the OFM zero point, clamped
//! to the activation's bounds, then through a lookup table, TANH or SIGMOID if the activation is one.
//!
//! The IFM extends as far as the kernel reaches less the padding: `(ofm - 1) · stride +
//! (kernel - 1) · dilation + 1 - before - after` rows and columns. Scaling with `ROUND_MODE_DBL`
//! is TFLite's `MultiplyByQuantizedMultiplier`: the product rounded to its high 32 bits, then a
//! rounding right shift by the rest (a record's shift counts both, 31 + TFLite's right shift);
//! `ROUND_MODE_NATURAL` (Vela's choice for 16-bit maps) rounds the exact product half up, which
//! is TFLite's 64-bit `MultiplyByQuantizedMultiplier` of the int16 kernels.

use crate::{
    activation::Activation,
    error::EthosUError,
    feature_map::Which,
    machine::{Machine, OutputStage},
    registers::Operation,
    scales,
    weights::{self, Layout},
};

/// `round(a · b / 2^shift)`, halves rounded up (toward +∞), exactly: TFLite's
/// `SaturatingRoundingDoublingHighMul` is this with `shift` 31 (short of its one saturating case).
fn rounding_high_mul(a: i64, b: i64, shift: u32) -> i64 {
    let product = i128::from(a) * i128::from(b);
    if shift == 0 {
        return product as i64;
    }
    ((product + (1i128 << (shift - 1))) >> shift) as i64
}

/// TFLite's `RoundingDivideByPOT`: `x / 2^shift` rounded half away from zero.
fn rounding_shift(x: i64, shift: u32) -> i64 {
    if shift == 0 {
        return x;
    }
    let mask = (1i64 << shift) - 1;
    let remainder = x & mask;
    let threshold = (mask >> 1) + i64::from(x < 0);
    (x >> shift) + i64::from(remainder > threshold)
}

/// `acc` scaled by `multiplier` and the record's `shift` (`ROUND_MODE_DBL`): TFLite's
/// `MultiplyByQuantizedMultiplier`, whose shift counts 31 for the high multiplication: up to 31,
/// one rounding (a left shift then the high multiplication); past it, the high multiplication
/// then a rounding right shift by the rest, rounded again.
pub fn scale_dbl(acc: i64, multiplier: u32, shift: u32) -> i64 {
    let multiplier = i64::from(multiplier);
    if shift <= 31 {
        rounding_high_mul(acc, multiplier, shift)
    } else {
        rounding_shift(rounding_high_mul(acc, multiplier, 31), shift - 31)
    }
}

/// The most weights one operation may have in the model: 4 Mi, where the largest layer of the
/// tested models has 64 Ki and a 3x3 convolution of 512 channels in and out 2.4 Mi (a shape
/// beyond it is a corrupted stream far more likely than a layer).
const MAX_WEIGHTS: u64 = 1 << 22;

impl Machine {
    pub(crate) fn convolution(&mut self, op: &Operation) -> Result<(), EthosUError> {
        let depthwise = op.command.name == "NPU_OP_DEPTHWISE";
        let (ifm, ofm) = (op.feature_map(Which::Ifm)?, op.feature_map(Which::Ofm)?);
        // A 32-bit OFM takes the scaled accumulator whole (Vela's MEAN sums into one with the
        // scale (1, 0), then multiplies elementwise).
        for (map, what, most) in [(&ifm, "an IFM", 2), (&ofm, "an OFM", 4)] {
            if map.element_bytes > most {
                return Err(op.unsupported(&format!("{what} of {} bytes an element", map.element_bytes)));
            }
        }
        let rounding = op.register("NPU_SET_OFM_PRECISION", "round_mode")?;
        if op.register("NPU_SET_OFM_PRECISION", "scale_mode")? != 0 {
            return Err(op.unsupported("a convolution scaled globally"));
        }
        // A clamp, or a lookup table, TANH or SIGMOID (Vela's fused TANH and LOGISTIC).
        let activation = self.activation(op)?;
        let ofm_shape = [
            op.register("NPU_SET_OFM_HEIGHT_M1", "height_m1")? + 1,
            op.register("NPU_SET_OFM_WIDTH_M1", "width_m1")? + 1,
            op.register("NPU_SET_OFM_DEPTH_M1", "depth_m1")? + 1,
        ];
        let ifm_depth = if depthwise { 1 } else { op.register("NPU_SET_IFM_DEPTH_M1", "depth_m1")? + 1 };
        let [kw, kh] = op.kernel()?;
        let [sx, sy] = op.stride()?;
        let [dx, dy] = op.dilation()?;
        let [top, left, bottom, right] = op.padding()?;
        let extent = |out: u64, stride: u64, kernel: u64, dilation: u64, before: u64, after: u64| {
            ((out - 1) * stride + (kernel - 1) * dilation + 1).saturating_sub(before + after)
        };
        let ifm_shape = [extent(ofm_shape[0], sy, kh, dy, top, bottom), extent(ofm_shape[1], sx, kw, dx, left, right)];
        self.fits(op, &ofm, ofm_shape, "the OFM")?;
        let ifm_depth_read = if depthwise { ofm_shape[2] } else { ifm_depth };
        let weights = [ofm_shape[2], kh, kw, ifm_depth].into_iter().try_fold(1u64, u64::checked_mul);
        if weights.is_none_or(|n| n > MAX_WEIGHTS) {
            return Err(op.unsupported(&format!(
                "a {kh}x{kw} kernel of {ifm_depth} IFM and {} OFM channels (more than {MAX_WEIGHTS} weights)",
                ofm_shape[2]
            )));
        }
        // The weights in OHWI and each channel's scale record, from the streams in the order
        // the NPU reads them: one core's, or the two cores' of a dual-core configuration
        // (`PARALLEL_MODE_DUAL_CORE_DEPTH`), which take the OFM channels in turn (core 0 the even
        // ones) with their own weight and scale streams and half the OFM block each.
        let cores = if op.registers.get("NPU_SET_PARALLEL_MODE", "parallel_mode") == Some(1) { 2 } else { 1 };
        let (kh, kw, ic) = (kh as usize, kw as usize, ifm_depth as usize);
        let depth = ofm_shape[2] as usize;
        let mut filter = vec![0i64; depth * kh * kw * ic];
        let mut scales = vec![scales::Scale { bias: 0, multiplier: 0, shift: 0 }; depth];
        let ofm_block_depth = op.ofm_block()?[2] as usize;
        for core in 0..cores.min(depth) {
            let suffix = if core == 0 { "" } else { "1" };
            let channels = (depth - core).div_ceil(cores);
            let layout = Layout {
                ifm_ublock: 8,
                ofm_ublock: if self.config.macs == 32 { 4 } else { 8 },
                ofm_depth: channels,
                kernel: [kh, kw],
                ifm_depth: ic,
                ofm_block_depth: (ofm_block_depth + cores - 1 - core) / cores,
                depthwise,
                part_kernel: op.register("NPU_SET_KERNEL_STRIDE", "weight_order")? == 1,
                ifm_bits: 8 * ifm.element_bytes as usize,
                decomposition: [8 / dy as usize, 8 / dx as usize],
            };
            let order = layout.order();
            let stream = self.read(
                op,
                op.register("NPU_SET_WEIGHT_REGION", "region")?,
                op.register(&format!("NPU_SET_WEIGHT{suffix}_BASE"), "addr")?,
                op.register(&format!("NPU_SET_WEIGHT{suffix}_LENGTH"), "length")?,
                "the weight stream",
            )?;
            let decoded = weights::decode(stream, order.len()).map_err(|e| op.error(e.to_string()))?;
            if decoded.len() != order.len() {
                return Err(op.error(format!(
                    "core {core}'s weight stream holds {} weights, the operation reads {}",
                    decoded.len(),
                    order.len()
                )));
            }
            for (place, &w) in order.iter().zip(&decoded) {
                if let Some([o, y, x, i]) = *place {
                    filter[(((core + cores * o) * kh + y) * kw + x) * ic + i] = i64::from(w);
                }
            }
            let records = self.read(
                op,
                op.register("NPU_SET_SCALE_REGION", "region")?,
                op.register(&format!("NPU_SET_SCALE{suffix}_BASE"), "addr")?,
                op.register(&format!("NPU_SET_SCALE{suffix}_LENGTH"), "length")?,
                "the scale stream",
            )?;
            let records = scales::read(records, channels).map_err(|e| op.error(e.to_string()))?;
            for (j, record) in records.into_iter().enumerate() {
                scales[core + cores * j] = record;
            }
        }
        let ifm_zero = ifm.zero();
        let stage = OutputStage::of(op, &ofm)?;
        let input = self.ifm_values(op, &ifm, [ifm_shape[0], ifm_shape[1], ifm_depth_read])?;
        let [ih, iw] = ifm_shape.map(|d| d as i64);
        let depth = if depthwise { ofm_shape[2] as usize } else { ic };
        let mut out = Vec::with_capacity((ofm_shape[0] * ofm_shape[1] * ofm_shape[2]) as usize);
        for oy in 0..ofm_shape[0] as i64 {
            for ox in 0..ofm_shape[1] as i64 {
                for oc in 0..ofm_shape[2] as usize {
                    let mut acc = scales[oc].bias;
                    for ky in 0..kh {
                        let y = oy * sy as i64 - top as i64 + ky as i64 * dy as i64;
                        for kx in 0..kw {
                            let x = ox * sx as i64 - left as i64 + kx as i64 * dx as i64;
                            if y < 0 || y >= ih || x < 0 || x >= iw {
                                continue;
                            }
                            let pixel = ((y * iw + x) as usize) * depth;
                            let weights = &filter[((oc * kh + ky) * kw + kx) * ic..][..ic];
                            if depthwise {
                                acc += (input[pixel + oc] - ifm_zero) * weights[0];
                            } else {
                                acc += input[pixel..pixel + ic]
                                    .iter()
                                    .zip(weights)
                                    .map(|(v, w)| (v - ifm_zero) * w)
                                    .sum::<i64>();
                            }
                        }
                    }
                    let scaled = crate::pool::scale(acc, scales[oc].multiplier, scales[oc].shift, rounding);
                    out.push(Activation::finish(activation.as_ref(), &stage, scaled));
                }
            }
        }
        self.store_feature_map(op, &ofm, [ofm_shape[0], ofm_shape[1], ofm_shape[2]], &out, "the OFM")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dbl_scaling_is_tflites_multiply_by_quantized_multiplier() {
        // 2^30 at shift 31 halves (0.5 · x), rounding half away from zero at the high mul.
        assert_eq!(scale_dbl(10, 1 << 30, 31), 5);
        assert_eq!(scale_dbl(11, 1 << 30, 31), 6);
        assert_eq!(scale_dbl(-11, 1 << 30, 31), -5);
        // A further right shift of 2 rounds again: 100 · 0.5 / 4 = 12.5 → 13; -12.5 → -13.
        assert_eq!(scale_dbl(100, 1 << 30, 33), 13);
        assert_eq!(scale_dbl(-100, 1 << 30, 33), -13);
        // Shift 30: a left shift of 1 first (x · 2 · 0.5).
        assert_eq!(scale_dbl(7, 1 << 30, 30), 7);
        // Shift 0: the product itself, however wide.
        assert_eq!(scale_dbl(71, 1, 0), 71);
        assert_eq!(scale_dbl(1 << 40, 3, 0), 3 << 40);
        // Halves round up at the high multiplication: -0.5 → 0, -1.5 → -1.
        assert_eq!(rounding_high_mul(-1, 1 << 30, 31), 0);
        assert_eq!(rounding_high_mul(-3, 1 << 30, 31), -1);
        assert_eq!(rounding_shift(-6, 2), -2);
        assert_eq!(rounding_shift(5, 1), 3);
    }
}

//! Elementwise operations (`NPU_OP_ELEMENTWISE`) of the IFM and the IFM2 (which may broadcast
//! along height, width or depth, or be the scalar `NPU_SET_IFM2_SCALAR`), each less its zero
//! point, or of the IFM alone (`LRELU`, `ABS`, `CLZ`).
//!
//! `ADD` and `SUB` scale the operands to a common scale first. With `IFM_SCALE_MODE_OPA_32` or
//! `OPB_32` they follow TFLite's kernels: both shifted left by 20 bits (8-bit maps; 15 for
//! 16-bit), the operand with the smaller scale multiplied by `NPU_SET_OPA_SCALE` (a 32-bit
//! multiplier and its shift, the left shift folded in), the other halved. With
//! `IFM_SCALE_MODE_OPA_OPB_16` each operand is multiplied by its 16-bit scale (`OPA_SCALE`,
//! `OPB_SCALE`). `MUL` multiplies the operands (of 32-bit maps, scaled by the shift alone: see
//! [`product_scale`]). Then the result is scaled by `NPU_SET_OFM_SCALE`
//! as a convolution's accumulator is (`pool::scale`, by the rounding mode), and goes through the
//! output stage. `MIN` and `MAX` choose between the operands (less their zero points) and scale
//! the choice. `SHR` shifts the IFM right by the IFM2, rounding as the rounding mode says;
//! `SHL` left; `CLZ` counts the leading zeros of the 32-bit IFM; `LRELU` scales the negative
//! elements alone (see [`leaky_relu`]).
//!
//! A lookup-table activation (`ACTIVATION_FUNCTION_TABLE_n`) maps the result, clamped to the
//! clip range, to an entry of table `n` in the internal SRAM (where a DMA copied it).

use crate::{
    activation::Activation,
    error::EthosUError,
    feature_map::Which,
    machine::{Machine, OutputStage},
    pool::scale,
    registers::Operation,
};

/// The left shift of an operand of `bytes`-byte elements before it is scaled.
fn input_shift(bytes: u64) -> u32 {
    match bytes {
        1 => 20,
        2 => 15,
        _ => 0,
    }
}

/// A `MUL` of 32-bit maps scales its 64-bit product by `NPU_SET_OFM_SCALE`'s shift alone: the
/// multiplier does not apply. Vela programs `(2^30, 31)` for gemmlowp's fixed-point product
/// `round(a · b / 2^31)` and `(2^30, 30)` for twice it in its int8 softmax, `(1, 33)` for
/// `a · b / 2^33` in its squared difference, and, in its int16 softmax, the IFM2 a Q0.31
/// multiplier `m` and the scale of `m · 2^3` (`(m, 28)`) for TFLite's
/// `MultiplyByQuantizedMultiplier(x, m, 3)`, which is `round(x · m / 2^28)` only if the multiplier
/// is left out. Found on Vela's streams: with it the MLPerf Tiny models' softmaxes, the sweep's
/// squared differences and its int16 softmaxes are bit-exact with TFLite Micro.
fn product_scale(ifm_bytes: u64, multiplier: u64) -> u32 {
    if ifm_bytes == 4 { 1 } else { multiplier as u32 }
}

/// The elementwise modes (`elementwise_mode`).
const MUL: u64 = 0;
const ADD: u64 = 1;
const SUB: u64 = 2;
const MIN: u64 = 3;
const MAX: u64 = 4;
const LRELU: u64 = 5;
const ABS: u64 = 6;
const CLZ: u64 = 7;
const SHR: u64 = 8;
const SHL: u64 = 9;

impl Machine {
    pub(crate) fn elementwise(&mut self, op: &Operation) -> Result<(), EthosUError> {
        let mode = op.command.field("elementwise_mode").map_or(u64::MAX, |f| f.value(op.param, 0));
        if ![MUL, ADD, SUB, MIN, MAX, LRELU, ABS, CLZ, SHR, SHL].contains(&mode) {
            return Err(op.unsupported(&format!("elementwise mode {}", op.command.fields[0].show(mode))));
        }
        let unary = op.unary_elementwise();
        let (ifm, ofm) = (op.feature_map(Which::Ifm)?, op.feature_map(Which::Ofm)?);
        let shape = [
            op.register("NPU_SET_OFM_HEIGHT_M1", "height_m1")? + 1,
            op.register("NPU_SET_OFM_WIDTH_M1", "width_m1")? + 1,
            op.register("NPU_SET_OFM_DEPTH_M1", "depth_m1")? + 1,
        ];
        self.fits(op, &ofm, shape, "the OFM")?;
        let a = self.feature_map_values(op, &ifm, shape, "the IFM")?;
        let (b, zero_b) = if unary { (vec![0; a.len()], 0) } else { self.second_operand(op, shape)? };
        let reversed = !unary && op.register("NPU_SET_IFM2_BROADCAST", "operand_order")? == 1;
        let scale_mode = op.register("NPU_SET_IFM_PRECISION", "scale_mode")?;
        // Only addition and subtraction scale their operands.
        let scales_operands = mode == ADD || mode == SUB;
        let (opa, opa_shift, opb) = match scales_operands {
            true => (
                op.register("NPU_SET_OPA_SCALE", "scale")?,
                op.register("NPU_SET_OPA_SCALE", "shift")?,
                op.register("NPU_SET_OPB_SCALE", "scale")?,
            ),
            false => (0, 0, 0),
        };
        let (ofm_multiplier, ofm_shift) =
            (op.register("NPU_SET_OFM_SCALE", "scale")?, op.register("NPU_SET_OFM_SCALE", "shift")?);
        let rounding = op.register("NPU_SET_OFM_PRECISION", "round_mode")?;
        let stage = OutputStage::of(op, &ofm)?;
        let activation = self.activation(op)?;
        let shift = input_shift(ifm.element_bytes);
        let zero_a = ifm.zero();
        let mut out = Vec::with_capacity(a.len());
        for (&a, &b) in a.iter().zip(&b) {
            let (first, second) = if reversed { (b - zero_b, a - zero_a) } else { (a - zero_a, b - zero_b) };
            let value = match mode {
                ADD | SUB => {
                    let (first, second) = match scale_mode {
                        0 => (first * opa as i64, second * opb as i64),
                        1 | 2 => {
                            let rescale = |x: i64| scale(x << shift, opa as u32, opa_shift as u32 + shift, rounding);
                            let half = |x: i64| x << shift.saturating_sub(1);
                            if scale_mode == 1 {
                                (rescale(first), half(second))
                            } else {
                                (half(first), rescale(second))
                            }
                        }
                        _ => return Err(op.unsupported("this IFM scale mode")),
                    };
                    let combined = if mode == SUB { first - second } else { first + second };
                    scale(combined, ofm_multiplier as u32, ofm_shift as u32, rounding)
                }
                MIN | MAX => {
                    let chosen = if mode == MIN { first.min(second) } else { first.max(second) };
                    scale(chosen, ofm_multiplier as u32, ofm_shift as u32, rounding)
                }
                MUL => {
                    scale(first * second, product_scale(ifm.element_bytes, ofm_multiplier), ofm_shift as u32, rounding)
                }
                ABS => scale(first.abs(), ofm_multiplier as u32, ofm_shift as u32, rounding),
                LRELU => leaky_relu(first, ofm_multiplier as u32, ofm_shift as u32, rounding),
                CLZ => i64::from((first as u32).leading_zeros()),
                SHR => {
                    let by = second.clamp(0, 63) as u32;
                    match rounding {
                        2 if by > 0 => (first + (1 << (by - 1))) >> by,
                        1 if by > 0 => first / (1 << by),
                        0 if by > 0 => scale(first, 1, by, 0),
                        _ => first >> by,
                    }
                }
                _ => first << second.clamp(0, 63),
            };
            out.push(Activation::finish(activation.as_ref(), &stage, value));
        }
        self.store_feature_map(op, &ofm, shape, &out, "the OFM")
    }

    /// The IFM2's elements for an OFM of `shape` (broadcast where the IFM2 is one element along a
    /// dimension, or the scalar), and its zero point.
    fn second_operand(&self, op: &Operation, [h, w, c]: [u64; 3]) -> Result<(Vec<i64>, i64), EthosUError> {
        let flag = |field: &str| op.register("NPU_SET_IFM2_BROADCAST", field);
        if flag("broadcast_constant")? == 1 {
            // A scalar: only the IFM2's precision and zero point apply.
            let signed = op.register("NPU_SET_IFM2_PRECISION", "activation_type")? == 1;
            let raw = op.register("NPU_SET_IFM2_SCALAR", "scalar")?;
            let zero = op.register("NPU_SET_IFM2_ZERO_POINT", "zero_point")?;
            let as_number = |v: u64| if signed { i64::from(v as u16 as i16) } else { v as i64 };
            return Ok((vec![as_number(raw); (h * w * c) as usize], as_number(zero)));
        }
        let ifm2 = op.feature_map(Which::Ifm2)?;
        let dims = [(flag("broadcast_h")?, h), (flag("broadcast_w")?, w), (flag("broadcast_c")?, c)]
            .map(|(b, d)| if b == 1 { 1 } else { d });
        let values = self.feature_map_values(op, &ifm2, dims, "the IFM2")?;
        let mut out = Vec::with_capacity((h * w * c) as usize);
        for y in 0..h {
            for x in 0..w {
                for z in 0..c {
                    let (y, x, z) = (y.min(dims[0] - 1), x.min(dims[1] - 1), z.min(dims[2] - 1));
                    out.push(values[((y * dims[1] + x) * dims[2] + z) as usize]);
                }
            }
        }
        Ok((out, ifm2.zero()))
    }
}

/// `LRELU` of `x` (the IFM less its zero point): `x` where it is not negative, else `x` scaled by
/// `NPU_SET_OFM_SCALE`, which Vela programs with the slope alpha (it uses the mode only where the
/// IFM and OFM are quantized alike): TFLite's `LeakyRelu`.
fn leaky_relu(x: i64, multiplier: u32, shift: u32, rounding: u64) -> i64 {
    if x >= 0 { x } else { scale(x, multiplier, shift, rounding) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_product_of_32_bit_maps_takes_the_shift_alone() {
        // (2^30, 31): round(a · b / 2^31), 0.5 · 0.5 = 0.25 in Q0.31; (2^30, 30): twice it.
        let product =
            |a: i64, b: i64, multiplier: u64, shift: u32| scale(a * b, product_scale(4, multiplier), shift, 0);
        assert_eq!(product(1 << 30, 1 << 30, 1 << 30, 31), 1 << 29);
        assert_eq!(product(1 << 30, 1 << 30, 1 << 30, 30), 1 << 30);
        // gemmlowp's SaturatingRoundingDoublingHighMul(1524418560, -1010580540).
        let expected = (1_524_418_560i64 * -1_010_580_540 + (1 - (1 << 30))) / (1 << 31);
        assert_eq!(product(1_524_418_560, -1_010_580_540, 1 << 30, 31), expected);
        // TFLite's MultiplyByQuantizedMultiplier(-5029, 1374389535, 3): round(-5029 · 5.12).
        assert_eq!(product(-5029, 1_374_389_535, 1_374_368_640, 28), -25748);
        // Maps of 8 or 16 bits take the multiplier.
        assert_eq!(product_scale(1, 1 << 30), 1 << 30);
        assert_eq!(input_shift(1), 20);
        // LRELU with alpha 0.2 (0.8 · 2^31 at shift 33): negatives scaled (-1000 · 0.2 = -200;
        // -7 · 0.2 rounded twice as TFLite does, -7 · 0.8 = -5.6 → -6, then / 4 = -1.5 → -2), the
        // rest as they are.
        assert_eq!(leaky_relu(-1000, 1_717_986_918, 33, 0), -200);
        assert_eq!(leaky_relu(-7, 1_717_986_918, 33, 0), -2);
        assert_eq!(leaky_relu(1000, 1_717_986_918, 33, 0), 1000);
        assert_eq!(input_shift(4), 0);
    }
}

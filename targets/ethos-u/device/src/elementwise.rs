//! Elementwise operations (`NPU_OP_ELEMENTWISE`) of two operands, the IFM and the IFM2 (or the
//! scalar `NPU_SET_IFM2_SCALAR` with `broadcast_constant`; an IFM2 of height, width or depth one
//! may broadcast), each less its zero point.
//!
//! `ADD` and `SUB` scale the operands to a common scale first, as TFLite's kernels do after
//! shifting them left by 20 bits (8-bit maps; 15 for 16-bit): with `IFM_SCALE_MODE_OPA_32` the
//! IFM by `NPU_SET_OPA_SCALE` (a 32-bit multiplier and its shift, the left shift folded in) and
//! the IFM2 by half the shift (it holds the larger scale), with `IFM_SCALE_MODE_OPB_32` the other
//! way round; then the sum or difference is scaled by `NPU_SET_OFM_SCALE` like a convolution's
//! accumulator. Any other mode or operation is not modelled yet: an error at the operation.

use crate::{
    error::EthosUError,
    feature_map::Which,
    machine::{Machine, OutputStage},
    pool::scale,
    registers::Operation,
};

/// The left shift of an operand of `bytes`-byte elements before it is scaled.
fn input_shift(bytes: u64) -> Option<u32> {
    match bytes {
        1 => Some(20),
        2 => Some(15),
        _ => None,
    }
}

impl Machine {
    pub(crate) fn elementwise(&mut self, op: &Operation) -> Result<(), EthosUError> {
        let mode = op.command.field("elementwise_mode").map_or(u64::MAX, |f| f.value(op.param, 0));
        let subtract = match mode {
            1 => false,
            2 => true,
            _ => return Err(op.unsupported(&format!("elementwise mode {}", op.command.fields[0].show(mode)))),
        };
        let (ifm, ifm2, ofm) = (op.feature_map(Which::Ifm)?, op.feature_map(Which::Ifm2)?, op.feature_map(Which::Ofm)?);
        let broadcast = |field: &str| op.register("NPU_SET_IFM2_BROADCAST", field);
        if broadcast("broadcast_h")?
            + broadcast("broadcast_w")?
            + broadcast("broadcast_c")?
            + broadcast("broadcast_constant")?
            != 0
        {
            return Err(op.unsupported("a broadcast IFM2"));
        }
        if op.register("NPU_SET_ACTIVATION", "activation_function")? != 0 {
            return Err(op.unsupported("an activation other than a clamp"));
        }
        let shape = [
            op.register("NPU_SET_OFM_HEIGHT_M1", "height_m1")? + 1,
            op.register("NPU_SET_OFM_WIDTH_M1", "width_m1")? + 1,
            op.register("NPU_SET_OFM_DEPTH_M1", "depth_m1")? + 1,
        ];
        let shift =
            input_shift(ifm.element_bytes).filter(|_| ifm2.element_bytes == ifm.element_bytes).ok_or_else(|| {
                op.unsupported(&format!(
                    "adding maps of {} and {} bytes an element",
                    ifm.element_bytes, ifm2.element_bytes
                ))
            })?;
        let a = self.feature_map_values(op, &ifm, shape, "the IFM")?;
        let b = self.feature_map_values(op, &ifm2, shape, "the IFM2")?;
        // IFM2_OPERAND_ORDER_ORDER_A: the IFM2 is the first operand.
        let reversed = op.register("NPU_SET_IFM2_BROADCAST", "operand_order")? == 1;
        let scaled_first = match op.register("NPU_SET_IFM_PRECISION", "scale_mode")? {
            1 => true,
            2 => false,
            _ => return Err(op.unsupported("IFM_SCALE_MODE_OPA_OPB_16")),
        };
        let (multiplier, opa_shift) =
            (op.register("NPU_SET_OPA_SCALE", "scale")?, op.register("NPU_SET_OPA_SCALE", "shift")?);
        let (ofm_multiplier, ofm_shift) =
            (op.register("NPU_SET_OFM_SCALE", "scale")?, op.register("NPU_SET_OFM_SCALE", "shift")?);
        let rounding = op.register("NPU_SET_OFM_PRECISION", "round_mode")?;
        let stage = OutputStage::of(op, &ofm)?;
        let (zero_a, zero_b) = (ifm.zero(), ifm2.zero());
        let out: Vec<i64> = a
            .iter()
            .zip(&b)
            .map(|(&a, &b)| {
                let (first, second) = if reversed { (b - zero_b, a - zero_a) } else { (a - zero_a, b - zero_b) };
                let rescale = |x: i64| scale(x << shift, multiplier as u32, opa_shift as u32 + shift, rounding);
                let (first, second) = if scaled_first {
                    (rescale(first), second << (shift - 1))
                } else {
                    (first << (shift - 1), rescale(second))
                };
                let combined = if subtract { first - second } else { first + second };
                stage.apply(scale(combined, ofm_multiplier as u32, ofm_shift as u32, rounding))
            })
            .collect();
        self.store_feature_map(op, &ofm, shape, &out, "the OFM")
    }
}

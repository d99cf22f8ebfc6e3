//! Helium's fixed-point instructions for two shapes of scalar code `umac-apply-scale-32{helium}`
//! writes a rescale in, so that the rescale of four channels is a handful of instructions:
//!
//! - the doubling high multiply with rounding, `trunci((extsi a * extsi b + 2^30) >> 31)` (i64)
//!   marked `umac.doubling_high` (its operands are never both `i32::MIN`, where the instruction
//!   saturates): `vqrdmulh` (`llvm.arm.mve.vqrdmulh`); its 64-bit ops are not vectorized;
//! - the rounding right shift by `q + 1`, `((x >> q) + 1) >> 1` with the addition `nsw` (it
//!   cannot overflow for `q >= 1`, where `umac-apply-scale-32` writes it; the scalar shifts are
//!   undefined past 31): `vrshl` by `-(q + 1)` (`llvm.arm.mve.vshl.vector`, rounding, not
//!   saturating), which computes `floor((x + 2^q) / 2^(q + 1))` without overflow.

use super::{Builder, Lanes};
use mlir_sys::*;
use std::collections::{HashMap, HashSet};
use umac_dialects::{
    ir::{attribute, constant_int, name, only_user, produced_by},
    text::{attribute_text, str_ref},
    umac::DOUBLING_HIGH_ATTR,
};

/// A shape of scalar code that becomes one Helium instruction.
pub(super) enum Idiom {
    /// `vqrdmulh(a, b)`.
    DoublingHigh { a: MlirValue, b: MlirValue },
    /// `vrshl(x, -(q + 1))`.
    RoundingShift { x: MlirValue, q: MlirValue },
}

/// The idioms of a loop body: by the op computing the result, and the ops only they use (which
/// are not vectorized).
#[derive(Default)]
pub(super) struct Idioms {
    pub roots: HashMap<usize, Idiom>,
    pub interior: HashSet<usize>,
}

impl Idioms {
    /// The idioms among `ops` (a loop body).
    ///
    /// # Safety
    /// The ops must be live.
    pub unsafe fn find(ops: &[MlirOperation]) -> Self {
        let mut idioms = Self::default();
        for &op in ops {
            // SAFETY: the caller's contract.
            let found = unsafe { doubling_high(op).or_else(|| rounding_shift(op)) };
            if let Some((idiom, interior)) = found {
                idioms.roots.insert(op.ptr as usize, idiom);
                idioms.interior.extend(interior.iter().map(|op| op.ptr as usize));
            }
        }
        idioms
    }
}

/// The producer of `value` if it is a `kind` whose result nothing else uses.
///
/// # Safety
/// `value` must be live.
unsafe fn only_for(value: MlirValue, kind: &str) -> Option<MlirOperation> {
    unsafe { only_user(value).and_then(|_| produced_by(value, kind)) }
}

/// `trunci((extsi a * extsi b + 2^30) >> 31)` marked [`DOUBLING_HIGH_ATTR`].
///
/// # Safety
/// `op` must be live.
unsafe fn doubling_high(op: MlirOperation) -> Option<(Idiom, Vec<MlirOperation>)> {
    unsafe {
        if name(op) != "arith.trunci" || attribute(op, DOUBLING_HIGH_ATTR).is_none() {
            return None;
        }
        let shift = only_for(mlirOperationGetOperand(op, 0), "arith.shrsi")?;
        if constant_int(mlirOperationGetOperand(shift, 1)) != Some(31) {
            return None;
        }
        let sum = only_for(mlirOperationGetOperand(shift, 0), "arith.addi")?;
        let (product, rounding) = (mlirOperationGetOperand(sum, 0), mlirOperationGetOperand(sum, 1));
        if constant_int(rounding) != Some(1 << 30) {
            return None;
        }
        let product = only_for(product, "arith.muli")?;
        let a = only_for(mlirOperationGetOperand(product, 0), "arith.extsi")?;
        let b = only_for(mlirOperationGetOperand(product, 1), "arith.extsi")?;
        let (a_value, b_value) = (mlirOperationGetOperand(a, 0), mlirOperationGetOperand(b, 0));
        let is_i32 = |v: MlirValue| {
            let ty = mlirValueGetType(v);
            mlirTypeIsAInteger(ty) && mlirIntegerTypeGetWidth(ty) == 32
        };
        (is_i32(a_value) && is_i32(b_value))
            .then(|| (Idiom::DoublingHigh { a: a_value, b: b_value }, vec![shift, sum, product, a, b]))
    }
}

/// `((x >> q) + 1) >> 1` on i32, the addition `nsw`.
///
/// # Safety
/// `op` must be live.
unsafe fn rounding_shift(op: MlirOperation) -> Option<(Idiom, Vec<MlirOperation>)> {
    unsafe {
        if name(op) != "arith.shrsi" || constant_int(mlirOperationGetOperand(op, 1)) != Some(1) {
            return None;
        }
        let ty = mlirValueGetType(mlirOperationGetResult(op, 0));
        if !mlirTypeIsAInteger(ty) || mlirIntegerTypeGetWidth(ty) != 32 {
            return None;
        }
        let up = only_for(mlirOperationGetOperand(op, 0), "arith.addi")?;
        // Without `nsw`, `x >> q` = i32::MAX (q = 0) would wrap, where vrshl does not.
        let nsw = attribute(up, "overflowFlags")
            .is_some_and(|flags| attribute_text(melior::ir::Attribute::from_raw(flags)).contains("nsw"));
        if constant_int(mlirOperationGetOperand(up, 1)) != Some(1) || !nsw {
            return None;
        }
        let down = only_for(mlirOperationGetOperand(up, 0), "arith.shrsi")?;
        let (x, q) = (mlirOperationGetOperand(down, 0), mlirOperationGetOperand(down, 1));
        Some((Idiom::RoundingShift { x, q }, vec![up, down]))
    }
}

/// The vector computing `idiom` (of `result`, a vector type of four i32), built in front of the
/// op it replaces in the vector loop `lp`.
///
/// # Safety
/// All must be live; the idiom's values are the scalar loop's.
pub(super) unsafe fn emit(
    idiom: &Idiom,
    result: MlirType,
    lanes: &mut Lanes,
    lp: MlirOperation,
    inside: &Builder,
    outside: &Builder,
) -> MlirValue {
    unsafe {
        let call = |intrinsic: &str, operands: &[MlirValue]| {
            let context = inside.context;
            let segments = [operands.len() as i32, 0];
            let attributes = [
                ("intrin", mlirStringAttrGet(context, str_ref(intrinsic))),
                ("op_bundle_sizes", mlirDenseI32ArrayGet(context, 0, std::ptr::null())),
                ("operandSegmentSizes", mlirDenseI32ArrayGet(context, 2, segments.as_ptr())),
            ];
            inside.value("llvm.call_intrinsic", operands, result, &attributes)
        };
        match *idiom {
            Idiom::DoublingHigh { a, b } => {
                let a = lanes.operand(a, lp, inside, outside);
                let b = lanes.operand(b, lp, inside, outside);
                call("llvm.arm.mve.vqrdmulh.v4i32", &[a, b])
            }
            Idiom::RoundingShift { x, q } => {
                let x = lanes.operand(x, lp, inside, outside);
                let q = lanes.operand(q, lp, inside, outside);
                let i32t = mlirIntegerTypeGet(inside.context, 32);
                let minus_one = inside.value("arith.constant", &[], result, &[("value", splat(result, i32t, -1))]);
                let negated = inside.value("arith.subi", &[minus_one, q], result, &[]);
                let flag = |value: i64| {
                    inside.value("arith.constant", &[], i32t, &[("value", mlirIntegerAttrGet(i32t, value))])
                };
                // Not saturating, rounding, signed.
                let (saturate, round, unsigned) = (flag(0), flag(1), flag(0));
                call("llvm.arm.mve.vshl.vector.v4i32.v4i32", &[x, negated, saturate, round, unsigned])
            }
        }
    }
}

/// A dense splat of `value` of the vector type `ty` (elements `element`).
///
/// # Safety
/// The types must be live.
unsafe fn splat(ty: MlirType, element: MlirType, value: i64) -> MlirAttribute {
    unsafe { mlirDenseElementsAttrSplatGet(ty, mlirIntegerAttrGet(element, value)) }
}

//! `umac-apply-scale-32`: a `tosa.apply_scale` (the int32 rescale TFLite models are full of)
//! whose shifts are constants from 32 to 62 becomes 32-bit arithmetic on the two halves of the
//! 64-bit product. Upstream lowers it in 64-bit integers (`tosa-to-arith`), or in 32-bit ones
//! (`use-32-bit`) by a form that handles any shift, with more operations; this form is what a
//! vector CPU runs four lanes at a time (Helium: `vmulh` and `vmul` for the halves).
//!
//! With double rounding the rescale is `r = (v * m + R) >> s`, `R = 2^(s-1) ± 2^30` (the sign of
//! `v`). For `s = 32 + t`, `0 <= t <= 30`, `R` is positive and below `2^62`, so `T = v * m + R`
//! fits in 64 bits and `r = T_hi >> t` (arithmetic), where, with the product's halves `hi`, `lo`
//! (`lo` unsigned) and `R`'s halves `R_hi`, `R_lo`:
//! ```text
//! T_lo = lo + R_lo (mod 2^32)    T_hi = hi + R_hi + (T_lo < lo, unsigned: the carry)
//! R_lo = 0x40000000, | 0x80000000 when (t = 0) differs from (v < 0)
//! R_hi = 0 when t = 0, else 2^(t-1) - (1 when v < 0)
//! ```
//! (`R = 2^31 ± 2^30` for `t = 0`; `2^(t-1) * 2^32 ± 2^30` otherwise, `-2^30` borrowing one
//! from the high half.) Exact for every value and multiplier: the property test
//! `driver/tests/apply_scale.rs` checks it against the 64-bit form on the edge cases, the exact
//! ties and random ones, and every model test runs it. The shifts are read from the op's operand:
//! a scalar `arith.constant`, or, inside a `linalg.generic`, the dense constant its block argument
//! stands for (per-channel rescales). Any other rescale is left to `tosa-to-arith`.

use crate::{
    Error,
    pass::{UmacPass, boxed},
    registry::{PassInfo, PassKind},
};
use melior::ir::OperationRef;
use mlir_sys::*;
use umac_dialects::{
    ir::{attribute, collect, constant_int, constant_value, name, op_name, splice},
    text::attribute_text,
};

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    name: "umac-apply-scale-32",
    summary: "Lower tosa.apply_scale with constant shifts from 32 to 62 to 32-bit arithmetic on the product's halves",
    anchor: "any",
    options: &[],
    kind: PassKind::Pass(|_| boxed(ApplyScale32)),
};

struct ApplyScale32;

/// The shifts the 32-bit form covers: at least 32 (the result is the high half of the sum,
/// shifted), at most 62 (the largest TOSA allows for int32).
const SHIFTS: std::ops::RangeInclusive<i64> = 32..=62;

/// What both forms begin with: constants, the product's halves, the shift and `t = s - 32`, and
/// `v >> 31` (-1 for a negative value: the borrow of `-2^30` from the high half).
const HEAD: &str = "func.func @apply_scale(%v: i32, %m: i32, %s: i8) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c31 = arith.constant 31 : i32
  %c32 = arith.constant 32 : i32
  %half = arith.constant 1073741824 : i32
  %top = arith.constant -2147483648 : i32
  %lo, %hi = arith.mulsi_extended %v, %m : i32
  %s32 = arith.extui %s : i8 to i32
  %t = arith.subi %s32, %c32 : i32
  %borrow = arith.shrsi %v, %c31 : i32
";

/// `R_lo` and `R_hi` when every shift is at least 33 (`t >= 1`, as in every TFLite rescale of a
/// value to a narrower scale): `0x40000000` with `v`'s sign bit, and `2^(t-1)` plus the borrow.
const ROUNDING_33: &str = "  %sign = arith.andi %v, %top : i32
  %r_lo = arith.ori %sign, %half : i32
  %t1 = arith.subi %t, %c1 : i32
  %pow = arith.shli %c1, %t1 : i32
  %r_hi = arith.addi %pow, %borrow : i32
";

/// `R_lo` and `R_hi` for any shift from 32 (`t = 0`: `R = 2^31 ± 2^30`, all in the low half).
const ROUNDING_32: &str = "  %t_zero = arith.cmpi eq, %t, %c0 : i32
  %negative = arith.cmpi slt, %v, %c0 : i32
  %flip = arith.xori %t_zero, %negative : i1
  %flip_bit = arith.select %flip, %top, %c0 : i32
  %r_lo = arith.ori %half, %flip_bit : i32
  %t1 = arith.subi %t, %c1 : i32
  %t1_clamped = arith.maxsi %t1, %c0 : i32
  %pow = arith.shli %c1, %t1_clamped : i32
  %pow_borrowed = arith.addi %pow, %borrow : i32
  %r_hi = arith.select %t_zero, %c0, %pow_borrowed : i32
";

/// What both forms end with: `T = v * m + R` by halves, shifted by `t`.
const TAIL: &str = "  %t_lo = arith.addi %lo, %r_lo : i32
  %carry = arith.cmpi ult, %t_lo, %lo : i32
  %carry32 = arith.extui %carry : i1 to i32
  %hi_r = arith.addi %hi, %r_hi : i32
  %t_hi = arith.addi %hi_r, %carry32 : i32
  %r = arith.shrsi %t_hi, %t : i32
  return %r : i32
}
";

impl UmacPass for ApplyScale32 {
    fn run(&mut self, operation: OperationRef) -> Result<(), Error> {
        for op in collect(operation, |op| op_name(op) == "tosa.apply_scale") {
            // SAFETY: each op is live until it is replaced; replacing one leaves the others alive.
            unsafe {
                let Some(shifts) = covered(op) else { continue };
                let rounding = if shifts.iter().all(|s| *s >= 33) { ROUNDING_33 } else { ROUNDING_32 };
                let arguments: Vec<MlirValue> = (0..3).map(|k| mlirOperationGetOperand(op, k)).collect();
                splice(op, &format!("{HEAD}{rounding}{TAIL}"), &arguments, INFO.name, None)?;
            }
        }
        Ok(())
    }
}

/// The shifts of `op` if the 32-bit form computes it exactly: double rounding, an int32 value
/// and multiplier, an i8 shift, every shift in [`SHIFTS`].
///
/// # Safety
/// `op` must be a live `tosa.apply_scale`.
unsafe fn covered(op: MlirOperation) -> Option<Vec<i64>> {
    unsafe {
        let double = attribute(op, "rounding_mode")
            .is_some_and(|mode| attribute_text(melior::ir::Attribute::from_raw(mode)).contains("DOUBLE_ROUND"));
        let width = |k: isize| {
            let ty = mlirValueGetType(mlirOperationGetOperand(op, k));
            mlirTypeIsAInteger(ty).then(|| mlirIntegerTypeGetWidth(ty))
        };
        if !double || width(0) != Some(32) || width(1) != Some(32) || width(2) != Some(8) {
            return None;
        }
        constants(mlirOperationGetOperand(op, 2)).filter(|s| s.iter().all(|s| SHIFTS.contains(s)))
    }
}

/// Every value `value` can take, if it is a constant: a scalar `arith.constant`, or a block
/// argument of a `linalg.generic` whose input is a dense integer constant.
///
/// # Safety
/// `value` must be live.
unsafe fn constants(value: MlirValue) -> Option<Vec<i64>> {
    unsafe {
        if let Some(constant) = constant_int(value) {
            return Some(vec![constant]);
        }
        if !mlirValueIsABlockArgument(value) {
            return None;
        }
        let block = mlirBlockArgumentGetOwner(value);
        let generic = mlirBlockGetParentOperation(block);
        if generic.ptr.is_null() || name(generic) != "linalg.generic" {
            return None;
        }
        let position = mlirBlockArgumentGetArgNumber(value);
        if position >= mlirOperationGetNumOperands(generic) {
            return None;
        }
        let elements = constant_value(mlirOperationGetOperand(generic, position))?;
        if !mlirAttributeIsADenseIntElements(elements) {
            return None;
        }
        let count = mlirElementsAttrGetNumElements(elements);
        let element = mlirShapedTypeGetElementType(mlirAttributeGetType(elements));
        let bits = mlirIntegerTypeGetWidth(element);
        let read = |i: isize| -> Option<i64> {
            match bits {
                8 => Some(i64::from(mlirDenseElementsAttrGetInt8Value(elements, i))),
                32 => Some(i64::from(mlirDenseElementsAttrGetInt32Value(elements, i))),
                _ => None,
            }
        };
        if mlirDenseElementsAttrIsSplat(elements) {
            return Some(vec![read(0)?]);
        }
        (0..count as isize).map(read).collect()
    }
}

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
//!
//! With `helium` (Arm's vector extension, which has the fixed-point instructions CMSIS-NN
//! rescales with), a rescale whose multipliers are constants other than `i32::MIN` and whose
//! shifts are all at least 33 takes another exact form. With `s = 31 + r` (`r >= 2`) the result is
//! `floor((H + 2^(r-1)) / 2^r)`, where `H = floor((v * m ± 2^30) / 2^31)` (`2^(s-1)` is a
//! multiple of `2^31`, so the two divisions compose), and `H = D - (1 when v < 0)` with
//! `D = floor((v * m + 2^30) / 2^31)`, the doubling high multiply with rounding
//! (`-2^30 = 2^30 - 2^31`). `D` is written in 64-bit integers and marked, for
//! `umac-vectorize-elementwise-loops{helium}` to make it `vqrdmulh` (which saturates only for
//! `i32::MIN * i32::MIN`); the rounding right shift as `((H >> (r - 1)) + 1) >> 1` (`r >= 2`: no
//! overflow), which it makes `vrshl`. `H` fits in 32 bits for every value and such multiplier.
//! As scalar code it costs an instruction or so more than the form above, so it is taken only
//! for the rescale of a depthwise convolution, a pooling or a convolution `umac-im2col` gathers
//! per pixel (found through the generics and reshapes between them), whose channel loops are
//! vectorized; another convolution's rescale follows its dot product, one output at a time.

use crate::{
    Error,
    linalg_kinds::{IM2COL_INPUT_CHANNELS, accumulating_kind, independent_channels},
    options::{OptionKind, OptionSpec, OptionValues},
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
    options: &[OptionSpec {
        name: "helium",
        kind: OptionKind::Bool,
        default: "false",
        help: "rescales with constant multipliers in the form Helium's vqrdmulh and vrshl compute",
    }],
    kind: PassKind::Pass(|options: &OptionValues| boxed(ApplyScale32 { helium: options.bool("helium") })),
};

struct ApplyScale32 {
    helium: bool,
}

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

/// The `helium` form: the doubling high multiply with rounding `D` (64-bit, marked), `H = D +
/// (v >> 31)`, rounded right by `r = s - 31` as `((H >> (s - 32)) + 1) >> 1` (`s - 32 >= 1`: the
/// addition cannot overflow, `nsw`).
const HELIUM: &str = "func.func @apply_scale(%v: i32, %m: i32, %s: i8) -> i32 {
  %c1 = arith.constant 1 : i32
  %c31 = arith.constant 31 : i32
  %c32 = arith.constant 32 : i32
  %half = arith.constant 1073741824 : i64
  %c31_64 = arith.constant 31 : i64
  %v64 = arith.extsi %v : i32 to i64
  %m64 = arith.extsi %m : i32 to i64
  %product = arith.muli %v64, %m64 : i64
  %rounded = arith.addi %product, %half : i64
  %high = arith.shrsi %rounded, %c31_64 : i64
  %doubled = arith.trunci %high {umac.doubling_high} : i64 to i32
  %borrow = arith.shrsi %v, %c31 : i32
  %h = arith.addi %doubled, %borrow : i32
  %s32 = arith.extui %s : i8 to i32
  %r1 = arith.subi %s32, %c32 : i32
  %down = arith.shrsi %h, %r1 : i32
  %up = arith.addi %down, %c1 overflow<nsw> : i32
  %result = arith.shrsi %up, %c1 : i32
  return %result : i32
}
";

impl UmacPass for ApplyScale32 {
    fn run(&mut self, operation: OperationRef) -> Result<(), Error> {
        for op in collect(operation, |op| op_name(op) == "tosa.apply_scale") {
            // SAFETY: each op is live until it is replaced; replacing one leaves the others alive.
            unsafe {
                let Some(shifts) = covered(op) else { continue };
                let arguments: Vec<MlirValue> = (0..3).map(|k| mlirOperationGetOperand(op, k)).collect();
                let never_min =
                    || constants(arguments[1]).is_some_and(|multipliers| !multipliers.contains(&i64::from(i32::MIN)));
                let from_33 = shifts.iter().all(|s| *s >= 33);
                let text = if self.helium && from_33 && never_min() && of_channels_apart(op) {
                    HELIUM.to_string()
                } else {
                    let rounding = if from_33 { ROUNDING_33 } else { ROUNDING_32 };
                    format!("{HEAD}{rounding}{TAIL}")
                };
                splice(op, &text, &arguments, INFO.name, Some(mlirOperationGetLocation(op)))?;
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

/// Whether `op`, an accumulating op of `kind`, is a convolution over fewer input channels than
/// `umac-im2col`'s dot products take ([`IM2COL_INPUT_CHANNELS`]), which it gathers per pixel: its
/// channel loops are vectorized like a depthwise convolution's.
///
/// # Safety
/// `op` must be live.
unsafe fn gathered_per_pixel(op: MlirOperation, kind: &str) -> bool {
    unsafe {
        if !kind.starts_with("conv_2d_nhwc_fhwc") || mlirOperationGetNumOperands(op) < 2 {
            return false;
        }
        let filter = mlirValueGetType(mlirOperationGetOperand(op, 1));
        mlirShapedTypeHasRank(filter)
            && mlirShapedTypeGetRank(filter) == 4
            && (0..IM2COL_INPUT_CHANNELS).contains(&mlirShapedTypeGetDimSize(filter, 3))
    }
}

/// Whether the rescale `op` (in a `linalg.generic`) rescales what a depthwise convolution or a
/// pooling computed: through the generic's inputs, and the generics and reshapes producing them.
///
/// # Safety
/// `op` must be live.
unsafe fn of_channels_apart(op: MlirOperation) -> bool {
    unsafe {
        let generic = mlirOperationGetParentOperation(op);
        let mut pending: Vec<MlirOperation> = vec![generic];
        let mut seen = 0;
        while let Some(op) = pending.pop() {
            seen += 1;
            if op.ptr.is_null() || seen > 16 {
                return false;
            }
            if let Some(kind) = accumulating_kind(&OperationRef::from_raw(op)) {
                if independent_channels(&kind) || gathered_per_pixel(op, &kind) {
                    return true;
                }
                continue;
            }
            let through = matches!(
                name(op).as_str(),
                "linalg.generic" | "tensor.collapse_shape" | "tensor.expand_shape" | "tensor.cast"
            );
            if !through {
                continue;
            }
            for k in 0..mlirOperationGetNumOperands(op) {
                let value = mlirOperationGetOperand(op, k);
                if mlirValueIsAOpResult(value) {
                    pending.push(mlirOpResultGetOwner(value));
                }
            }
        }
        false
    }
}

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
    pass::{UmacPass, boxed, replace_with},
    registry::{PassInfo, PassKind},
};
use melior::ir::OperationRef;
use mlir_sys::*;
use umac_dialects::{
    build::{Attr, Builder, Cmp, Ty, Value},
    ir::{attribute, collect, constant_int, constant_value, name, op_name},
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
/// The common start of both general forms: constants, the product's halves, `t = s - 32` and
/// the borrow (`-1` when `v < 0`).
struct Head {
    c0: Value,
    c1: Value,
    half: Value,
    top: Value,
    lo: Value,
    hi: Value,
    t: Value,
    borrow: Value,
}

/// The general form, with `R`'s halves for shifts from 33 (`from_33`) or from 32.
fn general(b: &mut Builder, from_33: bool) -> Value {
    let (v, m, s) = (b.arg(0), b.arg(1), b.arg(2));
    let [c0, c1, c31, c32, half, top] = [0, 1, 31, 32, 1 << 30, i64::from(i32::MIN)].map(|k| b.constant(Ty::I32, k));
    let halves = b.op("arith.mulsi_extended", &[v, m], &[Ty::I32, Ty::I32], &[]);
    let s32 = b.op1("arith.extui", &[s], Ty::I32, &[]);
    let t = b.op1("arith.subi", &[s32, c32], Ty::I32, &[]);
    let borrow = b.op1("arith.shrsi", &[v, c31], Ty::I32, &[]);
    let head = Head { c0, c1, half, top, lo: halves[0], hi: halves[1], t, borrow };
    let (r_lo, r_hi) = if from_33 { rounding_33(b, &head) } else { rounding_32(b, &head) };
    // What both forms end with: `T = v * m + R` by halves (the low half's carry into the high
    // one), shifted by `t`.
    let t_lo = b.addi(head.lo, r_lo);
    let carry = b.cmpi(Cmp::Ult, t_lo, head.lo);
    let carry32 = b.op1("arith.extui", &[carry], Ty::I32, &[]);
    let hi_r = b.addi(head.hi, r_hi);
    let t_hi = b.addi(hi_r, carry32);
    b.op1("arith.shrsi", &[t_hi, head.t], Ty::I32, &[])
}

/// `R_lo` and `R_hi` when every shift is at least 33 (`t >= 1`, as in every TFLite rescale of a
/// value to a narrower scale): `0x40000000` with `v`'s sign bit, and `2^(t-1)` plus the borrow.
fn rounding_33(b: &mut Builder, h: &Head) -> (Value, Value) {
    let sign = b.andi(b.arg(0), h.top);
    let r_lo = b.op1("arith.ori", &[sign, h.half], Ty::I32, &[]);
    let t1 = b.op1("arith.subi", &[h.t, h.c1], Ty::I32, &[]);
    let pow = b.op1("arith.shli", &[h.c1, t1], Ty::I32, &[]);
    (r_lo, b.addi(pow, h.borrow))
}

/// `R_lo` and `R_hi` for any shift from 32 (`t = 0`: `R = 2^31 ± 2^30`, all in the low half).
fn rounding_32(b: &mut Builder, h: &Head) -> (Value, Value) {
    let t_zero = b.cmpi(Cmp::Eq, h.t, h.c0);
    let negative = b.cmpi(Cmp::Slt, b.arg(0), h.c0);
    let flip = b.op1("arith.xori", &[t_zero, negative], Ty::I1, &[]);
    let flip_bit = b.select(flip, h.top, h.c0);
    let r_lo = b.op1("arith.ori", &[h.half, flip_bit], Ty::I32, &[]);
    let t1 = b.op1("arith.subi", &[h.t, h.c1], Ty::I32, &[]);
    let t1_clamped = b.op1("arith.maxsi", &[t1, h.c0], Ty::I32, &[]);
    let pow = b.op1("arith.shli", &[h.c1, t1_clamped], Ty::I32, &[]);
    let pow_borrowed = b.addi(pow, h.borrow);
    (r_lo, b.select(t_zero, h.c0, pow_borrowed))
}

/// The `helium` form: the doubling high multiply with rounding `D` (64-bit, marked), `H = D +
/// (v >> 31)`, rounded right by `r = s - 31` as `((H >> (s - 32)) + 1) >> 1` (`s - 32 >= 1`: the
/// addition cannot overflow, `nsw`).
fn helium(b: &mut Builder) -> Value {
    let (v, m, s) = (b.arg(0), b.arg(1), b.arg(2));
    let [c1, c31, c32] = [1, 31, 32].map(|k| b.constant(Ty::I32, k));
    let (half, c31_64) = (b.constant(Ty::I64, 1 << 30), b.constant(Ty::I64, 31));
    let v64 = b.op1("arith.extsi", &[v], Ty::I64, &[]);
    let m64 = b.op1("arith.extsi", &[m], Ty::I64, &[]);
    let product = b.muli(v64, m64);
    let rounded = b.addi(product, half);
    let high = b.op1("arith.shrsi", &[rounded, c31_64], Ty::I64, &[]);
    let doubled = b.op1("arith.trunci", &[high], Ty::I32, &[("umac.doubling_high", Attr::Unit)]);
    let borrow = b.op1("arith.shrsi", &[v, c31], Ty::I32, &[]);
    let h = b.addi(doubled, borrow);
    let s32 = b.op1("arith.extui", &[s], Ty::I32, &[]);
    let r1 = b.op1("arith.subi", &[s32, c32], Ty::I32, &[]);
    let down = b.op1("arith.shrsi", &[h, r1], Ty::I32, &[]);
    let up = b.op1("arith.addi", &[down, c1], Ty::I32, &[("overflowFlags", Attr::Parsed("#arith.overflow<nsw>"))]);
    b.op1("arith.shrsi", &[up, c1], Ty::I32, &[])
}

impl UmacPass for ApplyScale32 {
    fn run(&mut self, operation: OperationRef) -> Result<(), Error> {
        for op in collect(operation, |op| op_name(op) == "tosa.apply_scale") {
            // SAFETY: each collected op is live until its own replacement below.
            let form = unsafe {
                let Some(shifts) = covered(op) else { continue };
                let never_min = || {
                    constants(mlirOperationGetOperand(op, 1))
                        .is_some_and(|multipliers| !multipliers.contains(&i64::from(i32::MIN)))
                };
                let from_33 = shifts.iter().all(|s| *s >= 33);
                if self.helium && from_33 && never_min() && of_channels_apart(op) { None } else { Some(from_33) }
            };
            // SAFETY: as above.
            let op = unsafe { OperationRef::from_raw(op) };
            replace_with(op, |b| match form {
                None => vec![helium(b)],
                Some(from_33) => vec![general(b, from_33)],
            })?;
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

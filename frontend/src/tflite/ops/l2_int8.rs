//! int8 L2_NORMALIZATION as TFLite Micro's `reference_integer_ops::L2Normalization` computes it,
//! in TOSA integer ops: per row, `acc = Σ (q - zp)²` in 32 bits; its inverse square root as a
//! multiplier and shift by TFLite's `GetInvSqrtQuantizedMultiplierExp` (normalize by powers of 4,
//! five Newton steps in gemmlowp's Q3.28, × √½); then each `q - zp` through
//! MultiplyByQuantizedMultiplier with that row's multiplier and shift + 7 (the output is scale
//! 1/128, zero point 0, whatever the model says, as in TFLite Micro), saturated to int8.
//!
//! The row-dependent shifts are TOSA shifts by tensors ([`Ints`]: gemmlowp's arithmetic on TOSA
//! i32 tensors).

use super::{Cx, Value, int_ops::Ints};
use crate::tflite::emit::Ty;

/// int8 L2_NORMALIZATION of `x` (int8, zero point `zp`) over its last dimension.
pub(super) fn l2_normalization_int8(cx: &mut Cx, x: &Value, zp: i64) -> Value {
    let rank = x.ty.rank();
    let axis = rank - 1;
    let centred = cx.rescale(x, "i32", &[(1 << 30, 30)], zp, 0, true, true);
    let no_shift = cx.func.scalar("i8", 0);
    let squares = cx.func.op("mul", &[&centred, &centred, &no_shift], "", centred.ty.clone());
    let mut reduced = x.ty.shape.clone();
    reduced[axis] = 1;
    let acc = cx.func.op("reduce_sum", &[&squares], &format!("axis = {axis} : i32"), Ty::new(&reduced, "i32"));
    let mut t = Ints::new(cx, rank);
    // GetInvSqrtQuantizedMultiplierExp(acc, -1): acc < 2^31 needs at most one division by 4.
    let limit = t.c(1 << 29);
    let (one, two) = (t.c(1), t.c(2));
    let large = t.compare("greater_equal", &acc, &limit);
    let quartered = t.shr(&acc, &two);
    let input = t.select(&large, &quartered, &acc);
    let (eleven, twelve) = (t.c(11), t.c(12));
    let shift = t.select(&large, &twelve, &eleven);
    let clz = t.clz(&input);
    let max_left = t.op("sub", &clz, &one);
    let pairs = t.shr(&max_left, &one);
    let pairs = t.op("sub", &pairs, &one);
    let shift = t.op("sub", &shift, &pairs);
    let bits = t.op("add", &pairs, &pairs);
    let input = t.op("logical_left_shift", &input, &bits);
    // Newton in Q3.28: x ← 3/2·x - (input/2)·x³.
    let fixed_input = t.shr(&input, &one);
    let half_input = t.rounding_divide(&fixed_input, &one);
    let half_three = t.c((1 << 28) + (1 << 27));
    let mut estimate = t.c(1 << 28);
    for _ in 0..5 {
        let square = t.high_mul(&estimate, &estimate);
        let cube = t.high_mul(&square, &estimate);
        let cube = t.saturating_shl(&cube, 6);
        let a = t.high_mul(&half_three, &estimate);
        let b = t.high_mul(&half_input, &cube);
        let difference = t.op("sub", &a, &b);
        estimate = t.saturating_shl(&difference, 3);
    }
    let half_sqrt_2 = t.c(1_518_500_250);
    let inverse = t.high_mul(&estimate, &half_sqrt_2);
    // A negative shift moves into the multiplier; the exponent is the shift reversed.
    let zero = t.c(0);
    let negative_shift = t.compare("greater", &zero, &shift);
    let moved = t.op("sub", &zero, &shift);
    let moved = t.op("logical_left_shift", &inverse, &moved);
    let inverse = t.select(&negative_shift, &moved, &inverse);
    let shift = t.select(&negative_shift, &zero, &shift);
    // acc ≤ 1: multiplier INT32_MAX, shift 0.
    let tiny = t.compare("greater_equal", &one, &acc);
    let max = t.c(i64::from(i32::MAX));
    let inverse = t.select(&tiny, &max, &inverse);
    let shift = t.select(&tiny, &zero, &shift);
    // MultiplyByQuantizedMultiplier(q - zp, inverse, -shift + 7).
    let seven = t.c(7);
    let exponent = t.op("sub", &seven, &shift);
    let left = t.op("maximum", &exponent, &zero);
    let right = t.op("sub", &left, &exponent);
    let scaled = t.op("logical_left_shift", &centred, &left);
    let product = t.high_mul(&scaled, &inverse);
    let result = t.rounding_divide(&product, &right);
    let saturated = t.cx.clamp_int(&result, -128, 127);
    t.cx.func.op("cast", &[&saturated], "", x.ty.clone())
}

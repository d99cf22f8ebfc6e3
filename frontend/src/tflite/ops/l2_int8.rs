//! int8 L2_NORMALIZATION as TFLite Micro's `reference_integer_ops::L2Normalization` computes it,
//! in TOSA integer ops: per row, `acc = Σ (q - zp)²` in 32 bits; its inverse square root as a
//! multiplier and shift by TFLite's `GetInvSqrtQuantizedMultiplierExp` (normalize by powers of 4,
//! five Newton steps in gemmlowp's Q3.28, × √½); then each `q - zp` through
//! MultiplyByQuantizedMultiplier with that row's multiplier and shift + 7 (the output is scale
//! 1/128, zero point 0, whatever the model says, as in TFLite Micro), saturated to int8.
//!
//! The row-dependent shifts are TOSA shifts by tensors; gemmlowp's doubling high product is
//! TOSA's `mul` with shift 31 (round half up: the same, short of `MIN · MIN`, which these values
//! never reach); its saturating shifts are selects.

use super::{Cx, Value};
use crate::tflite::emit::Ty;

/// The type of an elementwise result of `values` (of one rank, dimensions 1 or alike): the
/// largest dimension of each axis, the first value's element type.
fn broadcast(values: &[&Value]) -> Ty {
    let mut shape = values[0].ty.shape.clone();
    for v in &values[1..] {
        for (d, &n) in shape.iter_mut().zip(&v.ty.shape) {
            *d = (*d).max(n);
        }
    }
    values[0].ty.with_shape(&shape)
}

/// TOSA i32 arithmetic on values of one rank (broadcasting dimensions of 1).
struct Ints<'c, 'm, 'a> {
    cx: &'c mut Cx<'m, 'a>,
    rank: usize,
}

impl Ints<'_, '_, '_> {
    fn c(&mut self, v: i64) -> Value {
        self.cx.func.broadcast(self.rank, "i32", v)
    }
    fn op(&mut self, name: &str, a: &Value, b: &Value) -> Value {
        let ty = broadcast(&[a, b]);
        self.cx.func.op(name, &[a, b], "", ty)
    }
    fn shr(&mut self, a: &Value, b: &Value) -> Value {
        let ty = a.ty.clone();
        self.cx.func.op("arithmetic_right_shift", &[a, b], "round = false", ty)
    }
    fn compare(&mut self, name: &str, a: &Value, b: &Value) -> Value {
        let ty = broadcast(&[a, b]).with_elem("i1");
        self.cx.func.op(name, &[a, b], "", ty)
    }
    fn select(&mut self, c: &Value, a: &Value, b: &Value) -> Value {
        let ty = broadcast(&[c, a, b]).with_elem(a.ty.elem);
        self.cx.func.op("select", &[c, a, b], "", ty)
    }
    /// gemmlowp's `SaturatingRoundingDoublingHighMul`.
    fn high_mul(&mut self, a: &Value, b: &Value) -> Value {
        let shift = self.cx.func.scalar("i8", 31);
        let ty = broadcast(&[a, b]);
        self.cx.func.op("mul", &[a, b, &shift], "", ty)
    }
    /// gemmlowp's `SaturatingRoundingMultiplyByPOT<k>` for a left shift `k`.
    fn saturating_shl(&mut self, x: &Value, k: i64) -> Value {
        let threshold = (1i64 << (31 - k)) - 1;
        let (high, low) = (self.c(threshold), self.c(-threshold));
        let (max, min) = (self.c(i64::from(i32::MAX)), self.c(i64::from(i32::MIN)));
        let by = self.c(k);
        let shifted = self.op("logical_left_shift", x, &by);
        let over = self.compare("greater", x, &high);
        let under = self.compare("greater", &low, x);
        let low_part = self.select(&under, &min, &shifted);
        self.select(&over, &max, &low_part)
    }
    /// gemmlowp's `RoundingDivideByPOT` by a tensor of exponents in 0..=31.
    fn rounding_divide(&mut self, x: &Value, exponent: &Value) -> Value {
        let one = self.c(1);
        let power = self.op("logical_left_shift", &one, exponent);
        let mask = self.op("sub", &power, &one);
        let remainder = self.op("bitwise_and", x, &mask);
        let half = self.shr(&mask, &one);
        let zero = self.c(0);
        let negative = self.compare("greater", &zero, x);
        let negative_one = self.cx.func.op("cast", &[&negative], "", negative.ty.with_elem("i32"));
        let threshold = self.op("add", &half, &negative_one);
        let up = self.compare("greater", &remainder, &threshold);
        let up = self.cx.func.op("cast", &[&up], "", up.ty.with_elem("i32"));
        let quotient = self.shr(x, exponent);
        self.op("add", &quotient, &up)
    }
}

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
    let mut t = Ints { cx, rank };
    // GetInvSqrtQuantizedMultiplierExp(acc, -1): acc < 2^31 needs at most one division by 4.
    let limit = t.c(1 << 29);
    let (one, two) = (t.c(1), t.c(2));
    let large = t.compare("greater_equal", &acc, &limit);
    let quartered = t.shr(&acc, &two);
    let input = t.select(&large, &quartered, &acc);
    let (eleven, twelve) = (t.c(11), t.c(12));
    let shift = t.select(&large, &twelve, &eleven);
    let clz = t.cx.func.op("clz", &[&input], "", input.ty.clone());
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

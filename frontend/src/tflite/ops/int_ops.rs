//! gemmlowp's fixed-point arithmetic on TOSA i32 tensors of one rank, for the integer kernels
//! whose shifts depend on the data (int8 L2_NORMALIZATION, int8 DIV). gemmlowp's doubling high
//! product is TOSA's `mul` with shift 31: round half up, which equals gemmlowp's rounding (half
//! away from zero, then truncated) on every product but `MIN · MIN`, which these kernels never
//! form; its saturating shifts are selects.

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
pub(super) struct Ints<'c, 'm, 'a> {
    pub cx: &'c mut Cx<'m, 'a>,
    rank: usize,
}

impl<'c, 'm, 'a> Ints<'c, 'm, 'a> {
    pub fn new(cx: &'c mut Cx<'m, 'a>, rank: usize) -> Self {
        Ints { cx, rank }
    }
    pub fn c(&mut self, v: i64) -> Value {
        self.cx.func.broadcast(self.rank, "i32", v)
    }
    pub fn op(&mut self, name: &str, a: &Value, b: &Value) -> Value {
        let ty = broadcast(&[a, b]);
        self.cx.func.op(name, &[a, b], "", ty)
    }
    pub fn shr(&mut self, a: &Value, b: &Value) -> Value {
        let ty = a.ty.clone();
        self.cx.func.op("arithmetic_right_shift", &[a, b], "round = false", ty)
    }
    pub fn compare(&mut self, name: &str, a: &Value, b: &Value) -> Value {
        let ty = broadcast(&[a, b]).with_elem("i1");
        self.cx.func.op(name, &[a, b], "", ty)
    }
    pub fn select(&mut self, c: &Value, a: &Value, b: &Value) -> Value {
        let ty = broadcast(&[c, a, b]).with_elem(a.ty.elem);
        self.cx.func.op("select", &[c, a, b], "", ty)
    }
    /// gemmlowp's `SaturatingRoundingDoublingHighMul`.
    pub fn high_mul(&mut self, a: &Value, b: &Value) -> Value {
        let shift = self.cx.func.scalar("i8", 31);
        let ty = broadcast(&[a, b]);
        self.cx.func.op("mul", &[a, b, &shift], "", ty)
    }
    /// gemmlowp's `SaturatingRoundingMultiplyByPOT<k>` for a left shift `k`.
    pub fn saturating_shl(&mut self, x: &Value, k: i64) -> Value {
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
    /// TFLite's `SaturatingRoundingMultiplyByPOTParam` by a tensor of exponents in 0..=31: a
    /// left shift saturating at the i32 range.
    pub fn saturating_shl_by(&mut self, x: &Value, exponent: &Value) -> Value {
        let (one, thirty_one) = (self.c(1), self.c(31));
        let room = self.op("sub", &thirty_one, exponent);
        let power = self.op("logical_left_shift", &one, &room);
        let threshold = self.op("sub", &power, &one);
        let zero = self.c(0);
        let low = self.op("sub", &zero, &threshold);
        let (max, min) = (self.c(i64::from(i32::MAX)), self.c(i64::from(i32::MIN)));
        let shifted = self.op("logical_left_shift", x, exponent);
        let over = self.compare("greater", x, &threshold);
        let under = self.compare("greater", &low, x);
        let low_part = self.select(&under, &min, &shifted);
        self.select(&over, &max, &low_part)
    }
    /// Count leading zeros (32 for 0).
    pub fn clz(&mut self, x: &Value) -> Value {
        self.cx.func.op("clz", &[x], "", x.ty.clone())
    }
    /// gemmlowp's `RoundingDivideByPOT` by a tensor of exponents in 0..=31.
    pub fn rounding_divide(&mut self, x: &Value, exponent: &Value) -> Value {
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

//! int8 DIV as TFLite Micro's `reference_ops::DivElementwise` computes it, in TOSA integer ops.
//!
//! Per element: `a = q1 - zp1`, `b = q2 - zp2` (both negated when `b < 0`); `1 / b` as TFLite's
//! `GetReciprocal` gives it, a multiplier and a shift, read from tables over the 256 divisors
//! (computed here at compile time); `a` shifted left by its headroom (`CountLeadingSignBits`, as
//! GCC-built TFLite Micro counts it, `__builtin_clrsb`: one more than the portable fallback for
//! negative powers of two),
//! times that multiplier (a doubling high product), times the output multiplier, divided by
//! 2^(headroom + shift - output shift) with rounding, plus the output zero point, clamped.
//!
//! Where that exponent reaches 32 (a dividend of few bits over a divisor of many, with a small
//! output shift) TFLite Micro shifts past an int32, which C leaves undefined: its reference
//! build's machines (x86, RISC-V) shift by the exponent modulo 32 and round up every
//! non-negative value, and so does umac (a zero dividend gives the zero point plus one there, as
//! TFLite Micro does everywhere; an Arm build of TFLite Micro differs for other dividends). A
//! divisor equal to its zero point (a real 0) is left undefined by TFLite Micro too; umac gives 0
//! over it a multiplier of 0.

use super::{
    Cx, OpResult, Value, activation_range, bad, i32_table, int_ops::Ints, lookup, per_tensor, tile_to, ty, unsupported,
};
use crate::tflite::{
    fixed_point::{quantize_multiplier, reciprocal},
    model::{DType, Operator, Options},
};

pub fn div_int8(cx: &mut Cx, op: &Operator) -> OpResult {
    let (a, b, out) = (cx.tensor(op, 0)?, cx.tensor(op, 1)?, cx.output(op, 0)?);
    if a.dtype != DType::I8 || b.dtype != DType::I8 || out.dtype != DType::I8 {
        return bad(format!("{} and {} to {}", a.dtype.name(), b.dtype.name(), out.dtype.name()));
    }
    let activation = match op.options {
        Options::Arithmetic { activation, .. } => activation,
        Options::None => 0,
        _ => return bad("its options are not DIV's"),
    };
    let ((s1, zp1), (s2, zp2), (so, zpo)) =
        (per_tensor(a, "its dividend")?, per_tensor(b, "its divisor")?, per_tensor(out, "its output")?);
    let (low, high) = activation_range(activation, out)?;
    // TFLite Micro: the scales' quotient in float, then QuantizeMultiplier.
    let (out_multiplier, out_shift) = quantize_multiplier(f64::from(s1 / (s2 * so)));
    // The smallest headroom of a nonzero |a| ≤ 255 is 23: a larger output shift would make
    // TFLite Micro divide by a negative power of two.
    if out_shift > 23 {
        return unsupported(format!("its scales' quotient {} is over 2^23", s1 / (s2 * so)));
    }
    // Per divisor byte: its sign, the reciprocal's multiplier and shift of |q2 - zp2|.
    let (mut signs, mut multipliers, mut shifts) = (Vec::new(), Vec::new(), Vec::new());
    for q in -128..=127i32 {
        let divisor = q - zp2 as i32;
        let (multiplier, shift) = if divisor == 0 { (0, 0) } else { reciprocal(divisor.abs()) };
        signs.push(if divisor < 0 { -1 } else { 1 });
        multipliers.push(multiplier);
        shifts.push(shift);
    }
    let shape = out.shape.clone();
    let count: i64 = shape.iter().product();
    let flat = |cx: &mut Cx, k: usize| -> OpResult<Value> {
        let v = cx.value(op, k)?;
        let v = super::to_rank(cx, &v, shape.len());
        let v = tile_to(cx, &v, &shape)?;
        Ok(cx.func.reshape(&v, &[1, count]))
    };
    let (x, y) = (flat(cx, 0)?, flat(cx, 1)?);
    let x = cx.rescale(&x, "i32", &[(1 << 30, 30)], zp1, 0, true, true);
    // The divisor's byte, from 0: the tables' index.
    let index = cx.rescale(&y, "i32", &[(1 << 30, 30)], -128, 0, true, true);
    let mut table = |values: &[i32]| {
        let t = i32_table(cx, values);
        lookup(cx, &t, &index)
    };
    let (sign, multiplier, shift) = (table(&signs), table(&multipliers), table(&shifts));
    let mut t = Ints::new(cx, 2);
    let no_shift = t.cx.func.scalar("i8", 0);
    let x = t.cx.func.op("mul", &[&x, &sign, &no_shift], "", x.ty.clone());
    // CountLeadingSignBits as GCC builds it (`__builtin_clrsb`; 31 for 0): clz(x) - 1 for x ≥ 0,
    // clz(!x) - 1 below.
    let (zero, one) = (t.c(0), t.c(1));
    let non_negative = t.compare("greater_equal", &x, &zero);
    let inverted = t.cx.func.op("bitwise_not", &[&x], "", x.ty.clone());
    let counted = t.select(&non_negative, &x, &inverted);
    let clz = t.clz(&counted);
    let headroom = t.op("sub", &clz, &one);
    let shifted = t.op("logical_left_shift", &x, &headroom);
    let unscaled = t.high_mul(&shifted, &multiplier);
    let out_multiplier = t.c(i64::from(out_multiplier));
    let scaled = t.high_mul(&unscaled, &out_multiplier);
    let exponent = t.op("add", &headroom, &shift);
    let out_shift = t.c(i64::from(out_shift));
    let exponent = t.op("sub", &exponent, &out_shift);
    // Within an int32 (exponent ≤ 31): RoundingDivideByPOT.
    let thirty_one = t.c(31);
    let within = t.op("minimum", &exponent, &thirty_one);
    let rounded = t.rounding_divide(&scaled, &within);
    // Past it: shifted by the exponent modulo 32, plus one when not negative.
    let past = t.compare("greater", &exponent, &thirty_one);
    let wrapped = t.op("bitwise_and", &exponent, &thirty_one);
    let wrapped = t.shr(&scaled, &wrapped);
    let up = t.compare("greater_equal", &scaled, &zero);
    let up = t.cx.func.op("cast", &[&up], "", x.ty.clone());
    let wrapped = t.op("add", &wrapped, &up);
    let quotient = t.select(&past, &wrapped, &rounded);
    let zpo = t.c(zpo);
    let result = t.op("add", &quotient, &zpo);
    let clamped = t.cx.clamp_int(&result, low, high);
    let bytes = t.cx.func.op("cast", &[&clamped], "", clamped.ty.with_elem("i8"));
    let result = cx.func.reshape(&bytes, &shape);
    debug_assert_eq!(result.ty, ty(out));
    cx.define(op, 0, result)
}

//! `umac-expand-log-sin-cos`: `math.log`, `math.sin` and `math.cos` on `f32` (scalars or vectors)
//! become float arithmetic, so that firmware, which links no libm, runs float models with TOSA's
//! `log` (a float LOG or LOG_SOFTMAX), `sin` and `cos` (no `logf`, `sinf` or `cosf` imported). The
//! classic single-precision schemes (Cephes' `logf`, `sinf` and `cosf`), as `umac-expand-exp-tanh`
//! writes `expf` and `tanhf`:
//!
//! - `log(x)`: `frexp` through the bits (a subnormal first converted from its bits, an integer,
//!   as `x·2^149`: Helium flushes subnormal operands to 0): `x = m·2^e`,
//!   `m` in [1/2, 1), moved to [√½, √2) (`e - 1`, `2m`), then with `t = m - 1` a degree-9
//!   polynomial `t - t²/2 + t³·P(t)` plus `e·ln2` in two parts (Cody and Waite). `log(±0) = -inf`,
//!   `log(x < 0) = NaN`, `log(inf) = inf`, NaN passes. Within 1 ulp of the correctly rounded
//!   result on every input the unit tests sweep (every 997th positive float, subnormals included,
//!   and every float near 1, √½, √2 and the smallest normal).
//! - `sin(x)`, `cos(x)`: `j = trunc(|x|·4/π)` made even (the octant's zero at the origin),
//!   `r = |x| - j·π/4` in three parts (`DP1` + `DP2` + `DP3`, Cephes' split for |x| ≤ 8192, where
//!   `j·DP1` is exact), then the sine polynomial `r + r³·S(r²)` or the cosine one
//!   `1 - r²/2 + r⁴·C(r²)`, as bit 1 of `j` picks, and a sign from bit 2 of `j` (sine: and `x`'s)
//!   flipped in the bits. Within 2^-23 (absolute) of the exact result for |x| ≤ 8192, and 1 ulp
//!   where the result is above 1/2 or |x| < π/4; beyond 8192 the reduction's products round: within
//!   1e-6 up to 65536, and up to 2^24 within about half an ulp of `x` ((1/2 + 2^-10) ulp: as if
//!   `x` were rounded once more, meaningless once its ulps approach π). Above 2^24 - 1 the result
//!   is 0 (Cephes': every float there is an even integer, its phase lost); inf and NaN give NaN.
//!   (Helium flushes subnormal operands to 0: there the sine of a subnormal is ±0.)
//!
//! The coefficients are Cephes' (Moshier, public domain).
//! ```mlir
//! %y = math.sin %x : f32
//! // becomes a = |x|, j = fptosi(a * 1.27323954), j += j & 1, y = sitofp(j),
//! // r = a - y * 0.78515625 - y * 2.41875648e-4 - y * 3.77489505e-8, (j & 2) ? cos(r) : sin(r),
//! // sign bit ^= (j & 4) << 29 ^ sign(x)
//! ```

// The coefficients are written as Cephes publishes them (each rounds to the f32 used).
#![allow(clippy::excessive_precision)]

use super::float_ops::{Floats, expand_f32};
use crate::{
    Error,
    pass::{UmacPass, boxed},
    registry::{PassInfo, PassKind},
};
use melior::ir::OperationRef;
use umac_dialects::build::{Cmp, CmpF, Value};
use umac_dialects::ir::op_name;

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    name: "umac-expand-log-sin-cos",
    summary: "Rewrite math.log, math.sin and math.cos on f32 as float arithmetic (no libm call)",
    anchor: "any",
    options: &[],
    kind: PassKind::Pass(|_| boxed(ExpandLogSinCos)),
};

struct ExpandLogSinCos;

impl UmacPass for ExpandLogSinCos {
    fn run(&mut self, operation: OperationRef) -> Result<(), Error> {
        let select = |op: &OperationRef| matches!(op_name(op).as_str(), "math.log" | "math.sin" | "math.cos");
        expand_f32(operation, select, |f, name, x| match name {
            "math.log" => f.log(x),
            "math.sin" => f.sin_cos(x, false),
            _ => f.sin_cos(x, true),
        })
    }
}

/// Cephes' `logf` polynomial, highest degree first: `log(1 + t) ≈ t - t²/2 + t³·P(t)`.
pub const LOG_POLYNOMIAL: [f32; 9] = [
    7.037_683_629_2e-2,
    -1.151_461_031_0e-1,
    1.167_699_874_0e-1,
    -1.242_014_084_6e-1,
    1.424_932_278_7e-1,
    -1.666_805_766_5e-1,
    2.000_071_476_5e-1,
    -2.499_999_399_3e-1,
    3.333_333_117_4e-1,
];
/// ln 2 in two parts (Cody and Waite, as Cephes' `logf` and `expf` split it): `LN2_HIGH` exact in
/// a few bits, `LN2_LOW` the rest.
pub const LN2_HIGH: f32 = 0.693_359_375;
pub const LN2_LOW: f32 = -2.121_944_4e-4;
/// √½: mantissas below it are doubled (and the exponent lowered) so that `m - 1` is small.
pub const SQRT_HALF: f32 = std::f32::consts::FRAC_1_SQRT_2;
/// 4/π.
pub const FOUR_OVER_PI: f32 = 1.273_239_544_735_16;
/// π/4 in three parts (Cephes' for a 24-bit significand and |x| ≤ 8192, where `j·DP1`, 8 bits
/// times 14, is exact).
pub const DP1: f32 = 0.785_156_25;
pub const DP2: f32 = 2.418_756_484_985_351_562_5e-4;
pub const DP3: f32 = 3.774_894_977_445_941_08e-8;
/// Cephes' `sinf` polynomial on [-π/4, π/4], highest degree first: `sin(r) ≈ r + r³·S(r²)`.
pub const SIN_POLYNOMIAL: [f32; 3] = [-1.951_529_589_1e-4, 8.332_160_873_6e-3, -1.666_665_461_1e-1];
/// Cephes' `cosf` polynomial, highest degree first: `cos(r) ≈ 1 - r²/2 + r⁴·C(r²)`.
pub const COS_POLYNOMIAL: [f32; 3] = [2.443_315_711_809_948e-5, -1.388_731_625_493_765e-3, 4.166_664_568_298_827e-2];
/// The largest |x| reduced (2^24 - 1, Cephes' `T24M1`): the sine and cosine of anything larger
/// are 0.
pub const SIN_COS_LIMIT: f32 = 16_777_215.0;

const INFINITY_BITS: u32 = 0x7F80_0000;
const NEGATIVE_INFINITY_BITS: u32 = 0xFF80_0000;
const NAN_BITS: u32 = 0x7FC0_0000;

impl Floats<'_, '_> {
    /// `log(x)`.
    fn log(&mut self, x: Value) -> Value {
        // frexp, in the integers: Helium flushes subnormal operands to 0, so a subnormal (or a
        // zero) becomes a normal float (or +0) as its magnitude's bits, an integer: |x|·2^149.
        let x_bits = self.bits_of(x);
        let magnitude_mask = self.int_constant(i32::MAX);
        let magnitude = self.int_binary("arith.andi", x_bits, magnitude_mask);
        let smallest = self.int_constant(f32::MIN_POSITIVE.to_bits() as i32);
        let subnormal = self.compare_int(Cmp::Ult, magnitude, smallest);
        let scaled = self.as_float(magnitude);
        let normal = self.select(subnormal, scaled, x);
        let bits = self.bits_of(normal);
        let shift = self.int_constant(23);
        let exponent_bits = self.int_binary("arith.shrui", bits, shift);
        let byte = self.int_constant(255);
        let biased = self.int_binary("arith.andi", exponent_bits, byte);
        let (bias, subnormal_bias) = (self.int_constant(126), self.int_constant(126 + 149));
        let bias = self.select(subnormal, subnormal_bias, bias);
        let e = self.int_binary("arith.subi", biased, bias);
        let fraction = self.int_constant(0x007F_FFFF);
        let half = self.int_constant(0x3F00_0000);
        let mantissa_bits = self.int_binary("arith.andi", bits, fraction);
        let m_bits = self.int_binary("arith.ori", mantissa_bits, half);
        let m = self.float_of(m_bits);
        // [1/2, √½) doubled: m in [√½, √2), t = m - 1.
        let sqrt_half = self.float_constant(SQRT_HALF);
        let low = self.compare(CmpF::Olt, m, sqrt_half);
        let one_int = self.int_constant(1);
        let e_less = self.int_binary("arith.subi", e, one_int);
        let e = self.select(low, e_less, e);
        let one = self.float_constant(1.0);
        let doubled = self.binary("arith.addf", m, m);
        let doubled_t = self.binary("arith.subf", doubled, one);
        let plain_t = self.binary("arith.subf", m, one);
        let t = self.select(low, doubled_t, plain_t);
        // t - t²/2 + t³·P(t) + e·ln2, the small terms first.
        let z = self.binary("arith.mulf", t, t);
        let p = self.horner(t, &LOG_POLYNOMIAL);
        let pt = self.binary("arith.mulf", p, t);
        let y = self.binary("arith.mulf", pt, z);
        let fe = self.as_float(e);
        let c2 = self.float_constant(LN2_LOW);
        let ec2 = self.binary("arith.mulf", fe, c2);
        let y = self.binary("arith.addf", y, ec2);
        let minus_half = self.float_constant(-0.5);
        let half_z = self.binary("arith.mulf", z, minus_half);
        let y = self.binary("arith.addf", y, half_z);
        let sum = self.binary("arith.addf", t, y);
        let c1 = self.float_constant(LN2_HIGH);
        let ec1 = self.binary("arith.mulf", fe, c1);
        let result = self.binary("arith.addf", sum, ec1);
        // log(inf) = inf, log(x < 0) = log(NaN) = NaN (bits above inf's, unsigned: a sign bit or a
        // NaN), log(±0) = -inf (the exponent of ±0 made +0, no other's 0), all from the integers:
        // LLVM would make a test of x's bits against 0 a float comparison, true on Helium for
        // subnormals.
        let inf_bits = self.int_constant(INFINITY_BITS as i32);
        let inf = self.float_bits_constant(INFINITY_BITS);
        let is_inf = self.compare_int(Cmp::Eq, x_bits, inf_bits);
        let result = self.select(is_inf, inf, result);
        let invalid = self.compare_int(Cmp::Ugt, x_bits, inf_bits);
        let nan = self.float_bits_constant(NAN_BITS);
        let result = self.select(invalid, nan, result);
        let zero_int = self.int_constant(0);
        let is_zero = self.compare_int(Cmp::Eq, biased, zero_int);
        let negative_inf = self.float_bits_constant(NEGATIVE_INFINITY_BITS);
        self.select(is_zero, negative_inf, result)
    }

    /// `sin(x)`, or `cos(x)` for `cos`.
    fn sin_cos(&mut self, x: Value, cos: bool) -> Value {
        let magnitude = self.unary("math.absf", x);
        // Above the limit, inf and NaN: the arithmetic runs on 0 (`fptosi` would be poison).
        let limit = self.float_constant(SIN_COS_LIMIT);
        let reduced = self.compare(CmpF::Ole, magnitude, limit);
        let zero = self.float_constant(0.0);
        let a = self.select(reduced, magnitude, zero);
        // j = trunc(a·4/π), plus one where odd; y = j as a float.
        let four_over_pi = self.float_constant(FOUR_OVER_PI);
        let scaled = self.binary("arith.mulf", a, four_over_pi);
        let truncated = self.truncated(scaled);
        let one_int = self.int_constant(1);
        let odd = self.int_binary("arith.andi", truncated, one_int);
        let j = self.int_binary("arith.addi", truncated, odd);
        let y = self.as_float(j);
        // r = a - y·π/4 in three parts.
        let (dp1, dp2, dp3) = (self.float_constant(DP1), self.float_constant(DP2), self.float_constant(DP3));
        let y1 = self.binary("arith.mulf", y, dp1);
        let r1 = self.binary("arith.subf", a, y1);
        let y2 = self.binary("arith.mulf", y, dp2);
        let r2 = self.binary("arith.subf", r1, y2);
        let y3 = self.binary("arith.mulf", y, dp3);
        let r = self.binary("arith.subf", r2, y3);
        let z = self.binary("arith.mulf", r, r);
        // sin(r) = r + r·z·S(z); cos(r) = 1 - z/2 + z²·C(z).
        let s = self.horner(z, &SIN_POLYNOMIAL);
        let zr = self.binary("arith.mulf", z, r);
        let szr = self.binary("arith.mulf", s, zr);
        let sine = self.binary("arith.addf", szr, r);
        let c = self.horner(z, &COS_POLYNOMIAL);
        let zz = self.binary("arith.mulf", z, z);
        let czz = self.binary("arith.mulf", c, zz);
        let minus_half = self.float_constant(-0.5);
        let half_z = self.binary("arith.mulf", z, minus_half);
        let cz = self.binary("arith.addf", czz, half_z);
        let one = self.float_constant(1.0);
        let cosine = self.binary("arith.addf", cz, one);
        // Bit 1 of j: the other function's polynomial.
        let two_int = self.int_constant(2);
        let other_bit = self.int_binary("arith.andi", j, two_int);
        let zero_int = self.int_constant(0);
        let other = self.compare_int(Cmp::Ne, other_bit, zero_int);
        let value = if cos { self.select(other, sine, cosine) } else { self.select(other, cosine, sine) };
        // The sign: bit 2 of j (of j + 2 for the cosine), moved to bit 31; the sine's also x's.
        let four_int = self.int_constant(4);
        let octant = if cos { self.int_binary("arith.addi", j, two_int) } else { j };
        let half_turn = self.int_binary("arith.andi", octant, four_int);
        let to_sign = self.int_constant(29);
        let mut sign = self.int_binary("arith.shli", half_turn, to_sign);
        if !cos {
            let x_bits = self.bits_of(x);
            let sign_bit = self.int_constant(i32::MIN);
            let x_sign = self.int_binary("arith.andi", x_bits, sign_bit);
            sign = self.int_binary("arith.xori", sign, x_sign);
        }
        let value_bits = self.bits_of(value);
        let signed_bits = self.int_binary("arith.xori", value_bits, sign);
        let signed = self.float_of(signed_bits);
        let result = self.select(reduced, signed, zero);
        // inf and NaN: NaN (`ueq`: unordered, or equal to infinity).
        let inf = self.float_bits_constant(INFINITY_BITS);
        let invalid = self.compare(CmpF::Ueq, magnitude, inf);
        let nan = self.float_bits_constant(NAN_BITS);
        self.select(invalid, nan, result)
    }
}

#[cfg(test)]
mod tests;

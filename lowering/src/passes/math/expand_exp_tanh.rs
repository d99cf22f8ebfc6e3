//! `umac-expand-exp-tanh`: `math.exp` and `math.tanh` on `f32` (scalars or vectors) become float
//! arithmetic, so that firmware, which links no libm, runs float models with sigmoids and tanhs
//! (a float LSTM, TOSA's `sigmoid` is `1 / (1 + exp(-x))`). MLIR 22 registers no pass for its
//! polynomial approximations; this is the classic single-precision scheme (Cephes' `expf`):
//!
//! - `exp(x)`: `k = floor(x·log2(e) + 1/2)`, `r = x - k·ln2` in two parts (Cody and Waite), a
//!   degree-7 polynomial in `r`, then `2^k` applied in two halves, each a normal float built from
//!   its exponent bits, so results that are subnormal, or overflow to infinity, come out right.
//!   The floor goes through the integers: Cortex-M4's FPU has no rounding instruction.
//!   `x` is clamped to [-104, 89] first (every `exp` outside is 0 or infinity); NaN passes.
//! - `tanh(x)`: for `|x| < 0.625` an odd polynomial; above, `1 - 2 / (exp(2|x|) + 1)` with the
//!   sign of `x` (1 once `exp` overflows); NaN passes.
//!
//! Both are within 2 ulp of the correctly rounded result (`exp`) and 2^-22 of it (`tanh`) on
//! every input the unit tests sweep. The coefficients are Cephes' (Moshier, public domain).
//! ```mlir
//! %y = math.exp %x : f32
//! // becomes clamp, k = floor(x * 1.44269504 + 0.5), r = x - k * 0.693359375 + k * 2.12194440e-4,
//! // p = 1 + r + r^2 * poly(r), y = p * bitcast((k1 + 127) << 23) * bitcast((k2 + 127) << 23)
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
use umac_dialects::build::{CmpF, Value};
use umac_dialects::ir::op_name;

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    name: "umac-expand-exp-tanh",
    summary: "Rewrite math.exp and math.tanh on f32 as float arithmetic (no libm call)",
    anchor: "any",
    options: &[],
    kind: PassKind::Pass(|_| boxed(ExpandExpTanh)),
};

struct ExpandExpTanh;

impl UmacPass for ExpandExpTanh {
    fn run(&mut self, operation: OperationRef) -> Result<(), Error> {
        let select = |op: &OperationRef| matches!(op_name(op).as_str(), "math.exp" | "math.tanh");
        expand_f32(operation, select, |f, name, x| if name == "math.exp" { f.exp(x) } else { f.tanh(x) })
    }
}

/// Cephes' `expf` polynomial, highest degree first: `exp(r) ≈ 1 + r + r²·P(r)`.
pub const EXP_POLYNOMIAL: [f32; 6] =
    [1.987_569_1e-4, 1.398_199_9e-3, 8.333_452e-3, 4.166_579_6e-2, 1.666_666_5e-1, 5.000_000_1e-1];
/// ln 2 in two parts: `C1` exact in a few bits, `C2` the rest (Cody and Waite).
pub const LN2_HIGH: f32 = 0.693_359_375;
pub const LN2_LOW: f32 = -2.121_944_4e-4;
/// Cephes' `tanhf` polynomial for `|x| < 0.625`, highest degree first:
/// `tanh(x) ≈ x + x·z·Q(z)`, `z = x²`.
pub const TANH_POLYNOMIAL: [f32; 5] =
    [-5.704_988_7e-3, 2.063_908_9e-2, -5.373_971_6e-2, 1.333_144_2e-1, -3.333_328_2e-1];
/// Where `exp` saturates: below, 0; above, infinity.
pub const EXP_LOW: f32 = -104.0;
pub const EXP_HIGH: f32 = 89.0;

impl Floats<'_, '_> {
    /// `2^k` for an integer tensor `k` in [-126, 127], from its exponent bits.
    fn power_of_two(&mut self, k: Value) -> Value {
        let bias = self.int_constant(127);
        let biased = self.int_binary("arith.addi", k, bias);
        let shift = self.int_constant(23);
        let bits = self.int_binary("arith.shli", biased, shift);
        self.float_of(bits)
    }
    /// `exp(x)`.
    fn exp(&mut self, x: Value) -> Value {
        // NaN passes through; the arithmetic runs on 0 instead (a NaN would make `fptosi` poison).
        let nan = self.compare(CmpF::Uno, x, x);
        let zero = self.float_constant(0.0);
        let number = self.select(nan, zero, x);
        let (low, high) = (self.float_constant(EXP_LOW), self.float_constant(EXP_HIGH));
        let clamped_low = self.binary("arith.maximumf", number, low);
        let clamped = self.binary("arith.minimumf", clamped_low, high);
        let log2e = self.float_constant(std::f32::consts::LOG2_E);
        let half = self.float_constant(0.5);
        let scaled = self.binary("arith.mulf", clamped, log2e);
        let shifted = self.binary("arith.addf", scaled, half);
        // floor, through the integers (Cortex-M4's FPU has no rounding instruction): truncate,
        // then one less where that rounded up.
        let truncated = self.truncated(shifted);
        let back = self.as_float(truncated);
        let above = self.compare(CmpF::Ogt, back, shifted);
        let one_int = self.int_constant(1);
        let below = self.int_binary("arith.subi", truncated, one_int);
        let k = self.select(above, below, truncated);
        let kf = self.as_float(k);
        let (c1, c2) = (self.float_constant(LN2_HIGH), self.float_constant(LN2_LOW));
        let kc1 = self.binary("arith.mulf", kf, c1);
        let r1 = self.binary("arith.subf", clamped, kc1);
        let kc2 = self.binary("arith.mulf", kf, c2);
        let r = self.binary("arith.subf", r1, kc2);
        let poly = self.horner(r, &EXP_POLYNOMIAL);
        let r2 = self.binary("arith.mulf", r, r);
        let tail = self.binary("arith.mulf", poly, r2);
        let one = self.float_constant(1.0);
        let sum = self.binary("arith.addf", tail, r);
        let p = self.binary("arith.addf", sum, one);
        // 2^k as 2^(k/2) · 2^(k - k/2): k in [-150, 129] keeps both halves normal.
        let k1 = self.int_binary("arith.shrsi", k, one_int);
        let k2 = self.int_binary("arith.subi", k, k1);
        let (s1, s2) = (self.power_of_two(k1), self.power_of_two(k2));
        let partial = self.binary("arith.mulf", p, s1);
        let result = self.binary("arith.mulf", partial, s2);
        self.select(nan, x, result)
    }
    /// `tanh(x)`.
    fn tanh(&mut self, x: Value) -> Value {
        let a = self.unary("math.absf", x);
        let z = self.binary("arith.mulf", x, x);
        let q = self.horner(z, &TANH_POLYNOMIAL);
        let qz = self.binary("arith.mulf", q, z);
        let qzx = self.binary("arith.mulf", qz, x);
        let small = self.binary("arith.addf", qzx, x);
        let two_a = self.binary("arith.addf", a, a);
        let e = self.exp(two_a);
        let one = self.float_constant(1.0);
        let two = self.float_constant(2.0);
        let e1 = self.binary("arith.addf", e, one);
        let ratio = self.binary("arith.divf", two, e1);
        let magnitude = self.binary("arith.subf", one, ratio);
        let large = self.binary("math.copysign", magnitude, x);
        let limit = self.float_constant(0.625);
        let is_small = self.compare(CmpF::Olt, a, limit);
        self.select(is_small, small, large)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The arithmetic the pass writes, in Rust's single precision, operation for operation.
    fn exp(x: f32) -> f32 {
        if x.is_nan() {
            return x;
        }
        let clamped = x.clamp(EXP_LOW, EXP_HIGH);
        let shifted = clamped * std::f32::consts::LOG2_E + 0.5;
        let truncated = shifted as i32;
        let k = if truncated as f32 > shifted { truncated - 1 } else { truncated };
        let kf = k as f32;
        let r = (clamped - kf * LN2_HIGH) - kf * LN2_LOW;
        let poly = EXP_POLYNOMIAL[1..].iter().fold(EXP_POLYNOMIAL[0], |acc, &c| acc * r + c);
        let p = (poly * (r * r) + r) + 1.0;
        let (k1, k2) = (k >> 1, k - (k >> 1));
        let two = |k: i32| f32::from_bits(((k + 127) as u32) << 23);
        p * two(k1) * two(k2)
    }

    fn tanh(x: f32) -> f32 {
        let a = x.abs();
        let z = x * x;
        let q = TANH_POLYNOMIAL[1..].iter().fold(TANH_POLYNOMIAL[0], |acc, &c| acc * z + c);
        let small = q * z * x + x;
        let large = (1.0 - 2.0 / (exp(a + a) + 1.0)).copysign(x);
        if a < 0.625 { small } else { large }
    }

    fn ulps(a: f32, b: f32) -> u32 {
        (a.to_bits() as i64 - b.to_bits() as i64).unsigned_abs() as u32
    }

    #[test]
    fn exp_is_within_two_ulp() {
        let mut worst = 0;
        let mut x = -103.0f32;
        while x < 88.7 {
            let want = (f64::from(x)).exp() as f32;
            let got = exp(x);
            // Subnormal results have fewer bits: compare them absolutely.
            if want >= f32::MIN_POSITIVE {
                worst = worst.max(ulps(got, want));
            } else {
                assert!((got - want).abs() <= 2.0 * f32::from_bits(1), "{x}: {got:e} vs {want:e}");
            }
            x += 0.000_97;
        }
        assert!(worst <= 2, "worst {worst} ulp");
        assert_eq!(exp(0.0), 1.0);
        assert_eq!(exp(-200.0), 0.0);
        assert_eq!(exp(100.0), f32::INFINITY);
        assert_eq!(exp(f32::INFINITY), f32::INFINITY);
        assert_eq!(exp(f32::NEG_INFINITY), 0.0);
        assert!(exp(f32::NAN).is_nan());
    }

    #[test]
    fn tanh_is_within_two_to_the_minus_22() {
        let mut x = -12.0f32;
        while x < 12.0 {
            let want = (f64::from(x)).tanh();
            let got = f64::from(tanh(x));
            assert!((got - want).abs() <= 2f64.powi(-22) * want.abs().max(2f64.powi(-3)), "{x}: {got} vs {want}");
            x += 0.000_37;
        }
        assert_eq!(tanh(0.0), 0.0);
        assert_eq!((tanh(50.0), tanh(-50.0)), (1.0, -1.0));
        assert_eq!((tanh(f32::INFINITY), tanh(f32::NEG_INFINITY)), (1.0, -1.0));
        assert!(tanh(f32::NAN).is_nan());
    }
}

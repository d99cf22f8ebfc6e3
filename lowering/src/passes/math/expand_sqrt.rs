//! `umac-expand-sqrt`: `math.sqrt` and `math.rsqrt` (`1 / sqrt`, as TFLite Micro's RSQRT
//! computes it) on `f32` (scalars or vectors) become float arithmetic, for
//! CPUs without a floating-point unit (Cortex-M0+ and M3, RV32IM), whose firmware links libgcc's
//! soft-float helpers but no libm: TFLite's SQRT, RSQRT (`1 / sqrt`), L2_POOL_2D and
//! L2_NORMALIZATION called `sqrtf` there. CPUs with an FPU have a square-root instruction.
//!
//! For a positive finite `x` (a subnormal first scaled by 2^48, the result by 2^-24): the
//! inverse square root from the bits (`0x5f3759df - bits / 2`), three Newton steps
//! `r · (3/2 - x/2 · r²)`, then `s = x · r` and one Heron step `(s + x / s) / 2`: within one ulp
//! of the correctly rounded square root (the unit test sweeps every 997th positive float and the
//! subnormals and powers of two). `sqrt(±0) = ±0`, `sqrt(inf) = inf`, below 0 and NaN give NaN.
//! ```mlir
//! %y = math.sqrt %x : f32
//! // becomes r = bitcast(0x5f3759df - (bitcast(x) >> 1)), r = r * (1.5 - 0.5 * x * r * r) (x3),
//! // s = x * r, s = 0.5 * (s + x / s), with x's zeros, infinity and NaN passed through
//! ```

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
    name: "umac-expand-sqrt",
    summary: "Rewrite math.sqrt and math.rsqrt on f32 as float arithmetic (no libm call), for CPUs without an FPU",
    anchor: "any",
    options: &[],
    kind: PassKind::Pass(|_| boxed(ExpandSqrt)),
};

struct ExpandSqrt;

impl UmacPass for ExpandSqrt {
    fn run(&mut self, operation: OperationRef) -> Result<(), Error> {
        let select = |op: &OperationRef| matches!(op_name(op).as_str(), "math.sqrt" | "math.rsqrt");
        expand_f32(operation, select, |f, name, x| {
            let root = f.sqrt(x);
            if name == "math.rsqrt" {
                let one = f.float_constant(1.0);
                f.binary("arith.divf", one, root)
            } else {
                root
            }
        })
    }
}

/// The inverse square root's magic constant (the bits of a first guess, less half of x's).
pub const MAGIC: u32 = 0x5f37_59df;
/// Below this, `x` is scaled by 2^48 first (its square root then by 2^-24).
pub const SMALL: f32 = 1.0e-30;

impl Floats<'_, '_> {
    /// `sqrt(x)`.
    fn sqrt(&mut self, x: Value) -> Value {
        let (small, up, down, one) = (
            self.float_constant(SMALL),
            self.float_constant(2f32.powi(48)),
            self.float_constant(2f32.powi(-24)),
            self.float_constant(1.0),
        );
        let is_small = self.compare(CmpF::Olt, x, small);
        let scaled = self.binary("arith.mulf", x, up);
        let v = self.select(is_small, scaled, x);
        let factor = self.select(is_small, down, one);
        let bits = self.bits_of(v);
        let one_int = self.int_constant(1);
        let half_bits = self.int_binary("arith.shrui", bits, one_int);
        let magic = self.int_constant(MAGIC as i32);
        let guess = self.int_binary("arith.subi", magic, half_bits);
        let mut r = self.float_of(guess);
        let (three_halves, half) = (self.float_constant(1.5), self.float_constant(0.5));
        let half_v = self.binary("arith.mulf", v, half);
        for _ in 0..3 {
            let r2 = self.binary("arith.mulf", r, r);
            let t = self.binary("arith.mulf", half_v, r2);
            let d = self.binary("arith.subf", three_halves, t);
            r = self.binary("arith.mulf", r, d);
        }
        let s = self.binary("arith.mulf", v, r);
        let q = self.binary("arith.divf", v, s);
        let sum = self.binary("arith.addf", s, q);
        let heron = self.binary("arith.mulf", sum, half);
        let root = self.binary("arith.mulf", heron, factor);
        // Positive and finite: the root; ±0 and inf: x itself; below 0 and NaN: NaN.
        let zero = self.float_constant(0.0);
        let infinity = self.float_bits_constant(0x7F80_0000);
        let positive = self.compare(CmpF::Ogt, x, zero);
        let finite = self.compare(CmpF::Olt, x, infinity);
        let regular = self.bool_binary("arith.andi", positive, finite);
        let is_zero = self.compare(CmpF::Oeq, x, zero);
        let is_infinite = self.compare(CmpF::Oeq, x, infinity);
        let itself = self.bool_binary("arith.ori", is_zero, is_infinite);
        let nan = self.float_bits_constant(0x7FC0_0000);
        let special = self.select(itself, x, nan);
        self.select(regular, root, special)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The arithmetic the pass writes, in Rust's f32 (each operation rounded as the FPU, or
    /// libgcc's soft-float helpers, round it).
    fn expanded(x: f32) -> f32 {
        if !(x > 0.0 && x < f32::INFINITY) {
            return if x == 0.0 || x == f32::INFINITY { x } else { f32::NAN };
        }
        let (v, factor) = if x < SMALL { (x * 2f32.powi(48), 2f32.powi(-24)) } else { (x, 1.0) };
        let mut r = f32::from_bits(MAGIC - (v.to_bits() >> 1));
        let half_v = v * 0.5;
        for _ in 0..3 {
            r *= 1.5 - half_v * (r * r);
        }
        let s = v * r;
        ((s + v / s) * 0.5) * factor
    }

    fn check(x: f32) {
        let (got, want) = (expanded(x), x.sqrt());
        if want.is_nan() {
            assert!(got.is_nan(), "{x:e}: {got:e}");
            return;
        }
        assert!(got.to_bits().abs_diff(want.to_bits()) <= 1, "{x:e}: {got:e}, want {want:e}");
        assert_eq!(got.is_sign_negative(), want.is_sign_negative(), "{x:e}");
    }

    #[test]
    fn within_one_ulp() {
        let mut bits = 0u32;
        while let Some(next) = bits.checked_add(997) {
            check(f32::from_bits(bits));
            bits = next;
        }
        for k in -149..=127 {
            check(2f32.powi(k));
            check(2f32.powi(k) * 1.5);
        }
        for x in [0.0, -0.0, -1.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, f32::MAX, f32::MIN_POSITIVE, 2.0, 4.0] {
            check(x);
        }
    }
}

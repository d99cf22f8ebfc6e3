//! `umac-expand-roundeven`: `math.roundeven` on `f32` or `f64` (scalars or vectors) becomes float
//! arithmetic every FPU has: for |x| below 2^23 (2^52 for `f64`), adding 2^23 and subtracting it
//! again leaves x rounded to the nearest integer, ties to even (the FPU's default rounding), and
//! the sign is put back (`-0.0` stays `-0.0`); larger magnitudes are integers already, and NaN
//! passes through. Exact, as the IEEE 754 additions are; firmware links no libm, and Cortex-M4's
//! FPv4 has no rounding instruction (LLVM would call `roundevenf`). A float model input quantized
//! by TOSA's cast rounds so. Upstream's `math-expand-ops{ops=roundeven}` goes through `math.round`,
//! whose expansion converts through 64-bit integers (`__fixsfdi` on Cortex-M).
//! ```mlir
//! %r = math.roundeven %x : f32
//! // becomes
//! %a = math.absf %x : f32
//! %big = arith.cmpf oge, %a, %two23 : f32       // or NaN: unordered, then x as it is
//! %s = arith.subf (arith.addf %a, %two23), %two23 : f32
//! %r = arith.select %big, %x, (math.copysign %s, %x) : f32
//! ```

use crate::{
    Error,
    pass::{UmacPass, boxed, rewrite_each},
    registry::{PassInfo, PassKind},
};
use melior::ir::OperationRef;
use mlir_sys::*;
use umac_dialects::ir::{element_type, op_name, type_text};

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    name: "umac-expand-roundeven",
    summary: "Rewrite math.roundeven on f32/f64 as exact float additions (no libm call, no rounding instruction)",
    anchor: "any",
    options: &[],
    kind: PassKind::Pass(|_| boxed(ExpandRoundeven)),
};

struct ExpandRoundeven;

impl UmacPass for ExpandRoundeven {
    fn run(&mut self, operation: OperationRef) -> Result<(), Error> {
        rewrite_each(operation, |op| op_name(op) == "math.roundeven", INFO.name, expand)
    }
}

/// The replacement of the `math.roundeven` `raw`, or `None` for an element type other than
/// `f32` and `f64`.
///
/// # Safety
/// `raw` must be live.
unsafe fn expand(raw: MlirOperation) -> Option<(String, Vec<MlirValue>)> {
    unsafe {
        let x = mlirOperationGetOperand(raw, 0);
        let ty = mlirValueGetType(x);
        let element = if mlirTypeIsAShaped(ty) { element_type(ty) } else { ty };
        // 2^(mantissa bits): from there on every float is an integer.
        let limit = if mlirTypeIsAF32(element) {
            "8388608.0"
        } else if mlirTypeIsAF64(element) {
            "4503599627370496.0"
        } else {
            return None;
        };
        let (t, scalar) = (type_text(ty), type_text(element));
        let (constant, condition) = if mlirTypeIsAVector(ty) {
            let shape = type_text(ty).replace(&scalar, "i1");
            (format!("dense<{limit}> : {t}"), shape)
        } else {
            (format!("{limit} : {t}"), "i1".to_string())
        };
        let text = format!(
            "func.func @roundeven(%x: {t}) -> {t} {{\n  %limit = arith.constant {constant}\n  \
             %a = math.absf %x : {t}\n  %big = arith.cmpf uge, %a, %limit : {t}\n  \
             %up = arith.addf %a, %limit : {t}\n  %down = arith.subf %up, %limit : {t}\n  \
             %signed = math.copysign %down, %x : {t}\n  %r = arith.select %big, %x, %signed : {condition}, {t}\n  \
             return %r : {t}\n}}\n"
        );
        Some((text, vec![x]))
    }
}

#[cfg(test)]
mod tests {
    /// The arithmetic the pass writes for `f32`, in Rust's IEEE 754 single precision (no
    /// reassociation: the addition and subtraction round as the FPU's do).
    fn expanded(x: f32) -> f32 {
        let limit = 8_388_608.0_f32;
        let a = x.abs();
        // `cmpf uge`: true for NaN too.
        if a >= limit || a.is_nan() { x } else { ((a + limit) - limit).copysign(x) }
    }

    fn check(x: f32) {
        let (got, want) = (expanded(x), x.round_ties_even());
        assert!(got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()), "{x:e}: {got:e}, want {want:e}");
    }

    #[test]
    fn ties_to_even_on_halves_signs_and_every_exponent() {
        // Every half-integer and integer up to 2^21 in magnitude, both signs (ties: 0.5 -> 0,
        // 1.5 -> 2, 2.5 -> 2), and around the limit, where the additions lose the last bits.
        for k in -(1i32 << 22)..=(1 << 22) {
            check(k as f32 / 2.0);
        }
        for k in -(1i64 << 17)..=(1 << 17) {
            check((8_388_608.0_f64 + k as f64 / 2.0) as f32);
            check(-(8_388_608.0_f64 - k as f64 / 4.0) as f32);
        }
        // A sweep over the bit patterns: every exponent, subnormals, infinities, NaNs, -0.0.
        let mut bits = 0u32;
        loop {
            check(f32::from_bits(bits));
            match bits.checked_add(997) {
                Some(next) => bits = next,
                None => break,
            }
        }
        for x in [0.0, -0.0, 0.49999997, -0.49999997, 0.5, -0.5, f32::MAX, f32::MIN, f32::INFINITY, f32::NEG_INFINITY] {
            check(x);
        }
    }
}

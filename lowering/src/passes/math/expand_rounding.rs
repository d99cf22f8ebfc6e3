//! `umac-expand-rounding`: `math.roundeven`, `math.floor` and `math.ceil` on `f32` or `f64`
//! (scalars or vectors) become float arithmetic every FPU has: for |x| below 2^23 (2^52 for
//! `f64`), adding 2^23 and subtracting it again leaves x rounded to the nearest integer, ties to
//! even (the FPU's default rounding), and the sign is put back (`-0.0` stays `-0.0`); `floor`
//! then steps down by one where that went above x, `ceil` up where it went below, the sign of x
//! put back once more (ceil(-0.5) is -0.0). Larger magnitudes are integers already, and NaN
//! passes through. Exact, as the IEEE 754 additions are; firmware links no libm, and Cortex-M4's
//! FPv4 has no rounding instruction (LLVM would call `roundevenf`, `floorf`, `ceilf`). A float
//! model input quantized by TOSA's cast rounds so; TFLite's FLOOR, CEIL, ROUND, FLOOR_DIV and
//! CAST use floor and ceil. Upstream's `math-expand-ops{ops=roundeven}` goes through
//! `math.round`, whose expansion converts through 64-bit integers (`__fixsfdi` on Cortex-M).
//! ```mlir
//! %r = math.floor %x : f32
//! // becomes
//! %a = math.absf %x : f32
//! %big = arith.cmpf uge, %a, %two23 : f32       // or NaN: unordered, then x as it is
//! %s = arith.subf (arith.addf %a, %two23), %two23 : f32
//! %n = math.copysign %s, %x : f32               // x to the nearest, ties to even
//! %over = arith.cmpf ogt, %n, %x : f32          // ceil: olt, and addf
//! %f = math.copysign (arith.select %over, (arith.subf %n, %one), %n), %x : f32
//! %r = arith.select %big, %x, %f : f32
//! ```

use super::float_ops::scalar_element;
use crate::{
    Error,
    pass::{UmacPass, boxed, build_each},
    registry::{PassInfo, PassKind},
};
use melior::ir::OperationRef;
use umac_dialects::{
    build::{Attr, Builder, CmpF, Ty, Value},
    ir::op_name,
};

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    name: "umac-expand-rounding",
    summary: "Rewrite math.roundeven, math.floor and math.ceil on f32/f64 as exact float additions (no libm call, no rounding instruction)",
    anchor: "any",
    options: &[],
    kind: PassKind::Pass(|_| boxed(ExpandRounding)),
};

struct ExpandRounding;

impl UmacPass for ExpandRounding {
    fn run(&mut self, operation: OperationRef) -> Result<(), Error> {
        let select = |op: &OperationRef| {
            ["math.roundeven", "math.floor", "math.ceil"].contains(&op_name(op).as_str()) && limit(op).is_some()
        };
        build_each(operation, select, |b, name| vec![expand(b, name)])
    }
}

/// 2^(mantissa bits) of `f32` and `f64`: from there on every float is an integer.
const F32_LIMIT: f64 = 8_388_608.0;
const F64_LIMIT: f64 = 4_503_599_627_370_496.0;

/// The limit of `op`'s operand's element type (a scalar or a vector): `None` for one other than
/// `f32` and `f64`.
fn limit(op: &OperationRef) -> Option<f64> {
    let element = scalar_element(op)?;
    // SAFETY: a type handle read from the live op.
    unsafe {
        if mlir_sys::mlirTypeIsAF32(element) {
            Some(F32_LIMIT)
        } else if mlir_sys::mlirTypeIsAF64(element) {
            Some(F64_LIMIT)
        } else {
            None
        }
    }
}

/// Writes the rounding `name` (`math.roundeven`, `math.floor`, `math.ceil`) of the builder's
/// first argument; returns the result.
fn expand(b: &mut Builder, name: &str) -> Value {
    let x = b.arg(0);
    let t = b.type_of(x);
    let limit = if b.element_of(t) == Ty::F64 { F64_LIMIT } else { F32_LIMIT };
    let float = |b: &mut Builder, value: f64| b.op1("arith.constant", &[], t, &[("value", Attr::Float(t, value))]);
    let limit = float(b, limit);
    let a = b.op1("math.absf", &[x], t, &[]);
    let big = b.cmpf(CmpF::Uge, a, limit);
    let up = b.op1("arith.addf", &[a, limit], t, &[]);
    let down = b.op1("arith.subf", &[up, limit], t, &[]);
    let near = b.op1("math.copysign", &[down, x], t, &[]);
    // floor: one less where the nearest integer is above x; ceil: one more where below.
    let step = match name {
        "math.floor" => Some((CmpF::Ogt, "arith.subf")),
        "math.ceil" => Some((CmpF::Olt, "arith.addf")),
        _ => None,
    };
    let result = match step {
        None => near,
        Some((predicate, arith)) => {
            let one = float(b, 1.0);
            let past = b.cmpf(predicate, near, x);
            let stepped = b.op1(arith, &[near, one], t, &[]);
            let chosen = b.select(past, stepped, near);
            b.op1("math.copysign", &[chosen, x], t, &[])
        }
    };
    b.select(big, x, result)
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

    /// The pass's floor (`down`) or ceil, from [`expanded`].
    fn stepped(x: f32, down: bool) -> f32 {
        let limit = 8_388_608.0_f32;
        if x.abs() >= limit || x.is_nan() {
            return x;
        }
        let near = expanded(x);
        let past = if down { near > x } else { near < x };
        let chosen = if past { if down { near - 1.0 } else { near + 1.0 } } else { near };
        chosen.copysign(x)
    }

    fn check(x: f32) {
        for (got, want) in
            [(expanded(x), x.round_ties_even()), (stepped(x, true), x.floor()), (stepped(x, false), x.ceil())]
        {
            assert!(
                got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                "{x:e}: {got:e}, want {want:e}"
            );
        }
    }

    #[test]
    fn nearest_floor_and_ceil_on_halves_signs_and_every_exponent() {
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

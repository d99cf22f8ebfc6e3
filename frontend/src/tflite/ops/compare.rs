//! Comparisons (EQUAL, NOT_EQUAL, GREATER, GREATER_EQUAL, LESS, LESS_EQUAL), logic (SELECT,
//! SELECT_V2, LOGICAL_AND, LOGICAL_OR, LOGICAL_NOT), CAST, FLOOR_DIV and FLOOR_MOD, with
//! broadcasting, as TFLite Micro's kernels compute them.
//!
//! - int8 comparisons compare each operand rescaled as TFLite Micro does (`(q - zp) · 2^8`
//!   times the operand's own scale, a double-rounding `rescale`), so operands of different
//!   quantizations compare by value; float32, int32 and bool compare raw values.
//! - CAST is C++'s `static_cast`: float to integer truncates towards zero (in range; TFLite
//!   Micro's result outside it is undefined, umac's saturates), integers narrow by wrapping, bool
//!   is 0 or 1.
//! - FLOOR_DIV is TFLite Micro's `floor(a / b)` with the quotient corrected by its remainder;
//!   FLOOR_MOD is `a - FLOOR_DIV(a, b) · b`: within an ulp or two of `|a|` of TFLite Micro's
//!   exact `fmod` (float32 only, as in TFLite Micro). A zero divisor, which TFLite Micro reports
//!   at run time, gives infinities or NaN.

use super::{Cx, OpResult, Value, bad, check_output, per_tensor, scale32, to_rank, ty, unsupported};
use crate::tflite::{
    emit::Ty,
    model::{DType, Operator},
};

/// A binary operator's two operands at the output's rank (TOSA broadcasts equal ranks only).
fn operands(cx: &mut Cx, op: &Operator) -> OpResult<(Value, Value)> {
    let rank = cx.output(op, 0)?.shape.len();
    let x = cx.value(op, 0)?;
    let y = cx.value(op, 1)?;
    if x.ty.rank() > rank || y.ty.rank() > rank {
        return bad(format!("its operands {:?} and {:?} have more dimensions than its output", x.ty.shape, y.ty.shape));
    }
    Ok((to_rank(cx, &x, rank), to_rank(cx, &y, rank)))
}

/// EQUAL, NOT_EQUAL, GREATER, GREATER_EQUAL, LESS or LESS_EQUAL, to BOOL.
pub fn comparison(cx: &mut Cx, op: &Operator) -> OpResult {
    let (a, b, out) = (cx.tensor(op, 0)?, cx.tensor(op, 1)?, cx.output(op, 0)?);
    if a.dtype != b.dtype || out.dtype != DType::Bool {
        return bad(format!("it compares {} with {} into {}", a.dtype.name(), b.dtype.name(), out.dtype.name()));
    }
    let equality = matches!(op.kind.as_str(), "EQUAL" | "NOT_EQUAL");
    let (x, y) = operands(cx, op)?;
    let t = ty(out);
    let (x, y) = match a.dtype {
        DType::F32 | DType::I32 => (x, y),
        DType::Bool if equality => {
            let differ = cx.func.op("logical_xor", &[&x, &y], "", t.clone());
            let z = if op.kind == "EQUAL" { cx.func.op("logical_not", &[&differ], "", t) } else { differ };
            return cx.define(op, 0, z);
        }
        DType::I8 => {
            let mut scaled = Vec::new();
            for (v, tensor, which) in [(&x, a, "its first input"), (&y, b, "its second input")] {
                let (scale, zp) = per_tensor(tensor, which)?;
                if scale >= 1.0 {
                    return unsupported(format!("{which} has scale {scale} (TFLite Micro takes scales below 1)"));
                }
                // (q - zp) · 2^30 · 2^-22 = (q - zp) · 2^8, exactly; then the operand's scale.
                let shifted = cx.rescale(v, "i32", &[(1 << 30, 22)], zp, 0, true, true);
                scaled.push(cx.rescale(&shifted, "i32", &[scale32(f64::from(scale))], 0, 0, true, true));
            }
            let y = scaled.pop().unwrap_or_else(|| unreachable!("two operands"));
            (scaled.pop().unwrap_or_else(|| unreachable!("two operands")), y)
        }
        other => return unsupported(format!("{} of {}", op.kind, other.name())),
    };
    let z = match op.kind.as_str() {
        "EQUAL" => cx.func.op("equal", &[&x, &y], "", t),
        "NOT_EQUAL" => {
            let equal = cx.func.op("equal", &[&x, &y], "", t.clone());
            cx.func.op("logical_not", &[&equal], "", t)
        }
        "GREATER" => cx.func.op("greater", &[&x, &y], "", t),
        "GREATER_EQUAL" => cx.func.op("greater_equal", &[&x, &y], "", t),
        "LESS" => cx.func.op("greater", &[&y, &x], "", t),
        "LESS_EQUAL" => cx.func.op("greater_equal", &[&y, &x], "", t),
        other => return bad(format!("internal error: {other} is not a comparison")),
    };
    cx.define(op, 0, z)
}

/// SELECT and SELECT_V2: `condition ? x : y` on raw elements (float32, int8, int16; TFLite Micro
/// does not rescale).
pub fn select(cx: &mut Cx, op: &Operator) -> OpResult {
    let (condition, a, b, out) = (cx.tensor(op, 0)?, cx.tensor(op, 1)?, cx.tensor(op, 2)?, cx.output(op, 0)?);
    if condition.dtype != DType::Bool {
        return bad(format!("its condition is {}, not BOOL", condition.dtype.name()));
    }
    if a.dtype != out.dtype || b.dtype != out.dtype {
        return bad(format!("it selects {} or {} into {}", a.dtype.name(), b.dtype.name(), out.dtype.name()));
    }
    if !matches!(out.dtype, DType::F32 | DType::I8 | DType::I16) {
        return unsupported(format!("{} of {}", op.kind, out.dtype.name()));
    }
    let rank = out.shape.len();
    let mut values = Vec::new();
    for k in 0..3 {
        let v = cx.value(op, k)?;
        if v.ty.rank() > rank {
            return bad(format!("its operand #{k} has more dimensions than its output"));
        }
        values.push(to_rank(cx, &v, rank));
    }
    let z = cx.func.op("select", &[&values[0], &values[1], &values[2]], "", ty(out));
    cx.define(op, 0, z)
}

/// LOGICAL_AND, LOGICAL_OR (broadcasting) and LOGICAL_NOT, on BOOL.
pub fn logical(cx: &mut Cx, op: &Operator) -> OpResult {
    let out = cx.output(op, 0)?;
    let inputs = if op.kind == "LOGICAL_NOT" { 1 } else { 2 };
    for k in 0..inputs {
        if cx.tensor(op, k)?.dtype != DType::Bool {
            return bad(format!("its operand #{k} is not BOOL"));
        }
    }
    if out.dtype != DType::Bool {
        return bad("its output is not BOOL");
    }
    let t = ty(out);
    let z = if inputs == 1 {
        let x = cx.value(op, 0)?;
        if x.ty.shape != out.shape {
            return bad(format!("it maps {:?} to {:?}", x.ty.shape, out.shape));
        }
        cx.func.op("logical_not", &[&x], "", t)
    } else {
        let (x, y) = operands(cx, op)?;
        let name = if op.kind == "LOGICAL_AND" { "logical_and" } else { "logical_or" };
        cx.func.op(name, &[&x, &y], "", t)
    };
    cx.define(op, 0, z)
}

/// CAST between int8, int16, int32, float32 and from bool.
pub fn cast(cx: &mut Cx, op: &Operator) -> OpResult {
    let (input, out) = (cx.tensor(op, 0)?, cx.output(op, 0)?);
    check_output(cx, op, 0, &input.shape, out.dtype)?;
    let numeric = |d: DType| matches!(d, DType::I8 | DType::I16 | DType::I32 | DType::F32);
    if !(numeric(input.dtype) || input.dtype == DType::Bool) || !numeric(out.dtype) {
        return unsupported(format!("CAST from {} to {}", input.dtype.name(), out.dtype.name()));
    }
    let x = cx.value(op, 0)?;
    let t = ty(out);
    let y = if input.dtype == out.dtype {
        x
    } else if input.dtype == DType::F32 {
        // Truncation: floor above zero, ceil below, then an exact conversion.
        let rank = x.ty.rank();
        let zero = cx.func.broadcast_f32(rank, 0.0);
        let negative = cx.func.op("greater", &[&zero, &x], "", x.ty.with_elem("i1"));
        let up = cx.func.op("ceil", &[&x], "", x.ty.clone());
        let down = cx.func.op("floor", &[&x], "", x.ty.clone());
        let whole = cx.func.op("select", &[&negative, &up, &down], "", x.ty.clone());
        cx.func.op("cast", &[&whole], "", t)
    } else {
        cx.func.op("cast", &[&x], "", t)
    };
    cx.define(op, 0, y)
}

/// FLOOR_DIV and FLOOR_MOD on float32.
pub fn floor_div_mod(cx: &mut Cx, op: &Operator) -> OpResult {
    let (a, b, out) = (cx.tensor(op, 0)?, cx.tensor(op, 1)?, cx.output(op, 0)?);
    if (a.dtype, b.dtype, out.dtype) != (DType::F32, DType::F32, DType::F32) {
        return unsupported(format!(
            "{} of {} and {} (TFLite Micro takes float32)",
            op.kind,
            a.dtype.name(),
            b.dtype.name()
        ));
    }
    if let Some(data) = b.data
        && data.chunks_exact(4).any(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]) == 0.0)
    {
        return bad("its divisor is a constant holding 0, which TFLite Micro refuses");
    }
    let (x, y) = operands(cx, op)?;
    let t = ty(out);
    let rank = t.rank();
    let b_ty = Ty::new(&t.shape, "i1");
    let shift = cx.func.scalar("i8", 0);
    let reciprocal = cx.func.op("reciprocal", &[&y], "", y.ty.clone());
    let quotient = cx.func.op("mul", &[&x, &reciprocal, &shift], "", t.clone());
    let floor = cx.func.op("floor", &[&quotient], "", t.clone());
    // The remainder a - q·b must lie between 0 and b (b's sign): one step down or up if not.
    let remainder = |cx: &mut Cx, q: &Value| {
        let product = cx.func.op("mul", &[q, &y, &shift], "", t.clone());
        cx.func.op("sub", &[&x, &product], "", t.clone())
    };
    let r = remainder(cx, &floor);
    let zero = cx.func.broadcast_f32(rank, 0.0);
    let one = cx.func.broadcast_f32(rank, 1.0);
    let y_bool = y.ty.with_elem("i1");
    let positive = cx.func.op("greater", &[&y, &zero], "", y_bool.clone());
    let r_negative = cx.func.op("greater", &[&zero, &r], "", b_ty.clone());
    let r_positive = cx.func.op("greater", &[&r, &zero], "", b_ty.clone());
    // Too large: r on the other side of 0 from b.
    let over_when_positive = cx.func.op("logical_and", &[&positive, &r_negative], "", b_ty.clone());
    let negative_divisor = cx.func.op("logical_not", &[&positive], "", y_bool);
    let over_when_negative = cx.func.op("logical_and", &[&negative_divisor, &r_positive], "", b_ty.clone());
    let over = cx.func.op("logical_or", &[&over_when_positive, &over_when_negative], "", b_ty.clone());
    // Too small: |r| reaches |b|.
    let r_abs = cx.func.op("abs", &[&r], "", t.clone());
    let y_abs = cx.func.op("abs", &[&y], "", y.ty.clone());
    let reaches = cx.func.op("greater_equal", &[&r_abs, &y_abs], "", b_ty.clone());
    let not_over = cx.func.op("logical_not", &[&over], "", b_ty.clone());
    let under = cx.func.op("logical_and", &[&reaches, &not_over], "", b_ty);
    let minus_one = cx.func.op("sub", &[&floor, &one], "", t.clone());
    let plus_one = cx.func.op("add", &[&floor, &one], "", t.clone());
    let stepped = cx.func.op("select", &[&under, &plus_one, &floor], "", t.clone());
    let q = cx.func.op("select", &[&over, &minus_one, &stepped], "", t.clone());
    let z = if op.kind == "FLOOR_DIV" { q } else { remainder(cx, &q) };
    cx.define(op, 0, z)
}

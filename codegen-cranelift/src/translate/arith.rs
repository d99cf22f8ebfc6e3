//! `arith` ops. Integers are kept sign-extended in their container (i1 as 0/1), so each op
//! converts to the signed or unsigned view it needs and normalizes its result.

use crate::{
    Result,
    translate::state::{FnCx, Val, unsupported},
    types::Scalar,
};
use cranelift_codegen::ir::{
    InstBuilder, MemFlagsData, Value,
    condcodes::{FloatCC, IntCC},
    types,
};
use cranelift_module::Module;
use melior::ir::{AttributeLike, OperationRef, operation::OperationLike};

/// Bits of the container of a `bits`-wide integer.
fn container_bits(bits: u32) -> u32 {
    crate::types::container(bits).bits()
}

impl<M: Module> FnCx<'_, '_, M> {
    /// Re-establishes the canonical form of a `bits`-wide integer after arithmetic.
    pub(crate) fn norm(&mut self, x: Value, bits: u32) -> Value {
        let cbits = container_bits(bits);
        if bits == cbits {
            x
        } else if bits == 1 {
            self.b.ins().band_imm_s(x, 1)
        } else {
            let shift = i64::from(cbits - bits);
            let up = self.b.ins().ishl_imm_s(x, shift);
            self.b.ins().sshr_imm_s(up, shift)
        }
    }

    /// The value as a sign-extended container value (i1 true becomes -1).
    pub(crate) fn signed(&mut self, x: Value, bits: u32) -> Value {
        if bits == 1 { self.b.ins().ineg(x) } else { x }
    }

    /// The value as a zero-extended container value.
    pub(crate) fn unsigned(&mut self, x: Value, bits: u32) -> Value {
        let cbits = container_bits(bits);
        if bits == cbits || bits == 1 { x } else { self.b.ins().band_imm_s(x, ((1u64 << bits) - 1) as i64) }
    }

    /// An integer constant of a scalar type, masked to its container.
    pub(crate) fn iconst(&mut self, s: Scalar, value: i64) -> Value {
        let ty = s.clif();
        let bits = s.int_bits().unwrap_or(64);
        let canonical = if bits == 1 {
            value & 1
        } else if bits < 64 {
            (value << (64 - bits)) >> (64 - bits)
        } else {
            value
        };
        let masked = if ty.bits() < 64 { canonical & ((1i64 << ty.bits()) - 1) } else { canonical };
        self.b.ins().iconst(ty, masked)
    }

    /// Converts an integer between widths: sign- or zero-extending, or truncating.
    pub(crate) fn convert_int(&mut self, x: Value, from: u32, to: u32, signed: bool) -> Value {
        let (cf, ct) = (crate::types::container(from), crate::types::container(to));
        let x = if signed { self.signed(x, from) } else { self.unsigned(x, from) };
        let x = if ct.bits() > cf.bits() {
            if signed { self.b.ins().sextend(ct, x) } else { self.b.ins().uextend(ct, x) }
        } else if ct.bits() < cf.bits() {
            self.b.ins().ireduce(ct, x)
        } else {
            x
        };
        self.norm(x, to)
    }
}

/// Translates one `arith` op.
pub(crate) fn translate<M: Module>(cx: &mut FnCx<M>, op: &OperationRef, name: &str) -> Result<()> {
    let op_name = name.trim_start_matches("arith.");
    match op_name {
        "constant" => constant(cx, op),
        "addi" | "subi" | "muli" | "andi" | "ori" | "xori" | "shli" | "shrsi" | "shrui" | "divsi" | "divui"
        | "remsi" | "remui" | "maxsi" | "minsi" | "maxui" | "minui" | "ceildivsi" | "floordivsi" | "ceildivui" => {
            int_binary(cx, op, op_name)
        }
        "addf" | "subf" | "mulf" | "divf" | "maximumf" | "minimumf" | "maxnumf" | "minnumf" | "remf" => {
            float_binary(cx, op, op_name)
        }
        "negf" => {
            let x = cx.scalar(op, 0)?;
            let r = cx.b.ins().fneg(x);
            cx.set_result(op, 0, Val::S(r));
            Ok(())
        }
        "cmpi" => cmpi(cx, op),
        "cmpf" => cmpf(cx, op),
        "select" => {
            let (c, a, b) = (cx.scalar(op, 0)?, cx.operand(op, 1)?, cx.operand(op, 2)?);
            match (a, b) {
                (Val::S(a), Val::S(b)) => {
                    let r = cx.b.ins().select(c, a, b);
                    cx.set_result(op, 0, Val::S(r));
                    Ok(())
                }
                _ => Err(unsupported(op.location(), "arith.select on memrefs is not supported")),
            }
        }
        "extsi" | "extui" | "trunci" | "index_cast" | "index_castui" => {
            let (from, to) = (cx.operand_scalar(op, 0)?, cx.result_scalar(op, 0)?);
            let (Some(fb), Some(tb)) = (from.int_bits(), to.int_bits()) else {
                return Err(unsupported(op.location(), "integer cast of a non-integer"));
            };
            let x = cx.scalar(op, 0)?;
            let signed = matches!(op_name, "extsi" | "index_cast" | "trunci");
            let r = cx.convert_int(x, fb, tb, signed);
            cx.set_result(op, 0, Val::S(r));
            Ok(())
        }
        "sitofp" | "uitofp" => {
            let (from, to) = (cx.operand_scalar(op, 0)?, cx.result_scalar(op, 0)?);
            let bits = from.int_bits().unwrap_or(64);
            let x = cx.scalar(op, 0)?;
            let signed = op_name == "sitofp";
            // Widen to 64 bits first: every width then converts the same way.
            let wide = cx.convert_int(x, bits, 64, signed);
            let r = if signed {
                cx.b.ins().fcvt_from_sint(to.clif(), wide)
            } else {
                cx.b.ins().fcvt_from_uint(to.clif(), wide)
            };
            cx.set_result(op, 0, Val::S(r));
            Ok(())
        }
        "fptosi" | "fptoui" => {
            let to = cx.result_scalar(op, 0)?;
            let bits = to.int_bits().unwrap_or(64);
            let x = cx.scalar(op, 0)?;
            // Out of range is poison in MLIR; saturating never traps.
            let wide = if op_name == "fptosi" {
                cx.b.ins().fcvt_to_sint_sat(types::I64, x)
            } else {
                cx.b.ins().fcvt_to_uint_sat(types::I64, x)
            };
            let r = cx.convert_int(wide, 64, bits, true);
            cx.set_result(op, 0, Val::S(r));
            Ok(())
        }
        "extf" | "truncf" => {
            let (from, to) = (cx.operand_scalar(op, 0)?, cx.result_scalar(op, 0)?);
            let x = cx.scalar(op, 0)?;
            let r = match (from, to) {
                (Scalar::F32, Scalar::F64) => cx.b.ins().fpromote(types::F64, x),
                (Scalar::F64, Scalar::F32) => cx.b.ins().fdemote(types::F32, x),
                (a, b) if a == b => x,
                _ => {
                    return Err(unsupported(op.location(), "float conversion between unsupported types"));
                }
            };
            cx.set_result(op, 0, Val::S(r));
            Ok(())
        }
        "bitcast" => {
            let (from, to) = (cx.operand_scalar(op, 0)?, cx.result_scalar(op, 0)?);
            let x = cx.scalar(op, 0)?;
            let r = if from.clif() == to.clif() {
                x
            } else if from.clif().bits() == to.clif().bits() {
                cx.b.ins().bitcast(to.clif(), MemFlagsData::new(), x)
            } else {
                return Err(unsupported(op.location(), "bitcast between types of different widths"));
            };
            cx.set_result(op, 0, Val::S(r));
            Ok(())
        }
        "mulsi_extended" | "mului_extended" => mul_extended(cx, op, op_name == "mulsi_extended"),
        _ => Err(unsupported(op.location(), &format!("the Cranelift engine cannot translate '{name}'"))),
    }
}

fn constant<M: Module>(cx: &mut FnCx<M>, op: &OperationRef) -> Result<()> {
    let s = cx.result_scalar(op, 0)?;
    let attr = op.attribute("value").map_err(|_| unsupported(op.location(), "arith.constant without value"))?;
    let raw = attr.to_raw();
    // SAFETY: the attribute is alive; each accessor is used after its kind check.
    let v = unsafe {
        if mlir_sys::mlirAttributeIsAInteger(raw) {
            let bits = s.int_bits().unwrap_or(64);
            let value = if bits <= 64 { mlir_sys::mlirIntegerAttrGetValueInt(raw) } else { 0 };
            cx.iconst(s, value)
        } else if mlir_sys::mlirAttributeIsAFloat(raw) {
            let value = mlir_sys::mlirFloatAttrGetValueDouble(raw);
            match s {
                Scalar::F32 => cx.b.ins().f32const(value as f32),
                _ => cx.b.ins().f64const(value),
            }
        } else {
            return Err(unsupported(
                op.location(),
                "arith.constant of a vector or tensor is not supported by the Cranelift engine",
            ));
        }
    };
    cx.set_result(op, 0, Val::S(v));
    Ok(())
}

fn int_binary<M: Module>(cx: &mut FnCx<M>, op: &OperationRef, name: &str) -> Result<()> {
    let s = cx.result_scalar(op, 0)?;
    let Some(bits) = s.int_bits() else {
        return Err(unsupported(op.location(), "integer op on a non-integer type"));
    };
    let (a, b) = (cx.scalar(op, 0)?, cx.scalar(op, 1)?);
    let ty = s.clif();
    let r = match name {
        "addi" => cx.b.ins().iadd(a, b),
        "subi" => cx.b.ins().isub(a, b),
        "muli" => cx.b.ins().imul(a, b),
        "andi" => cx.b.ins().band(a, b),
        "ori" => cx.b.ins().bor(a, b),
        "xori" => cx.b.ins().bxor(a, b),
        "shli" => cx.b.ins().ishl(a, b),
        "shrsi" => {
            let a = cx.signed(a, bits);
            cx.b.ins().sshr(a, b)
        }
        "shrui" => {
            let a = cx.unsigned(a, bits);
            cx.b.ins().ushr(a, b)
        }
        "maxsi" | "minsi" => {
            let (a, b) = (cx.signed(a, bits), cx.signed(b, bits));
            if name == "maxsi" { cx.b.ins().smax(a, b) } else { cx.b.ins().smin(a, b) }
        }
        "maxui" | "minui" => {
            let (a, b) = (cx.unsigned(a, bits), cx.unsigned(b, bits));
            if name == "maxui" { cx.b.ins().umax(a, b) } else { cx.b.ins().umin(a, b) }
        }
        "divsi" | "remsi" | "ceildivsi" | "floordivsi" => {
            let (a, b) = (cx.signed(a, bits), cx.signed(b, bits));
            signed_division(cx, a, b, ty, name)
        }
        "divui" | "remui" | "ceildivui" => {
            let (a, b) = (cx.unsigned(a, bits), cx.unsigned(b, bits));
            // Division by zero is undefined in MLIR; divide by 1 instead of trapping.
            let zero = cx.b.ins().icmp_imm_s(IntCC::Equal, b, 0);
            let one = cx.b.ins().iconst(ty, 1);
            let safe = cx.b.ins().select(zero, one, b);
            let q = cx.b.ins().udiv(a, safe);
            match name {
                "divui" => q,
                "remui" => cx.b.ins().urem(a, safe),
                _ => {
                    let r = cx.b.ins().urem(a, safe);
                    let nonzero = cx.b.ins().icmp_imm_s(IntCC::NotEqual, r, 0);
                    let bump = cx.b.ins().uextend(types::I64, nonzero);
                    let bump = if ty == types::I64 { bump } else { cx.b.ins().ireduce(ty, bump) };
                    cx.b.ins().iadd(q, bump)
                }
            }
        }
        _ => return Err(unsupported(op.location(), &format!("arith.{name}"))),
    };
    let r = cx.norm(r, bits);
    cx.set_result(op, 0, Val::S(r));
    Ok(())
}

/// Signed division without traps: x / 0 and MIN / -1 are undefined in MLIR, so any value will
/// do, but Cranelift's `sdiv` would trap on them.
fn signed_division<M: Module>(
    cx: &mut FnCx<M>,
    a: Value,
    b: Value,
    ty: cranelift_codegen::ir::Type,
    name: &str,
) -> Value {
    let zero = cx.b.ins().icmp_imm_s(IntCC::Equal, b, 0);
    let minus_one = cx.b.ins().icmp_imm_s(IntCC::Equal, b, -1);
    let bad = cx.b.ins().bor(zero, minus_one);
    let one = cx.b.ins().iconst(ty, 1);
    let safe = cx.b.ins().select(bad, one, b);
    let q = cx.b.ins().sdiv(a, safe);
    let r = cx.b.ins().srem(a, safe);
    // b == -1: quotient -a, remainder 0 (b == 0 gives a and 0: undefined anyway).
    let neg = cx.b.ins().ineg(a);
    let q = cx.b.ins().select(minus_one, neg, q);
    let zero_v = cx.b.ins().iconst(ty, 0);
    let r = cx.b.ins().select(minus_one, zero_v, r);
    match name {
        "divsi" => q,
        "remsi" => r,
        _ => {
            // Adjust the truncated quotient when the remainder is nonzero.
            let r_nonzero = cx.b.ins().icmp_imm_s(IntCC::NotEqual, r, 0);
            let r_neg = cx.b.ins().icmp_imm_s(IntCC::SignedLessThan, r, 0);
            let b_neg = cx.b.ins().icmp_imm_s(IntCC::SignedLessThan, b, 0);
            let same_sign = cx.b.ins().icmp(IntCC::Equal, r_neg, b_neg);
            let adjust = if name == "ceildivsi" {
                cx.b.ins().band(r_nonzero, same_sign)
            } else {
                let differ = cx.b.ins().bxor_imm_s(same_sign, 1);
                cx.b.ins().band(r_nonzero, differ)
            };
            let step = if name == "ceildivsi" { 1 } else { -1 };
            let moved = cx.b.ins().iadd_imm_s(q, step);
            cx.b.ins().select(adjust, moved, q)
        }
    }
}

fn float_binary<M: Module>(cx: &mut FnCx<M>, op: &OperationRef, name: &str) -> Result<()> {
    let s = cx.result_scalar(op, 0)?;
    let (a, b) = (cx.scalar(op, 0)?, cx.scalar(op, 1)?);
    let r = match name {
        "addf" => cx.b.ins().fadd(a, b),
        "subf" => cx.b.ins().fsub(a, b),
        "mulf" => cx.b.ins().fmul(a, b),
        "divf" => cx.b.ins().fdiv(a, b),
        // Cranelift's fmax/fmin propagate NaN and order -0 < +0, as maximumf/minimumf require.
        "maximumf" => cx.b.ins().fmax(a, b),
        "minimumf" => cx.b.ins().fmin(a, b),
        "maxnumf" | "minnumf" => {
            // NaN-ignoring: a NaN operand yields the other one.
            let m = if name == "maxnumf" { cx.b.ins().fmax(a, b) } else { cx.b.ins().fmin(a, b) };
            let a_nan = cx.b.ins().fcmp(FloatCC::Unordered, a, a);
            let b_nan = cx.b.ins().fcmp(FloatCC::Unordered, b, b);
            let m = cx.b.ins().select(b_nan, a, m);
            cx.b.ins().select(a_nan, b, m)
        }
        "remf" => {
            let (fname, ty) = if s == Scalar::F32 { ("fmodf", types::F32) } else { ("fmod", types::F64) };
            let f = cx.libcall(fname, &[ty, ty], &[ty])?;
            let call = cx.b.ins().call(f, &[a, b]);
            cx.b.inst_results(call)[0]
        }
        _ => return Err(unsupported(op.location(), &format!("arith.{name}"))),
    };
    cx.set_result(op, 0, Val::S(r));
    Ok(())
}

fn predicate(op: &OperationRef) -> Option<i64> {
    let attr = op.attribute("predicate").ok()?;
    // SAFETY: the attribute is alive and checked to be an integer.
    unsafe {
        mlir_sys::mlirAttributeIsAInteger(attr.to_raw()).then(|| mlir_sys::mlirIntegerAttrGetValueInt(attr.to_raw()))
    }
}

fn cmpi<M: Module>(cx: &mut FnCx<M>, op: &OperationRef) -> Result<()> {
    let s = cx.operand_scalar(op, 0)?;
    let bits = s.int_bits().unwrap_or(64);
    let (a, b) = (cx.scalar(op, 0)?, cx.scalar(op, 1)?);
    let Some(p) = predicate(op) else {
        return Err(unsupported(op.location(), "arith.cmpi without predicate"));
    };
    let (cc, view) = match p {
        0 => (IntCC::Equal, 0),
        1 => (IntCC::NotEqual, 0),
        2 => (IntCC::SignedLessThan, 1),
        3 => (IntCC::SignedLessThanOrEqual, 1),
        4 => (IntCC::SignedGreaterThan, 1),
        5 => (IntCC::SignedGreaterThanOrEqual, 1),
        6 => (IntCC::UnsignedLessThan, 2),
        7 => (IntCC::UnsignedLessThanOrEqual, 2),
        8 => (IntCC::UnsignedGreaterThan, 2),
        9 => (IntCC::UnsignedGreaterThanOrEqual, 2),
        _ => return Err(unsupported(op.location(), "unknown arith.cmpi predicate")),
    };
    let (a, b) = match view {
        1 => (cx.signed(a, bits), cx.signed(b, bits)),
        2 => (cx.unsigned(a, bits), cx.unsigned(b, bits)),
        _ => (a, b),
    };
    let r = cx.b.ins().icmp(cc, a, b);
    cx.set_result(op, 0, Val::S(r));
    Ok(())
}

fn cmpf<M: Module>(cx: &mut FnCx<M>, op: &OperationRef) -> Result<()> {
    let (a, b) = (cx.scalar(op, 0)?, cx.scalar(op, 1)?);
    let Some(p) = predicate(op) else {
        return Err(unsupported(op.location(), "arith.cmpf without predicate"));
    };
    let cc = match p {
        0 | 15 => {
            let r = cx.b.ins().iconst(types::I8, i64::from(p == 15));
            cx.set_result(op, 0, Val::S(r));
            return Ok(());
        }
        1 => FloatCC::Equal,
        2 => FloatCC::GreaterThan,
        3 => FloatCC::GreaterThanOrEqual,
        4 => FloatCC::LessThan,
        5 => FloatCC::LessThanOrEqual,
        6 => FloatCC::OrderedNotEqual,
        7 => FloatCC::Ordered,
        8 => FloatCC::UnorderedOrEqual,
        9 => FloatCC::UnorderedOrGreaterThan,
        10 => FloatCC::UnorderedOrGreaterThanOrEqual,
        11 => FloatCC::UnorderedOrLessThan,
        12 => FloatCC::UnorderedOrLessThanOrEqual,
        13 => FloatCC::NotEqual,
        14 => FloatCC::Unordered,
        _ => return Err(unsupported(op.location(), "unknown arith.cmpf predicate")),
    };
    let r = cx.b.ins().fcmp(cc, a, b);
    cx.set_result(op, 0, Val::S(r));
    Ok(())
}

fn mul_extended<M: Module>(cx: &mut FnCx<M>, op: &OperationRef, signed: bool) -> Result<()> {
    let s = cx.result_scalar(op, 0)?;
    let Some(bits) = s.int_bits() else {
        return Err(unsupported(op.location(), "extended multiply of a non-integer"));
    };
    let (a, b) = (cx.scalar(op, 0)?, cx.scalar(op, 1)?);
    let (low, high) = if bits <= 32 {
        let (wa, wb) = (cx.convert_int(a, bits, 64, signed), cx.convert_int(b, bits, 64, signed));
        let product = cx.b.ins().imul(wa, wb);
        let low = cx.convert_int(product, 64, bits, true);
        let shifted = if signed {
            cx.b.ins().sshr_imm_s(product, i64::from(bits))
        } else {
            cx.b.ins().ushr_imm_s(product, i64::from(bits))
        };
        let high = cx.convert_int(shifted, 64, bits, true);
        (low, high)
    } else if bits == 64 {
        let low = cx.b.ins().imul(a, b);
        let high = if signed { cx.b.ins().smulhi(a, b) } else { cx.b.ins().umulhi(a, b) };
        (low, high)
    } else {
        return Err(unsupported(op.location(), "extended multiply of widths between 33 and 63 bits"));
    };
    cx.set_result(op, 0, Val::S(low));
    cx.set_result(op, 1, Val::S(high));
    Ok(())
}

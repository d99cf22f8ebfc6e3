//! `math` ops: Cranelift instructions where it has them, libm calls for the rest.

use crate::{
    Result,
    translate::state::{FnCx, Val, unsupported},
    types::Scalar,
};
use cranelift_codegen::ir::{InstBuilder, types};
use cranelift_module::Module;
use melior::ir::{OperationRef, operation::OperationLike};

/// Translates one `math` op.
pub(crate) fn translate<M: Module>(cx: &mut FnCx<M>, op: &OperationRef, name: &str) -> Result<()> {
    let op_name = name.trim_start_matches("math.");
    let s = cx.result_scalar(op, 0)?;
    let x = cx.scalar(op, 0)?;
    let r = match op_name {
        "ctlz" | "cttz" | "ctpop" => {
            let Some(bits) = s.int_bits() else {
                return Err(unsupported(op.location(), "bit count of a non-integer"));
            };
            let cbits = s.clif().bits();
            let u = cx.unsigned(x, bits);
            let r = match op_name {
                "ctlz" => {
                    let lz = cx.b.ins().clz(u);
                    cx.b.ins().iadd_imm_s(lz, -i64::from(cbits - bits))
                }
                "cttz" => {
                    // A bit just above the value makes cttz(0) equal the width.
                    let guarded = if bits < cbits { cx.b.ins().bor_imm_s(u, 1i64 << bits) } else { u };
                    cx.b.ins().ctz(guarded)
                }
                _ => cx.b.ins().popcnt(u),
            };
            cx.norm(r, bits)
        }
        "absi" => {
            let bits = s.int_bits().unwrap_or(64);
            let v = cx.signed(x, bits);
            let r = cx.b.ins().iabs(v);
            cx.norm(r, bits)
        }
        "absf" => cx.b.ins().fabs(x),
        "sqrt" => cx.b.ins().sqrt(x),
        "rsqrt" => {
            let root = cx.b.ins().sqrt(x);
            let one = if s == Scalar::F32 { cx.b.ins().f32const(1.0) } else { cx.b.ins().f64const(1.0) };
            cx.b.ins().fdiv(one, root)
        }
        "floor" => cx.b.ins().floor(x),
        "ceil" => cx.b.ins().ceil(x),
        "trunc" => cx.b.ins().trunc(x),
        "roundeven" => cx.b.ins().nearest(x),
        "copysign" => {
            let y = cx.scalar(op, 1)?;
            cx.b.ins().fcopysign(x, y)
        }
        "fma" => {
            let (y, z) = (cx.scalar(op, 1)?, cx.scalar(op, 2)?);
            cx.b.ins().fma(x, y, z)
        }
        "exp" | "exp2" | "expm1" | "log" | "log2" | "log10" | "log1p" | "sin" | "cos" | "tan" | "asin" | "acos"
        | "atan" | "sinh" | "cosh" | "tanh" | "asinh" | "acosh" | "atanh" | "erf" | "erfc" | "cbrt" | "round" => {
            libm(cx, op_name, s, &[x])?
        }
        "powf" | "atan2" => {
            let y = cx.scalar(op, 1)?;
            libm(cx, if op_name == "powf" { "pow" } else { "atan2" }, s, &[x, y])?
        }
        _ => {
            return Err(unsupported(op.location(), &format!("the Cranelift engine cannot translate '{name}'")));
        }
    };
    cx.set_result(op, 0, Val::S(r));
    Ok(())
}

/// Calls libm's `name` (with the `f` suffix for f32).
fn libm<M: Module>(
    cx: &mut FnCx<M>,
    name: &str,
    s: Scalar,
    args: &[cranelift_codegen::ir::Value],
) -> Result<cranelift_codegen::ir::Value> {
    let (symbol, ty) = match s {
        Scalar::F32 => (format!("{name}f"), types::F32),
        _ => (name.to_string(), types::F64),
    };
    let params = vec![ty; args.len()];
    let f = cx.libcall(&symbol, &params, &[ty])?;
    let call = cx.b.ins().call(f, args);
    Ok(cx.b.inst_results(call)[0])
}

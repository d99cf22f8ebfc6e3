//! ADD and SUB (with broadcasting), QUANTIZE and DEQUANTIZE.

use super::{Cx, OpResult, Value, bad, per_tensor, scale32, unsupported};
use crate::model::{DType, Operator, Options};

/// `x` reshaped to `rank` dimensions with leading ones (TOSA broadcasts equal ranks only).
fn to_rank(cx: &mut Cx, x: &Value, rank: usize) -> Value {
    if x.ty.rank() >= rank {
        return x.clone();
    }
    let mut shape = vec![1; rank - x.ty.rank()];
    shape.extend_from_slice(&x.ty.shape);
    cx.func.reshape(x, &shape)
}

/// ADD or SUB. Float: the operation and the fused activation. int8: TFLite Micro's kernel, each
/// input `(q - zp) · 2^20` rescaled by `scale / (2 · max scale)`, the sum rescaled by
/// `2 · max scale / (2^20 · output scale)`, then the activation's clamp.
pub fn add_sub(cx: &mut Cx, op: &Operator, subtract: bool) -> OpResult {
    let (a, b, out) = (cx.tensor(op, 0)?, cx.tensor(op, 1)?, cx.output(op, 0)?);
    let Options::Arithmetic { activation, .. } = op.options else { return bad("its options are not ADD's or SUB's") };
    let name = if subtract { "sub" } else { "add" };
    let rank = out.shape.len();
    let x = cx.value(op, 0)?;
    let y = cx.value(op, 1)?;
    let (x, y) = (to_rank(cx, &x, rank), to_rank(cx, &y, rank));
    let result = match (a.dtype, b.dtype, out.dtype) {
        (DType::F32, DType::F32, DType::F32) => {
            let z = cx.func.op(name, &[&x, &y], "", out_ty(out));
            cx.float_activation(&z, activation)?
        }
        (DType::I8, DType::I8, DType::I8) => {
            let ((sa, za), (sb, zb), (so, zo)) =
                (per_tensor(a, "its first input")?, per_tensor(b, "its second input")?, per_tensor(out, "its output")?);
            let twice_max = 2.0 * f64::from(sa.max(sb));
            let shifted = |cx: &mut Cx, v: &Value, zp: i64, scale: f32| {
                let wide = cx.rescale(v, "i32", &[(1 << 30, 10)], zp, 0, true, true);
                cx.rescale(&wide, "i32", &[scale32(f64::from(scale) / twice_max)], 0, 0, true, true)
            };
            let x = shifted(cx, &x, za, sa);
            let y = shifted(cx, &y, zb, sb);
            let z = cx.func.op(name, &[&x, &y], "", out_ty(out).with_elem("i32"));
            let multiplier = scale32(twice_max / (f64::from(1u32 << 20) * f64::from(so)));
            let z = cx.rescale(&z, "i8", &[multiplier], 0, zo, true, true);
            cx.quantized_activation(&z, activation, out)?
        }
        (a, b, o) => return unsupported(format!("{} and {} to {}", a.name(), b.name(), o.name())),
    };
    cx.define(op, 0, result)
}

fn out_ty(out: &crate::model::Tensor) -> crate::emit::Ty {
    super::ty(out)
}

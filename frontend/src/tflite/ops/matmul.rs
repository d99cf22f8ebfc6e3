//! BATCH_MATMUL: `lhs · rhs` over the last two dimensions (each transposed first when its adj
//! flag says so), the batch dimensions broadcast (up to TFLite Micro's 5 dimensions), as a TOSA
//! `matmul` on `[batch, rows, depth] · [batch, depth, columns]`. int8: the zero points go into
//! the matmul, the 32-bit sum is scaled by `s_lhs · s_rhs / s_out` (TFLite's QuantizeMultiplier,
//! a double-rounding `rescale`) to the output zero point, saturated; int16 (zero points 0): the
//! 48-bit sum and TFLite Micro's 64-bit MultiplyByQuantizedMultiplier (16-bit multiplier).

use super::{Cx, OpResult, Value, bad, per_tensor, tile_to, to_rank, transpose_value, unsupported};
use crate::tflite::{
    emit::{Ty, float},
    model::{DType, Operator, Options},
    quant::{multiplier16, multiplier32},
};

pub fn batch_matmul(cx: &mut Cx, op: &Operator) -> OpResult {
    let (adj_x, adj_y) = match op.options {
        Options::BatchMatMul { adj_x, adj_y } => (adj_x, adj_y),
        Options::None => (false, false),
        _ => return bad("its options are not BATCH_MATMUL's"),
    };
    let (lhs, rhs, out) = (cx.tensor(op, 0)?, cx.tensor(op, 1)?, cx.output(op, 0)?);
    let rank = lhs.shape.len().max(rhs.shape.len());
    if lhs.shape.len() < 2 || rhs.shape.len() < 2 || rank > 5 {
        return bad(format!("it multiplies {:?} by {:?} (2 to 5 dimensions each)", lhs.shape, rhs.shape));
    }
    let x = cx.value(op, 0)?;
    let y = cx.value(op, 1)?;
    let (mut x, mut y) = (to_rank(cx, &x, rank), to_rank(cx, &y, rank));
    let last_two_swapped = |rank: usize| -> Vec<usize> {
        let mut perms: Vec<usize> = (0..rank).collect();
        perms.swap(rank - 2, rank - 1);
        perms
    };
    if adj_x {
        x = transpose_value(cx, &x, &last_two_swapped(rank));
    }
    if adj_y {
        y = transpose_value(cx, &y, &last_two_swapped(rank));
    }
    let (rows, depth) = (x.ty.shape[rank - 2], x.ty.shape[rank - 1]);
    let (depth_y, columns) = (y.ty.shape[rank - 2], y.ty.shape[rank - 1]);
    if depth != depth_y {
        return bad(format!("its operands' inner dimensions differ: {depth} and {depth_y}"));
    }
    let mut batch = Vec::with_capacity(rank - 2);
    for d in 0..rank - 2 {
        let (a, b) = (x.ty.shape[d], y.ty.shape[d]);
        batch.push(match (a, b) {
            _ if a == b => a,
            (1, _) => b,
            (_, 1) => a,
            _ => return bad(format!("its batch dimensions {:?} and {:?} do not broadcast", lhs.shape, rhs.shape)),
        });
    }
    let mut shape = batch.clone();
    shape.extend([rows, columns]);
    if out.shape != shape || lhs.dtype != out.dtype || rhs.dtype != out.dtype {
        return bad(format!("its output is {} {:?}, the product is {shape:?}", out.dtype.name(), out.shape));
    }
    let count: i64 = batch.iter().product();
    let operand = |cx: &mut Cx, v: &Value, inner: [i64; 2]| -> OpResult<Value> {
        let mut full = batch.clone();
        full.extend(inner);
        let tiled = tile_to(cx, v, &full)?;
        Ok(cx.func.reshape(&tiled, &[count, inner[0], inner[1]]))
    };
    let x = operand(cx, &x, [rows, depth])?;
    let y = operand(cx, &y, [depth, columns])?;
    let product = Ty::new(&[count, rows, columns], "f32");
    let z = match out.dtype {
        DType::F32 => {
            let zero = cx.func.constant(Ty::new(&[1], "f32"), float(0.0));
            cx.func.op("matmul", &[&x, &y, &zero, &zero], "", product)
        }
        DType::I8 | DType::I16 => {
            let (sl, zl) = per_tensor(lhs, "its first operand")?;
            let (sr, zr) = per_tensor(rhs, "its second operand")?;
            let (so, zo) = per_tensor(out, "its output")?;
            let wide = out.dtype == DType::I16;
            if wide && (zl != 0 || zr != 0 || zo != 0) {
                return bad("its int16 operands or output have a nonzero zero point, which TFLite Micro refuses");
            }
            let elem = out.dtype.mlir();
            let (a_zp, b_zp) = (cx.func.scalar(elem, zl), cx.func.scalar(elem, zr));
            let acc = if wide { "i48" } else { "i32" };
            let sum = cx.func.op("matmul", &[&x, &y, &a_zp, &b_zp], "", product.with_elem(acc));
            let scale = f64::from(sl) * f64::from(sr) / f64::from(so);
            let multiplier = if wide { multiplier16(scale) } else { multiplier32(scale) };
            cx.rescale(&sum, elem, &[multiplier], 0, zo, !wide, !wide)
        }
        other => return unsupported(format!("BATCH_MATMUL of {}", other.name())),
    };
    let z = cx.func.reshape(&z, &out.shape);
    cx.define(op, 0, z)
}

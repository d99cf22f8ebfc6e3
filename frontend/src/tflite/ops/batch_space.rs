//! SPACE_TO_BATCH_ND and BATCH_TO_SPACE_ND (4-D NHWC, or 3-D NHC as NHWC with W = 1; constant
//! block shape, paddings and crops), as TFLite Micro's reference kernels move elements: output
//! batch `(row in block · block width + column in block) · N + n`. SPACE_TO_BATCH_ND pads with
//! real zero: 0.0, or a quantized tensor's zero point, as TFLite does. (TFLite Micro's kernel
//! reads a pad value it never sets: 0 in a fresh arena, stale bytes after other use; where the
//! zero point is 0 the two agree.) Written as a pad, a reshape to six dimensions, a transpose
//! and a reshape (BATCH_TO_SPACE_ND: the reverse, then a slice for the crops).

use super::{Cx, OpResult, bad, check_output, constant_ints, per_tensor, transpose_value, unsupported};
use crate::tflite::{
    emit::{Ty, float},
    model::{DType, Operator},
};

/// The input as NHWC `[n, h, w, c]`, and the block shape and paddings (or crops) as
/// `[bh, bw]` and `[top, bottom, left, right]`, a 3-D input taking W = 1, block 1, no padding.
#[allow(clippy::type_complexity)]
fn geometry(cx: &Cx, op: &Operator) -> OpResult<([i64; 4], [i64; 2], [i64; 4])> {
    let input = cx.tensor(op, 0)?;
    let block = constant_ints(cx.tensor(op, 1)?)?;
    let pads = constant_ints(cx.tensor(op, 2)?)?;
    match (input.shape.as_slice(), block.as_slice(), pads.as_slice()) {
        (&[n, h, w, c], &[bh, bw], &[t, b, l, r]) => Ok(([n, h, w, c], [bh, bw], [t, b, l, r])),
        (&[n, h, c], &[bh], &[t, b]) => Ok(([n, h, 1, c], [bh, 1], [t, b, 0, 0])),
        _ => bad(format!(
            "its input {:?}, block shape {block:?} and paddings {pads:?} are not 3-D or 4-D with 1 or 2 spatial dimensions",
            input.shape
        )),
    }
}

/// SPACE_TO_BATCH_ND.
pub fn space_to_batch(cx: &mut Cx, op: &Operator) -> OpResult {
    let ([n, h, w, c], [bh, bw], [top, bottom, left, right]) = geometry(cx, op)?;
    let input = cx.tensor(op, 0)?;
    if bh < 1 || bw < 1 || [top, bottom, left, right].iter().any(|&p| p < 0) {
        return bad(format!("block {bh}x{bw} with paddings {:?}", [top, bottom, left, right]));
    }
    let (hp, wp) = (h + top + bottom, w + left + right);
    if hp % bh != 0 || wp % bw != 0 {
        return bad(format!("block {bh}x{bw} does not divide the padded {hp}x{wp}"));
    }
    let Some(batch) = n.checked_mul(bh).and_then(|b| b.checked_mul(bw)) else {
        return bad(format!("block {bh}x{bw} of batch {n} overflows"));
    };
    let mut out_shape = vec![batch, hp / bh, wp / bw, c];
    if input.shape.len() == 3 {
        out_shape.remove(2);
    }
    check_output(cx, op, 0, &out_shape, input.dtype)?;
    let zero = match input.dtype {
        DType::F32 => cx.func.constant(Ty::new(&[1], "f32"), float(0.0)),
        DType::I8 | DType::I16 => {
            let (_, zp) = per_tensor(cx.output(op, 0)?, "its output")?;
            cx.func.scalar(input.dtype.mlir(), zp)
        }
        DType::I32 => cx.func.scalar("i32", 0),
        other => return unsupported(format!("SPACE_TO_BATCH_ND of {}", other.name())),
    };
    let x = cx.value(op, 0)?;
    let x = cx.func.reshape(&x, &[n, h, w, c]);
    let padding = cx.func.shape(&[0, 0, top, bottom, left, right, 0, 0]);
    let padded = cx.func.op("pad", &[&x, &padding, &zero], "", x.ty.with_shape(&[n, hp, wp, c]));
    let six = cx.func.reshape(&padded, &[n, hp / bh, bh, wp / bw, bw, c]);
    let moved = transpose_value(cx, &six, &[2, 4, 0, 1, 3, 5]);
    let y = cx.func.reshape(&moved, &out_shape);
    cx.define(op, 0, y)
}

/// BATCH_TO_SPACE_ND.
pub fn batch_to_space(cx: &mut Cx, op: &Operator) -> OpResult {
    let ([n, h, w, c], [bh, bw], [top, bottom, left, right]) = geometry(cx, op)?;
    let input = cx.tensor(op, 0)?;
    if bh < 1 || bw < 1 || n % (bh * bw) != 0 || [top, bottom, left, right].iter().any(|&p| p < 0) {
        return bad(format!("block {bh}x{bw} of batch {n} with crops {:?}", [top, bottom, left, right]));
    }
    let batch = n / (bh * bw);
    let (Some(high), Some(wide)) = (h.checked_mul(bh), w.checked_mul(bw)) else {
        return bad(format!("block {bh}x{bw} of {h}x{w} overflows"));
    };
    let (hs, ws) = (high - top - bottom, wide - left - right);
    if hs < 1 || ws < 1 {
        return bad(format!("its crops leave {hs}x{ws}"));
    }
    let mut out_shape = vec![batch, hs, ws, c];
    if input.shape.len() == 3 {
        out_shape.remove(2);
    }
    check_output(cx, op, 0, &out_shape, input.dtype)?;
    let x = cx.value(op, 0)?;
    let six = cx.func.reshape(&x, &[bh, bw, batch, h, w, c]);
    let moved = transpose_value(cx, &six, &[2, 3, 0, 4, 1, 5]);
    let spread = cx.func.reshape(&moved, &[batch, high, wide, c]);
    let start = cx.func.shape(&[0, top, left, 0]);
    let size = cx.func.shape(&[batch, hs, ws, c]);
    let cropped = cx.func.op("slice", &[&spread, &start, &size], "", spread.ty.with_shape(&[batch, hs, ws, c]));
    let y = cx.func.reshape(&cropped, &out_shape);
    cx.define(op, 0, y)
}

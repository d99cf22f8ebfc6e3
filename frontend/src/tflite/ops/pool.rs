//! AVERAGE_POOL_2D, MAX_POOL_2D and MEAN.

use super::{
    Cx, OpResult, bad,
    conv::{fit_to_stride, padding},
    per_tensor, unsupported,
};
use crate::tflite::{
    emit::Ty,
    model::{DType, Operator, Options},
};

/// A 2-D pooling: TOSA's `avg_pool2d` (which, like TFLite Micro, averages over the window's
/// elements inside the input only and rounds the integer average half away from zero) or
/// `max_pool2d`, then the fused activation.
pub fn pool(cx: &mut Cx, op: &Operator, average: bool) -> OpResult {
    let input = cx.tensor(op, 0)?;
    let output = cx.output(op, 0)?;
    let Options::Pool { same, stride, filter, activation } = op.options else {
        return bad("its options are not a pooling's");
    };
    let ([_, h, w, _], [_, oh, ow, _]) = (dims(&input.shape)?, dims(&output.shape)?);
    let ph = padding(same, h, filter[0], stride[0], 1, oh);
    let pw = padding(same, w, filter[1], stride[1], 1, ow);
    let x = cx.value(op, 0)?;
    let (x, [ph, pw]) = fit_to_stride(cx, &x, filter, stride, [ph, pw]);
    let window = format!(
        "kernel = array<i64: {}, {}>, pad = array<i64: {}, {}, {}, {}>, stride = array<i64: {}, {}>",
        filter[0], filter[1], ph[0], ph[1], pw[0], pw[1], stride[0], stride[1]
    );
    if input.dtype != output.dtype {
        return bad("its input and output types differ");
    }
    let result_ty = Ty::new(&output.shape, output.dtype.mlir());
    let y = match (input.dtype, average) {
        (DType::F32, true) => {
            let zero = cx.func.constant(Ty::new(&[1], "f32"), "0.000000e+00".into());
            cx.func.op("avg_pool2d", &[&x, &zero, &zero], &format!("acc_type = f32, {window}"), result_ty)
        }
        (DType::I8 | DType::I16, true) => {
            if input.quantization != output.quantization {
                return unsupported("its input and output are quantized differently");
            }
            // TFLite Micro averages the stored integers: the zero points cancel.
            let zero = cx.func.scalar(input.dtype.mlir(), 0);
            cx.func.op("avg_pool2d", &[&x, &zero, &zero], &format!("acc_type = i32, {window}"), result_ty)
        }
        (DType::F32 | DType::I8 | DType::I16, false) => {
            if input.dtype != DType::F32 && input.quantization != output.quantization {
                return unsupported("its input and output are quantized differently");
            }
            cx.func.op("max_pool2d", &[&x], &window, result_ty)
        }
        (other, _) => return unsupported(format!("{} pooling", other.name())),
    };
    let y = match (input.dtype, activation) {
        (_, 0) => y,
        (DType::F32, a) => cx.float_activation(&y, a)?,
        (_, a) => cx.quantized_activation(&y, a, output)?,
    };
    cx.define(op, 0, y)
}

fn dims(shape: &[i64]) -> OpResult<[i64; 4]> {
    match shape {
        [a, b, c, d] => Ok([*a, *b, *c, *d]),
        _ => bad(format!("a pooling takes 4-D tensors, not {shape:?}")),
    }
}

/// MEAN over constant axes. Integer, one quantization in and out: the input less its zero point
/// summed in 32 bits, then divided by the element count as a multiplier `⌊2^s / count⌋`; float: a
/// sum times `1 / count`.
pub fn mean(cx: &mut Cx, op: &Operator) -> OpResult {
    let input = cx.tensor(op, 0)?;
    let axes_tensor = cx.tensor(op, 1)?;
    let output = cx.output(op, 0)?;
    let Some(data) = axes_tensor.data else { return unsupported("its axes are not a constant") };
    let rank = input.shape.len() as i64;
    let mut axes: Vec<i64> = match axes_tensor.dtype {
        DType::I32 => data.chunks_exact(4).map(|c| i64::from(i32::from_le_bytes([c[0], c[1], c[2], c[3]]))).collect(),
        _ => return bad("its axes are not INT32"),
    };
    for axis in &mut axes {
        if *axis < -rank || *axis >= rank {
            return bad(format!("axis {axis} is outside a rank-{rank} input"));
        }
        *axis = axis.rem_euclid(rank);
    }
    axes.sort_unstable();
    axes.dedup();
    let count: i64 = axes.iter().map(|&a| input.shape[a as usize]).product();
    if count <= 0 {
        return bad("it averages over no element");
    }
    let x = cx.value(op, 0)?;
    let sum = |cx: &mut Cx, mut y: super::Value| {
        for &axis in &axes {
            let mut shape = y.ty.shape.clone();
            shape[axis as usize] = 1;
            let result = Ty::new(&shape, y.ty.elem);
            y = cx.func.op("reduce_sum", &[&y], &format!("axis = {axis} : i32"), result);
        }
        y
    };
    let y = match input.dtype {
        DType::F32 => {
            let total = sum(cx, x);
            let rank = total.ty.rank();
            let shift = cx.func.scalar("i8", 0);
            let factor = cx.func.broadcast_f32(rank, 1.0 / count as f32);
            cx.func.op("mul", &[&total, &factor, &shift], "", total.ty.clone())
        }
        DType::I8 | DType::I16 => {
            let (in_scale, in_zp) = per_tensor(input, "its input")?;
            let (out_scale, out_zp) = per_tensor(output, "its output")?;
            let wide = cx.rescale(&x, "i32", &[(1 << 30, 30)], in_zp, 0, true, true);
            let total = sum(cx, wide);
            if in_scale != out_scale {
                // TFLite Micro's multiplier for a rescaling mean is not reproduced yet.
                return unsupported("MEAN into another quantization than its input's");
            }
            // The sum divided by the count as `⌊2^s / count⌋`.
            let bits = 64 - (count as u64).leading_zeros() as i64;
            let shift = 29 + bits;
            let multiplier = (((1i64 << shift) / count) as i32, shift as i8);
            cx.rescale(&total, output.dtype.mlir(), &[multiplier], 0, out_zp, true, true)
        }
        other => return unsupported(format!("MEAN of {}", other.name())),
    };
    let y = cx.func.reshape(&y, &output.shape);
    cx.define(op, 0, y)
}

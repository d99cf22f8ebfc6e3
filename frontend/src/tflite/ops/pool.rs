//! AVERAGE_POOL_2D, MAX_POOL_2D and L2_POOL_2D.

use super::{
    Cx, OpResult, bad,
    conv::{fit_to_stride, padding},
    unsupported,
};
use crate::tflite::{
    emit::Ty,
    model::{DType, Operator, Options},
};

/// A 2-D pooling: TOSA's `avg_pool2d` (which, like TFLite Micro, averages over the window's
/// elements inside the input only and rounds the integer average half away from zero) or
/// `max_pool2d`, or for L2_POOL_2D the square root of the average of squares; then the fused
/// activation.
pub fn pool(cx: &mut Cx, op: &Operator) -> OpResult {
    let average = op.kind == "AVERAGE_POOL_2D";
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
        (DType::F32, _) if op.kind == "L2_POOL_2D" => {
            // TFLite Micro's `sqrt(Σ x² / count)` over the window's elements inside the input:
            // the average of the squares, its square root as 1 / rsqrt (0 at 0).
            let shift = cx.func.scalar("i8", 0);
            let squares = cx.func.op("mul", &[&x, &x, &shift], "", x.ty.clone());
            let zero = cx.func.constant(Ty::new(&[1], "f32"), "0.000000e+00".into());
            let mean =
                cx.func.op("avg_pool2d", &[&squares, &zero, &zero], &format!("acc_type = f32, {window}"), result_ty);
            let inverse = cx.func.op("rsqrt", &[&mean], "", mean.ty.clone());
            cx.func.op("reciprocal", &[&inverse], "", mean.ty.clone())
        }
        (_, _) if op.kind == "L2_POOL_2D" => {
            return unsupported(format!("L2_POOL_2D of {} (TFLite Micro takes float32)", input.dtype.name()));
        }
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

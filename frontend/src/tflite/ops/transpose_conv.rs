//! TRANSPOSE_CONV as `tosa.transpose_conv2d`.

use super::{
    Cx, OpResult, bad,
    conv::{conv_multipliers, dims4, filter_scales, integer_bias, padding},
    per_tensor, ty, unsupported,
};
use crate::tflite::{
    emit::{Ty, float},
    model::{DType, Operator, Options},
};

/// TRANSPOSE_CONV (operands: output shape, filter `[O, KH, KW, I]`, input, optional bias).
/// TFLite Micro scatters each input pixel times the filter onto the output at
/// `input position · stride - pad`, where `pad` is the top/left padding ComputePaddingHeightWidth
/// gives for a convolution from the output's size; `tosa.transpose_conv2d` with `out_pad` the
/// negated padding (and whatever the output's size leaves at the bottom/right) sums the same
/// products. int8: 32-bit accumulators with the input zero point, the per-channel
/// MultiplyByQuantizedMultiplier (`rescale`, double rounding); int16 (16x8): 64-bit
/// accumulators (TOSA's i48), the 64-bit MultiplyByQuantizedMultiplier with a 16-bit multiplier
/// (`rescale`, single rounding, as the convolutions write it); then the activation's clamp.
/// float32: the same sums in f32 (in another order than TFLite Micro's scatter, so within
/// rounding), then the float activation.
pub fn transpose_conv(cx: &mut Cx, op: &Operator) -> OpResult {
    let filter = cx.tensor(op, 1)?;
    let input = cx.tensor(op, 2)?;
    let output = cx.output(op, 0)?;
    let Options::TransposeConv { same, stride, activation } = op.options else {
        return bad("its options are not TRANSPOSE_CONV's");
    };
    let Some(filter_data) = filter.data else { return unsupported("its filter is not a constant") };
    let [n, ih, iw, ic] = dims4(input)?;
    let [on, oh, ow, oc] = dims4(output)?;
    let [fo, kh, kw, fi] = dims4(filter)?;
    if fi != ic || fo != oc || on != n {
        return bad(format!("its filter {:?} does not fit {:?} to {:?}", filter.shape, input.shape, output.shape));
    }
    if stride.iter().any(|&s| s < 1) {
        return bad(format!("its strides are {stride:?}"));
    }
    // TFLite's padding for the convolution this one transposes: from the output's size to the
    // size that convolution would give.
    let conv_out = |size: i64, k: i64, s: i64| if same { (size + s - 1) / s } else { (size - k + s) / s };
    let top = padding(same, oh, kh, stride[0], 1, conv_out(oh, kh, stride[0]))[0];
    let left = padding(same, ow, kw, stride[1], 1, conv_out(ow, kw, stride[1]))[0];
    let bottom = oh - (ih - 1) * stride[0] - kh + top;
    let right = ow - (iw - 1) * stride[1] - kw + left;
    if bottom <= -kh || right <= -kw {
        return unsupported(format!("an output {:?} that crops past the filter's reach", output.shape));
    }
    let out_pad = format!(
        "out_pad = array<i64: {}, {bottom}, {}, {right}>, stride = array<i64: {}, {}>",
        -top, -left, stride[0], stride[1]
    );
    if (input.dtype, filter.dtype, output.dtype) == (DType::F32, DType::F32, DType::F32) {
        let x = cx.value(op, 2)?;
        let weights = cx.value(op, 1)?;
        let bias = match cx.optional(op, 3) {
            None => cx.func.constant(Ty::new(&[oc], "f32"), float(0.0)),
            Some(_) => cx.value(op, 3)?,
        };
        if bias.ty.shape != [oc] || bias.ty.elem != "f32" {
            return bad(format!("its bias is {}", bias.ty.text()));
        }
        let zero = cx.func.constant(Ty::new(&[1], "f32"), float(0.0));
        let attributes = format!("acc_type = f32, {out_pad}");
        let y = cx.func.op("transpose_conv2d", &[&x, &weights, &bias, &zero, &zero], &attributes, ty(output));
        let y = cx.float_activation(&y, activation)?;
        return cx.define(op, 0, y);
    }
    let (in_scale, in_zp) = per_tensor(input, "its input")?;
    let (out_scale, out_zp) = per_tensor(output, "its output")?;
    let wide = match (input.dtype, filter.dtype, output.dtype) {
        (DType::I8, DType::I8, DType::I8) => false,
        (DType::I16, DType::I8, DType::I16) => {
            if in_zp != 0 || out_zp != 0 {
                return unsupported("int16 with a nonzero zero point");
            }
            true
        }
        (a, b, _) => return unsupported(format!("{} inputs with {} weights", a.name(), b.name())),
    };
    let filter_scales = filter_scales(filter, oc)?;
    let acc = if wide { "i48" } else { "i32" };
    let bias = match cx.optional(op, 3) {
        None => cx.func.ints(&[1], acc, &[0]),
        Some(b) => integer_bias(cx, b, acc, oc)?,
    };
    let x = cx.value(op, 2)?;
    let weights = cx.func.bytes(Ty::new(&filter.shape, "i8"), filter_data);
    let izp = cx.func.scalar(input.dtype.mlir(), in_zp);
    let wzp = cx.func.scalar("i8", 0);
    let attributes = format!("acc_type = {acc}, {out_pad}");
    let y =
        cx.func.op("transpose_conv2d", &[&x, &weights, &bias, &izp, &wzp], &attributes, Ty::new(&output.shape, acc));
    let multipliers = conv_multipliers(in_scale, &filter_scales, out_scale, wide);
    let y = cx.rescale(&y, output.dtype.mlir(), &multipliers, 0, out_zp, !wide, !wide);
    let y = cx.quantized_activation(&y, activation, output)?;
    cx.define(op, 0, y)
}

//! CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED: a TOSA convolution (a fully connected layer
//! is a 1x1 convolution over `[batches, 1, 1, inputs]`), then for integer models the rescale of
//! TFLite Micro's per-channel multipliers (`input_scale · filter_scale[c] / output_scale`) and the
//! fused activation's clamp; for float models the activation.

use super::{Cx, OpResult, Value, bad, per_tensor, ty, unsupported};
use crate::tflite::{
    emit::Ty,
    model::{DType, Operator, Options, Tensor},
    quant::{multiplier16, multiplier32},
};

/// What kind of convolution.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Conv,
    Depthwise,
    FullyConnected,
}

pub fn conv2d(cx: &mut Cx, op: &Operator) -> OpResult {
    convolution(cx, op, Kind::Conv)
}

pub fn depthwise(cx: &mut Cx, op: &Operator) -> OpResult {
    convolution(cx, op, Kind::Depthwise)
}

pub fn fully_connected(cx: &mut Cx, op: &Operator) -> OpResult {
    convolution(cx, op, Kind::FullyConnected)
}

/// Padding before and after one spatial dimension (TFLite's ComputePaddingHeightWidth), from the
/// output size the model gives.
pub(super) fn padding(same: bool, input: i64, filter: i64, stride: i64, dilation: i64, output: i64) -> [i64; 2] {
    if !same {
        return [0, 0];
    }
    let effective = (filter - 1) * dilation + 1;
    let total = ((output - 1) * stride + effective - input).max(0);
    [total / 2, total - total / 2]
}

/// TOSA wants every input row and column a window covers to be covered exactly:
/// `input - 1 + padding - (effective filter - 1)` divisible by the stride. Rows and columns past
/// the last window are never read (TFLite drops them too): they go from the padding after, then
/// from the input (a `tosa.slice`). Returns the input and the padding to use.
pub(super) fn fit_to_stride(
    cx: &mut Cx,
    x: &Value,
    effective: [i64; 2],
    stride: [i64; 2],
    mut pads: [[i64; 2]; 2],
) -> (Value, [[i64; 2]; 2]) {
    let mut size = x.ty.shape.clone();
    for d in 0..2 {
        let extent = size[1 + d] - 1 + pads[d][0] + pads[d][1] - (effective[d] - 1);
        let mut excess = if stride[d] > 0 { extent.rem_euclid(stride[d]) } else { 0 };
        let from_padding = excess.min(pads[d][1]);
        pads[d][1] -= from_padding;
        excess -= from_padding;
        size[1 + d] -= excess;
    }
    if size == x.ty.shape {
        return (x.clone(), pads);
    }
    let start = cx.func.shape(&vec![0; size.len()]);
    let sizes = cx.func.shape(&size);
    (cx.func.op("slice", &[x, &start, &sizes], "", x.ty.with_shape(&size)), pads)
}

fn convolution(cx: &mut Cx, op: &Operator, kind: Kind) -> OpResult {
    let input = cx.tensor(op, 0)?;
    let filter = cx.tensor(op, 1)?;
    let output = cx.output(op, 0)?;
    let Some(filter_data) = filter.data else {
        return unsupported("its filter is not a constant");
    };
    let x = cx.value(op, 0)?;
    let (out_channels, activation, attributes, x, weights_shape, conv_out_shape) = match (kind, &op.options) {
        (Kind::FullyConnected, Options::FullyConnected { activation, shuffled, .. }) => {
            if *shuffled {
                return unsupported("its weights are in the shuffled 4x16 format");
            }
            let [o, i] = filter.shape[..] else { return bad(format!("its weights have shape {:?}", filter.shape)) };
            if i <= 0 || input.elements() % i != 0 {
                return bad(format!("its input {:?} does not divide into rows of {i}", input.shape));
            }
            let batches = input.elements() / i;
            let x = cx.func.reshape(&x, &[batches, 1, 1, i]);
            let attributes = "dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>";
            (o, *activation, attributes.to_string(), x, vec![o, 1, 1, i], vec![batches, 1, 1, o])
        }
        (Kind::Conv | Kind::Depthwise, Options::Conv { same, stride, dilation, activation, .. }) => {
            let [n, h, w, c] = dims4(input)?;
            let [_, oh, ow, oc] = dims4(output)?;
            let [fo, kh, kw, fi] = dims4(filter)?;
            let (weights_shape, out_channels) = if kind == Kind::Conv {
                if c != fi {
                    return unsupported(format!(
                        "its input has {c} channels and its filter {fi} (grouped convolution)"
                    ));
                }
                (vec![fo, kh, kw, fi], fo)
            } else {
                if fo != 1 || c <= 0 || fi % c != 0 {
                    return bad(format!("its filter {:?} does not fit its input's {c} channels", filter.shape));
                }
                (vec![kh, kw, c, fi / c], fi)
            };
            if oc != out_channels || output.shape[0] != n {
                return bad(format!("its output {:?} does not fit its filter {:?}", output.shape, filter.shape));
            }
            let ph = padding(*same, h, kh, stride[0], dilation[0], oh);
            let pw = padding(*same, w, kw, stride[1], dilation[1], ow);
            let effective = [(kh - 1) * dilation[0] + 1, (kw - 1) * dilation[1] + 1];
            let (x, [ph, pw]) = fit_to_stride(cx, &x, effective, *stride, [ph, pw]);
            let attributes = format!(
                "dilation = array<i64: {}, {}>, pad = array<i64: {}, {}, {}, {}>, stride = array<i64: {}, {}>",
                dilation[0], dilation[1], ph[0], ph[1], pw[0], pw[1], stride[0], stride[1]
            );
            (out_channels, *activation, attributes, x, weights_shape, vec![n, oh, ow, oc])
        }
        _ => return bad("its options are not a convolution's"),
    };
    let name = match kind {
        Kind::Depthwise => "depthwise_conv2d",
        _ => "conv2d",
    };
    let weights = cx.func.bytes(Ty::new(&weights_shape, filter.dtype.mlir()), filter_data);
    let bias = cx.optional(op, 2);
    let result = match (input.dtype, filter.dtype) {
        (DType::F32, DType::F32) => {
            let bias = match bias {
                Some(_) => cx.value(op, 2)?,
                None => cx.func.constant(Ty::new(&[out_channels], "f32"), "0.000000e+00".into()),
            };
            let _ = bias_len(bias.ty.shape.iter().product(), out_channels)?;
            let zero = cx.func.constant(Ty::new(&[1], "f32"), "0.000000e+00".into());
            let attributes = format!("acc_type = f32, {attributes}");
            let y =
                cx.func.op(name, &[&x, &weights, &bias, &zero, &zero], &attributes, Ty::new(&conv_out_shape, "f32"));
            let y = cx.float_activation(&y, activation)?;
            cx.func.reshape(&y, &output.shape)
        }
        (DType::I8 | DType::I16, DType::I8) => {
            let wide = input.dtype == DType::I16;
            let (in_scale, in_zp) = per_tensor(input, "its input")?;
            let (out_scale, out_zp) = per_tensor(output, "its output")?;
            let filter_scales = filter_scales(filter, out_channels)?;
            let acc = if wide { "i48" } else { "i32" };
            let bias = match bias {
                None => cx.func.ints(&[out_channels], acc, &[0]),
                Some(b) => integer_bias(cx, b, acc, out_channels)?,
            };
            let izp = cx.func.scalar(input.dtype.mlir(), if wide { 0 } else { in_zp });
            let wzp = cx.func.scalar("i8", 0);
            let attributes = format!("acc_type = {acc}, {attributes}");
            let y = cx.func.op(name, &[&x, &weights, &bias, &izp, &wzp], &attributes, Ty::new(&conv_out_shape, acc));
            let multipliers = conv_multipliers(in_scale, &filter_scales, out_scale, wide);
            let y = cx.rescale(&y, output.dtype.mlir(), &multipliers, 0, out_zp, !wide, !wide);
            let y = cx.quantized_activation(&y, activation, output)?;
            cx.func.reshape(&y, &output.shape)
        }
        (a, b) => return unsupported(format!("{} inputs with {} weights", a.name(), b.name())),
    };
    cx.define(op, 0, result)
}

/// TFLite Micro's per-channel multipliers of a convolution: `input_scale · filter_scale[c] /
/// output_scale` in double, 32-bit (16-bit for 16x8's 64-bit accumulators).
pub(super) fn conv_multipliers(in_scale: f32, filter_scales: &[f32], out_scale: f32, wide: bool) -> Vec<(i32, i8)> {
    filter_scales
        .iter()
        .map(|&s| {
            let scale = f64::from(in_scale) * f64::from(s) / f64::from(out_scale);
            if wide { multiplier16(scale) } else { multiplier32(scale) }
        })
        .collect()
}

pub(super) fn dims4(tensor: &Tensor) -> OpResult<[i64; 4]> {
    match tensor.shape[..] {
        [a, b, c, d] => Ok([a, b, c, d]),
        _ => bad(format!("'{}' has shape {:?}, not 4 dimensions", tensor.name, tensor.shape)),
    }
}

fn bias_len(len: i64, channels: i64) -> OpResult<i64> {
    if len == channels || len == 1 {
        Ok(len)
    } else {
        bad(format!("its bias has {len} values for {channels} channels"))
    }
}

/// The filter's scales, one per output channel (a per-tensor scale repeated is kept as one).
pub(super) fn filter_scales(filter: &Tensor, channels: i64) -> OpResult<Vec<f32>> {
    let Some(q) = &filter.quantization else {
        return unsupported("its weights are not quantized (hybrid models are not TFLite Micro's)");
    };
    if q.zero_point.iter().any(|&z| z != 0) {
        return unsupported("its weights have a nonzero zero point");
    }
    match q.scale.len() {
        1 => Ok(q.scale.clone()),
        n if n as i64 == channels => Ok(q.scale.clone()),
        n => bad(format!("its weights have {n} scales for {channels} channels")),
    }
}

/// An integer bias as a constant of the accumulator type (`i32`, or `i48` from TFLite's int64
/// biases of 16x8 models).
pub(super) fn integer_bias(cx: &mut Cx, bias: &Tensor, acc: &'static str, channels: i64) -> OpResult<Value> {
    let Some(data) = bias.data else { return unsupported("its bias is not a constant") };
    bias_len(bias.elements(), channels)?;
    let values: Vec<i64> = match bias.dtype {
        DType::I32 => data.chunks_exact(4).map(|c| i64::from(i32::from_le_bytes([c[0], c[1], c[2], c[3]]))).collect(),
        DType::I64 => data.chunks_exact(8).map(|c| i64::from_le_bytes(c.try_into().unwrap_or_default())).collect(),
        other => return bad(format!("its bias is {}", other.name())),
    };
    if acc == "i32" && bias.dtype == DType::I32 {
        return Ok(cx.func.bytes(ty(bias).with_elem("i32"), data));
    }
    Ok(cx.func.ints(&[values.len() as i64], acc, &values))
}

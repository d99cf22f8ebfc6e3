//! RESHAPE, STRIDED_SLICE, PAD, PADV2 and MIRROR_PAD: data movement, the same for every element
//! type.

use super::{Cx, OpResult, bad, check_output, constant_ints, per_tensor, unsupported};
use crate::tflite::{
    emit::{Ty, float},
    model::{DType, Operator, Options},
};

pub fn reshape(cx: &mut Cx, op: &Operator) -> OpResult {
    let input = cx.tensor(op, 0)?;
    let output = cx.output(op, 0)?;
    if input.elements() != output.elements() || input.dtype != output.dtype {
        return bad(format!("it reshapes {:?} to {:?}", input.shape, output.shape));
    }
    let x = cx.value(op, 0)?;
    let y = cx.func.reshape(&x, &output.shape);
    cx.define(op, 0, y)
}

/// STRIDED_SLICE with unit strides, as TFLite Micro's kernel reads its begin, end and masks
/// (negative indices count from the end; begin_mask and end_mask take the whole dimension;
/// shrink_axis_mask drops a dimension of one).
pub fn strided_slice(cx: &mut Cx, op: &Operator) -> OpResult {
    let input = cx.tensor(op, 0)?;
    let output = cx.output(op, 0)?;
    let Options::StridedSlice { begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask, offset } =
        op.options
    else {
        return bad("its options are not a strided slice's");
    };
    if ellipsis_mask != 0 || new_axis_mask != 0 {
        return unsupported("an ellipsis or new axis mask");
    }
    let begin = constant_ints(cx.tensor(op, 1)?)?;
    let end = constant_ints(cx.tensor(op, 2)?)?;
    let strides = constant_ints(cx.tensor(op, 3)?)?;
    let rank = input.shape.len();
    if begin.len() != rank || end.len() != rank || strides.len() != rank {
        return bad(format!("its begin, end and strides do not have {rank} values"));
    }
    if strides.contains(&0) {
        return bad("a stride is 0");
    }
    // Its masks are 32 bits (TFLite Micro slices at most 5 dimensions).
    if rank > 5 {
        return unsupported(format!("a rank-{rank} input (TFLite Micro slices at most 5 dimensions)"));
    }
    // Each axis's indices, as TFLite Micro's StridedSliceStartForAxis / EndForAxis and its
    // loop `for (i = start; stride > 0 ? i < stop : i > stop; i += stride)` take them.
    // (first index, stride, count) per axis.
    let mut picked: Vec<(i64, i64, i64)> = Vec::with_capacity(rank);
    for (d, &size) in input.shape.iter().enumerate() {
        let stride = strides[d];
        let clamp = |v: i64| if stride > 0 { v.clamp(0, size) } else { v.clamp(-1, size - 1) };
        let mut start = clamp(if begin[d] < 0 { begin[d] + size } else { begin[d] });
        if begin_mask >> d & 1 == 1 {
            start = if stride > 0 { 0 } else { size - 1 };
        }
        let stop = if shrink_axis_mask >> d & 1 == 1 {
            if start >= size { start } else { start + 1 }
        } else {
            let end = if offset { end[d] + start } else { end[d] };
            let mut stop = clamp(if end < 0 { end + size } else { end });
            if end_mask >> d & 1 == 1 {
                stop = if stride > 0 { size } else { -1 };
            }
            stop
        };
        // How many of start, start + stride, ... lie before stop.
        let span = if stride > 0 { stop - start } else { start - stop };
        let count = if span > 0 { (span + stride.abs() - 1) / stride.abs() } else { 0 };
        picked.push((start, stride, count));
    }
    let size: Vec<i64> = picked.iter().map(|p| p.2).collect();
    let expected: Vec<i64> =
        size.iter().enumerate().filter(|(d, _)| shrink_axis_mask >> d & 1 == 0).map(|(_, &s)| s).collect();
    if expected != output.shape {
        return bad(format!("it slices {size:?} of {:?}, but its output is {:?}", input.shape, output.shape));
    }
    if size.contains(&0) {
        return unsupported("an empty slice");
    }
    // The bounding box as a slice, then a gather along each axis whose stride is not 1.
    let low: Vec<i64> =
        picked.iter().map(|&(s, stride, n)| if stride > 0 { s } else { s + stride * (n - 1) }).collect();
    let extent: Vec<i64> = picked.iter().map(|&(_, stride, n)| stride.abs() * (n - 1) + 1).collect();
    let x = cx.value(op, 0)?;
    let low_shape = cx.func.shape(&low);
    let extent_shape = cx.func.shape(&extent);
    let mut y = cx.func.op("slice", &[&x, &low_shape, &extent_shape], "", x.ty.with_shape(&extent));
    for (d, &(start, stride, count)) in picked.iter().enumerate() {
        if stride != 1 {
            let relative: Vec<i64> = (0..count).map(|k| start + k * stride - low[d]).collect();
            y = super::gather_along(cx, &y, d, &relative);
        }
    }
    let y = cx.func.reshape(&y, &output.shape);
    cx.define(op, 0, y)
}

/// PAD and PADV2: TFLite Micro's `Pad`, each dimension padded before and after by the constant
/// paddings. The pad value: PADV2's constant operand; for PAD zero, which on a quantized tensor
/// is its output zero point (TFLite Micro pads with that). Written as `tosa.pad` with that value.
pub fn pad(cx: &mut Cx, op: &Operator) -> OpResult {
    let input = cx.tensor(op, 0)?;
    let output = cx.output(op, 0)?;
    let paddings = constant_ints(cx.tensor(op, 1)?)?;
    let rank = input.shape.len();
    if paddings.len() != 2 * rank {
        return bad(format!("its paddings have {} values for {rank} dimensions", paddings.len()));
    }
    if paddings.iter().any(|&p| p < 0) {
        return bad(format!("its paddings {paddings:?} are negative"));
    }
    let shape: Vec<i64> =
        input.shape.iter().enumerate().map(|(d, &n)| n + paddings[2 * d] + paddings[2 * d + 1]).collect();
    if shape != output.shape || input.dtype != output.dtype {
        return bad(format!("it pads {:?} by {paddings:?}, but its output is {:?}", input.shape, output.shape));
    }
    let constant = cx.optional(op, 2);
    let elem = input.dtype.mlir();
    let value = match input.dtype {
        DType::F32 => {
            let v = match constant {
                None => 0.0,
                Some(c) => match c.data {
                    Some(data) if data.len() == 4 => f32::from_le_bytes([data[0], data[1], data[2], data[3]]),
                    _ => return unsupported("its pad value is not one constant float"),
                },
            };
            cx.func.constant(Ty::new(&[1], "f32"), float(v))
        }
        DType::I8 | DType::I16 => {
            let (scale, zp) = per_tensor(output, "its output")?;
            let v = match constant {
                None => zp,
                Some(c) => {
                    if c.quantization.as_ref().and_then(|q| q.single()) != Some((scale, zp)) {
                        return unsupported("its pad value is quantized unlike its output");
                    }
                    match (c.data, c.dtype) {
                        (Some(&[b]), DType::I8) => i64::from(b as i8),
                        (Some(&[b0, b1]), DType::I16) => i64::from(i16::from_le_bytes([b0, b1])),
                        _ => return unsupported("its pad value is not one constant of its type"),
                    }
                }
            };
            cx.func.scalar(elem, v)
        }
        DType::I32 if constant.is_none() => cx.func.scalar(elem, 0),
        other => return unsupported(format!("PAD of {}", other.name())),
    };
    let x = cx.value(op, 0)?;
    let padding = cx.func.shape(&paddings);
    let y = cx.func.op("pad", &[&x, &padding, &value], "", Ty::new(&output.shape, elem));
    cx.define(op, 0, y)
}

/// MIRROR_PAD (REFLECT or SYMMETRIC, constant paddings): TFLite Micro's `GetInputDimension`
/// picks each padded index's source; the model gathers them along each padded axis. Raw
/// elements, any type.
pub fn mirror_pad(cx: &mut Cx, op: &Operator) -> OpResult {
    let Options::MirrorPad { symmetric } = op.options else { return bad("its options are not MIRROR_PAD's") };
    let input = cx.tensor(op, 0)?;
    let paddings = constant_ints(cx.tensor(op, 1)?)?;
    let rank = input.shape.len();
    if paddings.len() != 2 * rank {
        return bad(format!("its paddings have {} values for {rank} dimensions", paddings.len()));
    }
    // REFLECT leaves the edge out (offset 1), SYMMETRIC repeats it (offset 0).
    let offset = i64::from(!symmetric);
    for (d, &size) in input.shape.iter().enumerate() {
        let (before, after) = (paddings[2 * d], paddings[2 * d + 1]);
        if before < 0 || after < 0 || before > size - offset || after > size - offset {
            return bad(format!("padding {before} and {after} of a dimension of {size} (at most {})", size - offset));
        }
    }
    let shape: Vec<i64> =
        input.shape.iter().enumerate().map(|(d, &n)| n + paddings[2 * d] + paddings[2 * d + 1]).collect();
    check_output(cx, op, 0, &shape, input.dtype)?;
    let mut y = cx.value(op, 0)?;
    for (d, &size) in input.shape.iter().enumerate() {
        let (before, after) = (paddings[2 * d], paddings[2 * d + 1]);
        if before == 0 && after == 0 {
            continue;
        }
        let source = |i: i64| -> i64 {
            if i < before {
                let original = before + offset - 1;
                return original - i.min(original - offset);
            }
            let i = i - before;
            if i >= size {
                let original = size - (1 + offset);
                return original - (i - size).min(original);
            }
            i
        };
        let indices: Vec<i64> = (0..size + before + after).map(source).collect();
        y = super::gather_along(cx, &y, d, &indices);
    }
    cx.define(op, 0, y)
}

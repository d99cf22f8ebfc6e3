//! RESHAPE and STRIDED_SLICE: data movement, the same for every element type.

use super::{Cx, OpResult, bad, unsupported};
use crate::model::{DType, Operator, Options, Tensor};

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

/// The integers of a constant INT32 operand.
fn constant_ints(tensor: &Tensor) -> OpResult<Vec<i64>> {
    match (tensor.data, tensor.dtype) {
        (Some(data), DType::I32) => {
            Ok(data.chunks_exact(4).map(|c| i64::from(i32::from_le_bytes([c[0], c[1], c[2], c[3]]))).collect())
        }
        (Some(_), other) => bad(format!("'{}' is {}, not INT32", tensor.name, other.name())),
        (None, _) => unsupported(format!("'{}' is not a constant", tensor.name)),
    }
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
    if strides.iter().any(|&s| s != 1) {
        return unsupported(format!("strides {strides:?} (only unit strides are read)"));
    }
    let mut start = Vec::with_capacity(rank);
    let mut size = Vec::with_capacity(rank);
    for (d, &dim) in input.shape.iter().enumerate() {
        let fix = |v: i64| if v < 0 { v + dim } else { v };
        let b = if begin_mask >> d & 1 == 1 { 0 } else { fix(begin[d]).clamp(0, dim) };
        let e = if shrink_axis_mask >> d & 1 == 1 {
            b + 1
        } else if end_mask >> d & 1 == 1 {
            dim
        } else if offset {
            (b + end[d]).clamp(0, dim)
        } else {
            fix(end[d]).clamp(0, dim)
        };
        start.push(b);
        size.push((e - b).max(0));
    }
    let expected: Vec<i64> =
        size.iter().enumerate().filter(|(d, _)| shrink_axis_mask >> d & 1 == 0).map(|(_, &s)| s).collect();
    if expected != output.shape {
        return bad(format!("it slices {size:?} of {:?}, but its output is {:?}", input.shape, output.shape));
    }
    let x = cx.value(op, 0)?;
    let start = cx.func.shape(&start);
    let sizes = cx.func.shape(&size);
    let y = cx.func.op("slice", &[&x, &start, &sizes], "", x.ty.with_shape(&size));
    let y = cx.func.reshape(&y, &output.shape);
    cx.define(op, 0, y)
}

//! Data movement: CONCATENATION, TRANSPOSE, SQUEEZE, EXPAND_DIMS, PACK, UNPACK, SPLIT, SPLIT_V,
//! SLICE, GATHER, SPACE_TO_DEPTH, DEPTH_TO_SPACE, REVERSE_V2, BROADCAST_TO, ZEROS_LIKE, FILL,
//! SHAPE and BROADCAST_ARGS. TFLite Micro's kernels copy raw elements (a quantized tensor's integers as they are,
//! whatever the quantization of their output says), and so does each legalization here: exact for
//! every element type. Shape operands must be constants (TFLite Micro requires most of them to
//! be); a legalization checks its result's shape against the model's.

use super::{
    Cx, OpResult, bad, check_output, concat, constant_ints, per_tensor, positive_axis, slice, tile_to, transpose_value,
    ty, unsupported,
};
use crate::tflite::{
    emit::{Ty, float},
    model::{DType, Operator, Options},
};

/// CONCATENATION: TFLite Micro's `Concatenation` copies each input's raw elements. It refuses
/// a fused activation, int8 inputs quantized unlike the output (it never rescales) and int16
/// zero points other than 0; int16 inputs of other scales are copied as they are.
pub fn concatenation(cx: &mut Cx, op: &Operator) -> OpResult {
    let Options::Concatenation { axis, activation } = op.options else {
        return bad("its options are not CONCATENATION's");
    };
    if activation != 0 {
        return unsupported("a fused activation (TFLite Micro refuses one on CONCATENATION)");
    }
    let out = cx.output(op, 0)?;
    let rank = out.shape.len();
    let axis = positive_axis(axis, rank)?;
    if op.inputs.is_empty() || op.inputs.len() > 10 {
        return unsupported(format!("{} inputs (TFLite Micro concatenates 1 to 10)", op.inputs.len()));
    }
    let mut values = Vec::new();
    for k in 0..op.inputs.len() {
        let input = cx.tensor(op, k)?;
        if input.dtype != out.dtype || input.shape.len() != rank {
            return bad(format!("its input '{}' is not a rank-{rank} {}", input.name, out.dtype.name()));
        }
        match out.dtype {
            DType::I8 if per_tensor(input, "an input")? != per_tensor(out, "its output")? => {
                return unsupported("int8 inputs quantized unlike the output (TFLite Micro does not rescale)");
            }
            DType::I16 if per_tensor(input, "an input")?.1 != 0 || per_tensor(out, "its output")?.1 != 0 => {
                return unsupported("int16 with a nonzero zero point");
            }
            _ => {}
        }
        values.push(cx.value(op, k)?);
    }
    let y = concat(cx, &values, axis);
    cx.define(op, 0, y)
}

/// TRANSPOSE by a constant permutation.
pub fn transpose(cx: &mut Cx, op: &Operator) -> OpResult {
    let input = cx.tensor(op, 0)?;
    let perms = constant_ints(cx.tensor(op, 1)?)?;
    let rank = input.shape.len();
    let mut seen = vec![false; rank];
    let mut perm = Vec::with_capacity(rank);
    for &p in &perms {
        let p = positive_axis(p, rank)?;
        if std::mem::replace(&mut seen[p], true) {
            return bad(format!("its permutation {perms:?} repeats {p}"));
        }
        perm.push(p);
    }
    if perm.len() != rank || rank > 6 {
        return unsupported(format!("permutation {perms:?} of a rank-{rank} input"));
    }
    let shape: Vec<i64> = perm.iter().map(|&p| input.shape[p]).collect();
    check_output(cx, op, 0, &shape, input.dtype)?;
    let x = cx.value(op, 0)?;
    let y = transpose_value(cx, &x, &perm);
    cx.define(op, 0, y)
}

/// SQUEEZE and EXPAND_DIMS: the same elements in the output's shape (TFLite Micro copies them).
pub fn reshape_like(cx: &mut Cx, op: &Operator) -> OpResult {
    let input = cx.tensor(op, 0)?;
    let out = cx.output(op, 0)?;
    let rank = input.shape.len();
    let expected: Vec<i64> = if op.kind == "EXPAND_DIMS" {
        let axis = constant_ints(cx.tensor(op, 1)?)?;
        let &[axis] = axis.as_slice() else { return bad("its axis is not one integer") };
        let axis = positive_axis(axis, rank + 1)?;
        let mut shape = input.shape.clone();
        shape.insert(axis, 1);
        shape
    } else {
        let dims = match &op.options {
            Options::Squeeze { dims } => dims.as_slice(),
            Options::None => &[],
            _ => return bad("its options are not SQUEEZE's"),
        };
        let squeezed: Vec<usize> = dims.iter().map(|&d| positive_axis(d, rank)).collect::<OpResult<_>>()?;
        let keep = |&(d, &n): &(usize, &i64)| if squeezed.is_empty() { n != 1 } else { !squeezed.contains(&d) };
        if squeezed.iter().any(|&d| input.shape[d] != 1) {
            return bad(format!("it squeezes {dims:?} of {:?}", input.shape));
        }
        input.shape.iter().enumerate().filter(keep).map(|(_, &n)| n).collect()
    };
    check_output(cx, op, 0, &expected, input.dtype)?;
    let x = cx.value(op, 0)?;
    let y = cx.func.reshape(&x, &out.shape);
    cx.define(op, 0, y)
}

/// PACK: the inputs stacked along a new dimension `axis`.
pub fn pack(cx: &mut Cx, op: &Operator) -> OpResult {
    let Options::Axis { axis, count } = op.options else { return bad("its options are not PACK's") };
    let first = cx.tensor(op, 0)?;
    if count != op.inputs.len() as i64 {
        return bad(format!("it packs {count} values from {} inputs", op.inputs.len()));
    }
    let axis = positive_axis(axis, first.shape.len() + 1)?;
    let mut one = first.shape.clone();
    one.insert(axis, 1);
    let mut values = Vec::new();
    for k in 0..op.inputs.len() {
        let input = cx.tensor(op, k)?;
        if input.shape != first.shape || input.dtype != first.dtype {
            return bad(format!("its input '{}' differs from its first", input.name));
        }
        let x = cx.value(op, k)?;
        values.push(cx.func.reshape(&x, &one));
    }
    let mut shape = first.shape.clone();
    shape.insert(axis, count);
    check_output(cx, op, 0, &shape, first.dtype)?;
    let y = concat(cx, &values, axis);
    cx.define(op, 0, y)
}

/// UNPACK: output `k` is index `k` along `axis`, that dimension dropped.
pub fn unpack(cx: &mut Cx, op: &Operator) -> OpResult {
    let Options::Axis { axis, count } = op.options else { return bad("its options are not UNPACK's") };
    let input = cx.tensor(op, 0)?;
    let axis = positive_axis(axis, input.shape.len())?;
    if count != input.shape[axis] || count != op.outputs.len() as i64 {
        return bad(format!("it unpacks {count} of {:?} into {} outputs", input.shape, op.outputs.len()));
    }
    let mut shape = input.shape.clone();
    shape.remove(axis);
    let x = cx.value(op, 0)?;
    let mut size = input.shape.clone();
    size[axis] = 1;
    for k in 0..op.outputs.len() {
        check_output(cx, op, k, &shape, input.dtype)?;
        let mut start = vec![0; size.len()];
        start[axis] = k as i64;
        let y = slice(cx, &x, &start, &size);
        let y = cx.func.reshape(&y, &shape);
        cx.define(op, k, y)?;
    }
    Ok(())
}

/// SPLIT (operands: axis, input) and SPLIT_V (input, sizes, axis): consecutive parts along the
/// constant axis, each as long as its output says (TFLite Micro reads the sizes from there).
pub fn split(cx: &mut Cx, op: &Operator) -> OpResult {
    let (data, axis_operand) = if op.kind == "SPLIT" { (1, 0) } else { (0, 2) };
    let input = cx.tensor(op, data)?;
    let axis = constant_ints(cx.tensor(op, axis_operand)?)?;
    let &[axis] = axis.as_slice() else { return bad("its axis is not one integer") };
    let axis = positive_axis(axis, input.shape.len())?;
    if let Options::Axis { count, .. } = op.options
        && count != op.outputs.len() as i64
    {
        return bad(format!("it splits into {count} but has {} outputs", op.outputs.len()));
    }
    let mut lengths = Vec::new();
    for k in 0..op.outputs.len() {
        let out = cx.output(op, k)?;
        let mut shape = input.shape.clone();
        shape[axis] = out.shape.get(axis).copied().unwrap_or(-1);
        check_output(cx, op, k, &shape, input.dtype)?;
        lengths.push(shape[axis]);
    }
    if op.kind == "SPLIT" && lengths.windows(2).any(|w| w[0] != w[1]) {
        return bad(format!("its outputs' lengths {lengths:?} differ"));
    }
    if lengths.iter().sum::<i64>() != input.shape[axis] {
        return bad(format!("its outputs' lengths {lengths:?} do not add up to {}", input.shape[axis]));
    }
    let x = cx.value(op, data)?;
    let mut start = vec![0; input.shape.len()];
    for (k, &length) in lengths.iter().enumerate() {
        let mut size = input.shape.clone();
        size[axis] = length;
        let y = slice(cx, &x, &start, &size);
        cx.define(op, k, y)?;
        start[axis] += length;
    }
    Ok(())
}

/// SLICE with constant begin and size (a size of -1 takes the rest of the dimension).
pub fn slice_op(cx: &mut Cx, op: &Operator) -> OpResult {
    let input = cx.tensor(op, 0)?;
    let begin = constant_ints(cx.tensor(op, 1)?)?;
    let size = constant_ints(cx.tensor(op, 2)?)?;
    let rank = input.shape.len();
    if begin.len() != rank || size.len() != rank || rank > 5 {
        return unsupported(format!("begin {begin:?} and size {size:?} of a rank-{rank} input"));
    }
    let mut sizes = Vec::with_capacity(rank);
    for d in 0..rank {
        let s = if size[d] == -1 { input.shape[d] - begin[d] } else { size[d] };
        if begin[d] < 0 || s < 0 || begin[d] + s > input.shape[d] {
            return bad(format!("it slices {size:?} from {begin:?} of {:?}", input.shape));
        }
        sizes.push(s);
    }
    check_output(cx, op, 0, &sizes, input.dtype)?;
    let x = cx.value(op, 0)?;
    let y = slice(cx, &x, &begin, &sizes);
    cx.define(op, 0, y)
}

/// GATHER with constant INT32 indices: TFLite Micro's `Gather`, output
/// `input[batch..., outer..., indices[batch, ...], inner...]`. Written as one `tosa.gather` of
/// the input as `[batch · outer, axis, inner]` with each batch's indices repeated for every outer
/// index. Indices out of range are an error (TFLite Micro only checks them in debug builds).
pub fn gather(cx: &mut Cx, op: &Operator) -> OpResult {
    let Options::Gather { axis, batch_dims } = op.options else { return bad("its options are not GATHER's") };
    let input = cx.tensor(op, 0)?;
    let positions = cx.tensor(op, 1)?;
    if positions.dtype != DType::I32 {
        return unsupported(format!("{} indices (TFLite Micro takes INT32)", positions.dtype.name()));
    }
    let indices = constant_ints(positions)?;
    let rank = input.shape.len();
    let axis = positive_axis(axis, rank)?;
    let batch = if batch_dims < 0 { batch_dims + positions.shape.len() as i64 } else { batch_dims };
    let batch = usize::try_from(batch).ok().filter(|&b| b <= axis && b <= positions.shape.len());
    let Some(batch) = batch else { return bad(format!("batch_dims {batch_dims} with axis {axis}")) };
    if positions.shape[..batch] != input.shape[..batch] {
        return bad(format!("its indices {:?} do not share batch dimensions with {:?}", positions.shape, input.shape));
    }
    let batch_size: i64 = input.shape[..batch].iter().product();
    let outer: i64 = input.shape[batch..axis].iter().product();
    let inner: i64 = input.shape[axis + 1..].iter().product();
    let count: i64 = positions.shape[batch..].iter().product();
    let axis_size = input.shape[axis];
    if let Some(&i) = indices.iter().find(|&&i| i < 0 || i >= axis_size) {
        return bad(format!("its index {i} is outside [0, {axis_size})"));
    }
    let mut shape = input.shape[..axis].to_vec();
    shape.extend_from_slice(&positions.shape[batch..]);
    shape.extend_from_slice(&input.shape[axis + 1..]);
    check_output(cx, op, 0, &shape, input.dtype)?;
    let mut table = Vec::with_capacity((batch_size * outer * count) as usize);
    for b in 0..batch_size as usize {
        for _ in 0..outer {
            table.extend_from_slice(&indices[b * count as usize..(b + 1) * count as usize]);
        }
    }
    let x = cx.value(op, 0)?;
    let values = cx.func.reshape(&x, &[batch_size * outer, axis_size, inner]);
    let bytes: Vec<u8> = table.iter().flat_map(|&i| (i as i32).to_le_bytes()).collect();
    let table = cx.func.bytes(Ty::new(&[batch_size * outer, count], "i32"), &bytes);
    let y = cx.func.op("gather", &[&values, &table], "", x.ty.with_shape(&[batch_size * outer, count, inner]));
    let y = cx.func.reshape(&y, &shape);
    cx.define(op, 0, y)
}

/// SPACE_TO_DEPTH and DEPTH_TO_SPACE (NHWC): TFLite's layout, each output channel
/// `(row in block · block + column in block) · channels + channel`, as a reshape to six
/// dimensions, a transpose of the two middle ones and a reshape.
pub fn space_depth(cx: &mut Cx, op: &Operator) -> OpResult {
    let Options::Block { size: bs } = op.options else { return bad("its options are not a block size") };
    let input = cx.tensor(op, 0)?;
    let &[n, h, w, c] = input.shape.as_slice() else { return bad("its input is not 4-dimensional") };
    if bs < 1 {
        return bad(format!("block size {bs}"));
    }
    let to_depth = op.kind == "SPACE_TO_DEPTH";
    let (six, shape) = if to_depth {
        if h % bs != 0 || w % bs != 0 {
            return bad(format!("block size {bs} does not divide {:?}", input.shape));
        }
        ([n, h / bs, bs, w / bs, bs, c], vec![n, h / bs, w / bs, bs * bs * c])
    } else {
        if c % (bs * bs) != 0 {
            return bad(format!("block size {bs} does not divide {c} channels"));
        }
        ([n, h, w, bs, bs, c / (bs * bs)], vec![n, h * bs, w * bs, c / (bs * bs)])
    };
    check_output(cx, op, 0, &shape, input.dtype)?;
    let x = cx.value(op, 0)?;
    let x = cx.func.reshape(&x, &six);
    let y = transpose_value(cx, &x, &[0, 1, 3, 2, 4, 5]);
    let y = cx.func.reshape(&y, &shape);
    cx.define(op, 0, y)
}

/// REVERSE_V2 along each of its constant axes (negative ones count from the end). TFLite Micro
/// reverses only contiguous axes (sorted, each once).
pub fn reverse(cx: &mut Cx, op: &Operator) -> OpResult {
    let input = cx.tensor(op, 0)?;
    let axes = constant_ints(cx.tensor(op, 1)?)?;
    let rank = input.shape.len();
    let mut sorted: Vec<usize> = axes.iter().map(|&a| positive_axis(a, rank)).collect::<OpResult<_>>()?;
    sorted.sort_unstable();
    if sorted.windows(2).any(|w| w[0] + 1 != w[1]) {
        return unsupported(format!("axes {axes:?} that are not contiguous (TFLite Micro refuses them)"));
    }
    check_output(cx, op, 0, &input.shape, input.dtype)?;
    let mut y = cx.value(op, 0)?;
    for a in sorted {
        y = cx.func.op("reverse", &[&y], &format!("axis = {a} : i32"), y.ty.clone());
    }
    cx.define(op, 0, y)
}

/// BROADCAST_TO a constant shape (at most 5 dimensions, as TFLite Micro's).
pub fn broadcast_to(cx: &mut Cx, op: &Operator) -> OpResult {
    let input = cx.tensor(op, 0)?;
    let shape = constant_ints(cx.tensor(op, 1)?)?;
    if shape.len() > 5 || shape.len() < input.shape.len() {
        return unsupported(format!("broadcasting {:?} to {shape:?}", input.shape));
    }
    check_output(cx, op, 0, &shape, input.dtype)?;
    let x = cx.value(op, 0)?;
    let y = tile_to(cx, &x, &shape)?;
    cx.define(op, 0, y)
}

/// ZEROS_LIKE: raw zeros (0, not the zero point, on a quantized tensor: TFLite Micro writes 0).
pub fn zeros_like(cx: &mut Cx, op: &Operator) -> OpResult {
    let input = cx.tensor(op, 0)?;
    check_output(cx, op, 0, &input.shape, input.dtype)?;
    let out = ty(cx.output(op, 0)?);
    let y = match input.dtype {
        DType::F32 => cx.func.constant(out, float(0.0)),
        DType::I8 | DType::I32 | DType::I64 => cx.func.constant(out, "0".into()),
        other => return unsupported(format!("ZEROS_LIKE of {} (TFLite Micro refuses it)", other.name())),
    };
    cx.define(op, 0, y)
}

/// FILL (float32, int32, int8): the scalar value (its raw element) repeated to the constant dims.
pub fn fill(cx: &mut Cx, op: &Operator) -> OpResult {
    let dims = constant_ints(cx.tensor(op, 0)?)?;
    let value = cx.tensor(op, 1)?;
    if !value.shape.is_empty() {
        return bad(format!("its value has shape {:?}, not a scalar's", value.shape));
    }
    if !matches!(value.dtype, DType::F32 | DType::I32 | DType::I8) {
        return unsupported(format!("FILL of {} (TFLite Micro refuses it)", value.dtype.name()));
    }
    check_output(cx, op, 0, &dims, value.dtype)?;
    let v = cx.value(op, 1)?;
    let y = tile_to(cx, &v, &dims)?;
    cx.define(op, 0, y)
}

/// SHAPE: the input's (static) shape as an INT32 constant.
pub fn shape(cx: &mut Cx, op: &Operator) -> OpResult {
    let input = cx.tensor(op, 0)?;
    let rank = input.shape.len() as i64;
    let out = cx.output(op, 0)?;
    if out.dtype != DType::I32 {
        return unsupported(format!("SHAPE to {} (TFLite Micro writes INT32)", out.dtype.name()));
    }
    check_output(cx, op, 0, &[rank], DType::I32)?;
    let y = cx.func.constant(Ty::new(&[rank], "i32"), ints_literal(&input.shape));
    cx.define(op, 0, y)
}

/// BROADCAST_ARGS: the shape two shapes broadcast to. Constant shapes are folded (an
/// incompatible pair is an error); INT32 shapes computed by the model are left-padded with ones
/// and combined with `maximum`, which is the broadcast of compatible shapes without zero sizes.
pub fn broadcast_args(cx: &mut Cx, op: &Operator) -> OpResult {
    let (a, b, out) = (cx.tensor(op, 0)?, cx.tensor(op, 1)?, cx.output(op, 0)?);
    if a.shape.len() != 1 || b.shape.len() != 1 || a.dtype != b.dtype || out.dtype != a.dtype {
        return bad(format!("its shapes are {} {:?} and {} {:?}", a.dtype.name(), a.shape, b.dtype.name(), b.shape));
    }
    let rank = a.shape[0].max(b.shape[0]);
    check_output(cx, op, 0, &[rank], a.dtype)?;
    if a.data.is_some() && b.data.is_some() {
        let (x, y) = (constant_ints(a)?, constant_ints(b)?);
        let pad = |v: &[i64]| -> Vec<i64> {
            let mut p = vec![1; rank as usize - v.len()];
            p.extend_from_slice(v);
            p
        };
        let (x, y) = (pad(&x), pad(&y));
        let mut result = Vec::with_capacity(x.len());
        for (&p, &q) in x.iter().zip(&y) {
            result.push(match (p, q) {
                _ if p == q => p,
                (1, _) => q,
                (_, 1) => p,
                _ => return bad(format!("shapes {x:?} and {y:?} do not broadcast")),
            });
        }
        let z = cx.func.constant(Ty::new(&[rank], a.dtype.mlir()), ints_literal(&result));
        return cx.define(op, 0, z);
    }
    if a.dtype != DType::I32 {
        return unsupported("INT64 shapes computed by the model");
    }
    let mut padded = Vec::with_capacity(2);
    for k in 0..2 {
        let v = cx.value(op, k)?;
        let missing = rank - v.ty.shape[0];
        padded.push(if missing > 0 {
            let ones = cx.func.ints(&[missing], "i32", &vec![1; missing as usize]);
            concat(cx, &[ones, v], 0)
        } else {
            v
        });
    }
    let z = cx.func.op("maximum", &[&padded[0], &padded[1]], "", Ty::new(&[rank], "i32"));
    cx.define(op, 0, z)
}

/// A dense literal of integers (`[1, 2]`; `[]` for none).
fn ints_literal(values: &[i64]) -> String {
    format!("[{}]", values.iter().map(i64::to_string).collect::<Vec<_>>().join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axes() {
        assert_eq!(positive_axis(-1, 4).ok(), Some(3));
        assert_eq!(positive_axis(2, 4).ok(), Some(2));
        assert!(positive_axis(4, 4).is_err());
        assert!(positive_axis(-5, 4).is_err());
        assert_eq!(ints_literal(&[1, 2, 3]), "[1, 2, 3]");
        assert_eq!(ints_literal(&[]), "[]");
    }
}

//! GATHER_ND (constant indices) and EMBEDDING_LOOKUP: rows picked by index, as TOSA `gather`s
//! on the table seen as `[1, rows, row size]`.
//!
//! EMBEDDING_LOOKUP's ids are usually the model's input: the gather reads them at run time,
//! clamped to the table (TFLite Micro stops with an error on an id out of range; umac reads the
//! nearest row, never outside the table). Constant ids are checked when the model is read.

use super::{Cx, OpResult, Value, bad, constant_ints, per_tensor, unsupported};
use crate::tflite::{
    emit::Ty,
    model::{DType, Operator},
};

/// `table` (reshaped to `[1, rows, rest]`) at the i32 `indices` `[1, n]`, shaped `shape`.
fn rows(cx: &mut Cx, table: &Value, rows: i64, indices: &Value, shape: &[i64]) -> Value {
    let rest = table.ty.shape.iter().product::<i64>() / rows.max(1);
    let values = cx.func.reshape(table, &[1, rows, rest]);
    let n = indices.ty.shape.iter().product::<i64>();
    let indices = cx.func.reshape(indices, &[1, n]);
    let gathered = cx.func.op("gather", &[&values, &indices], "", table.ty.with_shape(&[1, n, rest]));
    cx.func.reshape(&gathered, shape)
}

/// GATHER_ND: `params[indices[..., :]]` for constant INT32 indices, each row of the last
/// dimension an index into the leading dimensions of `params`.
pub fn gather_nd(cx: &mut Cx, op: &Operator) -> OpResult {
    let (params, positions, out) = (cx.tensor(op, 0)?, cx.tensor(op, 1)?, cx.output(op, 0)?);
    if positions.dtype != DType::I32 {
        return unsupported(format!("{} indices (TFLite Micro takes INT32)", positions.dtype.name()));
    }
    let indices = constant_ints(positions)?;
    let Some((&depth, leading)) = positions.shape.split_last() else { return bad("its indices are a scalar") };
    let depth = usize::try_from(depth).unwrap_or(usize::MAX);
    if depth == 0 || depth > params.shape.len() {
        return bad(format!("its indices have {depth} coordinates for a rank-{} input", params.shape.len()));
    }
    let (indexed, rest) = params.shape.split_at(depth);
    let mut shape = leading.to_vec();
    shape.extend_from_slice(rest);
    if out.shape != shape || out.dtype != params.dtype {
        return bad(format!("its output is {:?}, TFLite Micro writes {shape:?}", out.shape));
    }
    let mut flat = Vec::with_capacity(indices.len() / depth);
    for row in indices.chunks_exact(depth) {
        let mut position = 0i64;
        for (&i, &size) in row.iter().zip(indexed) {
            if i < 0 || i >= size {
                return bad(format!("its index {row:?} is outside {indexed:?}"));
            }
            position = position * size + i;
        }
        flat.push(position);
    }
    let bytes: Vec<u8> = flat.iter().flat_map(|&i| (i as i32).to_le_bytes()).collect();
    let table = cx.func.bytes(Ty::new(&[1, flat.len() as i64], "i32"), &bytes);
    let x = cx.value(op, 0)?;
    let count: i64 = indexed.iter().product();
    let y = rows(cx, &x, count, &table, &shape);
    cx.define(op, 0, y)
}

/// EMBEDDING_LOOKUP: rows of the table (operand 1) at the INT32 ids (operand 0): float32, int8
/// as it is, or int8 to float32 (TFLite Micro's hybrid lookup, `scale · q`, zero point 0).
pub fn embedding_lookup(cx: &mut Cx, op: &Operator) -> OpResult {
    let (ids, table, out) = (cx.tensor(op, 0)?, cx.tensor(op, 1)?, cx.output(op, 0)?);
    if ids.dtype != DType::I32 || ids.shape.len() != 1 {
        return bad(format!("its ids are {} {:?}, not a 1-D INT32 tensor", ids.dtype.name(), ids.shape));
    }
    let Some((&count, row)) = table.shape.split_first().filter(|(_, row)| !row.is_empty()) else {
        return bad(format!("its table {:?} has fewer than 2 dimensions", table.shape));
    };
    let mut shape = vec![ids.shape[0]];
    shape.extend_from_slice(row);
    if out.shape != shape || count < 1 {
        return bad(format!("its output is {:?}, TFLite Micro writes {shape:?}", out.shape));
    }
    let ids_value = if ids.data.is_some() {
        if let Some(&i) = constant_ints(ids)?.iter().find(|&&i| i < 0 || i >= count) {
            return bad(format!("its id {i} is outside the table's {count} rows"));
        }
        cx.value(op, 0)?
    } else {
        let v = cx.value(op, 0)?;
        cx.clamp_int(&v, 0, count - 1)
    };
    let t = cx.value(op, 1)?;
    let y = match (table.dtype, out.dtype) {
        (DType::F32, DType::F32) | (DType::I8, DType::I8) => rows(cx, &t, count, &ids_value, &shape),
        (DType::I8, DType::F32) => {
            let (scale, zp) = per_tensor(table, "its table")?;
            if zp != 0 {
                return bad("its int8 table has a nonzero zero point, which TFLite Micro refuses");
            }
            let picked = rows(cx, &t, count, &ids_value, &shape);
            let wide = cx.func.op("cast", &[&picked], "", picked.ty.with_elem("f32"));
            let s = cx.func.broadcast_f32(wide.ty.rank(), scale);
            let shift = cx.func.scalar("i8", 0);
            cx.func.op("mul", &[&wide, &s, &shift], "", wide.ty.clone())
        }
        (a, b) => return unsupported(format!("EMBEDDING_LOOKUP of {} to {}", a.name(), b.name())),
    };
    cx.define(op, 0, y)
}

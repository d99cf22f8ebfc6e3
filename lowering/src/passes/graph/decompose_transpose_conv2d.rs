//! `umac-decompose-transpose-conv2d`: rewrites `tosa.transpose_conv2d` (static shapes) as a
//! `tosa.conv2d` over the zero-inserted input with spatially reversed weights.
//!
//! MLIR 22's `tosa-optional-decompositions` mis-builds the int16 case (it pads the int8 weights
//! with the int16 input zero point, which does not verify). The textbook identity is simpler and
//! right for every type: with stride `s`, insert `s-1` zero-point elements between input pixels,
//! pad by `K-1+out_pad` on each side (the input zero point again, so padded terms contribute
//! `(izp - izp)·w = 0`), and correlate with the kernel flipped in height and width:
//! `out[oy] = Σ_ky in[(oy - out_pad_top - ky) / s] · w[ky]`, exactly TOSA's definition.
//! ```mlir
//! %y = tosa.transpose_conv2d %x, %w, %b, %izp, %wzp {stride = array<i64: 2, 2>, out_pad = ...}
//! // becomes reshape → pad (zero insertion) → reshape → slice → reverse ×2 → tosa.conv2d
//! ```

use crate::{
    Error,
    error::report,
    pass::{UmacPass, boxed},
    registry::{PassInfo, PassKind},
};
use melior::ir::{AttributeLike, OperationRef, TypeLike, ValueLike, operation::OperationLike};
use mlir_sys::*;
use umac_dialects::{
    ir::{collect, element_type, i64_array, op_name, splice, static_tensor_shape},
    text::{attribute_text, tensor_type, type_text},
};

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    name: "umac-decompose-transpose-conv2d",
    summary: "Rewrite static-shaped tosa.transpose_conv2d as zero insertion + pad + tosa.conv2d with flipped weights",
    anchor: "any",
    options: &[],
    kind: PassKind::Pass(|_| boxed(DecomposeTransposeConv2d)),
};

struct DecomposeTransposeConv2d;

impl UmacPass for DecomposeTransposeConv2d {
    fn run(&mut self, operation: OperationRef) -> Result<(), Error> {
        for raw in collect(operation, |op| op_name(op) == "tosa.transpose_conv2d") {
            // SAFETY: each op is alive until replaced below, one at a time.
            let op = unsafe { OperationRef::from_raw(raw) };
            let text = helper_text(&op).map_err(|e| report(op.location(), &e.to_string()))?;
            if let Some(text) = text {
                // SAFETY: the op is alive; its operands dominate it; the helper is parsed in its
                // context and consumed.
                unsafe {
                    let operands: Vec<MlirValue> = (0..5).map(|i| mlirOperationGetOperand(raw, i)).collect();
                    splice(raw, &text, &operands, INFO.name, Some(mlirOperationGetLocation(raw)))?;
                }
            }
        }
        Ok(())
    }
}

/// Static shape of a ranked tensor value, with its element type text.
fn shape_of(value: melior::ir::Value) -> Option<(Vec<i64>, String)> {
    let ty = value.r#type().to_raw();
    Some((static_tensor_shape(ty)?, umac_dialects::ir::type_text(element_type(ty))))
}

fn int_array(op: &OperationRef, name: &str) -> Result<Vec<i64>, Error> {
    let attr = op.attribute(name).map_err(|_| Error::Invalid(format!("tosa.transpose_conv2d without '{name}'")))?;
    // SAFETY: the attribute is alive.
    unsafe { i64_array(attr.to_raw()) }.ok_or_else(|| Error::Invalid(format!("'{name}' is not an i64 array")))
}

/// The replacement as a function `(x, w, b, izp, wzp) -> y`, or `None` when a shape is dynamic.
fn helper_text(op: &OperationRef) -> Result<Option<String>, Error> {
    let operand = |i| op.operand(i).map_err(|e| Error::Invalid(e.to_string()));
    let (x, w) = (operand(0)?, operand(1)?);
    let (Some((xs, xe)), Some((ws, we)), Ok(result)) = (shape_of(x), shape_of(w), op.result(0)) else {
        return Ok(None);
    };
    let Some((ys, ye)) = shape_of(result.into()) else { return Ok(None) };
    let [n, ih, iw, ic] = xs[..] else { return Err(Error::Invalid("transpose_conv2d input must be rank 4".into())) };
    let [_, kh, kw, _] = ws[..] else { return Err(Error::Invalid("transpose_conv2d weights must be rank 4".into())) };
    let (stride, out_pad) = (int_array(op, "stride")?, int_array(op, "out_pad")?);
    let (&[sy, sx], &[top, bottom, left, right]) = (&stride[..], &out_pad[..]) else {
        return Err(Error::Invalid("transpose_conv2d needs 2 strides and 4 out_pad values".into()));
    };
    let acc = op
        .attribute("acc_type")
        .map(attribute_text)
        .map_err(|_| Error::Invalid("transpose_conv2d without acc_type".into()))?;
    let types: Vec<String> = (0..5).map(|i| operand(i).map(|v| type_text(v.r#type()))).collect::<Result<_, _>>()?;
    let tensor = tensor_type;
    let shape = |name: &str, values: &[i64]| {
        let list = values.iter().map(i64::to_string).collect::<Vec<_>>().join(", ");
        format!(
            "    %{name} = tosa.const_shape {{values = dense<[{list}]> : tensor<{}xindex>}} : () -> !tosa.shape<{}>\n",
            values.len(),
            values.len()
        )
    };
    let x_type = tensor(&xs, &xe);
    let mut body = String::new();
    let mut input = "%x".to_string();
    let (dh, dw) = ((ih - 1) * sy + 1, (iw - 1) * sx + 1);
    if sy > 1 || sx > 1 {
        // Zero insertion: [n,ih,iw,c] → [n,ih,1,iw,1,c] → pad to [n,ih,sy,iw,sx,c] → [n,ih·sy,iw·sx,c] → slice.
        let six = [n, ih, 1, iw, 1, ic];
        let padded = [n, ih, sy, iw, sx, ic];
        let flat = [n, ih * sy, iw * sx, ic];
        let dilated = [n, dh, dw, ic];
        body += &shape("s6", &six);
        body += &format!("    %x6 = tosa.reshape %x, %s6 : ({x_type}, !tosa.shape<6>) -> {}\n", tensor(&six, &xe));
        body += &shape("p6", &[0, 0, 0, 0, 0, sy - 1, 0, 0, 0, sx - 1, 0, 0]);
        body += &format!(
            "    %xp = tosa.pad %x6, %p6, %izp : ({}, !tosa.shape<12>, {}) -> {}\n",
            tensor(&six, &xe),
            types[3],
            tensor(&padded, &xe)
        );
        body += &shape("s4", &flat);
        body += &format!(
            "    %xf = tosa.reshape %xp, %s4 : ({}, !tosa.shape<4>) -> {}\n",
            tensor(&padded, &xe),
            tensor(&flat, &xe)
        );
        body += &shape("start", &[0, 0, 0, 0]);
        body += &shape("size", &dilated);
        body += &format!(
            "    %xd = tosa.slice %xf, %start, %size : ({}, !tosa.shape<4>, !tosa.shape<4>) -> {}\n",
            tensor(&flat, &xe),
            tensor(&dilated, &xe)
        );
        input = "%xd".into();
    }
    let w_type = tensor(&ws, &we);
    body += &format!("    %w1 = tosa.reverse %w {{axis = 1 : i32}} : ({w_type}) -> {w_type}\n");
    body += &format!("    %w2 = tosa.reverse %w1 {{axis = 2 : i32}} : ({w_type}) -> {w_type}\n");
    let pads = [kh - 1 + top, kh - 1 + bottom, kw - 1 + left, kw - 1 + right];
    if pads.iter().any(|p| *p < 0) {
        return Err(Error::Invalid(format!("out_pad {out_pad:?} crops more than the kernel allows")));
    }
    let y_type = tensor(&ys, &ye);
    body += &format!(
        "    %y = tosa.conv2d {input}, %w2, %b, %izp, %wzp {{acc_type = {acc}, dilation = array<i64: 1, 1>, pad = array<i64: {}, {}, {}, {}>, stride = array<i64: 1, 1>}} : ({}, {w_type}, {}, {}, {}) -> {y_type}\n",
        pads[0],
        pads[1],
        pads[2],
        pads[3],
        tensor(&[n, dh, dw, ic], &xe),
        types[2],
        types[3],
        types[4]
    );
    Ok(Some(format!(
        "func.func private @__umac_transpose_conv2d(%x: {x_type}, %w: {w_type}, %b: {}, %izp: {}, %wzp: {}) -> {y_type} {{\n{body}    return %y : {y_type}\n}}\n",
        types[2], types[3], types[4]
    )))
}

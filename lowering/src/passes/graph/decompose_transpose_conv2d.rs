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
    pass::{UmacPass, boxed, replace_with},
    registry::{PassInfo, PassKind},
};
use melior::ir::{AttributeLike, OperationRef, TypeLike, ValueLike, operation::OperationLike};
use umac_dialects::{
    build::{Attr, Builder, RawType, Ty, Value},
    ir::{collect, i64_array, op_name, static_tensor_shape},
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
            let Some(shapes) = Shapes::of(&op).map_err(|e| report(op.location(), &e.to_string()))? else {
                continue;
            };
            replace_with(op, |b| vec![shapes.write(b)])?;
        }
        Ok(())
    }
}

/// What the decomposition of one `tosa.transpose_conv2d` needs to know, checked before anything
/// is written.
struct Shapes {
    /// The input's and the weights' shapes, and the result's type.
    x: [i64; 4],
    w: [i64; 4],
    y: RawType,
    stride: [i64; 2],
    /// `[top, bottom, left, right]`.
    out_pad: [i64; 4],
    acc: RawType,
}

fn int_array(op: &OperationRef, name: &str) -> Result<Vec<i64>, Error> {
    let attr = op.attribute(name).map_err(|_| Error::Invalid(format!("tosa.transpose_conv2d without '{name}'")))?;
    // SAFETY: the attribute is alive.
    unsafe { i64_array(attr.to_raw()) }.ok_or_else(|| Error::Invalid(format!("'{name}' is not an i64 array")))
}

impl Shapes {
    /// The shapes of `op`, or `None` when a shape is dynamic (MLIR's own decomposition is left
    /// to handle it).
    fn of(op: &OperationRef) -> Result<Option<Shapes>, Error> {
        let operand = |i| op.operand(i).map_err(|e| Error::Invalid(e.to_string()));
        let shape = |value: melior::ir::Value| static_tensor_shape(value.r#type().to_raw());
        let (Some(xs), Some(ws), Ok(result)) = (shape(operand(0)?), shape(operand(1)?), op.result(0)) else {
            return Ok(None);
        };
        if shape(result.into()).is_none() {
            return Ok(None);
        }
        let Ok(x) = <[i64; 4]>::try_from(xs) else {
            return Err(Error::Invalid("transpose_conv2d input must be rank 4".into()));
        };
        let Ok(w) = <[i64; 4]>::try_from(ws) else {
            return Err(Error::Invalid("transpose_conv2d weights must be rank 4".into()));
        };
        let (stride, out_pad) = (int_array(op, "stride")?, int_array(op, "out_pad")?);
        let (Ok(stride), Ok(out_pad)) = (<[i64; 2]>::try_from(stride), <[i64; 4]>::try_from(out_pad)) else {
            return Err(Error::Invalid("transpose_conv2d needs 2 strides and 4 out_pad values".into()));
        };
        let acc = op.attribute("acc_type").map_err(|_| Error::Invalid("transpose_conv2d without acc_type".into()))?;
        // SAFETY: the attribute is alive; a type attribute holds a type.
        let acc = unsafe {
            let raw = acc.to_raw();
            if !mlir_sys::mlirAttributeIsAType(raw) {
                return Err(Error::Invalid("transpose_conv2d's acc_type is not a type".into()));
            }
            RawType(mlir_sys::mlirTypeAttrGetValue(raw))
        };
        let [kh, kw] = [w[1], w[2]];
        let [top, bottom, left, right] = out_pad;
        if [kh - 1 + top, kh - 1 + bottom, kw - 1 + left, kw - 1 + right].iter().any(|p| *p < 0) {
            return Err(Error::Invalid(format!("out_pad {out_pad:?} crops more than the kernel allows")));
        }
        Ok(Some(Shapes { x, w, y: RawType(result.r#type().to_raw()), stride, out_pad, acc }))
    }

    /// Writes the decomposition of the op the builder writes in front of (its operands `x, w,
    /// b, izp, wzp` the builder's arguments); returns its result.
    fn write(&self, b: &mut Builder) -> Value {
        let [n, ih, iw, ic] = self.x;
        let [sy, sx] = self.stride;
        let (x, w, izp) = (b.arg(0), b.arg(1), b.arg(3));
        let xe = b.element_of(b.type_of(x));
        let (dh, dw) = ((ih - 1) * sy + 1, (iw - 1) * sx + 1);
        let mut input = x;
        if sy > 1 || sx > 1 {
            // Zero insertion: [n,ih,iw,c] → [n,ih,1,iw,1,c] → pad to [n,ih,sy,iw,sx,c] →
            // [n,ih·sy,iw·sx,c] → slice.
            let six = b.tosa_shape(&[n, ih, 1, iw, 1, ic]);
            let t = b.tensor(&[n, ih, 1, iw, 1, ic], xe);
            let x6 = b.op1("tosa.reshape", &[x, six], t, &[]);
            let padding = b.tosa_shape(&[0, 0, 0, 0, 0, sy - 1, 0, 0, 0, sx - 1, 0, 0]);
            let t = b.tensor(&[n, ih, sy, iw, sx, ic], xe);
            let padded = b.op1("tosa.pad", &[x6, padding, izp], t, &[]);
            let flat = b.tosa_shape(&[n, ih * sy, iw * sx, ic]);
            let t = b.tensor(&[n, ih * sy, iw * sx, ic], xe);
            let flat = b.op1("tosa.reshape", &[padded, flat], t, &[]);
            let (start, size) = (b.tosa_shape(&[0, 0, 0, 0]), b.tosa_shape(&[n, dh, dw, ic]));
            let t = b.tensor(&[n, dh, dw, ic], xe);
            input = b.op1("tosa.slice", &[flat, start, size], t, &[]);
        }
        let w_type = b.type_of(w);
        let w1 = b.op1("tosa.reverse", &[w], w_type, &[("axis", Attr::Int(Ty::I32, 1))]);
        let w2 = b.op1("tosa.reverse", &[w1], w_type, &[("axis", Attr::Int(Ty::I32, 2))]);
        let ([kh, kw], [top, bottom, left, right]) = ([self.w[1], self.w[2]], self.out_pad);
        let pads = [kh - 1 + top, kh - 1 + bottom, kw - 1 + left, kw - 1 + right];
        let operands = [input, w2, b.arg(2), izp, b.arg(4)];
        let attributes = [
            ("acc_type", Attr::Type(Ty::Of(self.acc))),
            ("dilation", Attr::I64Array(&[1, 1])),
            ("pad", Attr::I64Array(&pads)),
            ("stride", Attr::I64Array(&[1, 1])),
        ];
        b.op1("tosa.conv2d", &operands, Ty::Of(self.y), &attributes)
    }
}

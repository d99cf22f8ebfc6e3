//! QUANTIZE and DEQUANTIZE.

use super::{Cx, OpResult, bad, per_tensor, scale32, unsupported};
use crate::tflite::{
    emit::float,
    model::{DType, Operator},
};

/// QUANTIZE. Between integer types (int8, int16): TFLite Micro's `Requantize`, `q - zp_in`
/// scaled by `s_in / s_out` (MultiplyByQuantizedMultiplier, a double-rounding `rescale`) plus
/// the output zero point, saturated.
///
/// From float32 TFLite Micro's `AffineQuantize` computes `round(x / scale) + zp` with an f32
/// division, rounding half away from zero. TOSA has no float division: the converter's
/// `x · f32(1 / scale)` then `tosa.cast` (half to even) differs from it by one for about one
/// value in a thousand of an int16 tensor's range, so float32 input is left to the converter.
pub fn quantize(cx: &mut Cx, op: &Operator) -> OpResult {
    let (input, out) = (cx.tensor(op, 0)?, cx.output(op, 0)?);
    if input.shape != out.shape {
        return bad(format!("it maps {:?} to {:?}", input.shape, out.shape));
    }
    let x = cx.value(op, 0)?;
    let (so, zo) = per_tensor(out, "its output")?;
    let elem = out.dtype.mlir();
    let result = match (input.dtype, out.dtype) {
        (DType::I8 | DType::I16, DType::I8 | DType::I16) => {
            let (si, zi) = per_tensor(input, "its input")?;
            if (input.dtype == DType::I16 && zi != 0) || (out.dtype == DType::I16 && zo != 0) {
                return unsupported("int16 with a nonzero zero point");
            }
            let multiplier = scale32(f64::from(si) / f64::from(so));
            cx.rescale(&x, elem, &[multiplier], zi, zo, true, true)
        }
        (DType::F32, _) => {
            return unsupported(
                "QUANTIZE from float32: TFLite Micro's f32 division and rounding half away from zero are not \
                 reproduced exactly",
            );
        }
        (a, o) => return unsupported(format!("{} to {}", a.name(), o.name())),
    };
    cx.define(op, 0, result)
}

/// DEQUANTIZE, int8 or int16 to float32. TFLite Micro: `float(double(scale) · (q - zp))`, the
/// product exact in double and rounded once to float. Here `q - zp` exactly in f32 (a cast,
/// and a subtraction of small integers), times the f32 scale: the same single rounding of the
/// same exact product.
pub fn dequantize(cx: &mut Cx, op: &Operator) -> OpResult {
    let (input, out) = (cx.tensor(op, 0)?, cx.output(op, 0)?);
    if input.shape != out.shape {
        return bad(format!("it maps {:?} to {:?}", input.shape, out.shape));
    }
    let result = match (input.dtype, out.dtype) {
        (DType::I8 | DType::I16, DType::F32) => {
            let (scale, zp) = per_tensor(input, "its input")?;
            let x = cx.value(op, 0)?;
            let rank = x.ty.rank();
            let mut y = cx.func.op("cast", &[&x], "", x.ty.with_elem("f32"));
            if zp != 0 {
                let z = cx.func.constant(y.ty.with_shape(&vec![1; rank]), float(zp as f32));
                y = cx.func.op("sub", &[&y, &z], "", y.ty.clone());
            }
            let s = cx.func.broadcast_f32(rank, scale);
            let shift = cx.func.scalar("i8", 0);
            cx.func.op("mul", &[&y, &s, &shift], "", y.ty.clone())
        }
        (a, o) => return unsupported(format!("{} to {}", a.name(), o.name())),
    };
    cx.define(op, 0, result)
}

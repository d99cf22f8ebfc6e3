//! What `umac-fold-padding` and `umac-im2col` share about convolution and pooling windows: their
//! strides and dilations, the `tensor.pad` a window may read through, and a window's read with
//! bounds checks, written with the builder.

use mlir_sys::*;
use umac_dialects::{
    build::{Attr, Builder, Cmp, RawType, Ty, Value},
    ir::{attribute, constant_value, i64_array},
};

/// Two values of a dense i64 attribute (strides, dilations), splat or not.
///
/// # Safety
/// `attribute` must be live.
pub(crate) unsafe fn pair(attribute: MlirAttribute) -> Option<[i64; 2]> {
    unsafe {
        if !mlirAttributeIsADenseElements(attribute) {
            return None;
        }
        if mlirDenseElementsAttrIsSplat(attribute) {
            let v = mlirDenseElementsAttrGetInt64SplatValue(attribute);
            return Some([v, v]);
        }
        (mlirElementsAttrGetNumElements(attribute) == 2).then(|| {
            [mlirDenseElementsAttrGetInt64Value(attribute, 0), mlirDenseElementsAttrGetInt64Value(attribute, 1)]
        })
    }
}

/// The padding of a foldable `tensor.pad`: its source, `[top, left]`, and the pad value (a
/// constant's attribute).
///
/// # Safety
/// `pad` must be live.
pub(crate) unsafe fn padding(pad: MlirOperation) -> Option<(MlirValue, [i64; 2], MlirAttribute)> {
    unsafe {
        if umac_dialects::ir::name(pad) != "tensor.pad" || mlirOperationGetNumOperands(pad) != 1 {
            return None;
        }
        let low = i64_array(attribute(pad, "static_low")?)?;
        let high = i64_array(attribute(pad, "static_high")?)?;
        let [0, top, left, 0] = low[..] else { return None };
        let [0, _, _, 0] = high[..] else { return None };
        if low.iter().chain(&high).any(|p| *p < 0) {
            return None;
        }
        // The region yields one value defined outside it: a constant.
        let block = mlirRegionGetFirstBlock(mlirOperationGetRegion(pad, 0));
        let yield_op = mlirBlockGetTerminator(block);
        let value = constant_value(mlirOperationGetOperand(yield_op, 0))?;
        Some((mlirOperationGetOperand(pad, 0), [top, left], value))
    }
}

/// The values a window read with bounds checks takes, written before the loops: the index 0,
/// the input's height and width, and the pad value.
pub(crate) struct Bounds {
    pub(crate) zero: Value,
    pub(crate) height: Value,
    pub(crate) width: Value,
    pub(crate) pad: Value,
}

impl Bounds {
    /// Writes the values of [`Bounds`] for an input of `size` (height, width) padded with `pad`
    /// (a constant's attribute).
    pub(crate) fn write(b: &mut Builder, size: [i64; 2], pad: MlirAttribute) -> Bounds {
        let [zero, height, width] = Bounds::indices(b, size);
        Bounds { zero, height, width, pad: Bounds::pad(b, pad) }
    }

    /// The index 0, `height` and `width`.
    pub(crate) fn indices(b: &mut Builder, [height, width]: [i64; 2]) -> [Value; 3] {
        [0, height, width].map(|v| b.constant(Ty::Index, v))
    }

    /// The pad value, `arith.constant` of the attribute `pad`.
    pub(crate) fn pad(b: &mut Builder, pad: MlirAttribute) -> Value {
        // SAFETY: the attribute is live (read from the IR being rewritten).
        let ty = Ty::Of(RawType(unsafe { mlirAttributeGetType(pad) }));
        b.op1("arith.constant", &[], ty, &[("value", Attr::Raw(pad))])
    }
}

/// A window over an input: its strides, dilations and `[top, left]` padding.
pub(crate) struct Window {
    pub(crate) strides: [i64; 2],
    pub(crate) dilations: [i64; 2],
    pub(crate) origin: [i64; 2],
}

impl Window {
    /// Reads the element of window position (`kh`, `kw`) of output pixel (`n`, `oh`, `ow`) in
    /// channel `c` from `x`, the window starting `origin` before the pixel's strided position.
    /// With `bounds`, positions outside the input read the pad value instead; one unsigned
    /// comparison per axis checks both bounds (a negative index is a huge unsigned one).
    pub(crate) fn read(
        &self,
        b: &mut Builder,
        x: Value,
        [n, oh, ow, kh, kw, c]: [Value; 6],
        bounds: Option<&Bounds>,
    ) -> Value {
        let element = b.element_of(b.type_of(x));
        let at = |b: &mut Builder, axis: usize, o: Value, k: Value| {
            let map = [vec![self.strides[axis], self.dilations[axis], -self.origin[axis]]];
            b.op1("affine.apply", &[o, k], Ty::Index, &[("map", Attr::Map(2, &map))])
        };
        let (ih, iw) = (at(b, 0, oh, kh), at(b, 1, ow, kw));
        let Some(bounds) = bounds else {
            return b.op1("tensor.extract", &[x, n, ih, iw, c], element, &[]);
        };
        let h_in = b.cmpi(Cmp::Ult, ih, bounds.height);
        let w_in = b.cmpi(Cmp::Ult, iw, bounds.width);
        let inside = b.andi(h_in, w_in);
        let ih = b.select(inside, ih, bounds.zero);
        let iw = b.select(inside, iw, bounds.zero);
        let loaded = b.op1("tensor.extract", &[x, n, ih, iw, c], element, &[]);
        b.select(inside, loaded, bounds.pad)
    }
}

/// The width of an integer type (0 for another type).
pub(crate) fn width(ty: MlirType) -> u32 {
    // SAFETY: a type handle read from live IR.
    unsafe { if mlirTypeIsAInteger(ty) { mlirIntegerTypeGetWidth(ty) } else { 0 } }
}

/// An `affine_map` over `loops` dimensions giving the dimensions `results`, as MLIR prints it
/// (to recognize the maps of an op).
pub(crate) fn map(loops: usize, results: &[usize]) -> String {
    let dims: Vec<String> = (0..loops).map(|d| format!("d{d}")).collect();
    let out: Vec<String> = results.iter().map(|d| format!("d{d}")).collect();
    format!("affine_map<({}) -> ({})>", dims.join(", "), out.join(", "))
}

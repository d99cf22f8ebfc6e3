//! What `umac-fold-padding` and `umac-im2col` share about convolution and pooling windows: their
//! strides and dilations, the `tensor.pad` a window may read through, and the MLIR text of a
//! window's read with bounds checks.

use mlir_sys::*;
use umac_dialects::{
    ir::{attribute, constant_value, i64_array},
    text::attribute_text,
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

/// The padding of a foldable `tensor.pad`: its source, `[top, left]`, and the pad value as
/// `arith.constant` text.
///
/// # Safety
/// `pad` must be live.
pub(crate) unsafe fn padding(pad: MlirOperation) -> Option<(MlirValue, [i64; 2], String)> {
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
        let text = attribute_text(melior::ir::Attribute::from_raw(value));
        Some((mlirOperationGetOperand(pad, 0), [top, left], text))
    }
}

/// The body text reading the input element `%xv` (type `xe`) of window position (`%kh`, `%kw`)
/// of output pixel (`%n`, `%oh`, `%ow`) in channel `%c` from `%x` (`x_type`), the window
/// starting `origin` (`[top, left]` padding) before the pixel's strided position. With `checked`,
/// positions outside the input (`%ch` rows, `%cw` columns) read `%pad` instead; one unsigned
/// comparison per axis checks both bounds (a negative index is a huge unsigned one).
pub(crate) fn window_read(
    strides: [i64; 2],
    dilations: [i64; 2],
    [top, left]: [i64; 2],
    checked: bool,
    x_type: &str,
    xe: &str,
) -> String {
    let mut body = format!(
        "      %ih = affine.apply affine_map<(a, b) -> (a * {} + b * {} - {top})>(%oh, %kh)\n      \
         %iw = affine.apply affine_map<(a, b) -> (a * {} + b * {} - {left})>(%ow, %kw)\n",
        strides[0], dilations[0], strides[1], dilations[1]
    );
    if checked {
        body += &format!(
            "      %h_in = arith.cmpi ult, %ih, %ch : index\n      %w_in = arith.cmpi ult, %iw, %cw : index\n      \
             %in = arith.andi %h_in, %w_in : i1\n      %ihc = arith.select %in, %ih, %c0 : index\n      \
             %iwc = arith.select %in, %iw, %c0 : index\n      \
             %loaded = tensor.extract %x[%n, %ihc, %iwc, %c] : {x_type}\n      \
             %xv = arith.select %in, %loaded, %pad : {xe}\n"
        );
    } else {
        body += &format!("      %xv = tensor.extract %x[%n, %ih, %iw, %c] : {x_type}\n");
    }
    body
}

/// The width of an `iN` type's text.
pub(crate) fn width(ty: &str) -> u32 {
    ty.trim_start_matches('i').parse().unwrap_or(0)
}

/// An `affine_map` over `loops` dimensions giving the dimensions `results`.
pub(crate) fn map(loops: usize, results: &[usize]) -> String {
    let dims: Vec<String> = (0..loops).map(|d| format!("d{d}")).collect();
    let out: Vec<String> = results.iter().map(|d| format!("d{d}")).collect();
    format!("affine_map<({}) -> ({})>", dims.join(", "), out.join(", "))
}

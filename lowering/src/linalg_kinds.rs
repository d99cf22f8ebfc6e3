//! The kinds of linalg ops umac's passes treat alike: those that reduce into an accumulator
//! (convolutions, pooling, matrix products), also when umac rewrote one as a `linalg.generic`
//! that keeps its name in `umac.op`.

use melior::ir::{OperationRef, operation::OperationLike};
use umac_dialects::{
    ir::{op_name, string_value},
    umac::OP_ATTR,
};

/// Ops that reduce into an accumulator whose producers and consumer are worth fusing.
pub fn is_accumulating(name: &str) -> bool {
    ["linalg.conv_", "linalg.depthwise_conv_", "linalg.pooling_", "linalg.matmul", "linalg.batch_matmul"]
        .iter()
        .any(|prefix| name.starts_with(prefix))
        || name == "linalg.quantized_matmul"
        || name == "linalg.quantized_batch_matmul"
}

/// The accumulating op `op` is (`conv_2d_nhwc_fhwc_q`, ...), also when it is a generic umac
/// wrote in place of one (`umac.op`).
pub fn accumulating_kind(op: &OperationRef) -> Option<String> {
    let name = op_name(op);
    if is_accumulating(&name) {
        return Some(name.trim_start_matches("linalg.").to_string());
    }
    if name != "linalg.generic" {
        return None;
    }
    let kind = op.attribute(OP_ATTR).ok().and_then(string_value)?;
    is_accumulating(&format!("linalg.{kind}")).then_some(kind)
}

/// The `umac.op` of a live op (what umac wrote a generic in place of), if it has one.
///
/// # Safety
/// `op` must be live.
pub unsafe fn umac_op(op: mlir_sys::MlirOperation) -> Option<String> {
    // SAFETY: the caller's contract.
    unsafe { umac_dialects::ir::attribute(op, OP_ATTR).and_then(|a| string_value(melior::ir::Attribute::from_raw(a))) }
}

/// A convolution over fewer input channels than this has them gathered per pixel with its window
/// by `umac-im2col` (on CPUs with vectors or the DSP extension): the shortest dot product
/// `umac-vectorize-dot-products` takes.
pub const IM2COL_INPUT_CHANNELS: i64 = 8;

/// Kinds whose output channels are computed apart, each from its own input channel (depthwise
/// convolutions, pooling): their channel loops can go inside the window loops.
pub fn independent_channels(kind: &str) -> bool {
    kind.starts_with("depthwise_conv_2d_nhwc") || kind.starts_with("pooling_nhwc")
}

/// How many channels one output pixel of a shaped type `ty` holds (the product of its dimensions
/// after batch, row and column; 1 for a per-element tile); `None` for an unranked or rank-3-or-less
/// type.
pub fn pixel_channels(ty: mlir_sys::MlirType) -> Option<i64> {
    // SAFETY: the type is live; dimensions are read only for a ranked type.
    unsafe {
        if !mlir_sys::mlirTypeIsAShaped(ty)
            || !mlir_sys::mlirShapedTypeHasRank(ty)
            || mlir_sys::mlirShapedTypeGetRank(ty) <= 3
        {
            return None;
        }
        Some(
            (3..mlir_sys::mlirShapedTypeGetRank(ty))
                .map(|d| mlir_sys::mlirShapedTypeGetDimSize(ty, d as isize))
                .product(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::is_accumulating;

    #[test]
    fn accumulating_ops() {
        assert!(is_accumulating("linalg.conv_2d_nhwc_fhwc_q"));
        assert!(is_accumulating("linalg.depthwise_conv_2d_nhwc_hwcm"));
        assert!(is_accumulating("linalg.pooling_nhwc_max"));
        assert!(is_accumulating("linalg.quantized_matmul"));
        assert!(!is_accumulating("linalg.generic"));
        assert!(!is_accumulating("linalg.fill"));
    }
}

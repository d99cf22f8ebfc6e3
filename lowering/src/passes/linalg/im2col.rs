//! `umac-im2col`: a convolution over so few input channels that its channel loop is too short
//! to vectorize (fewer than `umac-vectorize-dot-products`' 8) reads its window through a patch:
//! the window of each output pixel gathered into a `[kh][kw][ic]` buffer (im2col), then one dot
//! product over it per output channel against the OHWI filter. `umac-tile-and-fuse` computes the
//! patch once per pixel (`kh·kw·ic` bytes, not the whole im2col matrix); then
//! `umac-collapse-window` (the second pass here) reads the patch and each filter as rows of
//! `kh·kw·ic` contiguous elements, so the dot products run on vectors or the DSP extension over
//! the whole window. CMSIS-NN's first layers work the same way. A padded input (`tensor.pad`)
//! is read in place, as `umac-fold-padding` does: positions outside it take the pad value.
//! ```mlir
//! %y = linalg.conv_2d_nhwc_fhwc ins(%x, %w : tensor<1x49x10x1xi8>, tensor<64x10x4x1xi8>) ...
//! // becomes
//! %window = linalg.generic {umac.op = "im2col"} outs(tensor<1x25x5x10x4x1xi8>) {
//!   ... (n, oh, ow, kh, kw, c) ... tensor.extract %x[...] (or the pad) }
//! %y = linalg.generic {umac.op = "conv_2d_nhwc_fhwc"} ins(%window, %w) outs(...) {
//!   (n, oh, ow, oc, kh, kw, c): acc + extsi(window[n, oh, ow, kh, kw, c]) * extsi(w[oc, kh, kw, c]) }
//! // umac-collapse-window, once each pixel's window is a tile of its own:
//! %row = tensor.collapse_shape %window_tile [[0], [1], [2], [3, 4, 5]] : ... into tensor<1x1x1x40xi8>
//! %w2 = tensor.collapse_shape %w [[0], [1, 2, 3]] : ... into tensor<64x40xi8>
//! %y = linalg.generic {umac.op = "conv_2d_nhwc_fhwc"} ins(%row, %w2) ... (n, oh, ow, oc, k) ...
//! ```
//! Supported: `conv_2d_nhwc_fhwc` (zero points folded by `umac-fold-zero-points`) on integers
//! with static shapes, a window of at least 8 elements, at least 8 output channels to share
//! each patch (`MIN_OUTPUT_CHANNELS`). Used where the CPU has vectors or the
//! DSP extension (Cortex-M55/M85, M4/M7/M33).
//!
//! With `all-windows` (the host engine), every convolution whose window is larger than 1x1 is
//! gathered so, whatever its input channels: the patch takes the padded window's bounds checks
//! out of the dot products, which then sum the whole window in vectors and reduce once per
//! output (IC on the host: 1,340 -> 830 us). Firmware does not take it: the patch adds to the
//! workspace (IC: 49,152 -> 49,360 bytes), and on Cortex-M4 to the instructions (IC: 30.6M ->
//! 31.3M).

use crate::{
    Error,
    linalg_kinds::{IM2COL_INPUT_CHANNELS, umac_op},
    options::{OptionKind, OptionSpec, OptionValues},
    pass::{UmacPass, boxed, rewrite_each},
    registry::{PassInfo, PassKind},
    schedule::PATCH_OP,
    windows::{map, padding, pair, width, window_read},
};
use melior::ir::OperationRef;
use mlir_sys::*;
use umac_dialects::{
    ir::{attribute, body_ops, element_type, name, op_name, produced_by, static_tensor_shape},
    text::{attribute_text, tensor_type, type_text},
};

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    name: "umac-im2col",
    summary: "Gather the window of a convolution over few input channels into a per-pixel patch read by long dot products",
    anchor: "any",
    options: &[OptionSpec {
        name: "all-windows",
        kind: OptionKind::Bool,
        default: "false",
        help: "gather every convolution with a window larger than 1x1, whatever its input channels",
    }],
    kind: PassKind::Pass(|options: &OptionValues| boxed(Im2col { all_windows: options.bool("all-windows") })),
};

/// The registry entry of the second half, after `umac-tile-and-fuse` computed each pixel's
/// window: the dot products read it as one row.
pub const COLLAPSE_INFO: PassInfo = PassInfo {
    name: "umac-collapse-window",
    summary: "Read the window umac-im2col gathered as one row: dot products over its kh*kw*ic contiguous elements",
    anchor: "any",
    options: &[],
    kind: PassKind::Pass(|_| boxed(CollapseWindow)),
};

/// The fewest input channels the dot products take along the channel loop, and the fewest
/// window elements worth gathering: `umac-vectorize-dot-products`' shortest loop.
const SHORTEST: i64 = IM2COL_INPUT_CHANNELS;

/// The fewest output channels that share a pixel's patch: its gather (over the window's own
/// loops) pays off from VWW's 8 output channels on, on Cortex-M55 (its first layer 1,116,000 ->
/// 805,000 instructions; IC's 16: 1,157,000 -> 594,000; KWS's 64: 887,000 -> 195,000); fewer
/// were not measured. (Gathered through one flat index, with a division and a remainder for
/// each element, it cost about 33 instructions an element and lost on VWW and IC.)
const MIN_OUTPUT_CHANNELS: i64 = 8;

struct Im2col {
    all_windows: bool,
}

struct CollapseWindow;

impl UmacPass for Im2col {
    fn run(&mut self, operation: OperationRef) -> Result<(), Error> {
        // A pad the convolution reads stays (other users may need it); canonicalization erases
        // it when dead.
        let rewrite = if self.all_windows { rewrite_all_windows } else { rewrite_few_channels };
        rewrite_each(operation, |op| op_name(op) == "linalg.conv_2d_nhwc_fhwc", INFO.name, rewrite)
    }
}

impl UmacPass for CollapseWindow {
    fn run(&mut self, operation: OperationRef) -> Result<(), Error> {
        rewrite_each(operation, |op| op_name(op) == "linalg.generic", COLLAPSE_INFO.name, collapse)
    }
}

/// The dot products `raw` computes over a window `umac-im2col` gathered, reading the window and
/// the filter as rows of `kh·kw·ic` elements (both are contiguous there: the window a buffer of
/// its own, the filter OHWI), or `None` when `raw` is no such op.
///
/// # Safety
/// `raw` must be live.
unsafe fn collapse(raw: MlirOperation) -> Option<(String, Vec<MlirValue>)> {
    unsafe {
        if umac_op(raw)?.as_str() != "conv_2d_nhwc_fhwc" || mlirOperationGetNumOperands(raw) != 3 {
            return None;
        }
        let window = mlirOperationGetOperand(raw, 0);
        let gathered = produced_by(window, "linalg.generic").and_then(|op| umac_op(op));
        let maps = attribute_text(melior::ir::Attribute::from_raw(attribute(raw, "indexing_maps")?));
        let expected =
            format!("[{}, {}, {}]", map(7, &[0, 1, 2, 4, 5, 6]), map(7, &[3, 4, 5, 6]), map(7, &[0, 1, 2, 3]));
        if gathered.as_deref() != Some(PATCH_OP) || maps.replace(' ', "") != expected.replace(' ', "") {
            return None;
        }
        // The body umac-im2col wrote: the sum of the products (regenerated below).
        let body: Vec<String> = body_ops(raw).into_iter().map(|op| name(op)).collect();
        if body != ["arith.extsi", "arith.extsi", "arith.muli", "arith.addi", "linalg.yield"] {
            return None;
        }
        let (filter, init) = (mlirOperationGetOperand(raw, 1), mlirOperationGetOperand(raw, 2));
        let ((p, xe), (w, we), (y, ye)) = (shape(window)?, shape(filter)?, shape(init)?);
        let (&[n, oh, ow, kh, kw, ic], &[oc, ..], 4) = (&p[..], &w[..], y.len()) else { return None };
        let k = kh * kw * ic;
        let (p_type, w_type, y_type) = (tensor_type(&p, &xe), tensor_type(&w, &we), tensor_type(&y, &ye));
        let (row_type, filter_type) = (tensor_type(&[n, oh, ow, k], &xe), tensor_type(&[oc, k], &we));
        let text = format!(
            "func.func private @__umac_collapse_window(%p: {p_type}, %w: {w_type}, %init: {y_type}) -> {y_type} {{\n  \
             %row = tensor.collapse_shape %p [[0], [1], [2], [3, 4, 5]] : {p_type} into {row_type}\n  \
             %w2 = tensor.collapse_shape %w [[0], [1, 2, 3]] : {w_type} into {filter_type}\n  \
             %y = linalg.generic {{indexing_maps = [{}, {}, {}], iterator_types = [{}, \"reduction\"], \
             umac.op = \"conv_2d_nhwc_fhwc\"}} ins(%row, %w2 : {row_type}, {filter_type}) outs(%init : {y_type}) {{\n{}  }} -> {y_type}\n  \
             return %y : {y_type}\n}}\n",
            map(5, &[0, 1, 2, 4]),
            map(5, &[3, 4]),
            map(5, &[0, 1, 2, 3]),
            ["\"parallel\""; 4].join(", "),
            dot_body(&xe, &we, &ye),
        );
        Some((text, vec![window, filter, init]))
    }
}

/// Static shape and element type (as text) of a ranked tensor value.
///
/// # Safety
/// `value` must be live.
unsafe fn shape(value: MlirValue) -> Option<(Vec<i64>, String)> {
    unsafe {
        let ty = mlirValueGetType(value);
        let element = element_type(ty);
        mlirTypeIsAInteger(element).then_some(())?;
        Some((static_tensor_shape(ty)?, type_text(melior::ir::Type::from_raw(element))))
    }
}

/// [`rewrite`] of the convolutions over fewer input channels than the dot products take.
///
/// # Safety
/// `raw` must be live.
unsafe fn rewrite_few_channels(raw: MlirOperation) -> Option<(String, Vec<MlirValue>)> {
    unsafe { rewrite(raw, false) }
}

/// [`rewrite`] of every convolution with a window larger than 1x1 (`all-windows`).
///
/// # Safety
/// `raw` must be live.
unsafe fn rewrite_all_windows(raw: MlirOperation) -> Option<(String, Vec<MlirValue>)> {
    unsafe { rewrite(raw, true) }
}

/// The replacement helper and the values its arguments take, or `None` when `raw` is not a
/// convolution this pass rewrites: over fewer input channels than the dot products take or, with
/// `all_windows`, with any window larger than 1x1.
///
/// # Safety
/// `raw` must be a live `linalg.conv_2d_nhwc_fhwc`.
unsafe fn rewrite(raw: MlirOperation, all_windows: bool) -> Option<(String, Vec<MlirValue>)> {
    unsafe {
        let input = mlirOperationGetOperand(raw, 0);
        let filter = mlirOperationGetOperand(raw, 1);
        let init = mlirOperationGetOperand(raw, 2);
        let padded = mlirValueIsAOpResult(input).then(|| padding(mlirOpResultGetOwner(input))).flatten();
        let source = padded.as_ref().map_or(input, |(source, _, _)| *source);
        let (x, xe) = shape(source)?;
        let (w, we) = shape(filter)?;
        let (y, ye) = shape(init)?;
        let strides = pair(attribute(raw, "strides")?)?;
        let dilations = pair(attribute(raw, "dilations")?)?;
        let (&[_, h, wd, ic], &[oc, kh, kw, wic], &[n, oh, ow, yc]) = (&x[..], &w[..], &y[..]) else {
            return None;
        };
        let window = kh * kw * ic;
        // Products of narrower integers summed in the output's type.
        if width(&xe) >= width(&ye) || width(&we) >= width(&ye) {
            return None;
        }
        let few_channels = ic < SHORTEST || (all_windows && kh * kw > 1);
        if !few_channels
            || window < SHORTEST
            || oc < MIN_OUTPUT_CHANNELS
            || wic != ic
            || yc != oc
            || strides.iter().chain(&dilations).any(|v| *v < 1)
        {
            return None;
        }
        let window_type = tensor_type(&[n, oh, ow, kh, kw, ic], &xe);
        let (x_type, w_type, y_type) = (tensor_type(&x, &xe), tensor_type(&w, &we), tensor_type(&y, &ye));
        // The window element (kh, kw, c) of output pixel (oh, ow), gathered over the window's
        // own loops (no index arithmetic per element).
        let [top, left] = padded.as_ref().map_or([0, 0], |(_, at, _)| *at);
        let gather = format!(
            "      %n = linalg.index 0 : index\n      %oh = linalg.index 1 : index\n      %ow = linalg.index 2 : index\n      \
             %kh = linalg.index 3 : index\n      %kw = linalg.index 4 : index\n      %c = linalg.index 5 : index\n{}",
            window_read(strides, dilations, [top, left], padded.is_some(), &x_type, &xe)
        );
        let constants = match &padded {
            Some((_, _, pad_value)) => format!(
                "  %c0 = arith.constant 0 : index\n  %ch = arith.constant {h} : index\n  \
                 %cw = arith.constant {wd} : index\n  %pad = arith.constant {pad_value}\n"
            ),
            None => String::new(),
        };
        let parallel4 = ["\"parallel\""; 4].join(", ");
        let parallel6 = ["\"parallel\""; 6].join(", ");
        let text = format!(
            "func.func private @__umac_im2col(%x: {x_type}, %w: {w_type}, %init: {y_type}) -> {y_type} {{\n{constants}  \
             %empty = tensor.empty() : {window_type}\n  \
             %window = linalg.generic {{indexing_maps = [{}], iterator_types = [{parallel6}], umac.op = \"{PATCH_OP}\"}} \
             outs(%empty : {window_type}) {{\n    ^bb0(%out: {xe}):\n{gather}      linalg.yield %xv : {xe}\n  }} -> {window_type}\n  \
             %y = linalg.generic {{indexing_maps = [{}, {}, {}], iterator_types = [{parallel4}, {reductions}], \
             umac.op = \"conv_2d_nhwc_fhwc\"}} ins(%window, %w : {window_type}, {w_type}) outs(%init : {y_type}) {{\n{}  }} -> {y_type}\n  \
             return %y : {y_type}\n}}\n",
            map(6, &[0, 1, 2, 3, 4, 5]),
            map(7, &[0, 1, 2, 4, 5, 6]),
            map(7, &[3, 4, 5, 6]),
            map(7, &[0, 1, 2, 3]),
            dot_body(&xe, &we, &ye),
            reductions = ["\"reduction\""; 3].join(", "),
        );
        Some((text, vec![source, filter, init]))
    }
}

/// The body of the dot products: the sum of the patch's and the filter's elements' products.
fn dot_body(xe: &str, we: &str, ye: &str) -> String {
    format!(
        "    ^bb0(%xv: {xe}, %wv: {we}, %acc: {ye}):\n      %xw = arith.extsi %xv : {xe} to {ye}\n      \
         %ww = arith.extsi %wv : {we} to {ye}\n      %prod = arith.muli %xw, %ww : {ye}\n      \
         %sum = arith.addi %acc, %prod : {ye}\n      linalg.yield %sum : {ye}\n"
    )
}

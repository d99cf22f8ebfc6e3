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
    pass::{UmacPass, boxed, replace_with},
    registry::{PassInfo, PassKind},
    schedule::PATCH_OP,
    windows::{Bounds, Window, map, padding, pair, width},
};
use melior::ir::OperationRef;
use mlir_sys::*;
use umac_dialects::{
    build::{Attr, Builder, Ty, Value, projection},
    ir::{attribute, body_ops, collect, element_type, name, op_name, produced_by, static_tensor_shape},
    text::attribute_text,
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
        let all_windows = self.all_windows;
        replace_each(operation, "linalg.conv_2d_nhwc_fhwc", |raw| {
            // SAFETY: `replace_each` hands over live ops.
            unsafe { Gather::of(raw, all_windows) }.map(|gather| Box::new(move |b: &mut Builder| gather.write(b)) as _)
        })
    }
}

impl UmacPass for CollapseWindow {
    fn run(&mut self, operation: OperationRef) -> Result<(), Error> {
        replace_each(operation, "linalg.generic", |raw| {
            // SAFETY: `replace_each` hands over live ops.
            unsafe { Collapse::of(raw) }.map(|collapse| Box::new(move |b: &mut Builder| collapse.write(b)) as _)
        })
    }
}

/// What writes the replacement of an op in front of it and returns its result.
type Write = Box<dyn FnOnce(&mut Builder) -> Value>;

/// Replaces each op named `name` under `operation` for which `plan` returns a writer by what it
/// writes, one at a time.
fn replace_each(
    operation: OperationRef,
    name: &str,
    mut plan: impl FnMut(MlirOperation) -> Option<Write>,
) -> Result<(), Error> {
    for raw in collect(operation, |op| op_name(op) == name) {
        let Some(write) = plan(raw) else { continue };
        // SAFETY: each collected op is live until its own replacement below.
        let op = unsafe { OperationRef::from_raw(raw) };
        replace_with(op, |b| vec![write(b)])?;
    }
    Ok(())
}

/// The dot products over a window `umac-im2col` gathered, read as rows of `kh·kw·ic` elements
/// (both are contiguous there: the window a buffer of its own, the filter OHWI).
struct Collapse {
    /// The window, the filter and the accumulator.
    operands: [MlirValue; 3],
    /// The window's and the filter's shapes.
    window: [i64; 6],
    filter: Vec<i64>,
}

impl Collapse {
    /// The collapse of `raw`, or `None` when `raw` is no dot product over a gathered window.
    ///
    /// # Safety
    /// `raw` must be live.
    unsafe fn of(raw: MlirOperation) -> Option<Collapse> {
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
            let ((p, _), (w, _), (y, _)) = (shape(window)?, shape(filter)?, shape(init)?);
            let (Ok(p), [_, ..], 4) = (<[i64; 6]>::try_from(p), &w[..], y.len()) else { return None };
            Some(Collapse { operands: [window, filter, init], window: p, filter: w })
        }
    }

    fn write(&self, b: &mut Builder) -> Value {
        let [window, filter, init] = self.operands.map(|v| b.existing(v));
        let [n, oh, ow, kh, kw, ic] = self.window;
        let k = kh * kw * ic;
        let (xe, we) = (b.element_of(b.type_of(window)), b.element_of(b.type_of(filter)));
        let row_type = b.tensor(&[n, oh, ow, k], xe);
        let filter_type = b.tensor(&[self.filter[0], k], we);
        let row = collapse_shape(b, window, &[&[0], &[1], &[2], &[3, 4, 5]], row_type);
        let filter = collapse_shape(b, filter, &[&[0], &[1, 2, 3]], filter_type);
        let maps = [
            Attr::Map(5, &projection(5, &[0, 1, 2, 4])),
            Attr::Map(5, &projection(5, &[3, 4])),
            Attr::Map(5, &projection(5, &[0, 1, 2, 3])),
        ];
        let iterators = ["parallel", "parallel", "parallel", "parallel", "reduction"];
        let attributes = [("umac.op", Attr::Str("conv_2d_nhwc_fhwc"))];
        b.generic([&[row, filter], &[init]], &maps, &iterators, &attributes, dot)[0]
    }
}

/// `tensor.collapse_shape` of `value` into `into`, its dimensions grouped as `groups` says.
fn collapse_shape(b: &mut Builder, value: Value, groups: &[&[i64]], into: Ty) -> Value {
    let groups: Vec<Vec<Attr>> = groups.iter().map(|g| g.iter().map(|d| Attr::Int(Ty::I64, *d)).collect()).collect();
    let groups: Vec<Attr> = groups.iter().map(|g| Attr::Array(g)).collect();
    b.op1("tensor.collapse_shape", &[value], into, &[("reassociation", Attr::Array(&groups))])
}

/// Static shape and element type of a ranked tensor value of integers.
///
/// # Safety
/// `value` must be live.
unsafe fn shape(value: MlirValue) -> Option<(Vec<i64>, MlirType)> {
    unsafe {
        let ty = mlirValueGetType(value);
        let element = element_type(ty);
        mlirTypeIsAInteger(element).then_some(())?;
        Some((static_tensor_shape(ty)?, element))
    }
}

/// A convolution this pass rewrites: over fewer input channels than the dot products take or,
/// with `all-windows`, with any window larger than 1x1.
struct Gather {
    /// The (unpadded) input, the filter and the accumulator.
    operands: [MlirValue; 3],
    /// The gathered window's shape `[n, oh, ow, kh, kw, ic]`.
    window_shape: [i64; 6],
    window: Window,
    /// The input's height and width and the pad value, when the input is padded.
    padded: Option<([i64; 2], MlirAttribute)>,
}

impl Gather {
    /// The gather of the convolution `raw`, or `None` when it is not one this pass rewrites.
    ///
    /// # Safety
    /// `raw` must be a live `linalg.conv_2d_nhwc_fhwc`.
    unsafe fn of(raw: MlirOperation, all_windows: bool) -> Option<Gather> {
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
            if width(xe) >= width(ye) || width(we) >= width(ye) {
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
            let origin = padded.as_ref().map_or([0, 0], |(_, at, _)| *at);
            Some(Gather {
                operands: [source, filter, init],
                window_shape: [n, oh, ow, kh, kw, ic],
                window: Window { strides, dilations, origin },
                padded: padded.map(|(_, _, pad)| ([h, wd], pad)),
            })
        }
    }

    /// Writes the gathered window (the window element (kh, kw, c) of output pixel (oh, ow),
    /// gathered over the window's own loops: no index arithmetic per element) and the dot
    /// products over it; returns their result.
    fn write(&self, b: &mut Builder) -> Value {
        let [x, filter, init] = self.operands.map(|v| b.existing(v));
        let bounds = self.padded.map(|(size, pad)| Bounds::write(b, size, pad));
        let xe = b.element_of(b.type_of(x));
        let window_type = b.tensor(&self.window_shape, xe);
        let empty = b.op1("tensor.empty", &[], window_type, &[]);
        let parallel = ["parallel"; 6];
        let maps = [Attr::Map(6, &projection(6, &[0, 1, 2, 3, 4, 5]))];
        let patch = [("umac.op", Attr::Str(PATCH_OP))];
        let window = b.generic([&[], &[empty]], &maps, &parallel, &patch, |b, _| {
            let loops = [0, 1, 2, 3, 4, 5].map(|d| b.linalg_index(d));
            vec![self.window.read(b, x, loops, bounds.as_ref())]
        })[0];
        let maps = [
            Attr::Map(7, &projection(7, &[0, 1, 2, 4, 5, 6])),
            Attr::Map(7, &projection(7, &[3, 4, 5, 6])),
            Attr::Map(7, &projection(7, &[0, 1, 2, 3])),
        ];
        let iterators = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"];
        let attributes = [("umac.op", Attr::Str("conv_2d_nhwc_fhwc"))];
        b.generic([&[window, filter], &[init]], &maps, &iterators, &attributes, dot)[0]
    }
}

/// The body of the dot products over the block's arguments (the patch's and the filter's
/// elements and the accumulator): the sum of their products, in the accumulator's type.
fn dot(b: &mut Builder, args: &[Value]) -> Vec<Value> {
    let ye = b.type_of(args[2]);
    let xw = b.op1("arith.extsi", &[args[0]], ye, &[]);
    let ww = b.op1("arith.extsi", &[args[1]], ye, &[]);
    let product = b.muli(xw, ww);
    vec![b.addi(args[2], product)]
}

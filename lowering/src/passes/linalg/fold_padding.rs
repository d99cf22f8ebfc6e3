//! `umac-fold-padding`: a convolution, depthwise convolution or pooling over a `tensor.pad`
//! reads the unpadded input directly, with bounds checks, so no padded copy of the input (not
//! even a per-tile window) is ever materialized. TFLite Micro's kernels work the same way.
//!
//! The named op becomes a `linalg.generic` with the same iteration space and the same
//! arithmetic (so results are bit-identical); the input is read with `tensor.extract` at
//! `(n, oh·s + kh·d - pad, ow·s + kw·d - pad, c)`, and positions outside the input read the pad
//! value instead. The generic keeps the named op's name in `umac.op`.
//! ```mlir
//! %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] { tensor.yield %c-128_i8 }
//! %y = linalg.depthwise_conv_2d_nhwc_hwcm_q ins(%p, %w, %izp, %wzp) outs(%init)
//! // becomes
//! %y = linalg.generic {umac.op = "depthwise_conv_2d_nhwc_hwcm_q", ...} ins(%w) outs(%init) {
//!   ... %in = arith.andi (unsigned bounds checks of ih, iw) ... %v = tensor.extract %x[...] ...
//!   %xv = arith.select %in, %v, %c-128_i8 ... }
//! ```
//! Supported: `conv_2d_nhwc_fhwc[_q]`, `depthwise_conv_2d_nhwc_hwcm[_q]`, `pooling_nhwc_sum`,
//! `pooling_nhwc_max` on integer and float types with static shapes, padding on H and W only,
//! and a constant pad value. Anything else is left as it is (still correct, with the padded copy).

use crate::{
    Error,
    options::{OptionKind, OptionSpec, OptionValues},
    pass::{UmacPass, boxed},
    registry::{PassInfo, PassKind},
    windows::{map, padding, pair, width, window_read},
};
use melior::ir::{OperationRef, TypeLike, ValueLike, operation::OperationLike};
use mlir_sys::*;
use umac_dialects::{
    ir::{attribute, collect, element_type, op_name, splice, static_tensor_shape},
    text::{tensor_type, type_text},
};

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    name: "umac-fold-padding",
    summary: "Read a padded convolution/pooling input in place with bounds checks instead of materializing tensor.pad",
    anchor: "any",
    options: &[OptionSpec {
        name: "wide-interiors",
        kind: OptionKind::Bool,
        default: "true",
        help: "record the interior of a convolution over 16 or more input channels too (its dot products run on vectors or the DSP extension)",
    }],
    kind: PassKind::Pass(|options: &OptionValues| {
        boxed(FoldPadding { wide_interiors: options.bool("wide-interiors") })
    }),
};

struct FoldPadding {
    /// Whether a convolution over 16 or more input channels records its interior.
    wide_interiors: bool,
}

/// What a supported op computes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Conv { quantized: bool },
    Depthwise { quantized: bool },
    PoolSum,
    PoolMax,
}

fn kind_of(name: &str) -> Option<Kind> {
    Some(match name {
        "linalg.conv_2d_nhwc_fhwc" => Kind::Conv { quantized: false },
        "linalg.conv_2d_nhwc_fhwc_q" => Kind::Conv { quantized: true },
        "linalg.depthwise_conv_2d_nhwc_hwcm" => Kind::Depthwise { quantized: false },
        "linalg.depthwise_conv_2d_nhwc_hwcm_q" => Kind::Depthwise { quantized: true },
        "linalg.pooling_nhwc_sum" => Kind::PoolSum,
        "linalg.pooling_nhwc_max" => Kind::PoolMax,
        _ => return None,
    })
}

impl UmacPass for FoldPadding {
    fn run(&mut self, operation: OperationRef) -> Result<(), Error> {
        for raw in collect(operation, |op| kind_of(&op_name(op)).is_some()) {
            // SAFETY: each op is alive until it is replaced, one at a time; the pad it reads
            // stays (other users may need it) and is erased by canonicalization when dead.
            unsafe {
                let op = OperationRef::from_raw(raw);
                let Some(kind) = kind_of(&op_name(&op)) else { continue };
                let Some((text, arguments)) = rewrite(&op, kind, self.wide_interiors) else { continue };
                splice(raw, &text, &arguments, INFO.name, Some(mlirOperationGetLocation(raw)))?;
            }
        }
        Ok(())
    }
}

/// Static shape and element type of a ranked tensor.
fn shape_of(ty: MlirType) -> Option<(Vec<i64>, MlirType)> {
    Some((static_tensor_shape(ty)?, element_type(ty)))
}

/// The replacement helper and the values its arguments take, or `None` when `op` is not a
/// foldable case.
///
/// # Safety
/// `op` must be live.
unsafe fn rewrite(op: &OperationRef, kind: Kind, wide_interiors: bool) -> Option<(String, Vec<MlirValue>)> {
    unsafe {
        let raw = op.to_raw();
        let input = mlirOperationGetOperand(raw, 0);
        if !mlirValueIsAOpResult(input) {
            return None;
        }
        let (source, [top, left], pad_value) = padding(mlirOpResultGetOwner(input))?;
        let (x_dims, x_element) = shape_of(mlirValueGetType(source))?;
        let result = op.result(0).ok()?;
        let (y_dims, y_element) = shape_of(result.r#type().to_raw())?;
        let integer = mlirTypeIsAInteger(x_element) && mlirTypeIsAInteger(y_element);
        let float = mlirTypeIsAFloat(x_element) && mlirTypeIsAFloat(y_element);
        let quantized = matches!(kind, Kind::Conv { quantized: true } | Kind::Depthwise { quantized: true });
        if !(integer || float && !quantized) || x_dims.len() != 4 {
            return None;
        }
        let strides = pair(attribute(raw, "strides")?)?;
        let dilations = pair(attribute(raw, "dilations")?)?;
        if strides.iter().chain(&dilations).any(|v| *v < 1) {
            return None;
        }
        let second = mlirOperationGetOperand(raw, 1);
        let (w_dims, w_element) = shape_of(mlirValueGetType(second))?;
        let xe = type_text(melior::ir::Type::from_raw(x_element));
        let ye = type_text(melior::ir::Type::from_raw(y_element));
        let we = type_text(melior::ir::Type::from_raw(w_element));
        let init = mlirOperationGetOperand(raw, mlirOperationGetNumOperands(raw) - 1);

        // Loops, the windows' loop positions (kh, kw), the channel loop, the second operand's
        // and the output's indexing.
        let (loops, kh, kw, channel, w_map, y_map): (usize, usize, usize, usize, Vec<usize>, Vec<usize>) = match kind {
            Kind::Conv { .. } => (7, 4, 5, 6, vec![3, 4, 5, 6], vec![0, 1, 2, 3]),
            Kind::Depthwise { .. } => (7, 5, 6, 3, vec![5, 6, 3, 4], vec![0, 1, 2, 3, 4]),
            Kind::PoolSum | Kind::PoolMax => (6, 4, 5, 3, vec![4, 5], vec![0, 1, 2, 3]),
        };
        let parallel = y_map.len();
        let iterators: Vec<&str> =
            (0..loops).map(|d| if d < parallel { "\"parallel\"" } else { "\"reduction\"" }).collect();
        let (izp, wzp) = if quantized {
            (Some(mlirOperationGetOperand(raw, 2)), Some(mlirOperationGetOperand(raw, 3)))
        } else {
            (None, None)
        };
        let scalar = |v: Option<MlirValue>| v.map(|v| type_text(melior::ir::Type::from_raw(mlirValueGetType(v))));
        let (izp_type, wzp_type) = (scalar(izp), scalar(wzp));
        let x_type = tensor_type(&x_dims, &xe);
        let w_type = tensor_type(&w_dims, &we);
        let y_type = tensor_type(&y_dims, &ye);
        // The arithmetic of the named op's body: integers sign-extended to the accumulator's
        // type, floats extended (the same operations on the same values: bit-identical results).
        let (add, mul, max, extend) =
            if float { ("addf", "mulf", "maximumf", "extf") } else { ("addi", "muli", "maxsi", "extsi") };
        let zero = if float { "0.000000e+00" } else { "0" };
        // A value in the accumulator's type: its text and its name (a float of that type is used
        // as it is: no identity arithmetic, as -0.0 + 0.0 is +0.0).
        let widen = |value: &str, from: &str, name: &str| {
            if from != ye {
                (format!("      %{name} = arith.{extend} {value} : {from} to {ye}\n"), format!("%{name}"))
            } else if float {
                (String::new(), value.to_string())
            } else {
                (format!("      %{name} = arith.addi {value}, %c0_acc : {ye}\n"), format!("%{name}"))
            }
        };
        let mut body = String::new();
        body += &format!(
            "      %n = linalg.index 0 : index\n      %oh = linalg.index 1 : index\n      %ow = linalg.index 2 : index\n      \
             %kh = linalg.index {kh} : index\n      %kw = linalg.index {kw} : index\n      %c = linalg.index {channel} : index\n"
        );
        body += &window_read(strides, dilations, [top, left], true, &x_type, &xe);
        let (text, xw) = widen("%xv", &xe, "xw");
        body += &text;
        let (block_args, yield_value) = match kind {
            Kind::Conv { .. } | Kind::Depthwise { .. } => {
                let (text, ww) = widen("%wv", &we, "ww");
                body += &text;
                if quantized {
                    body += &format!(
                        "      %xs = arith.subi {xw}, %izp_acc : {ye}\n      %ws = arith.subi {ww}, %wzp_acc : {ye}\n      \
                         %prod = arith.muli %xs, %ws : {ye}\n"
                    );
                } else {
                    body += &format!("      %prod = arith.{mul} {xw}, {ww} : {ye}\n");
                }
                body += &format!("      %sum = arith.{add} %acc, %prod : {ye}\n");
                (format!("%wv: {we}, %acc: {ye}"), "%sum")
            }
            Kind::PoolSum => {
                body += &format!("      %sum = arith.{add} %acc, {xw} : {ye}\n");
                (format!("%wv: {we}, %acc: {ye}"), "%sum")
            }
            Kind::PoolMax => {
                body += &format!("      %max = arith.{max} %acc, {xw} : {ye}\n");
                (format!("%wv: {we}, %acc: {ye}"), "%max")
            }
        };
        let quantized_args = match (&izp_type, &wzp_type) {
            (Some(i), Some(w)) => format!(", %izp: {i}, %wzp: {w}"),
            _ => String::new(),
        };
        // The zero points in the accumulator's type, as the named op casts them.
        let mut preamble = String::new();
        for (name, ty) in [("izp", &izp_type), ("wzp", &wzp_type)] {
            let Some(ty) = ty else { continue };
            let cast = match width(ty).cmp(&width(&ye)) {
                std::cmp::Ordering::Equal => format!("arith.addi %{name}, %c0_acc : {ye}"),
                std::cmp::Ordering::Less => format!("arith.extsi %{name} : {ty} to {ye}"),
                std::cmp::Ordering::Greater => format!("arith.trunci %{name} : {ty} to {ye}"),
            };
            preamble += &format!("  %{name}_acc = {cast}\n");
        }
        let name = op_name(op);
        let short = name.trim_start_matches("linalg.");
        // The output rows and columns whose whole window lies inside the input: there the
        // bounds checks always pass (`umac-split-borders` uses this).
        let (window_h, window_w) = match kind {
            Kind::Conv { .. } => (w_dims[1], w_dims[2]),
            Kind::Depthwise { .. } | Kind::PoolSum | Kind::PoolMax => (w_dims[0], w_dims[1]),
        };
        let range = |top: i64, size: i64, window: i64, stride: i64, dilation: i64, out: i64| {
            let lo = (top + stride - 1) / stride;
            let hi = ((size - 1 + top - (window - 1) * dilation).div_euclid(stride) + 1).min(out);
            (lo.min(out), hi.max(0))
        };
        let (oh_lo, oh_hi) = range(top, x_dims[1], window_h, strides[0], dilations[0], y_dims[1]);
        let (ow_lo, ow_hi) = range(left, x_dims[2], window_w, strides[1], dilations[1], y_dims[2]);
        // Every kind records its interior, also a convolution over 16 or more input channels,
        // whose innermost loop reads them contiguously, where its dot products run on vectors
        // or the DSP extension (umac-vectorize-dot-products): without the split every one of
        // them checks the bounds (IC, whose convolutions have 16 to 64 channels, takes 9.66M
        // instructions on Cortex-M55 and 40.3M on Cortex-M4 unsplit, 7.21M and 31.8M split).
        // Without them (`wide_interiors` false: RV32IM, Cortex-M3), LLVM unswitches the scalar
        // loop on the invariant check, and the split costs more than it saves (IC on RV32IM:
        // 69.7M instructions unsplit, 74.1M split).
        let wide = matches!(kind, Kind::Conv { .. }) && x_dims[3] >= 16;
        let interior = if (wide_interiors || !wide) && oh_lo < oh_hi && ow_lo < ow_hi {
            format!(", umac.interior = array<i64: {oh_lo}, {oh_hi}, {ow_lo}, {ow_hi}>")
        } else {
            String::new()
        };
        let text = format!(
            "func.func private @__umac_fold_padding(%x: {x_type}, %w: {w_type}, %init: {y_type}{quantized_args}) -> {y_type} {{\n  \
             %c0 = arith.constant 0 : index\n  %ch = arith.constant {} : index\n  %cw = arith.constant {} : index\n  \
             %c0_acc = arith.constant {zero} : {ye}\n  %pad = arith.constant {pad_value}\n{preamble}  \
             %y = linalg.generic {{indexing_maps = [{}, {}], iterator_types = [{}], umac.op = \"{short}\"{interior}}} \
             ins(%w : {w_type}) outs(%init : {y_type}) {{\n    ^bb0({block_args}):\n{body}      linalg.yield {yield_value} : {ye}\n  \
             }} -> {y_type}\n  return %y : {y_type}\n}}\n",
            x_dims[1],
            x_dims[2],
            map(loops, &w_map),
            map(loops, &y_map),
            iterators.join(", "),
        );
        let mut arguments = vec![source, second, init];
        arguments.extend(izp);
        arguments.extend(wzp);
        Some((text, arguments))
    }
}

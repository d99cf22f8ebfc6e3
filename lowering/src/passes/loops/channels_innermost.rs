//! `umac-channels-innermost`: a depthwise convolution or a pooling computes each channel on its
//! own; linalg lists its loops batch, rows, columns, channels, then the window, so
//! `convert-linalg-to-loops` would walk the whole window for one channel before the next. For an
//! op tiled one output pixel at a time with its channels whole (`umac-tile-and-fuse{vectors}`),
//! this pass interchanges the loops (upstream `transform.structured.interchange`, after
//! `generalize`) so the window loops come first and the channel loops are innermost, and lowers
//! the op to those loops (`transform.structured.convert_to_loops`). The innermost loop then adds
//! one window element into every channel's accumulator, contiguous in memory: vector loads and
//! multiply-accumulates, 4 channels per instruction on Helium (`umac-vectorize-elementwise-loops`
//! or LLVM's loop vectorizer).
//!
//! The channel loop is marked `llvm.loop.unroll.disable`. Unrolled completely (its trip count is
//! a constant), every filter element becomes a constant that LLVM widens into a literal pool: on
//! KWS the four depthwise convolutions took 64 KB of .text each on Cortex-M55, for 3% fewer
//! instructions. An op whose channels are tiled by one is left alone.
//!
//! With `dot-products` (CPUs with the DSP extension), a convolution tile of a few output channels
//! (`umac-tile-and-fuse{output-channels}`) gets its output-channel loop innermost too, inside its
//! input-channel loop: `umac-vectorize-dot-products{dsp}` then computes the channels' dot products
//! side by side, each input word loaded and sign-extended once for all of them.
//! ```mlir
//! linalg.depthwise_conv_2d_nhwc_hwcm ins(%x, %w : memref<1x3x3x64xi8>, memref<3x3x64x1xi8>)
//!   outs(%acc : memref<1x1x1x64x1xi32>)           // loops n, oh, ow, c, m, kh, kw
//! // becomes
//! scf.for %kh ... { scf.for %kw ... {               // (and the unit loops n, oh, ow, m)
//!   scf.for %c = %c0 to %c64 step %c1 { %acc[.., %c, ..] += %x[.., %kh, %kw, %c] * %w[%kh, %kw, %c, ..] }
//!     {loop_annotation = #llvm.loop_annotation<unroll = <disable = true>>} } }
//! ```

use crate::{
    Error,
    linalg_kinds::{accumulating_kind, independent_channels, pixel_channels},
    options::{OptionKind, OptionSpec, OptionValues},
    pass::{UmacPass, boxed},
    registry::{PassInfo, PassKind},
    schedule::MAX_JAMMED_CHANNELS,
    transform,
};
use melior::ir::OperationRef;
use mlir_sys::*;
use umac_dialects::{
    ir::{attribute, collect, name},
    text::attribute_text,
};

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    name: "umac-channels-innermost",
    summary: "Lower per-pixel depthwise convolutions and pooling to loops with the channel loop inside the window loops",
    anchor: "any",
    options: &[OptionSpec {
        name: "dot-products",
        kind: OptionKind::Bool,
        default: "false",
        help: "also put the output channels of convolution tiles of up to 4 channels inside their input channels",
    }],
    kind: PassKind::Pass(|options: &OptionValues| {
        boxed(ChannelsInnermost { dot_products: options.bool("dot-products") })
    }),
};

// No dialect prefix: the pass runs on functions in parallel, where an attribute name naming a
// dialect not yet loaded would load it.
const TAG: &str = "umac_channels_innermost";

/// The loops before the window that stay outermost: batch, output row, output column.
const OUTER: usize = 3;

/// The window's loops: its rows and columns.
const WINDOW: usize = 2;

struct ChannelsInnermost {
    dot_products: bool,
}

impl UmacPass for ChannelsInnermost {
    fn run(&mut self, operation: OperationRef) -> Result<(), Error> {
        let mut ops = Vec::new();
        let mut body = String::new();
        let dot_products = self.dot_products;
        let chosen = |kind: &str| independent_channels(kind) || (dot_products && kind.starts_with("conv_2d_nhwc_fhwc"));
        for op in collect(operation, |op| accumulating_kind(op).is_some_and(|kind| chosen(&kind))) {
            // SAFETY: the ops were just collected from the live IR, which is not modified until
            // the script runs.
            let Some((order, apart)) = (unsafe { interchange(op) }) else { continue };
            let index = ops.len();
            ops.push(op);
            let order: Vec<String> = order.iter().map(usize::to_string).collect();
            body.push_str(&format!(
                "    %o{index} = transform.structured.match attributes{{{TAG} = {index} : i64}} in %m \
                 : (!transform.any_op) -> !transform.any_op\n"
            ));
            // SAFETY: as above.
            let generic = if unsafe { name(op) } == "linalg.generic" {
                format!("%o{index}")
            } else {
                body.push_str(&format!(
                    "    %g{index} = transform.structured.generalize %o{index} : (!transform.any_op) -> !transform.any_op\n"
                ));
                format!("%g{index}")
            };
            let loops = order.len();
            let handles = vec!["!transform.any_op"; loops].join(", ");
            body.push_str(&format!(
                "    %i{index} = transform.structured.interchange {generic} iterator_interchange = [{}] \
                 : (!transform.any_op) -> !transform.any_op\n    \
                 %f{index} = transform.structured.convert_to_loops %i{index} : (!transform.any_op) -> !transform.any_op\n",
                order.join(", "),
            ));
            // The channel loop of an op computing its channels apart stays rolled; a tile of dot
            // products is rewritten by `umac-vectorize-dot-products`.
            if apart {
                body.push_str(&format!(
                    "    %l{index}:{loops} = transform.split_handle %f{index} : (!transform.any_op) -> ({handles})\n    \
                     transform.annotate %l{index}#{} \"loop_annotation\" = %keep : !transform.any_op, !transform.any_param\n",
                    OUTER + WINDOW,
                ));
            }
        }
        body.insert_str(0, "    %keep = transform.param.constant #llvm.loop_annotation<unroll = <disable = true>> -> !transform.any_param\n");
        if ops.is_empty() {
            return Ok(());
        }
        // SAFETY: every op is live and belongs to the payload; the script runs in its context.
        if !unsafe { transform::apply_tagged(operation.to_raw(), &ops, TAG, &transform::script(&body)) } {
            return Err(Error::Reported);
        }
        Ok(())
    }
}

/// The new loop order of `op`: its first [`OUTER`] loops, its window (reduction) loops, then its
/// channel loops; and whether it computes its channels apart (a depthwise convolution or a
/// pooling, not a convolution's dot products). `None` when its channels are tiled by one
/// (nothing to gain), a convolution's by more than [`MAX_JAMMED_CHANNELS`], or its loops are not
/// laid out as expected.
///
/// # Safety
/// `op` must be live.
unsafe fn interchange(op: MlirOperation) -> Option<(Vec<usize>, bool)> {
    unsafe {
        let operands = mlirOperationGetNumOperands(op);
        let output = mlirValueGetType(mlirOperationGetOperand(op, operands - 1));
        let apart = accumulating_kind(&OperationRef::from_raw(op)).is_some_and(|kind| independent_channels(&kind));
        let channels = pixel_channels(output)?;
        if channels <= 1 || (!apart && channels > MAX_JAMMED_CHANNELS) {
            return None;
        }
        let parallel = usize::try_from(mlirShapedTypeGetRank(output)).ok()?;
        // Every loop but the window's is an output dimension; the window's loops are last (a
        // convolution's window includes its input channels).
        let loops = parallel + if apart { WINDOW } else { WINDOW + 1 };
        if name(op) == "linalg.generic" {
            let iterators = attribute_text(melior::ir::Attribute::from_raw(attribute(op, "iterator_types")?));
            let kinds: Vec<bool> = iterators.split(',').map(|i| i.contains("reduction")).collect();
            let expected: Vec<bool> = (0..loops).map(|l| l >= parallel).collect();
            if kinds != expected {
                return None;
            }
        }
        Some(((0..OUTER).chain(parallel..loops).chain(OUTER..parallel).collect(), apart))
    }
}

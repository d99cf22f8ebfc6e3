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
    build::{Attr, Builder, Value},
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
        let dot_products = self.dot_products;
        let chosen = |kind: &str| independent_channels(kind) || (dot_products && kind.starts_with("conv_2d_nhwc_fhwc"));
        let mut ops = Vec::new();
        let mut plans = Vec::new();
        for op in collect(operation, |op| accumulating_kind(op).is_some_and(|kind| chosen(&kind))) {
            // SAFETY: the ops were just collected from the live IR, which is not modified until
            // the script runs.
            let Some((order, apart)) = (unsafe { interchange(op) }) else { continue };
            // SAFETY: as above.
            let generic = unsafe { name(op) } == "linalg.generic";
            ops.push(op);
            plans.push((order, apart, generic));
        }
        if ops.is_empty() {
            return Ok(());
        }
        let script = |b: &mut Builder, m: Value| {
            let any_op = transform::any_op(b);
            let any_param = b.parsed_type("!transform.any_param");
            let keep = [("value", Attr::Parsed("#llvm.loop_annotation<unroll = <disable = true>>"))];
            let keep = b.op1("transform.param.constant", &[], any_param, &keep);
            for (index, (order, apart, generic)) in plans.iter().enumerate() {
                let matched = transform::matching(b, m, TAG, index);
                let generic =
                    if *generic { matched } else { b.op1("transform.structured.generalize", &[matched], any_op, &[]) };
                let order: Vec<i64> = order.iter().map(|o| *o as i64).collect();
                let interchange = [("iterator_interchange", Attr::I64Array(&order))];
                let interchanged = b.op1("transform.structured.interchange", &[generic], any_op, &interchange);
                let lowered = b.op1("transform.structured.convert_to_loops", &[interchanged], any_op, &[]);
                // The channel loop of an op computing its channels apart stays rolled; a tile of
                // dot products is rewritten by `umac-vectorize-dot-products`.
                if *apart {
                    let split = [
                        ("fail_on_payload_too_small", Attr::Bool(true)),
                        ("pass_through_empty_handle", Attr::Bool(true)),
                    ];
                    let loops = b.op("transform.split_handle", &[lowered], &vec![any_op; order.len()], &split);
                    let name = [("name", Attr::Str("loop_annotation"))];
                    b.op("transform.annotate", &[loops[OUTER + WINDOW], keep], &[], &name);
                }
            }
        };
        // SAFETY: every op is live and belongs to the payload; the script is built in its context.
        if !unsafe { transform::apply_tagged(operation.to_raw(), &ops, TAG, script)? } {
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

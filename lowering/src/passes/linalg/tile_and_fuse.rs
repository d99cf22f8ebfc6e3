//! `umac-tile-and-fuse`: computes each accumulating linalg op (convolution, depthwise
//! convolution, pooling, matmul, or a generic umac wrote for one, see `umac.op`) together with
//! its producers (bias broadcast, zero-point correction, padding) and its elementwise consumer
//! (rescale, clamp) one output element at a time, so the int32 accumulator is a scalar and no
//! int32 tensor is ever materialized.
//!
//! The root of each group is the accumulating op's single elementwise consumer (or the op itself
//! when it has none). All its output dimensions are tiled by one with upstream MLIR's
//! tile-and-fuse (`transform.structured.fuse`), which pulls the producers into the loop nest.
//! When the accumulating op still reads a materialized `tensor.pad` (one `umac-fold-padding`
//! could not fold), the innermost dimension stays whole — one pixel per tile — so the padded
//! window is built once per pixel, not once per channel. With `vectors`, depthwise convolutions
//! and pooling are tiled by pixel and by four channels (when the channels are more, and a
//! multiple of four; one pixel's channels otherwise): their accumulators are one vector of four
//! int32, which `umac-channels-innermost` makes the innermost, vectorizable loop and which stays
//! in a register across the window (`umac-plan-memory` leaves it to LLVM), and the rescale
//! follows at once. Groups are processed in program order, so an earlier group's loop nest stops
//! the fusion of a later one: nothing is recomputed.
//!
//! With `pixels` (the host engine) every accumulating op is tiled one output pixel at a time,
//! channels whole: a pixel's int32 accumulators are then a buffer, its output channels' dot
//! products read its input channels back to back, and its rescale is one loop over the channels
//! (the host's LLVM engine: KWS 368 -> 272 us, VWW 1327 -> 785, IC 764 -> 684). Firmware keeps
//! one element per tile, with no accumulator buffer in its workspace.
//! ```mlir
//! %acc = linalg.conv_2d_nhwc_fhwc ins(%x, %w) outs(%bias : tensor<1x25x5x64xi32>)
//! %y = linalg.generic {rescale, clamp} ins(%acc, ...) outs(%e : tensor<1x25x5x64xi8>)
//! // becomes
//! %y = scf.for %h ... { scf.for %w ... { scf.for %c ... {  // per element: bias, conv, rescale
//!   ... tensor<1x1x1x1xi32> ... tensor.insert_slice ... } } }
//! ```

use crate::{
    Error,
    linalg_kinds::{IM2COL_INPUT_CHANNELS, accumulating_kind, independent_channels, umac_op},
    options::{OptionKind, OptionSpec, OptionValues},
    pass::{UmacPass, boxed},
    registry::{PassInfo, PassKind},
    schedule::{PATCH_OP, UNROLLED_DSP_STEPS},
    transform,
};
use melior::ir::{
    OperationRef, ValueLike,
    operation::{OperationLike, WalkOrder, WalkResult},
};
use mlir_sys::*;
use umac_dialects::{
    build::{Attr, Builder, Ty, Value},
    ir::{attribute, collect, defined_inside, name, only_user, op_name, produced_by},
    text::attribute_text,
};

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    name: "umac-tile-and-fuse",
    summary: "Fuse padding, bias, convolution/pooling/matmul and their rescale into one per-pixel loop nest",
    anchor: "builtin.module",
    options: &[
        OptionSpec {
            name: "vectors",
            kind: OptionKind::Bool,
            default: "false",
            help: "tile depthwise convolutions and pooling one output pixel at a time, channels whole, for vector CPUs",
        },
        OptionSpec {
            name: "pixels",
            kind: OptionKind::Bool,
            default: "false",
            help: "tile every accumulating op one output pixel at a time, channels whole (the host engine)",
        },
        OptionSpec {
            name: "output-channels",
            kind: OptionKind::Int,
            default: "1",
            help: "tile convolutions computed element by element by this many output channels (when they divide the \
                   channels and the dot products are 8 long or more), whose dot products then share their input's words",
        },
    ],
    kind: PassKind::Pass(|options: &OptionValues| {
        boxed(TileAndFuse {
            vectors: options.bool("vectors"),
            pixels: options.bool("pixels"),
            output_channels: options.int("output-channels").max(1),
        })
    }),
};

const ROOT_ATTRIBUTE: &str = "umac.fuse_root";

/// The channels of a tile of a depthwise convolution or pooling on a vector CPU: one vector of
/// int32 accumulators (four lanes of 128 bits), which stays in a register across the window.
/// Its loops are then split into borders and interior (`umac-split-borders` splits tiles of up
/// to 32 channels): on Cortex-M55 KWS takes 1.48M instructions and 24.9 KiB of .text so, 1.78M
/// and 10.7 KiB unsplit; VWW 4.86M and 50.5 KiB, 5.72M and 18.4 KiB.
const CHANNEL_TILE: i64 = 4;

struct TileAndFuse {
    vectors: bool,
    pixels: bool,
    output_channels: i64,
}

impl UmacPass for TileAndFuse {
    fn run(&mut self, operation: OperationRef) -> Result<(), Error> {
        let mut roots: Vec<(MlirOperation, Vec<i64>)> = Vec::new();
        operation.walk(WalkOrder::PreOrder, |op| {
            if accumulating_kind(&op).is_some()
                && let Some(root) = group_root(&op, self.vectors, self.pixels, self.output_channels)
            {
                // A root shared by several ops (an add of two convolutions) is tiled once, by the
                // larger tile any of them asks for.
                match roots.iter_mut().find(|(known, _)| known.ptr == root.0.ptr) {
                    Some((_, sizes)) => {
                        for (size, wanted) in sizes.iter_mut().zip(root.1) {
                            *size = (*size).max(wanted);
                        }
                    }
                    None => roots.push(root),
                }
            }
            WalkResult::Advance
        });
        if roots.is_empty() {
            return Ok(());
        }
        let ops: Vec<MlirOperation> = roots.iter().map(|(root, _)| *root).collect();
        let tiles: Vec<&[i64]> = roots.iter().map(|(_, sizes)| sizes.as_slice()).collect();
        // SAFETY: every root is a live op of the module being transformed; the transform module is
        // built in the same context, applied, and destroyed before the pass returns.
        if !unsafe { transform::apply_tagged(operation.to_raw(), &ops, ROOT_ATTRIBUTE, |b, m| fuse(b, m, &tiles))? } {
            return Err(Error::Reported);
        }
        // SAFETY: the module is live; calls are only erased or moved within their function.
        unsafe { unclone_calls(operation) };
        Ok(())
    }
}

/// The op whose loops are tiled for `op`'s group, and how many leading loops to tile: every
/// output dimension (one output element per tile: the accumulator is a scalar), or batch, rows
/// and columns (one pixel per tile, channels whole) when the input is still a materialized
/// `tensor.pad` (so the padded window is built once per pixel rather than once per channel) or,
/// for a CPU with `vectors`, when the op computes its channels apart (depthwise, pooling: the
/// channels become the vector lanes, see `umac-channels-innermost`), then by [`CHANNEL_TILE`]
/// channels too when it reads no materialized pad (KWS on Cortex-M55: 1.73M -> 1.48M
/// instructions, workspace 16256 -> 16000 bytes: no pixel's int32 accumulators in memory).
/// With `pixels` every op is tiled by pixel so. A convolution tiled by element takes
/// `output_channels` channels per tile where they divide its channels and its dot products (over
/// its input channels) are long enough to run four products a step ([`jammed_channels`]).
fn group_root(
    op: &OperationRef,
    vectors: bool,
    every_pixel: bool,
    output_channels: i64,
) -> Option<(MlirOperation, Vec<i64>)> {
    if op.result_count() != 1 {
        return None;
    }
    // SAFETY: the value and its owner are alive while the IR is read.
    let padded_input = op
        .operand(0)
        .ok()
        .is_some_and(|input| unsafe { produced_by(input.to_raw(), "tensor.pad").is_some() || patch(input.to_raw()) });
    let result = op.result(0).ok()?;
    let mut root = op.to_raw();
    // SAFETY: the use list and its owner are read while the IR is not modified.
    unsafe {
        if let Some(user) = only_user(result.to_raw())
            && elementwise_generic(user)
        {
            root = user;
        }
        let rank = result_rank(root)?;
        let apart = vectors && accumulating_kind(op).is_some_and(|kind| independent_channels(&kind));
        let pixels = padded_input || apart || every_pixel;
        let tiled = if pixels { rank.saturating_sub(1).min(3) } else { rank };
        let mut sizes = vec![1; tiled];
        // The channels: dimension 3 of the root's NHWC(M) result.
        let channels =
            (rank > 3).then(|| mlirShapedTypeGetDimSize(mlirValueGetType(mlirOperationGetResult(root, 0)), 3));
        let whole_vectors = channels.is_some_and(|c| c > CHANNEL_TILE && c % CHANNEL_TILE == 0);
        if apart && !padded_input && tiled == 3 && whole_vectors {
            sizes.push(CHANNEL_TILE);
        }
        if output_channels > 1
            && !pixels
            && tiled == 4
            && channels.is_some_and(|c| c % output_channels == 0)
            && jammed_channels(op)
        {
            sizes[3] = output_channels;
        }
        (tiled > 0).then_some((root, sizes))
    }
}

/// Whether `op` is a convolution whose output channels' dot products can run side by side
/// (`umac-channels-innermost{dot-products}`, `umac-vectorize-dot-products{dsp}`) with a gain:
/// NHWC input, OHWI filter, at least [`IM2COL_INPUT_CHANNELS`] input channels (each dot product's
/// innermost run), and not a pointwise convolution over up to [`HOISTED_INPUT_CHANNELS`] channels
/// at more than one pixel. Such a convolution's dot products are unrolled, and LLVM computes its
/// input's sign-extended halves once per pixel for all output channels; side by side they took
/// more instructions on Cortex-M4 (KWS 7.02M -> 7.15M, VWW 20.04M -> 20.29M). One pixel's (a
/// fully connected layer's) go side by side, rolled (`umac-vectorize-dot-products` unrolls up to
/// 32 steps of all the tile's dot products): AD took 499K instructions and 11.4 KB of .text with
/// its 128-channel layers unrolled one channel at a time, 532K and 4.1 KB so (IREE: 8.4 KB).
fn jammed_channels(op: &OperationRef) -> bool {
    let Some(kind) = accumulating_kind(op) else { return false };
    let dims = |k: usize| -> Option<Vec<i64>> {
        // SAFETY: the operand is live while the IR is read; dimensions are read for a rank-4
        // shaped type.
        op.operand(k).ok().and_then(|value| unsafe {
            let ty = mlirValueGetType(value.to_raw());
            (mlirTypeIsAShaped(ty) && mlirShapedTypeHasRank(ty) && mlirShapedTypeGetRank(ty) == 4)
                .then(|| (0..4).map(|d| mlirShapedTypeGetDimSize(ty, d)).collect())
        })
    };
    // The filter and the output are the last two operands (`umac-fold-padding`'s generic reads
    // the input in its body).
    let operands = op.operand_count();
    let (Some(filter), Some(output)) = (operands.checked_sub(2).and_then(dims), operands.checked_sub(1).and_then(dims))
    else {
        return false;
    };
    let (window, channels, pixels) = (filter[1] * filter[2], filter[3], output[1] * output[2]);
    kind.starts_with("conv_2d_nhwc_fhwc")
        && channels >= IM2COL_INPUT_CHANNELS
        && (window > 1 || channels > HOISTED_INPUT_CHANNELS || pixels == 1)
}

/// The input channels up to which `umac-vectorize-dot-products{dsp unroll}` unrolls a dot
/// product fully (steps of four).
const HOISTED_INPUT_CHANNELS: i64 = 4 * UNROLLED_DSP_STEPS;

/// Whether `value` is the patch `umac-im2col` gathers (computed once per pixel, like a padded
/// window).
///
/// # Safety
/// `value` must be live.
unsafe fn patch(value: MlirValue) -> bool {
    unsafe { produced_by(value, "linalg.generic").and_then(|op| umac_op(op)).as_deref() == Some(PATCH_OP) }
}

/// # Safety
/// `op` must be live.
unsafe fn elementwise_generic(op: MlirOperation) -> bool {
    unsafe {
        if name(op) != "linalg.generic" || mlirOperationGetNumResults(op) != 1 {
            return false;
        }
        attribute(op, "iterator_types")
            .is_some_and(|iterators| !attribute_text(melior::ir::Attribute::from_raw(iterators)).contains("reduction"))
    }
}

/// # Safety
/// `op` must be live.
unsafe fn result_rank(op: MlirOperation) -> Option<usize> {
    unsafe {
        let ty = mlirValueGetType(mlirOperationGetResult(op, 0));
        (mlirTypeIsARankedTensor(ty) && mlirShapedTypeHasStaticShape(ty)).then(|| mlirShapedTypeGetRank(ty) as usize)
    }
}

/// Upstream fusion pulls a producer it cannot tile into the loop nest whole: a `func.call` (an
/// accelerator's function) feeding a fused op would then run once per tile. Each such call is
/// replaced by the identical call in front of the loop nest (or moved there). Where the loop nest
/// had one iteration, cleanup folded it away and left the clone beside the original: a call on
/// tensors identical to an earlier one in its block is replaced by it.
///
/// # Safety
/// `module` must be live.
unsafe fn unclone_calls(module: OperationRef) {
    unsafe {
        for call in collect(module, |op| op_name(op) == "func.call") {
            // The outermost loop around the call, in its function's block (or the call itself).
            let mut top = call;
            loop {
                let parent = mlirOperationGetParentOperation(top);
                if parent.ptr.is_null() || name(parent) != "scf.for" {
                    break;
                }
                top = parent;
            }
            let nested = top.ptr != call.ptr;
            let invariant =
                (0..mlirOperationGetNumOperands(call)).all(|i| !defined_inside(mlirOperationGetOperand(call, i), top));
            // Values in, tensors out: the same call computes the same tensors (a call without
            // results is there for its effects, and stays).
            let on_tensors = mlirOperationGetNumResults(call) > 0
                && (0..mlirOperationGetNumResults(call))
                    .all(|i| mlirTypeIsATensor(mlirValueGetType(mlirOperationGetResult(call, i))));
            if (nested && !invariant) || (!nested && !on_tensors) {
                continue;
            }
            let mut twin = None;
            let mut earlier = mlirBlockGetFirstOperation(mlirOperationGetBlock(top));
            while !earlier.ptr.is_null() && earlier.ptr != top.ptr {
                if same_call(earlier, call) {
                    twin = Some(earlier);
                }
                earlier = mlirOperationGetNextInBlock(earlier);
            }
            match twin {
                Some(twin) => {
                    for i in 0..mlirOperationGetNumResults(call) {
                        mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(call, i), mlirOperationGetResult(twin, i));
                    }
                    mlirOperationDestroy(call);
                }
                None if nested => mlirOperationMoveBefore(call, top),
                None => {}
            }
        }
    }
}

/// # Safety
/// Both ops must be live.
unsafe fn same_call(a: MlirOperation, b: MlirOperation) -> bool {
    unsafe {
        let callee = |op| attribute(op, "callee").map(|a| attribute_text(melior::ir::Attribute::from_raw(a)));
        name(a) == "func.call"
            && callee(a) == callee(b)
            && mlirOperationGetNumOperands(a) == mlirOperationGetNumOperands(b)
            && (0..mlirOperationGetNumOperands(a))
                .all(|i| mlirValueEqual(mlirOperationGetOperand(a, i), mlirOperationGetOperand(b, i)))
    }
}

/// One match + fuse per root (the payload handle `m`), in program order, with the tile sizes
/// `tiles`, then cleanup patterns that shrink slices of `tensor.empty` to tile-sized empties (so
/// bufferization allocates tiles, not whole tensors).
fn fuse(b: &mut Builder, m: Value, tiles: &[&[i64]]) {
    let any_op = transform::any_op(b);
    for (index, sizes) in tiles.iter().enumerate() {
        let root = transform::matching(b, m, ROOT_ATTRIBUTE, index);
        let results = vec![any_op; 1 + sizes.len()];
        let attributes = [
            ("apply_cleanup", Attr::Unit),
            ("operandSegmentSizes", Attr::I32Array(&[1, 0, 0])),
            ("static_tile_sizes", Attr::I64Array(sizes)),
        ];
        b.op("transform.structured.fuse", &[root], &results, &attributes);
    }
    let limits = [("max_iterations", Attr::Int(Ty::I64, -1)), ("max_num_rewrites", Attr::Int(Ty::I64, -1))];
    b.region_op("transform.apply_patterns", (&[m], &[]), &limits, |b| {
        b.op(
            "transform.apply_patterns.tensor.fold_tensor_empty",
            &[],
            &[],
            &[("fold_single_use_only", Attr::Bool(false))],
        );
        b.op("transform.apply_patterns.canonicalization", &[], &[], &[]);
    });
}

//! `umac-split-borders`: a convolution or pooling from `umac-fold-padding` checks every input
//! read against the input's bounds; most output pixels never need that. This pass splits the
//! output row and column loops around it into borders and interior (from the generic's
//! `umac.interior` rows and columns) and, in the interior copy, replaces the bounds condition by
//! `true`, so the interior reads its input directly.
//! ```mlir
//! scf.for %oh = 0 to 25 { scf.for %ow = 0 to 5 { ... linalg.generic {umac.interior = array<i64: 1, 24, 1, 4>}
//!   { %in = arith.andi %h_in, %w_in ... select %in ... } } }
//! // becomes rows [0,1) [1,24) [24,25), each with columns [0,1) [1,4) [4,5); in rows [1,24) x
//! // columns [1,4), %in is replaced by `true`.
//! ```
//! Runs on buffers (after bufferization), where the tile loops carry no values. A generic
//! computing more than 32 channels of a pixel together (tiled by pixel for a vector CPU) is not
//! split: its check is once per window element for a vector loop over the channels.

use crate::{
    Error,
    linalg_kinds::pixel_channels,
    pass::{UmacPass, boxed},
    registry::{PassInfo, PassKind},
};
use melior::ir::{
    OperationRef,
    operation::{OperationLike, WalkOrder, WalkResult},
};
use mlir_sys::*;
use umac_dialects::{
    ir::{build, collect, constant_int, name, op_name, produced_by},
    text::str_ref,
    umac::INTERIOR_ATTR,
};

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    name: "umac-split-borders",
    summary: "Split the output loops of bounds-checked convolutions into borders and an unchecked interior",
    anchor: "any",
    options: &[],
    kind: PassKind::Pass(|_| boxed(SplitBorders)),
};

struct SplitBorders;

/// Marks the interior column loop between the two splits (removed before the pass ends).
const MARK: &str = "umac_split_borders.interior";

/// The bounds-checked generics under `root` that `umac-fold-padding` marked with their interior.
fn checked_generics(root: OperationRef) -> Vec<MlirOperation> {
    collect(root, |op| op_name(op) == "linalg.generic" && op.attribute(INTERIOR_ATTR).is_ok())
}

impl UmacPass for SplitBorders {
    fn run(&mut self, operation: OperationRef) -> Result<(), Error> {
        for generic in checked_generics(operation) {
            // SAFETY: the generic is live.
            if unsafe { many_channels(generic) } {
                continue;
            }
            // SAFETY: each generic is live until its loops are split; splitting clones the loops
            // (the original generic stays in one of the clones) and only rewrites the clones.
            unsafe { split(generic) };
        }
        Ok(())
    }
}

/// The most channels of a pixel computed together (a per-pixel tile of
/// `umac-tile-and-fuse{vectors}`) for which the loops are still split. Such a generic checks its
/// bounds once per window element for a whole vector loop over the channels: with few channels
/// the check is most of the work, with many it costs little next to the code a split copies
/// (nine copies of the per-pixel loops). Measured on Cortex-M55: VWW (8 to 256 channels) takes
/// 8.29M instructions with no per-pixel generic split, 7.89M splitting up to 8 channels, 7.63M up
/// to 32 (.text 24.7, 31.4, 40.5 KB); KWS (64 channels) 2.82M unsplit, where splitting takes
/// .text from 17 to 43 KB for 5% fewer instructions. (Depthwise convolutions and pooling are tiled
/// by four channels since, which this splits.)
const SPLIT_MAX_CHANNELS: i64 = 32;

/// Whether `generic` computes more than [`SPLIT_MAX_CHANNELS`] channels of its output pixel.
///
/// # Safety
/// `generic` must be live.
unsafe fn many_channels(generic: MlirOperation) -> bool {
    unsafe {
        let operands = mlirOperationGetNumOperands(generic);
        let output = mlirValueGetType(mlirOperationGetOperand(generic, operands - 1));
        pixel_channels(output).is_some_and(|channels| channels > SPLIT_MAX_CHANNELS)
    }
}

/// The bounds condition of a bounds-checked generic: the `i1` selecting every load's indices.
///
/// # Safety
/// `generic` must be live.
unsafe fn condition(generic: MlirOperation) -> Option<MlirValue> {
    unsafe {
        let mut found = None;
        OperationRef::from_raw(generic).walk(WalkOrder::PreOrder, |op| {
            if op_name(&op) == "memref.load" || op_name(&op) == "tensor.extract" {
                let raw = op.to_raw();
                for i in 1..mlirOperationGetNumOperands(raw) {
                    if let Some(select) = produced_by(mlirOperationGetOperand(raw, i), "arith.select") {
                        found = Some(mlirOperationGetOperand(select, 0));
                        return WalkResult::Interrupt;
                    }
                }
            }
            WalkResult::Advance
        });
        found
    }
}

/// The loop whose induction variable `value` depends on through `affine.apply`/arith ops:
/// the `scf.for` owning the first block argument found.
///
/// # Safety
/// `value` must be live.
unsafe fn loop_of(value: MlirValue, depth: usize) -> Option<MlirOperation> {
    unsafe {
        if depth > 8 {
            return None;
        }
        if mlirValueIsABlockArgument(value) {
            let owner = mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(value));
            return (name(owner) == "scf.for").then_some(owner);
        }
        let def = mlirOpResultGetOwner(value);
        (0..mlirOperationGetNumOperands(def)).find_map(|i| loop_of(mlirOperationGetOperand(def, i), depth + 1))
    }
}

/// The row and column comparisons under the condition `and(rows, columns)`.
///
/// # Safety
/// `condition` must be live.
unsafe fn row_and_column_loops(condition: MlirValue) -> Option<(MlirOperation, MlirOperation)> {
    unsafe {
        let and = produced_by(condition, "arith.andi")?;
        // Each side is `cmpi ult, <index from the output loop and a window index>, <size>`.
        let side = |i: isize| -> Option<MlirOperation> {
            let compare = mlirOperationGetOperand(and, i);
            if !mlirValueIsAOpResult(compare) {
                return None;
            }
            let cmp = mlirOpResultGetOwner(compare);
            loop_of(mlirOperationGetOperand(cmp, 0), 0)
        };
        Some((side(0)?, side(1)?))
    }
}

/// Splits `for` into `[lb, a)`, `[a, b)`, `[b, ub)` (constant bounds; empty parts are skipped)
/// and returns the middle loop.
///
/// # Safety
/// `for_op` must be a live `scf.for` without results.
unsafe fn split_loop(for_op: MlirOperation, a: i64, b: i64) -> Option<MlirOperation> {
    unsafe {
        let bound = |i: isize| constant_int(mlirOperationGetOperand(for_op, i));
        let (lb, ub, step) = (bound(0)?, bound(1)?, bound(2)?);
        if step != 1 || mlirOperationGetNumResults(for_op) != 0 || a <= lb && b >= ub {
            return (a <= lb && b >= ub).then_some(for_op);
        }
        let (a, b) = (a.clamp(lb, ub), b.clamp(lb, ub));
        let block = mlirOperationGetBlock(for_op);
        let location = mlirOperationGetLocation(for_op);
        let context = mlirOperationGetContext(for_op);
        let index = mlirIndexTypeGet(context);
        let constant = |v: i64| {
            let c = build("arith.constant", location, &[], &[index], &[("value", mlirIntegerAttrGet(index, v))]);
            mlirBlockInsertOwnedOperationBefore(block, for_op, c);
            mlirOperationGetResult(c, 0)
        };
        let piece = |from: i64, to: i64| {
            let (from, to) = (constant(from), constant(to));
            let clone = mlirOperationClone(for_op);
            mlirBlockInsertOwnedOperationBefore(block, for_op, clone);
            mlirOperationSetOperand(clone, 0, from);
            mlirOperationSetOperand(clone, 1, to);
            clone
        };
        if lb < a {
            piece(lb, a);
        }
        let middle = piece(a, b);
        if b < ub {
            piece(b, ub);
        }
        mlirOperationDestroy(for_op);
        Some(middle)
    }
}

/// # Safety
/// `generic` must be a live bounds-checked generic with `umac.interior`.
unsafe fn split(generic: MlirOperation) {
    unsafe {
        let interior = mlirOperationGetAttributeByName(generic, str_ref(INTERIOR_ATTR));
        let [row_lo, row_hi, col_lo, col_hi] = [0, 1, 2, 3].map(|i| mlirDenseI64ArrayGetElement(interior, i));
        let Some(checked_by) = condition(generic) else { return };
        let Some((rows, columns)) = row_and_column_loops(checked_by) else { return };
        if mlirOperationEqual(rows, columns) {
            return;
        }
        let context = mlirOperationGetContext(generic);
        // Columns first (inside the row loop), then the rows: the interior is the middle row
        // loop's middle column loop.
        let Some(middle_columns) = split_loop(columns, col_lo, col_hi) else { return };
        mlirOperationSetDiscardableAttributeByName(middle_columns, str_ref(MARK), mlirUnitAttrGet(context));
        let Some(middle_rows) = split_loop(rows, row_lo, row_hi) else {
            mlirOperationRemoveDiscardableAttributeByName(middle_columns, str_ref(MARK));
            return;
        };
        // In the interior, every bounds condition is true.
        let marked = |op: &OperationRef| op.attribute(MARK).is_ok();
        for columns in collect(OperationRef::from_raw(middle_rows), marked) {
            for generic in checked_generics(OperationRef::from_raw(columns)) {
                if let Some(condition) = condition(generic) {
                    let owner = mlirOpResultGetOwner(condition);
                    let i1 = mlirIntegerTypeGet(context, 1);
                    let always = build(
                        "arith.constant",
                        mlirOperationGetLocation(owner),
                        &[],
                        &[i1],
                        &[("value", mlirIntegerAttrGet(i1, 1))],
                    );
                    mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(owner), owner, always);
                    mlirValueReplaceAllUsesOfWith(condition, mlirOperationGetResult(always, 0));
                }
                mlirOperationRemoveDiscardableAttributeByName(generic, str_ref(INTERIOR_ATTR));
            }
        }
        // Drop the marks everywhere (the border row clones carry copies).
        let parent = mlirOperationGetParentOperation(middle_rows);
        for op in collect(OperationRef::from_raw(parent), marked) {
            mlirOperationRemoveDiscardableAttributeByName(op, str_ref(MARK));
        }
    }
}

//! `umac-elide-output-copies`: a buffer copied whole into a function's argument at the end (an
//! entry's result, once results are out-parameters) becomes a view of that argument, so whatever
//! writes the buffer writes the caller's memory and nothing is copied.
//!
//! Bufferization leaves such copies where a result is a reshape of a buffer a call writes (an
//! accelerator's function, whose out-parameter is a fresh buffer), as TFLite's fully connected
//! layers give: the buffer then also takes workspace. The copy goes when
//! - its target is an argument of the function's body that nothing else uses,
//! - its source is a `memref.alloc` of that block, or one `memref.collapse_shape` or
//!   `memref.expand_shape` of one (used by the copy alone),
//! - and every other use of the buffer comes before the copy.
//!
//! The buffer becomes the argument, or the inverse reshape of it (the same reassociation).
//! ```mlir
//! %a = memref.alloc() : memref<1x1x1x640xi8>
//! call @tynnp_0(%x, %a) : (memref<1x1x1x640xi8>, memref<1x1x1x640xi8>) -> ()
//! %c = memref.collapse_shape %a [[0, 1, 2], [3]] : memref<1x1x1x640xi8> into memref<1x640xi8>
//! memref.copy %c, %out : memref<1x640xi8> to memref<1x640xi8>
//! // becomes
//! %a = memref.expand_shape %out [[0, 1, 2], [3]] output_shape [1, 1, 1, 640] : memref<1x640xi8> into memref<1x1x1x640xi8>
//! call @tynnp_0(%x, %a) : (memref<1x1x1x640xi8>, memref<1x1x1x640xi8>) -> ()
//! ```

use crate::{
    Error,
    pass::{UmacPass, boxed},
    registry::{PassInfo, PassKind},
};
use melior::ir::{OperationRef, operation::OperationLike};
use mlir_sys::*;
use umac_dialects::ir::{
    attribute, build, collect, identity_layout, name, only_user, op_name, produced_by, uses_before,
};

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    name: "umac-elide-output-copies",
    summary: "Make a buffer copied whole into a function argument at the end a view of that argument (no copy, no workspace)",
    anchor: "any",
    options: &[],
    kind: PassKind::Pass(|_| boxed(ElideOutputCopies)),
};

struct ElideOutputCopies;

impl UmacPass for ElideOutputCopies {
    fn run(&mut self, operation: OperationRef) -> Result<(), Error> {
        let copies = collect(operation, |op| op_name(op) == "memref.copy" && op.operand_count() == 2);
        for copy in copies {
            // SAFETY: each copy was collected from the live module; an elided copy is destroyed
            // with the ops only it used, none of which is another collected copy.
            unsafe { elide(copy) }
        }
        Ok(())
    }
}

/// Elides `copy` when it qualifies (see the module documentation).
///
/// # Safety
/// `copy` must be a live `memref.copy`.
unsafe fn elide(copy: MlirOperation) {
    // SAFETY: the caller's contract; every op and value read here is alive, and the module is
    // only changed once all of them are checked.
    unsafe {
        let (source, target) = (mlirOperationGetOperand(copy, 0), mlirOperationGetOperand(copy, 1));
        let block = mlirOperationGetBlock(copy);
        let argument_of_block = mlirValueIsABlockArgument(target) && mlirBlockArgumentGetOwner(target).ptr == block.ptr;
        if !argument_of_block || only_user(target).is_none_or(|user| user.ptr != copy.ptr) {
            return;
        }
        // The buffer, and the reshape between it and the copy (if any).
        let reshape = ["memref.collapse_shape", "memref.expand_shape"].iter().find_map(|n| produced_by(source, n));
        let buffer = match reshape {
            Some(reshape) if only_user(source).is_some_and(|user| user.ptr == copy.ptr) => {
                mlirOperationGetOperand(reshape, 0)
            }
            Some(_) => return,
            None => source,
        };
        let Some(alloc) = produced_by(buffer, "memref.alloc") else { return };
        let types = [mlirValueGetType(buffer), mlirValueGetType(target)];
        if mlirOperationGetBlock(alloc).ptr != block.ptr || !types.into_iter().all(identity_layout) {
            return;
        }
        if !uses_before(buffer, reshape.unwrap_or(copy), copy, block) {
            return;
        }
        // The argument, viewed as the buffer.
        let view = match reshape {
            None => target,
            Some(reshape) => {
                let inverse = if name(reshape) == "memref.collapse_shape" {
                    "memref.expand_shape"
                } else {
                    "memref.collapse_shape"
                };
                let Some(reassociation) = attribute(reshape, "reassociation") else { return };
                let context = mlirOperationGetContext(copy);
                let mut attributes = vec![("reassociation", reassociation)];
                if inverse == "memref.expand_shape" {
                    let shape: Vec<i64> = (0..mlirShapedTypeGetRank(types[0]) as isize)
                        .map(|d| mlirShapedTypeGetDimSize(types[0], d))
                        .collect();
                    attributes.push((
                        "static_output_shape",
                        mlirDenseI64ArrayGet(context, shape.len() as isize, shape.as_ptr()),
                    ));
                }
                let op = build(inverse, mlirOperationGetLocation(alloc), &[target], &[types[0]], &attributes);
                mlirBlockInsertOwnedOperationBefore(block, alloc, op);
                mlirOperationGetResult(op, 0)
            }
        };
        mlirValueReplaceAllUsesOfWith(buffer, view);
        mlirOperationDestroy(copy);
        if let Some(reshape) = reshape {
            mlirOperationDestroy(reshape);
        }
        mlirOperationDestroy(alloc);
    }
}

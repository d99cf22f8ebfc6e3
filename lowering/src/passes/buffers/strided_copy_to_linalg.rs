//! `umac-strided-copy-to-linalg`: turns `memref.copy` between non-identity layouts into
//! `linalg.copy`, so `convert-linalg-to-loops` makes it a loop nest.
//!
//! Bufferizing a padded tensor copies into a strided subview; MLIR lowers such a
//! `memref.copy` to a call of `memrefCopy` from MLIR's C runner library, which neither the
//! host JIT nor firmware links. Copies between identity layouts stay `memref.copy` (they become
//! `memcpy`).
//! ```mlir
//! memref.copy %a, %b : memref<1x4xi8> to memref<1x4xi8, strided<[8, 1], offset: 2>>
//! // becomes
//! linalg.copy ins(%a : memref<1x4xi8>) outs(%b : memref<1x4xi8, strided<[8, 1], offset: 2>>)
//! ```

use crate::{
    Error,
    pass::{UmacPass, boxed},
    registry::{PassInfo, PassKind},
};
use melior::ir::{
    Identifier, OperationRef, Region, TypeLike, ValueLike,
    attribute::DenseI32ArrayAttribute,
    operation::{OperationBuilder, OperationLike},
};
use mlir_sys::*;
use umac_dialects::ir::{collect, identity_layout, op_name};

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    name: "umac-strided-copy-to-linalg",
    summary: "Rewrite memref.copy between non-identity layouts as linalg.copy (no memrefCopy runtime call)",
    anchor: "any",
    options: &[],
    kind: PassKind::Pass(|_| boxed(StridedCopyToLinalg)),
};

struct StridedCopyToLinalg;

impl UmacPass for StridedCopyToLinalg {
    fn run(&mut self, operation: OperationRef) -> Result<(), Error> {
        let copies = collect(operation, |op| {
            op_name(op) == "memref.copy"
                && op.operand_count() == 2
                && !op.operands().all(|v| identity_layout(v.r#type().to_raw()))
        });
        for raw in copies {
            // SAFETY: each copy is alive until it is destroyed right after its replacement is
            // inserted in front of it; the new op takes the same operands.
            if !unsafe { replace(OperationRef::from_raw(raw)) } {
                return Err(Error::Internal("a linalg.copy could not be built".into()));
            }
        }
        Ok(())
    }
}

/// # Safety
/// `copy` must be a live `memref.copy` in a block.
unsafe fn replace(copy: OperationRef) -> bool {
    let context = copy.context();
    // SAFETY: the context outlives the pass run.
    let context = unsafe { context.to_ref() };
    let (Ok(source), Ok(target)) = (copy.operand(0), copy.operand(1)) else {
        return false;
    };
    let Ok(linalg_copy) = OperationBuilder::new("linalg.copy", copy.location())
        .add_operands(&[source, target])
        .add_attributes(&[(
            Identifier::new(context, "operandSegmentSizes"),
            DenseI32ArrayAttribute::new(context, &[1, 1]).into(),
        )])
        .add_regions([Region::new()])
        .build()
    else {
        return false;
    };
    // SAFETY: the new op is a linalg named op with an empty region to fill; it is then owned by
    // the copy's block, and the copy (now without uses — it has no results) is destroyed.
    unsafe {
        let new = linalg_copy.into_raw();
        mlirLinalgFillBuiltinNamedOpRegion(new);
        mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(copy.to_raw()), copy.to_raw(), new);
        mlirOperationDestroy(copy.to_raw());
    }
    true
}

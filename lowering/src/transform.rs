//! Applying upstream transform-dialect scripts to chosen ops, for the passes that drive MLIR's
//! own transformations (tiling and fusion, loop interchange) rather than reimplement them.

use melior::ir::{OperationRef, operation::OperationLike};
use mlir_sys::*;
use umac_dialects::{ir::collect, text::str_ref};

/// The attribute that tags the ops a script works on: `tag = index` (an `i64`), which the script
/// matches with `transform.structured.match attributes{<tag> = <index> : i64}`.
///
/// Tags each of `ops` with its index, applies `@__transform_main` from `script` (a module with
/// `transform.with_named_sequence`) to `payload`, and removes the tags from whatever still
/// carries one. False when the script does not parse or fails (MLIR reported why).
///
/// # Safety
/// `payload` and every op must be live ops of one context.
pub unsafe fn apply_tagged(payload: MlirOperation, ops: &[MlirOperation], tag: &str, script: &str) -> bool {
    unsafe {
        let context = mlirOperationGetContext(payload);
        let i64t = mlirIntegerTypeGet(context, 64);
        for (index, op) in ops.iter().enumerate() {
            mlirOperationSetDiscardableAttributeByName(*op, str_ref(tag), mlirIntegerAttrGet(i64t, index as i64));
        }
        let transform = mlirModuleCreateParse(context, str_ref(script));
        let mut ok = !transform.ptr.is_null();
        if ok {
            let transform_op = mlirModuleGetOperation(transform);
            let sequence = mlirBlockGetFirstOperation(mlirModuleGetBody(transform));
            let options = mlirTransformOptionsCreate();
            ok = mlirTransformApplyNamedSequence(payload, sequence, transform_op, options).value != 0;
            mlirTransformOptionsDestroy(options);
            mlirModuleDestroy(transform);
        }
        // The tags may sit on ops that survived (a group that failed), never on new ones.
        for op in collect(OperationRef::from_raw(payload), |op| op.attribute(tag).is_ok()) {
            mlirOperationRemoveDiscardableAttributeByName(op, str_ref(tag));
        }
        ok
    }
}

/// A script whose main sequence is `body` (statements on the payload handle `%m`), then `yield`.
pub fn script(body: &str) -> String {
    format!(
        "module attributes {{transform.with_named_sequence}} {{\n  \
         transform.named_sequence @__transform_main(%m: !transform.any_op {{transform.readonly}}) {{\n{body}    \
         transform.yield\n  }}\n}}\n"
    )
}

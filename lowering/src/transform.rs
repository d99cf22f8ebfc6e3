//! Applying upstream transform-dialect scripts to chosen ops, for the passes that drive MLIR's
//! own transformations (tiling and fusion, loop interchange) rather than reimplement them. The
//! script is written with the builder: its main sequence's statements, on the payload handle.

use crate::Error;
use melior::ir::{OperationRef, operation::OperationLike};
use mlir_sys::*;
use umac_dialects::{
    build::{Builder, Ty, Value},
    ir::{build, build_with_regions, collect, function_type_get, with_context},
    text::str_ref,
};

/// The attribute that tags the ops a script works on: `tag = index` (an `i64`), which the script
/// matches with `transform.structured.match attributes{<tag> = <index> : i64}` ([`matching`]).
///
/// Tags each of `ops` with its index, applies `@__transform_main`, whose statements on the
/// payload handle `write` writes (given the builder and the handle), to `payload`, and removes the
/// tags from whatever still carries one. `Ok(false)` when the script fails (MLIR reported why).
///
/// # Safety
/// `payload` and every op must be live ops of one context.
pub unsafe fn apply_tagged(
    payload: MlirOperation,
    ops: &[MlirOperation],
    tag: &str,
    write: impl FnOnce(&mut Builder, Value),
) -> Result<bool, Error> {
    unsafe {
        let context = mlirOperationGetContext(payload);
        let i64t = mlirIntegerTypeGet(context, 64);
        for (index, op) in ops.iter().enumerate() {
            mlirOperationSetDiscardableAttributeByName(*op, str_ref(tag), mlirIntegerAttrGet(i64t, index as i64));
        }
        let payload_ref = OperationRef::from_raw(payload);
        let applied = with_context(&payload_ref, |melior_context| -> Result<bool, Error> {
            let (module, sequence, handle, yield_op) = main_sequence(context)?;
            let mut b = Builder::before(melior_context, OperationRef::from_raw(yield_op));
            let handle = b.existing(handle);
            write(&mut b, handle);
            let written = b.done();
            let applied = written.is_ok() && {
                let options = mlirTransformOptionsCreate();
                let ok = mlirTransformApplyNamedSequence(payload, sequence, module, options).value != 0;
                mlirTransformOptionsDestroy(options);
                ok
            };
            mlirOperationDestroy(module);
            written?;
            Ok(applied)
        });
        // The tags may sit on ops that survived (a group that failed), never on new ones.
        for op in collect(payload_ref, |op| op.attribute(tag).is_ok()) {
            mlirOperationRemoveDiscardableAttributeByName(op, str_ref(tag));
        }
        applied
    }
}

/// A module `{transform.with_named_sequence}` holding `transform.named_sequence
/// @__transform_main(%m: !transform.any_op {transform.readonly})` ending in `transform.yield`:
/// the module (owned by the caller), the sequence, its handle `%m` and the yield; an error when
/// the transform dialect is missing.
///
/// # Safety
/// `context` must be live.
unsafe fn main_sequence(
    context: MlirContext,
) -> Result<(MlirOperation, MlirOperation, MlirValue, MlirOperation), Error> {
    unsafe {
        let location = mlirLocationUnknownGet(context);
        let any_op = mlirTypeParseGet(context, str_ref("!transform.any_op"));
        if any_op.ptr.is_null() {
            return Err(Error::Internal("the transform dialect is not registered".into()));
        }
        let body = mlirBlockCreate(1, &any_op, &location);
        let yield_op = build("transform.yield", location, &[], &[], &[]);
        mlirBlockAppendOwnedOperation(body, yield_op);
        let readonly =
            mlirNamedAttributeGet(mlirIdentifierGet(context, str_ref("transform.readonly")), mlirUnitAttrGet(context));
        let arg_attrs = [mlirDictionaryAttrGet(context, 1, &readonly)];
        let attributes = [
            ("sym_name", mlirStringAttrGet(context, str_ref("__transform_main"))),
            ("function_type", mlirTypeAttrGet(function_type_get(context, &[any_op], &[]))),
            ("arg_attrs", mlirArrayAttrGet(context, 1, arg_attrs.as_ptr())),
        ];
        let sequence = build_with_regions("transform.named_sequence", location, &[], &[], &attributes, &[Some(body)]);
        let module_body = mlirBlockCreate(0, std::ptr::null(), std::ptr::null());
        mlirBlockAppendOwnedOperation(module_body, sequence);
        let with_sequence = [("transform.with_named_sequence", mlirUnitAttrGet(context))];
        let module = build_with_regions("builtin.module", location, &[], &[], &with_sequence, &[Some(module_body)]);
        Ok((module, sequence, mlirBlockGetArgument(body, 0), yield_op))
    }
}

/// `transform.structured.match attributes{<tag> = <index> : i64} in %handle`.
pub fn matching(b: &mut Builder, handle: Value, tag: &str, index: usize) -> Value {
    let any_op = any_op(b);
    let attributes = [(tag, umac_dialects::build::Attr::Int(Ty::I64, index as i64))];
    b.op1(
        "transform.structured.match",
        &[handle],
        any_op,
        &[("op_attrs", umac_dialects::build::Attr::Dict(&attributes))],
    )
}

/// `!transform.any_op`, the type of a handle to payload ops.
pub fn any_op(b: &mut Builder) -> Ty {
    b.parsed_type("!transform.any_op")
}

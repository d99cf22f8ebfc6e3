//! `umac-lower-call-extern`: `umac.call_extern` becomes a `func.call` of the C function, declared
//! in the module, with the C calling convention of its arguments spelled out: a memref is the
//! address of its first element (an `index`, the width of a pointer on the target), a scalar is
//! itself. Both code generators then lower an ordinary call of an external function.
//! ```mlir
//! "umac.call_extern"(%in, %c3, %out) {callee = @k, operandSegmentSizes = array<i32: 2, 1>}
//!     : (memref<4xi8>, i32, memref<4xi8>) -> ()
//! // becomes
//! %0 = memref.extract_aligned_pointer_as_index %in : memref<4xi8> -> index
//! %1 = memref.extract_aligned_pointer_as_index %out : memref<4xi8> -> index
//! call @k(%0, %c3, %1) : (index, i32, index) -> ()
//! func.func private @k(index, i32, index)
//! ```
//! Memrefs must have the identity layout (contiguous, offset 0): C kernels take plain buffers. A
//! module that already declares or defines the callee must give it exactly this type.

use crate::{
    passes::plan_memory::build,
    registry::{PassInfo, PassKind},
};
use melior::{
    ir::{
        Location, OperationRef,
        operation::{OperationLike, WalkOrder, WalkResult},
    },
    pass::{ExternalPass, RunExternalPass},
};
use mlir_sys::*;
use umac_dialects::{
    emit_error,
    text::{op_name, str_ref, string_from, type_text},
    umac::{CALL_EXTERN, CALLEE_ATTR},
};

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    name: "umac-lower-call-extern",
    summary: "Turn umac.call_extern into a func.call of a declared C function (memrefs as element pointers)",
    anchor: "builtin.module",
    options: &[],
    kind: PassKind::Pass(create),
};

external_pass!(LowerCallExtern, "UmacLowerCallExtern");

#[derive(Clone)]
struct LowerCallExtern;

impl<'c> RunExternalPass<'c> for LowerCallExtern {
    fn initialize(&mut self, _context: melior::ContextRef<'c>) {}

    fn run(&mut self, operation: OperationRef<'c, '_>, pass: ExternalPass<'_>) {
        let mut calls = Vec::new();
        operation.walk(WalkOrder::PreOrder, |op| {
            if op_name(&op) == CALL_EXTERN {
                calls.push(op.to_raw());
            }
            WalkResult::Advance
        });
        for call in calls {
            // SAFETY: each call is a live op of the module, visited once; the module is the
            // pass's operation.
            if let Err(message) = unsafe { lower(operation.to_raw(), call) } {
                // SAFETY: the call was not destroyed (lowering failed before touching it).
                emit_error(unsafe { Location::from_raw(mlirOperationGetLocation(call)) }, &message);
                pass.signal_failure();
                return;
            }
        }
    }
}

/// # Safety
/// `module` and `call` must be live; `call` is a `umac.call_extern` inside `module`.
unsafe fn lower(module: MlirOperation, call: MlirOperation) -> Result<(), String> {
    unsafe {
        let callee = mlirOperationGetAttributeByName(call, str_ref(CALLEE_ATTR));
        if callee.ptr.is_null() || !mlirAttributeIsAFlatSymbolRef(callee) {
            return Err(format!("'{CALL_EXTERN}' op needs a callee (run umac-verify for details)"));
        }
        let symbol = string_from(mlirFlatSymbolRefAttrGetValue(callee));
        let context = mlirOperationGetContext(call);
        let location = mlirOperationGetLocation(call);
        let index = mlirIndexTypeGet(context);
        let mut arguments = Vec::new();
        let mut types = Vec::new();
        for i in 0..mlirOperationGetNumOperands(call) {
            let value = mlirOperationGetOperand(call, i);
            let ty = mlirValueGetType(value);
            if !mlirTypeIsAMemRef(ty) {
                arguments.push(value);
                types.push(ty);
                continue;
            }
            if !mlirAffineMapIsIdentity(mlirMemRefTypeGetAffineMap(ty)) {
                return Err(format!(
                    "operand #{i} of @{symbol} is a '{}': a C kernel takes a contiguous buffer (identity layout)",
                    type_text(melior::ir::Type::from_raw(ty))
                ));
            }
            let pointer = build("memref.extract_aligned_pointer_as_index", location, &[value], &[index], &[]);
            mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(call), call, pointer);
            arguments.push(mlirOperationGetResult(pointer, 0));
            types.push(index);
        }
        let function_type = mlirFunctionTypeGet(context, types.len() as isize, types.as_ptr(), 0, std::ptr::null());
        declare(module, &symbol, function_type, location)?;
        let new_call = build("func.call", location, &arguments, &[], &[("callee", callee)]);
        mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(call), call, new_call);
        mlirOperationDestroy(call);
        Ok(())
    }
}

/// Declares `symbol` with `function_type` at the end of `module`, or checks an existing
/// `func.func` of that name has that type.
///
/// # Safety
/// `module` must be live and the type and location of its context.
unsafe fn declare(
    module: MlirOperation,
    symbol: &str,
    function_type: MlirType,
    location: MlirLocation,
) -> Result<(), String> {
    unsafe {
        let body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
        let mut op = mlirBlockGetFirstOperation(body);
        while !op.ptr.is_null() {
            let name = mlirOperationGetAttributeByName(op, str_ref("sym_name"));
            if !name.ptr.is_null()
                && mlirAttributeIsAString(name)
                && string_from(mlirStringAttrGetValue(name)) == symbol
            {
                if string_from(mlirIdentifierStr(mlirOperationGetName(op))) != "func.func" {
                    return Err(format!("@{symbol} is called as a C function but the module defines it as another op"));
                }
                let existing = mlirTypeAttrGetValue(mlirOperationGetAttributeByName(op, str_ref("function_type")));
                if !mlirTypeEqual(existing, function_type) {
                    return Err(format!(
                        "@{symbol} is called with the C signature {} but the module gives it {}",
                        type_text(melior::ir::Type::from_raw(function_type)),
                        type_text(melior::ir::Type::from_raw(existing))
                    ));
                }
                return Ok(());
            }
            op = mlirOperationGetNextInBlock(op);
        }
        let context = mlirOperationGetContext(module);
        let mut state = mlirOperationStateGet(str_ref("func.func"), location);
        let region = mlirRegionCreate();
        mlirOperationStateAddOwnedRegions(&mut state, 1, &region);
        let attributes = [
            ("sym_name", mlirStringAttrGet(context, str_ref(symbol))),
            ("function_type", mlirTypeAttrGet(function_type)),
            ("sym_visibility", mlirStringAttrGet(context, str_ref("private"))),
        ];
        let named: Vec<MlirNamedAttribute> = attributes
            .iter()
            .map(|(name, value)| mlirNamedAttributeGet(mlirIdentifierGet(context, str_ref(name)), *value))
            .collect();
        mlirOperationStateAddAttributes(&mut state, named.len() as isize, named.as_ptr());
        mlirBlockAppendOwnedOperation(body, mlirOperationCreate(&mut state));
        Ok(())
    }
}

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
    Error,
    error::report,
    pass::{UmacPass, boxed},
    registry::{PassInfo, PassKind},
};
use melior::ir::{Location, OperationRef};
use mlir_sys::*;
use umac_dialects::{
    ir::{
        attribute, build, collect, function_type, function_type_get, name, op_name, private_function, symbol_name,
        top_level_ops,
    },
    text::{string_from, type_text},
    umac::{CALL_EXTERN, CALLEE_ATTR},
};

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    name: "umac-lower-call-extern",
    summary: "Turn umac.call_extern into a func.call of a declared C function (memrefs as element pointers)",
    anchor: "builtin.module",
    options: &[],
    kind: PassKind::Pass(|_| boxed(LowerCallExtern)),
};

struct LowerCallExtern;

impl UmacPass for LowerCallExtern {
    fn run(&mut self, operation: OperationRef) -> Result<(), Error> {
        for call in collect(operation, |op| op_name(op) == CALL_EXTERN) {
            // SAFETY: each call is a live op of the module, visited once; the module is the
            // pass's operation. On failure the call was not destroyed (lowering failed before
            // touching it).
            unsafe {
                lower(operation, call)
                    .map_err(|e| report(Location::from_raw(mlirOperationGetLocation(call)), &e.to_string()))?;
            }
        }
        Ok(())
    }
}

/// # Safety
/// `call` must be a live `umac.call_extern` inside `module`.
unsafe fn lower(module: OperationRef, call: MlirOperation) -> Result<(), Error> {
    unsafe {
        let callee = attribute(call, CALLEE_ATTR).filter(|callee| mlirAttributeIsAFlatSymbolRef(*callee));
        let Some(callee) = callee else {
            return Err(Error::Invalid(format!("'{CALL_EXTERN}' op needs a callee (run umac-verify for details)")));
        };
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
                return Err(Error::Invalid(format!(
                    "operand #{i} of @{symbol} is a '{}': a C kernel takes a contiguous buffer (identity layout)",
                    type_text(melior::ir::Type::from_raw(ty))
                )));
            }
            let pointer = build("memref.extract_aligned_pointer_as_index", location, &[value], &[index], &[]);
            mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(call), call, pointer);
            arguments.push(mlirOperationGetResult(pointer, 0));
            types.push(index);
        }
        let function_type = function_type_get(context, &types, &[]);
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
/// The type and location must belong to `module`'s context.
unsafe fn declare(
    module: OperationRef,
    symbol: &str,
    declared_type: MlirType,
    location: MlirLocation,
) -> Result<(), Error> {
    unsafe {
        let existing = top_level_ops(module).into_iter().find(|op| symbol_name(op).as_deref() == Some(symbol));
        if let Some(op) = existing {
            if name(op.to_raw()) != "func.func" {
                return Err(Error::Invalid(format!(
                    "@{symbol} is called as a C function but the module defines it as another op"
                )));
            }
            let (inputs, results) = function_type(op.to_raw());
            let context = mlirOperationGetContext(op.to_raw());
            let existing_type = function_type_get(context, &inputs, &results);
            if !mlirTypeEqual(existing_type, declared_type) {
                return Err(Error::Invalid(format!(
                    "@{symbol} is called with the C signature {} but the module gives it {}",
                    type_text(melior::ir::Type::from_raw(declared_type)),
                    type_text(melior::ir::Type::from_raw(existing_type))
                )));
            }
            return Ok(());
        }
        let body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module.to_raw(), 0));
        mlirBlockAppendOwnedOperation(body, private_function(symbol, declared_type, None, location, &[]));
        Ok(())
    }
}

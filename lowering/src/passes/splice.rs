//! Replacing one op by IR written as text: a helper function is parsed in the op's context, its
//! arguments are wired to given values, its body moves in front of the op and its returned value
//! replaces the op's result. Passes that build many ops at once stay readable this way.

use melior::ir::OperationRef;
use mlir_sys::*;
use umac_dialects::text::{str_ref, string_from};

/// Parses `text` (one `func.func` whose arguments correspond to `arguments`), moves its body in
/// front of `op`, replaces `op`'s single result with the returned value, and erases `op`.
///
/// # Safety
/// `op` must be live, have one result, and `arguments` must be live values of its context
/// dominating `op`.
pub unsafe fn splice(op: &OperationRef, text: &str, arguments: &[MlirValue], pass: &str) -> Result<(), String> {
    // SAFETY: the caller's contract.
    unsafe { splice_at(op, text, arguments, pass, None) }
}

/// [`splice`], giving every moved op `location` (e.g. a fused location naming the ops it replaces).
///
/// # Safety
/// As for [`splice`]; `location` belongs to `op`'s context.
pub unsafe fn splice_at(
    op: &OperationRef,
    text: &str,
    arguments: &[MlirValue],
    pass: &str,
    location: Option<MlirLocation>,
) -> Result<(), String> {
    // SAFETY: caller's contract; the parsed helper is destroyed after its ops moved out.
    unsafe {
        let context = mlirOperationGetContext(op.to_raw());
        let helper = mlirOperationCreateParse(context, str_ref(text), str_ref(pass));
        if helper.ptr.is_null() {
            return Err(format!("internal error: the replacement built by {pass} did not parse"));
        }
        let block = mlirRegionGetFirstBlock(mlirOperationGetRegion(helper, 0));
        if mlirBlockGetNumArguments(block) != arguments.len() as isize {
            mlirOperationDestroy(helper);
            return Err(format!("internal error: the replacement built by {pass} has the wrong arguments"));
        }
        for (i, value) in arguments.iter().enumerate() {
            mlirValueReplaceAllUsesOfWith(mlirBlockGetArgument(block, i as isize), *value);
        }
        let mut next = mlirBlockGetFirstOperation(block);
        while !next.ptr.is_null() {
            let current = next;
            next = mlirOperationGetNextInBlock(current);
            if string_from(mlirIdentifierStr(mlirOperationGetName(current))) == "func.return" {
                mlirValueReplaceAllUsesOfWith(
                    mlirOperationGetResult(op.to_raw(), 0),
                    mlirOperationGetOperand(current, 0),
                );
                break;
            }
            if let Some(location) = location {
                mlirOperationSetLocation(current, location);
            }
            mlirOperationMoveBefore(current, op.to_raw());
        }
        mlirOperationDestroy(helper);
        mlirOperationDestroy(op.to_raw());
    }
    Ok(())
}

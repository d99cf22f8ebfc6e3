//! `umac-refine-entry-results{entry=main}`: after shape inference, the entry function returns its
//! refined values and its type says so. `tosa-infer-shapes` keeps non-TOSA users valid by casting a
//! refined value back to its old type (`tensor.cast`); the return takes the refined value instead.
//! Every result must be static then.
//! ```mlir
//! %c = tensor.cast %y : tensor<2x12xi8> to tensor<?x12xi8>
//! return %c : tensor<?x12xi8>
//! // becomes
//! return %y : tensor<2x12xi8>      // and @main's type returns tensor<2x12xi8>
//! ```

use crate::{
    Error,
    entry::{ENTRY_OPTION, find_entry},
    error::report,
    options::OptionValues,
    pass::{UmacPass, boxed},
    registry::{PassInfo, PassKind},
};
use melior::ir::{BlockLike, OperationRef, RegionLike, TypeLike, ValueLike, operation::OperationLike};
use mlir_sys::*;
use umac_dialects::ir::{function_type, op_name, produced_by, set_function_type, static_tensor_shape, type_text};

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    name: "umac-refine-entry-results",
    summary: "Return the entry's refined values (bypassing tensor.cast) and give it their static types",
    anchor: "builtin.module",
    options: &[ENTRY_OPTION],
    kind: PassKind::Pass(|options: &OptionValues| boxed(RefineEntryResults { entry: options.string("entry").into() })),
};

struct RefineEntryResults {
    entry: String,
}

impl UmacPass for RefineEntryResults {
    fn run(&mut self, operation: OperationRef) -> Result<(), Error> {
        let entry = find_entry(operation, &self.entry)?;
        let fail = |message: String| report(entry.location(), &format!("{}: {message}", INFO.name));
        let terminator = entry
            .region(0)
            .ok()
            .and_then(|r| r.first_block())
            .and_then(|b| b.terminator())
            .filter(|t| op_name(t) == "func.return")
            .ok_or_else(|| fail(format!("@{} has no func.return", self.entry)))?;
        for (i, value) in terminator.operands().enumerate() {
            // SAFETY: the value and its producer are alive; the cast's source replaces the
            // operand (the same tensor, refined).
            unsafe {
                if let Some(cast) = produced_by(value.to_raw(), "tensor.cast")
                    && mlirOperationGetNumOperands(cast) == 1
                {
                    mlirOperationSetOperand(terminator.to_raw(), i as isize, mlirOperationGetOperand(cast, 0));
                }
            }
        }
        let returned: Vec<MlirType> = terminator.operands().map(|v| v.r#type().to_raw()).collect();
        for (i, ty) in returned.iter().enumerate() {
            if static_tensor_shape(*ty).is_none() {
                return Err(fail(format!(
                    "result #{i} of @{} still has a dynamic shape ({}) after specializing the inputs",
                    self.entry,
                    type_text(*ty)
                )));
            }
        }
        // SAFETY: the entry is a live func.func; the types belong to its context.
        unsafe {
            let (inputs, _) = function_type(entry.to_raw());
            set_function_type(entry.to_raw(), &inputs, &returned);
        }
        Ok(())
    }
}

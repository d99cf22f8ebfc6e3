//! `umac-strip-entry-attributes{entry=main}`: drops the entry function's argument and result
//! attributes (`tosa.tensor_name` and the like). They are discardable, and LLVM translation warns
//! about every one it does not know.
//! ```mlir
//! func.func @main(%x: tensor<1x4xi8> {tosa.tensor_name = "input"}) -> (tensor<1x4xi8> {...})
//! // becomes
//! func.func @main(%x: tensor<1x4xi8>) -> tensor<1x4xi8>
//! ```

use crate::{
    Error,
    entry::{ENTRY_OPTION, find_entry},
    options::OptionValues,
    pass::{UmacPass, boxed},
    registry::{PassInfo, PassKind},
};
use melior::ir::OperationRef;
use mlir_sys::{MlirAttribute, mlirOperationSetInherentAttributeByName};
use umac_dialects::text::str_ref;

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    name: "umac-strip-entry-attributes",
    summary: "Drop the entry function's argument and result attributes",
    anchor: "builtin.module",
    options: &[ENTRY_OPTION],
    kind: PassKind::Pass(|options: &OptionValues| {
        boxed(StripEntryAttributes { entry: options.string("entry").into() })
    }),
};

struct StripEntryAttributes {
    entry: String,
}

impl UmacPass for StripEntryAttributes {
    fn run(&mut self, operation: OperationRef) -> Result<(), Error> {
        let entry = find_entry(operation, &self.entry)?;
        for key in ["arg_attrs", "res_attrs"] {
            // SAFETY: the op is alive; a null value clears the inherent attribute (func.func keeps
            // argument and result attributes in its properties).
            unsafe {
                mlirOperationSetInherentAttributeByName(
                    entry.to_raw(),
                    str_ref(key),
                    MlirAttribute { ptr: std::ptr::null() },
                );
            }
        }
        Ok(())
    }
}

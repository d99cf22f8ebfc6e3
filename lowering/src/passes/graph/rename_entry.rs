//! `umac-rename-entry{entry=main name=kws}`: renames the entry function (and every reference to
//! it), so the symbols firmware output derives from it (`kws_run`, `kws_op0_conv`) carry the
//! name the user chose.
//! ```mlir
//! func.func @main(...)   →   func.func @kws(...)
//! ```

use crate::{
    Error,
    entry::{ENTRY_OPTION, find_entry},
    error::report,
    options::{OptionKind, OptionSpec, OptionValues},
    pass::{UmacPass, boxed},
    registry::{PassInfo, PassKind},
};
use melior::ir::{OperationRef, operation::OperationLike};
use mlir_sys::*;
use umac_dialects::{ir::find_function, text::str_ref};

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    name: "umac-rename-entry",
    summary: "Rename the entry function and every reference to it",
    anchor: "builtin.module",
    options: &[ENTRY_OPTION, OptionSpec { name: "name", kind: OptionKind::String, default: "", help: "its new name" }],
    kind: PassKind::Pass(|options: &OptionValues| {
        boxed(RenameEntry { entry: options.string("entry").into(), name: options.string("name").into() })
    }),
};

struct RenameEntry {
    entry: String,
    name: String,
}

impl UmacPass for RenameEntry {
    fn run(&mut self, operation: OperationRef) -> Result<(), Error> {
        let (entry, name) = (&self.entry, &self.name);
        if name.is_empty() {
            return Err(Error::Invalid("name= is empty (e.g. umac-rename-entry{entry=main name=kws})".into()));
        }
        let function = find_entry(operation, entry)?;
        if name == entry {
            return Ok(());
        }
        if find_function(operation, name).is_some() {
            let message = format!("{}: the model already has a function @{name}; choose another name", INFO.name);
            return Err(report(function.location(), &message));
        }
        // SAFETY: the function and module are alive; the new name is a string attribute of their
        // context; symbol uses are rewritten within the module.
        unsafe {
            let raw = function.to_raw();
            let context = mlirOperationGetContext(raw);
            let result = mlirSymbolTableReplaceAllSymbolUses(str_ref(entry), str_ref(name), operation.to_raw());
            if result.value == 0 {
                return Err(Error::Internal(format!("the uses of @{entry} could not be renamed")));
            }
            mlirOperationSetAttributeByName(raw, str_ref("sym_name"), mlirStringAttrGet(context, str_ref(name)));
        }
        Ok(())
    }
}

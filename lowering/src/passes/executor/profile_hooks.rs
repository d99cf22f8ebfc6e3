//! `umac-profile-hooks{entry=kws}`: per-operator profiling hooks in the AOT executor. Every call
//! of the executor (one per operator, after `umac-outline-operators`) is bracketed by calls of
//! `@<entry>_op_begin(k)` and `@<entry>_op_end(k)`, `k` the operator's position (0, 1, ... in
//! execution order, as `metadata.json` lists the operators). Both hooks are defined, empty, with
//! weak linkage: firmware that defines them (a cycle counter, a trace) replaces them at link
//! time; firmware that does not pays two calls of an empty function per operator.
//! ```mlir
//! func.func @kws(...) {
//!   call @kws_op0_conv(...)
//! }
//! // becomes
//! func.func @kws(...) {
//!   %c0 = arith.constant 0 : i32
//!   call @kws_op_begin(%c0) : (i32) -> ()
//!   call @kws_op0_conv(...)
//!   call @kws_op_end(%c0) : (i32) -> ()
//! }
//! func.func @kws_op_begin(%op: i32) attributes {llvm.linkage = #llvm.linkage<weak>} { return }
//! func.func @kws_op_end(%op: i32) attributes {llvm.linkage = #llvm.linkage<weak>} { return }
//! ```

use crate::{
    Error,
    entry::{ENTRY_OPTION, find_entry},
    error::report,
    options::OptionValues,
    pass::{UmacPass, boxed},
    registry::{PassInfo, PassKind},
};
use melior::ir::{OperationRef, operation::OperationLike};
use mlir_sys::*;
use umac_dialects::{
    build::{Attr, Builder, Ty},
    ir::{build, collect, find_function, op_name, with_context},
    text::str_ref,
    umac::profile_hook_names,
};

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    name: "umac-profile-hooks",
    summary: "Call weak <entry>_op_begin(k) / <entry>_op_end(k) hooks around each operator of the executor",
    anchor: "builtin.module",
    options: &[ENTRY_OPTION],
    kind: PassKind::Pass(|options: &OptionValues| boxed(ProfileHooks { entry: options.string("entry").into() })),
};

struct ProfileHooks {
    entry: String,
}

impl UmacPass for ProfileHooks {
    fn run(&mut self, operation: OperationRef) -> Result<(), Error> {
        let entry = find_entry(operation, &self.entry)?;
        let hooks = profile_hook_names(&self.entry);
        for hook in &hooks {
            if find_function(operation, hook).is_some() {
                let message = format!("{}: the model already has a function @{hook}", INFO.name);
                return Err(report(entry.location(), &message));
            }
        }
        // SAFETY: the module and the entry are alive; every op built here belongs to their
        // context and is inserted into a live block (the entry's body or the module's).
        unsafe {
            let raw = entry.to_raw();
            let context = mlirOperationGetContext(raw);
            let i32_type = mlirIntegerTypeGet(context, 32);
            // Every operator call, those inside the model's control flow (IF, WHILE) too, in the
            // order the driver numbers operators.
            let calls = collect(entry, |op| op_name(op) == "func.call");
            for (k, &call) in calls.iter().enumerate() {
                let location = mlirOperationGetLocation(call);
                let block = mlirOperationGetBlock(call);
                let value = mlirIntegerAttrGet(i32_type, k as i64);
                let id = build("arith.constant", location, &[], &[i32_type], &[("value", value)]);
                mlirBlockInsertOwnedOperationBefore(block, call, id);
                let operand = mlirOperationGetResult(id, 0);
                let callee = |hook: &str| mlirFlatSymbolRefAttrGet(context, str_ref(hook));
                let begin = build("func.call", location, &[operand], &[], &[("callee", callee(&hooks[0]))]);
                mlirBlockInsertOwnedOperationBefore(block, call, begin);
                let end = build("func.call", location, &[operand], &[], &[("callee", callee(&hooks[1]))]);
                mlirBlockInsertOwnedOperationAfter(block, call, end);
            }
            let module_body = mlirRegionGetFirstBlock(mlirOperationGetRegion(operation.to_raw(), 0));
            for hook in &hooks {
                let function = with_context(&operation, |context| {
                    let mut b = Builder::function(context, hook, &[Ty::I32], INFO.name);
                    b.set_public();
                    b.set_function_attribute("llvm.linkage", Attr::Parsed("#llvm.linkage<weak>"));
                    b.finish().map(|f| f.into_raw())
                })?;
                mlirBlockAppendOwnedOperation(module_body, function);
            }
        }
        Ok(())
    }
}

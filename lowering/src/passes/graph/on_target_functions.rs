//! `umac-on-target-functions{target=vanilla pipeline={canonicalize,cse}}`: runs a pipeline on
//! each function partitioned to one target (`umac.target = "vanilla"`) and on no other. This is
//! how an accelerator's passes for a function phase (TVM's TIR phases) take part in a compile
//! pipeline that `umac-opt` can replay.
//! ```mlir
//! func.func @main(...)                                    // untouched
//! func.func private @vanilla_0(...) {umac.target = "vanilla"}  // canonicalized
//! ```

use crate::{
    Error,
    options::{OptionKind, OptionSpec, OptionValues},
    pass::{UmacPass, boxed},
    pass_manager::{build_pass_manager, run_on_function},
    registry::{PassInfo, PassKind},
};
use melior::ir::{OperationRef, operation::OperationLike};
use umac_dialects::{
    ir::{op_name, string_value, top_level_ops, with_context},
    umac::TARGET_ATTR,
};

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    name: "umac-on-target-functions",
    summary: "Run a func.func pipeline on the functions partitioned to one target only",
    anchor: "builtin.module",
    options: &[
        OptionSpec { name: "target", kind: OptionKind::String, default: "", help: "the target (umac.target)" },
        OptionSpec {
            name: "pipeline",
            kind: OptionKind::String,
            default: "",
            help: "the passes, anchored on func.func, in braces: {canonicalize,cse}",
        },
    ],
    kind: PassKind::Pass(|options: &OptionValues| {
        let state =
            OnTargetFunctions { target: options.string("target").into(), pipeline: options.string("pipeline").into() };
        boxed(state)
    }),
};

struct OnTargetFunctions {
    target: String,
    pipeline: String,
}

impl UmacPass for OnTargetFunctions {
    fn run(&mut self, operation: OperationRef) -> Result<(), Error> {
        if self.target.is_empty() {
            return Err(Error::Invalid(
                "target= is empty (name an accelerator: umac-on-target-functions{target=NAME ...})".into(),
            ));
        }
        with_context(&operation, |context| {
            // Parsed once, before any function changes: a bad pipeline fails the pass with nothing
            // done.
            build_pass_manager(context, &format!("func.func({})", self.pipeline), "func.func")
                .map_err(|e| Error::Invalid(format!("pipeline '{}' does not parse: {}", self.pipeline, e.message)))?;
            let functions = top_level_ops(operation).into_iter().filter(|op| {
                op_name(op) == "func.func"
                    && op.attribute(TARGET_ATTR).ok().and_then(string_value).as_deref() == Some(&self.target)
            });
            for function in functions {
                run_on_function(context, function, &self.pipeline)?;
            }
            Ok(())
        })
    }
}

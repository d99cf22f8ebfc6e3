//! `umac-verify`: checks umac ops and attributes anywhere in a pipeline.
//!
//! MLIR's verifier, which runs after every pass, knows nothing of the umac dialect (its ops are
//! unregistered, see `umac_dialects::umac`). Put this pass after a pass that creates umac IR to
//! check it at that point:
//! ```text
//! umac-opt --pass-pipeline='builtin.module(my-partitioning,umac-verify)' in.mlir
//! ```

use crate::{
    options::{OptionKind, OptionSpec, OptionValues},
    registry::{PassInfo, PassKind},
};
use melior::{
    ir::{OperationRef, r#type::TypeId},
    pass::{ExternalPass, Pass, RunExternalPass, create_external},
};
use umac_dialects::umac::{VerifyOptions, verify};

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    name: "umac-verify",
    summary: "Check umac ops (umac.call_extern) and attributes (umac.target, umac.composite)",
    anchor: "any",
    options: &[OptionSpec {
        name: "allow-unregistered-dialect",
        kind: OptionKind::Bool,
        default: "false",
        help: "accept ops of dialects that are not registered",
    }],
    kind: PassKind::Pass(create),
};

#[repr(align(8))]
struct PassId;
static PASS_ID: PassId = PassId;

/// The option is a type parameter: melior 0.27 never deallocates an external pass's box, so
/// passes are zero-sized (see `plan_memory`).
#[derive(Clone)]
struct VerifyPass<const ALLOW_UNREGISTERED: bool>;

impl<'c, const ALLOW_UNREGISTERED: bool> RunExternalPass<'c> for VerifyPass<ALLOW_UNREGISTERED> {
    fn initialize(&mut self, _context: melior::ContextRef<'c>) {}

    fn run(&mut self, operation: OperationRef<'c, '_>, pass: ExternalPass<'_>) {
        if !verify(operation, VerifyOptions { allow_unregistered_dialects: ALLOW_UNREGISTERED }) {
            pass.signal_failure();
        }
    }
}

fn create(options: &OptionValues) -> Pass {
    let id = TypeId::create(&PASS_ID);
    if options.bool("allow-unregistered-dialect") {
        create_external(VerifyPass::<true>, id, "UmacVerify", INFO.name, INFO.summary, "", &[])
    } else {
        create_external(VerifyPass::<false>, id, "UmacVerify", INFO.name, INFO.summary, "", &[])
    }
}

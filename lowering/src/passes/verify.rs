//! `umac-verify`: checks umac ops and attributes anywhere in a pipeline.
//!
//! MLIR's verifier, which runs after every pass, knows nothing of the umac dialect (its ops are
//! unregistered, see `umac_dialects::umac`). Put this pass after a pass that creates umac IR to
//! check it at that point:
//! ```text
//! umac-opt --pass-pipeline='builtin.module(my-partitioning,umac-verify)' in.mlir
//! ```

use crate::{
    Error,
    options::{OptionKind, OptionSpec, OptionValues},
    pass::{UmacPass, create},
    registry::{PassInfo, PassKind},
};
use melior::{ir::OperationRef, pass::Pass};
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
    kind: PassKind::Pass(|options: &OptionValues| -> Pass {
        create(&INFO, Verify(VerifyOptions { allow_unregistered_dialects: options.bool("allow-unregistered-dialect") }))
    }),
};

#[derive(Clone)]
struct Verify(VerifyOptions);

impl UmacPass for Verify {
    fn run(&mut self, operation: OperationRef) -> Result<(), Error> {
        if verify(operation, self.0) { Ok(()) } else { Err(Error::Reported) }
    }
}

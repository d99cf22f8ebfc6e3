//! `umac-verify`: checks umac ops and attributes anywhere in a pipeline.
//!
//! MLIR's verifier runs the umac dialect's checks after parsing and after every pass (see
//! `umac_dialects::umac`); this pass runs them explicitly at any point of a pipeline:
//! ```text
//! umac-opt --pass-pipeline='builtin.module(my-partitioning,umac-verify)' in.mlir
//! ```

use crate::{
    Error,
    pass::{UmacPass, boxed},
    registry::{PassInfo, PassKind},
};
use melior::ir::OperationRef;
use umac_dialects::umac::verify;

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    name: "umac-verify",
    summary: "Check umac ops (umac.call_extern) and attributes (umac.target, umac.composite)",
    anchor: "any",
    options: &[],
    kind: PassKind::Pass(|_| boxed(Verify)),
};

struct Verify;

impl UmacPass for Verify {
    fn run(&mut self, operation: OperationRef) -> Result<(), Error> {
        if verify(operation) { Ok(()) } else { Err(Error::Reported) }
    }
}

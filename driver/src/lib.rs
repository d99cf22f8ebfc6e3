//! What turns a model into an artifact: the entry's signature and shapes ([`signature`]), the
//! compile pipeline and its runner ([`runner`]), code generation to an object
//! ([`llvm_object`]), firmware output ([`firmware`]: object, header, metadata, the kernels it
//! calls) and host execution with either engine ([`host`]).
//!
//! Every IR-level step is a registered pass: [`runner::CompilePipeline`] is the one textual
//! pipeline a compile runs, which `umac compile --print-pipeline` prints and `umac-opt` replays.

mod error;
pub mod firmware;
pub mod guarded;
pub mod host;
pub mod llvm_object;
pub mod runner;
pub mod signature;
pub mod simulator;

pub use error::Error;

use melior::ir::Module;
use umac_backend::{TargetSet, partition::Placement};

/// Registers the accelerators umac is built with (and their passes); every entry point of the
/// driver needs them, so it is safe to call any number of times.
pub fn register_targets() {
    umac_targets::register();
}

/// The device that runs custom operators of `code` whole (another compiler's NPU program in a
/// model), if umac is built with one.
pub fn custom_operator(code: &str) -> Option<&'static dyn umac_sim::CustomOperator> {
    umac_targets::custom_operators().into_iter().find(|c| c.custom_code() == code)
}

/// A context for compiling models: the accelerators registered first, so that their dialects
/// (their primitive ops) are in it.
pub fn create_context(options: umac_dialects::ContextOptions) -> melior::Context {
    register_targets();
    umac_dialects::create_context(options)
}

/// Where each op of `module` will run once partitioned for `targets`' accelerators (empty
/// without accelerators): the plan `umac-partition` carries out, read before it runs.
fn placements(module: &Module, targets: &TargetSet) -> Result<Vec<Placement>, Error> {
    if targets.accelerators.is_empty() {
        return Ok(vec![]);
    }
    Ok(umac_backend::partition::plan(module.as_operation(), &targets.accelerators)?.placements)
}

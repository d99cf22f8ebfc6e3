//! What can go wrong in umac's passes and pipelines.

use crate::pass_manager::PipelineError;

/// An error of a pass or of building a pipeline.
#[derive(Clone, Debug, thiserror::Error)]
pub enum Error {
    /// Reported as a diagnostic at the offending op (by MLIR or by a umac pass).
    #[error("see the errors reported above")]
    Reported,
    /// A pipeline string does not parse or names something unknown.
    #[error(transparent)]
    Pipeline(#[from] PipelineError),
    /// The input is not what the pass works on (reported at the pass's operation).
    #[error("{0}")]
    Invalid(String),
    /// umac built IR that MLIR rejected: a bug in umac, not in the input.
    #[error("internal error: {0}")]
    Internal(String),
}

impl From<umac_dialects::Error> for Error {
    fn from(error: umac_dialects::Error) -> Self {
        match error {
            umac_dialects::Error::Reported => Error::Reported,
            umac_dialects::Error::Internal(message) => Error::Internal(message),
            umac_dialects::Error::Invalid(message) => Error::Invalid(message),
        }
    }
}

/// Emits `message` as an error at `location` and returns [`Error::Reported`].
pub fn report(location: melior::ir::Location, message: &str) -> Error {
    umac_dialects::emit_error(location, message);
    Error::Reported
}

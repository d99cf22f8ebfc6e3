//! What can go wrong in the backend API.

/// An error of target strings, partitioning, legalization or a backend.
#[derive(Clone, Debug, thiserror::Error)]
pub enum Error {
    /// Reported as a diagnostic at the offending op.
    #[error("see the errors reported above")]
    Reported,
    /// A target string names something unknown or is malformed.
    #[error("{0}")]
    Target(String),
    /// A backend cannot lower what it matched (its own words).
    #[error("{0}")]
    Unsupported(String),
    /// The input is not what the API works on.
    #[error("{0}")]
    Invalid(String),
}

impl From<&str> for Error {
    /// A backend's reason, as `Err("conv2d without pad")?` in [`crate::Backend::strategy`].
    fn from(reason: &str) -> Self {
        Error::Unsupported(reason.to_string())
    }
}

impl From<String> for Error {
    fn from(reason: String) -> Self {
        Error::Unsupported(reason)
    }
}

impl From<umac_lowering::Error> for Error {
    fn from(error: umac_lowering::Error) -> Self {
        match error {
            umac_lowering::Error::Reported => Error::Reported,
            other => Error::Invalid(other.to_string()),
        }
    }
}

impl From<umac_dialects::Error> for Error {
    fn from(error: umac_dialects::Error) -> Self {
        match error {
            umac_dialects::Error::Reported => Error::Reported,
            other => Error::Invalid(other.to_string()),
        }
    }
}

impl From<umac_lowering::PipelineError> for Error {
    fn from(error: umac_lowering::PipelineError) -> Self {
        Error::Invalid(error.to_string())
    }
}

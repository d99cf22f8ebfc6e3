//! What can go wrong turning a model into an artifact.

/// An error of the driver.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Reported as diagnostics at the offending ops (a pass failed, the model is invalid).
    #[error("see the errors reported above")]
    Reported,
    /// Bad options, or inputs that do not fit the model (unknown entry, shapes, name).
    #[error("{0}")]
    Usage(String),
    /// Lowering or code generation failed for a reason no op carries.
    #[error("{0}")]
    Compile(String),
    /// The model does not fit a limit the user gave.
    #[error("{0}")]
    Limit(String),
    /// Running the compiled model failed (on the simulator: a fault, a hazard, no exit).
    #[error("{0}")]
    Run(String),
}

impl From<umac_lowering::Error> for Error {
    fn from(error: umac_lowering::Error) -> Self {
        match error {
            umac_lowering::Error::Reported => Error::Reported,
            other => Error::Compile(other.to_string()),
        }
    }
}

impl From<umac_backend::Error> for Error {
    fn from(error: umac_backend::Error) -> Self {
        match error {
            umac_backend::Error::Reported => Error::Reported,
            umac_backend::Error::Target(message) => Error::Usage(message),
            other => Error::Compile(other.to_string()),
        }
    }
}

impl From<umac_codegen_llvm::Error> for Error {
    fn from(error: umac_codegen_llvm::Error) -> Self {
        Error::Compile(error.to_string())
    }
}

impl From<umac_codegen_cranelift::Error> for Error {
    fn from(error: umac_codegen_cranelift::Error) -> Self {
        Error::Compile(error.to_string())
    }
}

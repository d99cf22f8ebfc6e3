//! What can go wrong in tynnp's compiler, before it becomes the backend API's error or a
//! diagnostic at the op.

/// An error of the tynnp compiler.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TynnpError {
    /// An op of the `tynnp` dialect outside the hardware contract's limits (its types, shapes,
    /// zero points, scales).
    #[error("{0}")]
    Contract(String),
    /// A schedule, attached or decided, that does not fit its job, the hardware or the kernels
    /// beside it.
    #[error("{0}")]
    Schedule(String),
    /// A kernel loop the rewrite does not take (its markers, its shape).
    #[error("{0}")]
    Loop(String),
    /// A kernel function whose markers say not what a rewrite of its calls needs.
    #[error("{0}")]
    Kernel(String),
}

impl From<TynnpError> for umac_backend::Error {
    fn from(error: TynnpError) -> Self {
        umac_backend::Error::Unsupported(error.to_string())
    }
}

//! What stops a run on the NPU. Each error's text names the instruction or job, the unit and the
//! address; the machine adds the pc and the kernel.

/// An error of the NPU.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NpuError {
    /// An instruction or descriptor the contract does not define: a reserved field, a zero size,
    /// a unit or token that does not exist.
    #[error("{0}")]
    Malformed(String),
    /// An access outside memory, across a region's end, in a region the unit cannot reach, or of
    /// a byte no one wrote.
    #[error("{0}")]
    Memory(String),
    /// Accesses happens-before does not order, or a copy onto its own source.
    #[error("{0}")]
    Hazard(String),
    /// Arithmetic outside the contract: an output stage or rescale beyond int32.
    #[error("{0}")]
    Arithmetic(String),
    /// Beyond what the hardware counts: more jobs on a unit than its tokens number.
    #[error("{0}")]
    Limit(String),
}

impl From<NpuError> for umac_sim::device::DeviceError {
    fn from(error: NpuError) -> Self {
        umac_sim::device::DeviceError(error.to_string())
    }
}

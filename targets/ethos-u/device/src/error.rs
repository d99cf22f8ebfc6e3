//! What goes wrong reading or running a command stream: always at a place in it.

/// An error of the device, at the byte offset of the command (or driver action) at fault.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EthosUError {
    /// The driver payload (the COP1 header and its actions) is malformed.
    #[error("driver payload, offset {offset:#x}: {message}")]
    Payload { offset: usize, message: String },
    /// A command of the register command stream is malformed or unsupported; `offset` is from
    /// the stream's start, as Vela's listing counts.
    #[error("command stream, offset {offset:#06x} ({command}): {message}")]
    Command { offset: usize, command: String, message: String },
    /// A compressed weight stream does not decode; `offset` is the byte of the stream.
    #[error("weight stream, byte {offset}: {message}")]
    Weights { offset: usize, message: String },
    /// A scale stream is too short or malformed; `offset` is the byte of the stream.
    #[error("scale stream, byte {offset}: {message}")]
    Scales { offset: usize, message: String },
    /// The model around the payload is not one the operator can run: its `.tflite` structure,
    /// Vela's offline memory plan, or the feature maps given (the message names the operator,
    /// tensor or input).
    #[error("{message}")]
    Model { message: String },
    /// An output of the operator is not what the stream computes: bytes of it that no command
    /// wrote (they hold whatever the memory held before).
    #[error("output {index}: {message}")]
    Output { index: usize, message: String },
}

//! Devices that run a model's custom operator whole: an NPU's program compiled by another
//! compiler and carried in the model, such as Arm Vela's `ethos-u` operator in a `.tflite`.
//! `umac run` runs a model of such an operator on the device a target supplies
//! (`targets/registry` lists them), naming no device itself.

use crate::device::DeviceError;

/// A device running custom operators of one custom code.
pub trait CustomOperator: Sync {
    /// The custom code the model gives the operator (`ethos-u`).
    fn custom_code(&self) -> &'static str;

    /// The configuration operator `index` of `model` (a `.tflite` file's bytes) was compiled for,
    /// as a target string names it (`ethos-u55-128`).
    fn configuration(&self, model: &[u8], index: usize) -> Result<String, DeviceError>;

    /// The tensors (indices of the model's) operator `index` of `model` reads in each inference,
    /// in the order `run` takes them: its feature maps, not its program, memories or state.
    fn inputs(&self, model: &[u8], index: usize) -> Result<Vec<usize>, DeviceError>;

    /// Runs operator `index` of `model` once for each of `inferences`, one after another on one
    /// device (the bytes of each tensor the operator reads, in the order of its inputs, past the
    /// program and its memories, but its variable tensors: state it keeps from one inference to
    /// the next, zero at first); returns each inference's outputs' bytes.
    fn run(&self, model: &[u8], index: usize, inferences: &[Vec<&[u8]>]) -> Result<Vec<Vec<Vec<u8>>>, DeviceError>;

    /// What `umac run --report` prints for operator `index` of `model`: a first line
    /// `NPU cycles: N` (the whole operator, by the device's timing model), then each operation's
    /// cycles, MACs and bytes moved, then what the device's rule checker found in the program.
    fn report(&self, model: &[u8], index: usize) -> Result<String, DeviceError>;
}

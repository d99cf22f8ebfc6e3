//! The tynnp NPU beside the control unit (docs/tynnp/isa.md): DMA channels, the neural unit and
//! the vector units as timed, asynchronous queues; jobs decoded from descriptors in memory,
//! computed as the hardware computes them, and checked for hazards against happens-before.

pub mod compute;
pub mod cost;
pub mod desc;
pub mod engine;
pub mod hazard;
pub mod params;
pub mod quant;

#[cfg(test)]
pub(crate) mod engine_tests;
#[cfg(test)]
mod reference;
#[cfg(test)]
mod tests;

pub use engine::{Bus, Instruction, Npu, Outcome};
pub use params::Params;

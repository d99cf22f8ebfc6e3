//! tynnp's NPU as a device of umac-sim (targets/tynnp/docs/isa.md): DMA channels, the neural unit and the
//! vector units as timed, asynchronous queues behind custom-0..3; jobs decoded from descriptors
//! in memory, computed as the hardware computes them, and checked for hazards against
//! happens-before. The compiler (`umac-tynnp`) takes its parameters, descriptor layouts and cost
//! model from here, so that what it encodes is what the device decodes.

pub mod bound;
pub mod compute;
pub mod cost;
pub mod desc;
mod device;
pub mod engine;
pub mod error;
pub mod hazard;
pub mod isa;
pub mod params;
pub mod quant;

#[cfg(test)]
pub(crate) mod engine_tests;
#[cfg(test)]
mod machine_tests;
#[cfg(test)]
mod reference;
#[cfg(test)]
mod tests;

pub use engine::{Bus, Instruction, Npu, Outcome};
pub use error::NpuError;
pub use params::Params;

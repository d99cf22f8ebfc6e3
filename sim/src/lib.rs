//! umac-sim: an RV32IM(C) machine, cycle by cycle, hosting the devices targets supply.
//!
//! `rv32` decodes the core's instructions, `memory` is the map of regions, `device` the trait a
//! device (an NPU behind the custom instructions, or one behind mapped registers) implements,
//! and `machine` puts them together with ELF loading and semihosting; `custom_operator` is the
//! trait of a device that runs a model's custom operator whole (an NPU program another compiler
//! wrote). It names no device: a
//! target supplies its own (tynnp's is in `targets/tynnp/device`).

pub mod custom_operator;
pub mod device;
pub mod elf;
pub mod machine;
pub mod memory;
pub mod report;
pub mod rv32;
pub mod semihost;
pub mod testing;

pub use custom_operator::CustomOperator;
pub use device::Device;
pub use machine::{AttachError, Exit, Machine, Stop};

#[cfg(test)]
mod exec_tests;
#[cfg(test)]
mod machine_tests;

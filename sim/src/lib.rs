//! umac-sim: the tynnp NPU (docs/tynnp/isa.md) and its RV32IM(C) control unit, cycle by cycle.
//!
//! `rv32` decodes and executes the control unit's instructions, `npu` models the asynchronous
//! units behind the custom instructions, and `machine` puts them together with the memory map,
//! ELF loading and semihosting.

pub mod elf;
pub mod machine;
pub mod memory;
pub mod npu;
pub mod report;
pub mod rv32;
pub mod semihost;

pub use machine::{Exit, Machine, Stop};

#[cfg(test)]
mod exec_tests;
#[cfg(test)]
mod machine_tests;

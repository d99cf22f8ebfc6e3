//! The RV32IM(C) control unit: instruction decoding (base and compressed) and execution.

pub mod decode;
#[cfg(test)]
mod decode_tests;

pub use decode::{Inst, Op, decode};

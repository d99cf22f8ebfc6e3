//! The code level: each kernel's call (`call.rs`: the arguments a primitive op's schedule gives
//! it) and its function for the control unit (`kernel.rs`, its tiles' loops in `loops.rs`, built
//! with `body.rs`), the NPU instructions as ops and their lowering to the llvm dialect
//! (`instructions.rs`), double buffering of the tile loops (`double_buffer.rs`), DM as a memory
//! space, the blocks of it the calls share (`regions.rs`) and the allocation of its buffers
//! (`memory.rs`), copies between memrefs (`dma.rs`), and what a call does for the
//! simulator's report (`describe.rs`).

pub(crate) mod body;
pub(crate) mod call;
pub(crate) mod describe;
pub(crate) mod dma;
pub(crate) mod double_buffer;
pub(crate) mod instructions;
pub(crate) mod kernel;
pub(crate) mod loops;
pub(crate) mod memory;
pub(crate) mod regions;
pub(crate) mod specialize;

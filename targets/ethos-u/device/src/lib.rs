//! Arm's Ethos-U55 and Ethos-U65 NPUs as devices of umac-sim, running the command streams Arm's
//! Vela compiler writes (`../shared/facts/ethos-u.md` has what Vela 5.2 writes and where the
//! formats are defined).
//!
//! What is here so far: the driver payload (`payload.rs`: the `COP1` header, the configuration
//! the stream was compiled for) and the register command stream (`stream.rs`), decoded command by
//! command with every field of the 97 commands (`commands.rs`) and checked as the hardware reads
//! it; the register state each operation starts on (`registers.rs`); compressed weight streams
//! and the order the NPU reads them in (`weights.rs`), scale records (`scales.rs`), feature-map
//! addressing (`feature_map.rs`); the functional model (`machine.rs`), which keeps a record of
//! the bytes written and stops at a read of any other, with DMA, convolutions
//! (`conv.rs`), pooling (`pool.rs`) and elementwise operations with lookup tables
//! (`elementwise.rs`) and activations (`activation.rs`); an `ethos-u` operator of a `.tflite`
//! with Vela's offline memory plan, which `umac run` runs (`operator.rs`); the rule checker for
//! DMA and kernel waits, BLOCKDEP, the internal SRAM's areas and lookup tables (`rules.rs`); and
//! the timing model (`timing.rs`, `../docs/timing.md`), which `umac run --report` prints. Vela's
//! streams for the four MLPerf Tiny models, conv_16x8 (int16 activations) and two int8 LSTMs
//! (their state kept between inferences) run bit-exact with TFLite Micro on all six
//! configurations (the U65-512's two cores included), and so do the single-operator sweeps
//! (`tests/sweep/`, `tests/params/`) but for the cases Vela compiles wrongly, which compute what
//! Vela's own listing says or stop at the command at fault (`tests/sweep/README.md`).
//! Corrupted streams end in an error at a command, never a panic (`tests/corrupted.rs`).

mod activation;
pub mod commands;
mod conv;
pub mod coverage;
mod elementwise;
pub mod error;
pub mod feature_map;
pub mod machine;
pub mod operator;
pub mod payload;
mod pool;
pub mod registers;
pub mod rules;
pub mod scales;
pub mod stream;
pub mod timing;
pub mod weights;

pub use error::EthosUError;
pub use machine::Machine;
pub use operator::{CUSTOM_OPERATOR, EthosUOperator};
pub use payload::{Config, Payload};
pub use registers::{Operation, Registers, operations};
pub use stream::{Instruction, decode};

/// `a / b` rounded up (`b` taken as at least 1): how many blocks of `b` cover `a`.
pub(crate) fn up(a: u64, b: u64) -> u64 {
    a.div_ceil(b.max(1))
}

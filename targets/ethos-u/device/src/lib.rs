//! Arm's Ethos-U55 and Ethos-U65 NPUs as devices of umac-sim, running the command streams Arm's
//! Vela compiler writes (`../shared/facts/ethos-u.md` has what Vela 5.2 writes and where the
//! formats are defined).
//!
//! What is here so far: the driver payload (`payload.rs`: the `COP1` header, the configuration
//! the stream was compiled for) and the register command stream (`stream.rs`), decoded command by
//! command with every field of the 97 commands (`commands.rs`) and checked as the hardware reads
//! it, and the register state each operation starts on (`registers.rs`); the decoder of the
//! compressed weight streams (`weights.rs`). The tests decode Vela's own streams for the MLPerf Tiny models on six configurations and
//! compare each command with Vela's listing of it.

pub mod commands;
mod conv;
mod elementwise;
pub mod error;
pub mod feature_map;
pub mod machine;
pub mod payload;
mod pool;
pub mod registers;
pub mod scales;
pub mod stream;
pub mod weights;

pub use error::EthosUError;
pub use machine::Machine;
pub use payload::{Config, Payload};
pub use registers::{Operation, Registers, operations};
pub use stream::{Instruction, decode};

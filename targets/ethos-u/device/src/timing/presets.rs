//! The figures the timing model runs on: each configuration's MAC micro-block and output rates,
//! and the memory systems of Vela's system presets. `targets/ethos-u/docs/timing.md` gives the source
//! of each figure.

use crate::payload::Config;

/// What a configuration's core computes per cycle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Core {
    /// The OFM micro-block one MAC step computes: height, width, depth.
    pub micro_block: [u64; 3],
    /// Output-stage cycles per OFM element, by what the stage does: `[32-bit binary elementwise,
    /// 32-bit unary elementwise, MUL to 32 bits, MUL or a 40-bit accumulator, simple ADD/SUB,
    /// ADD/SUB with per-operand scaling, max pool, anything else]`.
    pub output: [f64; 8],
    /// Activation cycles per OFM element: `[lookup table, TANH or SIGMOID; clamp; none]`.
    pub activation: [f64; 3],
    /// MAC cycles a micro-block waits for its accumulators when the block has one micro-block
    /// in x and y: `(32-bit, 40-bit accumulators)`.
    pub drain: (u64, u64),
    pub cores: u64,
}

impl Core {
    /// The figures of `config`.
    pub fn of(config: &Config) -> Core {
        let (micro_block, output, activation, drain) = match (config.product, config.macs) {
            (0, 32) => ([1, 1, 4], [2.0, 3.0, 3.0, 3.0, 4.0, 6.0, 1.0, 2.0], [1.0, 1.0, 0.0], (3, 7)),
            (0, 64) => ([1, 1, 8], [1.0, 1.5, 1.5, 1.5, 2.0, 3.0, 0.5, 1.0], [1.0, 1.0, 0.0], (2, 3)),
            (0, 128) => ([1, 2, 8], [0.75, 1.25, 0.75, 0.75, 1.0, 1.5, 0.25, 0.5], [1.0, 0.5, 0.0], (2, 3)),
            (1, 512) => {
                ([2, 2, 8], [0.3125, 0.5625, 0.25, 0.1875, 0.25, 0.375, 0.0625, 0.125], [0.5, 0.125, 0.0], (2, 2))
            }
            _ => ([2, 2, 8], [0.625, 1.125, 0.5, 0.375, 0.5, 0.75, 0.125, 0.25], [1.0, 0.25, 0.0], (2, 2)),
        };
        Core { micro_block, output, activation, drain, cores: u64::from(config.cores()) }
    }
}

/// One memory behind an AXI port.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Memory {
    pub name: &'static str,
    /// Bytes per NPU cycle: the port's width times the memory's clock scale.
    pub bytes_per_cycle: f64,
    /// The shortest run of bytes the memory moves at its rate: a shorter one takes as long.
    pub burst: u64,
    /// Cycles from a read request to its first data, and from a write to its acknowledgement.
    pub read_latency: u64,
    pub write_latency: u64,
}

/// A system: the NPU's clock and the memories its regions live in.
#[derive(Clone, Debug, PartialEq)]
pub struct System {
    /// Vela's name of the system preset and memory mode.
    pub name: &'static str,
    pub clock_hz: f64,
    pub memories: Vec<Memory>,
    /// The memory of region 0 (read-only data: weights, scales, tables), of region 2 (the fast
    /// scratch) and of every other region (the arena: scratch and the model's inputs and
    /// outputs).
    pub constants: usize,
    pub fast: usize,
    pub arena: usize,
}

impl System {
    /// The system Vela compiles for when none is named: `Ethos_U55_High_End_Embedded` with
    /// `Shared_Sram` for the Ethos-U55, `Ethos_U65_Client_Server` with `Dedicated_Sram_384KB` for
    /// the Ethos-U65.
    pub fn default_for(config: &Config) -> System {
        if config.product == 1 {
            // 16-byte AXI ports at 1 GHz.
            System {
                name: "Ethos_U65_Client_Server, Dedicated_Sram_384KB",
                clock_hz: 1e9,
                memories: vec![
                    Memory { name: "SRAM", bytes_per_cycle: 16.0, burst: 32, read_latency: 32, write_latency: 32 },
                    Memory {
                        name: "DRAM",
                        bytes_per_cycle: 16.0 * 0.75,
                        burst: 128,
                        read_latency: 500,
                        write_latency: 250,
                    },
                ],
                constants: 1,
                fast: 0,
                arena: 1,
            }
        } else {
            // 8-byte AXI ports at 500 MHz; the flash at an eighth of the clock.
            System {
                name: "Ethos_U55_High_End_Embedded, Shared_Sram",
                clock_hz: 500e6,
                memories: vec![
                    Memory { name: "SRAM", bytes_per_cycle: 8.0, burst: 32, read_latency: 32, write_latency: 32 },
                    Memory {
                        name: "flash",
                        bytes_per_cycle: 8.0 * 0.125,
                        burst: 128,
                        read_latency: 64,
                        write_latency: 0,
                    },
                ],
                constants: 1,
                fast: 0,
                arena: 0,
            }
        }
    }

    /// The memory region `region` lives in.
    pub fn memory_of(&self, region: u64) -> usize {
        match region {
            0 => self.constants,
            2 => self.fast,
            _ => self.arena,
        }
    }
}

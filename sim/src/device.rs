//! What the machine hosts beside its core: devices. A device is reached through the custom
//! instructions it claims (custom-0..3, as an NPU's control instructions are) or through the
//! registers it maps into the address space, and may add memories of its own to the map. It keeps
//! its own clock: the machine tells it the core's cycle at every access, and it answers with
//! what the core sees (a value, the cycles the access took) while its own work runs on in time.
//! The machine knows no device by name: a target supplies its device (`Backend::device`).

use crate::memory::{Memory, RegionSpec};
use std::any::Any;

/// A custom instruction as the core decoded it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Instruction {
    /// Which custom opcode: 0..=3 for custom-0 (0x0B), custom-1 (0x2B), custom-2 (0x5B),
    /// custom-3 (0x7B).
    pub custom: u8,
    pub funct3: u8,
    pub funct7: u8,
    /// The values of rs1 and rs2.
    pub rs1: u32,
    pub rs2: u32,
    /// Its address.
    pub pc: u32,
}

impl Instruction {
    /// The major opcode it was encoded with.
    pub fn opcode(&self) -> u8 {
        [0x0B, 0x2B, 0x5B, 0x7B][usize::from(self.custom & 3)]
    }
}

/// What the core sees of a custom instruction or a register access.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// The value for `rd` (or the register's value).
    pub value: u32,
    /// Cycles the access took beyond the one every instruction takes.
    pub cycles: u64,
    /// Of those, the cycles the core waited for the device (a full queue, a wait).
    pub stall: u64,
    /// When the work it started completes, if it started any.
    pub completes: Option<u64>,
}

/// An error of a device: the access stops the run, with this message at the instruction.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct DeviceError(pub String);

impl From<String> for DeviceError {
    fn from(message: String) -> Self {
        DeviceError(message)
    }
}

/// Work a device did so far: the counters per-kernel figures are differences of.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Work {
    /// Useful multiply-accumulates.
    pub macs: u64,
    /// Bytes moved through the off-chip port.
    pub ddr_bytes: u64,
}

/// What a device reports of a run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Figures {
    pub work: Work,
    /// Peak multiply-accumulates and off-chip bytes per cycle (0: none), the roofline's slopes.
    pub macs_per_cycle: u64,
    pub ddr_bytes_per_cycle: u64,
    /// Per unit: name, jobs, busy cycles.
    pub units: Vec<(String, u64, u64)>,
    /// Its part of the report's text (per unit, bytes moved, stalls), each line indented.
    pub text: String,
    /// Per unit, the fewest cycles its cost contract allows for the work the unit did (one job
    /// per kernel, each off-chip byte moved once); empty when the device gives none.
    pub bounds: Vec<(String, u64)>,
}

/// The run a device reports on.
#[derive(Clone, Copy, Debug)]
pub struct Run<'a> {
    /// Its cycles (until the core stopped and every device's work completed).
    pub cycles: u64,
    /// The cycles the kernels (calls that issued custom instructions) began, in order.
    pub kernel_starts: &'a [u64],
}

/// Something the machine hosts beside its core.
pub trait Device: Any {
    /// What it is, for messages (`npu`, `dma-engine`).
    fn name(&self) -> &str;

    /// Memories it adds to the map.
    fn regions(&self) -> Vec<RegionSpec> {
        Vec::new()
    }

    /// When it models the off-chip port the core shares with it, its latency: the core's
    /// accesses to DDR take a quarter of it.
    fn ddr_latency(&self) -> Option<u32> {
        None
    }

    /// The custom opcodes (0..=3) it decodes.
    fn custom_opcodes(&self) -> &[u8] {
        &[]
    }

    /// Executes a custom instruction the core issues at cycle `now`.
    fn execute(&mut self, memory: &mut Memory, insn: Instruction, now: u64) -> Result<Outcome, DeviceError> {
        let _ = (memory, now);
        Err(DeviceError(format!("{} takes no custom-{} instruction", self.name(), insn.custom)))
    }

    /// The address range `[start, end)` of its registers, if it maps any.
    fn registers(&self) -> Option<(u32, u32)> {
        None
    }

    /// A core load (`value` None) or store of `len` bytes at `addr` in its registers at cycle `now`.
    fn access(
        &mut self,
        memory: &mut Memory,
        addr: u32,
        len: u32,
        value: Option<u32>,
        now: u64,
    ) -> Result<Outcome, DeviceError> {
        let _ = (memory, len, value, now);
        Err(DeviceError(format!("{} has no register at {addr:#010x}", self.name())))
    }

    /// Checks a core load (`write` false) or store of memory against the work in flight that the
    /// core has not synchronised with (a hazard is an error).
    fn check_access(&self, addr: u32, len: u32, write: bool, pc: u32) -> Result<(), DeviceError> {
        let _ = (addr, len, write, pc);
        Ok(())
    }

    /// The cycle its last work completes (0 when it has done none).
    fn busy_until(&self) -> u64 {
        0
    }

    /// What is still running after cycle `now`, if anything: the latest to complete, as the
    /// address of the instruction that started it and a description.
    fn pending(&self, now: u64) -> Option<(u32, String)> {
        let _ = now;
        None
    }

    /// The work done so far.
    fn work(&self) -> Work {
        Work::default()
    }

    /// Its figures for a report of `run`.
    fn figures(&self, run: &Run) -> Figures {
        let _ = run;
        Figures { work: self.work(), ..Figures::default() }
    }
}

impl dyn Device {
    /// The device as its concrete type, for tests and reports that know it.
    pub fn downcast_ref<T: Device>(&self) -> Option<&T> {
        (self as &dyn Any).downcast_ref()
    }
}

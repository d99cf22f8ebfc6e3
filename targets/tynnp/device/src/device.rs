//! The NPU as the machine hosts it: its memories (DM, the VMs) join the map, custom-0..3 reach
//! its units, the DDR port it shares with the control unit sets the latency the core sees, and
//! core accesses are checked against the jobs in flight.

use crate::{
    desc::descriptor_words,
    engine::{Bus, Instruction, Npu},
};
use std::fmt::Write as _;
use umac_sim::{
    device::{Device, DeviceError, Figures, Outcome, Run, Work},
    memory::{Memory, RegionSpec},
};

impl Bus for Memory {
    fn region(&self, addr: u32) -> Option<(String, u32, u32)> {
        self.region_of(addr).map(|r| (r.name.clone(), r.base, r.bytes.len() as u32))
    }
    fn read(&self, addr: u32, len: u32) -> Option<Vec<u8>> {
        self.bytes(addr, len).ok().map(<[u8]>::to_vec)
    }
    fn write(&mut self, addr: u32, data: &[u8]) -> bool {
        self.write_bytes(addr, data).is_ok()
    }
    fn first_unwritten(&self, addr: u32, len: u32) -> Option<u32> {
        Memory::first_unwritten(self, addr, len)
    }
}

impl Device for Npu {
    fn name(&self) -> &str {
        "tynnp"
    }

    fn regions(&self) -> Vec<RegionSpec> {
        self.params.device_regions()
    }

    fn ddr_latency(&self) -> Option<u32> {
        Some(self.params.ddr_latency)
    }

    fn custom_opcodes(&self) -> &[u8] {
        &[0, 1, 2, 3]
    }

    fn execute(
        &mut self,
        memory: &mut Memory,
        insn: umac_sim::device::Instruction,
        now: u64,
    ) -> Result<Outcome, DeviceError> {
        let opcode = insn.opcode();
        let (funct3, funct7, rs1, rs2, pc) = (insn.funct3, insn.funct7, insn.rs1, insn.rs2, insn.pc);
        let outcome = Npu::execute(self, memory, Instruction { opcode, funct3, funct7, rs1, rs2, pc }, now)?;
        // DMA, NU and VU instructions issue a job and return its token; writing the descriptor
        // out takes a cycle per word, the rest is waiting.
        let completes = (insn.custom < 3).then(|| self.end_of(outcome.rd)).flatten();
        let words = descriptor_words(opcode, funct3).unwrap_or(0) as u64;
        Ok(Outcome {
            value: outcome.rd,
            cycles: outcome.cycles,
            stall: outcome.cycles.saturating_sub(words),
            completes,
        })
    }

    fn check_access(&self, addr: u32, len: u32, write: bool, pc: u32) -> Result<(), DeviceError> {
        if self.jobs.is_empty() {
            return Ok(());
        }
        Ok(self.check_cu(addr, len, write, pc)?)
    }

    fn busy_until(&self) -> u64 {
        self.last_end()
    }

    fn pending(&self, now: u64) -> Option<(u32, String)> {
        let job = self.jobs.iter().filter(|j| j.end > now).max_by_key(|j| j.end)?;
        let what = format!(
            "{} (token {:#010x}, issued here) runs until cycle {}: wait for every job (npu.waitall) before returning",
            job.job.mnemonic(),
            job.token,
            job.end
        );
        Some((job.pc, what))
    }

    fn work(&self) -> Work {
        Work { macs: self.counters.macs, ddr_bytes: self.counters.ddr_bytes }
    }

    fn figures(&self, run: &Run) -> Figures {
        let cycles = run.cycles;
        let counters = &self.counters;
        let mut text = String::new();
        if !self.jobs.is_empty() {
            text.push_str(&self.summary(cycles));
            for ((from, to), bytes) in &counters.moved {
                let _ = writeln!(text, "  dma {from} -> {to}: {bytes} bytes");
            }
            let _ = writeln!(
                text,
                "  MACs {}, DDR bytes {}, CU waiting {} cycles (jobs) + {} (full queues)",
                counters.macs, counters.ddr_bytes, counters.wait_stalls, counters.queue_stalls
            );
        }
        Figures {
            work: self.work(),
            macs_per_cycle: self.params.macs_per_cycle(),
            ddr_bytes_per_cycle: u64::from(self.params.ddr_bytes_per_cycle),
            units: self.units.iter().map(|u| (u.name.clone(), u.count, u.busy)).collect(),
            bounds: if self.jobs.is_empty() { Vec::new() } else { crate::bound::unit_bounds(self, run.kernel_starts) },
            text,
        }
    }
}

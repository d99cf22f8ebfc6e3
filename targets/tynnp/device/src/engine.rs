//! The NPU's units as timed, asynchronous queues (targets/tynnp/docs/isa.md, section 4): the CU issues
//! jobs, each unit starts its jobs in order when their dependencies have completed, DMA jobs
//! share one DDR port, and every access is checked against happens-before.

use super::{
    compute::{Space, execute},
    cost::{cycles, ddr_transfer, dma_shape},
    desc::{Job, UnitKind, decode, descriptor_words, unit_kind},
    hazard::{Agent, Clock, Conflict, Shadow},
    params::Params,
};
use crate::error::NpuError;
use std::fmt::Write as _;

/// Memory as the NPU sees it: regions by name, bytes in and out.
pub trait Bus {
    /// The region holding `addr`: `(name, base, bytes)`.
    fn region(&self, addr: u32) -> Option<(String, u32, u32)>;
    /// `len` bytes at `addr` (`None` outside memory).
    fn read(&self, addr: u32, len: u32) -> Option<Vec<u8>>;
    /// Writes `data` at `addr` (`false` outside memory).
    fn write(&mut self, addr: u32, data: &[u8]) -> bool;
    /// The first address of `[addr, addr + len)` no one wrote, if the memory keeps that record.
    fn first_unwritten(&self, addr: u32, len: u32) -> Option<u32> {
        let _ = (addr, len);
        None
    }
}

/// One unit.
#[derive(Clone, Debug)]
pub struct Unit {
    /// `dma0`, `nu`, `vu2`, ...
    pub name: String,
    /// The unit field of its tokens.
    pub token_unit: u32,
    /// Index of the VU (its VM), for VUs.
    vu: Option<u32>,
    next_seq: u32,
    busy_until: u64,
    /// Its jobs, in issue order (indices into `Npu::jobs`).
    jobs: Vec<usize>,
    /// Cycles busy, jobs run.
    pub busy: u64,
    /// Jobs issued to it.
    pub count: u64,
}

/// A job issued to a unit.
#[derive(Clone, Debug)]
pub struct Issued {
    /// Its token.
    pub token: u32,
    /// Index of its unit.
    pub unit: usize,
    /// Sequence number on the unit.
    pub seq: u32,
    /// What it does.
    pub job: Job,
    /// The issuing instruction's address.
    pub pc: u32,
    /// Cycle it was issued, started, completed.
    pub issued: u64,
    /// Cycle it started.
    pub start: u64,
    /// Cycle it completed.
    pub end: u64,
    clock: Clock,
}

/// Counters over a whole run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// Useful MACs.
    pub macs: u64,
    /// Bytes DMA moved, per `(from, to)` region kind.
    pub moved: Vec<((String, String), u64)>,
    /// Bytes moved through the DDR port.
    pub ddr_bytes: u64,
    /// CU cycles spent waiting for jobs.
    pub wait_stalls: u64,
    /// CU cycles spent waiting for a queue slot.
    pub queue_stalls: u64,
}

/// The NPU: its units, the jobs issued so far, what the CU knows, the shadow memory.
pub struct Npu {
    /// Its parameters.
    pub params: Params,
    /// Its units: DMA channels, the NU, the VUs.
    pub units: Vec<Unit>,
    /// Every job issued.
    pub jobs: Vec<Issued>,
    /// Run-wide counters.
    pub counters: Counters,
    cu: Clock,
    shadow: Shadow,
    /// Busy intervals of the DDR port, sorted.
    port: Vec<(u64, u64)>,
}

/// An NPU instruction as the CU decoded it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Instruction {
    /// 0x0B, 0x2B, 0x5B or 0x7B.
    pub opcode: u8,
    /// Its funct3.
    pub funct3: u8,
    /// Its funct7.
    pub funct7: u8,
    /// The value of rs1.
    pub rs1: u32,
    /// The value of rs2.
    pub rs2: u32,
    /// Its address.
    pub pc: u32,
}

/// What the CU sees of an NPU instruction: the value for `rd` and the cycles it took (stalls
/// included).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The value written to `rd`.
    pub rd: u32,
    /// CU cycles the instruction took beyond the one every instruction takes.
    pub cycles: u64,
}

fn region_kind(name: &str) -> String {
    if name.starts_with("vm") { "vm".into() } else { name.into() }
}

struct View<'a> {
    bus: &'a dyn Bus,
    allowed: &'a dyn Fn(&str) -> bool,
    what: &'a str,
}

impl Space for View<'_> {
    fn read(&self, addr: u32, len: u32) -> Result<Vec<u8>, NpuError> {
        check_range(self.bus, addr, len, self.allowed, self.what)?;
        check_written(self.bus, addr, len, self.what)?;
        self.bus
            .read(addr, len)
            .ok_or_else(|| NpuError::Memory(format!("{} reads outside memory at {addr:#010x}", self.what)))
    }
}

/// A copy whose source and destination overlap is undefined (isa.md, section 5): an error naming
/// the first byte both touch.
fn check_disjoint(reads: &[(u32, u32)], writes: &[(u32, Vec<u8>)], what: &str) -> Result<(), NpuError> {
    // The sources as sorted, disjoint intervals: their ends are sorted too.
    let mut sources: Vec<(u64, u64)> =
        reads.iter().map(|&(a, n)| (u64::from(a), u64::from(a) + u64::from(n))).collect();
    sources.sort_unstable();
    let mut merged: Vec<(u64, u64)> = Vec::with_capacity(sources.len());
    for (s, e) in sources {
        match merged.last_mut() {
            Some(last) if s <= last.1 => last.1 = last.1.max(e),
            _ => merged.push((s, e)),
        }
    }
    for (addr, data) in writes {
        let (start, end) = (u64::from(*addr), u64::from(*addr) + data.len() as u64);
        let first = merged.partition_point(|m| m.1 <= start);
        if let Some(&(s, _)) = merged.get(first).filter(|m| m.0 < end) {
            return Err(NpuError::Hazard(format!(
                "{what}: its source and its destination [{start:#010x}, {end:#010x}) overlap at {:#010x}, which \
                 the contract leaves undefined",
                s.max(start)
            )));
        }
    }
    Ok(())
}

/// Reading a byte no one wrote is an error: on hardware it would be whatever the memory held.
fn check_written(bus: &dyn Bus, addr: u32, len: u32, what: &str) -> Result<(), NpuError> {
    match bus.first_unwritten(addr, len) {
        Some(at) => {
            let region = bus.region(at).map(|r| format!(" ({} + {:#x})", r.0, at - r.1)).unwrap_or_default();
            Err(NpuError::Memory(format!(
                "{what} reads [{addr:#010x}, +{len}), whose byte at {at:#010x}{region} no one wrote"
            )))
        }
        None => Ok(()),
    }
}

fn check_range(bus: &dyn Bus, addr: u32, len: u32, allowed: &dyn Fn(&str) -> bool, what: &str) -> Result<(), NpuError> {
    let Some((name, base, size)) = bus.region(addr) else {
        return Err(NpuError::Memory(format!("{what} accesses {addr:#010x}, which is in no memory")));
    };
    if u64::from(addr) + u64::from(len) > u64::from(base) + u64::from(size) {
        return Err(NpuError::Memory(format!(
            "{what} accesses [{addr:#010x}, +{len}), which crosses the end of {name}"
        )));
    }
    if !allowed(&name) {
        return Err(NpuError::Memory(format!("{what} accesses {addr:#010x} in {name}, which it cannot reach")));
    }
    Ok(())
}

impl Npu {
    /// An idle NPU.
    pub fn new(params: Params) -> Npu {
        let mut units = Vec::new();
        let unit = |name: String, token_unit, vu| Unit {
            name,
            token_unit,
            vu,
            next_seq: 1,
            busy_until: 0,
            jobs: Vec::new(),
            busy: 0,
            count: 0,
        };
        for k in 0..params.dma_channels {
            units.push(unit(format!("dma{k}"), k, None));
        }
        units.push(unit("nu".into(), 0x10, None));
        for k in 0..params.vu_count {
            units.push(unit(format!("vu{k}"), 0x20 + k, Some(k)));
        }
        let n = units.len();
        Npu {
            params,
            units,
            jobs: Vec::new(),
            counters: Counters::default(),
            cu: Clock::new(n),
            shadow: Shadow::new(n),
            port: Vec::new(),
        }
    }

    /// The job a token names.
    pub fn job_of(&self, token: u32) -> Option<usize> {
        let unit = self.units.iter().position(|u| u.token_unit == token >> 24)?;
        let seq = token & 0x00ff_ffff;
        self.units[unit].jobs.get((seq as usize).checked_sub(1)?).copied()
    }

    /// The cycle the job a token names completes.
    pub fn end_of(&self, token: u32) -> Option<u64> {
        self.job_of(token).map(|job| self.jobs[job].end)
    }

    fn describe(&self, agent: &Agent) -> String {
        let job = &self.jobs[agent.job];
        format!("{} (token {:#010x}, issued at pc {:#010x})", job.job.mnemonic(), job.token, job.pc)
    }

    fn conflict(&self, who: &str, access: &str, c: Conflict) -> NpuError {
        NpuError::Hazard(format!(
            "hazard ({}): {who} {access} [{:#010x}, {:#010x}), which {} {} and which did not happen before it \
             (no dependency token or wait orders them)",
            c.kind,
            c.start,
            c.end,
            self.describe(&c.other),
            if c.kind == "write-after-read" { "reads" } else { "writes" }
        ))
    }

    /// The earliest time at or after `ready` when the DDR port is free for `length` cycles;
    /// reserves it.
    fn reserve_port(&mut self, ready: u64, length: u64) -> u64 {
        let mut at = ready;
        for &(s, e) in &self.port {
            if at + length <= s {
                break;
            }
            at = at.max(e);
        }
        let index = self.port.partition_point(|&(s, _)| s < at);
        self.port.insert(index, (at, at + length));
        at
    }

    /// Executes an NPU instruction the CU issues at cycle `now`. Errors stop the run.
    pub fn execute(&mut self, bus: &mut dyn Bus, insn: Instruction, now: u64) -> Result<Outcome, NpuError> {
        let Instruction { opcode, funct3, funct7, rs1, rs2, pc } = insn;
        if opcode == 0x7B {
            return self.sync(funct3, funct7, rs1, now);
        }
        let words = descriptor_words(opcode, funct3).ok_or_else(|| {
            NpuError::Malformed(format!("no NPU instruction has opcode {opcode:#04x} and funct3 {funct3}"))
        })?;
        if rs1 % 4 != 0 {
            return Err(NpuError::Malformed(format!("descriptor address {rs1:#010x} is not 4-byte aligned")));
        }
        let descriptor_place = |name: &str| name == "dmem" || name == "dm";
        check_range(bus, rs1, 4 * words as u32, &descriptor_place, "the descriptor")?;
        check_written(bus, rs1, 4 * words as u32, "the NPU reading the descriptor")?;
        let raw =
            bus.read(rs1, 4 * words as u32).ok_or_else(|| NpuError::Memory("descriptor outside memory".into()))?;
        let w: Vec<u32> = raw.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        if let Some(conflict) = self.shadow.check_read(rs1, 4 * words as u32, &self.cu, None) {
            return Err(self.conflict("the CU", "reads the descriptor at", conflict));
        }
        let (deps, job) = decode(opcode, funct3, funct7, &w)?;
        let kind = unit_kind(opcode).expect("a job opcode");
        let unit = match kind {
            UnitKind::Dma if rs2 < self.params.dma_channels => rs2 as usize,
            UnitKind::Dma => {
                return Err(NpuError::Malformed(format!(
                    "DMA channel {rs2} does not exist ({} channels)",
                    self.params.dma_channels
                )));
            }
            UnitKind::Nu => self.params.dma_channels as usize,
            UnitKind::Vu if rs2 < self.params.vu_count => (self.params.dma_channels + 1 + rs2) as usize,
            UnitKind::Vu => {
                return Err(NpuError::Malformed(format!("VU {rs2} does not exist ({} VUs)", self.params.vu_count)));
            }
        };
        let what = format!("{} on {}", job.mnemonic(), self.units[unit].name);
        // What the unit can reach.
        let vu = self.units[unit].vu;
        let allowed = move |name: &str| match kind {
            UnitKind::Dma => name == "ddr" || name == "dm" || name.starts_with("vm"),
            UnitKind::Nu => name == "dm",
            UnitKind::Vu => name == "dm" || vu.is_some_and(|k| name == format!("vm{k}")),
        };
        // Timing and knowledge: after the queue has room, the unit is free and the
        // dependencies have completed.
        let mut now = now;
        let mut stall = 0;
        let queued: Vec<u64> =
            self.units[unit].jobs.iter().map(|&j| self.jobs[j].start).filter(|&start| start > now).collect();
        let depth = self.params.queue_depth as usize;
        if queued.len() >= depth {
            let free_at = queued[queued.len() - depth];
            stall = free_at - now;
            now = free_at;
            self.counters.queue_stalls += stall;
        }
        let mut clock = self.cu.clone();
        let mut ready = now.max(self.units[unit].busy_until);
        for dep in deps.into_iter().filter(|&d| d != 0) {
            let j = self
                .job_of(dep)
                .ok_or_else(|| NpuError::Malformed(format!("dependency token {dep:#010x} was never issued")))?;
            let dep = &self.jobs[j];
            clock.join(&dep.clock);
            clock.learn(dep.unit, dep.seq);
            ready = ready.max(dep.end);
        }
        if let Some(&previous) = self.units[unit].jobs.last() {
            let p = &self.jobs[previous];
            clock.join(&p.clock);
            clock.learn(p.unit, p.seq);
        }
        // The data: read at issue (see hazard.rs), checked and recorded.
        let effect = execute(&job, &self.params, &View { bus, allowed: &allowed, what: &what })?;
        if matches!(job, Job::Copy(_)) {
            check_disjoint(&effect.reads, &effect.writes, &what)?;
        }
        let index = self.jobs.len();
        let seq = self.units[unit].next_seq;
        if seq > 0x00ff_ffff {
            return Err(NpuError::Limit(format!(
                "{what}: more than 2^24 - 1 jobs on one unit (their tokens would collide)"
            )));
        }
        let agent = Agent { job: index, unit, seq };
        for &(addr, len) in &effect.reads {
            if let Some(c) = self.shadow.check_read(addr, len, &clock, Some(index)) {
                return Err(self.conflict(&format!("{what} (issued at pc {pc:#010x})"), "reads", c));
            }
        }
        for (addr, data) in &effect.writes {
            check_range(bus, *addr, data.len() as u32, &allowed, &what)?;
            if let Some(c) = self.shadow.check_write(*addr, data.len() as u32, &clock, Some(index)) {
                return Err(self.conflict(&format!("{what} (issued at pc {pc:#010x})"), "writes", c));
            }
        }
        for &(addr, len) in &effect.reads {
            self.shadow.record_read(addr, len, agent);
        }
        let mut touches_ddr = false;
        for (addr, data) in &effect.writes {
            self.shadow.record_write(*addr, data.len() as u32, agent);
            if !bus.write(*addr, data) {
                return Err(NpuError::Memory(format!("{what} writes outside memory at {addr:#010x}")));
            }
        }
        if let Some((bytes, _)) = dma_shape(&job) {
            let (from, to) = match &job {
                Job::Copy(c) => {
                    (bus.region(c.src).map(|r| region_kind(&r.0)), bus.region(c.dst).map(|r| region_kind(&r.0)))
                }
                Job::Fill(f) => (Some("fill".to_string()), bus.region(f.dst).map(|r| region_kind(&r.0))),
                _ => (None, None),
            };
            touches_ddr = from.as_deref() == Some("ddr") || to.as_deref() == Some("ddr");
            let key = (from.unwrap_or_default(), to.unwrap_or_default());
            match self.counters.moved.iter_mut().find(|(k, _)| *k == key) {
                Some((_, n)) => *n += bytes,
                None => self.counters.moved.push((key, bytes)),
            }
            if touches_ddr {
                self.counters.ddr_bytes += bytes;
            }
        }
        let start = ready;
        let busy = cycles(&job, &self.params, touches_ddr);
        let end = if touches_ddr {
            let (bytes, lines) = dma_shape(&job).unwrap_or_default();
            let length = ddr_transfer(bytes, &self.params);
            let at = self.reserve_port(start + u64::from(self.params.ddr_latency), length);
            at + length + lines
        } else {
            start + busy
        };
        self.counters.macs += effect.macs;
        let token = self.units[unit].token_unit << 24 | seq;
        let u = &mut self.units[unit];
        u.next_seq += 1;
        u.busy_until = end;
        u.busy += end - start;
        u.count += 1;
        u.jobs.push(index);
        self.jobs.push(Issued { token, unit, seq, job, pc, issued: now, start, end, clock });
        Ok(Outcome { rd: token, cycles: stall + words as u64 })
    }

    /// `npu.wait`, `npu.poll`, `npu.waitall`, `npu.param`.
    fn sync(&mut self, funct3: u8, funct7: u8, rs1: u32, now: u64) -> Result<Outcome, NpuError> {
        if funct7 != 0 {
            return Err(NpuError::Malformed(format!("reserved funct7 {funct7} of a synchronisation instruction")));
        }
        let job = |npu: &Npu| {
            npu.job_of(rs1).ok_or_else(|| NpuError::Malformed(format!("token {rs1:#010x} was never issued")))
        };
        match funct3 {
            0 => {
                let j = job(self)?;
                let end = self.jobs[j].end;
                self.learn(j);
                let stall = end.saturating_sub(now);
                self.counters.wait_stalls += stall;
                Ok(Outcome { rd: 0, cycles: stall })
            }
            1 => {
                let j = job(self)?;
                let done = self.jobs[j].end <= now;
                if done {
                    self.learn(j);
                }
                Ok(Outcome { rd: u32::from(done), cycles: 0 })
            }
            2 => {
                let end = self.jobs.iter().map(|j| j.end).max().unwrap_or(0);
                for j in 0..self.jobs.len() {
                    self.learn(j);
                }
                let stall = end.saturating_sub(now);
                self.counters.wait_stalls += stall;
                Ok(Outcome { rd: 0, cycles: stall })
            }
            3 => Ok(Outcome { rd: self.params.param(rs1), cycles: 0 }),
            _ => Err(NpuError::Malformed(format!("no synchronisation instruction has funct3 {funct3}"))),
        }
    }

    fn learn(&mut self, j: usize) {
        let (unit, seq, clock) = (self.jobs[j].unit, self.jobs[j].seq, self.jobs[j].clock.clone());
        self.cu.join(&clock);
        self.cu.learn(unit, seq);
    }

    /// Checks a CU load (`write` false) or store of `[addr, addr + len)` against the jobs the CU
    /// has not synchronised with.
    pub fn check_cu(&self, addr: u32, len: u32, write: bool, pc: u32) -> Result<(), NpuError> {
        if self.shadow.is_empty() {
            return Ok(());
        }
        let conflict = if write {
            self.shadow.check_write(addr, len, &self.cu, None)
        } else {
            self.shadow.check_read(addr, len, &self.cu, None)
        };
        match conflict {
            Some(c) => {
                Err(self.conflict(&format!("the CU at pc {pc:#010x}"), if write { "writes" } else { "reads" }, c))
            }
            None => Ok(()),
        }
    }

    /// The cycle the last job completes (0 without jobs).
    pub fn last_end(&self) -> u64 {
        self.jobs.iter().map(|j| j.end).max().unwrap_or(0)
    }

    /// A per-unit summary for reports.
    pub fn summary(&self, total_cycles: u64) -> String {
        let mut text = String::new();
        for u in &self.units {
            let share = if total_cycles == 0 { 0.0 } else { 100.0 * u.busy as f64 / total_cycles as f64 };
            let _ = writeln!(text, "  {:<6} {:>6} jobs {:>12} busy cycles ({share:.1}%)", u.name, u.count, u.busy);
        }
        text
    }
}

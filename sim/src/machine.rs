//! The simulated machine: the CU (an RV32IM(C) core with the timing of targets/tynnp/docs/isa.md,
//! section 3), the memory map and the devices it hosts (behind the custom instructions or
//! mapped registers, see `device.rs`). Runs whole programs (until they exit through
//! semihosting) or calls one function.

use crate::{
    device::{Device, Instruction, Work},
    memory::{Fault, Memory},
    rv32::{Inst, decode},
};
use std::fmt;

mod devices;

pub use devices::AttachError;

/// The address `call` puts in `ra`: returning there ends the call. It is in no memory.
pub const RETURN_ADDRESS: u32 = 0xffff_fff0;

/// Why a run stopped early: what went wrong, at which instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stop {
    /// Address of the instruction.
    pub pc: u32,
    /// The function holding it, when known.
    pub function: Option<String>,
    /// What happened.
    pub message: String,
}

impl fmt::Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "pc {:#010x}", self.pc)?;
        if let Some(function) = &self.function {
            write!(f, " (in {function})")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for Stop {}

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// The program exited through semihosting with this status.
    Exited(i32),
    /// The called function returned.
    Returned,
}

/// A function of the loaded program, with what the CU spent in it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Function {
    pub name: String,
    pub start: u32,
    pub end: u32,
    /// Instructions retired and cycles spent with the pc inside it.
    pub instret: u64,
    pub cycles: u64,
    /// Of those cycles, the ones spent waiting for devices (a full queue, a wait).
    pub npu_stalls: u64,
}

/// One call of a function that issued custom instructions itself: a kernel, with what it cost
/// (the instructions it issued, the MACs and DDR bytes of the devices' work). It runs from its call
/// (`start`) until it returned and its jobs completed (`end`); kernels may run at once (a kernel
/// returning before its jobs complete, the next one's jobs running beside them), so `cycles`
/// counts the part of that span after the kernel before's: from its call, or from the end of
/// the kernel before when that is later, to its end. Over a run, kernels' `cycles` add up to at
/// most the run's.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Kernel {
    pub function: String,
    pub npu_instructions: u64,
    pub start: u64,
    pub end: u64,
    pub cycles: u64,
    pub macs: u64,
    pub ddr_bytes: u64,
}

/// A call in progress (entered with `ra` as the link register).
struct Frame {
    callee: u32,
    return_to: u32,
    cycles: u64,
    work: Work,
    npu_instructions: u64,
    /// When the last of the jobs it issued completes.
    jobs_end: u64,
}

/// A decoded instruction with what fetching it costs and the function holding it.
#[derive(Clone, Copy)]
struct Decoded {
    inst: Inst,
    fetch_cycles: u32,
    function: u32,
}

/// A range of memory whose instructions are decoded once.
struct Code {
    base: u32,
    end: u32,
    slots: Vec<Option<Decoded>>,
}

/// No function.
const NONE: u32 = u32::MAX;

/// The machine.
pub struct Machine {
    pub memory: Memory,
    /// The devices it hosts, in the order they were attached.
    pub devices: Vec<Box<dyn Device>>,
    /// For each custom opcode, the device that decodes it.
    custom: [Option<u8>; 4],
    /// Devices' register windows: `[start, end)` and the device.
    windows: Vec<(u32, u32, usize)>,
    /// Whether any device started work (from then on, core accesses are checked against it).
    started: bool,
    /// Integer registers (`x[0]` is always 0).
    pub x: [u32; 32],
    pub pc: u32,
    /// Cycles and instructions retired so far.
    pub cycles: u64,
    pub instret: u64,
    /// What the program wrote through semihosting (standard output and error, in order).
    pub output: Vec<u8>,
    /// Functions of the loaded program, sorted by address.
    pub functions: Vec<Function>,
    /// The NPU kernels run so far, in call order.
    pub kernels: Vec<Kernel>,
    frames: Vec<Frame>,
    /// Semihosting's open files.
    pub(crate) semihost: crate::semihost::State,
    csrs: Vec<(u16, u32)>,
    code: Vec<Code>,
    /// The code range of the last fetch.
    hint: usize,
}

/// Names of the control and status registers the core has besides the counters.
const MACHINE_CSRS: &[u16] = &[0x300, 0x304, 0x305, 0x340, 0x341, 0x342, 0x343, 0x344, 0x310, 0x30a];

impl Default for Machine {
    fn default() -> Self {
        Machine::new()
    }
}

impl Machine {
    /// The core alone with its memories (garbage from the default seed), pc 0.
    pub fn new() -> Machine {
        Machine::seeded(crate::memory::DEFAULT_SEED)
    }

    /// The core alone with its memories, their garbage from `seed`, pc 0.
    pub fn seeded(seed: u64) -> Machine {
        Machine {
            memory: Memory::seeded(seed),
            devices: Vec::new(),
            custom: [None; 4],
            windows: Vec::new(),
            started: false,
            x: [0; 32],
            pc: 0,
            cycles: 0,
            instret: 0,
            output: Vec::new(),
            functions: Vec::new(),
            kernels: Vec::new(),
            frames: Vec::new(),
            semihost: Default::default(),
            csrs: MACHINE_CSRS.iter().map(|&c| (c, 0)).collect(),
            code: Vec::new(),
            hint: 0,
        }
    }

    /// Marks `[start, end)` as code: its instructions are decoded once (stores into it undo that).
    pub fn add_code(&mut self, start: u32, end: u32) {
        let slots = ((end - start) as usize).div_ceil(2);
        self.code.push(Code { base: start, end, slots: vec![None; slots] });
    }

    /// Sets the functions of the program (any order; overlapping ones are not expected).
    pub fn set_functions(&mut self, mut functions: Vec<Function>) {
        functions.sort_by_key(|f| f.start);
        self.functions = functions;
        for code in &mut self.code {
            code.slots.iter_mut().for_each(|s| *s = None);
        }
    }

    /// The function holding `pc`.
    pub fn function_at(&self, pc: u32) -> Option<&Function> {
        self.functions.get(self.function_index(pc) as usize)
    }

    /// The index of the function holding `pc`, or NONE.
    fn function_index(&self, pc: u32) -> u32 {
        match self.functions.partition_point(|f| f.start <= pc).checked_sub(1) {
            Some(i) if pc < self.functions[i].end => i as u32,
            _ => NONE,
        }
    }

    fn stop(&self, pc: u32, message: String) -> Stop {
        Stop { pc, function: self.function_at(pc).map(|f| f.name.clone()), message }
    }

    fn fault(&self, pc: u32, what: &str, f: Fault) -> Stop {
        let message = match self.memory.region_of(f.addr) {
            Some(r) => format!("{what} of {} bytes at {:#010x} crosses the end of {}", f.len, f.addr, r.name),
            None => format!("{what} of {} bytes at {:#010x}, which is in no memory", f.len, f.addr),
        };
        self.stop(pc, message)
    }

    /// Fetches and decodes the instruction at `pc`: from the code range that served the last
    /// fetch when it is decoded there already, else the slow way.
    #[inline(always)]
    fn fetch(&mut self, pc: u32) -> Result<Decoded, Stop> {
        if let Some(code) = self.code.get(self.hint) {
            let offset = pc.wrapping_sub(code.base);
            if offset < code.end - code.base
                && let Some(d) = code.slots[(offset >> 1) as usize]
            {
                return Ok(d);
            }
        }
        self.fetch_slow(pc)
    }

    #[cold]
    fn fetch_slow(&mut self, pc: u32) -> Result<Decoded, Stop> {
        let slot = self.code.iter().position(|c| pc >= c.base && pc < c.end).map(|c| (c, (pc - self.code[c].base) / 2));
        if let Some((c, _)) = slot {
            self.hint = c;
        }
        if !pc.is_multiple_of(2) {
            return Err(self.stop(pc, "instruction address is not 2-byte aligned".into()));
        }
        let (low, region) = self.memory.load(pc, 2).map_err(|f| self.fault(pc, "instruction fetch", f))?;
        let fetch_cycles = region.fetch_cycles;
        let word = if low & 3 == 3 {
            let (high, _) = self.memory.load(pc + 2, 2).map_err(|f| self.fault(pc, "instruction fetch", f))?;
            low | high << 16
        } else {
            low
        };
        let inst = decode(word).map_err(|raw| self.stop(pc, format!("illegal instruction {raw:#010x}")))?;
        let function = self.function_index(pc);
        let d = Decoded { inst, fetch_cycles, function };
        if let Some((c, i)) = slot {
            self.code[c].slots[i as usize] = Some(d);
        }
        Ok(d)
    }

    fn load(&mut self, pc: u32, addr: u32, len: u32) -> Result<(u32, u64), Stop> {
        let (value, cycles) = match self.memory.load(addr, len) {
            Ok((value, region)) => (value, region.load_cycles),
            Err(f) => match self.window(addr) {
                Some(device) => return self.register_access(pc, device, addr, len, None),
                None => return Err(self.fault(pc, "load", f)),
            },
        };
        if self.started {
            self.check(pc, addr, len, false)?;
        }
        Ok((value, cycles))
    }

    /// A core store; its extra cycles (a device register's).
    fn store(&mut self, pc: u32, addr: u32, len: u32, value: u32) -> Result<u64, Stop> {
        if self.started {
            self.check(pc, addr, len, true)?;
        }
        // One lookup: a store outside memory may be to a device's registers.
        if let Err(f) = self.memory.store(addr, len, value) {
            return match self.window(addr) {
                Some(device) => self.register_access(pc, device, addr, len, Some(value)).map(|(_, cycles)| cycles),
                None => Err(self.fault(pc, "store", f)),
            };
        }
        for code in &mut self.code {
            if addr < code.end && addr + len > code.base {
                let first = (addr.max(code.base) - code.base) / 2;
                let last = ((addr + len).min(code.end) - code.base).div_ceil(2);
                // An instruction starting up to 2 bytes before the store overlaps it too.
                for i in first.saturating_sub(1)..last {
                    code.slots[i as usize] = None;
                }
            }
        }
        Ok(0)
    }

    fn csr_read(&self, pc: u32, csr: u16) -> Result<u32, Stop> {
        Ok(match csr {
            0xc00 | 0xb00 | 0xc01 => self.cycles as u32,
            0xc80 | 0xb80 | 0xc81 => (self.cycles >> 32) as u32,
            0xc02 | 0xb02 => self.instret as u32,
            0xc82 | 0xb82 => (self.instret >> 32) as u32,
            // RV32 with A, C, I, M.
            0x301 => 1 << 30 | 1 | 1 << 2 | 1 << 8 | 1 << 12,
            0xf11..=0xf15 => 0,
            _ => match self.csrs.iter().find(|(c, _)| *c == csr) {
                Some(&(_, v)) => v,
                None => return Err(self.stop(pc, format!("CSR {csr:#05x} does not exist on this core"))),
            },
        })
    }

    fn csr_write(&mut self, pc: u32, csr: u16, value: u32) -> Result<(), Stop> {
        match csr {
            0x301 => {} // misa: WARL, fixed.
            0xb00 => self.cycles = (self.cycles & !0xffff_ffff) | u64::from(value),
            0xb80 => self.cycles = (self.cycles & 0xffff_ffff) | u64::from(value) << 32,
            0xb02 => self.instret = (self.instret & !0xffff_ffff) | u64::from(value),
            0xb82 => self.instret = (self.instret & 0xffff_ffff) | u64::from(value) << 32,
            _ => match self.csrs.iter_mut().find(|(c, _)| *c == csr) {
                Some(entry) => entry.1 = value,
                None => return Err(self.stop(pc, format!("CSR {csr:#05x} cannot be written on this core"))),
            },
        }
        Ok(())
    }

    /// Runs until the program exits, `pc` reaches [`RETURN_ADDRESS`], or `limit` instructions
    /// have retired (an error: a program that does not end).
    pub fn run(&mut self, limit: u64) -> Result<Exit, Stop> {
        let stop_at = self.instret.saturating_add(limit);
        loop {
            if self.pc == RETURN_ADDRESS {
                return Ok(Exit::Returned);
            }
            if self.instret >= stop_at {
                return Err(self.stop(self.pc, format!("no exit after {limit} instructions")));
            }
            if let Some(status) = self.step()? {
                return Ok(Exit::Exited(status));
            }
        }
    }

    /// Calls the function at `entry` with up to eight integer arguments, the stack pointer at
    /// `stack_top`; runs until it returns. Returns `a0`.
    pub fn call(&mut self, entry: u32, args: &[u32], stack_top: u32, limit: u64) -> Result<u32, Stop> {
        assert!(args.len() <= 8, "at most eight register arguments");
        self.frames.clear();
        self.x[1] = RETURN_ADDRESS;
        self.x[2] = stack_top;
        for (i, a) in args.iter().enumerate() {
            self.x[10 + i] = *a;
        }
        self.pc = entry;
        match self.run(limit)? {
            Exit::Returned if self.devices_busy_until() > self.cycles => {
                let now = self.cycles;
                let (pc, what) = self
                    .devices
                    .iter()
                    .filter(|d| d.busy_until() > now)
                    .max_by_key(|d| d.busy_until())
                    .and_then(|d| d.pending(now))
                    .unwrap_or((self.pc, "a device's work".into()));
                Err(self.stop(pc, format!("the call returned at cycle {now} while {what}")))
            }
            Exit::Returned => Ok(self.x[10]),
            Exit::Exited(status) => {
                Err(self.stop(self.pc, format!("the program exited with status {status} inside the call")))
            }
        }
    }

    /// Executes the instruction at `pc`; `Some(status)` when the program exited.
    #[inline]
    pub fn step(&mut self) -> Result<Option<i32>, Stop> {
        let pc = self.pc;
        let d = self.fetch(pc)?;
        let Inst { op, rd, rs1, rs2, imm, len, .. } = d.inst;
        let a = self.x[usize::from(rs1 & 31)];
        let b = self.x[usize::from(rs2 & 31)];
        let mut next = pc.wrapping_add(u32::from(len));
        let mut extra = u64::from(d.fetch_cycles);
        let mut stall = 0;
        let mut exit = None;
        use crate::rv32::Op::*;
        let value: Option<u32> = match op {
            Lui => Some(imm as u32),
            Auipc => Some(pc.wrapping_add(imm as u32)),
            Jal | Jalr => {
                let target = if op == Jal { pc.wrapping_add(imm as u32) } else { a.wrapping_add(imm as u32) & !1 };
                next = target;
                extra += 1;
                let link = pc.wrapping_add(u32::from(len));
                if rd == 1 {
                    self.enter(target, link);
                } else if rd == 0 && rs1 == 1 && op == Jalr {
                    self.leave(target, extra + 1);
                } else if rd == 0 && d.function != NONE && !self.inside(d.function, target) {
                    self.tail_call(target);
                }
                Some(link)
            }
            Beq | Bne | Blt | Bge | Bltu | Bgeu => {
                let taken = match op {
                    Beq => a == b,
                    Bne => a != b,
                    Blt => (a as i32) < (b as i32),
                    Bge => (a as i32) >= (b as i32),
                    Bltu => a < b,
                    _ => a >= b,
                };
                if taken {
                    next = pc.wrapping_add(imm as u32);
                    extra += 1;
                }
                None
            }
            Lb | Lh | Lw | Lbu | Lhu => {
                let size = match op {
                    Lb | Lbu => 1,
                    Lh | Lhu => 2,
                    _ => 4,
                };
                let (v, c) = self.load(pc, a.wrapping_add(imm as u32), size)?;
                extra += c;
                Some(match op {
                    Lb => v as u8 as i8 as u32,
                    Lh => v as u16 as i16 as u32,
                    _ => v,
                })
            }
            Sb | Sh | Sw => {
                let size = match op {
                    Sb => 1,
                    Sh => 2,
                    _ => 4,
                };
                extra += self.store(pc, a.wrapping_add(imm as u32), size, b)?;
                None
            }
            Addi => Some(a.wrapping_add(imm as u32)),
            Slti => Some(u32::from((a as i32) < imm)),
            Sltiu => Some(u32::from(a < imm as u32)),
            Xori => Some(a ^ imm as u32),
            Ori => Some(a | imm as u32),
            Andi => Some(a & imm as u32),
            Slli => Some(a << (imm & 31)),
            Srli => Some(a >> (imm & 31)),
            Srai => Some(((a as i32) >> (imm & 31)) as u32),
            Add => Some(a.wrapping_add(b)),
            Sub => Some(a.wrapping_sub(b)),
            Sll => Some(a << (b & 31)),
            Slt => Some(u32::from((a as i32) < (b as i32))),
            Sltu => Some(u32::from(a < b)),
            Xor => Some(a ^ b),
            Srl => Some(a >> (b & 31)),
            Sra => Some(((a as i32) >> (b & 31)) as u32),
            Or => Some(a | b),
            And => Some(a & b),
            Fence => None,
            Ecall => return Err(self.stop(pc, "ecall: this core has no environment to call (use semihosting)".into())),
            Ebreak => {
                if self.is_semihosting(pc) {
                    match crate::semihost::call(self, pc)? {
                        crate::semihost::Outcome::Exit(status) => exit = Some(status),
                        crate::semihost::Outcome::Return(result) => self.x[10] = result,
                    }
                    None
                } else {
                    return Err(self.stop(pc, "ebreak".into()));
                }
            }
            Mret => {
                next = self.csr_read(pc, 0x341)?;
                None
            }
            Wfi => return Err(self.stop(pc, "wfi: this core has no interrupts, so it would wait forever".into())),
            Csrrw | Csrrs | Csrrc | Csrrwi | Csrrsi | Csrrci => {
                let csr = imm as u16;
                let source = if matches!(op, Csrrw | Csrrs | Csrrc) { a } else { u32::from(rs1) };
                // csrrw with rd = x0 does not read; csrrs/csrrc with rs1 = x0 do not write.
                let old = if matches!(op, Csrrw | Csrrwi) && rd == 0 { 0 } else { self.csr_read(pc, csr)? };
                let new = match op {
                    Csrrw | Csrrwi => Some(source),
                    Csrrs | Csrrsi => (rs1 != 0).then_some(old | source),
                    _ => (rs1 != 0).then_some(old & !source),
                };
                if let Some(new) = new {
                    self.csr_write(pc, csr, new)?;
                }
                Some(old)
            }
            Mul => Some(a.wrapping_mul(b)).inspect(|_| extra += 1),
            Mulh => Some(((i64::from(a as i32) * i64::from(b as i32)) >> 32) as u32).inspect(|_| extra += 1),
            Mulhsu => Some(((i64::from(a as i32) * i64::from(b)) >> 32) as u32).inspect(|_| extra += 1),
            Mulhu => Some(((u64::from(a) * u64::from(b)) >> 32) as u32).inspect(|_| extra += 1),
            Div | Divu | Rem | Remu => {
                extra += 33;
                Some(match op {
                    Div if b == 0 => u32::MAX,
                    Div => (a as i32).wrapping_div(b as i32) as u32,
                    Divu if b == 0 => u32::MAX,
                    Divu => a / b,
                    Rem if b == 0 => a,
                    Rem => (a as i32).wrapping_rem(b as i32) as u32,
                    _ if b == 0 => a,
                    _ => a % b,
                })
            }
            LrW => {
                let (v, c) = self.load(pc, a, 4)?;
                extra += c;
                Some(v)
            }
            ScW => {
                // One hart, no interrupts: the reservation always holds.
                extra += self.store(pc, a, 4, b)?;
                Some(0)
            }
            AmoswapW | AmoaddW | AmoxorW | AmoandW | AmoorW | AmominW | AmomaxW | AmominuW | AmomaxuW => {
                let (old, c) = self.load(pc, a, 4)?;
                extra += c;
                let new = match op {
                    AmoswapW => b,
                    AmoaddW => old.wrapping_add(b),
                    AmoxorW => old ^ b,
                    AmoandW => old & b,
                    AmoorW => old | b,
                    AmominW => (old as i32).min(b as i32) as u32,
                    AmomaxW => (old as i32).max(b as i32) as u32,
                    AmominuW => old.min(b),
                    _ => old.max(b),
                };
                extra += self.store(pc, a, 4, new)?;
                Some(old)
            }
            Custom { k, funct3, funct7 } => {
                let Some(device) = self.custom[usize::from(k & 3)] else {
                    return Err(self.stop(pc, format!("illegal instruction: no device decodes custom-{k}")));
                };
                let insn = Instruction { custom: k, funct3, funct7, rs1: a, rs2: b, pc };
                let now = self.cycles;
                let outcome = self.devices[usize::from(device)]
                    .execute(&mut self.memory, insn, now)
                    .map_err(|e| self.device_error(pc, e))?;
                self.started = true;
                if let Some(frame) = self.frames.last_mut() {
                    frame.npu_instructions += 1;
                    frame.jobs_end = frame.jobs_end.max(outcome.completes.unwrap_or(0));
                }
                stall = outcome.stall;
                extra += outcome.cycles;
                Some(outcome.value)
            }
        };
        if let Some(v) = value
            && rd != 0
        {
            self.x[usize::from(rd & 31)] = v;
        }
        let cycles = 1 + extra;
        self.cycles += cycles;
        self.instret += 1;
        if d.function != NONE {
            let f = &mut self.functions[d.function as usize];
            f.instret += 1;
            f.cycles += cycles;
            f.npu_stalls += stall;
        }
        self.pc = next;
        Ok(exit)
    }

    /// A call of `target` returning to `link`.
    fn enter(&mut self, target: u32, link: u32) {
        let callee = self.function_index(target);
        let work = if self.devices.is_empty() { Work::default() } else { self.work() };
        let cycles = self.cycles;
        self.frames.push(Frame { callee, return_to: link, cycles, work, npu_instructions: 0, jobs_end: 0 });
    }

    /// Whether `target` is inside function `function` (an index, or NONE).
    fn inside(&self, function: u32, target: u32) -> bool {
        self.functions.get(function as usize).is_some_and(|f| (f.start..f.end).contains(&target))
    }

    /// A jump from a function to another function's start (a tail call): the current call ends and the callee's
    /// begins, returning where the current one would have.
    fn tail_call(&mut self, target: u32) {
        let callee = self.function_index(target);
        if self.functions.get(callee as usize).is_none_or(|f| f.start != target) {
            return;
        }
        // The callee returns through `ra`, where the current function would have.
        let link = self.x[1];
        self.leave(link, 0);
        self.enter(target, link);
    }

    /// A return to `target`, `cost` cycles from now: the calls returning there end (a tail call
    /// returns for its caller too), and those that issued custom instructions are kernels.
    fn leave(&mut self, target: u32, cost: u64) {
        let Some(depth) = self.frames.iter().rposition(|f| f.return_to == target) else { return };
        let c = if self.frames[depth..].iter().any(|f| f.npu_instructions > 0) { self.work() } else { Work::default() };
        for frame in self.frames.drain(depth..).rev() {
            if frame.npu_instructions == 0 {
                continue;
            }
            let end = (self.cycles + cost).max(frame.jobs_end);
            let before = self.kernels.iter().map(|k| k.end).max().unwrap_or(0);
            let after = before.clamp(frame.cycles, end);
            self.kernels.push(Kernel {
                function: self.functions.get(frame.callee as usize).map(|f| f.name.clone()).unwrap_or_default(),
                npu_instructions: frame.npu_instructions,
                start: frame.cycles,
                end,
                cycles: end - after,
                macs: c.macs - frame.work.macs,
                ddr_bytes: c.ddr_bytes - frame.work.ddr_bytes,
            });
        }
    }

    /// Whether the `ebreak` at `pc` is the middle of the semihosting sequence
    /// `slli x0, x0, 0x1f; ebreak; srai x0, x0, 7` (all uncompressed).
    fn is_semihosting(&self, pc: u32) -> bool {
        let word = |addr: u32| self.memory.load(addr, 4).ok().map(|(w, _)| w);
        word(pc) == Some(0x0010_0073)
            && word(pc.wrapping_sub(4)) == Some(0x01f0_1013)
            && word(pc + 4) == Some(0x4070_5013)
    }
}

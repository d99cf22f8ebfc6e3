//! The machine on programs assembled by LLVM's assembler and linked by `elf::link`: integer
//! semantics, the CU timing table, `instret`, compressed code, semihosting, faults, and an NPU
//! kernel whose schedule is computed by hand (then broken on purpose to see the hazard).

use crate::{
    device::{Device, DeviceError, Instruction, Outcome},
    elf::{Layout, link},
    machine::{Exit, Machine},
    memory::{DDR_BASE, DMEM_BASE, Memory, RegionSpec},
    testing::{STACK, assemble, call, load},
};

/// A machine with `source` linked in (code in IMEM, data in DDR), and a 256 KiB `dm` at
/// 0x1000_0000 from [`Waiter`].
fn machine(source: &str, attrs: &str) -> (Machine, crate::elf::Program) {
    load(Machine::with(vec![Box::new(Waiter::default())]).unwrap(), source, attrs)
}

/// A toy device: custom-3 funct3 0 starts work of `rs1` cycles, funct3 2 waits for all of it;
/// a memory of its own.
#[derive(Default)]
struct Waiter {
    until: u64,
    started_at: u32,
}

impl Device for Waiter {
    fn name(&self) -> &str {
        "waiter"
    }
    fn regions(&self) -> Vec<RegionSpec> {
        vec![RegionSpec { name: "dm".into(), base: 0x1000_0000, size: 256 << 10, load_cycles: 2, fetch_cycles: 0 }]
    }
    fn custom_opcodes(&self) -> &[u8] {
        &[3]
    }
    fn execute(&mut self, _: &mut Memory, insn: Instruction, now: u64) -> Result<Outcome, DeviceError> {
        match insn.funct3 {
            0 => {
                let end = now + u64::from(insn.rs1);
                self.until = self.until.max(end);
                self.started_at = insn.pc;
                Ok(Outcome { value: insn.rs1, completes: Some(end), ..Outcome::default() })
            }
            2 => {
                let stall = self.until.saturating_sub(now);
                Ok(Outcome { value: 0, cycles: stall, stall, completes: None })
            }
            f => Err(DeviceError(format!("no funct3 {f}"))),
        }
    }
    fn busy_until(&self) -> u64 {
        self.until
    }
    fn pending(&self, now: u64) -> Option<(u32, String)> {
        (self.until > now).then(|| (self.started_at, format!("the work started here runs until cycle {}", self.until)))
    }
}

/// A toy memory-mapped device with a clock of its own at half the core's: its register at
/// 0x4000_0000 reads that clock, a store to it takes the stored value of extra cycles.
struct Clock;

impl Device for Clock {
    fn name(&self) -> &str {
        "clock"
    }
    fn registers(&self) -> Option<(u32, u32)> {
        Some((0x4000_0000, 0x4000_0004))
    }
    fn access(&mut self, _: &mut Memory, _: u32, _: u32, value: Option<u32>, now: u64) -> Result<Outcome, DeviceError> {
        Ok(match value {
            None => Outcome { value: (now / 2) as u32, ..Outcome::default() },
            Some(v) => Outcome { cycles: u64::from(v), ..Outcome::default() },
        })
    }
}

#[test]
fn devices_attach_to_the_map_and_the_custom_opcodes() {
    let mut m = Machine::with(vec![Box::new(Waiter::default())]).unwrap();
    let err = m.attach(Box::new(Waiter::default())).unwrap_err().to_string();
    assert_eq!(err, "waiter and waiter both decode custom-3");
    struct Overlapping;
    impl Device for Overlapping {
        fn name(&self) -> &str {
            "overlapping"
        }
        fn regions(&self) -> Vec<RegionSpec> {
            vec![RegionSpec { name: "buf".into(), base: 0x1000_0000, size: 16, load_cycles: 0, fetch_cycles: 0 }]
        }
    }
    let err = m.attach(Box::new(Overlapping)).unwrap_err().to_string();
    assert!(err.starts_with("overlapping: region buf ([0x10000000, +0x10)) overlaps dm"), "{err}");
    // Registers inside a memory are refused.
    struct Inside;
    impl Device for Inside {
        fn name(&self) -> &str {
            "inside"
        }
        fn registers(&self) -> Option<(u32, u32)> {
            Some((0x1000_0100, 0x1000_0104))
        }
    }
    assert!(matches!(m.attach(Box::new(Inside)), Err(crate::AttachError::Registers { .. })));
    assert!(m.device::<Waiter>().is_some());
}

#[test]
fn a_call_returning_while_device_work_runs_is_an_error_where_it_started() {
    let source = "
        .globl f
        .type f, @function
        f:
        li t0, 500
        .insn r CUSTOM_3, 0, 0, x0, t0, x0
        WAIT
        ret
        .size f, . - f";
    let (mut m, p) = machine(&source.replace("WAIT", ""), "+m,+a");
    let f = p.symbol("f").unwrap();
    let err = m.call(f, &[], STACK, 100).unwrap_err();
    assert_eq!((err.pc, err.function.as_deref()), (f + 4, Some("f")));
    assert!(
        err.message.starts_with("the call returned at cycle 4 while the work started here runs until cycle 501"),
        "{}",
        err.message
    );
    // Waiting stalls the core until the work completes: 1 + 1 + (1 + 499) + 2 cycles.
    let (mut m, p) = machine(&source.replace("WAIT", ".insn r CUSTOM_3, 2, 0, x0, x0, x0"), "+m,+a");
    call(&mut m, &p, "f", &[]);
    assert_eq!((m.cycles, m.functions[0].npu_stalls), (504, 499));
}

#[test]
fn memory_mapped_devices_answer_loads_and_stores_on_their_own_clock() {
    let source = "
        .globl f
        .type f, @function
        f:
        lui t0, 0x40000
        nop
        nop
        lw a0, 0(t0)
        li t1, 10
        sw t1, 0(t0)
        lw a1, 0(t0)
        add a0, a0, a1
        ret
        .size f, . - f";
    let (mut m, p) = load(Machine::with(vec![Box::new(Clock)]).unwrap(), source, "+m,+a");
    // The first load at cycle 3 reads 1; the store takes 1 + 10; the second load at cycle 16 reads 8.
    assert_eq!(call(&mut m, &p, "f", &[]), 9);
    // A load beside the registers is a fault as before.
    let (mut m, p) = load(
        Machine::with(vec![Box::new(Clock)]).unwrap(),
        ".globl f\nf:\nlui t0, 0x40000\nlw a0, 4(t0)\nret",
        "+m,+a",
    );
    let err = m.call(p.symbol("f").unwrap(), &[], STACK, 100).unwrap_err();
    assert_eq!(err.message, "load of 4 bytes at 0x40000004, which is in no memory");
}

#[test]
fn integer_semantics_at_the_edges() {
    let source = "
        .globl f
        .type f, @function
        f:
        div a2, a0, a1
        rem a3, a0, a1
        divu a4, a0, a1
        remu a5, a0, a1
        mulh a6, a0, a0
        mulhu a7, a0, a0
        mulhsu t0, a0, a1
        sra t1, a0, a1
        sltu t2, a1, a0
        ret
        .size f, . - f";
    let (mut m, p) = machine(source, "+m,+a");
    call(&mut m, &p, "f", &[0x8000_0000, 0xffff_ffff]);
    // INT_MIN / -1 overflows to INT_MIN with remainder 0 (the M extension's rule).
    assert_eq!(m.x[12..18], [0x8000_0000, 0, 0, 0x8000_0000, 0x4000_0000, 0x4000_0000]);
    assert_eq!(m.x[5], 0x8000_0000, "mulhsu(INT_MIN, 2^32 - 1)");
    assert_eq!((m.x[6], m.x[7]), (0xffff_ffff, 0));
    call(&mut m, &p, "f", &[7, 0]);
    // Division by zero: quotient all ones, remainder the dividend.
    assert_eq!(m.x[12..16], [0xffff_ffff, 7, 0xffff_ffff, 7]);
}

#[test]
fn cycles_follow_the_timing_table() {
    let source = "
        .globl f
        .type f, @function
        f:
        addi a1, a0, 1      # 1
        mul a2, a1, a1      # 2
        divu a3, a2, a1     # 34
        sw a3, -4(sp)       # 1 (posted)
        lw a4, -4(sp)       # 2 (DMEM)
        lw a5, 0(a0)        # 17 (DDR: 64 / 4)
        beq a0, x0, 1f      # 1 (not taken)
        bne a0, x0, 1f      # 2 (taken)
        nop
        1:
        csrr a6, instret    # 1: reads 8, the instructions before it
        csrr a7, cycle      # 1: reads 1+2+34+1+2+17+1+2+1 = 61
        ret                 # 2
        .size f, . - f";
    let (mut m, p) = machine(source, "+m,+a");
    let (c0, i0) = (m.cycles, m.instret);
    call(&mut m, &p, "f", &[DDR_BASE + 0x100]);
    assert_eq!((m.cycles - c0, m.instret - i0), (64, 11));
    assert_eq!((m.x[16], m.x[17]), (8, 61));
    let f = m.functions.iter().find(|f| f.name == "f").unwrap();
    assert_eq!((f.instret, f.cycles), (11, 64));
}

#[test]
fn compressed_code_computes_what_base_code_computes() {
    // A loop summing a byte array with the forms RVC has (c.li, c.addi, c.lw/c.sw via x8-x15,
    // c.beqz, c.j, c.mv, c.add, c.slli, c.srai, c.andi, c.sub) and calls through c.jal/c.jr.
    let source = "
        .globl f
        .type f, @function
        f:
        addi sp, sp, -16
        sw ra, 12(sp)
        mv s0, a0
        li a0, 0
        li a2, 0
        1:
        beqz a1, 2f
        lbu a3, 0(s0)
        slli a3, a3, 3
        srai a3, a3, 1
        andi a3, a3, 31
        add a0, a0, a3
        addi s0, s0, 1
        addi a1, a1, -1
        j 1b
        2:
        sw a0, 4(sp)
        lw a4, 4(sp)
        call g
        sub a0, a0, a4
        lw ra, 12(sp)
        addi sp, sp, 16
        ret
        .size f, . - f
        .globl g
        g:
        slli a0, a0, 1
        ret";
    let data: Vec<u8> = (0..100u32).map(|i| (i * 37 % 256) as u8).collect();
    let run = |attrs: &str| {
        let (mut m, p) = machine(source, attrs);
        m.memory.write_bytes(DDR_BASE + 0x1000, &data).unwrap();
        let result = call(&mut m, &p, "f", &[DDR_BASE + 0x1000, 100]);
        (result, m.instret, m.cycles, p.symbol("g").unwrap())
    };
    let (base, compressed) = (run("+m,+a"), run("+m,+a,+c"));
    let want: u32 = data.iter().map(|&b| ((u32::from(b) << 3) as i32 >> 1) as u32 & 31).sum();
    assert_eq!(base.0, want);
    assert_eq!((compressed.0, compressed.1, compressed.2), (base.0, base.1, base.2));
    assert!(compressed.3 < base.3, "the compressed build is smaller");
}

#[test]
fn semihosting_writes_and_exits() {
    let source = "
        .globl _start
        _start:
        li a0, 4            # SYS_WRITE0
        lui a1, %hi(text)
        addi a1, a1, %lo(text)
        call semihost
        lui a1, %hi(block)
        addi a1, a1, %lo(block)
        li a0, 0x20         # SYS_EXIT_EXTENDED
        call semihost
        j _start
        .balign 16
        semihost:
        .option push
        .option norvc
        slli zero, zero, 0x1f
        ebreak
        srai zero, zero, 7
        .option pop
        ret
        .data
        text: .asciz \"hello from the CU\\n\"
        .balign 4
        block: .word 0x20026, 3";
    let (mut m, p) = machine(source, "+m,+a,+c");
    m.pc = p.symbol("_start").unwrap();
    m.x[2] = STACK;
    assert_eq!(m.run(1000), Ok(Exit::Exited(3)));
    assert_eq!(String::from_utf8_lossy(&m.output), "hello from the CU\n");
}

#[test]
fn faults_name_the_pc_and_function() {
    let source = "
        .globl f
        .type f, @function
        f:
        nop
        lw a0, 0(a0)
        ret
        .size f, . - f";
    let (mut m, p) = machine(source, "+m,+a");
    let f = p.symbol("f").unwrap();
    let err = m.call(f, &[0x4000_0000], STACK, 100).unwrap_err();
    assert_eq!(err.pc, f + 4);
    assert_eq!(err.function.as_deref(), Some("f"));
    assert_eq!(err.message, "load of 4 bytes at 0x40000000, which is in no memory");
    let err = m.call(f, &[0x1000_0000 + (256 << 10) - 2], STACK, 100).unwrap_err();
    assert_eq!(err.message, "load of 4 bytes at 0x1003fffe crosses the end of dm");
    // A program that never ends is stopped by the limit, not by hanging.
    let (mut m, p) = machine(".globl f\nf:\nj f", "+m,+a");
    let err = m.call(p.symbol("f").unwrap(), &[], STACK, 1000).unwrap_err();
    assert_eq!(err.message, "no exit after 1000 instructions");
    // Illegal instructions stop the run.
    let (mut m, p) = machine(".globl f\nf:\n.word 0xffffffff", "+m,+a");
    let err = m.call(p.symbol("f").unwrap(), &[], STACK, 1000).unwrap_err();
    assert_eq!(err.message, "illegal instruction 0xffffffff");
    // So are custom instructions no device decodes, and those the device rejects.
    let (mut m, p) = machine(".globl f\nf:\n.insn r CUSTOM_0, 0, 0, x0, x0, x0", "+m,+a");
    let err = m.call(p.symbol("f").unwrap(), &[], STACK, 1000).unwrap_err();
    assert_eq!(err.message, "illegal instruction: no device decodes custom-0");
    let (mut m, p) = machine(".globl f\nf:\n.insn r CUSTOM_3, 1, 0, x0, x0, x0", "+m,+a");
    let err = m.call(p.symbol("f").unwrap(), &[], STACK, 1000).unwrap_err();
    assert_eq!(err.message, "no funct3 1");
}

#[test]
fn malformed_objects_are_errors_not_panics() {
    // An object with code, data and relocations, then 2,000 copies with random bytes changed:
    // loading each must return (Ok or a LoadError), never panic.
    let object = assemble(
        ".globl f\n.type f, @function\nf:\n  lui a0, %hi(d)\n  lw a0, %lo(d)(a0)\n  call f\n  ret\n.size f, . - f\n.data\nd: .word 7\n",
        "+m,+a",
    );
    let mut rng = umac_runtime::testdata::Rng(0x1234_5678_9abc_def0);
    for _ in 0..2000 {
        let mut bytes = object.clone();
        for _ in 0..=rng.below(8) {
            let at = rng.below(bytes.len());
            bytes[at] = rng.next() as u8;
        }
        let mut m = Machine::new();
        let _ = link(&mut m, &[("mutated.o", &bytes)], Layout::default());
        let mut m = Machine::new();
        let _ = crate::elf::load_executable(&mut m, "mutated.o", &bytes);
    }
}

#[test]
fn each_call_issuing_npu_instructions_is_a_kernel() {
    // main calls k1 (two npu.waitall) and plain (no NPU instruction), then tail-calls k2 (one):
    // k1 and k2 are kernels, in call order; k2, reached by a jump, returns for main.
    let source = "
        .globl main
        .type main, @function
        main:
        addi sp, sp, -16
        sw ra, 12(sp)
        call k1
        call plain
        lw ra, 12(sp)
        addi sp, sp, 16
        tail k2
        .size main, . - main
        .type k1, @function
        k1:
        .insn r CUSTOM_3, 2, 0, x0, x0, x0
        .insn r CUSTOM_3, 2, 0, x0, x0, x0
        ret
        .size k1, . - k1
        .type plain, @function
        plain:
        addi a0, a0, 1
        ret
        .size plain, . - plain
        .type k2, @function
        k2:
        .insn r CUSTOM_3, 2, 0, x0, x0, x0
        ret
        .size k2, . - k2";
    let (mut m, p) = machine(source, "+m,+a");
    call(&mut m, &p, "main", &[0]);
    let kernels: Vec<(&str, u64, u64)> =
        m.kernels.iter().map(|k| (k.function.as_str(), k.npu_instructions, k.cycles)).collect();
    // k1: the call (jal, 2), two waits (1 each), the return (2); k2: the tail jump (2), one
    // wait, the return.
    assert_eq!(kernels, [("k1", 2, 6), ("k2", 1, 5)]);
    let report = crate::report::report(&m, (0, 0), &["first".into(), "second".into()], None);
    let labels: Vec<&str> = report.kernels.iter().map(|k| k.label.as_str()).collect();
    assert_eq!(labels, ["first", "second"]);
    assert!(report.text.contains("  first "), "{}", report.text);
    // Labels that do not match the kernels one to one are not used.
    let report = crate::report::report(&m, (0, 0), &["only one".into()], None);
    assert_eq!(report.kernels[1].label, "k2");
}

/// What a relaxing assembler leaves for the linker (libgcc's objects are built so): label
/// differences as ADD/SUB pairs, a PC-relative word across sections, alignment and relaxation
/// hints. Linked without relaxing, every value is the distance between the placed labels, and
/// the code (padding included) runs as assembled.
#[test]
fn label_differences_and_relaxation_hints_link() {
    let source = "
        .text
        .globl f, la, lb
        f:
        la:
            addi a0, a0, 1
            .p2align 3
        lb:
            ret
        .data
        .globl table
        table:
            .word lb - la
            .half lb - la
            .byte lb - la
            .byte 0
            .word f - .
    ";
    let (mut m, program) = machine(source, "+m,+relax");
    let (la, lb, table) =
        (program.symbol("la").unwrap(), program.symbol("lb").unwrap(), program.symbol("table").unwrap());
    let f = program.symbol("f").unwrap();
    assert!(lb - la >= 4, "the padding before lb stays: {la:#x}..{lb:#x}");
    let load = |m: &Machine, at: u32, len: u32| m.memory.load(at, len).unwrap().0;
    assert_eq!(load(&m, table, 4), lb - la);
    assert_eq!(load(&m, table + 4, 2), lb - la);
    assert_eq!(load(&m, table + 6, 1), lb - la);
    assert_eq!(load(&m, table + 8, 4), f.wrapping_sub(table + 8));
    assert_eq!(call(&mut m, &program, "f", &[41]), 42);
}

/// `.dmem` goes to DMEM from its start, the other data to DDR; code addressing it gets its DMEM address, and a `.dmem` larger than the room
/// the layout gives it is an error.
#[test]
fn the_local_section_is_placed_in_dmem() {
    let source = ".globl f\n.type f, @function\nf:\n  lui a0, %hi(w)\n  addi a0, a0, %lo(w)\n  ret\n.size f, . - f\n\
                  .globl g\n.type g, @function\ng:\n  lui a0, %hi(d)\n  addi a0, a0, %lo(d)\n  ret\n.size g, . - g\n\
                  .section .dmem,\"aw\",@progbits\n.p2align 3\n.zero 12\nw: .word 5\n.data\nd: .word 7\n";
    let object = assemble(source, "+m");
    let mut m = Machine::new();
    let program = link(&mut m, &[("a.o", &object)], Layout::default()).unwrap();
    assert_eq!(program.local_end, DMEM_BASE + 16);
    assert_eq!(call(&mut m, &program, "f", &[]), DMEM_BASE + 12);
    assert_eq!(m.memory.load(DMEM_BASE + 12, 4).unwrap().0, 5);
    assert!(call(&mut m, &program, "g", &[]) >= DDR_BASE);
    let tight = Layout { local: (DMEM_BASE, DMEM_BASE + 8), ..Layout::default() };
    let error = link(&mut Machine::new(), &[("a.o", &object)], tight).unwrap_err();
    assert_eq!(error.0, "a.o: .dmem does not fit the core's data memory (16 bytes needed, 8 available)");
}

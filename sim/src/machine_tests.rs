//! The machine on programs assembled by LLVM's assembler and linked by `elf::link`: integer
//! semantics, the CU timing table, `instret`, compressed code, semihosting, faults, and an NPU
//! kernel whose schedule is computed by hand (then broken on purpose to see the hazard).

use crate::{
    elf::{Layout, link},
    machine::{Exit, Machine},
    npu::{
        Params,
        engine_tests::{conv, copy},
        params::{DDR_BASE, DM_BASE, DMEM_BASE},
    },
};
use std::{path::PathBuf, process::Command};

const LLVM_MC: &str = "/usr/lib/llvm-22/bin/llvm-mc";
const STACK: u32 = DMEM_BASE + 0x4_0000;

/// Assembles `source` for RV32 with the given extensions (`+m,+a`, `+m,+a,+c`) into an object.
fn assemble(source: &str, attrs: &str) -> Vec<u8> {
    let dir: PathBuf = std::env::temp_dir().join(format!("umac-sim-mc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let name = format!("{:016x}{attrs}", fxhash(source));
    let (input, output) = (dir.join(format!("{name}.s")), dir.join(format!("{name}.o")));
    std::fs::write(&input, source).unwrap();
    let status = Command::new(LLVM_MC)
        .args(["--triple=riscv32", &format!("-mattr={attrs}"), "-filetype=obj", "-o"])
        .arg(&output)
        .arg(&input)
        .status()
        .unwrap_or_else(|e| panic!("{LLVM_MC} is needed by this test (scripts/bootstrap installs it): {e}"));
    assert!(status.success(), "llvm-mc failed on:\n{source}");
    let object = std::fs::read(&output).unwrap();
    let _ = (std::fs::remove_file(input), std::fs::remove_file(output));
    object
}

fn fxhash(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3))
}

/// A machine with `source` linked in (code in IMEM, data in DDR).
fn machine(source: &str, attrs: &str) -> (Machine, crate::elf::Program) {
    let object = assemble(source, attrs);
    let mut m = Machine::new(Params::default());
    let program = link(&mut m, &[("test.o", &object)], Layout::default()).unwrap();
    (m, program)
}

fn call(m: &mut Machine, program: &crate::elf::Program, f: &str, args: &[u32]) -> u32 {
    let entry = program.symbol(f).unwrap();
    m.call(entry, args, STACK, 1_000_000).unwrap_or_else(|e| panic!("{e}"))
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
    let err = m.call(f, &[DM_BASE + (256 << 10) - 2], STACK, 100).unwrap_err();
    assert_eq!(err.message, "load of 4 bytes at 0x1003fffe crosses the end of dm");
    // A program that never ends is stopped by the limit, not by hanging.
    let (mut m, p) = machine(".globl f\nf:\nj f", "+m,+a");
    let err = m.call(p.symbol("f").unwrap(), &[], STACK, 1000).unwrap_err();
    assert_eq!(err.message, "no exit after 1000 instructions");
    // Illegal instructions stop the run.
    let (mut m, p) = machine(".globl f\nf:\n.word 0xffffffff", "+m,+a");
    let err = m.call(p.symbol("f").unwrap(), &[], STACK, 1000).unwrap_err();
    assert_eq!(err.message, "illegal instruction 0xffffffff");
}

/// The CU side of the schedule in `engine_tests::dma_and_compute_overlap_as_computed_by_hand`:
/// load the input and the filter on two DMA channels, convolve when both arrived (tokens as
/// dependencies, written into the convolution's descriptor by the CU), copy the result back,
/// wait, read one byte of it.
const KERNEL: &str = "
    .globl kernel
    .type kernel, @function
    kernel:
    .insn r CUSTOM_0, 0, 0, t1, a0, x0    # dma.copy input, channel 0: 1 + 11
    li t2, 1                              # 1
    .insn r CUSTOM_0, 0, 0, t3, a1, t2    # dma.copy filter, channel 1: 1 + 11
    sw t1, 0(a2)                          # 1
    sw t3, 4(a2)                          # 1
    .insn r CUSTOM_1, 0, 0, t4, a2, x0    # nu.conv: 1 + 30
    sw t4, 0(a3)                          # 1
    .insn r CUSTOM_0, 0, 0, t5, a3, x0    # dma.copy output: 1 + 11
    WAIT
    lb a0, 0(a4)                          # 1 + 16 (DDR)
    ret                                   # 2
    .size kernel, . - kernel
";

fn npu_kernel(wait: bool) -> (Machine, Result<u32, crate::Stop>, u32) {
    let source = KERNEL.replace("WAIT", if wait { ".insn r CUSTOM_3, 0, 0, x0, t5, x0" } else { "" });
    let (mut m, p) = machine(&source, "+m,+a");
    for i in 0..1024u32 {
        m.memory.write_bytes(DDR_BASE + 0x10_0000 + i, &[(i * 7 % 251) as u8]).unwrap();
    }
    for i in 0..256u32 {
        m.memory.write_bytes(DDR_BASE + 0x10_1000 + i, &[(i % 5) as u8]).unwrap();
    }
    let d = [DMEM_BASE, DMEM_BASE + 64, DMEM_BASE + 128, DMEM_BASE + 256];
    copy(&mut m.memory, d[0], [0, 0], DDR_BASE + 0x10_0000, DM_BASE, 1024);
    copy(&mut m.memory, d[1], [0, 0], DDR_BASE + 0x10_1000, DM_BASE + 0x1000, 256);
    conv(&mut m.memory, d[2], [0, 0]);
    copy(&mut m.memory, d[3], [0, 0], DM_BASE + 0x2000, DDR_BASE + 0x10_8000, 1024);
    let entry = p.symbol("kernel").unwrap();
    let result = m.call(entry, &[d[0], d[1], d[2], d[3], DDR_BASE + 0x10_8000], STACK, 1000);
    (m, result, entry)
}

#[test]
fn an_npu_kernel_runs_on_the_schedule_computed_by_hand() {
    let (m, result, _) = npu_kernel(true);
    // Input: issued at 0, [0, 129). Filter: issued at 13, port after the input's: [13, 145).
    // The CU stores the tokens (26, 27) and issues the convolution at 27: [145, 305). The copy
    // back, issued at 59: [305, 434). The wait at 71 stalls 434 - 71 = 363 cycles and ends at
    // 435; the DDR load takes 17, the return 2: 454 cycles, 11 instructions.
    let units: Vec<(u64, u64)> = m.npu.jobs.iter().map(|j| (j.start, j.end)).collect();
    assert_eq!(units, [(0, 129), (13, 145), (145, 305), (305, 434)]);
    assert_eq!((m.cycles, m.instret), (454, 11));
    // The first output byte: channel 0 of pixel 0, (sum x[c] * (c % 5) + 4) >> 3.
    let acc: i64 = (0..16u32).map(|c| i64::from(((c * 7 % 251) as u8) as i8) * i64::from(c % 5)).sum();
    assert_eq!(i64::from(result.unwrap() as i32), ((acc + 4) >> 3).clamp(-128, 127));
    let f = &m.functions[0];
    assert_eq!((f.name.as_str(), f.cycles, f.npu_stalls), ("kernel", 454, 363));
    let report = crate::report::report(&m, (0, 0), &[], None);
    assert_eq!((report.cycles, report.macs, report.ddr_bytes), (454, 16384, 2304));
    // max(16384 / 256, 2304 / 16) = 144.
    assert_eq!(report.roofline_cycles, 144);
    // The model's MACs, when the caller counts them, bound the run instead of the jobs' (which
    // multiply the zeros of a packed filter too): max(65536 / 256, 144) = 256; the jobs' MACs
    // stay as they were.
    let report = crate::report::report(&m, (0, 0), &[], Some(65536));
    assert_eq!((report.macs, report.model_macs, report.roofline_cycles), (16384, 65536, 256));
    assert!(report.text.contains("roofline bound 256 cycles = max(65536 MACs of the model / 256"), "{}", report.text);
}

#[test]
fn a_missing_wait_is_a_hazard_at_the_load() {
    let (_, result, entry) = npu_kernel(false);
    let err = result.unwrap_err();
    // The load is the ninth instruction: 8 of 4 bytes.
    assert_eq!((err.pc, err.function.as_deref()), (entry + 32, Some("kernel")));
    assert!(err.message.starts_with("hazard (read-after-write): the CU at pc"), "{}", err.message);
    assert!(err.message.contains("which dma.copy (token 0x00000002"), "{}", err.message);
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
        let mut m = Machine::new(Params::default());
        let _ = link(&mut m, &[("mutated.o", &bytes)], Layout::default());
        let mut m = Machine::new(Params::default());
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

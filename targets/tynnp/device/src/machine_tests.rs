//! The NPU hosted by umac-sim's machine, on a kernel assembled by LLVM's assembler whose
//! schedule is computed by hand (then broken on purpose to see the hazard).

use crate::{
    Npu, Params,
    engine_tests::{conv, copy},
    params::{DDR_BASE, DM_BASE, DMEM_BASE},
};
use umac_sim::{
    Machine, Stop, report,
    testing::{STACK, load},
};

/// A machine with the NPU at `params` and `source` linked in.
fn machine(source: &str, attrs: &str) -> (Machine, umac_sim::elf::Program) {
    load(Machine::with(vec![Box::new(Npu::new(Params::default()))]).unwrap(), source, attrs)
}

fn npu(m: &Machine) -> &Npu {
    m.device::<Npu>().expect("the NPU")
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

fn npu_kernel(wait: bool) -> (Machine, Result<u32, Stop>, u32) {
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
    let units: Vec<(u64, u64)> = npu(&m).jobs.iter().map(|j| (j.start, j.end)).collect();
    assert_eq!(units, [(0, 129), (13, 145), (145, 305), (305, 434)]);
    assert_eq!((m.cycles, m.instret), (454, 11));
    // The first output byte: channel 0 of pixel 0, (sum x[c] * (c % 5) + 4) >> 3.
    let acc: i64 = (0..16u32).map(|c| i64::from(((c * 7 % 251) as u8) as i8) * i64::from(c % 5)).sum();
    assert_eq!(i64::from(result.unwrap() as i32), ((acc + 4) >> 3).clamp(-128, 127));
    let f = &m.functions[0];
    assert_eq!((f.name.as_str(), f.cycles, f.npu_stalls), ("kernel", 454, 363));
    let report = report::report(&m, (0, 0), &[], None);
    assert_eq!((report.cycles, report.macs, report.ddr_bytes), (454, 16384, 2304));
    // max(16384 / 256, 2304 / 16) = 144.
    assert_eq!(report.roofline_cycles, 144);
    // The model's MACs, when the caller counts them, bound the run instead of the jobs' (which
    // multiply the zeros of a packed filter too): max(65536 / 256, 144) = 256; the jobs' MACs
    // stay as they were.
    let report = report::report(&m, (0, 0), &[], Some(65536));
    assert_eq!((report.macs, report.model_macs, report.roofline_cycles), (16384, 65536, 256));
    assert!(report.text.contains("roofline bound 256 cycles = max(65536 MACs of the model / 256"), "{}", report.text);
    // The contract bound: dma0's two copies through DDR as one job (65 + 65 - 64), dma1's one
    // (64 + 1), the NU's convolution (160), DDR 1280 bytes read and 1024 written once (2304 / 16),
    // and the control unit's 454 cycles but the 363 it waited. The NU's is the largest.
    let units: Vec<(&str, u64)> = report.contract_units.iter().map(|(u, c)| (u.as_str(), *c)).collect();
    assert_eq!(
        units,
        [
            ("cu", 91),
            ("dma0", 66),
            ("dma1", 65),
            ("nu", 160),
            ("vu0", 0),
            ("vu1", 0),
            ("vu2", 0),
            ("vu3", 0),
            ("ddr", 144)
        ]
    );
    assert_eq!(report.contract_bound_cycles, 160);
    assert!(report.text.contains("contract bound 160 cycles (the busiest unit, nu,"), "{}", report.text);
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
fn the_npu_s_memories_and_ddr_latency_join_the_map() {
    let m = Machine::with(vec![Box::new(Npu::new(Params::parse("-vu=2 -ddr-latency=8").unwrap()))]).unwrap();
    let names: Vec<&str> = m.memory.regions.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["imem", "dmem", "ddr", "dm", "vm0", "vm1"]);
    let ddr = m.memory.region_of(DDR_BASE).unwrap();
    assert_eq!((ddr.load_cycles, ddr.fetch_cycles), (2, 2));
    assert_eq!(
        m.memory.region_of(crate::params::VM_BASE + crate::params::VM_SPACING).map(|r| r.name.as_str()),
        Some("vm1")
    );
}

/// One `dma.copy` issued from a kernel: `src`, `dst`, `bytes`, its descriptor at DMEM.
fn one_copy(src: u32, dst: u32, bytes: u32, prepare: impl FnOnce(&mut Machine)) -> Result<u32, Stop> {
    let source = "
        .globl kernel
        .type kernel, @function
        kernel:
        .insn r CUSTOM_0, 0, 0, t1, a0, x0
        .insn r CUSTOM_3, 2, 0, x0, x0, x0
        ret
        .size kernel, . - kernel";
    let (mut m, p) = machine(source, "+m,+a");
    prepare(&mut m);
    copy(&mut m.memory, DMEM_BASE, [0, 0], src, dst, bytes);
    let entry = p.symbol("kernel").unwrap();
    m.call(entry, &[DMEM_BASE], STACK, 100)
}

#[test]
fn a_unit_reading_a_byte_no_one_wrote_stops_at_the_kernel() {
    // DM starts as garbage: copying it out is an error naming the unit, the byte and the kernel.
    let err = one_copy(DM_BASE + 0x100, DDR_BASE + 0x1000, 64, |_| {}).unwrap_err();
    assert_eq!(err.function.as_deref(), Some("kernel"));
    assert_eq!(
        err.message,
        "dma.copy on dma0 reads [0x10000100, +64), whose byte at 0x10000100 (dm + 0x100) no one wrote"
    );
    // One byte short of written is still an error, at that byte.
    let err = one_copy(DM_BASE + 0x100, DDR_BASE + 0x1000, 64, |m| {
        m.memory.write_bytes(DM_BASE + 0x100, &[7; 63]).unwrap();
    })
    .unwrap_err();
    assert!(err.message.contains("whose byte at 0x1000013f (dm + 0x13f) no one wrote"), "{}", err.message);
    // Written by the host, it copies.
    one_copy(DM_BASE + 0x100, DDR_BASE + 0x1000, 64, |m| m.memory.write_bytes(DM_BASE + 0x100, &[7; 64]).unwrap())
        .unwrap();
    // A descriptor word the CU never wrote is an error too.
    let (mut m, p) = machine(".globl k\nk:\n.insn r CUSTOM_0, 0, 0, t1, a0, x0\nret", "+m,+a");
    let err = m.call(p.symbol("k").unwrap(), &[DMEM_BASE + 0x800], STACK, 100).unwrap_err();
    assert!(err.message.starts_with("the NPU reading the descriptor reads [0x00100800, +44)"), "{}", err.message);
}

#[test]
fn overlapping_copies_are_hazards() {
    let fill = |m: &mut Machine| m.memory.write_bytes(DM_BASE, &[1; 256]).unwrap();
    let err = one_copy(DM_BASE, DM_BASE + 64, 128, fill).unwrap_err();
    assert_eq!(
        err.message,
        "dma.copy on dma0: its source and its destination [0x10000040, 0x100000c0) overlap at 0x10000040, which \
         the contract leaves undefined"
    );
    // Adjacent is fine.
    one_copy(DM_BASE, DM_BASE + 128, 128, fill).unwrap();
}

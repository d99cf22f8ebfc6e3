//! The engine on hand-computed schedules: DMA latency overlapping another transfer, the DDR port
//! shared, a convolution waiting for both of its inputs, a queue that fills up; and the hazard
//! checker catching every missing dependency or wait.

use super::{
    engine::{Bus, Instruction, Npu},
    params::{DDR_BASE, DM_BASE, DMEM_BASE, Params},
};
use std::collections::HashMap;

/// Memory with the NPU's regions, sparse.
struct TestBus {
    regions: Vec<(String, u32, u32)>,
    bytes: HashMap<u32, u8>,
}

impl TestBus {
    fn new(params: &Params) -> TestBus {
        TestBus { regions: params.regions(), bytes: HashMap::new() }
    }
}

/// Writes little-endian words.
pub(crate) fn words(bus: &mut dyn Bus, addr: u32, words: &[u32]) {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    bus.write(addr, &bytes);
}

impl Bus for TestBus {
    fn region(&self, addr: u32) -> Option<(String, u32, u32)> {
        self.regions.iter().find(|(_, b, s)| addr >= *b && u64::from(addr) < u64::from(*b) + u64::from(*s)).cloned()
    }
    fn read(&self, addr: u32, len: u32) -> Option<Vec<u8>> {
        Some((0..len).map(|i| *self.bytes.get(&(addr + i)).unwrap_or(&0)).collect())
    }
    fn write(&mut self, addr: u32, data: &[u8]) -> bool {
        for (i, b) in data.iter().enumerate() {
            self.bytes.insert(addr + i as u32, *b);
        }
        true
    }
}

const DESC: u32 = DMEM_BASE;

/// A `dma.copy` descriptor at `at`: `bytes` contiguous bytes from `src` to `dst`.
pub(crate) fn copy(bus: &mut dyn Bus, at: u32, deps: [u32; 2], src: u32, dst: u32, bytes: u32) -> u32 {
    words(bus, at, &[deps[0], deps[1], src, dst, bytes, 1, 0, 0, 1, 0, 0]);
    at
}

/// A 1x1 convolution over an 8x8x16 input in DM with 16 output channels: input at DM+0,
/// filter at DM+0x1000, output at DM+0x2000, per-tensor scale at DM+0x3000.
pub(crate) fn conv(bus: &mut dyn Bus, at: u32, deps: [u32; 2]) -> u32 {
    words(bus, DM_BASE + 0x3000, &[1 << 30]);
    bus.write(DM_BASE + 0x3004, &[33]);
    let mut w = vec![deps[0], deps[1], DM_BASE, 8, 8, 16, 0, DM_BASE + 0x1000, 16, 1, 1, 0, 0, DM_BASE + 0x2000, 8, 8];
    w.extend([1, 1, 1, 1, 0, 0, 0]);
    w.extend([DM_BASE + 0x3000, DM_BASE + 0x3004, 2, 0, (-128i32) as u32, 127, 0]);
    words(bus, at, &w);
    at
}

fn insn(opcode: u8, funct3: u8, rs1: u32, rs2: u32) -> Instruction {
    Instruction { opcode, funct3, funct7: 0, rs1, rs2, pc: 0x100 }
}

#[test]
fn dma_and_compute_overlap_as_computed_by_hand() {
    let params = Params::default();
    let mut npu = Npu::new(params);
    let mut bus = TestBus::new(&params);
    for i in 0..1024u32 {
        bus.write(DDR_BASE + i, &[(i * 7 % 251) as u8]);
    }
    for i in 0..256u32 {
        bus.write(DDR_BASE + 0x1000 + i, &[(i % 5) as u8]);
    }
    // t=0, channel 0: 1024 input bytes DDR -> DM. Unit: start 0; port from 0 + 64 (latency)
    // for 1024 / 16 = 64 cycles; end 64 + 64 + 1 line = 129. The CU pays 11 descriptor words.
    let d = copy(&mut bus, DESC, [0, 0], DDR_BASE, DM_BASE, 1024);
    let input = npu.execute(&mut bus, insn(0x0B, 0, d, 0), 0).unwrap();
    assert_eq!((input.rd, input.cycles), (1, 11));
    assert_eq!((npu.jobs[0].start, npu.jobs[0].end), (0, 129));
    // t=20, channel 1: 256 filter bytes. Its latency overlaps the first transfer; the port is
    // busy [64, 128), so its 16 cycles start at 128: end 128 + 16 + 1 = 145.
    let d = copy(&mut bus, DESC + 64, [0, 0], DDR_BASE + 0x1000, DM_BASE + 0x1000, 256);
    let filter = npu.execute(&mut bus, insn(0x0B, 0, d, 1), 20).unwrap();
    assert_eq!(filter.rd, 1 << 24 | 1);
    assert_eq!((npu.jobs[1].start, npu.jobs[1].end), (20, 145));
    // t=40: the NU waits for both: start 145; 32 (fill) + 64 pixels + 64 (output stage) = 160.
    let d = conv(&mut bus, DESC + 128, [input.rd, filter.rd]);
    let nu = npu.execute(&mut bus, insn(0x2B, 0, d, 0), 40).unwrap();
    assert_eq!(nu.rd, 0x10 << 24 | 1);
    assert_eq!((npu.jobs[2].start, npu.jobs[2].end), (145, 305));
    // t=60, channel 0 again: 1024 output bytes back; start 305 (the NU), port from 369: end 434.
    let d = copy(&mut bus, DESC + 256, [nu.rd, 0], DM_BASE + 0x2000, DDR_BASE + 0x8000, 1024);
    let back = npu.execute(&mut bus, insn(0x0B, 0, d, 0), 60).unwrap();
    assert_eq!((npu.jobs[3].start, npu.jobs[3].end), (305, 434));
    // The CU waits at t=80: 354 cycles.
    let wait = npu.execute(&mut bus, insn(0x7B, 0, back.rd, 0), 80).unwrap();
    assert_eq!(wait.cycles, 354);
    assert_eq!(npu.last_end(), 434);
    // Then it may read the result, which is the convolution of what it put in DDR.
    npu.check_cu(DDR_BASE + 0x8000, 1024, false, 0x200).unwrap();
    let out = bus.read(DDR_BASE + 0x8000, 16).unwrap();
    let x: Vec<i64> = (0..16u32).map(|c| i64::from(((c * 7 % 251) as u8) as i8)).collect();
    for (o, &got) in out.iter().enumerate() {
        let acc: i64 = (0..16).map(|c| x[c] * ((o * 16 + c) % 5) as i64).sum();
        // multiplier 2^30, shift 33: acc / 8, rounded half up.
        assert_eq!(i64::from(got as i8), ((acc + 4) >> 3).clamp(-128, 127), "channel {o}");
    }
    assert_eq!(npu.counters.macs, 64 * 16 * 16);
    assert_eq!(npu.counters.ddr_bytes, 1024 + 256 + 1024);
    assert_eq!(npu.units[0].busy, 129 + (434 - 305));
}

#[test]
fn missing_synchronisation_is_a_hazard() {
    let params = Params::default();
    let setup = |npu: &mut Npu, bus: &mut TestBus| {
        let d = copy(bus, DESC, [0, 0], DDR_BASE, DM_BASE, 1024);
        let input = npu.execute(bus, insn(0x0B, 0, d, 0), 0).unwrap().rd;
        let d = copy(bus, DESC + 64, [0, 0], DDR_BASE + 0x1000, DM_BASE + 0x1000, 256);
        let filter = npu.execute(bus, insn(0x0B, 0, d, 1), 0).unwrap().rd;
        (input, filter)
    };
    // The convolution without the filter's token: read-after-write on the filter.
    let (mut npu, mut bus) = (Npu::new(params), TestBus::new(&params));
    let (input, _) = setup(&mut npu, &mut bus);
    let d = conv(&mut bus, DESC + 128, [input, 0]);
    let err = npu.execute(&mut bus, insn(0x2B, 0, d, 0), 40).unwrap_err();
    assert!(matches!(err, crate::NpuError::Hazard(_)), "{err:?}");
    let err = err.to_string();
    assert!(
        err.contains(
            "hazard (read-after-write): nu.conv on nu (issued at pc 0x00000100) reads [0x10001000, 0x10001100)"
        ),
        "{err}"
    );
    assert!(err.contains("which dma.copy (token 0x01000001"), "{err}");
    // With waits instead of tokens, it is ordered.
    let (mut npu, mut bus) = (Npu::new(params), TestBus::new(&params));
    let (input, filter) = setup(&mut npu, &mut bus);
    npu.execute(&mut bus, insn(0x7B, 0, filter, 0), 10).unwrap();
    npu.execute(&mut bus, insn(0x7B, 0, input, 0), 10).unwrap();
    let d = conv(&mut bus, DESC + 128, [input, 0]);
    let nu = npu.execute(&mut bus, insn(0x2B, 0, d, 0), 200).unwrap().rd;
    // The CU reads the output before waiting for the NU: read-after-write.
    let err = npu.check_cu(DM_BASE + 0x2010, 4, false, 0x300).unwrap_err().to_string();
    assert!(err.contains("the CU at pc 0x00000300 reads [0x10002010, 0x10002014)"), "{err}");
    // The CU overwrites the input the NU may still be reading: write-after-read.
    let err = npu.check_cu(DM_BASE + 8, 1, true, 0x304).unwrap_err().to_string();
    assert!(err.starts_with("hazard (write-after-read)"), "{err}");
    // A DMA reloading the input without the NU's token: write-after-read as well.
    let d = copy(&mut bus, DESC + 256, [0, 0], DDR_BASE, DM_BASE, 64);
    let err = npu.execute(&mut bus, insn(0x0B, 0, d, 1), 220).unwrap_err().to_string();
    assert!(err.starts_with("hazard (write-after-read)") && err.contains("nu.conv"), "{err}");
    // After the wait, all of it is fine.
    npu.execute(&mut bus, insn(0x7B, 0, nu, 0), 230).unwrap();
    npu.check_cu(DM_BASE + 0x2010, 4, false, 0x308).unwrap();
    npu.check_cu(DM_BASE + 8, 1, true, 0x30c).unwrap();
}

#[test]
fn a_full_queue_stalls_the_cu_and_rules_are_enforced() {
    let params = Params { queue_depth: 2, ..Params::default() };
    let (mut npu, mut bus) = (Npu::new(params), TestBus::new(&params));
    // Three on-chip copies on channel 0 at t=0: each 4 + 1 + 1 = 6 cycles -> [0,6), [6,12),
    // [12,18). The third finds two jobs not started yet... only [6,12) is queued at t=0 (the
    // first started at 0), so no stall; a fourth at t=0 finds two queued and waits until 6.
    let mut starts = Vec::new();
    for k in 0..4 {
        let d = copy(&mut bus, DESC + 64 * k, [0, 0], DM_BASE + 0x100 * k, DM_BASE + 0x8000 + 0x100 * k, 64);
        let out = npu.execute(&mut bus, insn(0x0B, 0, d, 0), 0).unwrap();
        starts.push((out.cycles, npu.jobs[k as usize].start, npu.jobs[k as usize].end));
    }
    assert_eq!(starts, [(11, 0, 6), (11, 6, 12), (11, 12, 18), (11 + 6, 18, 24)]);
    assert_eq!(npu.counters.queue_stalls, 6);
    // Units only reach their memories; tokens must exist; units must exist.
    let d = copy(&mut bus, DESC, [0, 0], DMEM_BASE + 0x1000, DM_BASE, 16);
    assert!(
        npu.execute(&mut bus, insn(0x0B, 0, d, 0), 30)
            .unwrap_err()
            .to_string()
            .contains("in dmem, which it cannot reach")
    );
    let d = copy(&mut bus, DESC, [0x0100_0009, 0], DM_BASE, DM_BASE + 0x10, 16);
    assert!(
        npu.execute(&mut bus, insn(0x0B, 0, d, 0), 30).unwrap_err().to_string().contains("0x01000009 was never issued")
    );
    assert!(
        npu.execute(&mut bus, insn(0x0B, 0, d, 7), 30)
            .unwrap_err()
            .to_string()
            .contains("DMA channel 7 does not exist")
    );
    assert!(npu.execute(&mut bus, insn(0x7B, 0, 0x2000_0001, 0), 30).unwrap_err().to_string().contains("never issued"));
    assert_eq!(npu.execute(&mut bus, insn(0x7B, 3, 1, 0), 30).unwrap().rd, 16);
    assert!(
        npu.execute(&mut bus, insn(0x0B, 0, DESC + 2, 0), 30).unwrap_err().to_string().contains("not 4-byte aligned")
    );
}

/// The contract bound pays a unit's per-job overhead once a kernel: two convolutions in one
/// kernel pay the NU's fill (32) once, in two kernels twice; the same DDR bytes read twice
/// count once.
#[test]
fn the_contract_bound_pays_overheads_once_a_kernel() {
    let params = Params::default();
    let mut npu = Npu::new(params);
    let mut bus = TestBus::new(&params);
    let d = copy(&mut bus, DESC, [0, 0], DDR_BASE, DM_BASE, 1024);
    let input = npu.execute(&mut bus, insn(0x0B, 0, d, 0), 0).unwrap().rd;
    let d = copy(&mut bus, DESC + 64, [0, 0], DDR_BASE, DM_BASE + 0x1000, 256);
    let filter = npu.execute(&mut bus, insn(0x0B, 0, d, 0), 10).unwrap().rd;
    let d = conv(&mut bus, DESC + 128, [input, filter]);
    let first = npu.execute(&mut bus, insn(0x2B, 0, d, 0), 20).unwrap().rd;
    let d = conv(&mut bus, DESC + 256, [first, 0]);
    npu.execute(&mut bus, insn(0x2B, 0, d, 0), 400).unwrap();
    // Each convolution costs 160 (32 of fill); both copies read the first 256 bytes of DDR.
    let bound = |starts: &[u64]| -> Vec<(String, u64)> {
        crate::bound::unit_bounds(&npu, starts)
            .into_iter()
            .filter(|(u, _)| u == "nu" || u == "dma0" || u == "ddr")
            .collect()
    };
    let one = bound(&[]);
    assert_eq!(one, [("dma0".to_string(), 64 + 1 + 1), ("nu".to_string(), 320 - 32), ("ddr".to_string(), 1024 / 16)]);
    let two = bound(&[0, 300]);
    assert_eq!(two[1], ("nu".to_string(), 320));
}

//! Every RV32IM computational, load/store and branch instruction, executed by the machine on
//! random and edge-case operands, against a plain reference written with wide arithmetic.

use crate::{machine::Machine, memory::DMEM_BASE};
use umac_runtime::testdata::Rng;

/// Random 32-bit operands, often an edge value.
fn operand(rng: &mut Rng) -> u32 {
    const EDGES: [u32; 8] = [0, 1, 2, 31, 0x7fff_ffff, 0x8000_0000, 0xffff_ffff, 0xffff_fffe];
    match rng.below(4) {
        0 => EDGES[rng.below(8)],
        1 => rng.below(64) as u32,
        _ => rng.next() as u32,
    }
}

/// 32 random bits.
fn word(rng: &mut Rng) -> u32 {
    (rng.next() >> 16) as u32
}

fn r_type(funct7: u32, funct3: u32, rd: u32, rs1: u32, rs2: u32) -> u32 {
    funct7 << 25 | rs2 << 20 | rs1 << 15 | funct3 << 12 | rd << 7 | 0x33
}

fn i_type(opcode: u32, funct3: u32, rd: u32, rs1: u32, imm: i32) -> u32 {
    ((imm as u32) & 0xfff) << 20 | rs1 << 15 | funct3 << 12 | rd << 7 | opcode
}

/// Runs the single instruction `word` at IMEM 0 with x5 = a, x6 = b, from cycle 0 (one machine
/// serves a whole test: IMEM is not marked as code, so nothing is decoded ahead).
fn execute(m: &mut Machine, word: u32, a: u32, b: u32) -> &Machine {
    m.memory.store(0, 4, word).unwrap();
    (m.x, m.pc, m.cycles) = ([0; 32], 0, 0);
    m.x[5] = a;
    m.x[6] = b;
    m.step().unwrap_or_else(|e| panic!("{word:#010x}: {e}"));
    m
}

fn reference_r(funct7: u32, funct3: u32, a: u32, b: u32) -> u32 {
    let (sa, sb) = (i128::from(a as i32), i128::from(b as i32));
    let (ua, ub) = (i128::from(a), i128::from(b));
    let shift = b & 31;
    let low = |v: i128| (v & 0xffff_ffff) as u32;
    match (funct7, funct3) {
        (0, 0) => low(ua + ub),
        (0x20, 0) => low(ua - ub),
        (0, 1) => low(ua << shift),
        (0, 2) => u32::from(sa < sb),
        (0, 3) => u32::from(ua < ub),
        (0, 4) => a ^ b,
        (0, 5) => low(ua >> shift),
        (0x20, 5) => low(sa >> shift),
        (0, 6) => a | b,
        (0, 7) => a & b,
        (1, 0) => low(ua * ub),
        (1, 1) => low((sa * sb) >> 32),
        (1, 2) => low((sa * ub) >> 32),
        (1, 3) => low((ua * ub) >> 32),
        // Division: by zero all ones (remainder the dividend); overflow wraps (remainder 0).
        (1, 4) if b == 0 => u32::MAX,
        (1, 4) => low(if sa == -(1 << 31) && sb == -1 { sa } else { sa / sb }),
        (1, 5) if b == 0 => u32::MAX,
        (1, 5) => low(ua / ub),
        (1, 6) if b == 0 => a,
        (1, 6) => low(if sb == -1 { 0 } else { sa % sb }),
        (1, 7) if b == 0 => a,
        (1, 7) => low(ua % ub),
        _ => unreachable!(),
    }
}

#[test]
fn register_register_instructions_match_the_reference() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut m = Machine::new();
    let ops = [(0, 0), (0x20, 0), (0, 1), (0, 2), (0, 3), (0, 4), (0, 5), (0x20, 5), (0, 6), (0, 7)];
    let m_ops = (0..8).map(|f3| (1, f3));
    for (funct7, funct3) in ops.into_iter().chain(m_ops) {
        for _ in 0..2000 {
            let (a, b) = (operand(&mut rng), operand(&mut rng));
            let got = execute(&mut m, r_type(funct7, funct3, 7, 5, 6), a, b).x[7];
            assert_eq!(got, reference_r(funct7, funct3, a, b), "funct7 {funct7} funct3 {funct3}: {a:#x}, {b:#x}");
            // The same with rd = x0: nothing is written.
            assert_eq!(execute(&mut m, r_type(funct7, funct3, 0, 5, 6), a, b).x[0], 0);
        }
    }
}

#[test]
fn register_immediate_instructions_match_the_reference() {
    let mut rng = Rng(0x0123_4567_89ab_cdef);
    let mut m = Machine::new();
    for funct3 in [0, 2, 3, 4, 6, 7, 1, 5] {
        for round in 0..2000 {
            let a = operand(&mut rng);
            let arithmetic = round % 2 == 1;
            let imm = match funct3 {
                1 => rng.below(32) as i32,
                5 => rng.below(32) as i32 | if arithmetic { 0x400 } else { 0 },
                _ => (rng.below(4096) as i32) - 2048,
            };
            let got = execute(&mut m, i_type(0x13, funct3, 7, 5, imm), a, 0).x[7];
            // The reference: the register form on the sign-extended (or shift) immediate.
            let (funct7, b) = match funct3 {
                5 if arithmetic => (0x20, imm as u32 & 31),
                1 | 5 => (0, imm as u32),
                _ => (0, imm as u32),
            };
            let want = reference_r(funct7, funct3, a, b);
            assert_eq!(got, want, "funct3 {funct3}: {a:#x}, imm {imm}");
        }
    }
    // lui and auipc (at pc 0).
    for _ in 0..200 {
        let upper = word(&mut rng) & 0xffff_f000;
        assert_eq!(execute(&mut m, upper | 7 << 7 | 0x37, 0, 0).x[7], upper);
        assert_eq!(execute(&mut m, upper | 7 << 7 | 0x17, 0, 0).x[7], upper);
    }
}

#[test]
fn loads_and_stores_match_a_byte_array() {
    let mut rng = Rng(0xdead_beef_cafe_f00d);
    let mut m = Machine::new();
    for _ in 0..3000 {
        m.pc = 0;
        let mut bytes = [0u8; 16];
        for b in &mut bytes {
            *b = word(&mut rng) as u8;
        }
        let base = DMEM_BASE + 0x100;
        m.memory.write_bytes(base, &bytes).unwrap();
        let offset = rng.below(12) as i32;
        let value = operand(&mut rng);
        let (store, size) = [(0, 1), (1, 2), (2, 4)][rng.below(3)];
        // sX x6, offset(x5), then every load width from the same place.
        let store_word =
            ((offset as u32) >> 5) << 25 | 6 << 20 | 5 << 15 | store << 12 | (offset as u32 & 31) << 7 | 0x23;
        m.memory.store(0, 4, store_word).unwrap();
        m.x[5] = base;
        m.x[6] = value;
        m.step().unwrap();
        bytes[offset as usize..offset as usize + size].copy_from_slice(&value.to_le_bytes()[..size]);
        for (funct3, width, signed) in [(0, 1, true), (1, 2, true), (2, 4, false), (4, 1, false), (5, 2, false)] {
            m.memory.store(4, 4, i_type(0x03, funct3, 7, 5, offset)).unwrap();
            m.pc = 4;
            m.step().unwrap();
            let o = offset as usize;
            let mut raw = [0u8; 4];
            raw[..width].copy_from_slice(&bytes[o..o + width]);
            let unsigned = u32::from_le_bytes(raw);
            let want = if signed {
                let shift = 32 - 8 * width as u32;
                ((unsigned << shift) as i32 >> shift) as u32
            } else {
                unsigned
            };
            assert_eq!(m.x[7], want, "load funct3 {funct3} at +{offset} after store {store}");
        }
    }
}

#[test]
fn branches_and_jumps_go_where_the_reference_says() {
    let mut rng = Rng(0x5151_5151_aaaa_0001);
    let mut m = Machine::new();
    for funct3 in [0, 1, 4, 5, 6, 7] {
        for _ in 0..2000 {
            let (a, b) = (operand(&mut rng), operand(&mut rng));
            let offset = (rng.below(2048) as i32 - 1024) * 2;
            let o = offset as u32;
            let word = (o >> 12 & 1) << 31
                | (o >> 5 & 0x3f) << 25
                | 6 << 20
                | 5 << 15
                | funct3 << 12
                | (o >> 1 & 0xf) << 8
                | (o >> 11 & 1) << 7
                | 0x63;
            let (pc, cycles) = {
                let m = execute(&mut m, word, a, b);
                (m.pc, m.cycles)
            };
            let taken = match funct3 {
                0 => a == b,
                1 => a != b,
                4 => i64::from(a as i32) < i64::from(b as i32),
                5 => i64::from(a as i32) >= i64::from(b as i32),
                6 => u64::from(a) < u64::from(b),
                _ => u64::from(a) >= u64::from(b),
            };
            assert_eq!(pc, if taken { o } else { 4 }, "funct3 {funct3}: {a:#x} {b:#x} offset {offset}");
            assert_eq!(cycles, if taken { 2 } else { 1 });
        }
    }
    // jalr clears bit 0 of the target and links pc + 4.
    for _ in 0..200 {
        let (a, imm) = (word(&mut rng), rng.below(4096) as i32 - 2048);
        let m = execute(&mut m, i_type(0x67, 0, 7, 5, imm), a, 0);
        assert_eq!((m.pc, m.x[7]), (a.wrapping_add(imm as u32) & !1, 4));
    }
}

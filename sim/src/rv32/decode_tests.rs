//! Tests of the RV32IMAC + Zicsr decoder: hand-checked encodings of every operation and
//! format, every rejection rule, and cross-checks against LLVM (`llvm-mc`): a source assembled
//! with and without the C extension must decode to the same instructions, every 16-bit word must
//! decode as LLVM's disassembler reads it, and so must a large set of pseudo-random 32-bit words.

use std::{
    fs,
    path::{Path, PathBuf},
    process::Command,
    time::{SystemTime, UNIX_EPOCH},
};

use super::decode::*;
use Op::*;

/// `(raw, op, rd, rs1, rs2, imm)`: the raw words were produced by `llvm-mc -show-encoding` from
/// the assembly in the comment (32-bit ones without the C extension); the expected fields were
/// written from the assembly text. HINTs are legal compressed encodings that expand to a base
/// instruction without effect.
#[rustfmt::skip]
const HAND: &[(u32, Op, u8, u8, u8, i32)] = &[
    (0x1234_5537, Lui, 10, 0, 0, 0x12345000), // lui a0, 0x12345
    (0x8000_0fb7, Lui, 31, 0, 0, i32::MIN), // lui t6, 0x80000
    (0xffff_f537, Lui, 10, 0, 0, -4096), // lui a0, 0xfffff
    (0xabcd_e117, Auipc, 2, 0, 0, -0x54322000), // auipc sp, 0xabcde
    (0x0000_1017, Auipc, 0, 0, 0, 4096), // auipc zero, 1
    (0x7fe0_00ef, Jal, 1, 0, 0, 2046), // jal ra, 2046
    (0xffdf_f06f, Jal, 0, 0, 0, -4), // jal zero, -4
    (0x7fff_f56f, Jal, 10, 0, 0, 1048574), // jal a0, 1048574
    (0x8000_02ef, Jal, 5, 0, 0, -1048576), // jal t0, -1048576
    (0x3461_24ef, Jal, 9, 0, 0, 0x12346), // jal s1, 0x12346
    (0x0000_8067, Jalr, 0, 1, 0, 0), // jalr zero, 0(ra)
    (0xfff5_8567, Jalr, 10, 11, 0, -1), // jalr a0, -1(a1)
    (0x7ffd_8fe7, Jalr, 31, 27, 0, 2047), // jalr t6, 2047(s11)
    (0x8002_80e7, Jalr, 1, 5, 0, -2048), // jalr ra, -2048(t0)
    (0x00b5_0463, Beq, 0, 10, 11, 8), // beq a0, a1, 8
    (0xfe62_9ee3, Bne, 0, 5, 6, -4), // bne t0, t1, -4
    (0x7e04_4fe3, Blt, 0, 8, 0, 4094), // blt s0, zero, 4094
    (0x81f0_5063, Bge, 0, 0, 31, -4096), // bge zero, t6, -4096
    (0x00d6_61e3, Bltu, 0, 12, 13, 0x802), // bltu a2, a3, 0x802
    (0xfef7_7fe3, Bgeu, 0, 14, 15, -2), // bgeu a4, a5, -2
    (0xfff5_8503, Lb, 10, 11, 0, -1), // lb a0, -1(a1)
    (0x7ff1_1283, Lh, 5, 2, 0, 2047), // lh t0, 2047(sp)
    (0x8004_2083, Lw, 1, 8, 0, -2048), // lw ra, -2048(s0)
    (0x0000_4503, Lbu, 10, 0, 0, 0), // lbu a0, 0(zero)
    (0x4d2f_dd83, Lhu, 27, 31, 0, 1234), // lhu s11, 1234(t6)
    (0xfea5_8fa3, Sb, 0, 11, 10, -1), // sb a0, -1(a1)
    (0x7ff1_1fa3, Sh, 0, 2, 31, 2047), // sh t6, 2047(sp)
    (0x8014_2023, Sw, 0, 8, 1, -2048), // sw ra, -2048(s0)
    (0x0205_2023, Sw, 0, 10, 0, 32), // sw zero, 32(a0)
    (0x8005_8513, Addi, 10, 11, 0, -2048), // addi a0, a1, -2048
    (0x7ff3_2293, Slti, 5, 6, 0, 2047), // slti t0, t1, 2047
    (0xfff5_3513, Sltiu, 10, 10, 0, -1), // sltiu a0, a0, -1
    (0x5554_c413, Xori, 8, 9, 0, 0x555), // xori s0, s1, 0x555
    (0xaaa0_6613, Ori, 12, 0, 0, -1366), // ori a2, zero, -1366
    (0x0ffd_ff93, Andi, 31, 27, 0, 255), // andi t6, s11, 255
    (0x01f5_9513, Slli, 10, 11, 0, 31), // slli a0, a1, 31
    (0x0013_5293, Srli, 5, 6, 0, 1), // srli t0, t1, 1
    (0x4114_d413, Srai, 8, 9, 0, 17), // srai s0, s1, 17
    (0x4000_5013, Srai, 0, 0, 0, 0), // srai zero, zero, 0
    (0x00c5_8533, Add, 10, 11, 12, 0), // add a0, a1, a2
    (0x4073_02b3, Sub, 5, 6, 7, 0), // sub t0, t1, t2
    (0x01f4_9433, Sll, 8, 9, 31, 0), // sll s0, s1, t6
    (0x0031_20b3, Slt, 1, 2, 3, 0), // slt ra, sp, gp
    (0x0062_b233, Sltu, 4, 5, 6, 0), // sltu tp, t0, t1
    (0x0118_47b3, Xor, 15, 16, 17, 0), // xor a5, a6, a7
    (0x0149_d933, Srl, 18, 19, 20, 0), // srl s2, s3, s4
    (0x417b_5ab3, Sra, 21, 22, 23, 0), // sra s5, s6, s7
    (0x01ac_ec33, Or, 24, 25, 26, 0), // or s8, s9, s10
    (0x01ee_fe33, And, 28, 29, 30, 0), // and t3, t4, t5
    (0x0ff0_000f, Fence, 0, 0, 0, 0x0ff), // fence
    (0x0310_000f, Fence, 0, 0, 0, 0x031), // fence rw, w
    (0x8330_000f, Fence, 0, 0, 0, -1997), // fence.tso
    (0x0000_100f, Fence, 0, 0, 0, 0), // fence.i
    (0x0000_0073, Ecall, 0, 0, 0, 0), // ecall
    (0x0010_0073, Ebreak, 0, 0, 0, 0), // ebreak
    (0x3020_0073, Mret, 0, 0, 0, 0), // mret
    (0x1050_0073, Wfi, 0, 0, 0, 0), // wfi
    (0x3005_9573, Csrrw, 10, 11, 0, 0x300), // csrrw a0, mstatus, a1
    (0xfff2_a073, Csrrs, 0, 5, 0, 0xfff), // csrrs zero, 0xfff, t0
    (0x3420_3ff3, Csrrc, 31, 0, 0, 0x342), // csrrc t6, mcause, zero
    (0x8002_d573, Csrrwi, 10, 5, 0, 0x800), // csrrwi a0, 0x800, 5
    (0x304f_e073, Csrrsi, 0, 31, 0, 0x304), // csrrsi zero, mie, 31
    (0xc000_70f3, Csrrci, 1, 0, 0, 0xc00), // csrrci ra, cycle, 0
    (0x02c5_8533, Mul, 10, 11, 12, 0), // mul a0, a1, a2
    (0x0273_12b3, Mulh, 5, 6, 7, 0), // mulh t0, t1, t2
    (0x0324_a433, Mulhsu, 8, 9, 18, 0), // mulhsu s0, s1, s2
    (0x0231_30b3, Mulhu, 1, 2, 3, 0), // mulhu ra, sp, gp
    (0x02f7_46b3, Div, 13, 14, 15, 0), // div a3, a4, a5
    (0x03ee_de33, Divu, 28, 29, 30, 0), // divu t3, t4, t5
    (0x03fd_ed33, Rem, 26, 27, 31, 0), // rem s10, s11, t6
    (0x0200_7033, Remu, 0, 0, 0, 0), // remu zero, zero, zero
    (0x1005_a52f, LrW, 10, 11, 0, 0), // lr.w a0, (a1)
    (0x1604_2faf, LrW, 31, 8, 0, 0), // lr.w.aqrl t6, (s0)
    (0x18b6_252f, ScW, 10, 12, 11, 0), // sc.w a0, a1, (a2)
    (0x1a01_22af, ScW, 5, 2, 0, 0), // sc.w.rl t0, zero, (sp)
    (0x08b6_252f, AmoswapW, 10, 12, 11, 0), // amoswap.w a0, a1, (a2)
    (0x0497_a42f, AmoaddW, 8, 15, 9, 0), // amoadd.w.aq s0, s1, (a5)
    (0x21ee_afaf, AmoxorW, 31, 29, 30, 0), // amoxor.w t6, t5, (t4)
    (0x6211_202f, AmoandW, 0, 2, 1, 0), // amoand.w.rl zero, ra, (sp)
    (0x46e7_a6af, AmoorW, 13, 15, 14, 0), // amoor.w.aqrl a3, a4, (a5)
    (0x8021_a0af, AmominW, 1, 3, 2, 0), // amomin.w ra, sp, (gp)
    (0xa13a_292f, AmomaxW, 18, 20, 19, 0), // amomax.w s2, s3, (s4)
    (0xc16b_aaaf, AmominuW, 21, 23, 22, 0), // amominu.w s5, s6, (s7)
    (0xe19d_2c2f, AmomaxuW, 24, 26, 25, 0), // amomaxu.w s8, s9, (s10)
    (0x04c5_950b, Custom { k: 0, funct3: 1, funct7: 2 }, 10, 11, 12, 0), // .insn r CUSTOM_0, 1, 2, a0, a1, a2
    (0xfe14_7fab, Custom { k: 1, funct3: 7, funct7: 127 }, 31, 8, 1, 0), // .insn r CUSTOM_1, 7, 127, t6, s0, ra
    (0x0000_005b, Custom { k: 2, funct3: 0, funct7: 0 }, 0, 0, 0, 0), // .insn r CUSTOM_2, 0, 0, zero, zero, zero
    (0x8022_ddfb, Custom { k: 3, funct3: 5, funct7: 64 }, 27, 5, 2, 0), // .insn r CUSTOM_3, 5, 64, s11, t0, sp
    (0x0048, Addi, 10, 2, 0, 4), // c.addi4spn a0, sp, 4
    (0x1fe0, Addi, 8, 2, 0, 1020), // c.addi4spn s0, sp, 1020
    (0x041c, Addi, 15, 2, 0, 512), // c.addi4spn a5, sp, 512
    (0x0024, Addi, 9, 2, 0, 8), // c.addi4spn s1, sp, 8
    (0x0810, Addi, 12, 2, 0, 16), // c.addi4spn a2, sp, 16
    (0x0094, Addi, 13, 2, 0, 64), // c.addi4spn a3, sp, 64
    (0x4188, Lw, 10, 11, 0, 0), // c.lw a0, 0(a1)
    (0x5fe4, Lw, 9, 15, 0, 124), // c.lw s1, 124(a5)
    (0x4028, Lw, 10, 8, 0, 64), // c.lw a0, 64(s0)
    (0x42d0, Lw, 12, 13, 0, 4), // c.lw a2, 4(a3)
    (0x5400, Lw, 8, 8, 0, 40), // c.lw s0, 40(s0)
    (0xc188, Sw, 0, 11, 10, 0), // c.sw a0, 0(a1)
    (0xdfe4, Sw, 0, 15, 9, 124), // c.sw s1, 124(a5)
    (0xc070, Sw, 0, 8, 12, 68), // c.sw a2, 68(s0)
    (0x0001, Addi, 0, 0, 0, 0), // c.nop
    (0x0015, Addi, 0, 0, 0, 5), // c.nop 5 (HINT)
    (0x1001, Addi, 0, 0, 0, -32), // c.nop -32 (HINT)
    (0x0505, Addi, 10, 10, 0, 1), // c.addi a0, 1
    (0x1281, Addi, 5, 5, 0, -32), // c.addi t0, -32
    (0x0dfd, Addi, 27, 27, 0, 31), // c.addi s11, 31
    (0x0501, Addi, 10, 10, 0, 0), // c.addi a0, 0 (HINT)
    (0x2ffd, Jal, 1, 0, 0, 2046), // c.jal 2046
    (0x3001, Jal, 1, 0, 0, -2048), // c.jal -2048
    (0x3ff5, Jal, 1, 0, 0, -4), // c.jal -4
    (0x246d, Jal, 1, 0, 0, 0x2aa), // c.jal 0x2aa
    (0x2b91, Jal, 1, 0, 0, 0x554), // c.jal 0x554
    (0x4515, Addi, 10, 0, 0, 5), // c.li a0, 5
    (0x5301, Addi, 6, 0, 0, -32), // c.li t1, -32
    (0x40fd, Addi, 1, 0, 0, 31), // c.li ra, 31
    (0x401d, Addi, 0, 0, 0, 7), // c.li zero, 7 (HINT)
    (0x7139, Addi, 2, 2, 0, -64), // c.addi16sp sp, -64
    (0x617d, Addi, 2, 2, 0, 496), // c.addi16sp sp, 496
    (0x7101, Addi, 2, 2, 0, -512), // c.addi16sp sp, -512
    (0x6141, Addi, 2, 2, 0, 16), // c.addi16sp sp, 16
    (0x6105, Addi, 2, 2, 0, 32), // c.addi16sp sp, 32
    (0x6121, Addi, 2, 2, 0, 64), // c.addi16sp sp, 64
    (0x6109, Addi, 2, 2, 0, 128), // c.addi16sp sp, 128
    (0x6111, Addi, 2, 2, 0, 256), // c.addi16sp sp, 256
    (0x6405, Lui, 8, 0, 0, 4096), // c.lui s0, 1
    (0x77fd, Lui, 15, 0, 0, -4096), // c.lui a5, 0xfffff
    (0x7281, Lui, 5, 0, 0, -131072), // c.lui t0, 0xfffe0
    (0x6ffd, Lui, 31, 0, 0, 126976), // c.lui t6, 31
    (0x6005, Lui, 0, 0, 0, 4096), // c.lui zero, 1 (HINT)
    (0x8005, Srli, 8, 8, 0, 1), // c.srli s0, 1
    (0x83fd, Srli, 15, 15, 0, 31), // c.srli a5, 31
    (0x8101, Srli, 10, 10, 0, 0), // c.srli a0, 0 (HINT)
    (0x851d, Srai, 10, 10, 0, 7), // c.srai a0, 7
    (0x84c1, Srai, 9, 9, 0, 16), // c.srai s1, 16
    (0x887d, Andi, 8, 8, 0, 31), // c.andi s0, 31
    (0x9b81, Andi, 15, 15, 0, -32), // c.andi a5, -32
    (0x997d, Andi, 10, 10, 0, -1), // c.andi a0, -1
    (0x8c05, Sub, 8, 8, 9, 0), // c.sub s0, s1
    (0x8d3d, Xor, 10, 10, 15, 0), // c.xor a0, a5
    (0x8dd1, Or, 11, 11, 12, 0), // c.or a1, a2
    (0x8fe1, And, 15, 15, 8, 0), // c.and a5, s0
    (0xb001, Jal, 0, 0, 0, -2048), // c.j -2048
    (0xa095, Jal, 0, 0, 0, 100), // c.j 100
    (0xbffd, Jal, 0, 0, 0, -2), // c.j -2
    (0xc501, Beq, 0, 10, 0, 8), // c.beqz a0, 8
    (0xccfd, Beq, 0, 9, 0, 254), // c.beqz s1, 254
    (0xc64d, Beq, 0, 12, 0, 0xaa), // c.beqz a2, 0x0aa
    (0xfc6d, Bne, 0, 8, 0, -6), // c.bnez s0, -6
    (0xf381, Bne, 0, 15, 0, -256), // c.bnez a5, -256
    (0xeab1, Bne, 0, 13, 0, 0x54), // c.bnez a3, 0x54
    (0x0506, Slli, 10, 10, 0, 1), // c.slli a0, 1
    (0x02fe, Slli, 5, 5, 0, 31), // c.slli t0, 31
    (0x000e, Slli, 0, 0, 0, 3), // c.slli zero, 3 (HINT)
    (0x0502, Slli, 10, 10, 0, 0), // c.slli a0, 0 (HINT)
    (0x4082, Lw, 1, 2, 0, 0), // c.lwsp ra, 0(sp)
    (0x557e, Lw, 10, 2, 0, 252), // c.lwsp a0, 252(sp)
    (0x4f9a, Lw, 31, 2, 0, 132), // c.lwsp t6, 132(sp)
    (0x5402, Lw, 8, 2, 0, 32), // c.lwsp s0, 32(sp)
    (0x4586, Lw, 11, 2, 0, 64), // c.lwsp a1, 64(sp)
    (0x8082, Jalr, 0, 1, 0, 0), // c.jr ra
    (0x8f82, Jalr, 0, 31, 0, 0), // c.jr t6
    (0x852e, Add, 10, 0, 11, 0), // c.mv a0, a1
    (0x82ee, Add, 5, 0, 27, 0), // c.mv t0, s11
    (0x802e, Add, 0, 0, 11, 0), // c.mv zero, a1 (HINT)
    (0x9002, Ebreak, 0, 0, 0, 0), // c.ebreak
    (0x9282, Jalr, 1, 5, 0, 0), // c.jalr t0
    (0x9082, Jalr, 1, 1, 0, 0), // c.jalr ra
    (0x952e, Add, 10, 10, 11, 0), // c.add a0, a1
    (0x90fe, Add, 1, 1, 31, 0), // c.add ra, t6
    (0x902e, Add, 0, 0, 11, 0), // c.add zero, a1 (HINT)
    (0xc006, Sw, 0, 2, 1, 0), // c.swsp ra, 0(sp)
    (0xdfaa, Sw, 0, 2, 10, 252), // c.swsp a0, 252(sp)
    (0xc37e, Sw, 0, 2, 31, 132), // c.swsp t6, 132(sp)
    (0xde22, Sw, 0, 2, 8, 60), // c.swsp s0, 60(sp)
];

/// A distinct index for every operation (Custom: one per `k`); the match is exhaustive so that a
/// new operation must be added here, and then to [`HAND`].
fn op_index(op: Op) -> usize {
    match op {
        Lui => 0,
        Auipc => 1,
        Jal => 2,
        Jalr => 3,
        Beq => 4,
        Bne => 5,
        Blt => 6,
        Bge => 7,
        Bltu => 8,
        Bgeu => 9,
        Lb => 10,
        Lh => 11,
        Lw => 12,
        Lbu => 13,
        Lhu => 14,
        Sb => 15,
        Sh => 16,
        Sw => 17,
        Addi => 18,
        Slti => 19,
        Sltiu => 20,
        Xori => 21,
        Ori => 22,
        Andi => 23,
        Slli => 24,
        Srli => 25,
        Srai => 26,
        Add => 27,
        Sub => 28,
        Sll => 29,
        Slt => 30,
        Sltu => 31,
        Xor => 32,
        Srl => 33,
        Sra => 34,
        Or => 35,
        And => 36,
        Fence => 37,
        Ecall => 38,
        Ebreak => 39,
        Mret => 40,
        Wfi => 41,
        Csrrw => 42,
        Csrrs => 43,
        Csrrc => 44,
        Csrrwi => 45,
        Csrrsi => 46,
        Csrrci => 47,
        Mul => 48,
        Mulh => 49,
        Mulhsu => 50,
        Mulhu => 51,
        Div => 52,
        Divu => 53,
        Rem => 54,
        Remu => 55,
        LrW => 56,
        ScW => 57,
        AmoswapW => 58,
        AmoaddW => 59,
        AmoxorW => 60,
        AmoandW => 61,
        AmoorW => 62,
        AmominW => 63,
        AmomaxW => 64,
        AmominuW => 65,
        AmomaxuW => 66,
        Custom { k, .. } => 67 + k as usize,
    }
}
const OP_COUNT: usize = 71;

fn inst(raw: u32, op: Op, rd: u8, rs1: u8, rs2: u8, imm: i32) -> Inst {
    let len = if raw & 3 == 3 { 4 } else { 2 };
    Inst { op, rd, rs1, rs2, imm, len, raw }
}

#[test]
fn hand_checked_encodings() {
    for &(raw, op, rd, rs1, rs2, imm) in HAND {
        assert_eq!(decode(raw), Ok(inst(raw, op, rd, rs1, rs2, imm)), "{raw:#010x}");
    }
}

#[test]
fn every_op_and_compressed_form_is_hand_checked() {
    let mut seen = [false; OP_COUNT];
    for &(_, op, ..) in HAND {
        seen[op_index(op)] = true;
    }
    let missing: Vec<usize> = (0..OP_COUNT).filter(|&i| !seen[i]).collect();
    assert!(missing.is_empty(), "operations without a hand-checked encoding: {missing:?}");
    // Every (quadrant, funct3) slot of RV32C without floating point appears too.
    for (quadrant, funct3) in [(0, 0), (0, 2), (0, 6), (1, 0), (1, 1), (1, 2), (1, 3), (1, 4), (1, 5), (1, 6), (1, 7)]
        .into_iter()
        .chain([(2, 0), (2, 2), (2, 4), (2, 6)])
    {
        assert!(
            HAND.iter().any(|&(raw, ..)| raw & 3 == quadrant && raw & 3 != 3 && raw >> 13 == funct3 && raw < 0x10000),
            "no compressed encoding in quadrant {quadrant}, funct3 {funct3}"
        );
    }
}

#[test]
fn compressed_words_use_only_the_low_half() {
    for &(raw, op, rd, rs1, rs2, imm) in HAND.iter().filter(|e| e.0 & 3 != 3) {
        for high in [0xffff_0000, 0x1234_0000, 0x0003_0000] {
            assert_eq!(decode(raw | high), Ok(inst(raw, op, rd, rs1, rs2, imm)), "{:#010x}", raw | high);
        }
    }
    assert_eq!(decode(0xdead_0000), Err(0));
    assert_eq!(decode(0x0003_8002), Err(0x8002));
}

#[test]
fn every_16_bit_word_decodes_consistently() {
    let mut legal = 0;
    for h in (0..0x1_0000u32).filter(|h| h & 3 != 3) {
        match decode(h) {
            Ok(i) => {
                legal += 1;
                assert_eq!((i.len, i.raw), (2, h), "{h:#06x}");
                assert!(i.rd < 32 && i.rs1 < 32 && i.rs2 < 32, "{h:#06x}: {i:?}");
            }
            Err(raw) => assert_eq!(raw, h),
        }
    }
    // 49152 words minus: quadrant-0 funct3 1, 3, 4, 5, 7 (5 * 2048), c.addi4spn with nzuimm 0 (8),
    // c.addi16sp/c.lui with imm 0 (32), c.srli/c.srai with shamt[5] (2 * 256), c.subw/c.addw and
    // the two reserved slots (4 * 64), c.slli with shamt[5] (1024), c.fldsp, c.flwsp, c.fsdsp,
    // c.fswsp (4 * 2048), c.lwsp with rd 0 (64), c.jr with rs1 0 (1).
    let illegal = 5 * 2048 + 8 + 32 + 2 * 256 + 4 * 64 + 1024 + 4 * 2048 + 64 + 1;
    assert_eq!(legal, 49152 - illegal);
}

#[test]
fn rejects_zero_and_longer_than_32_bit_encodings() {
    assert_eq!(decode(0), Err(0));
    for w in [0x0000_001f, 0x0000_003f, 0x0000_007f, 0x0000_005f, 0xffff_ffff, 0x1234_5fff, 0x0000_107f] {
        assert_eq!(decode(w), Err(w), "{w:#010x}");
    }
}

#[test]
fn rejects_unknown_major_opcodes() {
    // opcode[6:2] values that are decoded: LOAD, custom-0, MISC-MEM, OP-IMM, AUIPC, STORE,
    // custom-1, AMO, OP, LUI, custom-2, BRANCH, JALR, JAL, SYSTEM, custom-3; 0x1f is > 32 bits.
    let known = [0x00, 0x02, 0x03, 0x04, 0x05, 0x08, 0x0a, 0x0b, 0x0c, 0x0d, 0x16, 0x18, 0x19, 0x1b, 0x1c, 0x1e];
    for major in (0..32u32).filter(|m| !known.contains(m)) {
        for high in [0, 0xffff_ff80, 0x0000_0f80, 0x8000_0000, 0x4020_2000] {
            let w = high | major << 2 | 3;
            assert_eq!(decode(w), Err(w), "{w:#010x}");
        }
    }
}

#[test]
fn rejects_reserved_funct3() {
    let cases: &[(u32, &[u32])] = &[
        (0x67, &[1, 2, 3, 4, 5, 6, 7]), // JALR
        (0x63, &[2, 3]),                // BRANCH
        (0x03, &[3, 6, 7]),             // LOAD
        (0x23, &[3, 4, 5, 6, 7]),       // STORE
        (0x0f, &[2, 3, 4, 5, 6, 7]),    // MISC-MEM
        (0x73, &[4]),                   // SYSTEM
        (0x2f, &[0, 1, 3, 4, 5, 6, 7]), // AMO (only .w)
    ];
    for &(opcode, funct3s) in cases {
        for &funct3 in funct3s {
            for high in [0, 0x0000_0f80, 0xffff_8f80, 0x0020_0000] {
                let w = high | funct3 << 12 | opcode;
                assert_eq!(decode(w), Err(w), "{w:#010x}");
            }
        }
    }
}

#[test]
fn op_and_shift_funct7_table() {
    for funct7 in 0..128u32 {
        for funct3 in 0..8u32 {
            let w = funct7 << 25 | 7 << 20 | 11 << 15 | funct3 << 12 | 10 << 7;
            let op = decode(w | 0x33).ok().map(|i| i.op);
            let want = match (funct7, funct3) {
                (0, _) => Some([Add, Sll, Slt, Sltu, Xor, Srl, Or, And][funct3 as usize]),
                (0x20, 0) => Some(Sub),
                (0x20, 5) => Some(Sra),
                (1, _) => Some([Mul, Mulh, Mulhsu, Mulhu, Div, Divu, Rem, Remu][funct3 as usize]),
                _ => None,
            };
            assert_eq!(op, want, "OP {:#010x}", w | 0x33);
            let op = decode(w | 0x13).ok().map(|i| i.op);
            let want = match (funct3, funct7) {
                (1, 0) => Some(Slli),
                (5, 0) => Some(Srli),
                (5, 0x20) => Some(Srai),
                (1 | 5, _) => None, // includes shamt[5] = 1 (funct7 bit 0)
                _ => Some([Addi, Slli, Slti, Sltiu, Xori, Srli, Ori, Andi][funct3 as usize]),
            };
            assert_eq!(op, want, "OP-IMM {:#010x}", w | 0x13);
        }
    }
}

#[test]
fn amo_funct5_table() {
    let ops = [
        (0x00, AmoaddW),
        (0x01, AmoswapW),
        (0x02, LrW),
        (0x03, ScW),
        (0x04, AmoxorW),
        (0x08, AmoorW),
        (0x0c, AmoandW),
        (0x10, AmominW),
        (0x14, AmomaxW),
        (0x18, AmominuW),
        (0x1c, AmomaxuW),
    ];
    for funct5 in 0..32u32 {
        for aqrl in 0..4u32 {
            let rs2 = if funct5 == 2 { 0 } else { 12 };
            let w = funct5 << 27 | aqrl << 25 | rs2 << 20 | 11 << 15 | 2 << 12 | 10 << 7 | 0x2f;
            let want = ops.iter().find(|o| o.0 == funct5).map(|o| inst(w, o.1, 10, 11, rs2 as u8, 0));
            assert_eq!(decode(w).ok(), want, "{w:#010x}");
        }
    }
    // lr.w requires rs2 == 0.
    for rs2 in 1..32u32 {
        let w = 0x1000_0000 | rs2 << 20 | 11 << 15 | 2 << 12 | 10 << 7 | 0x2f;
        assert_eq!(decode(w), Err(w), "{w:#010x}");
    }
}

#[test]
fn system_funct3_0_accepts_only_the_four_known_words() {
    for w in [
        0x1020_0073, // sret
        0x0020_0073, // uret
        0x7b20_0073, // dret
        0x1200_0073, // sfence.vma
        0x0000_00f3, // ecall with rd != 0
        0x0000_8073, // ecall with rs1 != 0
        0x0010_0873, // ebreak with rd != 0
        0x0030_0073, // imm 3
        0x3020_0173, // mret with rd != 0
        0x1050_8073, // wfi with rs1 != 0
        0x1040_0073,
        0x3060_0073,
        0xfff0_0073,
    ] {
        assert_eq!(decode(w), Err(w), "{w:#010x}");
    }
}

#[test]
fn fence_ignores_its_reserved_fields() {
    // FENCE with rd/rs1 set and unknown fm, FENCE.I with imm/rs1/rd set: ordinary fences.
    assert_eq!(decode(0x0ff5_850f), Ok(inst(0x0ff5_850f, Fence, 10, 11, 0, 0x0ff)));
    assert_eq!(decode(0xf335_858f), Ok(inst(0xf335_858f, Fence, 11, 11, 0, -205)));
    assert_eq!(decode(0x0015_950f), Ok(inst(0x0015_950f, Fence, 10, 11, 0, 1)));
}

#[test]
fn rejects_reserved_and_floating_point_compressed_encodings() {
    let cases: &[(u32, &str)] = &[
        (0x0000, "all-zero (defined illegal)"),
        (0x0010, "c.addi4spn with nzuimm 0, rd' = a2"),
        (0x001c, "c.addi4spn with nzuimm 0, rd' = a5"),
        (0x2000, "c.fld"),
        (0x2c84, "c.fld"),
        (0x6000, "c.flw"),
        (0x6d84, "c.flw"),
        (0x8000, "reserved (quadrant 0, funct3 100)"),
        (0x9c84, "reserved (quadrant 0, funct3 100)"),
        (0xa000, "c.fsd"),
        (0xe000, "c.fsw"),
        (0xe4a4, "c.fsw"),
        (0x6101, "c.addi16sp with nzimm 0"),
        (0x6081, "c.lui ra with nzimm 0"),
        (0x6001, "c.lui zero with nzimm 0"),
        (0x6f81, "c.lui t6 with nzimm 0"),
        (0x9001, "c.srli with shamt[5] = 1"),
        (0x907d, "c.srli with shamt[5] = 1"),
        (0x9401, "c.srai with shamt[5] = 1"),
        (0x9c01, "c.subw (RV64)"),
        (0x9c21, "c.addw (RV64)"),
        (0x9c41, "reserved"),
        (0x9c61, "reserved"),
        (0x9fe5, "reserved"),
        (0x1502, "c.slli with shamt[5] = 1"),
        (0x1002, "c.slli zero with shamt[5] = 1"),
        (0x107e, "c.slli zero with shamt 63"),
        (0x2002, "c.fldsp"),
        (0x6002, "c.flwsp"),
        (0x6502, "c.flwsp"),
        (0xa002, "c.fsdsp"),
        (0xe002, "c.fswsp"),
        (0xe02a, "c.fswsp"),
        (0x4002, "c.lwsp with rd 0"),
        (0x507e, "c.lwsp with rd 0"),
        (0x8002, "c.jr with rs1 0"),
    ];
    for &(h, what) in cases {
        assert_eq!(decode(h), Err(h), "{h:#06x} ({what})");
    }
}

#[test]
fn compressed_hints_expand_to_their_base_instruction() {
    let cases = [
        (0x0015, Addi, 0, 0, 0, 5),    // c.nop 5
        (0x000d, Addi, 0, 0, 0, 3),    // c.addi zero, 3
        (0x0501, Addi, 10, 10, 0, 0),  // c.addi a0, 0
        (0x401d, Addi, 0, 0, 0, 7),    // c.li zero, 7
        (0x707d, Lui, 0, 0, 0, -4096), // c.lui zero, 0xfffff
        (0x802e, Add, 0, 0, 11, 0),    // c.mv zero, a1
        (0x902e, Add, 0, 0, 11, 0),    // c.add zero, a1
        (0x000e, Slli, 0, 0, 0, 3),    // c.slli zero, 3
        (0x0502, Slli, 10, 10, 0, 0),  // c.slli a0, 0 (c.slli64)
        (0x0002, Slli, 0, 0, 0, 0),    // c.slli zero, 0
        (0x8001, Srli, 8, 8, 0, 0),    // c.srli s0, 0 (c.srli64)
        (0x8401, Srai, 8, 8, 0, 0),    // c.srai s0, 0 (c.srai64)
    ];
    for (h, op, rd, rs1, rs2, imm) in cases {
        assert_eq!(decode(h), Ok(inst(h, op, rd, rs1, rs2, imm)), "{h:#06x}");
    }
}

// ---- Cross-checks against LLVM ----

const LLVM_BIN: &str = "/usr/lib/llvm-22/bin";

/// The path of an LLVM tool; panics (the test must not pass silently) when it is missing.
fn llvm_tool(name: &str) -> PathBuf {
    let path = Path::new(LLVM_BIN).join(name);
    assert!(
        path.is_file(),
        "{} not found: the decoder cross-check needs LLVM 22's {name} (install the llvm-22 package)",
        path.display()
    );
    path
}

/// A fresh directory under the system temporary directory, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        let nanos = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_nanos();
        let dir = std::env::temp_dir().join(format!("umac-sim-decode-{tag}-{}-{nanos}", std::process::id()));
        fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// Runs a command, panicking with its stderr when it fails; returns (stdout, stderr).
fn run(cmd: &mut Command) -> (String, String) {
    let out = cmd.output().unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{cmd:?} failed: {stderr}");
    (String::from_utf8_lossy(&out.stdout).into_owned(), stderr)
}

/// Assembles `source` for RV32 with the given `-mattr` and returns the bytes of `.text`.
fn assemble(dir: &Path, source: &str, mattr: &str, name: &str) -> Vec<u8> {
    let (mc, objcopy) = (llvm_tool("llvm-mc"), llvm_tool("llvm-objcopy"));
    let (src, obj, bin) =
        (dir.join(format!("{name}.s")), dir.join(format!("{name}.o")), dir.join(format!("{name}.bin")));
    fs::write(&src, source).unwrap();
    run(Command::new(mc)
        .args(["--triple=riscv32", &format!("-mattr={mattr}"), "-filetype=obj", "-o"])
        .arg(&obj)
        .arg(&src));
    run(Command::new(objcopy).args(["-O", "binary", "--only-section=.text"]).arg(&obj).arg(&bin));
    fs::read(&bin).unwrap()
}

/// Decodes a byte stream instruction by instruction (2 or 4 bytes by the low bits).
fn decode_stream(bytes: &[u8]) -> Vec<Inst> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let half = u16::from_le_bytes([bytes[at], bytes[at + 1]]) as u32;
        let word = if half & 3 == 3 {
            assert!(at + 4 <= bytes.len(), "truncated 32-bit instruction at byte {at}");
            u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap())
        } else {
            half
        };
        let i = decode(word).unwrap_or_else(|raw| panic!("byte {at}: {raw:#010x} rejected"));
        at += i.len as usize;
        out.push(i);
    }
    out
}

/// One instruction per line; lines marked `# c` must be compressed when the C extension is on
/// (x8-x15 for the 3-bit register fields, immediates in range), the others must not be. No
/// pseudo-instructions, and no forms that LLVM compresses into a different base instruction
/// (such as `addi rd, rs, 0`, which becomes `c.mv`, that is `add rd, x0, rs`).
const CROSS_CHECK_SOURCE: &str = "\
lui a0, 0x12345\n\
lui a0, 0x80000\n\
lui sp, 5\n\
lui s0, 1 # c\n\
lui a5, 0xfffff # c\n\
lui t0, 0xfffe0 # c\n\
lui t6, 31 # c\n\
auipc a0, 0x80000\n\
auipc t1, 1\n\
jal a0, 4096\n\
jal ra, 1048574\n\
jal zero, -1048576\n\
jal ra, 2046 # c\n\
jal ra, -2048 # c\n\
jal ra, -4 # c\n\
jal ra, 0x2aa # c\n\
jal ra, 0x554 # c\n\
jal zero, -2048 # c\n\
jal zero, 100 # c\n\
jal zero, 2046 # c\n\
jalr a0, -1(a1)\n\
jalr zero, 4(a0)\n\
jalr ra, 0(a0) # c\n\
jalr ra, 0(t6) # c\n\
jalr zero, 0(ra) # c\n\
jalr zero, 0(s11) # c\n\
beq a0, a1, -4096\n\
blt a0, a1, 4094\n\
bge t0, t1, 8\n\
bltu s0, s1, -2\n\
bgeu zero, a0, 16\n\
bne t0, zero, 4\n\
beq a0, zero, 256\n\
beq a0, zero, 8 # c\n\
beq s1, zero, 254 # c\n\
beq a2, zero, 0xaa # c\n\
bne s0, zero, -6 # c\n\
bne a5, zero, -256 # c\n\
bne a3, zero, 0x54 # c\n\
lb a0, -1(a1)\n\
lh t0, 2047(sp)\n\
lbu s0, -2048(s1)\n\
lhu a5, 0(a0)\n\
lw a0, 128(a1)\n\
lw a0, -4(a1)\n\
lw t0, 0(a1)\n\
lw a0, 0(a1) # c\n\
lw s1, 124(a5) # c\n\
lw a0, 64(s0) # c\n\
lw a2, 4(a3) # c\n\
lw ra, 0(sp) # c\n\
lw a0, 252(sp) # c\n\
lw t6, 132(sp) # c\n\
lw s0, 32(sp) # c\n\
lw a1, 64(sp) # c\n\
lw a0, 256(sp)\n\
sb a0, -1(a1)\n\
sh t6, 2047(sp)\n\
sw a0, -2048(a1)\n\
sw t0, 0(a1)\n\
sw a0, 2(a1)\n\
sw a0, 0(a1) # c\n\
sw s1, 124(a5) # c\n\
sw a2, 68(s0) # c\n\
sw ra, 0(sp) # c\n\
sw a0, 252(sp) # c\n\
sw t6, 132(sp) # c\n\
sw s0, 60(sp) # c\n\
sw zero, 0(sp) # c\n\
addi a0, sp, 4 # c\n\
addi s0, sp, 1020 # c\n\
addi a5, sp, 512 # c\n\
addi s1, sp, 8 # c\n\
addi a2, sp, 16 # c\n\
addi a3, sp, 64 # c\n\
addi a0, sp, 1024\n\
addi t0, sp, 4\n\
addi zero, zero, 0 # c\n\
addi a0, a0, 1 # c\n\
addi t0, t0, -32 # c\n\
addi s11, s11, 31 # c\n\
addi a0, a0, 32\n\
addi a0, a1, 2047\n\
addi a0, zero, 5 # c\n\
addi t1, zero, -32 # c\n\
addi ra, zero, 31 # c\n\
addi sp, sp, -64 # c\n\
addi sp, sp, 496 # c\n\
addi sp, sp, -512 # c\n\
addi sp, sp, 16 # c\n\
addi sp, sp, 32 # c\n\
addi sp, sp, 128 # c\n\
addi sp, sp, 256 # c\n\
addi sp, sp, 8 # c\n\
addi sp, sp, 1024\n\
slti a0, a1, -1\n\
sltiu t0, t1, 2047\n\
xori a0, a1, -2048\n\
ori s0, s1, 0x555\n\
andi a0, a1, 5\n\
andi t0, t0, 5\n\
andi s0, s0, 31 # c\n\
andi a5, a5, -32 # c\n\
andi a0, a0, -1 # c\n\
andi a0, a0, 32\n\
slli a0, a1, 3\n\
slli a0, a0, 1 # c\n\
slli t0, t0, 31 # c\n\
slli ra, ra, 16 # c\n\
srli a0, a1, 3\n\
srli t0, t0, 1\n\
srli s0, s0, 1 # c\n\
srli a5, a5, 31 # c\n\
srai a0, a1, 31\n\
srai a0, a0, 7 # c\n\
srai s1, s1, 16 # c\n\
add a0, a1, a2\n\
add a0, a0, a1 # c\n\
add ra, ra, t6 # c\n\
add sp, sp, a0 # c\n\
add a0, zero, a1 # c\n\
add t0, zero, s11 # c\n\
sub a0, a1, a2\n\
sub t0, t0, t1\n\
sub s0, s0, s1 # c\n\
xor a0, a0, a5 # c\n\
or a1, a1, a2 # c\n\
and a5, a5, s0 # c\n\
sll a0, a1, a2\n\
slt t0, t1, t2\n\
sltu s0, s1, s2\n\
xor a0, a1, a2\n\
srl a3, a4, a5\n\
sra t3, t4, t5\n\
or s8, s9, s10\n\
and t0, t0, t1\n\
fence\n\
fence rw, w\n\
fence.tso\n\
fence.i\n\
ecall\n\
ebreak # c\n\
mret\n\
wfi\n\
csrrw a0, mstatus, a1\n\
csrrs zero, 0xfff, t0\n\
csrrc t6, mcause, zero\n\
csrrwi a0, 0x800, 5\n\
csrrsi zero, mie, 31\n\
csrrci ra, cycle, 0\n\
mul a0, a1, a2\n\
mulh t0, t1, t2\n\
mulhsu s0, s1, s2\n\
mulhu ra, sp, gp\n\
div a3, a4, a5\n\
divu t3, t4, t5\n\
rem s10, s11, t6\n\
remu a0, a0, a1\n\
lr.w a0, (a1)\n\
lr.w.aq t6, (s0)\n\
sc.w a0, a1, (a2)\n\
sc.w.aqrl t0, zero, (sp)\n\
amoswap.w a0, a1, (a2)\n\
amoadd.w.aq s0, s1, (a5)\n\
amoxor.w t6, t5, (t4)\n\
amoand.w.rl zero, ra, (sp)\n\
amoor.w.aqrl a3, a4, (a5)\n\
amomin.w ra, sp, (gp)\n\
amomax.w s2, s3, (s4)\n\
amominu.w s5, s6, (s7)\n\
amomaxu.w s8, s9, (s10)\n\
.insn r CUSTOM_0, 1, 2, a0, a1, a2\n\
.insn r CUSTOM_1, 7, 127, t6, s0, ra\n\
.insn r CUSTOM_2, 0, 0, zero, zero, zero\n\
.insn r CUSTOM_3, 5, 64, s11, t0, sp\n\
";

#[test]
fn compressed_build_decodes_like_uncompressed_build() {
    let dir = TempDir::new("cross");
    let compressed = decode_stream(&assemble(&dir.0, CROSS_CHECK_SOURCE, "+m,+a,+c", "rvc"));
    let full = decode_stream(&assemble(&dir.0, CROSS_CHECK_SOURCE, "+m,+a", "full"));
    let lines: Vec<&str> = CROSS_CHECK_SOURCE.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(full.len(), lines.len(), "instruction count of the uncompressed build");
    assert_eq!(compressed.len(), lines.len(), "instruction count of the compressed build");
    let mut compressed_count = 0;
    for ((c, f), line) in compressed.iter().zip(&full).zip(&lines) {
        assert_eq!(f.len, 4, "{line}: uncompressed build has a 16-bit instruction");
        let want_len = if line.ends_with("# c") { 2 } else { 4 };
        assert_eq!(c.len, want_len, "{line}: compressed build, {:#x}", c.raw);
        compressed_count += usize::from(c.len == 2);
        assert_eq!(
            (c.op, c.rd, c.rs1, c.rs2, c.imm),
            (f.op, f.rd, f.rs1, f.rs2, f.imm),
            "{line}: {:#x} vs {:#010x}",
            c.raw,
            f.raw
        );
    }
    assert!(compressed_count >= 80, "only {compressed_count} compressed instructions");
}

const REG_NAMES: [&str; 32] = [
    "zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "s1", "a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "s2",
    "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6",
];

/// The fields an instruction printed by `llvm-mc --disassemble -M no-aliases` decodes to, or
/// `None` for `c.unimp` (the all-zero word, which is illegal by definition).
fn fields_from_llvm(text: &str) -> Option<(Op, u8, u8, u8, i32)> {
    let text = text.trim();
    let (mnemonic, rest) = text.split_once(char::is_whitespace).unwrap_or((text, ""));
    let args: Vec<&str> = rest.split([',', '(', ')']).map(str::trim).filter(|s| !s.is_empty()).collect();
    let r = |i: usize| -> u8 {
        let name = args.get(i).unwrap_or_else(|| panic!("{text}: missing operand {i}"));
        REG_NAMES.iter().position(|n| n == name).unwrap_or_else(|| panic!("{text}: not a register: {name}")) as u8
    };
    let n = |i: usize| -> i32 {
        let s = args.get(i).unwrap_or_else(|| panic!("{text}: missing operand {i}"));
        s.parse::<i64>().unwrap_or_else(|e| panic!("{text}: {s}: {e}")) as i32
    };
    let upper = |i: usize| ((n(i) as u32) << 12) as i32;
    let mnemonic = mnemonic.trim_end_matches(".aqrl").trim_end_matches(".aq").trim_end_matches(".rl");
    let r_type = |op| Some((op, r(0), r(1), r(2), 0));
    let i_type = |op| Some((op, r(0), r(1), 0, n(2)));
    let load = |op| Some((op, r(0), r(2), 0, n(1)));
    let store = |op| Some((op, 0, r(2), r(0), n(1)));
    let branch = |op| Some((op, 0, r(0), r(1), n(2)));
    let amo = |op| Some((op, r(0), r(2), r(1), 0));
    let c_rr = |op| Some((op, r(0), r(0), r(1), 0));
    let c_ri = |op| Some((op, r(0), r(0), 0, n(1)));
    match mnemonic {
        "c.unimp" => None,
        "c.nop" => Some((Addi, 0, 0, 0, if args.is_empty() { 0 } else { n(0) })),
        "c.addi" => c_ri(Addi),
        "c.addi4spn" => Some((Addi, r(0), 2, 0, n(2))),
        "c.addi16sp" => Some((Addi, 2, 2, 0, n(1))),
        "c.li" => Some((Addi, r(0), 0, 0, n(1))),
        "c.lui" => Some((Lui, r(0), 0, 0, upper(1))),
        "c.lw" | "c.lwsp" => load(Lw),
        "c.sw" | "c.swsp" => store(Sw),
        "c.jal" => Some((Jal, 1, 0, 0, n(0))),
        "c.j" => Some((Jal, 0, 0, 0, n(0))),
        "c.beqz" => Some((Beq, 0, r(0), 0, n(1))),
        "c.bnez" => Some((Bne, 0, r(0), 0, n(1))),
        "c.slli" => c_ri(Slli),
        "c.srli" => c_ri(Srli),
        "c.srai" => c_ri(Srai),
        "c.andi" => c_ri(Andi),
        "c.sub" => c_rr(Sub),
        "c.xor" => c_rr(Xor),
        "c.or" => c_rr(Or),
        "c.and" => c_rr(And),
        "c.add" => c_rr(Add),
        "c.mv" => Some((Add, r(0), 0, r(1), 0)),
        "c.jr" => Some((Jalr, 0, r(0), 0, 0)),
        "c.jalr" => Some((Jalr, 1, r(0), 0, 0)),
        "c.ebreak" => Some((Ebreak, 0, 0, 0, 0)),
        "lui" => Some((Lui, r(0), 0, 0, upper(1))),
        "auipc" => Some((Auipc, r(0), 0, 0, upper(1))),
        "jal" => Some((Jal, r(0), 0, 0, n(1))),
        "jalr" => load(Jalr),
        "beq" => branch(Beq),
        "bne" => branch(Bne),
        "blt" => branch(Blt),
        "bge" => branch(Bge),
        "bltu" => branch(Bltu),
        "bgeu" => branch(Bgeu),
        "lb" => load(Lb),
        "lh" => load(Lh),
        "lw" => load(Lw),
        "lbu" => load(Lbu),
        "lhu" => load(Lhu),
        "sb" => store(Sb),
        "sh" => store(Sh),
        "sw" => store(Sw),
        "addi" => i_type(Addi),
        "slti" => i_type(Slti),
        "sltiu" => i_type(Sltiu),
        "xori" => i_type(Xori),
        "ori" => i_type(Ori),
        "andi" => i_type(Andi),
        "slli" => i_type(Slli),
        "srli" => i_type(Srli),
        "srai" => i_type(Srai),
        "add" => r_type(Add),
        "sub" => r_type(Sub),
        "sll" => r_type(Sll),
        "slt" => r_type(Slt),
        "sltu" => r_type(Sltu),
        "xor" => r_type(Xor),
        "srl" => r_type(Srl),
        "sra" => r_type(Sra),
        "or" => r_type(Or),
        "and" => r_type(And),
        "mul" => r_type(Mul),
        "mulh" => r_type(Mulh),
        "mulhsu" => r_type(Mulhsu),
        "mulhu" => r_type(Mulhu),
        "div" => r_type(Div),
        "divu" => r_type(Divu),
        "rem" => r_type(Rem),
        "remu" => r_type(Remu),
        "lr.w" => Some((LrW, r(0), r(1), 0, 0)),
        "sc.w" => amo(ScW),
        "amoswap.w" => amo(AmoswapW),
        "amoadd.w" => amo(AmoaddW),
        "amoxor.w" => amo(AmoxorW),
        "amoand.w" => amo(AmoandW),
        "amoor.w" => amo(AmoorW),
        "amomin.w" => amo(AmominW),
        "amomax.w" => amo(AmomaxW),
        "amominu.w" => amo(AmominuW),
        "amomaxu.w" => amo(AmomaxuW),
        _ => panic!("unexpected instruction from llvm-mc: {text}"),
    }
}

/// Disassembles `words` (each `bytes` long, one per line) with llvm-mc and checks that `decode`
/// accepts exactly the words LLVM accepts, with the fields LLVM prints.
fn check_against_llvm_disassembler(words: &[u32], bytes: usize, mattr: &str, tag: &str) {
    let mc = llvm_tool("llvm-mc");
    let dir = TempDir::new(tag);
    let input = dir.0.join("words.txt");
    let mut text = String::new();
    for &w in words {
        for b in &w.to_le_bytes()[..bytes] {
            text.push_str(&format!("{b:#04x} "));
        }
        text.push('\n');
    }
    fs::write(&input, text).unwrap();
    let (stdout, stderr) = run(Command::new(mc)
        .args(["--triple=riscv32", &format!("-mattr={mattr}"), "--disassemble", "-M", "no-aliases"])
        .arg(&input));
    // Invalid words are reported on stderr as "<file>:<line>:<column>: warning: invalid ...".
    let mut invalid = vec![false; words.len()];
    for line in stderr.lines().filter_map(|l| l.strip_suffix(": warning: invalid instruction encoding")) {
        let mut parts = line.rsplit(':');
        let (_column, number) = (parts.next(), parts.next().unwrap());
        invalid[number.parse::<usize>().unwrap() - 1] = true;
    }
    let mut printed = stdout.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('.'));
    let mut legal = 0;
    for (&w, &bad) in words.iter().zip(&invalid) {
        let want = if bad {
            None
        } else {
            let line = printed.next().expect("llvm-mc printed fewer instructions than expected");
            fields_from_llvm(line).map(|(op, rd, rs1, rs2, imm)| inst(w, op, rd, rs1, rs2, imm))
        };
        legal += usize::from(want.is_some());
        match want {
            Some(want) => assert_eq!(decode(w), Ok(want), "{w:#010x}"),
            None => assert_eq!(decode(w), Err(w), "{w:#010x} (LLVM: invalid or c.unimp)"),
        }
    }
    assert!(printed.next().is_none(), "llvm-mc printed more instructions than expected");
    assert!(legal > words.len() / 4, "only {legal} of {} words legal: check the llvm-mc output", words.len());
}

#[test]
fn every_16_bit_word_matches_llvm_disassembler() {
    let words: Vec<u32> = (0..0x1_0000u32).filter(|h| h & 3 != 3).collect();
    check_against_llvm_disassembler(&words, 2, "+c", "c16");
}

#[test]
fn random_32_bit_words_match_llvm_disassembler() {
    // Major opcodes whose instructions LLVM prints with numeric operands (SYSTEM prints CSR names,
    // MISC-MEM fence sets, and LLVM has no custom instructions; those are hand-checked above).
    const OPCODES: [u32; 10] = [0x37, 0x17, 0x6f, 0x67, 0x63, 0x03, 0x23, 0x13, 0x33, 0x2f];
    let mut state = 0x2545_f491_u32;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        state
    };
    let words: Vec<u32> = (0..30_000)
        .map(|_| {
            let (r, choice) = (next(), next());
            let opcode = OPCODES[(choice % 10) as usize];
            let mut w = (r & !0x7f) | opcode;
            // Make valid funct3/funct7/funct5 combinations common.
            if choice & 0x300 != 0 {
                match opcode {
                    0x33 => w = (w & 0x01ff_ffff) | [0, 0x20, 1][(choice >> 12) as usize % 3] << 25,
                    0x13 => w = (w & 0x01ff_ffff) | [0, 0x20][(choice >> 12) as usize % 2] << 25,
                    0x2f => {
                        let funct5 = [0, 1, 2, 3, 4, 8, 0xc, 0x10, 0x14, 0x18, 0x1c][(choice >> 12) as usize % 11];
                        w = (w & 0x07ff_8fff) | funct5 << 27 | 2 << 12;
                        if funct5 == 2 && choice & 0x10_0000 != 0 {
                            w &= !(31 << 20);
                        }
                    }
                    0x67 => w &= !(7 << 12),
                    _ => {}
                }
            }
            w
        })
        .collect();
    check_against_llvm_disassembler(&words, 4, "+m,+a", "r32");
}

//! RV32IMAC + Zicsr decoding. A compressed (16-bit) instruction decodes to the base
//! instruction it expands to, with `len == 2`.

/// What an instruction does; operands are in [`Inst`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Lui,
    Auipc,
    Jal,
    Jalr,
    Beq,
    Bne,
    Blt,
    Bge,
    Bltu,
    Bgeu,
    Lb,
    Lh,
    Lw,
    Lbu,
    Lhu,
    Sb,
    Sh,
    Sw,
    Addi,
    Slti,
    Sltiu,
    Xori,
    Ori,
    Andi,
    Slli,
    Srli,
    Srai,
    Add,
    Sub,
    Sll,
    Slt,
    Sltu,
    Xor,
    Srl,
    Sra,
    Or,
    And,
    /// `fence` and `fence.i` (both do nothing on this core).
    Fence,
    Ecall,
    Ebreak,
    /// `mret` and `wfi` are accepted so that startup code runs; see the machine for what they do.
    Mret,
    Wfi,
    Csrrw,
    Csrrs,
    Csrrc,
    Csrrwi,
    Csrrsi,
    Csrrci,
    Mul,
    Mulh,
    Mulhsu,
    Mulhu,
    Div,
    Divu,
    Rem,
    Remu,
    LrW,
    ScW,
    AmoswapW,
    AmoaddW,
    AmoxorW,
    AmoandW,
    AmoorW,
    AmominW,
    AmomaxW,
    AmominuW,
    AmomaxuW,
    /// An R-type instruction in custom-0..3 (opcode 0x0B, 0x2B, 0x5B, 0x7B): `k` is 0..=3.
    Custom {
        k: u8,
        funct3: u8,
        funct7: u8,
    },
}

/// One decoded instruction. Register fields are 0..=31 (0 when the format has none); `imm` is
/// the sign-extended immediate (for branches and jumps: the byte offset from this instruction;
/// for `lui`/`auipc`: the value already shifted left by 12; for CSR instructions: the CSR
/// number; for `csrr*i`: `rs1` holds the 5-bit immediate). `len` is 2 or 4; `raw` the bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Inst {
    pub op: Op,
    pub rd: u8,
    pub rs1: u8,
    pub rs2: u8,
    pub imm: i32,
    pub len: u8,
    pub raw: u32,
}

/// Decodes the instruction whose first bytes are `word` (little-endian; when the low two bits
/// are not `0b11` only the low 16 bits are used). Returns `Err(raw)` for an illegal or
/// unsupported encoding (including the all-zero 16-bit word, which is defined illegal).
pub fn decode(word: u32) -> Result<Inst, u32> {
    if word & 0b11 != 0b11 {
        decode16(word & 0xffff)
    } else if word & 0b1_1111 == 0b1_1111 {
        // 48-bit and longer encodings.
        Err(word)
    } else {
        decode32(word)
    }
}

/// Builds an [`Inst`]; the length follows from the low bits of `raw`.
#[inline]
fn mk(op: Op, rd: u8, rs1: u8, rs2: u8, imm: i32, raw: u32) -> Inst {
    let len = if raw & 0b11 == 0b11 { 4 } else { 2 };
    Inst { op, rd, rs1, rs2, imm, len, raw }
}

/// Sign-extends the low `bits` bits of `v`.
#[inline]
fn sext(v: u32, bits: u32) -> i32 {
    ((v << (32 - bits)) as i32) >> (32 - bits)
}

fn decode32(w: u32) -> Result<Inst, u32> {
    let rd = ((w >> 7) & 31) as u8;
    let rs1 = ((w >> 15) & 31) as u8;
    let rs2 = ((w >> 20) & 31) as u8;
    let funct3 = (w >> 12) & 7;
    let funct7 = w >> 25;
    let i_imm = (w as i32) >> 20;
    let s_imm = ((w as i32) >> 25 << 5) | ((w >> 7) & 0x1f) as i32;
    let b_imm = ((w as i32) >> 31 << 12) | (((w << 4) & 0x800) | ((w >> 20) & 0x7e0) | ((w >> 7) & 0x1e)) as i32;
    let j_imm = ((w as i32) >> 31 << 20) | ((w & 0xff000) | ((w >> 9) & 0x800) | ((w >> 20) & 0x7fe)) as i32;
    let r = |op| Ok(mk(op, rd, rs1, rs2, 0, w));
    let i = |op| Ok(mk(op, rd, rs1, 0, i_imm, w));
    let shift = |op| Ok(mk(op, rd, rs1, 0, rs2 as i32, w));
    let csr = |op| Ok(mk(op, rd, rs1, 0, (w >> 20) as i32, w));
    let s = |op| Ok(mk(op, 0, rs1, rs2, s_imm, w));
    let b = |op| Ok(mk(op, 0, rs1, rs2, b_imm, w));
    match (w >> 2) & 0x1f {
        // LUI, AUIPC
        0x0d => Ok(mk(Op::Lui, rd, 0, 0, (w & 0xffff_f000) as i32, w)),
        0x05 => Ok(mk(Op::Auipc, rd, 0, 0, (w & 0xffff_f000) as i32, w)),
        // JAL, JALR
        0x1b => Ok(mk(Op::Jal, rd, 0, 0, j_imm, w)),
        0x19 if funct3 == 0 => i(Op::Jalr),
        // BRANCH
        0x18 => match funct3 {
            0 => b(Op::Beq),
            1 => b(Op::Bne),
            4 => b(Op::Blt),
            5 => b(Op::Bge),
            6 => b(Op::Bltu),
            7 => b(Op::Bgeu),
            _ => Err(w),
        },
        // LOAD
        0x00 => match funct3 {
            0 => i(Op::Lb),
            1 => i(Op::Lh),
            2 => i(Op::Lw),
            4 => i(Op::Lbu),
            5 => i(Op::Lhu),
            _ => Err(w),
        },
        // STORE
        0x08 => match funct3 {
            0 => s(Op::Sb),
            1 => s(Op::Sh),
            2 => s(Op::Sw),
            _ => Err(w),
        },
        // OP-IMM
        0x04 => match (funct3, funct7) {
            (0, _) => i(Op::Addi),
            (2, _) => i(Op::Slti),
            (3, _) => i(Op::Sltiu),
            (4, _) => i(Op::Xori),
            (6, _) => i(Op::Ori),
            (7, _) => i(Op::Andi),
            (1, 0) => shift(Op::Slli),
            (5, 0) => shift(Op::Srli),
            (5, 0x20) => shift(Op::Srai),
            _ => Err(w),
        },
        // OP
        0x0c => match (funct7, funct3) {
            (0, 0) => r(Op::Add),
            (0x20, 0) => r(Op::Sub),
            (0, 1) => r(Op::Sll),
            (0, 2) => r(Op::Slt),
            (0, 3) => r(Op::Sltu),
            (0, 4) => r(Op::Xor),
            (0, 5) => r(Op::Srl),
            (0x20, 5) => r(Op::Sra),
            (0, 6) => r(Op::Or),
            (0, 7) => r(Op::And),
            (1, 0) => r(Op::Mul),
            (1, 1) => r(Op::Mulh),
            (1, 2) => r(Op::Mulhsu),
            (1, 3) => r(Op::Mulhu),
            (1, 4) => r(Op::Div),
            (1, 5) => r(Op::Divu),
            (1, 6) => r(Op::Rem),
            (1, 7) => r(Op::Remu),
            _ => Err(w),
        },
        // MISC-MEM: FENCE, FENCE.I (reserved fields are ignored, as the spec requires).
        0x03 if funct3 <= 1 => i(Op::Fence),
        // SYSTEM
        0x1c => match funct3 {
            0 => match w {
                0x0000_0073 => Ok(mk(Op::Ecall, 0, 0, 0, 0, w)),
                0x0010_0073 => Ok(mk(Op::Ebreak, 0, 0, 0, 0, w)),
                0x3020_0073 => Ok(mk(Op::Mret, 0, 0, 0, 0, w)),
                0x1050_0073 => Ok(mk(Op::Wfi, 0, 0, 0, 0, w)),
                _ => Err(w),
            },
            1 => csr(Op::Csrrw),
            2 => csr(Op::Csrrs),
            3 => csr(Op::Csrrc),
            5 => csr(Op::Csrrwi),
            6 => csr(Op::Csrrsi),
            7 => csr(Op::Csrrci),
            _ => Err(w),
        },
        // AMO (aq/rl in bits 26:25 are ignored)
        0x0b if funct3 == 2 => match funct7 >> 2 {
            0x02 if rs2 == 0 => r(Op::LrW),
            0x03 => r(Op::ScW),
            0x01 => r(Op::AmoswapW),
            0x00 => r(Op::AmoaddW),
            0x04 => r(Op::AmoxorW),
            0x0c => r(Op::AmoandW),
            0x08 => r(Op::AmoorW),
            0x10 => r(Op::AmominW),
            0x14 => r(Op::AmomaxW),
            0x18 => r(Op::AmominuW),
            0x1c => r(Op::AmomaxuW),
            _ => Err(w),
        },
        // custom-0..3
        op @ (0x02 | 0x0a | 0x16 | 0x1e) => {
            r(Op::Custom { k: (op >> 3) as u8, funct3: funct3 as u8, funct7: funct7 as u8 })
        }
        _ => Err(w),
    }
}

/// Decodes a 16-bit RV32C instruction (`h` < 0x10000, low bits not `0b11`) into the base
/// instruction it expands to.
fn decode16(h: u32) -> Result<Inst, u32> {
    let funct3 = h >> 13;
    // Full register fields (bits 11:7 and 6:2) and the 3-bit ones (x8..x15, bits 9:7 and 4:2).
    let r_hi = ((h >> 7) & 31) as u8;
    let r_lo = ((h >> 2) & 31) as u8;
    let rp_hi = ((h >> 7) & 7) as u8 + 8;
    let rp_lo = ((h >> 2) & 7) as u8 + 8;
    // imm[5] = bit 12, imm[4:0] = bits 6:2 (c.addi, c.li, c.andi, c.lui, shifts).
    let imm6 = ((h >> 7) & 0x20) | ((h >> 2) & 0x1f);
    let ok = |op, rd, rs1, rs2, imm| Ok(mk(op, rd, rs1, rs2, imm, h));
    match (h & 0b11, funct3) {
        // c.addi4spn: addi rd', x2, nzuimm[9:2]
        (0, 0) => {
            let imm = ((h >> 7) & 0x30) | ((h >> 1) & 0x3c0) | ((h >> 4) & 0x4) | ((h >> 2) & 0x8);
            if imm == 0 { Err(h) } else { ok(Op::Addi, rp_lo, 2, 0, imm as i32) }
        }
        // c.lw: lw rd', uimm(rs1')
        (0, 2) => ok(Op::Lw, rp_lo, rp_hi, 0, lw_imm(h)),
        // c.sw: sw rs2', uimm(rs1')
        (0, 6) => ok(Op::Sw, 0, rp_hi, rp_lo, lw_imm(h)),
        // c.nop / c.addi (rd = 0 or imm = 0 are HINTs): addi rd, rd, imm
        (1, 0) => ok(Op::Addi, r_hi, r_hi, 0, sext(imm6, 6)),
        // c.jal (RV32): jal x1, offset
        (1, 1) => ok(Op::Jal, 1, 0, 0, cj_imm(h)),
        // c.li (rd = 0 is a HINT): addi rd, x0, imm
        (1, 2) => ok(Op::Addi, r_hi, 0, 0, sext(imm6, 6)),
        // c.addi16sp: addi x2, x2, nzimm[9:4]
        (1, 3) if r_hi == 2 => {
            let imm =
                ((h >> 3) & 0x200) | ((h >> 2) & 0x10) | ((h << 1) & 0x40) | ((h << 4) & 0x180) | ((h << 3) & 0x20);
            if imm == 0 { Err(h) } else { ok(Op::Addi, 2, 2, 0, sext(imm, 10)) }
        }
        // c.lui (rd = 0 is a HINT): lui rd, nzimm[17:12]
        (1, 3) => {
            if imm6 == 0 {
                Err(h)
            } else {
                ok(Op::Lui, r_hi, 0, 0, sext(imm6, 6) << 12)
            }
        }
        (1, 4) => match (h >> 10) & 3 {
            // c.srli, c.srai (shamt[5] = 1 is reserved on RV32; shamt = 0 is a HINT)
            0 if imm6 < 32 => ok(Op::Srli, rp_hi, rp_hi, 0, imm6 as i32),
            1 if imm6 < 32 => ok(Op::Srai, rp_hi, rp_hi, 0, imm6 as i32),
            // c.andi
            2 => ok(Op::Andi, rp_hi, rp_hi, 0, sext(imm6, 6)),
            // c.sub, c.xor, c.or, c.and (bit 12 set: RV64 / reserved)
            3 if h & 0x1000 == 0 => {
                let op = [Op::Sub, Op::Xor, Op::Or, Op::And][((h >> 5) & 3) as usize];
                ok(op, rp_hi, rp_hi, rp_lo, 0)
            }
            _ => Err(h),
        },
        // c.j: jal x0, offset
        (1, 5) => ok(Op::Jal, 0, 0, 0, cj_imm(h)),
        // c.beqz, c.bnez: beq/bne rs1', x0, offset
        (1, 6) => ok(Op::Beq, 0, rp_hi, 0, cb_imm(h)),
        (1, 7) => ok(Op::Bne, 0, rp_hi, 0, cb_imm(h)),
        // c.slli (rd = 0 or shamt = 0 are HINTs; shamt[5] = 1 is reserved on RV32)
        (2, 0) if imm6 < 32 => ok(Op::Slli, r_hi, r_hi, 0, imm6 as i32),
        // c.lwsp (rd = 0 is reserved): lw rd, uimm(x2)
        (2, 2) if r_hi != 0 => {
            ok(Op::Lw, r_hi, 2, 0, (((h >> 7) & 0x20) | ((h >> 2) & 0x1c) | ((h << 4) & 0xc0)) as i32)
        }
        (2, 4) => match (h & 0x1000 != 0, r_hi, r_lo) {
            // c.jr (rs1 = 0 is reserved): jalr x0, 0(rs1)
            (false, 0, 0) => Err(h),
            (false, rs1, 0) => ok(Op::Jalr, 0, rs1, 0, 0),
            // c.mv (rd = 0 is a HINT): add rd, x0, rs2
            (false, rd, rs2) => ok(Op::Add, rd, 0, rs2, 0),
            // c.ebreak
            (true, 0, 0) => ok(Op::Ebreak, 0, 0, 0, 0),
            // c.jalr: jalr x1, 0(rs1)
            (true, rs1, 0) => ok(Op::Jalr, 1, rs1, 0, 0),
            // c.add (rd = 0 is a HINT): add rd, rd, rs2
            (true, rd, rs2) => ok(Op::Add, rd, rd, rs2, 0),
        },
        // c.swsp: sw rs2, uimm(x2)
        (2, 6) => ok(Op::Sw, 0, 2, r_lo, (((h >> 7) & 0x3c) | ((h >> 1) & 0xc0)) as i32),
        // Floating-point loads/stores, the reserved quadrant-0 slot, and reserved encodings.
        _ => Err(h),
    }
}

/// c.lw / c.sw offset: uimm[5:3] = bits 12:10, uimm[2] = bit 6, uimm[6] = bit 5.
#[inline]
fn lw_imm(h: u32) -> i32 {
    (((h >> 7) & 0x38) | ((h >> 4) & 0x4) | ((h << 1) & 0x40)) as i32
}

/// c.jal / c.j offset: bits 12:2 hold offset[11|4|9:8|10|6|7|3:1|5].
#[inline]
fn cj_imm(h: u32) -> i32 {
    let v = ((h >> 1) & 0x800)
        | ((h >> 7) & 0x10)
        | ((h >> 1) & 0x300)
        | ((h << 2) & 0x400)
        | ((h >> 1) & 0x40)
        | ((h << 1) & 0x80)
        | ((h >> 2) & 0xe)
        | ((h << 3) & 0x20);
    sext(v, 12)
}

/// c.beqz / c.bnez offset: bits 12:10 hold offset[8|4:3], bits 6:2 hold offset[7:6|2:1|5].
#[inline]
fn cb_imm(h: u32) -> i32 {
    let v = ((h >> 4) & 0x100) | ((h >> 7) & 0x18) | ((h << 1) & 0xc0) | ((h >> 2) & 0x6) | ((h << 3) & 0x20);
    sext(v, 9)
}

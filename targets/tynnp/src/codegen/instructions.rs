//! The `tynnp` dialect's low-level ops: one per NPU instruction of targets/tynnp/docs/isa.md, the level
//! the control unit's kernels are written in (`kernel.rs`).
//!
//! ```mlir
//! %t = "tynnp.nu_conv"(%descriptor, %unit, %w0, ..., %w29) : (!llvm.ptr, i32, ...) -> i32
//! "tynnp.wait"(%t) : (i32) -> ()
//! ```
//!
//! An instruction op writes its descriptor's words (the two dependency tokens first) at
//! `%descriptor`, a buffer in DMEM, and issues the instruction for `%unit` (a DMA channel or a
//! vector unit; the NU ignores it), giving the job's token; `funct7` (an attribute, 0 when absent)
//! selects the variant (a pooling's maximum or average, an elementwise op, a table's width).
//! `tynnp.wait` waits for a token. `umac-convert-tynnp-to-llvm` lowers them to the stores and
//! `llvm.inline_asm has_side_effects ".insn r CUSTOM_k, funct3, funct7, ..."` with a memory
//! clobber.

use crate::error::TynnpError;
use umac_backend::{Builder, OpView, Ty, Value};
use umac_tynnp_device::isa;

/// An NPU instruction.
pub struct Instruction {
    /// Its op.
    pub name: &'static str,
    /// `CUSTOM_k`.
    pub custom: u8,
    pub funct3: u8,
    /// The largest `funct7`.
    pub funct7: u8,
    /// The descriptor's words, the dependency tokens included (the layout of `isa.rs`).
    pub words: usize,
}

/// Every instruction with a descriptor (isa.md, section 5), in the order of the device's table
/// of descriptor layouts (`isa::DESCRIPTORS`), with its largest `funct7`.
const NAMES: [(&str, u8); 9] = [
    ("tynnp.dma_copy", 0),
    ("tynnp.dma_fill", 0),
    ("tynnp.nu_conv", 0),
    ("tynnp.nu_matmul", 0),
    ("tynnp.vu_dwconv", 0),
    ("tynnp.vu_pool", 1),
    ("tynnp.vu_eltwise", 4),
    ("tynnp.vu_table", 1),
    ("tynnp.vu_rescale", 2),
];

/// Every instruction with a descriptor: its op's name, opcode and descriptor words from the
/// device's table.
pub const INSTRUCTIONS: [Instruction; 9] = {
    let mut all = [const { Instruction { name: "", custom: 0, funct3: 0, funct7: 0, words: 0 } }; 9];
    let mut i = 0;
    while i < 9 {
        let d = &isa::DESCRIPTORS[i];
        all[i] = Instruction {
            name: NAMES[i].0,
            custom: d.custom,
            funct3: d.funct3,
            funct7: NAMES[i].1,
            words: 2 + d.words.len(),
        };
        i += 1;
    }
    all
};

/// The op that waits for a token.
pub const WAIT: &str = "tynnp.wait";

/// The instruction `CUSTOM_k` with `funct3`.
pub fn instruction(custom: u8, funct3: u8) -> Option<&'static Instruction> {
    INSTRUCTIONS.iter().find(|i| i.custom == custom && i.funct3 == funct3)
}

pub(crate) fn named(name: &str) -> Option<&'static Instruction> {
    INSTRUCTIONS.iter().find(|i| i.name == name)
}

/// Whether `name` is one of these ops.
pub fn is_instruction(name: &str) -> bool {
    name == WAIT || named(name).is_some()
}

/// Checks an instruction op: its operands, result and `funct7`.
pub fn verify(op: &OpView) -> Result<(), TynnpError> {
    let types: Vec<String> = (0..op.operand_count()).filter_map(|i| op.operand_type_text(i)).collect();
    if op.name() == WAIT {
        return if types == ["i32"] && op.result_count() == 0 {
            Ok(())
        } else {
            Err(TynnpError::Contract("takes one i32 token and gives nothing".into()))
        };
    }
    let instruction = named(&op.name()).ok_or_else(|| TynnpError::Contract("is no NPU instruction".into()))?;
    let expected = 2 + instruction.words;
    let words_ok = types.len() == expected && types[0] == "!llvm.ptr" && types[1..].iter().all(|t| t == "i32");
    if !words_ok || op.result_count() != 1 {
        return Err(TynnpError::Contract(format!(
            "takes the descriptor's address (!llvm.ptr), the unit and the descriptor's {} words (i32), and gives a token",
            instruction.words
        )));
    }
    let funct7 = op.int("funct7").unwrap_or(0);
    if !(0..=i64::from(instruction.funct7)).contains(&funct7) {
        return Err(TynnpError::Contract(format!(
            "has funct7 {funct7}; this instruction takes 0 to {}",
            instruction.funct7
        )));
    }
    Ok(())
}

/// What an instruction op becomes in the llvm dialect, written by `b` in front of it (`None`:
/// not an instruction op): its descriptor's words stored at its descriptor address, one store
/// each, then `.insn r CUSTOM_k, funct3, funct7` with that address and the unit, whose result is
/// the token ([`issue`]); `tynnp.wait` is npu.wait. The op is verified ([`verify`]): its operands
/// are there.
pub fn lower(op: &OpView, b: &mut Builder) -> Option<Vec<Value>> {
    if op.name() == WAIT {
        b.inline_asm(".insn r CUSTOM_3, 0, 0, x0, $0, x0", "r,~{memory}", &[b.arg(0)]);
        return Some(Vec::new());
    }
    let instruction = named(&op.name())?;
    let funct7 = op.int("funct7").unwrap_or(0);
    let words: Vec<Value> = (0..instruction.words).map(|k| b.arg(2 + k)).collect();
    Some(vec![issue(b, (instruction, funct7), b.arg(0), b.arg(1), &words)])
}

/// Writes `words` (the descriptor's, the dependency tokens first) at `descriptor` (an
/// `!llvm.ptr`), one store each, and issues `instruction` with `funct7` for `unit` as
/// `.insn r CUSTOM_k, funct3, funct7` with the descriptor's address; returns the token.
pub(crate) fn issue(
    b: &mut Builder,
    (instruction, funct7): (&Instruction, i64),
    descriptor: Value,
    unit: Value,
    words: &[Value],
) -> Value {
    for (k, value) in words.iter().enumerate() {
        let word = b.gep(descriptor, k as i32, Ty::I32);
        b.store(*value, word);
    }
    let address = b.ptrtoint(descriptor, Ty::I32);
    let (custom, funct3) = (instruction.custom, instruction.funct3);
    let asm = format!(".insn r CUSTOM_{custom}, {funct3}, {funct7}, $0, $1, $2");
    b.inline_asm_value(&asm, "=r,r,r,~{memory}", &[address, unit], Ty::I32)
}

/// The words of a `dma.copy` (isa.md 5.1) after `deps`, from `from` to `to`, of `row_bytes` bytes
/// of each of `rows` rows of each of `planes` planes, with the source's and destination's row
/// and plane strides.
pub(crate) fn copy_words(
    deps: [Value; 2],
    (from, to): (Value, Value),
    [row_bytes, rows, planes, src_row, dst_row, src_plane, dst_plane]: [Value; 7],
) -> Vec<Value> {
    laid_out(
        "dma.copy",
        deps,
        &[
            ("src", from),
            ("dst", to),
            ("row_bytes", row_bytes),
            ("rows", rows),
            ("src_row_stride", src_row),
            ("dst_row_stride", dst_row),
            ("planes", planes),
            ("src_plane_stride", src_plane),
            ("dst_plane_stride", dst_plane),
        ],
    )
}

/// The words of descriptor `mnemonic` in the layout the device decodes (`isa.rs`): `deps`, then
/// each word's value by its name. Every word must be given.
pub(crate) fn laid_out(mnemonic: &str, deps: [Value; 2], values: &[(&str, Value)]) -> Vec<Value> {
    let layout = isa::named(mnemonic).expect("a descriptor of the contract");
    assert_eq!(values.len(), layout.words.len(), "{mnemonic}: every word given");
    let mut words = vec![None; layout.len()];
    words[0] = Some(deps[0]);
    words[1] = Some(deps[1]);
    for (name, value) in values {
        words[layout.at(name)] = Some(*value);
    }
    words.into_iter().map(|w| w.expect("every word given")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptors_have_the_contracts_sizes() {
        // isa.md: dma.copy 11 words, dma.fill 9, nu.conv 30, vu.pool 20, vu.eltwise 23,
        // vu.table 6; every instruction found by its opcode.
        let words = |name: &str| named(name).map(|i| i.words);
        assert_eq!(words("tynnp.dma_copy"), Some(11));
        assert_eq!(words("tynnp.dma_fill"), Some(9));
        assert_eq!(words("tynnp.nu_conv"), Some(30));
        assert_eq!(words("tynnp.vu_pool"), Some(20));
        assert_eq!(words("tynnp.vu_eltwise"), Some(23));
        assert_eq!(words("tynnp.vu_table"), Some(6));
        for i in &INSTRUCTIONS {
            assert_eq!(instruction(i.custom, i.funct3).map(|found| found.name), Some(i.name));
        }
        assert!(is_instruction(WAIT) && !is_instruction("tynnp.conv2d"));
        // Every kind of job writes the words its instruction reads.
        for code in crate::kernel::jobs::CODES {
            let found = instruction(code.insn.0, code.insn.1).unwrap();
            assert_eq!(found.words, 2 + code.descriptor().len(), "{}", code.callee);
            assert!(code.insn.2 <= found.funct7, "{}", code.callee);
        }
    }
}

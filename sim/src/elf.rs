//! Loading programs (targets/tynnp/docs/isa.md, section 8): RV32 executables are loaded where they are
//! linked; relocatable objects (what `umac compile` writes) are placed and linked here, code in
//! IMEM, the section [`LOCAL_SECTION`] in DMEM and everything else in DDR.

use crate::{
    machine::{Function, Machine},
    memory::{DDR_BASE, DMEM_BASE, DMEM_BYTES, IMEM_BASE, IMEM_BYTES},
};
use object::{
    Architecture, Object, ObjectSection, ObjectSymbol, RelocationFlags, RelocationTarget, SectionFlags, SectionIndex,
    SymbolKind, SymbolSection, elf,
    read::elf::{ElfFile32, FileHeader, ProgramHeader},
};
use std::collections::HashMap;

/// A program that cannot be loaded, and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct LoadError(pub String);

fn error(message: impl Into<String>) -> LoadError {
    LoadError(message.into())
}

/// What was loaded: the entry point (of an executable) and every global symbol's address.
#[derive(Clone, Debug, Default)]
pub struct Program {
    pub entry: u32,
    pub symbols: HashMap<String, u32>,
    /// The first DDR address after the program's data.
    pub ddr_end: u32,
    /// The first DMEM address after the program's [`LOCAL_SECTION`] (`DMEM_BASE` when it has
    /// none, or is an executable, which places its own).
    pub local_end: u32,
}

/// The section a relocatable object keeps in the core's own data memory (DMEM, from its start):
/// what only the core's code reads and writes, at a link-time address (umac's static buffers of
/// extern calls, `umac_backend::LOCAL_SECTION`), as firmware's linker script would place it.
pub const LOCAL_SECTION: &str = ".dmem";

impl Program {
    /// The address of `name`.
    pub fn symbol(&self, name: &str) -> Result<u32, LoadError> {
        self.symbols.get(name).copied().ok_or_else(|| error(format!("the program has no symbol '{name}'")))
    }
}

fn functions_of(file: &object::File<'_>, base_of: impl Fn(SectionIndex) -> Option<u32>) -> Vec<Function> {
    file.symbols()
        .filter(|s| s.kind() == SymbolKind::Text && s.size() > 0)
        .filter_map(|s| {
            let SymbolSection::Section(section) = s.section() else { return None };
            let start = base_of(section)?.wrapping_add(s.address() as u32);
            let name = s.name().ok()?.to_string();
            let end = start.checked_add(u32::try_from(s.size()).ok()?)?;
            Some(Function { name, start, end, ..Function::default() })
        })
        .collect()
}

fn parse<'d>(name: &str, data: &'d [u8]) -> Result<object::File<'d>, LoadError> {
    let file = object::File::parse(data).map_err(|e| error(format!("{name}: not an ELF file ({e})")))?;
    if file.architecture() != Architecture::Riscv32 {
        return Err(error(format!("{name}: built for {:?}, not 32-bit RISC-V", file.architecture())));
    }
    if !file.is_little_endian() {
        return Err(error(format!("{name}: big-endian")));
    }
    Ok(file)
}

/// Loads an executable: each `PT_LOAD` segment at its physical address, the rest of its memory
/// size zeroed; executable segments become decoded code. Sets the pc to the entry point.
pub fn load_executable(m: &mut Machine, name: &str, data: &[u8]) -> Result<Program, LoadError> {
    let file = parse(name, data)?;
    let elf32 = ElfFile32::<object::LittleEndian>::parse(data).map_err(|e| error(format!("{name}: {e}")))?;
    let endian = elf32.endian();
    if elf32.elf_header().e_type(endian) != elf::ET_EXEC {
        return Err(error(format!("{name}: not an executable")));
    }
    for segment in elf32.elf_program_headers() {
        if segment.p_type(endian) != elf::PT_LOAD {
            continue;
        }
        let address = segment.p_paddr(endian);
        let end = address
            .checked_add(segment.p_memsz(endian))
            .filter(|_| segment.p_memsz(endian) >= segment.p_filesz(endian))
            .ok_or_else(|| error(format!("{name}: a segment at {address:#010x} has an impossible size")))?;
        let bytes =
            segment.data(endian, data).map_err(|_| error(format!("{name}: a segment lies outside the file")))?;
        let size = segment.p_memsz(endian);
        let place = |m: &mut Machine, at: u32, bytes: &[u8]| {
            m.memory.write_bytes(at, bytes).map_err(|f| {
                error(format!("{name}: segment at {:#010x} (+{:#x}) is outside the memory map", f.addr, f.len))
            })
        };
        place(m, address, bytes)?;
        if size as usize > bytes.len() {
            place(m, address + bytes.len() as u32, &vec![0; size as usize - bytes.len()])?;
        }
        if segment.p_flags(endian) & elf::PF_X != 0 {
            m.add_code(address, end);
        }
    }
    let sections: HashMap<SectionIndex, u32> = file.sections().map(|s| (s.index(), 0)).collect();
    m.set_functions(functions_of(&file, |s| sections.get(&s).copied()));
    let symbols = file
        .symbols()
        .filter(|s| s.is_global() && !s.is_undefined())
        .filter_map(|s| Some((s.name().ok()?.to_string(), s.address() as u32)))
        .collect();
    let entry = file.entry() as u32;
    m.pc = entry;
    Ok(Program { entry, symbols, ddr_end: 0, local_end: DMEM_BASE })
}

/// Where relocatable objects go.
#[derive(Clone, Copy, Debug)]
pub struct Layout {
    /// First address for code.
    pub code: u32,
    /// End of the code memory.
    pub code_end: u32,
    /// First address for data.
    pub data: u32,
    /// Where [`LOCAL_SECTION`] may go: its first address and the end.
    pub local: (u32, u32),
}

impl Default for Layout {
    /// Code in IMEM, data in DDR.
    fn default() -> Self {
        Layout {
            code: IMEM_BASE,
            code_end: IMEM_BASE + IMEM_BYTES,
            data: DDR_BASE,
            local: (DMEM_BASE, DMEM_BASE + DMEM_BYTES),
        }
    }
}

/// `value` rounded up to a multiple of `to` (`None` past the address space).
fn align(value: u32, to: u64) -> Option<u32> {
    value.checked_next_multiple_of(u32::try_from(to.max(1)).ok()?)
}

/// Links relocatable objects into the machine: allocated sections placed by `layout`, global
/// symbols resolved across the objects, relocations applied.
pub fn link<'d>(m: &mut Machine, objects: &[(&str, &'d [u8])], layout: Layout) -> Result<Program, LoadError> {
    let files: Vec<(&str, object::File<'d>)> =
        objects.iter().map(|(name, data)| Ok((*name, parse(name, data)?))).collect::<Result<_, LoadError>>()?;
    let (mut code, mut data, mut local) = (layout.code, layout.data, layout.local.0);
    // Section addresses, per object.
    let mut placed: Vec<HashMap<SectionIndex, u32>> = Vec::new();
    for (name, file) in &files {
        if file.kind() != object::ObjectKind::Relocatable {
            return Err(error(format!("{name}: not a relocatable object")));
        }
        let mut here = HashMap::new();
        for section in file.sections() {
            let SectionFlags::Elf { sh_flags } = section.flags() else { continue };
            if sh_flags & u64::from(elf::SHF_ALLOC) == 0 || section.size() == 0 {
                continue;
            }
            let size = u32::try_from(section.size()).map_err(|_| error(format!("{name}: section too large")))?;
            let executable = sh_flags & u64::from(elf::SHF_EXECINSTR) != 0;
            let own = section
                .name()
                .is_ok_and(|n| n.strip_prefix(LOCAL_SECTION).is_some_and(|r| r.is_empty() || r.starts_with('.')));
            let cursor = if executable {
                &mut code
            } else if own {
                &mut local
            } else {
                &mut data
            };
            let at = align(*cursor, section.align())
                .ok_or_else(|| error(format!("{name}: a section's alignment {} is impossible", section.align())))?;
            *cursor =
                at.checked_add(size).ok_or_else(|| error(format!("{name}: sections beyond the address space")))?;
            if executable && *cursor > layout.code_end {
                return Err(error(format!(
                    "{name}: code does not fit the CU's instruction memory ({} bytes needed, {} available)",
                    *cursor - layout.code,
                    layout.code_end - layout.code
                )));
            }
            if own && *cursor > layout.local.1 {
                return Err(error(format!(
                    "{name}: {LOCAL_SECTION} does not fit the core's data memory ({} bytes needed, {} available)",
                    *cursor - layout.local.0,
                    layout.local.1 - layout.local.0
                )));
            }
            // A section without contents (`.bss`) is zeroed: memory starts as garbage.
            let bytes = section.data().map_err(|e| error(format!("{name}: {e}")))?;
            let zeros;
            let bytes = if bytes.is_empty() {
                zeros = vec![0; size as usize];
                &zeros[..]
            } else {
                bytes
            };
            m.memory
                .write_bytes(at, bytes)
                .map_err(|f| error(format!("{name}: section at {:#010x} (+{}) is outside memory", f.addr, f.len)))?;
            here.insert(section.index(), at);
        }
        placed.push(here);
    }
    m.add_code(layout.code, code);
    // Global symbols.
    let mut symbols = HashMap::new();
    let mut functions = Vec::new();
    for ((name, file), here) in files.iter().zip(&placed) {
        for s in file.symbols() {
            let SymbolSection::Section(section) = s.section() else { continue };
            if !s.is_global() {
                continue;
            }
            let Some(&base) = here.get(&section) else { continue };
            let symbol = s.name().map_err(|e| error(format!("{name}: {e}")))?.to_string();
            if symbols.insert(symbol.clone(), base.wrapping_add(s.address() as u32)).is_some() {
                return Err(error(format!("{name}: symbol '{symbol}' is defined twice")));
            }
        }
        functions.extend(functions_of(file, |s| here.get(&s).copied()));
    }
    m.set_functions(functions);
    for ((name, file), here) in files.iter().zip(&placed) {
        relocate(m, name, file, here, &symbols)?;
    }
    Ok(Program { entry: 0, symbols, ddr_end: data, local_end: local })
}

/// Applies one object's relocations.
fn relocate(
    m: &mut Machine,
    name: &str,
    file: &object::File<'_>,
    here: &HashMap<SectionIndex, u32>,
    globals: &HashMap<String, u32>,
) -> Result<(), LoadError> {
    let value_of = |target: RelocationTarget| -> Result<u32, LoadError> {
        let RelocationTarget::Symbol(index) = target else {
            return Err(error(format!("{name}: relocation against something other than a symbol")));
        };
        let s = file.symbol_by_index(index).map_err(|e| error(format!("{name}: {e}")))?;
        match s.section() {
            SymbolSection::Section(section) => match here.get(&section) {
                Some(base) => Ok(base.wrapping_add(s.address() as u32)),
                None => Err(error(format!("{name}: relocation against a section that is not loaded"))),
            },
            SymbolSection::Absolute => Ok(s.address() as u32),
            _ => {
                let symbol = s.name().unwrap_or("?");
                globals.get(symbol).copied().ok_or_else(|| error(format!("{name}: undefined symbol '{symbol}'")))
            }
        }
    };
    for section in file.sections() {
        let Some(&base) = here.get(&section.index()) else { continue };
        // `pcrel_lo12` relocations name the `auipc` of their `pcrel_hi20`: its offset first.
        let mut hi = HashMap::new();
        for (offset, r) in section.relocations() {
            if let RelocationFlags::Elf { r_type: elf::R_RISCV_PCREL_HI20 } = r.flags() {
                let p = base + offset as u32;
                hi.insert(p, value_of(r.target())?.wrapping_add(r.addend() as u32).wrapping_sub(p));
            }
        }
        for (offset, r) in section.relocations() {
            let RelocationFlags::Elf { r_type } = r.flags() else { continue };
            // Hints for a relaxing linker (which this is not), naming no symbol: the code is
            // valid as it stands, alignment padding included.
            if r_type == elf::R_RISCV_RELAX || r_type == elf::R_RISCV_ALIGN {
                continue;
            }
            let p = base + offset as u32;
            let s = value_of(r.target())?.wrapping_add(r.addend() as u32);
            let pcrel = s.wrapping_sub(p);
            let patch = |m: &mut Machine, at: u32, len: u32, f: &dyn Fn(u32) -> u32| -> Result<(), LoadError> {
                let (old, _) =
                    m.memory.load(at, len).map_err(|_| error(format!("{name}: relocation outside memory")))?;
                m.memory.store(at, len, f(old)).map_err(|_| error(format!("{name}: relocation outside memory")))?;
                Ok(())
            };
            let range = |bits: u32, v: u32| -> Result<(), LoadError> {
                let v = v as i32;
                if v < -(1 << (bits - 1)) || v >= 1 << (bits - 1) {
                    return Err(error(format!(
                        "{name}: relocation type {r_type} at {p:#010x}: offset {v} does not fit {bits} bits"
                    )));
                }
                Ok(())
            };
            match r_type {
                elf::R_RISCV_32 => patch(m, p, 4, &|_| s)?,
                // Label differences (switch tables in libgcc): S + A added to, or subtracted
                // from, what is there.
                elf::R_RISCV_ADD8 => patch(m, p, 1, &|v| v.wrapping_add(s))?,
                elf::R_RISCV_ADD16 => patch(m, p, 2, &|v| v.wrapping_add(s))?,
                elf::R_RISCV_ADD32 => patch(m, p, 4, &|v| v.wrapping_add(s))?,
                elf::R_RISCV_SUB8 => patch(m, p, 1, &|v| v.wrapping_sub(s))?,
                elf::R_RISCV_SUB16 => patch(m, p, 2, &|v| v.wrapping_sub(s))?,
                elf::R_RISCV_SUB32 => patch(m, p, 4, &|v| v.wrapping_sub(s))?,
                elf::R_RISCV_SET8 => patch(m, p, 1, &|_| s)?,
                elf::R_RISCV_SET16 => patch(m, p, 2, &|_| s)?,
                elf::R_RISCV_SET32 => patch(m, p, 4, &|_| s)?,
                elf::R_RISCV_32_PCREL => patch(m, p, 4, &|_| pcrel)?,
                elf::R_RISCV_HI20 => patch(m, p, 4, &|i| hi20(i, s))?,
                elf::R_RISCV_LO12_I => patch(m, p, 4, &|i| lo12_i(i, s))?,
                elf::R_RISCV_LO12_S => patch(m, p, 4, &|i| lo12_s(i, s))?,
                elf::R_RISCV_PCREL_HI20 => patch(m, p, 4, &|i| hi20(i, pcrel))?,
                elf::R_RISCV_PCREL_LO12_I | elf::R_RISCV_PCREL_LO12_S => {
                    let v = *hi
                        .get(&s)
                        .ok_or_else(|| error(format!("{name}: pcrel_lo12 at {p:#010x} has no pcrel_hi20")))?;
                    if r_type == elf::R_RISCV_PCREL_LO12_I {
                        patch(m, p, 4, &|i| lo12_i(i, v))?
                    } else {
                        patch(m, p, 4, &|i| lo12_s(i, v))?
                    }
                }
                elf::R_RISCV_CALL | elf::R_RISCV_CALL_PLT => {
                    patch(m, p, 4, &|i| hi20(i, pcrel))?;
                    patch(m, p + 4, 4, &|i| lo12_i(i, pcrel))?;
                }
                elf::R_RISCV_BRANCH => {
                    range(13, pcrel)?;
                    patch(m, p, 4, &|i| {
                        (i & 0x01ff_f07f)
                            | (pcrel >> 12 & 1) << 31
                            | (pcrel >> 5 & 0x3f) << 25
                            | (pcrel >> 1 & 0xf) << 8
                            | (pcrel >> 11 & 1) << 7
                    })?
                }
                elf::R_RISCV_JAL => {
                    range(21, pcrel)?;
                    patch(m, p, 4, &|i| {
                        (i & 0xfff)
                            | (pcrel >> 20 & 1) << 31
                            | (pcrel >> 1 & 0x3ff) << 21
                            | (pcrel >> 11 & 1) << 20
                            | (pcrel >> 12 & 0xff) << 12
                    })?
                }
                elf::R_RISCV_RVC_BRANCH => {
                    range(9, pcrel)?;
                    patch(m, p, 2, &|i| {
                        (i & 0xe383)
                            | (pcrel >> 8 & 1) << 12
                            | (pcrel >> 3 & 3) << 10
                            | (pcrel >> 6 & 3) << 5
                            | (pcrel >> 1 & 3) << 3
                            | (pcrel >> 5 & 1) << 2
                    })?
                }
                elf::R_RISCV_RVC_JUMP => {
                    range(12, pcrel)?;
                    patch(m, p, 2, &|i| {
                        (i & 0xe003)
                            | (pcrel >> 11 & 1) << 12
                            | (pcrel >> 4 & 1) << 11
                            | (pcrel >> 8 & 3) << 9
                            | (pcrel >> 10 & 1) << 8
                            | (pcrel >> 6 & 1) << 7
                            | (pcrel >> 7 & 1) << 6
                            | (pcrel >> 1 & 7) << 3
                            | (pcrel >> 5 & 1) << 2
                    })?
                }
                // Linker relaxation is not done: the code stays as the assembler wrote it.
                elf::R_RISCV_RELAX | elf::R_RISCV_ALIGN => {}
                other => return Err(error(format!("{name}: relocation type {other} at {p:#010x} is not supported"))),
            }
        }
    }
    Ok(())
}

fn hi20(insn: u32, v: u32) -> u32 {
    (insn & 0xfff) | (v.wrapping_add(0x800) & 0xffff_f000)
}

fn lo12_i(insn: u32, v: u32) -> u32 {
    (insn & 0x000f_ffff) | (v & 0xfff) << 20
}

fn lo12_s(insn: u32, v: u32) -> u32 {
    (insn & 0x01ff_f07f) | (v >> 5 & 0x7f) << 25 | (v & 0x1f) << 7
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn immediate_patches() {
        // lui a0, 0 ; addi a0, a0, 0 ; sw a1, 0(a0) with v = 0x8000_0ffc: hi rounds up.
        let v = 0x8000_0ffc;
        assert_eq!(hi20(0x0000_0537, v), 0x8000_1537);
        assert_eq!(lo12_i(0x0005_0513, v), 0xffc5_0513);
        assert_eq!(lo12_s(0x00b5_2023, v), 0xfeb5_2e23);
        // hi + sign-extended lo gives back v.
        let lo = ((lo12_i(0, v) as i32) >> 20) as u32;
        assert_eq!((hi20(0, v) & 0xffff_f000).wrapping_add(lo), v);
    }
}

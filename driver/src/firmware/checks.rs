//! What a firmware object may contain: code, constants and nothing writable; no undefined
//! symbol but the C library's memory functions, the compiler's integer helper routines and the
//! accelerators' kernels.

use crate::Error;
use object::{Object, ObjectSection, ObjectSymbol, SectionKind};
use umac_backend::Kernel;

/// Symbols generated code may call: the C library's memory functions, which LLVM emits for
/// block copies and fills, and their Arm EABI spellings.
const ALLOWED_UNDEFINED: &[&str] = &[
    "memcpy",
    "memset",
    "memmove",
    "__aeabi_memcpy",
    "__aeabi_memcpy4",
    "__aeabi_memcpy8",
    "__aeabi_memset",
    "__aeabi_memset4",
    "__aeabi_memset8",
    "__aeabi_memmove",
    "__aeabi_memmove4",
    "__aeabi_memmove8",
    "__aeabi_memclr",
    "__aeabi_memclr4",
    "__aeabi_memclr8",
];

/// The integer helper routines of libgcc and compiler-rt (which every bare-metal toolchain links
/// by default) that LLVM calls where a CPU lacks an instruction: 64-bit multiplies and shifts and
/// count-leading-zeros on Armv6-M, divisions where there is no divide instruction.
const INTEGER_HELPERS: &[&str] = &[
    "__muldi3",
    "__ashldi3",
    "__ashrdi3",
    "__lshrdi3",
    "__clzsi2",
    "__clzdi2",
    "__divsi3",
    "__udivsi3",
    "__modsi3",
    "__umodsi3",
    "__divdi3",
    "__udivdi3",
    "__moddi3",
    "__umoddi3",
    "__aeabi_lmul",
    "__aeabi_llsl",
    "__aeabi_llsr",
    "__aeabi_lasr",
    "__aeabi_idiv",
    "__aeabi_uidiv",
    "__aeabi_idivmod",
    "__aeabi_uidivmod",
    "__aeabi_ldivmod",
    "__aeabi_uldivmod",
];

/// Bytes of code and of constants in an object, and what it imports.
#[derive(Default)]
pub struct ObjectSizes {
    /// Executable code (with Arm's unwind index).
    pub text: u64,
    /// Read-only data.
    pub rodata: u64,
    /// Writable data: the model's state (an LSTM's), kept from one call to the next.
    pub state: u64,
    /// The undefined symbols, sorted (memory functions, integer helpers, kernels).
    pub imports: Vec<String>,
    /// Bytes per section the program loads (code, constants and state), by name, sorted.
    pub sections: Vec<(String, u64)>,
}

/// Measures code and constants and checks the object references nothing but the memory
/// functions and the accelerators' kernels.
pub fn inspect_object(bytes: &[u8], kernels: &[Kernel]) -> Result<ObjectSizes, Error> {
    let file =
        object::File::parse(bytes).map_err(|e| Error::Compile(format!("cannot read the generated object: {e}")))?;
    let mut sizes = ObjectSizes { text: 0, rodata: 0, state: 0, imports: Vec::new(), sections: Vec::new() };
    for section in file.sections() {
        let (name, size) = (section.name().unwrap_or("?"), section.size());
        // Arm's index table for nounwind code holds only "cannot unwind" entries (no unwinder
        // is referenced); it is accounted with the code, not the constants.
        let counted = match section.kind() {
            _ if name.starts_with(".ARM.exidx") => &mut sizes.text,
            SectionKind::Text => &mut sizes.text,
            SectionKind::ReadOnlyData | SectionKind::ReadOnlyString | SectionKind::ReadOnlyDataWithRel => {
                &mut sizes.rodata
            }
            // The model's state (an LSTM's hidden and cell state), which persists between calls.
            SectionKind::Data | SectionKind::UninitializedData => &mut sizes.state,
            _ => continue,
        };
        *counted += size;
        if size > 0 {
            match sizes.sections.iter_mut().find(|(known, _)| known == name) {
                Some((_, bytes)) => *bytes += size,
                None => sizes.sections.push((name.to_string(), size)),
            }
        }
    }
    let mut imports: Vec<String> = file
        .symbols()
        .filter(|s| s.is_undefined() && !s.name().unwrap_or("").is_empty())
        .map(|s| s.name().unwrap_or("").to_string())
        .collect();
    imports.sort();
    imports.dedup();
    sizes.sections.sort();
    let unsupported: Vec<&String> = imports
        .iter()
        .filter(|s| {
            !ALLOWED_UNDEFINED.contains(&s.as_str())
                && !INTEGER_HELPERS.contains(&s.as_str())
                && !kernels.iter().any(|k| k.symbol == s.as_str())
        })
        .collect();
    if !unsupported.is_empty() {
        let names: Vec<&str> = unsupported.iter().map(|s| s.as_str()).collect();
        return Err(Error::Compile(format!(
            "the generated code calls {}, which firmware output does not provide (it links against nothing but \
             memcpy/memset/memmove, the toolchain's integer helpers and the accelerators' kernels; umac computes \
             exp and tanh itself, other floating-point functions such as logf or powf are not supported in \
             firmware yet)",
            names.join(", ")
        )));
    }
    sizes.imports = imports;
    Ok(sizes)
}

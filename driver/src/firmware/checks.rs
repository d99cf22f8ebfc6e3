//! What a firmware object may contain: code, constants and nothing writable; no undefined
//! symbol but the C library's memory functions and the accelerators' kernels.

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

/// Bytes of code and of constants in an object.
pub struct ObjectSizes {
    /// Executable code (with Arm's unwind index).
    pub text: u64,
    /// Read-only data.
    pub rodata: u64,
}

/// Measures code and constants and checks the object references nothing but the memory
/// functions and the accelerators' kernels.
pub fn inspect_object(bytes: &[u8], kernels: &[Kernel]) -> Result<ObjectSizes, Error> {
    let file =
        object::File::parse(bytes).map_err(|e| Error::Compile(format!("cannot read the generated object: {e}")))?;
    let mut sizes = ObjectSizes { text: 0, rodata: 0 };
    for section in file.sections() {
        // Arm's index table for nounwind code holds only "cannot unwind" entries (no unwinder
        // is referenced); it is accounted with the code, not the constants.
        if section.name().is_ok_and(|n| n.starts_with(".ARM.exidx")) {
            sizes.text += section.size();
            continue;
        }
        match section.kind() {
            SectionKind::Text => sizes.text += section.size(),
            SectionKind::ReadOnlyData | SectionKind::ReadOnlyString | SectionKind::ReadOnlyDataWithRel => {
                sizes.rodata += section.size()
            }
            SectionKind::Data | SectionKind::UninitializedData if section.size() > 0 => {
                return Err(Error::Compile(format!(
                    "internal error: the object has writable data ({} bytes in {})",
                    section.size(),
                    section.name().unwrap_or("?")
                )));
            }
            _ => {}
        }
    }
    let undefined: Vec<String> = file
        .symbols()
        .filter(|s| s.is_undefined() && !s.name().unwrap_or("").is_empty())
        .map(|s| s.name().unwrap_or("").to_string())
        .filter(|s| !ALLOWED_UNDEFINED.contains(&s.as_str()) && !kernels.iter().any(|k| k.symbol == s))
        .collect();
    if !undefined.is_empty() {
        return Err(Error::Compile(format!(
            "the generated code calls {}, which firmware output does not provide (it links against nothing but \
             memcpy/memset/memmove): floating-point transcendental ops (exp, tanh, sigmoid, ...) are not supported \
             in firmware yet",
            undefined.join(", ")
        )));
    }
    Ok(sizes)
}

//! What a firmware object may contain: code, constants and nothing writable; no undefined
//! symbol but the C library's memory functions, the compiler's integer and soft-float helper
//! routines and the accelerators' kernels.

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

/// The soft-float routines of libgcc and compiler-rt (linked by default, as the integer helpers
/// are) that LLVM calls on a CPU without a floating-point unit (Cortex-M0+ and M3, RV32IM), and
/// for doubles on a single-precision one: arithmetic, comparisons and conversions, in the
/// generic names and Arm's run-time ABI names. TFLite Micro's float kernels run on such CPUs so.
pub const SOFT_FLOAT_HELPERS: &[&str] = &[
    "__addsf3",
    "__subsf3",
    "__mulsf3",
    "__divsf3",
    "__negsf2",
    "__eqsf2",
    "__nesf2",
    "__ltsf2",
    "__lesf2",
    "__gtsf2",
    "__gesf2",
    "__unordsf2",
    "__fixsfsi",
    "__fixunssfsi",
    "__fixsfdi",
    "__fixunssfdi",
    "__floatsisf",
    "__floatunsisf",
    "__floatdisf",
    "__floatundisf",
    "__extendsfdf2",
    "__truncdfsf2",
    "__adddf3",
    "__subdf3",
    "__muldf3",
    "__divdf3",
    "__negdf2",
    "__eqdf2",
    "__nedf2",
    "__ltdf2",
    "__ledf2",
    "__gtdf2",
    "__gedf2",
    "__unorddf2",
    "__fixdfsi",
    "__fixunsdfsi",
    "__fixdfdi",
    "__fixunsdfdi",
    "__floatsidf",
    "__floatunsidf",
    "__floatdidf",
    "__floatundidf",
    "__aeabi_fadd",
    "__aeabi_fsub",
    "__aeabi_frsub",
    "__aeabi_fmul",
    "__aeabi_fdiv",
    "__aeabi_fcmpeq",
    "__aeabi_fcmplt",
    "__aeabi_fcmple",
    "__aeabi_fcmpgt",
    "__aeabi_fcmpge",
    "__aeabi_fcmpun",
    "__aeabi_f2iz",
    "__aeabi_f2uiz",
    "__aeabi_f2lz",
    "__aeabi_f2ulz",
    "__aeabi_i2f",
    "__aeabi_ui2f",
    "__aeabi_l2f",
    "__aeabi_ul2f",
    "__aeabi_f2d",
    "__aeabi_d2f",
    "__aeabi_dadd",
    "__aeabi_dsub",
    "__aeabi_drsub",
    "__aeabi_dmul",
    "__aeabi_ddiv",
    "__aeabi_dcmpeq",
    "__aeabi_dcmplt",
    "__aeabi_dcmple",
    "__aeabi_dcmpgt",
    "__aeabi_dcmpge",
    "__aeabi_dcmpun",
    "__aeabi_d2iz",
    "__aeabi_d2uiz",
    "__aeabi_d2lz",
    "__aeabi_d2ulz",
    "__aeabi_i2d",
    "__aeabi_ui2d",
    "__aeabi_l2d",
    "__aeabi_ul2d",
];

/// The soft-float helpers among an object's `imports` (what it needs from libgcc for floats).
pub fn soft_float_imports(imports: &[String]) -> Vec<&str> {
    imports.iter().map(String::as_str).filter(|s| SOFT_FLOAT_HELPERS.contains(s)).collect()
}

/// Everything an object's `imports` take from libgcc (or compiler-rt): integer and soft-float
/// helpers.
pub fn libgcc_imports(imports: &[String]) -> Vec<&str> {
    imports
        .iter()
        .map(String::as_str)
        .filter(|s| SOFT_FLOAT_HELPERS.contains(s) || INTEGER_HELPERS.contains(s))
        .collect()
}

/// Bytes of code and of constants in an object, and what it imports.
#[derive(Default)]
pub struct ObjectSizes {
    /// Executable code (with Arm's unwind index).
    pub text: u64,
    /// Read-only data.
    pub rodata: u64,
    /// Writable data: the model's state (an LSTM's), kept from one call to the next.
    pub state: u64,
    /// The static buffers of accelerators' calls in the processor's own memory
    /// (`umac_backend::LOCAL_SECTION`).
    pub local: u64,
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
    let mut sizes = ObjectSizes::default();
    for section in file.sections() {
        let (name, size) = (section.name().unwrap_or("?"), section.size());
        // Arm's index table for nounwind code holds only "cannot unwind" entries (no unwinder
        // is referenced); it is accounted with the code, not the constants.
        let counted = match section.kind() {
            _ if name.starts_with(".ARM.exidx") => &mut sizes.text,
            _ if name == umac_backend::LOCAL_SECTION => &mut sizes.local,
            SectionKind::Text => &mut sizes.text,
            SectionKind::ReadOnlyData | SectionKind::ReadOnlyString | SectionKind::ReadOnlyDataWithRel => {
                &mut sizes.rodata
            }
            // The model's state (its variables), which persists between calls.
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
                && !SOFT_FLOAT_HELPERS.contains(&s.as_str())
                && !kernels.iter().any(|k| k.symbol == s.as_str())
        })
        .collect();
    if !unsupported.is_empty() {
        let names: Vec<&str> = unsupported.iter().map(|s| s.as_str()).collect();
        return Err(Error::Compile(format!(
            "the generated code calls {}, which firmware output does not provide (it links against nothing but \
             memcpy/memset/memmove, the toolchain's integer and soft-float helpers and the accelerators' kernels; \
             umac computes exp, tanh, log, sin and cos itself, other floating-point functions such as powf are \
             not supported in firmware yet)",
            names.join(", ")
        )));
    }
    sizes.imports = imports;
    Ok(sizes)
}

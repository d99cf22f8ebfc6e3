//! The CPUs umac compiles for: one typed table, used by target strings, code generation and
//! firmware output.

/// How code for a CPU is generated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Machine {
    /// The machine umac runs on (triple, CPU and features read from LLVM at run time);
    /// position-independent code.
    Host,
    /// A fixed LLVM target; static code (firmware is linked at fixed addresses).
    Llvm {
        /// LLVM triple, e.g. `thumbv8.1m.main-none-eabihf`.
        triple: &'static str,
        /// LLVM CPU, e.g. `cortex-m55`.
        cpu: &'static str,
        /// LLVM feature string (may be empty: the CPU implies its features).
        features: &'static str,
    },
}

/// A CPU a target string may name last.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cpu {
    /// The name users write in `--target`.
    pub name: &'static str,
    /// What one line of the table says it is.
    pub description: &'static str,
    /// How its code is generated.
    pub machine: Machine,
    /// Bits of a pointer and of `index` in generated code.
    pub index_bits: u32,
    /// It has vector registers (Helium): the lowering turns int8 dot products into vector loops
    /// (`umac-vectorize-dot-products`) rather than leaving LLVM to unroll them into scalar code.
    pub vectors: bool,
    /// Its rescales are computed in 32-bit arithmetic (`umac-apply-scale-32`): the Cortex-M cores
    /// (one instruction multiplies 32 by 32 bits into 64; on Cortex-M4, KWS takes 11.24M
    /// instructions so and 12.40M in 64-bit arithmetic). The RISC-V cores keep the 64-bit form
    /// (the tynnp NPU's RV32IM control unit: 19,796 cycles for KWS so, 19,634 without).
    pub rescale_32: bool,
    /// It has the DSP extension and no vectors (Cortex-M4, M7, M33): int8 dot products take four
    /// products per step (`sxtb16`, `smlad`; `umac-vectorize-dot-products{dsp}`).
    pub dsp: bool,
}

const fn arm(name: &'static str, triple: &'static str, description: &'static str, vectors: bool, dsp: bool) -> Cpu {
    Cpu {
        name,
        description,
        machine: Machine::Llvm { triple, cpu: name, features: "" },
        index_bits: 32,
        vectors,
        rescale_32: true,
        dsp,
    }
}

/// A 32-bit RISC-V core without floating point (ilp32 ABI); `features` names its extensions.
const fn rv32(name: &'static str, features: &'static str, description: &'static str) -> Cpu {
    Cpu {
        name,
        description,
        machine: Machine::Llvm { triple: "riscv32-unknown-none-elf", cpu: "generic-rv32", features },
        index_bits: 32,
        vectors: false,
        rescale_32: false,
        dsp: false,
    }
}

/// Arm Cortex-M85 with MVE (Helium) and the FPU.
pub const CORTEX_M85: Cpu =
    arm("cortex-m85", "thumbv8.1m.main-none-eabihf", "Arm Cortex-M85 (MVE/Helium, FPU)", true, false);
/// Arm Cortex-M55 with MVE (Helium) and the FPU.
pub const CORTEX_M55: Cpu =
    arm("cortex-m55", "thumbv8.1m.main-none-eabihf", "Arm Cortex-M55 (MVE/Helium, FPU)", true, false);
/// Arm Cortex-M7 with the DSP extension and the FPU.
pub const CORTEX_M7: Cpu = arm("cortex-m7", "thumbv7em-none-eabihf", "Arm Cortex-M7 (DSP, FPU)", false, true);
/// Arm Cortex-M4 with the DSP extension and the FPU.
pub const CORTEX_M4: Cpu = arm("cortex-m4", "thumbv7em-none-eabihf", "Arm Cortex-M4 (DSP, FPU)", false, true);
/// Arm Cortex-M33 with the DSP extension and the FPU (Armv8-M Mainline).
pub const CORTEX_M33: Cpu = arm("cortex-m33", "thumbv8m.main-none-eabihf", "Arm Cortex-M33 (DSP, FPU)", false, true);
/// Arm Cortex-M3 (Armv7-M: hardware divide, no DSP, no FPU).
pub const CORTEX_M3: Cpu = arm("cortex-m3", "thumbv7m-none-eabi", "Arm Cortex-M3 (no DSP, no FPU)", false, false);
/// Arm Cortex-M0+ (Armv6-M: no divide, no DSP, no FPU; 64-bit multiplies are libgcc calls).
pub const CORTEX_M0PLUS: Cpu = arm("cortex-m0plus", "thumbv6m-none-eabi", "Arm Cortex-M0+ (Armv6-M)", false, false);
/// RISC-V RV32IM: integer base and multiply/divide.
pub const RV32IM: Cpu = rv32("rv32im", "+m", "RISC-V RV32IM (multiply/divide)");
/// RISC-V RV32IMC: RV32IM with compressed instructions.
pub const RV32IMC: Cpu = rv32("rv32imc", "+m,+c", "RISC-V RV32IMC (multiply/divide, compressed)");
/// The machine umac runs on (objects to link into host programs and tests).
pub const HOST: Cpu = Cpu {
    name: "host",
    description: "the machine umac runs on",
    machine: Machine::Host,
    index_bits: usize::BITS,
    vectors: false,
    rescale_32: false,
    dsp: false,
};

/// Every CPU, in the order errors list them.
pub const CPUS: &[Cpu] =
    &[CORTEX_M85, CORTEX_M55, CORTEX_M33, CORTEX_M7, CORTEX_M4, CORTEX_M3, CORTEX_M0PLUS, RV32IMC, RV32IM, HOST];

impl Cpu {
    /// Looks a CPU up by its `--target` name.
    pub fn find(name: &str) -> Option<Cpu> {
        CPUS.iter().copied().find(|cpu| cpu.name == name)
    }

    /// Whether the CPU computes floats in hardware: the host, and Arm's hard-float cores (an
    /// `eabihf` triple). Elsewhere (Cortex-M0+ and M3, RV32) floats are libgcc's soft-float calls.
    pub fn has_fpu(&self) -> bool {
        match self.machine {
            Machine::Host => true,
            Machine::Llvm { triple, .. } => triple.ends_with("eabihf"),
        }
    }

    /// Every CPU's name, comma-separated.
    pub fn names() -> String {
        CPUS.iter().map(|c| c.name).collect::<Vec<_>>().join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table() {
        assert_eq!(Cpu::find("cortex-m55"), Some(CORTEX_M55));
        assert_eq!(Cpu::find("cortex-m85"), Some(CORTEX_M85));
        assert_eq!(Cpu::find("cortex-m99"), None);
        assert_eq!(
            Cpu::names(),
            "cortex-m85, cortex-m55, cortex-m33, cortex-m7, cortex-m4, cortex-m3, cortex-m0plus, rv32imc, rv32im, host"
        );
        assert!(matches!(RV32IMC.machine, Machine::Llvm { triple: "riscv32-unknown-none-elf", features: "+m,+c", .. }));
        assert_eq!(CORTEX_M4.index_bits, 32);
        assert!(matches!(CORTEX_M7.machine, Machine::Llvm { triple: "thumbv7em-none-eabihf", cpu: "cortex-m7", .. }));
    }
}

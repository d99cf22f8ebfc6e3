//! The CPUs beyond Cortex-M55/M7/M4: every MLPerf Tiny model compiled for RV32IM and RV32IMC
//! and run under QEMU's RISC-V virt board (and the same program on umac's simulator, which must
//! print the same bytes and instruction count), for Cortex-M3 (mps2-an385) and Cortex-M33 (mps2-an505)
//! on their boards; Cortex-M0+ code on the Cortex-M3 board (Armv6-M runs unchanged on Armv7-M;
//! QEMU has no Armv6-M board with room for the models) and Cortex-M85 code on the Cortex-M55
//! board (the same Armv8.1-M architecture with MVE; umac uses none of the M85's PACBTI). Every
//! output byte must equal TFLite Micro's on all five reference inputs.

mod support;

use support::{compile_model, models_dir, run_on};
use umac_backend::cpu::{CORTEX_M0PLUS, CORTEX_M3, CORTEX_M33, CORTEX_M85, Machine, RV32IM, RV32IMC};
use umac_runtime::firmware::{
    CORTEX_M0PLUS_ON_AN385, MPS2_AN385, MPS2_AN505, MPS3_AN547, RISCV_VIRT_RV32IM, RISCV_VIRT_RV32IMC,
};

const MODELS: [&str; 4] = ["kws", "vww", "ic", "ad"];

/// Runs the harness QEMU ran on umac's simulator: it must print the same (the outputs checked
/// by the harness, and the `instructions:` count of the first case, which QEMU's `-icount`
/// counts exactly) and exit with the same status.
fn same_on_simulator(model: &str, run: &support::Run) {
    let data = std::fs::read(&run.program).unwrap();
    let mut machine = umac_sim::Machine::new();
    umac_sim::elf::load_executable(&mut machine, model, &data).unwrap();
    let started = std::time::Instant::now();
    let exit = machine.run(20_000_000_000).unwrap_or_else(|e| panic!("{model} on the simulator: {e}"));
    let seconds = started.elapsed().as_secs_f64();
    assert_eq!(exit, umac_sim::Exit::Exited(0));
    assert_eq!(String::from_utf8_lossy(&machine.output), run.output, "{model}: simulator and QEMU differ");
    eprintln!(
        "{model}: simulator agrees with QEMU ({:?} instructions in the first case); {} instructions in {seconds:.2} s = {:.0} M instructions/s",
        run.instructions(),
        machine.instret,
        machine.instret as f64 / seconds / 1e6
    );
}

#[test]
fn rv32im_on_qemu_virt_and_the_simulator() {
    for model in MODELS {
        let run = run_on(model, RV32IM, RISCV_VIRT_RV32IM);
        let instructions = run.instructions();
        assert!(instructions.is_some_and(|n| n > 0), "{}", run.output);
        same_on_simulator(model, &run);
    }
}

#[test]
fn rv32imc_on_qemu_virt_and_the_simulator() {
    for model in MODELS {
        let run = run_on(model, RV32IMC, RISCV_VIRT_RV32IMC);
        same_on_simulator(model, &run);
    }
}

#[test]
fn cortex_m3_on_an385() {
    for model in MODELS {
        run_on(model, CORTEX_M3, MPS2_AN385);
    }
}

#[test]
fn cortex_m33_on_an505() {
    for model in MODELS {
        run_on(model, CORTEX_M33, MPS2_AN505);
    }
}

#[test]
fn cortex_m0plus_code_on_the_m3_board() {
    for model in MODELS {
        run_on(model, CORTEX_M0PLUS, CORTEX_M0PLUS_ON_AN385);
    }
}

#[test]
fn cortex_m85_code_on_the_m55_board() {
    for model in ["kws", "ic"] {
        run_on(model, CORTEX_M85, MPS3_AN547);
    }
}

/// Each new CPU's objects say what they are built for: ELF machine and flags, Arm build
/// attributes or the RISC-V ISA string; they import only memory functions and (Armv6-M) the
/// toolchain's integer helpers; no writable data.
#[test]
fn objects_carry_their_architecture() {
    use object::{Object, ObjectSection, ObjectSymbol, SectionKind};
    let models = models_dir();
    let dir = models.join("kws");
    for cpu in [CORTEX_M0PLUS, CORTEX_M3, CORTEX_M33, CORTEX_M85, RV32IM, RV32IMC] {
        let firmware = compile_model(&dir, "kws", cpu);
        let file = object::File::parse(&*firmware.object).unwrap();
        let Machine::Llvm { triple, .. } = cpu.machine else { unreachable!() };
        assert_eq!(firmware.metadata["target"]["triple"], triple);
        let attributes = |name: &str| {
            file.section_by_name(name)
                .map(|s| s.data().unwrap().to_vec())
                .unwrap_or_else(|| panic!("{name} in {}", cpu.name))
        };
        let text = |bytes: Vec<u8>| String::from_utf8_lossy(&bytes).into_owned();
        match cpu.name {
            "rv32im" | "rv32imc" => {
                assert_eq!(file.architecture(), object::Architecture::Riscv32);
                let isa = text(attributes(".riscv.attributes"));
                assert!(isa.contains("rv32i2p1_m2p0"), "{isa}");
                assert_eq!(isa.contains("_c2p0"), cpu.name == "rv32imc", "{isa}");
                assert!(!isa.contains("_f2p2") && !isa.contains("_a2p1"), "{isa}");
            }
            _ => {
                assert_eq!(file.architecture(), object::Architecture::Arm);
                let arm = text(attributes(".ARM.attributes"));
                // Tag_CPU_name is the LLVM CPU, upper-cased by the Arm ABI.
                assert!(arm.to_lowercase().contains(cpu.name), "{}: {arm:?}", cpu.name);
            }
        }
        for symbol in file.symbols().filter(|s| s.is_undefined()) {
            let name = symbol.name().unwrap();
            assert!(
                name.is_empty()
                    || name.contains("memcpy")
                    || name.contains("memset")
                    || name.contains("memmove")
                    || name.contains("memclr")
                    || (cpu.name == "cortex-m0plus" && name.starts_with("__")),
                "{}: imports {name}",
                cpu.name
            );
        }
        let imports = firmware.metadata["imports"].as_array().unwrap();
        // Armv6-M has no 64-bit multiply: Arm's run-time ABI helper, by its EABI name (the one
        // libgcc for Armv6-M defines: its float helpers have no other).
        let lmul = imports.iter().any(|i| i == "__aeabi_lmul");
        assert_eq!(cpu.name == "cortex-m0plus", lmul, "{}: {imports:?}", cpu.name);
        for section in file.sections() {
            if matches!(section.kind(), SectionKind::Data | SectionKind::UninitializedData) {
                assert_eq!(section.size(), 0, "{}: writable data in {}", cpu.name, section.name().unwrap_or("?"));
            }
        }
    }
}

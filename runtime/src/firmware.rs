//! The firmware harness: links a compiled model's object with a small C test program (start-up
//! code, linker script, a main that runs test cases and compares outputs) and runs it on an
//! emulated Cortex-M board or QEMU's RISC-V virt board, or as a host program.
//!
//! The C sources live in `runtime/firmware/`; a generated `cases.c` supplies the model's inputs
//! and expected outputs. Exit status 0 means every output byte matched.

use crate::Error;
use std::{
    fmt::Write as _,
    path::{Path, PathBuf},
    process::{Command, Stdio},
    time::Duration,
};

const STARTUP_C: &str = include_str!("../firmware/startup.c");
const MAIN_C: &str = include_str!("../firmware/main.c");
const HARNESS_H: &str = include_str!("../firmware/harness.h");
const LINK_LD: &str = include_str!("../firmware/link.ld");

/// An emulated Arm board: its QEMU machine and where its memories are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArmBoard {
    /// `qemu-system-arm -M` name, e.g. `mps3-an547`.
    pub machine: &'static str,
    /// Code and constants (the vector table is at its start).
    pub flash: u32,
    /// Data, bss and the stack.
    pub ram: u32,
    /// The board's large memory, where the test vectors go.
    pub ext: u32,
}

/// QEMU's Arm MPS3 AN547 (Cortex-M55).
pub const AN547: ArmBoard = ArmBoard { machine: "mps3-an547", flash: 0, ram: 0x2000_0000, ext: 0x2100_0000 };
/// QEMU's Arm MPS2 AN386 (Cortex-M4).
pub const AN386: ArmBoard = ArmBoard { machine: "mps2-an386", flash: 0, ram: 0x2000_0000, ext: 0x2100_0000 };
/// QEMU's Arm MPS2 AN500 (Cortex-M7).
pub const AN500: ArmBoard = ArmBoard { machine: "mps2-an500", flash: 0, ram: 0x2000_0000, ext: 0x6000_0000 };
/// QEMU's Arm MPS2 AN385 (Cortex-M3).
pub const AN385: ArmBoard = ArmBoard { machine: "mps2-an385", flash: 0, ram: 0x2000_0000, ext: 0x2100_0000 };
/// QEMU's Arm MPS2 AN505 (Cortex-M33 with TrustZone): the core boots secure, so code runs from
/// the secure alias of SSRAM1 and data from the secure alias of SSRAM2; test vectors in PSRAM.
pub const AN505: ArmBoard = ArmBoard { machine: "mps2-an505", flash: 0x1000_0000, ram: 0x3800_0000, ext: 0x8000_0000 };

/// Where a harness runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Platform {
    /// An emulated Arm board, with the harness built for `cpu` (`arm-none-eabi-gcc -mcpu`) and
    /// floating-point calls passed in FP registers when `hard_float`.
    Arm {
        /// The board.
        board: ArmBoard,
        /// `-mcpu` for the C compiler, e.g. `cortex-m55`.
        cpu: &'static str,
        /// `-mfloat-abi=hard` (the CPU has an FPU) rather than `soft`.
        hard_float: bool,
    },
    /// QEMU's RISC-V `virt` board (`qemu-system-riscv32`, RAM from 0x80000000), the harness built
    /// for `march` (`riscv64-unknown-elf-gcc -march`, ilp32) with picolibc and semihosting. The
    /// harness prints the instructions the first case took (`instret`, exact under `-icount`).
    RiscvVirt {
        /// e.g. `rv32im`, `rv32imac`.
        march: &'static str,
    },
    /// The machine running the tests (the system C compiler).
    Host,
}

/// Cortex-M55 on its board.
pub const MPS3_AN547: Platform = Platform::Arm { board: AN547, cpu: "cortex-m55", hard_float: true };
/// Cortex-M4 on its board.
pub const MPS2_AN386: Platform = Platform::Arm { board: AN386, cpu: "cortex-m4", hard_float: true };
/// Cortex-M7 on its board.
pub const MPS2_AN500: Platform = Platform::Arm { board: AN500, cpu: "cortex-m7", hard_float: true };
/// Cortex-M3 on its board.
pub const MPS2_AN385: Platform = Platform::Arm { board: AN385, cpu: "cortex-m3", hard_float: false };
/// Cortex-M33 on its board.
pub const MPS2_AN505: Platform = Platform::Arm { board: AN505, cpu: "cortex-m33", hard_float: true };
/// Cortex-M0+ code on the Cortex-M3 board: QEMU has no Armv6-M board big enough for the models,
/// and Armv6-M code runs unchanged on an Armv7-M core.
pub const CORTEX_M0PLUS_ON_AN385: Platform = Platform::Arm { board: AN385, cpu: "cortex-m0plus", hard_float: false };
/// QEMU's RISC-V virt board, harness built for RV32IM.
pub const RISCV_VIRT_RV32IM: Platform = Platform::RiscvVirt { march: "rv32im" };
/// The same for RV32IMC code (picolibc's closest multilib is rv32imac; the harness uses no atomics).
pub const RISCV_VIRT_RV32IMC: Platform = Platform::RiscvVirt { march: "rv32imac" };

/// One test case: the bytes of every input and the expected bytes of every output.
#[derive(Clone, Debug)]
pub struct Case {
    /// Input tensors' bytes, in the model's input order.
    pub inputs: Vec<Vec<u8>>,
    /// Expected output tensors' bytes, in the model's output order.
    pub expected: Vec<Vec<u8>>,
}

/// The model as the harness sees it.
#[derive(Clone, Debug)]
pub struct Model<'a> {
    /// The C name `N` (the object exports `N_run`).
    pub name: &'a str,
    /// The object file.
    pub object: &'a Path,
    /// The header file (`N.h`).
    pub header: &'a Path,
    /// Workspace bytes.
    pub workspace_size: u64,
    /// Bytes of each output.
    pub output_bytes: Vec<usize>,
    /// C sources of the kernels the object calls (accelerators' functions), compiled with it.
    pub kernel_sources: Vec<PathBuf>,
    /// Directories the kernels' headers are included from (beside the header: its own).
    pub include_dirs: Vec<PathBuf>,
}

/// What a harness run produced.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// Exit status (0: all outputs matched; 1: a mismatch; 2: a model status; 101-105: a fault;
    /// `None`: killed by the timeout).
    pub status: Option<i32>,
    /// What the program printed.
    pub output: String,
}

pub(crate) fn harness(message: String) -> Error {
    Error::Harness(message)
}

/// Generates `cases.c` for `model` and `cases`.
pub fn cases_c(model: &Model, cases: &[Case]) -> String {
    let header = model.header.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let mut c =
        format!("/* Generated test cases for {}. */\n#include \"harness.h\"\n#include \"{header}\"\n\n", model.name);
    let outputs = model.output_bytes.len();
    let _ = writeln!(c, "const unsigned harness_num_cases = {};", cases.len());
    let _ = writeln!(c, "const unsigned harness_num_outputs = {outputs};");
    let sizes: Vec<String> = model.output_bytes.iter().map(usize::to_string).collect();
    let _ = writeln!(c, "const unsigned harness_output_bytes[] = {{{}}};", sizes.join(", "));
    let bytes = |data: &[u8]| data.iter().map(|b| b.to_string()).collect::<Vec<_>>().join(",");
    for (i, case) in cases.iter().enumerate() {
        for (k, input) in case.inputs.iter().enumerate() {
            let _ = writeln!(
                c,
                "__attribute__((section(\".testdata\"), aligned(16))) static const uint8_t in_{i}_{k}[] = {{{}}};",
                bytes(input)
            );
        }
        let pointers: Vec<String> = (0..case.inputs.len()).map(|k| format!("in_{i}_{k}")).collect();
        let _ = writeln!(c, "static const void *const inputs_{i}[] = {{{}}};", pointers.join(", "));
        for (k, expected) in case.expected.iter().enumerate() {
            let _ = writeln!(
                c,
                "__attribute__((section(\".testdata\"))) static const uint8_t want_{i}_{k}[] = {{{}}};",
                bytes(expected)
            );
        }
        let pointers: Vec<String> = (0..case.expected.len()).map(|k| format!("want_{i}_{k}")).collect();
        let _ = writeln!(c, "static const uint8_t *const expected_{i}[] = {{{}}};", pointers.join(", "));
    }
    let list = |prefix: &str| (0..cases.len()).map(|i| format!("{prefix}_{i}")).collect::<Vec<_>>().join(", ");
    let _ = writeln!(c, "const void *const *const harness_inputs[] = {{{}}};", list("inputs"));
    let _ = writeln!(c, "const uint8_t *const *const harness_expected[] = {{{}}};", list("expected"));
    for (o, size) in model.output_bytes.iter().enumerate() {
        let _ = writeln!(c, "static uint8_t out_{o}[{size}] __attribute__((aligned(16)));");
    }
    let outs: Vec<String> = (0..outputs).map(|o| format!("out_{o}")).collect();
    let _ = writeln!(c, "void *const harness_outputs[] = {{{}}};", outs.join(", "));
    let _ = writeln!(c, "uint8_t harness_workspace[{}] __attribute__((aligned(16)));", model.workspace_size.max(1));
    let _ = writeln!(c, "const unsigned harness_workspace_size = {};", model.workspace_size);
    let _ = writeln!(
        c,
        "__attribute__((noinline)) int32_t harness_run(const void *const in[], void *const out[], void *ws) {{\n    \
         return {}_run(in, out, ws);\n}}",
        model.name
    );
    c
}

/// Writes the harness sources and `cases.c` into `dir` and links them with the model into a
/// program for `platform`. Returns the program's path.
pub fn build(platform: Platform, dir: &Path, model: &Model, cases: &[Case]) -> Result<PathBuf, Error> {
    let sources =
        [("main.c", MAIN_C.to_string()), ("harness.h", HARNESS_H.to_string()), ("cases.c", cases_c(model, cases))];
    let mut include_dirs = vec![model.header.parent().unwrap_or(Path::new(".")).to_path_buf()];
    include_dirs.extend(model.include_dirs.iter().cloned());
    let c_files: Vec<PathBuf> = model.kernel_sources.clone();
    build_program(platform, dir, model.name, &sources, &c_files, &[model.object], &include_dirs)
}

/// Writes `sources` (name, text) into `dir` and links a program named `name` for `platform` from
/// the C files among them, `c_files` and `objects`, with `dir` and `include_dirs` on the include
/// path: on Arm with the harness's start-up code and memory map (the boards' flash, RAM and large
/// memory), on RISC-V with picolibc's. Returns the program's path. A firmware of several models
/// is one such program: its own `main.c` and every model's object.
pub fn build_program(
    platform: Platform,
    dir: &Path,
    name: &str,
    sources: &[(&str, String)],
    c_files: &[PathBuf],
    objects: &[&Path],
    include_dirs: &[PathBuf],
) -> Result<PathBuf, Error> {
    std::fs::create_dir_all(dir).map_err(|e| harness(format!("{}: {e}", dir.display())))?;
    let mut sources = sources.to_vec();
    if let Platform::Arm { board, .. } = platform {
        let link = LINK_LD
            .replace("FLASH_ORIGIN", &format!("{:#010x}", board.flash))
            .replace("RAM_ORIGIN", &format!("{:#010x}", board.ram))
            .replace("EXT_ORIGIN", &format!("{:#010x}", board.ext));
        sources.push(("startup.c", STARTUP_C.to_string()));
        sources.push(("link.ld", link));
    }
    for (name, text) in &sources {
        std::fs::write(dir.join(name), text).map_err(|e| harness(format!("{name}: {e}")))?;
    }
    let program = dir.join(format!("{name}.elf"));
    let mut command = match platform {
        Platform::Arm { cpu, hard_float, .. } => {
            let mut command = Command::new("arm-none-eabi-gcc");
            command.arg(format!("-mcpu={cpu}")).arg("-mthumb");
            if hard_float {
                command.args(["-mfloat-abi=hard", "-mfpu=auto"]);
            } else {
                command.arg("-mfloat-abi=soft");
            }
            command
                .args(["-O2", "-ffp-contract=off", "-T"])
                .arg(dir.join("link.ld"))
                .args(["-nostartfiles", "--specs=rdimon.specs", "-Wl,--no-warn-rwx-segments"])
                .args(["-Wl,--no-warn-execstack", "-Wl,--gc-sections"]);
            command
        }
        Platform::RiscvVirt { march } => {
            // picolibc's start-up (stack, .data, .bss, exit through semihosting) and linker
            // script, with code and constants from 0x80000000 and RAM 16 MiB above.
            let mut command = Command::new("riscv64-unknown-elf-gcc");
            command
                .arg(format!("-march={march}"))
                .args(["-mabi=ilp32", "-O2", "-ffp-contract=off", "--specs=picolibc.specs"])
                .args(["--oslib=semihost", "--crt0=semihost", "-Wl,--gc-sections"])
                .args(["-Wl,--defsym=__flash=0x80000000", "-Wl,--defsym=__flash_size=0x01000000"])
                .args(["-Wl,--defsym=__ram=0x81000000", "-Wl,--defsym=__ram_size=0x01000000"]);
            command
        }
        Platform::Host => {
            let mut command = Command::new("cc");
            command.args(["-O2", "-no-pie"]);
            command
        }
    };
    command.arg("-I").arg(dir);
    for dir in include_dirs {
        command.arg("-I").arg(dir);
    }
    // The start-up code first, then the kernels, the program's own sources and the objects.
    let own = sources.iter().filter(|(name, _)| name.ends_with(".c") && *name != "startup.c");
    if sources.iter().any(|(name, _)| *name == "startup.c") {
        command.arg(dir.join("startup.c"));
    }
    command.args(c_files).args(own.map(|(name, _)| dir.join(name))).args(objects).arg("-o").arg(&program);
    let output = command.output().map_err(|e| harness(format!("cannot run the C compiler ({command:?}): {e}")))?;
    if !output.status.success() {
        return Err(harness(format!("linking the harness failed:\n{}", String::from_utf8_lossy(&output.stderr))));
    }
    Ok(program)
}

/// The QEMU command line that runs `program` on an emulated board (`None` for the host), with
/// semihosting: the program's exit status becomes QEMU's. RISC-V runs with `-icount shift=0`, so
/// `instret` counts instructions exactly.
pub fn qemu_command(platform: Platform, program: &Path) -> Option<Command> {
    let mut command = match platform {
        Platform::Arm { board, .. } => {
            let mut command = Command::new("qemu-system-arm");
            command.args(["-M", board.machine]);
            command
        }
        Platform::RiscvVirt { .. } => {
            let mut command = Command::new("qemu-system-riscv32");
            command.args(["-M", "virt", "-bios", "none", "-icount", "shift=0"]);
            command
        }
        Platform::Host => return None,
    };
    command
        .args(["-nographic", "-monitor", "none", "-semihosting-config", "enable=on,target=native"])
        .arg("-kernel")
        .arg(program);
    Some(command)
}

/// Runs `program` (from [`build`]) on `platform`, killing it after `timeout`.
pub fn run(platform: Platform, program: &Path, timeout: Duration) -> Result<Outcome, Error> {
    let mut command = qemu_command(platform, program).unwrap_or_else(|| Command::new(program));
    command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = command.spawn().map_err(|e| harness(format!("cannot start {command:?}: {e}")))?;
    // Both pipes are drained while the program runs: a program that prints more than a pipe
    // holds would otherwise block, or lose what it prints (QEMU's semihosting writes are
    // non-blocking).
    let drain = |pipe: Option<Box<dyn std::io::Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            bytes
        })
    };
    let stdout = drain(child.stdout.take().map(|p| Box::new(p) as Box<dyn std::io::Read + Send>));
    let stderr = drain(child.stderr.take().map(|p| Box::new(p) as Box<dyn std::io::Read + Send>));
    let started = std::time::Instant::now();
    let status = loop {
        match child.try_wait().map_err(|e| Error::Harness(e.to_string()))? {
            Some(status) => break Some(status),
            None if started.elapsed() > timeout => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            None => std::thread::sleep(Duration::from_millis(10)),
        }
    };
    let mut text = String::from_utf8_lossy(&stdout.join().unwrap_or_default()).into_owned();
    text.push_str(&String::from_utf8_lossy(&stderr.join().unwrap_or_default()));
    match status {
        Some(status) => Ok(Outcome { status: status.code(), output: text }),
        None => Ok(Outcome { status: None, output: format!("timed out after {timeout:?}") }),
    }
}

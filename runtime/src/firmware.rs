//! The firmware harness: links a compiled model's object with a small C test program (start-up
//! code, linker script, a main that runs test cases and compares outputs) and runs it on an
//! emulated Cortex-M board under QEMU, or as a host program.
//!
//! The C sources live in `runtime/firmware/`; a generated `cases.c` supplies the model's inputs
//! and expected outputs. Exit status 0 means every output byte matched.

use crate::Error;
use std::{
    fmt::Write as _,
    io::{BufRead, BufReader},
    path::{Path, PathBuf},
    process::{Command, Stdio},
    time::Duration,
};

const STARTUP_C: &str = include_str!("../firmware/startup.c");
const MAIN_C: &str = include_str!("../firmware/main.c");
const HARNESS_H: &str = include_str!("../firmware/harness.h");
const LINK_LD: &str = include_str!("../firmware/link.ld");

/// Where a harness runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Platform {
    /// An emulated Arm board: QEMU machine and the CPU the object was compiled for.
    Board {
        /// `qemu-system-arm -M` name, e.g. `mps3-an547`.
        machine: &'static str,
        /// `-mcpu` for the C compiler, e.g. `cortex-m55`.
        cpu: &'static str,
        /// Address of the board's large memory, where the test vectors go.
        data: u32,
    },
    /// The machine running the tests (the system C compiler).
    Host,
}

/// QEMU's Cortex-M55 board (MVE).
pub const MPS3_AN547: Platform = Platform::Board { machine: "mps3-an547", cpu: "cortex-m55", data: 0x2100_0000 };
/// QEMU's Cortex-M4 board.
pub const MPS2_AN386: Platform = Platform::Board { machine: "mps2-an386", cpu: "cortex-m4", data: 0x2100_0000 };
/// QEMU's Cortex-M7 board.
pub const MPS2_AN500: Platform = Platform::Board { machine: "mps2-an500", cpu: "cortex-m7", data: 0x6000_0000 };

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

fn harness(message: String) -> Error {
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
    std::fs::create_dir_all(dir).map_err(|e| harness(format!("{}: {e}", dir.display())))?;
    let data = match platform {
        Platform::Board { data, .. } => data,
        Platform::Host => 0,
    };
    let link = LINK_LD.replace("ORIGIN = 0x21000000", &format!("ORIGIN = {data:#010x}"));
    for (name, text) in [("startup.c", STARTUP_C), ("main.c", MAIN_C), ("harness.h", HARNESS_H), ("link.ld", &link)] {
        std::fs::write(dir.join(name), text).map_err(|e| harness(format!("{name}: {e}")))?;
    }
    std::fs::write(dir.join("cases.c"), cases_c(model, cases)).map_err(|e| harness(format!("cases.c: {e}")))?;
    let include = model.header.parent().unwrap_or(Path::new("."));
    let program = dir.join(format!("{}.elf", model.name));
    let mut command = match platform {
        Platform::Board { cpu, .. } => {
            let mut command = Command::new("arm-none-eabi-gcc");
            command
                .arg(format!("-mcpu={cpu}"))
                .args(["-mthumb", "-mfloat-abi=hard", "-mfpu=auto", "-O2", "-ffp-contract=off", "-T"])
                .arg(dir.join("link.ld"))
                .args(["-nostartfiles", "--specs=rdimon.specs", "-Wl,--no-warn-rwx-segments"])
                .args(["-Wl,--no-warn-execstack", "-Wl,--gc-sections"])
                .arg(dir.join("startup.c"));
            command
        }
        Platform::Host => {
            let mut command = Command::new("cc");
            command.args(["-O2", "-no-pie"]);
            command
        }
    };
    command.arg("-I").arg(dir).arg("-I").arg(include);
    for dir in &model.include_dirs {
        command.arg("-I").arg(dir);
    }
    command
        .args(&model.kernel_sources)
        .arg(dir.join("main.c"))
        .arg(dir.join("cases.c"))
        .arg(model.object)
        .arg("-o")
        .arg(&program);
    let output = command.output().map_err(|e| harness(format!("cannot run the C compiler ({command:?}): {e}")))?;
    if !output.status.success() {
        return Err(harness(format!("linking the harness failed:\n{}", String::from_utf8_lossy(&output.stderr))));
    }
    Ok(program)
}

/// The QEMU command line that runs `program` on `machine`, with semihosting (the program's
/// exit status becomes QEMU's).
pub fn qemu_command(machine: &str, program: &Path) -> Command {
    let mut command = Command::new("qemu-system-arm");
    command
        .args(["-M", machine, "-nographic", "-monitor", "none", "-semihosting-config", "enable=on,target=native"])
        .arg("-kernel")
        .arg(program);
    command
}

/// Runs `program` (from [`build`]) on `platform`, killing it after `timeout`.
pub fn run(platform: Platform, program: &Path, timeout: Duration) -> Result<Outcome, Error> {
    let mut command = match platform {
        Platform::Board { machine, .. } => qemu_command(machine, program),
        Platform::Host => Command::new(program),
    };
    command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = command.spawn().map_err(|e| harness(format!("cannot start {command:?}: {e}")))?;
    let started = std::time::Instant::now();
    loop {
        match child.try_wait().map_err(|e| Error::Harness(e.to_string()))? {
            Some(status) => {
                let output = child.wait_with_output().map_err(|e| Error::Harness(e.to_string()))?;
                let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
                text.push_str(&String::from_utf8_lossy(&output.stderr));
                return Ok(Outcome { status: status.code(), output: text });
            }
            None if started.elapsed() > timeout => {
                let _ = child.kill();
                let _ = child.wait();
                return Ok(Outcome { status: None, output: format!("timed out after {timeout:?}") });
            }
            None => std::thread::sleep(Duration::from_millis(10)),
        }
    }
}

/// Counts the instructions QEMU executes inside `harness_run` (the model, and the memory
/// functions it calls) for the first case, from QEMU's single-step execution trace. `symbols`
/// gives `(address, size)` of `harness_run` and `main` (from the program's symbol table).
pub fn count_instructions(
    machine: &str,
    program: &Path,
    harness_run: (u64, u64),
    main: (u64, u64),
    timeout: Duration,
) -> Result<u64, Error> {
    let mut command = qemu_command(machine, program);
    // `-d exec,nochain -singlestep`: one "Trace" line per executed instruction, with its PC.
    command.args(["-singlestep", "-d", "exec,nochain", "-D", "/dev/stderr"]);
    command.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped());
    let mut child = command.spawn().map_err(|e| harness(format!("cannot start {command:?}: {e}")))?;
    let stderr = child.stderr.take().ok_or_else(|| harness("no trace stream".into()))?;
    let started = std::time::Instant::now();
    let in_range = |pc: u64, (start, size): (u64, u64)| pc >= start && pc < start + size;
    let mut counting = false;
    let mut count = 0u64;
    let mut result = Err(harness("the trace never entered harness_run".into()));
    for line in BufReader::with_capacity(1 << 20, stderr).lines() {
        let Ok(line) = line else { break };
        if started.elapsed() > timeout {
            result = Err(harness(format!("timed out after {timeout:?}")));
            break;
        }
        // "Trace 0: 0x7f... [00000000/000004d0/00000110/ff200000] harness_run"
        let Some(pc) = line.split('[').nth(1).and_then(|rest| rest.split('/').nth(1)) else {
            continue;
        };
        let Ok(pc) = u64::from_str_radix(pc.trim(), 16) else { continue };
        let pc = pc & !1;
        if !counting {
            if in_range(pc, harness_run) {
                counting = true;
                count = 1;
            }
        } else if in_range(pc, main) {
            result = Ok(count);
            break;
        } else {
            count += 1;
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    result
}

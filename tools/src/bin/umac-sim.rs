//! `umac-sim PROGRAM.elf [--target TARGETS] [--report] [--limit N]`: runs an RV32 executable on
//! umac-sim's machine (an RV32IM(C) core, its memories and the devices the named accelerators
//! supply, e.g. `--target="tynnp -vu=2"`) until it exits through semihosting, as
//! `qemu-system-riscv32 -M virt -bios none -semihosting` would run it. The program's output goes
//! to standard output, its exit status becomes ours; with `--report` the cycle report follows on
//! standard error. A fault, an illegal instruction or a hazard stops the run with status 1 and a
//! message naming the pc and function.

use clap::Parser;
use std::{io::Write, process::ExitCode};
use umac_sim::{Exit, Machine, elf, report::report};

#[derive(Parser)]
#[command(
    name = "umac-sim",
    about = "Runs an RV32 program on umac-sim's machine, with the devices of the accelerators named"
)]
struct Args {
    /// The program: an RV32IM(C) ELF executable.
    program: std::path::PathBuf,
    /// Accelerators whose devices the machine hosts, with their attributes, as `umac compile
    /// --target` names them (e.g. "tynnp -vu=2 -dm-kib=128"). None: the core alone.
    #[arg(long, default_value = "", allow_hyphen_values = true)]
    target: String,
    /// Print the cycle report (per function, per unit, roofline) to standard error.
    #[arg(long)]
    report: bool,
    /// Stop with an error after this many instructions.
    #[arg(long, default_value_t = 10_000_000_000)]
    limit: u64,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let fail = |message: String| {
        eprintln!("umac-sim: error: {message}");
        ExitCode::from(1)
    };
    umac_driver::register_targets();
    let targets = match args.target.trim() {
        "" => Ok(Default::default()),
        text => umac_backend::parse_target_string(text).map_err(|e| e.to_string()),
    };
    let devices = match targets.and_then(|t| umac_driver::simulator::devices(&t).map_err(|e| e.to_string())) {
        Ok(devices) => devices,
        Err(e) => return fail(format!("--target: {e}")),
    };
    let data = match std::fs::read(&args.program) {
        Ok(d) => d,
        Err(e) => return fail(format!("{}: {e}", args.program.display())),
    };
    let mut machine = match Machine::with(devices) {
        Ok(m) => m,
        Err(e) => return fail(format!("--target: {e}")),
    };
    if let Err(e) = elf::load_executable(&mut machine, &args.program.display().to_string(), &data) {
        return fail(e.to_string());
    }
    let result = machine.run(args.limit);
    let _ = std::io::stdout().write_all(&machine.output);
    if args.report {
        eprint!("{}", report(&machine, (0, 0), &[], None).text);
    }
    match result {
        Ok(Exit::Exited(status)) => ExitCode::from(status.clamp(0, 255) as u8),
        Ok(Exit::Returned) => fail("the program returned to the simulator instead of exiting".into()),
        Err(stop) => fail(stop.to_string()),
    }
}

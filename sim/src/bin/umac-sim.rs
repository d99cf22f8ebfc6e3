//! `umac-sim PROGRAM.elf [--npu ATTRIBUTES] [--report] [--limit N]`: runs an RV32 executable on
//! the tynnp machine (the CU, its memories and the NPU) until it exits through semihosting, as
//! `qemu-system-riscv32 -M virt -bios none -semihosting` would run it. The program's output goes
//! to standard output, its exit status becomes ours; with `--report` the cycle report follows on
//! standard error. A fault, an illegal instruction or a hazard stops the run with status 1 and a
//! message naming the pc and function.

use clap::Parser;
use std::{io::Write, process::ExitCode};
use umac_sim::{Exit, Machine, elf, npu::Params, report::report};

#[derive(Parser)]
#[command(name = "umac-sim", about = "Runs an RV32 program on the tynnp NPU's control unit (docs/tynnp/isa.md)")]
struct Args {
    /// The program: an RV32IM(C) ELF executable.
    program: std::path::PathBuf,
    /// NPU parameters as a target string gives them, e.g. "-vu=2 -dm-kib=128".
    #[arg(long, default_value = "", allow_hyphen_values = true)]
    npu: String,
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
    let params = match Params::parse(&args.npu) {
        Ok(p) => p,
        Err(e) => return fail(format!("--npu: {e}")),
    };
    let data = match std::fs::read(&args.program) {
        Ok(d) => d,
        Err(e) => return fail(format!("{}: {e}", args.program.display())),
    };
    let mut machine = Machine::new(params);
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

//! Runs the real work in a child process, so a crash inside MLIR becomes a diagnostic.
//!
//! MLIR's C++ code is not hardened against every malformed input: the fuzz test found bytecode
//! files that corrupt the heap inside MLIR 22's bytecode reader (upstream `mlir-opt` aborts on
//! them too). A crash must never be what a user sees, so — as the clang driver runs `cc1` — the
//! tool (`umac-opt`, `umac`) re-executes itself as a worker and turns a worker killed by a signal into
//! `FILE:0:0: error: ...` with exit code 1. Standard input, output and error are inherited, so the
//! worker reads and writes exactly as it would alone; the cost is one process start (~5 ms).

use std::{
    os::unix::process::ExitStatusExt,
    process::{Command, ExitCode},
};

/// Set in the worker's environment; also lets a debugger run the work in-process.
pub const WORKER_ENV: &str = "UMAC_WORKER";

/// Tells whether this process is the worker (or the guard was turned off).
pub fn is_worker() -> bool {
    std::env::var_os(WORKER_ENV).is_some()
}

/// Runs `args` in a worker process of `tool` (this executable) and returns its exit code,
/// reporting a crash against `input`.
pub fn run_in_worker(tool: &str, args: &[String], input: &str) -> ExitCode {
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) => {
            eprintln!("{tool}: error: cannot find the {tool} executable to start a worker: {e}");
            return ExitCode::FAILURE;
        }
    };
    let status = Command::new(exe).args(args.iter().skip(1)).env(WORKER_ENV, "1").status();
    match status {
        Ok(status) => match (status.code(), status.signal()) {
            (Some(code), _) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
            (None, signal) => {
                let name = if input == "-" { "<stdin>" } else { input };
                let signal = signal.map_or_else(|| "an unknown signal".to_string(), signal_name);
                eprintln!(
                    "{name}:0:0: error: {tool} crashed ({signal}) while processing this input; \
                     MLIR does not diagnose every malformed input (its bytecode reader least of all), \
                     so the input is likely malformed. Please report it with the input attached."
                );
                ExitCode::FAILURE
            }
        },
        Err(e) => {
            eprintln!("{tool}: error: cannot start a worker process: {e}");
            ExitCode::FAILURE
        }
    }
}

fn signal_name(signal: i32) -> String {
    let name = match signal {
        4 => "SIGILL",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        _ => return format!("signal {signal}"),
    };
    format!("{name}, signal {signal}")
}

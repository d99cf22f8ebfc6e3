//! `umac-opt` is `mlir-opt`: MLIR's own driver (`MlirOptMain`, through
//! `umac_dialects::native`) with the umac dialect and every umac pass and pipeline registered, so
//! command lines, pass flags (`--canonicalize`, `--umac-plan-memory=alignment=8`), options,
//! `--split-input-file`, `--verify-diagnostics`, printing, diagnostics and exit codes are
//! mlir-opt 22's. What umac adds around it: the work runs in a worker process, so a crash inside
//! MLIR becomes a located error instead of a signal.

use crate::crash_guard;
use std::process::ExitCode;
use umac_dialects::{native, umac};

/// Runs `umac-opt` with `args` (including the program name).
pub fn main(args: impl IntoIterator<Item = String>) -> ExitCode {
    let args: Vec<String> = args.into_iter().collect();
    if !crash_guard::is_worker() {
        return crash_guard::run_in_worker("umac-opt", &args, &input_name(&args));
    }
    // Tests the crash guard: a worker that dies.
    if args.iter().skip(1).any(|a| a == "--debug-crash") {
        std::process::abort();
    }
    // The accelerators' passes (umac-partition, umac-legalize-<target>) join umac's, and all of
    // them MLIR's pass registry, before MLIR reads the command line (every pass is a flag).
    umac_driver::register_targets();
    umac_lowering::pass::export_to_mlir();
    let code = native::mlir_opt_main(&args, umac::verify_op_hook, umac::verify_attribute_hook);
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}

/// The input file a command line names, for the crash report: the first positional argument
/// (`-` when there is none, as for mlir-opt).
fn input_name(args: &[String]) -> String {
    let mut previous_takes_value = false;
    for arg in args.iter().skip(1) {
        if previous_takes_value {
            previous_takes_value = false;
            continue;
        }
        if arg == "-o" {
            previous_takes_value = true;
            continue;
        }
        if arg == "-" || !arg.starts_with('-') {
            return arg.clone();
        }
    }
    "-".into()
}

#[cfg(test)]
mod tests {
    use super::input_name;

    #[test]
    fn the_input_is_the_first_positional_argument() {
        let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(input_name(&args(&["umac-opt", "-o", "out.mlir", "--cse", "in.mlir"])), "in.mlir");
        assert_eq!(input_name(&args(&["umac-opt", "--canonicalize"])), "-");
        assert_eq!(input_name(&args(&["umac-opt", "-", "-o", "x"])), "-");
    }
}

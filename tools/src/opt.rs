//! `umac-opt` is `mlir-opt`: MLIR's own driver (`MlirOptMain`, through
//! `umac_dialects::native`) with the umac dialect and every umac pass and pipeline registered, so
//! command lines, pass flags (`--canonicalize`, `--umac-plan-memory=alignment=8`), options,
//! `--split-input-file`, `--verify-diagnostics`, printing, diagnostics and exit codes are
//! mlir-opt 22's. What umac adds around it: the work runs in a worker process, so a crash inside
//! MLIR becomes a located error instead of a signal; and an input named `*.tflite` is converted
//! to TOSA first, as `umac compile` and `umac run` convert it (each op located at its TFLite
//! operator), so `umac-opt model.tflite --pass-pipeline=...` replays a compile of the model
//! (TFLite operators the converter leaves, such as LSTMs, parse as unregistered ops there).

use crate::{crash_guard, scratch::Scratch};
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
    let mut args = args;
    let converted = match input_index(&args).filter(|&i| is_model_file(&args[i])) {
        Some(i) => match convert_tflite(&args[i]) {
            Ok(converted) => {
                args[i] = converted.path().join(converted_name(&args[i])).display().to_string();
                // What the converter leaves in TFLite's dialect (an LSTM) parses, for
                // umac-legalize-tfl-lstm to replace as `umac compile` does.
                if !args.iter().any(|a| a == "--allow-unregistered-dialect") {
                    args.insert(1, "--allow-unregistered-dialect".to_string());
                }
                Some(converted)
            }
            Err(message) => {
                eprintln!("umac-opt: error: {message}");
                return ExitCode::FAILURE;
            }
        },
        None => None,
    };
    let code = native::mlir_opt_main(&args, umac::verify_op_hook, umac::verify_attribute_hook);
    drop(converted);
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}

/// The file a converted `.tflite` input is written to, in a directory of its own: its name and
/// `.mlirbc` (what MLIR's own messages about the bytecode name).
fn converted_name(path: &str) -> String {
    let name = std::path::Path::new(path).file_name().map(|n| n.to_string_lossy().into_owned());
    format!("{}.mlirbc", name.unwrap_or_default())
}

/// A `.tflite` or `.tosa` file, which umac reads into TOSA MLIR before MLIR sees it.
fn is_model_file(path: &str) -> bool {
    std::path::Path::new(path)
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("tflite") || e.eq_ignore_ascii_case("tosa"))
}

/// Converts a `.tflite` model into TOSA bytecode in a scratch directory.
fn convert_tflite(path: &str) -> Result<Scratch, String> {
    let file = std::path::Path::new(path);
    let tosa = if crate::umac::is_tosa_flatbuffer(file) {
        let raw = std::fs::read(file).map_err(|e| format!("could not open '{path}': {e}"))?;
        umac_frontend::tosa::to_mlir(&raw, path).map_err(|e| format!("{path}: {e}"))?.into_bytes()
    } else {
        crate::umac::convert_tflite(file)?
    };
    let dir = Scratch::new("umac-opt")?;
    std::fs::write(dir.path().join(converted_name(path)), tosa)
        .map_err(|e| format!("cannot write {}: {e}", dir.path().display()))?;
    Ok(dir)
}

/// The input file a command line names, for the crash report: the first positional argument
/// (`-` when there is none, as for mlir-opt).
fn input_name(args: &[String]) -> String {
    input_index(args).map_or_else(|| "-".into(), |i| args[i].clone())
}

/// Where the first positional argument is.
fn input_index(args: &[String]) -> Option<usize> {
    let mut previous_takes_value = false;
    for (i, arg) in args.iter().enumerate().skip(1) {
        if previous_takes_value {
            previous_takes_value = false;
            continue;
        }
        if arg == "-o" {
            previous_takes_value = true;
            continue;
        }
        if arg == "-" || !arg.starts_with('-') {
            return Some(i);
        }
    }
    None
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

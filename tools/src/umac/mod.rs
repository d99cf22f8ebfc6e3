//! `umac`: the model-level tool. `umac run` checks a model's numerics on the host; `umac compile`
//! writes firmware output (object, header, metadata).

mod compile;
mod run;
mod tflite;
mod tflite_lstm;

use crate::diagnostics::{Collector, Sources};
use clap::{Args, Parser, Subcommand};
use melior::{Context, ir::Module};
use std::process::ExitCode;
use umac_dialects::{ContextOptions, source::parse_module};
use umac_driver::create_context;

/// Command line of `umac`.
#[derive(Debug, Parser)]
#[command(name = "umac", version, about = "The Universal Modular Accelerator Compiler")]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run a model's entry function on the host, reading inputs from and writing outputs to .npy files.
    Run(run::RunArgs),
    /// Compile a model ahead of time into an object file, a C header and metadata.json for firmware.
    Compile(compile::CompileArgs),
}

/// A `.tflite` model's operators (`docs/supported-ops.md` lists those of the test models).
pub use tflite::{Operator as TfliteOperator, operators as tflite_operators};
pub use tflite::{convert_tflite, is_tosa_flatbuffer};

/// Runs `umac` with `args` (including the program name).
pub fn main(args: impl IntoIterator<Item = String>) -> ExitCode {
    let args: Vec<String> = args.into_iter().collect();
    let cli: Cli = match parse_args(&args) {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    // MLIR and LLVM do not survive every malformed model: the work runs in a worker process.
    if !crate::crash_guard::is_worker() {
        let model = match &cli.command {
            Command::Run(run) => run.model_name(),
            Command::Compile(compile) => compile.model_name(),
        };
        return crate::crash_guard::run_in_worker("umac", &args, &model);
    }
    let result = match cli.command {
        Command::Run(args) => run::run(&args),
        Command::Compile(args) => compile::run(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            if !message.is_empty() {
                eprintln!("umac: error: {message}");
            }
            ExitCode::FAILURE
        }
    }
}

/// What `umac compile` and `umac run` show of a compile besides its result.
#[derive(Debug, Args)]
pub struct CompileViews {
    /// Print the complete pass pipeline the compile runs (replayable with
    /// `umac-opt MODEL --pass-pipeline='...'`), then compile.
    #[arg(long)]
    print_pipeline: bool,
    /// Write the final module (the llvm dialect; the Cranelift engine's loop level) to FILE.
    #[arg(long, value_name = "FILE")]
    emit_mlir: Option<std::path::PathBuf>,
    /// Print the IR after every pass of the compile pipeline (to standard error).
    #[arg(long = "mlir-print-ir-after-all")]
    print_ir_after_all: bool,
}

impl CompileViews {
    fn observe(&self) -> umac_driver::runner::Observe {
        umac_driver::runner::Observe { print_ir_after_all: self.print_ir_after_all, emit_mlir: self.emit_mlir.clone() }
    }
}

/// The placement report: one line per op of the model with the target that runs it, and for an
/// op left on the CPU although a pattern almost matched, the predicate that failed.
pub(crate) fn placement_report(placements: &[umac_backend::partition::Placement], cpu: &str) -> String {
    if placements.is_empty() {
        return format!("placement: no accelerator named; every op runs on {cpu}\n");
    }
    let mut counts: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    let mut out = String::new();
    for p in placements {
        let target = if p.target == umac_backend::partition::CPU { cpu } else { p.target.as_str() };
        *counts.entry(target).or_default() += 1;
        out.push_str(&format!("{}: {} -> {target}", p.location, p.op));
        if let (Some(composite), Some(function)) = (&p.composite, &p.function) {
            out.push_str(&format!(" ({composite} in @{function})"));
        }
        if let Some(reason) = &p.reason {
            out.push_str(&format!(" (not claimed: {reason})"));
        }
        out.push('\n');
    }
    let summary: Vec<String> = counts.iter().map(|(t, n)| format!("{n} on {t}")).collect();
    format!("placement of {} ops: {}\n{out}", placements.len(), summary.join(", "))
}

/// Parses and verifies a model (MLIR text or bytecode) in a fresh context and hands it to
/// `work`. Every diagnostic — from parsing, verifying or `work` — is printed against the model's
/// source. A model that does not parse or verify gives `Err("")`: the diagnostics said why.
pub(crate) fn with_model<T>(
    name: &str,
    bytes: &[u8],
    work: impl FnOnce(&Context, &mut Module) -> Result<T, String>,
) -> Result<T, String> {
    // Ops of dialects umac does not know (what a converter left behind) are parsed, then refused
    // one by one at their locations ([`unsupported_ops`]).
    let context = create_context(ContextOptions { allow_unregistered_dialects: true, threading: true });
    umac_driver::register_targets();
    let collector = Collector::default();
    collector.attach(&context);
    let mut sources = Sources::default();
    sources.add(name, bytes.to_vec());
    let report = || collector.take().iter().for_each(|d| eprint!("{}", sources.render(d)));
    // MLIR verifies what it parsed, umac ops and attributes included.
    let Some(mut module) = parse_module(&context, name, bytes) else {
        report();
        return Err(String::new());
    };
    if unsupported_ops(&module) {
        report();
        return Err(String::new());
    }
    let result = work(&context, &mut module);
    report();
    result
}

/// Reports every op of a dialect umac does not know at its location, and whether there was one. A
/// TFLite operator that `tosa-converter-for-tflite` left in TFLite's dialect is named as TFLite
/// names it (`tfl.unidirectional_sequence_lstm`: UNIDIRECTIONAL_SEQUENCE_LSTM); the placeholder
/// for its absent operands (`tfl.no_value`) only when nothing else is left.
fn unsupported_ops(module: &Module) -> bool {
    use melior::ir::operation::{OperationLike, WalkOrder, WalkResult};
    // `umac-legalize-tfl-lstm` replaces LSTMs (and their operands' placeholders).
    let legalized = [umac_dialects::umac::TFL_LSTM_OP, umac_dialects::umac::TFL_NO_VALUE_OP];
    let unknown = |op: &melior::ir::OperationRef| {
        !umac_dialects::ir::is_registered(op) && !legalized.contains(&umac_dialects::ir::op_name(op).as_str())
    };
    let mut names = Vec::new();
    module.as_operation().walk(WalkOrder::PreOrder, |op| {
        if unknown(&op) {
            names.push(umac_dialects::ir::op_name(&op));
        }
        WalkResult::Advance
    });
    let placeholders_only = names.iter().all(|name| name == "tfl.no_value");
    module.as_operation().walk(WalkOrder::PreOrder, |op| {
        let name = umac_dialects::ir::op_name(&op);
        if !unknown(&op) || (name == "tfl.no_value" && !placeholders_only) {
            return WalkResult::Advance;
        }
        let message = match name.strip_prefix("tfl.") {
            Some(operator) => format!(
                "'{name}' is the TFLite operator {} that the converter left unconverted: umac does not support it yet",
                operator.to_ascii_uppercase()
            ),
            None => format!("'{name}' is from a dialect umac does not know: umac cannot compile it"),
        };
        umac_dialects::emit_error(op.location(), &message);
        WalkResult::Advance
    });
    !names.is_empty()
}

/// Parses a command line; on a usage error (or `--help`/`--version`) prints clap's message and
/// returns the exit code: 1 for errors, as for every other failure of our tools, 0 otherwise.
fn parse_args<T: clap::Parser>(args: &[String]) -> Result<T, std::process::ExitCode> {
    T::try_parse_from(args).map_err(|e| {
        let code = if e.use_stderr() { 1 } else { 0 };
        let _ = e.print();
        std::process::ExitCode::from(code)
    })
}

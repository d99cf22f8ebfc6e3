//! `umac-opt`: `mlir-opt` with umac's passes, dialect and pipelines.

pub mod crash_guard;
pub mod diagnostics;
pub mod expected;
pub mod split;

use clap::Parser;
use diagnostics::{Collector, Diag, Sources, caret_padding};
use melior::{
    Context,
    ir::Module,
    pass::{PassIrPrintingOptions, PassManager},
};
use std::{
    io::{Read, Write},
    path::PathBuf,
    process::ExitCode,
};
use umac_dialects::{
    ContextOptions, FileLineCol, create_context,
    source::{PrintOptions, SourceChunk, is_bytecode, parse_module, print_module, write_bytecode},
    umac::{VerifyOptions, verify},
};
use umac_lowering::{PipelineError, build_pass_manager, registry};

/// Command line of `umac-opt`; the flags are `mlir-opt`'s.
#[derive(Debug, Parser)]
#[command(name = "umac-opt", version, about = "Run MLIR and umac passes on MLIR text or bytecode, like mlir-opt")]
pub struct Cli {
    /// Input file (MLIR text or bytecode); `-` reads standard input.
    #[arg(default_value = "-")]
    pub input: String,
    /// Output file; `-` writes standard output.
    #[arg(short = 'o', default_value = "-")]
    pub output: String,
    /// The pass pipeline, e.g. `builtin.module(umac-lower-to-llvm)` or
    /// `builtin.module(func.func(canonicalize{max-iterations=3}),cse)`.
    #[arg(long = "pass-pipeline")]
    pub pass_pipeline: Option<String>,
    /// Process each `// -----` chunk of the input on its own.
    #[arg(long = "split-input-file")]
    pub split_input_file: bool,
    /// Check diagnostics against `// expected-error {{...}}` comments instead of printing them.
    #[arg(long = "verify-diagnostics")]
    pub verify_diagnostics: bool,
    /// Print the IR after every pass (to standard error).
    #[arg(long = "mlir-print-ir-after-all")]
    pub print_ir_after_all: bool,
    /// Print the IR before every pass (to standard error).
    #[arg(long = "mlir-print-ir-before-all")]
    pub print_ir_before_all: bool,
    /// Report the time each pass took (to standard error).
    #[arg(long = "mlir-timing")]
    pub timing: bool,
    /// Print every op in generic form.
    #[arg(long = "mlir-print-op-generic")]
    pub print_op_generic: bool,
    /// Print locations.
    #[arg(long = "mlir-print-debuginfo")]
    pub print_debuginfo: bool,
    /// Run nested passes on one thread.
    #[arg(long = "mlir-disable-threading")]
    pub disable_threading: bool,
    /// Accept ops of dialects that are not registered.
    #[arg(long = "allow-unregistered-dialect")]
    pub allow_unregistered_dialect: bool,
    /// Write MLIR bytecode instead of text.
    #[arg(long = "emit-bytecode")]
    pub emit_bytecode: bool,
    /// List umac's passes and pipelines with their options, then exit.
    #[arg(long = "list-passes")]
    pub list_passes: bool,
    /// Abort after parsing the command line (tests the crash guard).
    #[arg(long = "debug-crash", hide = true)]
    pub debug_crash: bool,
}

/// Long flags, so the single-dash spelling of LLVM tools (`-split-input-file`) works too.
const LONG_FLAGS: &[&str] = &[
    "pass-pipeline",
    "split-input-file",
    "verify-diagnostics",
    "mlir-print-ir-after-all",
    "mlir-print-ir-before-all",
    "mlir-timing",
    "mlir-print-op-generic",
    "mlir-print-debuginfo",
    "mlir-disable-threading",
    "allow-unregistered-dialect",
    "emit-bytecode",
    "list-passes",
];

/// Rewrites `-flag` to `--flag` for our long flags (LLVM's command-line style).
pub fn normalize_args(args: impl IntoIterator<Item = String>) -> Vec<String> {
    args.into_iter()
        .map(|arg| {
            let single = arg.strip_prefix('-').filter(|rest| !rest.starts_with('-'));
            match single {
                Some(rest) if LONG_FLAGS.contains(&rest.split('=').next().unwrap_or_default()) => {
                    format!("-{arg}")
                }
                _ => arg,
            }
        })
        .collect()
}

/// Runs `umac-opt` with `args` (including the program name).
pub fn main(args: impl IntoIterator<Item = String>) -> ExitCode {
    // The accelerators' passes (umac-partition, umac-legalize-<target>) join the registry.
    umac_driver::register_targets();
    let args = normalize_args(args);
    let cli: Cli = match crate::parse_args(&args) {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    if cli.list_passes {
        print!("{}", list_passes());
        return ExitCode::SUCCESS;
    }
    if !crash_guard::is_worker() {
        return crash_guard::run_in_worker("umac-opt", &args, &cli.input);
    }
    if cli.debug_crash {
        std::process::abort();
    }
    match run(&cli) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(message) => {
            eprintln!("umac-opt: error: {message}");
            ExitCode::FAILURE
        }
    }
}

/// The `--list-passes` text.
pub fn list_passes() -> String {
    let mut out = String::from("umac passes and pipelines (every upstream MLIR pass is available too):\n");
    for info in registry() {
        let kind = match info.kind {
            umac_lowering::PassKind::Pass(_) | umac_lowering::PassKind::Named(_) => "pass",
            umac_lowering::PassKind::Pipeline(_) => "pipeline",
        };
        out.push_str(&format!("  {:<24} {} [{kind}, on {}]\n", info.name, info.summary, info.anchor));
        for option in info.options {
            out.push_str(&format!(
                "    {:<22} {} (default: {}) {}\n",
                option.name,
                option.kind.type_name(),
                if option.default.is_empty() { "\"\"" } else { option.default },
                option.help
            ));
        }
    }
    out
}

/// Processes the input; `Ok(false)` when an error was reported (or expectations failed).
fn run(cli: &Cli) -> Result<bool, String> {
    let (name, bytes) = read_input(&cli.input)?;
    if cli.emit_bytecode && cli.split_input_file {
        return Err("--emit-bytecode cannot be combined with --split-input-file".into());
    }
    let threading = !(cli.disable_threading || cli.print_ir_after_all || cli.print_ir_before_all);
    let context =
        create_context(ContextOptions { allow_unregistered_dialects: cli.allow_unregistered_dialect, threading });
    let collector = Collector::default();
    collector.attach(&context);
    let mut sources = Sources::default();
    sources.add(&name, bytes.clone());
    let print = PrintOptions { generic: cli.print_op_generic, debug_info: cli.print_debuginfo };

    let manager = match &cli.pass_pipeline {
        Some(pipeline) => match build_pass_manager(&context, pipeline, "builtin.module") {
            Ok(manager) => Some(manager),
            Err(error) => {
                eprint!("{}", render_pipeline_error(pipeline, &error));
                return Ok(false);
            }
        },
        None => None,
    };
    if let Some(manager) = &manager {
        configure(manager, cli, print);
    }

    let chunks = if cli.split_input_file && !is_bytecode(&bytes) {
        split::split(&bytes)
    } else {
        vec![split::Chunk { bytes: &bytes, first_line: 1 }]
    };
    let mut outputs: Vec<Vec<u8>> = Vec::new();
    let mut ok = true;
    for chunk in &chunks {
        let source = SourceChunk { name: &name, bytes: chunk.bytes, first_line: chunk.first_line };
        let expectations = if cli.verify_diagnostics {
            match expected::parse(&name, chunk.bytes, chunk.first_line) {
                Ok(expectations) => Some(expectations),
                Err(errors) => {
                    errors.iter().for_each(|d| eprint!("{}", sources.render(d)));
                    ok = false;
                    continue;
                }
            }
        } else {
            None
        };
        let output = process(&context, &collector, &source, manager.as_ref(), cli, print);
        let diagnostics = collector.take();
        match expectations {
            Some(expectations) => {
                let report = expected::check(&name, expectations, &diagnostics, &sources);
                eprint!("{report}");
                ok &= report.is_empty();
            }
            None => {
                diagnostics.iter().for_each(|d| eprint!("{}", sources.render(d)));
                let failed = output.is_none() || diagnostics.iter().any(|d| d.severity == diagnostics::Severity::Error);
                ok &= !failed;
            }
        }
        if let Some(output) = output {
            outputs.push(output);
        }
    }
    write_output(&cli.output, &outputs)?;
    Ok(ok)
}

fn configure(manager: &PassManager, cli: &Cli, print: PrintOptions) {
    if cli.print_ir_after_all || cli.print_ir_before_all {
        manager.enable_ir_printing(&PassIrPrintingOptions {
            before_all: cli.print_ir_before_all,
            after_all: cli.print_ir_after_all,
            module_scope: false,
            on_change: false,
            on_failure: false,
            flags: print.flags(),
            tree_printing_path: PathBuf::new(),
        });
    }
    if cli.timing {
        // SAFETY: the pass manager is alive; timing is reported when it is dropped.
        unsafe { mlir_sys::mlirPassManagerEnableTiming(manager.to_raw()) };
    }
}

/// Parses, verifies, runs the pipeline on and prints one chunk; `None` after an error.
fn process(
    context: &Context,
    collector: &Collector,
    source: &SourceChunk,
    manager: Option<&PassManager>,
    cli: &Cli,
    print: PrintOptions,
) -> Option<Vec<u8>> {
    let verify_options = VerifyOptions { allow_unregistered_dialects: cli.allow_unregistered_dialect };
    let Some(mut module): Option<Module> = parse_module(context, source) else {
        if !collector.has_error() {
            // Some MLIR parsers (tosa's custom assembly, for one) fail without a diagnostic.
            let at = FileLineCol { file: source.name.to_string(), line: source.first_line, column: 1 };
            collector.push(Diag::error(
                Some(at),
                "MLIR failed to parse this input without saying where or why; check its syntax",
            ));
        }
        return None;
    };
    if !verify(module.as_operation(), verify_options) {
        return None;
    }
    if let Some(manager) = manager {
        if manager.run(&mut module).is_err() {
            if !collector.has_error() {
                let at = FileLineCol { file: source.name.to_string(), line: source.first_line, column: 1 };
                collector.push(Diag::error(Some(at), "the pass pipeline failed without a diagnostic"));
            }
            return None;
        }
        if !verify(module.as_operation(), verify_options) {
            return None;
        }
    }
    Some(if cli.emit_bytecode { write_bytecode(&module) } else { print_module(&module, print).into_bytes() })
}

fn read_input(path: &str) -> Result<(String, Vec<u8>), String> {
    if path == "-" {
        let mut bytes = Vec::new();
        std::io::stdin().read_to_end(&mut bytes).map_err(|e| format!("could not read standard input: {e}"))?;
        return Ok(("<stdin>".to_string(), bytes));
    }
    let bytes = std::fs::read(path).map_err(|e| format!("could not open input file '{path}': {e}"))?;
    Ok((path.to_string(), bytes))
}

fn write_output(path: &str, outputs: &[Vec<u8>]) -> Result<(), String> {
    let mut joined = Vec::new();
    for (index, output) in outputs.iter().enumerate() {
        if index > 0 {
            joined.extend_from_slice(format!("{}\n", split::MARKER).as_bytes());
        }
        joined.extend_from_slice(output);
        if !output.is_empty() && !output.ends_with(b"\n") && !is_bytecode(output) {
            joined.push(b'\n');
        }
    }
    if path == "-" {
        let mut stdout = std::io::stdout().lock();
        // A closed pipe (e.g. `| head`) is not an error of ours.
        let _ = stdout.write_all(&joined).and_then(|()| stdout.flush());
        return Ok(());
    }
    std::fs::write(path, joined).map_err(|e| format!("could not write output file '{path}': {e}"))
}

/// `<pass-pipeline>:1:COL: error: ...`, the pipeline and a caret, as for source diagnostics.
fn render_pipeline_error(pipeline: &str, error: &PipelineError) -> String {
    let offset = error.offset.min(pipeline.len());
    let column = pipeline[..pipeline.floor_char_boundary(offset)].chars().count() + 1;
    format!("<pass-pipeline>:1:{column}: error: {}\n{pipeline}\n{}^\n", error.message, caret_padding(pipeline, column))
}

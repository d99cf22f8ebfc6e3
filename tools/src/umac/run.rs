//! `umac run MODEL --input A.npy ... --output Y.npy ... [--engine E] [--entry F]`.

use crate::opt::diagnostics::{Collector, Sources};
use clap::{Args, ValueEnum};
use std::path::PathBuf;
use umac_dialects::{
    ContextOptions, create_context,
    source::{SourceChunk, parse_module},
    umac::{VerifyOptions, verify},
};
use umac_runtime::{Tensor, read_npy, write_npy};
use umac_targets::host::{Engine, HostError, compile};

/// Arguments of `umac run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// The model: TOSA MLIR text or bytecode.
    model: PathBuf,
    /// An input tensor (.npy), one per argument of the entry function, in order.
    #[arg(long = "input", value_name = "NPY")]
    inputs: Vec<PathBuf>,
    /// Where to write an output tensor (.npy), one per result, in order. Without any, the
    /// outputs are printed.
    #[arg(long = "output", value_name = "NPY")]
    outputs: Vec<PathBuf>,
    /// The engine that compiles the model.
    #[arg(long, value_enum, default_value_t = EngineArg::Cranelift)]
    engine: EngineArg,
    /// The function to run.
    #[arg(long, default_value = "main")]
    entry: String,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum EngineArg {
    /// Cranelift: the reference engine, fast to compile.
    Cranelift,
    /// LLVM with O3 for the host CPU: fast code.
    Llvm,
}

/// Runs the command; `Err` carries the message for `umac: error:` (empty when diagnostics
/// already said it all).
pub fn run(args: &RunArgs) -> Result<(), String> {
    let name = args.model.display().to_string();
    let bytes = std::fs::read(&args.model).map_err(|e| format!("could not open model '{name}': {e}"))?;
    let inputs: Vec<Tensor> =
        args.inputs.iter().map(|p| read_npy(p).map_err(|e| e.to_string())).collect::<Result<_, _>>()?;

    let context = create_context(ContextOptions { allow_unregistered_dialects: false, threading: true });
    let collector = Collector::default();
    collector.attach(&context);
    let mut sources = Sources::default();
    sources.add(&name, bytes.clone());
    let report = |collector: &Collector| {
        for diag in collector.take() {
            eprint!("{}", sources.render(&diag));
        }
    };

    let Some(mut module) = parse_module(&context, &SourceChunk { name: &name, bytes: &bytes, first_line: 1 }) else {
        report(&collector);
        return Err(String::new());
    };
    if !verify(module.as_operation(), VerifyOptions::default()) {
        report(&collector);
        return Err(String::new());
    }
    let engine = match args.engine {
        EngineArg::Cranelift => Engine::Cranelift,
        EngineArg::Llvm => Engine::Llvm,
    };
    let program = compile(&context, &mut module, &args.entry, &inputs, engine);
    report(&collector);
    let program = program.map_err(|e| match e {
        HostError::Inputs(m) => m,
        HostError::Compile(m) => format!("cannot compile {name} with the {} engine: {m}", engine.name()),
    })?;
    let outputs = program.run(&inputs).map_err(|e| e.to_string())?;
    if args.outputs.is_empty() {
        for (sig, tensor) in program.signature().outputs.iter().zip(&outputs) {
            println!("{} ({} {}): {}", sig.name, tensor.dtype, tensor.shape_text(), preview(tensor));
        }
        return Ok(());
    }
    if args.outputs.len() != outputs.len() {
        return Err(format!("the model has {} output(s), {} --output given", outputs.len(), args.outputs.len()));
    }
    for (path, tensor) in args.outputs.iter().zip(&outputs) {
        write_npy(path, tensor).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// The first elements of a tensor, for printing.
fn preview(tensor: &Tensor) -> String {
    let shown: Vec<String> = (0..tensor.len().min(16)).map(|i| format!("{}", tensor.get_f64(i))).collect();
    let more = if tensor.len() > 16 { ", ..." } else { "" };
    format!("[{}{more}]", shown.join(", "))
}

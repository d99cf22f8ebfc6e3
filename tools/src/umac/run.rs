//! `umac run MODEL --input A.npy ... --output Y.npy ... [--engine E] [--entry F] [--target T]
//! [--report] [--dump-intermediates DIR] [--sequence]`.

mod custom;

use super::CompileViews;
use clap::{Args, ValueEnum};
use std::path::{Path, PathBuf};
use umac_backend::{Cpu, TargetSet, parse_target_string};
use umac_driver::{
    Error,
    firmware::{self, FirmwareOptions, c_identifier},
    host::{CompileOptions, Engine, HostProgram, compile, pipeline},
    simulator::{devices, simulate_sequence},
};
use umac_runtime::{Tensor, read_npy, write_npy};

/// Arguments of `umac run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// The model: TOSA MLIR text or bytecode (.mlir/.mlirbc), or a .tflite file (converted as by
    /// `umac compile`; custom operators a device umac has runs, such as Vela's `ethos-u`, run on
    /// that device, the operators around them on the host).
    model: PathBuf,
    /// An input tensor (.npy), one per argument of the entry function, in order.
    #[arg(long = "input", value_name = "NPY")]
    inputs: Vec<PathBuf>,
    /// Where to write an output tensor (.npy), one per result, in order. Without any, the
    /// outputs are printed.
    #[arg(long = "output", value_name = "NPY")]
    outputs: Vec<PathBuf>,
    /// The engine that compiles the model; `both` runs the two and reports the first op where
    /// they differ.
    #[arg(long, value_enum, default_value_t = EngineArg::Cranelift)]
    engine: EngineArg,
    /// The function to run.
    #[arg(long, default_value = "main")]
    entry: String,
    /// Write every op's result to DIR/<index>_<op>.npy (in program order) and DIR/index.txt.
    #[arg(long, value_name = "DIR")]
    dump_intermediates: Option<PathBuf>,
    /// Accelerators to partition the model for, as in `umac compile` (`"vanilla -dimension=8"`),
    /// with their kernels on the host; or an RV32 CPU (`rv32im`, `rv32imc`): the model is
    /// compiled as for firmware and runs on umac's cycle-level simulator (targets/tynnp/docs/isa.md).
    #[arg(long, value_name = "TARGETS")]
    target: Option<String>,
    /// Print which target runs each op (and why an op that almost matched a pattern did not).
    /// For a model with custom operators a device runs (Vela's `ethos-u`): each device's report,
    /// starting `NPU cycles: N`, then each operation's cycles, MACs and bytes, and rule findings.
    #[arg(long)]
    report: bool,
    /// With accelerators on the host: also run the model unpartitioned (Cranelift) and compare
    /// every op's result with the partitioned run, reporting the first op that differs.
    #[arg(long)]
    compare_unpartitioned: bool,
    /// Measure: print one JSON line with the compile time and the median of N timed runs (after
    /// warm-up runs) instead of the outputs.
    #[arg(long, value_name = "N")]
    benchmark: Option<usize>,
    /// The LLVM engine's code generation threads: the program's functions are split into as
    /// many parts, each optimized and compiled at once (default: one per core).
    #[arg(long, value_name = "N", default_value_t = 0, hide_default_value = true)]
    jobs: usize,
    /// On the simulator (an RV32 `--target`): split the workspace over memory pools as `umac
    /// compile --pool` does, NAME:SIZE[:fast][:cpu]; a `:cpu` pool (which no accelerator reaches)
    /// goes in the control unit's DMEM, the others in DDR: `--pool dmem:64K:fast:cpu --pool
    /// ddr:4M`.
    #[arg(long = "pool", value_name = "NAME:SIZE[:fast][:cpu]")]
    pools: Vec<String>,
    /// Run a sequence of inferences: the first axis of every input file indexes them, and they
    /// run in order on one compiled program, a model's state (an LSTM's) carried from one to the
    /// next as on firmware; every output file gets the same first axis.
    #[arg(long)]
    sequence: bool,
    /// What to show of the compile (with `--engine both`, of the LLVM engine's).
    #[command(flatten)]
    views: CompileViews,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum EngineArg {
    /// Cranelift: the reference engine, fast to compile.
    Cranelift,
    /// LLVM (O2) for the host CPU, on every core: fast code.
    Llvm,
    /// Both, compared op by op.
    Both,
}

/// A parsed model ready to compile, with its diagnostics plumbing.
struct Loaded {
    name: String,
    bytes: Vec<u8>,
    /// The accelerators of `--target`.
    targets: TargetSet,
}

/// `--target`: accelerators, and at most the host or a simulated CPU as the CPU.
fn run_targets(args: &RunArgs) -> Result<TargetSet, String> {
    let Some(text) = &args.target else {
        return Ok(TargetSet::default());
    };
    let set = parse_target_string(text).map_err(|e| e.to_string())?;
    match set.cpu {
        None => Ok(set),
        Some(cpu) if cpu.name == "host" || simulated(&cpu) => Ok(set),
        Some(cpu) => Err(format!(
            "umac run runs on the host or, for rv32im and rv32imc, on umac's simulator; not on {} \
             (compile for it with umac compile and run it under QEMU)",
            cpu.name
        )),
    }
}

/// Whether `umac run` runs code for `cpu` on the simulator.
fn simulated(cpu: &Cpu) -> bool {
    matches!(cpu.machine, umac_backend::Machine::Llvm { triple, .. } if triple.starts_with("riscv32"))
}

/// Compiles the model for an RV32 CPU as `umac compile` would and runs it on the simulator, once
/// for each of `steps` (each inference's inputs), in order. Returns the output names and each
/// inference's outputs.
fn run_on_simulator(
    args: &RunArgs,
    loaded: &Loaded,
    steps: &[Vec<Tensor>],
    cpu: Cpu,
) -> Result<(Vec<String>, Vec<Vec<Tensor>>), String> {
    let inputs = &steps[0];
    let devices = devices(&loaded.targets).map_err(|e| e.to_string())?;
    for (flag, given) in [
        ("--engine both", args.engine == EngineArg::Both),
        ("--benchmark", args.benchmark.is_some()),
        ("--dump-intermediates", args.dump_intermediates.is_some()),
    ] {
        if given {
            return Err(format!("{flag} is for the host engines; the simulator reports cycles with --report"));
        }
    }
    let stem = args.model.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let options = FirmwareOptions {
        constants_section: None,
        name: c_identifier(&stem),
        optimize_for_size: false,
        shapes: Some(inputs.iter().map(|t| t.shape.iter().map(|&d| d as i64).collect()).collect()),
        max_workspace: None,
        max_flash: None,
        source: loaded.name.clone(),
        source_sha256: None,
        profile_hooks: false,
        pools: umac_lowering::memory_pools::parse_pools(&args.pools.join(",")).map_err(|e| format!("--pool: {e}"))?,
        emit_c: false,
        shared_with: vec![],
        accelerators: loaded.targets.clone(),
        observe: args.views.observe(),
    };
    let firmware = super::with_model(&loaded.name, &loaded.bytes, |context, module| {
        if args.views.print_pipeline {
            println!("{}", firmware::pipeline(module, &args.entry, cpu, &options).map_err(|e| e.to_string())?.text());
        }
        firmware::compile(context, module, &args.entry, cpu, &options).map_err(|e| match e {
            Error::Compile(m) => format!("cannot compile {} for {}: {m}", loaded.name, cpu.name),
            Error::Reported => format!("cannot compile {} for {} (see the errors above)", loaded.name, cpu.name),
            Error::Usage(m) | Error::Limit(m) | Error::Run(m) => m,
        })
    })?;
    if let Some(kernel) = firmware.kernels.first() {
        return Err(format!(
            "the simulator runs code compiled into the object, not C kernels ({} of an accelerator)",
            kernel.symbol
        ));
    }
    let run = simulate_sequence(&firmware, steps, devices).map_err(|e| e.to_string())?;
    if args.report {
        eprint!("{}", super::placement_report(&firmware.placements, cpu.name));
        eprint!("simulator ({}): {}", cpu.name, run.report.text);
    }
    Ok((firmware.signature.outputs.iter().map(|o| o.name.clone()).collect(), run.outputs))
}

impl Loaded {
    /// Parses, verifies and compiles the model with one engine; diagnostics are printed.
    fn compile(
        &self,
        args: &RunArgs,
        inputs: &[Tensor],
        engine: Engine,
        intermediates: bool,
    ) -> Result<HostProgram, String> {
        self.compile_for(args, inputs, (engine, self.targets.clone()), intermediates)
    }

    /// [`Loaded::compile`] for `targets`' accelerators.
    fn compile_for(
        &self,
        args: &RunArgs,
        inputs: &[Tensor],
        (engine, targets): (Engine, TargetSet),
        intermediates: bool,
    ) -> Result<HostProgram, String> {
        // With both engines, the views show the LLVM engine's compile (the one that is printed).
        let observe = if engine == Engine::Llvm || args.engine != EngineArg::Both {
            args.views.observe()
        } else {
            Default::default()
        };
        let options = CompileOptions { intermediates, targets, observe, threads: args.jobs };
        super::with_model(&self.name, &self.bytes, |context, module| {
            if args.views.print_pipeline && (engine == Engine::Llvm || args.engine != EngineArg::Both) {
                let text = pipeline(module, &args.entry, inputs, engine, &options).map_err(|e| e.to_string())?.text();
                println!("{text}");
            }
            compile(context, module, &args.entry, inputs, engine, options).map_err(|e| match e {
                Error::Usage(m) | Error::Limit(m) | Error::Run(m) => m,
                Error::Compile(m) => format!("cannot compile {} with the {} engine: {m}", self.name, engine.name()),
                Error::Reported => {
                    format!("cannot compile {} with the {} engine (see the errors above)", self.name, engine.name())
                }
            })
        })
    }
}

impl RunArgs {
    /// The model path as given.
    pub fn model_name(&self) -> String {
        self.model.display().to_string()
    }
}

/// Runs the command; `Err` carries the message for `umac: error:` (empty when diagnostics
/// already said it all).
pub fn run(args: &RunArgs) -> Result<(), String> {
    umac_driver::register_targets();
    if custom::run(args)? {
        return Ok(());
    }
    let targets = run_targets(args)?;
    let name = args.model.display().to_string();
    let bytes = super::tflite::read_model(&args.model)?.bytes;
    let files: Vec<Tensor> =
        args.inputs.iter().map(|p| read_npy(p).map_err(|e| e.to_string())).collect::<Result<_, _>>()?;
    let steps = if args.sequence { inferences(args, &files).map_err(|e| e.to_string())? } else { vec![files] };
    let loaded = Loaded { name, bytes, targets };
    if let Some(cpu) = loaded.targets.cpu.filter(simulated) {
        let (names, outputs) = run_on_simulator(args, &loaded, &steps, cpu)?;
        let outputs = joined(args, &outputs, names.len()).map_err(|e| e.to_string())?;
        return write_outputs(args, &outputs, |i| names[i].clone());
    }
    if !args.pools.is_empty() {
        return Err("--pool is for the simulator (an RV32 --target); the host engines take one workspace".into());
    }
    if let Some(runs) = args.benchmark {
        if args.sequence {
            return Err("--benchmark times one inference; it takes no --sequence".into());
        }
        return benchmark(&loaded, args, &steps[0], runs);
    }
    if args.compare_unpartitioned && (loaded.targets.accelerators.is_empty() || args.engine == EngineArg::Both) {
        return Err(
            "--compare-unpartitioned compares a run partitioned for --target's accelerators, with one engine".into()
        );
    }
    let intermediates =
        args.dump_intermediates.is_some() || args.engine == EngineArg::Both || args.compare_unpartitioned;
    // What a comparison names: the inference too, in a sequence.
    let at = |k: usize, what: &str| if args.sequence { format!("{what} (inference {k})") } else { what.to_string() };
    let first = &steps[0];
    let mut outputs = Vec::new();
    let program = match args.engine {
        EngineArg::Cranelift | EngineArg::Llvm => {
            let engine = if args.engine == EngineArg::Llvm { Engine::Llvm } else { Engine::Cranelift };
            let program = loaded.compile(args, first, engine, intermediates)?;
            let plain = match args.compare_unpartitioned {
                true => Some(loaded.compile_for(args, first, (Engine::Cranelift, TargetSet::default()), true)?),
                false => None,
            };
            for (k, inputs) in steps.iter().enumerate() {
                let actual = program.run(inputs).map_err(|e| e.to_string())?;
                if let Some(plain) = &plain {
                    let expected = plain.run(inputs).map_err(|e| e.to_string())?;
                    let labels = ("unpartitioned", "partitioned");
                    compare(plain, (&expected, &actual), labels, &at(k, "the unpartitioned and partitioned models"))?;
                }
                outputs.push(actual);
            }
            program
        }
        EngineArg::Both => {
            let reference = loaded.compile(args, first, Engine::Cranelift, true)?;
            let fast = loaded.compile(args, first, Engine::Llvm, true)?;
            for (k, inputs) in steps.iter().enumerate() {
                let expected = reference.run(inputs).map_err(|e| e.to_string())?;
                let actual = fast.run(inputs).map_err(|e| e.to_string())?;
                compare(
                    &reference,
                    (&expected, &actual),
                    ("cranelift", "llvm"),
                    &at(k, "the cranelift and llvm engines"),
                )?;
                outputs.push(actual);
            }
            fast
        }
    };
    if let Some(dir) = &args.dump_intermediates {
        for (k, step) in outputs.iter().enumerate() {
            let dir = if args.sequence { dir.join(format!("inference_{k}")) } else { dir.clone() };
            dump(&dir, &program, step)?;
        }
    }
    if args.report {
        eprint!("{}", super::placement_report(program.placements(), "host"));
    }
    let model_outputs = joined(args, &outputs, program.model_outputs()).map_err(|e| e.to_string())?;
    write_outputs(args, &model_outputs, |i| program.signature().outputs[i].name.clone())
}

/// `--sequence`: the inputs of each inference, the input files unstacked along their first axis
/// (which every file must have, of one size).
fn inferences(args: &RunArgs, files: &[Tensor]) -> Result<Vec<Vec<Tensor>>, Error> {
    let mut columns = Vec::new();
    for (file, path) in files.iter().zip(&args.inputs) {
        let parts = file.unstack().ok_or_else(|| {
            Error::Usage(format!(
                "--sequence: {} is a scalar; its first axis should index the inferences",
                path.display()
            ))
        })?;
        columns.push((parts, path));
    }
    let Some((first, first_path)) = columns.first() else {
        return Err(Error::Usage(
            "--sequence takes the inferences from the inputs' first axis; give at least one --input".into(),
        ));
    };
    let count = first.len();
    if let Some((parts, path)) = columns.iter().find(|(parts, _)| parts.len() != count) {
        return Err(Error::Usage(format!(
            "--sequence: {} holds {count} inferences (its first axis), {} holds {}",
            first_path.display(),
            path.display(),
            parts.len()
        )));
    }
    if count == 0 {
        return Err(Error::Usage(format!(
            "--sequence: {} holds no inference (its first axis is 0)",
            first_path.display()
        )));
    }
    Ok((0..count).map(|k| columns.iter().map(|(parts, _)| parts[k].clone()).collect()).collect())
}

/// The first `n` outputs of the run: of its one inference, or with `--sequence` each stacked
/// over the inferences along a new first axis.
fn joined(args: &RunArgs, steps: &[Vec<Tensor>], n: usize) -> Result<Vec<Tensor>, Error> {
    if !args.sequence {
        return Ok(steps[0][..n].to_vec());
    }
    (0..n)
        .map(|i| {
            let parts: Vec<Tensor> = steps.iter().map(|step| step[i].clone()).collect();
            Tensor::stack(&parts)
                .ok_or_else(|| Error::Run(format!("output {i} changes its shape from one inference to the next")))
        })
        .collect()
}

/// Writes the outputs to the `--output` files, or prints them (each named by `name`).
fn write_outputs(args: &RunArgs, model_outputs: &[Tensor], name: impl Fn(usize) -> String) -> Result<(), String> {
    if args.outputs.is_empty() {
        for (i, tensor) in model_outputs.iter().enumerate() {
            println!("{} ({} {}): {}", name(i), tensor.dtype, tensor.shape_text(), preview(tensor));
        }
        return Ok(());
    }
    if args.outputs.len() != model_outputs.len() {
        return Err(format!("the model has {} output(s), {} --output given", model_outputs.len(), args.outputs.len()));
    }
    for (path, tensor) in args.outputs.iter().zip(model_outputs) {
        write_npy(path, tensor).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// `--benchmark N`: compile once (timed), warm up, then time N runs and report the median.
fn benchmark(loaded: &Loaded, args: &RunArgs, inputs: &[Tensor], runs: usize) -> Result<(), String> {
    let engine = match args.engine {
        EngineArg::Cranelift => Engine::Cranelift,
        EngineArg::Llvm => Engine::Llvm,
        EngineArg::Both => return Err("--benchmark measures one engine; choose cranelift or llvm".into()),
    };
    let start = std::time::Instant::now();
    let program = loaded.compile(args, inputs, engine, false)?;
    let compile_s = start.elapsed().as_secs_f64();
    let warmup = (runs / 10).clamp(3, 50);
    for _ in 0..warmup {
        program.run(inputs).map_err(|e| e.to_string())?;
    }
    let mut times: Vec<f64> = (0..runs.max(1))
        .map(|_| {
            let t = std::time::Instant::now();
            let result = program.run(inputs);
            (t.elapsed().as_secs_f64() * 1e6, result.is_ok())
        })
        .filter_map(|(us, ok)| ok.then_some(us))
        .collect();
    times.sort_by(f64::total_cmp);
    let median = times.get(times.len() / 2).copied().unwrap_or(f64::NAN);
    println!(
        "{{\"model\": {:?}, \"engine\": \"{}\", \"compile_s\": {compile_s:.4}, \"run_us_median\": {median:.2}, \"runs\": {}}}",
        loaded.name,
        engine.name(),
        times.len()
    );
    Ok(())
}

/// Reports the first op whose result differs between the engines (intermediates are in
/// program order, so the first difference is where they part ways).
/// Compares two runs of one model output by output and intermediate by intermediate (in program
/// order, so the first difference is the op where it begins), labelled `labels`; `what` names
/// them together.
fn compare(
    program: &HostProgram,
    (reference, actual): (&[Tensor], &[Tensor]),
    labels: (&str, &str),
    what: &str,
) -> Result<(), String> {
    if reference.len() != actual.len() {
        return Err(format!("{what} return {} and {} results", reference.len(), actual.len()));
    }
    let n = program.model_outputs();
    let order = (n..reference.len()).chain(0..n);
    for i in order {
        if reference[i].data != actual[i].data {
            let sig = &program.signature().outputs[i];
            let element = (0..reference[i].len())
                .find(|&k| reference[i].get_f64(k).to_bits() != actual[i].get_f64(k).to_bits())
                .unwrap_or(0);
            let at = i
                .checked_sub(n)
                .and_then(|k| program.intermediates().get(k))
                .map(|m| format!(" ({} at {})", m.op, m.location));
            return Err(format!(
                "{what} differ first at {}{} (element {element}: {} {}, {} {})",
                sig.name,
                at.unwrap_or_default(),
                labels.0,
                reference[i].get_f64(element),
                labels.1,
                actual[i].get_f64(element)
            ));
        }
    }
    eprintln!("umac: {what} agree on all {} outputs and {} intermediate results", n, reference.len() - n);
    Ok(())
}

fn dump(dir: &Path, program: &HostProgram, outputs: &[Tensor]) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let mut index = String::new();
    for (k, (i, intermediate)) in (program.model_outputs()..outputs.len()).zip(program.intermediates()).enumerate() {
        let file = format!("{k:04}_{}.npy", intermediate.op.replace('.', "_"));
        write_npy(&dir.join(&file), &outputs[i]).map_err(|e| e.to_string())?;
        index.push_str(&format!(
            "{file}\t{}\t{}\t{} {}\n",
            intermediate.op,
            intermediate.location,
            outputs[i].dtype,
            outputs[i].shape_text()
        ));
    }
    std::fs::write(dir.join("index.txt"), index).map_err(|e| e.to_string())
}

/// The first elements of a tensor, for printing.
fn preview(tensor: &Tensor) -> String {
    let shown: Vec<String> = (0..tensor.len().min(16)).map(|i| format!("{}", tensor.get_f64(i))).collect();
    let more = if tensor.len() > 16 { ", ..." } else { "" };
    format!("[{}{more}]", shown.join(", "))
}

//! `umac compile MODEL --target=T -o DIR|ARCHIVE [--output-format=dir|mlf] [--name N] [--opt=speed|size] [--shape S]...
//! [--max-workspace B] [--max-flash B] [--report] [--print-pipeline] [--emit-mlir F]
//! [--mlir-print-ir-after-all]`: firmware output (`DIR/N.o`, `DIR/N.h`, `DIR/metadata.json`,
//! and the C sources and headers of the kernels the object calls). `T` is
//! `[accelerator [-attr=value]...,]...cpu`.

use super::{CompileViews, tflite};
use clap::{Args, ValueEnum};
use std::path::{Path, PathBuf};
use umac_backend::{Cpu, parse_target_string};
use umac_driver::{
    Error,
    firmware::{FirmwareOptions, c_identifier, compile, output, pipeline, set_quantization},
};

/// Arguments of `umac compile`.
#[derive(Debug, Args)]
pub struct CompileArgs {
    /// The model: TOSA MLIR text or bytecode (.mlir/.mlirbc), or a .tflite file.
    model: PathBuf,
    /// Accelerators (with attributes) then the CPU, comma-separated: "vanilla -dimension=8,cortex-m55".
    /// CPUs: cortex-m85, cortex-m55, cortex-m33, cortex-m7, cortex-m4, cortex-m3, cortex-m0plus, rv32imc, rv32im, host (docs/cli.md lists the accelerators' attributes; a wrong one is an error listing them).
    #[arg(long)]
    target: String,
    /// Print which target runs each op of the model (and why an op that almost matched an
    /// accelerator's pattern did not).
    #[arg(long)]
    report: bool,
    /// The output directory (created if missing); with --output-format=mlf, the archive to write.
    #[arg(short = 'o', long = "output", value_name = "DIR")]
    output: PathBuf,
    /// What the model becomes: an object (N.o), or C99 source (N.c, portable loops without vector
    /// or DSP code; not yet for 48-bit integers, as in int16x8 models).
    #[arg(long, value_enum, default_value_t = Emit::Object)]
    emit: Emit,
    /// `dir`: N.o, N.h, metadata.json (and the kernels' sources) in the output directory; `mlf`:
    /// the same as a Model Library Format tar, laid out as microTVM's.
    #[arg(long, value_enum, default_value_t = OutputFormat::Dir)]
    output_format: OutputFormat,
    /// The C name prefixing the object's symbol, the header's macros and the files (default:
    /// the model file's stem as a C identifier).
    #[arg(long)]
    name: Option<String>,
    /// Optimize for speed (LLVM O3, windows split into borders and interior) or code size (Os, no split).
    #[arg(long, value_enum, default_value_t = OptArg::Speed)]
    opt: OptArg,
    /// The shape of an input with dynamic dimensions, e.g. 1x49x10x1, once per input in order
    /// (default: dynamic dimensions are 1).
    #[arg(long = "shape", value_name = "DIMS")]
    shapes: Vec<String>,
    /// Fail when the workspace (RAM for intermediate tensors) exceeds this many bytes.
    #[arg(long, value_name = "BYTES")]
    max_workspace: Option<u64>,
    /// Fail when code and constants together exceed this many bytes (constants placed with
    /// --constants-section are not counted: that memory is the linker script's to bound).
    #[arg(long, value_name = "BYTES")]
    max_flash: Option<u64>,
    /// Put the model's constants (weights, biases, tables) into this ELF section instead of
    /// .rodata, for the linker script to place (e.g. external flash for a model larger than the
    /// on-chip one); metadata.json lists the bytes of each section.
    #[arg(long, value_name = "NAME", value_parser = section_name)]
    constants_section: Option<String>,
    /// Split the workspace over memory pools, NAME:SIZE[:fast][:cpu] (SIZE in bytes, or with K or
    /// M), once per pool: `--pool dtcm:64K:fast --pool sram:512K`. N_run then takes one workspace
    /// per pool, in this order; the most accessed buffers go to the fast pools first; a `:cpu` pool
    /// (a TCM no accelerator's DMA reaches) takes no buffer an accelerator's kernel reads or
    /// writes. A model that does not fit is an error naming the pools and what the model needs.
    #[arg(long = "pool", value_name = "NAME:SIZE[:fast][:cpu]")]
    pools: Vec<String>,
    /// Share one workspace with the model compiled to this metadata.json (repeatable): the header
    /// then defines N_SHARED_WORKSPACE_SIZE, the largest of their workspaces, for one buffer that
    /// serves them all, one model at a time.
    #[arg(long = "share-workspace-with", value_name = "METADATA")]
    share_workspace_with: Vec<PathBuf>,
    /// Make N_run call weak `void N_op_begin(uint32_t op)` and `void N_op_end(uint32_t op)`
    /// around each operator (op = its index in metadata.json's `operators`), for the firmware
    /// to define (a cycle counter, a trace); without a definition they do nothing.
    #[arg(long)]
    profile_hooks: bool,
    /// Write DIR/index.html: the operators coloured by target and the workspace plan as a
    /// timeline (SVG, self-contained).
    #[arg(long, value_name = "DIR")]
    report_html: Option<PathBuf>,
    /// The scale and zero point of an input, as SCALE:ZERO_POINT, once per input in order, for
    /// metadata.json: for a TOSA model (`.tosa`, `.mlir`) whose quantize stays outside the graph,
    /// as ExecuTorch's; a `.tflite` model gives its own.
    #[arg(long = "input-quantization", value_name = "SCALE:ZERO_POINT")]
    input_quantization: Vec<String>,
    /// The scale and zero point of an output, as for --input-quantization.
    #[arg(long = "output-quantization", value_name = "SCALE:ZERO_POINT")]
    output_quantization: Vec<String>,
    /// The function to compile.
    #[arg(long, default_value = "main")]
    entry: String,
    /// What to show of the compile.
    #[command(flatten)]
    views: CompileViews,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Emit {
    /// An object file for the CPU.
    Object,
    /// C99 source.
    C,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum OutputFormat {
    /// A directory.
    Dir,
    /// A Model Library Format archive (tar).
    Mlf,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum OptArg {
    /// LLVM O3.
    Speed,
    /// LLVM Os.
    Size,
}

/// An ELF section name a linker script can match: letters, digits, `.`, `_`, `$`.
fn section_name(text: &str) -> Result<String, String> {
    let valid = !text.is_empty() && text.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '$'));
    if valid {
        Ok(text.to_string())
    } else {
        Err(format!("'{text}' is not a section name (letters, digits, '.', '_' and '$' only)"))
    }
}

impl CompileArgs {
    /// The model path as given.
    pub fn model_name(&self) -> String {
        self.model.display().to_string()
    }
}

fn parse_shape(text: &str) -> Result<Vec<i64>, String> {
    text.split('x')
        .map(|d| d.trim().parse::<i64>().ok().filter(|d| *d > 0))
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| format!("--shape '{text}' is not a shape like 1x49x10x1"))
}

/// Runs the command; `Err` carries the message for `umac: error:` (empty when diagnostics
/// already said it all).
pub fn run(args: &CompileArgs) -> Result<(), String> {
    umac_driver::register_targets();
    let targets = parse_target_string(&args.target).map_err(|e| e.to_string())?;
    let Some(cpu) = targets.cpu else {
        return Err(format!("--target '{}' names no CPU; end it with one of {}", args.target, Cpu::names()));
    };
    let shapes = if args.shapes.is_empty() {
        None
    } else {
        Some(args.shapes.iter().map(|s| parse_shape(s)).collect::<Result<Vec<_>, _>>()?)
    };
    let display = args.model.display().to_string();
    let tflite::Model { bytes, quantization, sha256 } = tflite::read_model(&args.model)?;
    let quantization = given_quantization(args, quantization)?;
    let stem = args.model.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let name = args.name.clone().unwrap_or_else(|| c_identifier(&stem));
    let options = FirmwareOptions {
        name: name.clone(),
        optimize_for_size: args.opt == OptArg::Size,
        shapes,
        max_workspace: args.max_workspace,
        max_flash: args.max_flash,
        constants_section: args.constants_section.clone(),
        source: args.model.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or(display.clone()),
        source_sha256: Some(sha256),
        profile_hooks: args.profile_hooks,
        pools: umac_lowering::memory_pools::parse_pools(&args.pools.join(",")).map_err(|e| format!("--pool: {e}"))?,
        emit_c: args.emit == Emit::C,
        shared_with: args.share_workspace_with.iter().map(|p| shared_workspace(p)).collect::<Result<_, _>>()?,
        accelerators: targets,
        observe: args.views.observe(),
    };

    let mut firmware = super::with_model(&display, &bytes, |context, module| {
        if args.views.print_pipeline {
            println!("{}", pipeline(module, &args.entry, cpu, &options).map_err(|e| e.to_string())?.text());
        }
        compile(context, module, &args.entry, cpu, &options).map_err(|e| match e {
            Error::Compile(m) => format!("cannot compile {display} for {}: {m}", cpu.name),
            Error::Reported => format!("cannot compile {display} for {} (see the errors above)", cpu.name),
            Error::Usage(m) | Error::Limit(m) | Error::Run(m) => m,
        })
    })?;
    if let Some((inputs, outputs)) = quantization {
        for (kind, list) in [("inputs", inputs), ("outputs", outputs)] {
            let count = firmware.metadata[kind].as_array().map_or(0, Vec::len);
            if list.len() > count {
                let flag = &kind[..kind.len() - 1];
                return Err(format!(
                    "--{flag}-quantization is given {} times; the model has {count} {kind}",
                    list.len()
                ));
            }
            for (i, q) in list.iter().enumerate() {
                set_quantization(&mut firmware.metadata, kind, i, &q.scale, &q.zero_point);
            }
        }
    }
    if args.report {
        print!("{}", super::placement_report(&firmware.placements, cpu.name));
    }
    if let Some(dir) = &args.report_html {
        let page = umac_driver::firmware::report_html::page(&firmware, &name);
        std::fs::create_dir_all(dir)
            .and_then(|()| std::fs::write(dir.join("index.html"), page))
            .map_err(|e| format!("cannot write {}: {e}", dir.join("index.html").display()))?;
    }
    match args.output_format {
        OutputFormat::Dir => output::write(&args.output, &name, &firmware).map(|_| ()),
        OutputFormat::Mlf => output::write_mlf(&args.output, &name, &firmware),
    }
    .map_err(|e| e.to_string())
}

/// The quantization of the inputs and outputs: the model's own, unless --input-quantization or
/// --output-quantization give it.
fn given_quantization(
    args: &CompileArgs,
    from_model: Option<tflite::IoQuantization>,
) -> Result<Option<tflite::IoQuantization>, String> {
    if args.input_quantization.is_empty() && args.output_quantization.is_empty() {
        return Ok(from_model);
    }
    let parse = |flag: &str, list: &[String]| -> Result<Vec<tflite::Quantization>, String> {
        list.iter()
            .map(|text| {
                let parsed = text.split_once(':').and_then(|(scale, zero_point)| {
                    let scale: f32 = scale.trim().parse().ok().filter(|s: &f32| s.is_finite() && *s > 0.0)?;
                    Some((scale, zero_point.trim().parse::<i64>().ok()?))
                });
                let (scale, zero_point) = parsed.ok_or_else(|| {
                    format!(
                        "--{flag}-quantization '{text}': expected SCALE:ZERO_POINT, a positive scale and an integer"
                    )
                })?;
                Ok(tflite::Quantization { scale: vec![scale], zero_point: vec![zero_point], dimension: 0 })
            })
            .collect()
    };
    let (mut inputs, mut outputs) = from_model.unwrap_or_default();
    if !args.input_quantization.is_empty() {
        inputs = parse("input", &args.input_quantization)?;
    }
    if !args.output_quantization.is_empty() {
        outputs = parse("output", &args.output_quantization)?;
    }
    Ok(Some((inputs, outputs)))
}

/// The name and workspace bytes of the model compiled to the metadata.json at `path`.
fn shared_workspace(path: &Path) -> Result<(String, u64), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("--share-workspace-with {}: {e}", path.display()))?;
    let metadata: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| format!("--share-workspace-with {}: not a metadata.json: {e}", path.display()))?;
    let pools = metadata["memory_plan"]["pools"].as_array().map_or(0, Vec::len);
    match (metadata["name"].as_str(), metadata["workspace"]["bytes"].as_u64()) {
        (Some(name), Some(bytes)) if pools <= 1 => Ok((name.to_string(), bytes)),
        (Some(_), Some(_)) => Err(format!(
            "--share-workspace-with {}: that model splits its workspace over pools; share pools by giving both the same --pool",
            path.display()
        )),
        _ => Err(format!("--share-workspace-with {}: not a metadata.json of umac compile", path.display())),
    }
}

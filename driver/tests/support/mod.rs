//! What the firmware tests share: compiling an MLPerf Tiny model for a CPU (and accelerators),
//! linking it into the bare-metal test harness and running the five reference cases.
#![allow(dead_code)] // each test file uses a part

use std::{
    path::{Path, PathBuf},
    time::Duration,
};
use umac_backend::{Cpu, parse_target_string};
use umac_dialects::{ContextOptions, source::parse_module};
use umac_driver::create_context;
use umac_driver::firmware::{Firmware, FirmwareOptions, compile, output};
use umac_runtime::{
    firmware::{Case, Model, Platform, build, run},
    read_npy, testdata,
};

/// How far a float output may be from TFLite Micro's: relative to it, absolute below 1 (TFLite
/// Micro's kernels sum in their own order; umac's two engines agree with each other bit for bit).
pub const FLOAT_TOLERANCE: f32 = 1e-5;

/// The f32 values of little-endian bytes.
pub fn floats(bytes: &[u8]) -> Vec<f32> {
    bytes.chunks(4).map(|b| f32::from_le_bytes(b.try_into().unwrap())).collect()
}

/// Every float of `actual` within [`FLOAT_TOLERANCE`] of `expected`'s; `what` names the case.
pub fn assert_close(actual: &[f32], expected: &[f32], what: &str) {
    assert_eq!(actual.len(), expected.len(), "{what}");
    for (k, (a, b)) in actual.iter().zip(expected).enumerate() {
        assert!((a - b).abs() <= FLOAT_TOLERANCE * b.abs().max(1.0), "{what}: element {k} is {a}, TFLite Micro's {b}");
    }
}

pub fn models_dir() -> PathBuf {
    testdata::dir("models/mlperf-tiny")
}

/// The options of a compile named `name` for `accelerators` (a target string without the CPU).
pub fn options(name: &str, accelerators: &str, optimize_for_size: bool) -> FirmwareOptions {
    umac_driver::register_targets();
    let accelerators =
        if accelerators.is_empty() { Default::default() } else { parse_target_string(accelerators).unwrap() };
    FirmwareOptions {
        constants_section: None,
        name: name.into(),
        optimize_for_size,
        shapes: None,
        max_workspace: None,
        max_flash: None,
        source: "model.mlir".into(),
        source_sha256: None,
        profile_hooks: false,
        pools: vec![],
        emit_c: false,
        shared_with: vec![],
        accelerators,
        observe: Default::default(),
    }
}

/// Compiles the MLIR `text` (entry `main`, one input, one output) for `cpu`, links it into the
/// test harness of `platform` under `work` and runs it on `input` under QEMU: whether its output
/// is `expected`, byte for byte, is in the outcome's status (0: equal). `what` names the case in
/// panics.
pub fn run_text(
    text: &str,
    cpu: Cpu,
    platform: Platform,
    work: &Path,
    input: &[u8],
    expected: &[u8],
    what: &str,
) -> umac_runtime::firmware::Outcome {
    let (_, program) = build_text(text, cpu, platform, work, (input, expected), what, None);
    run(platform, &program.unwrap(), Duration::from_secs(300)).unwrap()
}

/// Compiles the MLIR `text` as [`run_text`] does, with the model's constants in
/// `constants_section` when given, and links the harness for the `(input, expected)` case: the
/// firmware and the program, or why the link failed.
pub fn build_text(
    text: &str,
    cpu: Cpu,
    platform: Platform,
    work: &Path,
    (input, expected): (&[u8], &[u8]),
    what: &str,
    constants_section: Option<&str>,
) -> (umac_driver::firmware::Firmware, Result<PathBuf, umac_runtime::Error>) {
    let context = create_context(ContextOptions::default());
    let mut module =
        parse_module(&context, "model.mlir", text.as_bytes()).unwrap_or_else(|| panic!("{what}: does not parse"));
    let options =
        FirmwareOptions { constants_section: constants_section.map(str::to_string), ..options("model", "", false) };
    let firmware = compile(&context, &mut module, "main", cpu, &options)
        .unwrap_or_else(|e| panic!("{what} for {}: {e}", cpu.name));
    let written = output::write(&work.join("out"), "model", &firmware).unwrap();
    let spec = Model {
        name: "model",
        object: &written.object,
        header: &written.header,
        workspace_size: firmware.workspace_size,
        output_bytes: vec![expected.len()],
        kernel_sources: vec![],
        include_dirs: vec![written.include_dir.clone()],
    };
    let case = Case { inputs: vec![input.to_vec()], expected: vec![expected.to_vec()] };
    let program = build(platform, work, &spec, &[case]);
    (firmware, program)
}

pub fn compile_model(dir: &Path, name: &str, cpu: Cpu) -> Firmware {
    compile_for(dir, name, cpu, "")
}

/// Compiles the model for `accelerators` (a target string without the CPU) and `cpu`.
pub fn compile_for(dir: &Path, name: &str, cpu: Cpu, accelerators: &str) -> Firmware {
    compile_configured(dir, name, cpu, accelerators, false)
}

/// [`compile_for`], optimized for size (`--opt=size`) or speed.
fn compile_configured(dir: &Path, name: &str, cpu: Cpu, accelerators: &str, optimize_for_size: bool) -> Firmware {
    compile_with(dir, cpu, &options(name, accelerators, optimize_for_size))
}

/// Compiles the model of `dir` (a TOSA flatbuffer `model.tosa` read by umac's reader, else
/// `model.mlir`, or the bytecode `model.mlirbc`) for `cpu` with `options`.
pub fn compile_with(dir: &Path, cpu: Cpu, options: &FirmwareOptions) -> Firmware {
    let flatbuffer = dir.join("model.tosa");
    let text = dir.join("model.mlir");
    let path = if flatbuffer.is_file() {
        flatbuffer
    } else if text.is_file() {
        text
    } else {
        dir.join("model.mlirbc")
    };
    let mut bytes = std::fs::read(&path).unwrap();
    if path.extension().is_some_and(|e| e == "tosa") {
        bytes = umac_frontend::tosa::to_mlir(&bytes, &path.display().to_string()).unwrap().into_bytes();
    }
    // An LSTM is still in TFLite's dialect (umac-legalize-tfl-lstm replaces it).
    let context = create_context(ContextOptions { allow_unregistered_dialects: true, ..Default::default() });
    let shown = path.display().to_string();
    let mut module = parse_module(&context, &shown, &bytes).unwrap();
    compile(&context, &mut module, "main", cpu, options)
        .unwrap_or_else(|e| panic!("{} for {}: {e}", options.name, cpu.name))
}

pub fn cases(dir: &Path) -> Vec<Case> {
    (0..5)
        .map(|i| Case {
            inputs: vec![read_npy(&dir.join(format!("ref/input_{i}.npy"))).unwrap().data],
            expected: vec![read_npy(&dir.join(format!("ref/output_{i}.npy"))).unwrap().data],
        })
        .collect()
}

pub fn run_on(model: &str, cpu: Cpu, platform: Platform) -> Run {
    run_with(model, cpu, platform, "")
}

/// Compiles `model` for `accelerators` and `cpu`, links it into the test harness for `platform`
/// and runs all five reference cases; every output byte must equal TFLite Micro's. Returns the
/// program and what it printed.
pub fn run_with(model: &str, cpu: Cpu, platform: Platform, accelerators: &str) -> Run {
    run_configured(model, cpu, platform, accelerators, false)
}

/// [`run_on`] for the model compiled with `--opt=size`.
pub fn run_for_size(model: &str, cpu: Cpu, platform: Platform) -> Run {
    run_configured(model, cpu, platform, "", true)
}

fn run_configured(model: &str, cpu: Cpu, platform: Platform, accelerators: &str, optimize_for_size: bool) -> Run {
    run_in(&models_dir().join(model), model, cpu, platform, accelerators, optimize_for_size)
}

/// Compiles the model of `dir` (`model.mlir`, five cases in `ref/`) as `model` for `accelerators`
/// and `cpu`, links it into the test harness for `platform` and runs the cases; every output byte
/// must equal the reference's.
pub fn run_in(
    dir: &Path,
    model: &str,
    cpu: Cpu,
    platform: Platform,
    accelerators: &str,
    optimize_for_size: bool,
) -> Run {
    let firmware = compile_configured(dir, model, cpu, accelerators, optimize_for_size);
    if !accelerators.is_empty() {
        // Every convolution went to the accelerator, and its kernel is linked in.
        let convs: Vec<_> = firmware.placements.iter().filter(|p| p.op == "tosa.conv2d").collect();
        assert!(!convs.is_empty());
        assert!(convs.iter().all(|p| p.target == "vanilla"), "{convs:?}");
        assert!(firmware.placements.iter().any(|p| p.target == cpu.name));
        assert_eq!(firmware.kernels.iter().map(|k| k.symbol).collect::<Vec<_>>(), ["vanilla_conv2d_s8"]);
    }
    let work = std::env::temp_dir().join(format!(
        "umac-fw-{}-{model}-{}{}{}",
        std::process::id(),
        cpu.name,
        if accelerators.is_empty() { "" } else { "-accel" },
        if optimize_for_size { "-size" } else { "" }
    ));
    // The output directory as `umac compile` writes it: self-contained, kernels included.
    let written = output::write(&work.join("out"), model, &firmware).unwrap();
    let output_bytes = firmware.signature.outputs.iter().map(|t| t.byte_size() as usize).collect();
    let spec = Model {
        name: model,
        object: &written.object,
        header: &written.header,
        workspace_size: firmware.workspace_size,
        output_bytes,
        kernel_sources: written.kernel_sources.clone(),
        include_dirs: vec![written.include_dir.clone()],
    };
    let program = build(platform, &work, &spec, &cases(dir)).unwrap();
    let outcome = run(platform, &program, Duration::from_secs(300)).unwrap();
    assert_eq!(outcome.status, Some(0), "{model} on {}: {}", cpu.name, outcome.output);
    assert!(outcome.output.contains("ok: 5 cases"), "{}", outcome.output);
    Run { work, program, output: outcome.output }
}

/// A harness run that passed: its directory (removed on drop), program and output.
pub struct Run {
    pub work: PathBuf,
    pub program: PathBuf,
    pub output: String,
}

impl Run {
    /// The instruction count a RISC-V harness prints for the first case.
    pub fn instructions(&self) -> Option<u64> {
        self.output.lines().find_map(|l| l.strip_prefix("instructions: ")).and_then(|n| n.trim().parse().ok())
    }
}

impl Drop for Run {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.work);
    }
}

/// A deterministic pseudo-random sequence (no engine involved in making the data).
pub fn lcg(seed: u64, n: usize) -> Vec<i64> {
    let mut state = seed;
    (0..n)
        .map(|_| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (state >> 33) as i64
        })
        .collect()
}

/// What the host's Cranelift engine (plain scalar loops, the reference) computes for the MLIR
/// `text` (entry `main`, one input, one output) on `input`.
pub fn host_reference(text: &str, input: &umac_runtime::Tensor, what: &str) -> umac_runtime::Tensor {
    umac_driver::register_targets();
    let context = create_context(ContextOptions::default());
    let mut module =
        parse_module(&context, "model.mlir", text.as_bytes()).unwrap_or_else(|| panic!("{what}: does not parse"));
    let inputs = std::slice::from_ref(input);
    umac_driver::host::compile(
        &context,
        &mut module,
        "main",
        inputs,
        umac_driver::host::Engine::Cranelift,
        Default::default(),
    )
    .unwrap_or_else(|e| panic!("{what} on the host: {e}"))
    .run(inputs)
    .unwrap()
    .remove(0)
}

//! Firmware output runs where firmware engineers run it: every MLPerf Tiny model, compiled for
//! Cortex-M55 and Cortex-M4, linked into a bare-metal test program and run under QEMU
//! (mps3-an547, mps2-an386) on all five reference inputs; `--target=host` objects linked into a
//! host program the same way. Every output byte must equal TFLite Micro's.

use std::{
    path::{Path, PathBuf},
    time::Duration,
};
use umac_dialects::{
    ContextOptions, create_context,
    source::{SourceChunk, parse_module},
};
use umac_runtime::{
    firmware::{Case, MPS2_AN386, MPS3_AN547, Model, Platform, build, run},
    read_npy,
};
use umac_targets::firmware::{Cpu, Firmware, FirmwareOptions, compile};

fn models_dir() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/models/mlperf-tiny");
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("SKIPPED: {} is missing (the MLPerf Tiny models live beside the checkout)", dir.display());
        None
    }
}

fn options(name: &str) -> FirmwareOptions {
    FirmwareOptions {
        name: name.into(),
        optimize_for_size: false,
        shapes: None,
        max_workspace: None,
        max_flash: None,
        source: "model.mlir".into(),
    }
}

fn compile_model(dir: &Path, name: &str, cpu: Cpu) -> Firmware {
    let path = dir.join("model.mlir");
    let bytes = std::fs::read(&path).unwrap();
    let context = create_context(ContextOptions::default());
    let shown = path.display().to_string();
    let mut module = parse_module(&context, &SourceChunk { name: &shown, bytes: &bytes, first_line: 1 }).unwrap();
    compile(&context, &mut module, "main", cpu, &options(name))
        .unwrap_or_else(|e| panic!("{name} for {}: {e}", cpu.name()))
}

fn cases(dir: &Path) -> Vec<Case> {
    (0..5)
        .map(|i| Case {
            inputs: vec![read_npy(&dir.join(format!("ref/input_{i}.npy"))).unwrap().data],
            expected: vec![read_npy(&dir.join(format!("ref/output_{i}.npy"))).unwrap().data],
        })
        .collect()
}

fn run_on(model: &str, cpu: Cpu, platform: Platform) {
    let Some(models) = models_dir() else { return };
    let dir = models.join(model);
    let firmware = compile_model(&dir, model, cpu);
    let work = std::env::temp_dir().join(format!("umac-fw-{}-{model}-{}", std::process::id(), cpu.name()));
    std::fs::create_dir_all(&work).unwrap();
    let (object, header) = (work.join(format!("{model}.o")), work.join(format!("{model}.h")));
    std::fs::write(&object, &firmware.object).unwrap();
    std::fs::write(&header, &firmware.header).unwrap();
    let output_bytes =
        firmware.signature.outputs.iter().map(|t| t.shape.iter().map(|d| d.unwrap() as usize).product()).collect();
    let spec =
        Model { name: model, object: &object, header: &header, workspace_size: firmware.workspace_size, output_bytes };
    let program = build(platform, &work, &spec, &cases(&dir)).unwrap();
    let outcome = run(platform, &program, Duration::from_secs(120)).unwrap();
    assert_eq!(outcome.status, Some(0), "{model} on {}: {}", cpu.name(), outcome.output);
    assert!(outcome.output.contains("ok: 5 cases"), "{}", outcome.output);
    std::fs::remove_dir_all(&work).unwrap();
}

#[test]
fn kws_cortex_m55() {
    run_on("kws", Cpu::CortexM55, MPS3_AN547);
}
#[test]
fn kws_cortex_m4() {
    run_on("kws", Cpu::CortexM4, MPS2_AN386);
}
#[test]
fn kws_host() {
    run_on("kws", Cpu::Host, Platform::Host);
}
#[test]
fn vww_cortex_m55() {
    run_on("vww", Cpu::CortexM55, MPS3_AN547);
}
#[test]
fn vww_cortex_m4() {
    run_on("vww", Cpu::CortexM4, MPS2_AN386);
}
#[test]
fn vww_host() {
    run_on("vww", Cpu::Host, Platform::Host);
}
#[test]
fn ic_cortex_m55() {
    run_on("ic", Cpu::CortexM55, MPS3_AN547);
}
#[test]
fn ic_cortex_m4() {
    run_on("ic", Cpu::CortexM4, MPS2_AN386);
}
#[test]
fn ic_host() {
    run_on("ic", Cpu::Host, Platform::Host);
}
#[test]
fn ad_cortex_m55() {
    run_on("ad", Cpu::CortexM55, MPS3_AN547);
}
#[test]
fn ad_cortex_m4() {
    run_on("ad", Cpu::CortexM4, MPS2_AN386);
}
#[test]
fn ad_host() {
    run_on("ad", Cpu::Host, Platform::Host);
}

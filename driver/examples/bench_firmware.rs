//! Firmware benchmark (`scripts/bench firmware`): for every MLPerf Tiny model and Cortex-M CPU,
//! instructions executed per inference (counted exactly from QEMU's execution trace), `.text`
//! and `.rodata` bytes, workspace bytes against the liveness lower bound and TFLite Micro's
//! arena, and compile time. Writes `bench/firmware.json` and prints a table, then where the
//! instructions go: per operator function of every run (in the JSON: `profile`, and by kind of
//! operator), printed for IC on each CPU.
//!
//! Instruction counts are deterministic, so the TFLite Micro + CMSIS-NN reference counts
//! (measured under the same QEMU on this machine kind, issue 4) are a fixed baseline; compile
//! times are measured in this run with the release `umac` binary.

use std::{
    path::{Path, PathBuf},
    process::Command,
    time::{Duration, Instant},
};
use umac_runtime::{
    firmware::{Case, MPS2_AN386, MPS3_AN547, Model, Platform, build},
    profile::profile,
    read_npy, testdata,
};

/// TFLite Micro + CMSIS-NN instructions per inference under QEMU (issue 4), and TFLM's arenas.
struct Reference {
    model: &'static str,
    m55: u64,
    m4: u64,
    activation_arena: u64,
    total_arena: u64,
}

const REFERENCES: &[Reference] = &[
    Reference { model: "kws", m55: 1_815_808, m4: 7_699_892, activation_arena: 16_000, total_arena: 24_272 },
    Reference { model: "vww", m55: 6_558_336, m4: 24_101_962, activation_arena: 73_728, total_arena: 103_680 },
    Reference { model: "ic", m55: 4_911_695, m4: 29_863_352, activation_arena: 49_152, total_arena: 55_984 },
    Reference { model: "ad", m55: 149_995, m4: 582_944, activation_arena: 768, total_arena: 4_640 },
];

/// The kind of operator a function of the model computes: `conv_2d_nhwc_fhwc` of
/// `ic_op3_conv_2d_nhwc_fhwc`; other functions (memcpy, ...) as they are.
fn kind(function: &str) -> &str {
    function
        .split_once("_op")
        .and_then(|(_, rest)| rest.split_once('_'))
        .filter(|(index, _)| !index.is_empty() && index.bytes().all(|b| b.is_ascii_digit()))
        .map_or(function, |(_, kind)| kind)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let models = testdata::dir("models/mlperf-tiny");
    let umac = root.join("target/release/umac");
    if !umac.is_file() {
        return Err(format!("{} is missing: build with `cargo build --release --bin umac`", umac.display()).into());
    }
    let work = std::env::temp_dir().join(format!("umac-bench-firmware-{}", std::process::id()));
    let mut rows = Vec::new();
    let mut profiles: Vec<String> = Vec::new();
    println!(
        "{:<5} {:<10} {:>12} {:>12} {:>7} {:>8} {:>8} {:>9} {:>9} {:>9} {:>8}",
        "model", "cpu", "instr", "TFLM+CMSIS", "ratio", "text", "rodata", "workspace", "bound", "TFLM act", "compile"
    );
    // `UMAC_BENCH_ONLY=ic,ad`: those models only, each run's profile printed, bench/firmware.json
    // left as it is; `UMAC_BENCH_CPUS=cortex-m55`: those configurations only.
    let list = |name| std::env::var(name).ok().map(|v: String| v.split(',').map(|m| m.trim().to_string()).collect());
    let only: Option<Vec<String>> = list("UMAC_BENCH_ONLY");
    let cpus: Option<Vec<String>> = list("UMAC_BENCH_CPUS");
    for reference in REFERENCES.iter().filter(|r| only.as_ref().is_none_or(|o| o.iter().any(|m| m == r.model))) {
        let dir = models.join(reference.model);
        // The last configurations run the convolutions in the C kernels of each accelerator
        // that has them and no CPU of its own (vanilla's: a plain loop nest compiled by
        // arm-none-eabi-gcc -O2): the cost of the extern-call path.
        let mut configurations = vec![
            ("cortex-m55".to_string(), "cortex-m55".to_string(), MPS3_AN547, reference.m55),
            ("cortex-m4".into(), "cortex-m4".into(), MPS2_AN386, reference.m4),
        ];
        umac_driver::register_targets();
        for backend in umac_backend::backends().iter().filter(|b| b.cpu().is_none() && !b.kernels().is_empty()) {
            let name = backend.name();
            configurations.push((
                format!("{name},cortex-m55"),
                format!("cortex-m55+{name}"),
                MPS3_AN547,
                reference.m55,
            ));
        }
        for (target, cpu, platform, tflm) in configurations {
            if cpus.as_ref().is_some_and(|c| !c.contains(&cpu)) {
                continue;
            }
            let out: PathBuf = work.join(format!("{}-{cpu}", reference.model));
            let model = dir.join("model.mlir");
            let started = Instant::now();
            let status = Command::new(&umac)
                .args(["compile"])
                .arg(&model)
                .arg(format!("--target={target}"))
                .arg("-o")
                .arg(&out)
                .args(["--name", reference.model])
                .status()?;
            let compile_seconds = started.elapsed().as_secs_f64();
            if !status.success() {
                return Err(format!("umac compile failed for {} on {cpu}", reference.model).into());
            }
            let metadata: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(out.join("metadata.json"))?)?;
            let workspace = metadata["workspace"]["bytes"].as_u64().unwrap_or(0);
            let bound = metadata["workspace"]["liveness_lower_bound"].as_u64().unwrap_or(0);
            let output_bytes = metadata["outputs"]
                .as_array()
                .map(|a| a.iter().map(|o| o["bytes"].as_u64().unwrap_or(0) as usize).collect())
                .unwrap_or_default();
            let object = out.join(format!("{}.o", reference.model));
            let header = out.join(format!("{}.h", reference.model));
            let case = Case {
                inputs: vec![read_npy(&dir.join("ref/input_0.npy"))?.data],
                expected: vec![read_npy(&dir.join("ref/output_0.npy"))?.data],
            };
            let spec = Model {
                name: reference.model,
                object: &object,
                header: &header,
                workspace_size: workspace,
                output_bytes,
                // The output directory carries the kernels' sources and headers.
                kernel_sources: metadata["extern_functions"]
                    .as_array()
                    .map(|a| a.iter().filter_map(|k| k["source"].as_str()).map(|s| out.join(s)).collect())
                    .unwrap_or_default(),
                include_dirs: vec![out.join("include")],
            };
            let program = build(platform, &out, &spec, &[case])?;
            let Platform::Arm { board, .. } = platform else { unreachable!() };
            let profile = profile(board, &program, Duration::from_secs(1800))?;
            let instructions = profile.total;
            let mut kinds: Vec<(&str, u64)> = Vec::new();
            for (function, count) in &profile.functions {
                match kinds.iter_mut().find(|(k, _)| *k == kind(function)) {
                    Some(entry) => entry.1 += count,
                    None => kinds.push((kind(function), *count)),
                }
            }
            kinds.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
            let share = |count: u64| count as f64 / instructions.max(1) as f64;
            let functions: Vec<serde_json::Value> = profile
                .functions
                .iter()
                .map(|(f, n)| serde_json::json!({"function": f, "instructions": n, "share": share(*n)}))
                .collect();
            let by_kind: Vec<serde_json::Value> = kinds
                .iter()
                .map(|(k, n)| serde_json::json!({"kind": k, "instructions": n, "share": share(*n)}))
                .collect();
            if reference.model == "ic" || only.is_some() {
                profiles.push(format!("{} on {cpu}: {instructions} instructions", reference.model));
                for (function, count) in profile.functions.iter().take(12) {
                    profiles.push(format!("  {function:<40} {count:>10} {:>6.1}%", 100.0 * share(*count)));
                }
            }
            let text = metadata["text_bytes"].as_u64().unwrap_or(0);
            let rodata = metadata["constants_bytes"].as_u64().unwrap_or(0);
            let ratio = instructions as f64 / tflm as f64;
            println!(
                "{:<5} {:<10} {:>12} {:>12} {:>6.2}x {:>8} {:>8} {:>9} {:>9} {:>9} {:>7.2}s",
                reference.model,
                cpu,
                instructions,
                tflm,
                ratio,
                text,
                rodata,
                workspace,
                bound,
                reference.activation_arena,
                compile_seconds
            );
            rows.push(serde_json::json!({
                "model": reference.model,
                "cpu": cpu,
                "target": target,
                "machine": board.machine,
                "instructions_per_inference": instructions,
                "tflm_cmsis_nn_instructions": tflm,
                "instructions_ratio_vs_tflm_cmsis_nn": ratio,
                "text_bytes": text,
                "rodata_bytes": rodata,
                "workspace_bytes": workspace,
                "liveness_lower_bound_bytes": bound,
                "tflm_activation_arena_bytes": reference.activation_arena,
                "tflm_total_arena_bytes": reference.total_arena,
                "workspace_ratio_vs_tflm_activation_arena": workspace as f64 / reference.activation_arena as f64,
                "compile_seconds": compile_seconds,
                "profile": functions,
                "profile_by_kind": by_kind,
            }));
        }
    }
    println!("\nwhere the instructions go (per operator function; all runs in bench/firmware.json):");
    for line in &profiles {
        println!("{line}");
    }
    let _ = std::fs::remove_dir_all(&work);
    let report = serde_json::json!({
        "what": "umac firmware: instructions per inference under QEMU (exact, from the exec trace), sizes, workspace",
        "reference": "TFLite Micro + CMSIS-NN instruction counts and TFLM arenas measured under QEMU 7.2 on this machine kind (issue 4)",
        "rows": rows,
    });
    if only.is_some() {
        return Ok(());
    }
    let path = root.join("bench/firmware.json");
    std::fs::write(&path, serde_json::to_string_pretty(&report)? + "\n")?;
    println!("wrote {}", path.display());
    Ok(())
}

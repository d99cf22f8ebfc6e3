//! tynnp benchmark (`scripts/bench tynnp`): every MLPerf Tiny model compiled for `tynnp,rv32im`
//! and run on the simulator (first reference input): simulated cycles, the roofline bound of the
//! whole model (`max(MACs / NU MACs per cycle, DDR bytes / DDR bytes per cycle)`) and the ratio,
//! each unit's utilisation, DDR bytes; beside it the same model on the control unit alone
//! (`rv32im`, measured in the same run) and Arm Vela's estimates for Ethos-U55-128 for scale.
//! Simulated cycles are exact. Writes `bench/tynnp.json` and prints a table.

use std::path::Path;
use umac_backend::{Cpu, cpu::RV32IM, parse_target_string};
use umac_dialects::{ContextOptions, create_context, source::parse_module};
use umac_driver::{
    firmware::{FirmwareOptions, compile},
    simulator::simulate,
};
use umac_runtime::{read_npy, testdata};
use umac_sim::{npu::Params, report::Report};

/// Vela's NPU cycle estimates for Ethos-U55-128 (from the issue), for scale only: another
/// machine, another compiler.
const VELA_U55_128: [(&str, u64); 4] = [("kws", 89_900), ("vww", 220_900), ("ic", 201_700), ("ad", 201_200)];

fn run(dir: &Path, model: &str, cpu: Cpu, accelerators: &str) -> Result<Report, String> {
    umac_driver::register_targets();
    let path = dir.join("model.mlir");
    let bytes = std::fs::read(&path).map_err(|e| e.to_string())?;
    let context = create_context(ContextOptions::default());
    let mut module = parse_module(&context, "model.mlir", &bytes).ok_or("the model does not parse")?;
    let options = FirmwareOptions {
        name: model.into(),
        optimize_for_size: false,
        shapes: None,
        max_workspace: None,
        max_flash: None,
        source: "model.mlir".into(),
        accelerators: if accelerators.is_empty() {
            Default::default()
        } else {
            parse_target_string(accelerators).map_err(|e| e.to_string())?
        },
        observe: Default::default(),
    };
    let firmware = compile(&context, &mut module, "main", cpu, &options).map_err(|e| e.to_string())?;
    let input = read_npy(&dir.join("ref/input_0.npy")).map_err(|e| e.to_string())?;
    let expected = read_npy(&dir.join("ref/output_0.npy")).map_err(|e| e.to_string())?;
    let run = simulate(&firmware, &[input], Params::default()).map_err(|e| e.to_string())?;
    if run.outputs[0].data != expected.data {
        return Err(format!("{model} ({accelerators}): the output differs from TFLite Micro's"));
    }
    Ok(run.report)
}

fn main() -> Result<(), String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let models = testdata::shared("models/mlperf-tiny").ok_or("the MLPerf Tiny models are missing")?;
    println!(
        "{:<5} {:>12} {:>10} {:>7} {:>6} {:>6} {:>6} {:>9} {:>12} {:>8} {:>9}",
        "model", "cycles", "roofline", "ratio", "NU %", "VU0 %", "DMA %", "DDR B", "CU alone", "speedup", "Vela U55"
    );
    let mut rows = Vec::new();
    for (model, vela) in VELA_U55_128 {
        let dir = models.join(model);
        let npu = run(&dir, model, RV32IM, "tynnp")?;
        let cu = run(&dir, model, RV32IM, "")?;
        let share = |unit: &str| {
            let busy: u64 = npu.units.iter().filter(|u| u.0.starts_with(unit)).map(|u| u.2).sum();
            100.0 * busy as f64 / npu.cycles.max(1) as f64
        };
        let ratio = npu.cycles as f64 / npu.roofline_cycles.max(1) as f64;
        let speedup = cu.cycles as f64 / npu.cycles.max(1) as f64;
        let (nu, vu, dma) = (share("nu"), share("vu0"), share("dma"));
        println!(
            "{model:<5} {:>12} {:>10} {ratio:>6.2}x {nu:>6.1} {vu:>6.1} {dma:>6.1} {:>9} {:>12} {speedup:>7.1}x {vela:>9}",
            npu.cycles, npu.roofline_cycles, npu.ddr_bytes, cu.cycles
        );
        rows.push(serde_json::json!({
            "model": model,
            "cycles": npu.cycles,
            "roofline_cycles": npu.roofline_cycles,
            "cycles_over_roofline": ratio,
            "macs": npu.macs,
            "ddr_bytes": npu.ddr_bytes,
            "cu_instructions": npu.instret,
            "units": npu.units.iter().map(|(name, jobs, busy)| serde_json::json!({
                "unit": name, "jobs": jobs, "busy_cycles": busy,
                "utilisation": *busy as f64 / npu.cycles.max(1) as f64,
            })).collect::<Vec<_>>(),
            "cu_alone_cycles": cu.cycles,
            "speedup_over_cu_alone": speedup,
            "vela_ethos_u55_128_cycles": vela,
        }));
    }
    let report = serde_json::json!({
        "what": "MLPerf Tiny on the tynnp simulator (default parameters: 16x16 NU, 4 VUs, 256 KiB DM, 16 B/cycle DDR, 64 cycles latency), first reference input, outputs equal to TFLite Micro's; the same model on the RV32IM control unit alone in the same run",
        "stage": "one job per op, tensors copied whole into DM and back, no tiling, no double buffering, no fusion, weights copied per call",
        "vela": "Arm Vela estimates for Ethos-U55-128, another machine and compiler: for scale only",
        "rows": rows,
    });
    let path = root.join("bench/tynnp.json");
    std::fs::write(&path, serde_json::to_string_pretty(&report).map_err(|e| e.to_string())? + "\n")
        .map_err(|e| e.to_string())?;
    println!("wrote {}", path.display());
    Ok(())
}

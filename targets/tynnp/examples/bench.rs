//! tynnp benchmark (`scripts/bench tynnp`): every MLPerf Tiny model compiled for `tynnp,rv32im`
//! and run on the simulator (first reference input): simulated cycles, the roofline bound of the
//! whole model (`max(MACs / NU MACs per cycle, DDR bytes / DDR bytes per cycle)`) and the ratio,
//! the contract bound (each unit's work under isa.md's costs, one job a kernel, each DDR byte
//! moved once; the busiest unit's) and the ratio, the busiest unit of each kind's utilisation, DDR bytes; beside it the same model on the control
//! unit alone (`rv32im`), without output pixels packed into the NU's columns, without kernels
//! running at once (overlap), without the next kernel's constants loaded during this one, without
//! activations kept in DM between kernels (what that fusion earns), single-buffered (what double buffering earns), with one vector unit
//! (what the bands earn), without a copy of each kernel for its call's tiles (what
//! `umac-specialize-tynnp` earns), on a preset near Ethos-U55-128, with 32 to 128 KiB of DM and with the
//! control unit's own buffers in its DMEM (`--pool`), measured in the same run, and Arm Vela's
//! estimates for Ethos-U55-128 for scale.
//! Simulated cycles are exact. Writes `bench/tynnp.json` and prints a table.

use std::path::Path;
use umac_backend::{Cpu, cpu::RV32IM, parse_target_string};
use umac_dialects::{ContextOptions, source::parse_module};
use umac_driver::create_context;
use umac_driver::{
    firmware::{FirmwareOptions, compile},
    simulator::{devices, simulate},
};
use umac_runtime::{read_npy, testdata};
use umac_sim::report::Report;

/// Vela's NPU cycle estimates for Ethos-U55-128 (from the issue), for scale only: another
/// machine, another compiler.
const VELA_U55_128: [(&str, u64); 4] = [("kws", 89_900), ("vww", 220_900), ("ic", 201_700), ("ad", 201_200)];

/// The configurations beside the default: what packing output pixels into the NU's columns
/// earns, what running consecutive kernels at once earns (the
/// second's tiles starting as the first's write what they read), what loading the next kernel's
/// constants during this one earns, what keeping activations in DM between kernels earns, what double buffering earns (one buffer each for a
/// job's input and output tiles), what the vector-unit bands earn (one unit), and a preset near
/// Ethos-U55-128 (128 MACs per cycle, 8 bytes per cycle; its 1 byte per cycle flash for weights
/// is not modelled: every tensor is in DDR).
const VARIANTS: [(&str, &str); 8] = [
    ("tynnp -pack-pixels=false", "one output pixel a pass: no pixels packed into the NU's columns"),
    ("tynnp -overlap=false", "every kernel waits for its jobs: none runs while the next kernel's jobs start"),
    ("tynnp -prefetch=false", "every kernel copies its own constants: none loaded during the kernel before"),
    ("tynnp -fuse=false", "every kernel's output back to DDR: no activations kept in DM between kernels"),
    ("tynnp -double-buffer=false", "single-buffered tiles: no copy overlaps a job"),
    ("tynnp -vu=1", "one vector unit: no bands"),
    ("tynnp -nu-rows=8 -nu-cols=16 -ddr-bw=8", "near Ethos-U55-128: NU 8x16, 8 B/cycle"),
    ("tynnp -specialize=false", "one function loops over any tile table: no copy of a kernel for its call's tiles"),
];

/// Smaller DMs than the default 256 KiB: what a hardware team trading DM for area would get
/// (filters DM cannot hold run in slices of their output channels; activations stay in DM where
/// they fit).
const DM_KIB: [u32; 4] = [32, 64, 96, 128];

/// The control unit's own buffers in its DMEM, the rest in DDR (`--pool`).
const CPU_POOL: &str = "dmem:128K:fast:cpu,ddr:4M";

fn run(dir: &Path, model: &str, cpu: Cpu, target: &str) -> Result<Report, Box<dyn std::error::Error>> {
    run_pooled(dir, model, cpu, target, "")
}

fn run_pooled(
    dir: &Path,
    model: &str,
    cpu: Cpu,
    target: &str,
    pools: &str,
) -> Result<Report, Box<dyn std::error::Error>> {
    umac_driver::register_targets();
    let path = dir.join("model.mlir");
    let bytes = std::fs::read(&path)?;
    let context = create_context(ContextOptions::default());
    let mut module = parse_module(&context, "model.mlir", &bytes).ok_or("the model does not parse")?;
    let accelerators = if target.is_empty() { Default::default() } else { parse_target_string(target)? };
    let devices = devices(&accelerators)?;
    let options = FirmwareOptions {
        constants_section: None,
        name: model.into(),
        optimize_for_size: false,
        shapes: None,
        max_workspace: None,
        max_flash: None,
        source: "model.mlir".into(),
        source_sha256: None,
        profile_hooks: false,
        pools: umac_lowering::memory_pools::parse_pools(pools)?,
        emit_c: false,
        shared_with: vec![],
        accelerators,
        observe: Default::default(),
    };
    let firmware = compile(&context, &mut module, "main", cpu, &options)?;
    let input = read_npy(&dir.join("ref/input_0.npy"))?;
    let expected = read_npy(&dir.join("ref/output_0.npy"))?;
    let run = simulate(&firmware, &[input], devices)?;
    if run.outputs[0].data != expected.data {
        return Err(format!("{model} ({target}): the output differs from TFLite Micro's").into());
    }
    Ok(run.report)
}

fn ratio(report: &Report) -> f64 {
    report.cycles as f64 / report.roofline_cycles.max(1) as f64
}

fn over_contract(report: &Report) -> f64 {
    report.cycles as f64 / report.contract_bound_cycles.max(1) as f64
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let models = testdata::dir("models/mlperf-tiny");
    println!(
        "{:<5} {:>12} {:>10} {:>7} {:>10} {:>7} {:>6} {:>6} {:>6} {:>9} {:>12} {:>8} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}",
        "model",
        "cycles",
        "roofline",
        "ratio",
        "contract",
        "ratio",
        "NU %",
        "VU %",
        "DMA %",
        "DDR B",
        "CU alone",
        "speedup",
        "no pack",
        "no overl.",
        "no pref.",
        "no fusion",
        "1 buffer",
        "1 VU",
        "U55-like",
        "no spec.",
        "Vela U55"
    );
    let mut rows = Vec::new();
    for (model, vela) in VELA_U55_128 {
        let dir = models.join(model);
        let npu = run(&dir, model, RV32IM, "tynnp")?;
        let cu = run(&dir, model, RV32IM, "")?;
        let variants: Vec<(&str, &str, Report)> = VARIANTS
            .iter()
            .map(|&(target, what)| run(&dir, model, RV32IM, target).map(|r| (target, what, r)))
            .collect::<Result<_, _>>()?;
        let pooled = run_pooled(&dir, model, RV32IM, "tynnp", CPU_POOL)?;
        let dm_sizes: Vec<(u32, Report)> = DM_KIB
            .iter()
            .map(|&kib| run(&dir, model, RV32IM, &format!("tynnp -dm-kib={kib}")).map(|r| (kib, r)))
            .collect::<Result<_, _>>()?;
        // The busiest unit of each kind, as a share of the run.
        let share = |unit: &str| {
            let busy = npu.units.iter().filter(|u| u.0.starts_with(unit)).map(|u| u.2).max().unwrap_or(0);
            100.0 * busy as f64 / npu.cycles.max(1) as f64
        };
        let speedup = cu.cycles as f64 / npu.cycles.max(1) as f64;
        let (nu, vu, dma) = (share("nu"), share("vu"), share("dma"));
        println!(
            "{model:<5} {:>12} {:>10} {:>6.2}x {:>10} {:>6.2}x {nu:>6.1} {vu:>6.1} {dma:>6.1} {:>9} {:>12} {speedup:>7.1}x {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {vela:>9}",
            npu.cycles,
            npu.roofline_cycles,
            ratio(&npu),
            npu.contract_bound_cycles,
            over_contract(&npu),
            npu.ddr_bytes,
            cu.cycles,
            variants[0].2.cycles,
            variants[1].2.cycles,
            variants[2].2.cycles,
            variants[3].2.cycles,
            variants[4].2.cycles,
            variants[5].2.cycles,
            variants[6].2.cycles,
            variants[7].2.cycles
        );
        rows.push(serde_json::json!({
            "model": model,
            "cycles": npu.cycles,
            "roofline_cycles": npu.roofline_cycles,
            "cycles_over_roofline": ratio(&npu),
            "contract_bound_cycles": npu.contract_bound_cycles,
            "cycles_over_contract_bound": over_contract(&npu),
            "contract_units": npu.contract_units.iter().map(|(unit, cycles)| serde_json::json!({
                "unit": unit, "cycles": cycles,
            })).collect::<Vec<_>>(),
            "macs": npu.model_macs,
            "macs_issued": npu.macs,
            "ddr_bytes": npu.ddr_bytes,
            "cu_instructions": npu.instret,
            "units": npu.units.iter().map(|(name, jobs, busy)| serde_json::json!({
                "unit": name, "jobs": jobs, "busy_cycles": busy,
                "utilisation": *busy as f64 / npu.cycles.max(1) as f64,
            })).collect::<Vec<_>>(),
            "kernels": npu.kernels.iter().map(|k| serde_json::json!({
                "kernel": k.label, "cycles": k.kernel.cycles, "span_cycles": k.kernel.end - k.kernel.start,
                "roofline_cycles": k.roofline_cycles,
                "macs_issued": k.kernel.macs, "ddr_bytes": k.kernel.ddr_bytes,
            })).collect::<Vec<_>>(),
            "cu_alone_cycles": cu.cycles,
            "speedup_over_cu_alone": speedup,
            "variants": variants.iter().map(|(target, what, r)| serde_json::json!({
                "target": target, "what": what, "cycles": r.cycles, "roofline_cycles": r.roofline_cycles,
                "cycles_over_roofline": ratio(r), "ddr_bytes": r.ddr_bytes,
            })).collect::<Vec<_>>(),
            "vela_ethos_u55_128_cycles": vela,
            "cpu_pool": serde_json::json!({
                "pools": CPU_POOL, "cycles": pooled.cycles, "cycles_over_roofline": ratio(&pooled),
                "what": "the control unit's own buffers (no NPU kernel reads or writes them) in its DMEM, 1 cycle a load instead of 16",
            }),
            "dm_sizes": dm_sizes.iter().map(|(kib, r)| serde_json::json!({
                "dm_kib": kib, "cycles": r.cycles, "cycles_over_roofline": ratio(r), "ddr_bytes": r.ddr_bytes,
            })).collect::<Vec<_>>(),
        }));
        let sizes: Vec<String> = dm_sizes.iter().map(|(kib, r)| format!("{kib} KiB {}", r.cycles)).collect();
        println!("{model:<5} smaller DM: {}; CU buffers in DMEM: {}", sizes.join(", "), pooled.cycles);
    }
    let report = serde_json::json!({
        "what": "MLPerf Tiny on the tynnp simulator (default parameters: 16x16 NU, 4 VUs, 256 KiB DM, 16 B/cycle DDR, 64 cycles latency), first reference input, outputs equal to TFLite Micro's; the same model on the RV32IM control unit alone, in the variants' configurations and with smaller DMs (dm_sizes), in the same run",
        "stage": "one kernel per composite (IC's residual adds with their rescales one vu.eltwise kernel; leading slices read in place); every kernel in tiles, written single-buffered by legalization and double-buffered by umac-double-buffer-tynnp: convolutions on the NU (kernel columns folded into input channels when few, a tall kernel's rows too: im2col from the input staged in DM; adjacent output pixels of a convolution with few output channels packed into the NU's columns, its filter packed so at compile time), depthwise convolutions, pooling and adds in tiles of bands over the vector units; each kernel's constants packed at compile time into one record, copied by one DMA on the output channel while the first tile comes in; a kernel's output read by the next kernel alone stays in DM, written and read there in place (no copies, no tile buffers), other outputs go back to DDR; a kernel copies the next kernels' records into DM where its output channel would idle (just before the first tile's copy in that waits for one of its jobs), the largest up to four kernels ahead across kernels reading their inputs in place, the copies' tokens in a mailbox in the control unit's DMEM (a static buffer of section .dmem); a kernel whose kept output the next reads in place hands its jobs on (tokens in a DM table) and the next kernel's tiles depend on the tiles writing what they read, so the two run at once (such kernels run in 3 tiles); a kernel's cycles are its share of the run after the kernel before's, span_cycles from its call to its last job; what stays in DM and every region are planned per function (umac-plan-memory's algorithm, by lifetime) and attached as tynnp.schedule by umac-schedule-tynnp; int8 and int16 table lookups on the vector units when that costs less than on the control unit (patterns::table_pays), sibling lookups reading one tensor in one function; a softmax's four int16 lookups with the shifts and adds joining them one int32 lookup on the control unit, tabulated at compile time before partitioning (umac-tabulate-lookups)",
        "vela": "Arm Vela estimates for Ethos-U55-128, another machine and compiler: for scale only",
        "contract_bound_cycles": "contract_bound_cycles: the largest of contract_units, each unit's fewest cycles under the contract's cost formulas (isa.md, section 5) for the work it did, as if every kernel gave it one job (the NU's fill, a vector unit's start-up, a DMA channel's latency paid once a kernel) and the DDR port moved each byte once each way; cu: the control unit's cycles not spent waiting for the NPU. No run of the same jobs takes fewer cycles",
        "macs": "macs: the model's multiply-accumulates (its source ops), which the roofline divides by the NU's rate; macs_issued: those the jobs did, the zero products of a filter packed for several output pixels included (a kernel's roofline_cycles counts these)",
        "rows": rows,
    });
    let path = root.join("bench/tynnp.json");
    std::fs::write(&path, serde_json::to_string_pretty(&report)? + "\n")?;
    println!("wrote {}", path.display());
    Ok(())
}

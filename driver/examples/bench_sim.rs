//! Simulator benchmark (`scripts/bench sim`): every MLPerf Tiny model compiled for RV32IM by the
//! release `umac`, linked into the RISC-V test harness (five reference cases), and run both
//! under `qemu-system-riscv32 -icount shift=0` (the baseline, in the same run) and on umac's
//! simulator. Both must print the same bytes (outputs checked, instruction count of the first
//! case); the figures are wall-clock speeds in simulated instructions per second and their
//! ratio. Writes `bench/sim.json` and prints a table.

use std::{
    path::Path,
    process::Command,
    time::{Duration, Instant},
};
use umac_runtime::{
    firmware::{Case, Model, RISCV_VIRT_RV32IM, build, run},
    read_npy, testdata,
};
use umac_sim::{Exit, Machine, elf};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let models = testdata::dir("models/mlperf-tiny");
    let umac = root.join("target/release/umac");
    let work = std::env::temp_dir().join(format!("umac-bench-sim-{}", std::process::id()));
    let mut rows = Vec::new();
    println!(
        "{:<5} {:>12} {:>13} {:>9} {:>9} {:>10} {:>10} {:>6}",
        "model", "first case", "all 5 cases", "QEMU s", "sim s", "QEMU MIPS", "sim MIPS", "ratio"
    );
    for model in ["kws", "vww", "ic", "ad"] {
        let dir = models.join(model);
        let out = work.join(model);
        let status = Command::new(&umac)
            .arg("compile")
            .arg(dir.join("model.mlir"))
            .args(["--target=rv32im", "--name", model, "-o"])
            .arg(&out)
            .status()
            .map_err(|e| format!("{}: {e}", umac.display()))?;
        if !status.success() {
            return Err(format!("umac compile failed for {model}").into());
        }
        let metadata: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(out.join("metadata.json"))?)?;
        let npy = |name: String| read_npy(&dir.join(name)).map(|t| t.data);
        let cases = (0..5)
            .map(|i| {
                Ok(Case {
                    inputs: vec![npy(format!("ref/input_{i}.npy"))?],
                    expected: vec![npy(format!("ref/output_{i}.npy"))?],
                })
            })
            .collect::<Result<Vec<_>, umac_runtime::Error>>()?;
        let spec = Model {
            name: model,
            object: &out.join(format!("{model}.o")),
            header: &out.join(format!("{model}.h")),
            workspace_size: metadata["workspace"]["bytes"].as_u64().unwrap_or(0),
            output_bytes: cases[0].expected.iter().map(Vec::len).collect(),
            kernel_sources: Vec::new(),
            include_dirs: Vec::new(),
        };
        let program = build(RISCV_VIRT_RV32IM, &out, &spec, &cases)?;

        let started = Instant::now();
        let qemu = run(RISCV_VIRT_RV32IM, &program, Duration::from_secs(600))?;
        let qemu_seconds = started.elapsed().as_secs_f64();
        if qemu.status != Some(0) {
            return Err(format!("{model} under QEMU: {}", qemu.output).into());
        }

        let data = std::fs::read(&program)?;
        let mut machine = Machine::new();
        elf::load_executable(&mut machine, model, &data)?;
        let started = Instant::now();
        let exit = machine.run(u64::MAX).map_err(|e| format!("{model} on the simulator: {e}"))?;
        let sim_seconds = started.elapsed().as_secs_f64();
        let printed = String::from_utf8_lossy(&machine.output).into_owned();
        if exit != Exit::Exited(0) || printed != qemu.output {
            return Err(format!("{model}: the simulator printed\n{printed}\nQEMU printed\n{}", qemu.output).into());
        }
        let first: u64 = printed
            .lines()
            .find_map(|l| l.strip_prefix("instructions: "))
            .and_then(|n| n.trim().parse().ok())
            .ok_or("no instruction count printed")?;
        let total = machine.instret;
        let (qemu_mips, sim_mips) = (total as f64 / qemu_seconds / 1e6, total as f64 / sim_seconds / 1e6);
        println!(
            "{model:<5} {first:>12} {total:>13} {qemu_seconds:>9.2} {sim_seconds:>9.2} {qemu_mips:>10.1} {sim_mips:>10.1} {:>5.2}x",
            sim_mips / qemu_mips
        );
        rows.push(serde_json::json!({
            "model": model,
            "first_case_instructions": first,
            "program_instructions": total,
            "qemu_seconds": qemu_seconds,
            "simulator_seconds": sim_seconds,
            "qemu_mips": qemu_mips,
            "simulator_mips": sim_mips,
            "simulator_speed_vs_qemu": sim_mips / qemu_mips,
        }));
    }
    let _ = std::fs::remove_dir_all(&work);
    let report = serde_json::json!({
        "what": "umac's simulator running RV32IM firmware (the harness, five cases per model) against qemu-system-riscv32 -icount shift=0 on the same programs in the same run; both print the same bytes",
        "note": "wall-clock speeds vary between runs on a shared 2-core VM; instruction counts are exact",
        "rows": rows,
    });
    let path = root.join("bench/sim.json");
    std::fs::write(&path, serde_json::to_string_pretty(&report)? + "\n")?;
    println!("wrote {}", path.display());
    Ok(())
}

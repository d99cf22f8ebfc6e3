//! Ethos-U benchmark (`scripts/bench ethos-u`): each Vela-compiled model of `tests/vela/` (the
//! MLPerf Tiny models and conv_16x8 on all six configurations) timed by the device's
//! timing model beside Vela's own estimate (`vela_summary.csv`'s `cycles_total`), in total and
//! layer by layer (`vela_per-layer.csv`; a layer Vela splits into stripes is several kernels),
//! with the ratio; and the functional model's speed: the wall time of a whole inference (the
//! stream run on the machine, the model's first reference input in place), the median of 5.
//! Simulated cycles are exact; the wall times are this machine's. Writes `bench/ethos-u.json` and
//! prints a table.

#[path = "../tests/common/vela.rs"]
mod vela;

use std::path::Path;
use std::time::Instant;
use umac_ethos_u_device::EthosUOperator;

/// The median wall time, in milliseconds, of 5 inferences of the model in `dir` on its first
/// reference input.
fn inference_ms(dir: &Path, model: &str) -> Result<f64, Box<dyn std::error::Error>> {
    let bytes = std::fs::read(dir.join("model_vela.tflite"))?;
    let listed = umac_frontend::tflite::operators(&bytes)?;
    let index = listed.iter().find(|op| op.kind == "ethos-u").ok_or("no ethos-u operator")?.index;
    let operator = EthosUOperator::read(&bytes, index)?;
    let input = umac_runtime::read_npy(&vela::reference_dir(model).join("input_0.npy"))?;
    let mut times = Vec::new();
    for _ in 0..5 {
        let start = Instant::now();
        let mut machine = operator.machine();
        operator.run(&mut machine, &[&input.data])?;
        times.push(start.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_by(f64::total_cmp);
    Ok(times[2])
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut rows = Vec::new();
    println!("{:<20} {:>9} {:>9} {:>6} {:>9}", "model", "cycles", "Vela", "ratio", "wall ms");
    for name in vela::all() {
        let model = name.split('-').next().unwrap_or(&name);
        let dir = root.join("tests/vela").join(&name);
        let timing = vela::timing(&dir);
        let total = vela::total(&dir);
        let layers = vela::layers(&dir);
        let wall = inference_ms(&dir, model)?;
        let ratio = timing.cycles as f64 / total as f64;
        println!("{name:<20} {:>9} {total:>9} {ratio:>6.3} {wall:>9.2}", timing.cycles);
        let per_layer: Vec<_> = vela::grouped(&timing, &layers)
            .map(|groups| {
                layers
                    .iter()
                    .zip(groups)
                    .map(|(layer, group)| {
                        let cycles: u64 = group.iter().map(|o| o.cycles).sum();
                        serde_json::json!({
                            "vela_operator": layer.operator,
                            "offsets": group.iter().map(|o| format!("{:#08x}", o.offset)).collect::<Vec<_>>(),
                            "operations": group.iter().map(|o| o.what.clone()).collect::<Vec<_>>(),
                            "macs": layer.macs,
                            "cycles": cycles,
                            "vela_cycles": layer.cycles,
                            "ratio": cycles as f64 / layer.cycles as f64,
                        })
                    })
                    .collect()
            })
            .unwrap_or_default();
        rows.push(serde_json::json!({
            "model": name,
            "cycles": timing.cycles,
            "vela_cycles_total": total,
            "ratio": ratio,
            "inference_wall_ms": wall,
            "layers": per_layer,
        }));
    }
    let report = serde_json::json!({
        "what": "The Ethos-U device's timing model (targets/ethos-u/device/src/timing.rs, targets/ethos-u/docs/timing.md) on Vela 5.2.0's streams, in Vela's default system for the configuration, against Vela's own estimate (cycles_total; per layer, Op Cycles): cycles are the stream's (kernels and DMA on a timeline the waits allow); a layer's cycles are its kernels' own, without waiting for DMA. inference_wall_ms: the functional model running the whole stream once, median of 5, release build on this machine",
        "rows": rows,
    });
    let path = root.join("../../../bench/ethos-u.json");
    std::fs::write(&path, serde_json::to_string_pretty(&report)? + "\n")?;
    println!("wrote {}", path.display());
    Ok(())
}

//! `docs/performance.md`: the tables of `bench/*.json` (what `scripts/bench firmware|host|sim|tynnp`
//! wrote), with the ratios against the baselines recorded beside them.

use super::{Region, read, region, table, thousands};
use serde_json::Value;

/// A bench file, parsed.
struct Bench {
    path: String,
    json: Value,
}

impl Bench {
    fn load(name: &str) -> Bench {
        let path = format!("bench/{name}.json");
        let json = serde_json::from_str(&read(&path)).unwrap_or_else(|e| panic!("{path}: {e}"));
        Bench { path, json }
    }

    fn rows(&self) -> &Vec<Value> {
        self.json["rows"].as_array().unwrap_or_else(|| panic!("{}: no 'rows' array", self.path))
    }

    /// `value[key]`, which must be there.
    fn at<'v>(&self, value: &'v Value, key: &str) -> &'v Value {
        match value.get(key) {
            Some(v) if !v.is_null() => v,
            _ => panic!("{}: an entry has no '{key}': {}", self.path, abbreviated(value)),
        }
    }

    fn u(&self, value: &Value, key: &str) -> u64 {
        self.at(value, key).as_u64().unwrap_or_else(|| panic!("{}: '{key}' is not a count", self.path))
    }

    fn f(&self, value: &Value, key: &str) -> f64 {
        self.at(value, key).as_f64().unwrap_or_else(|| panic!("{}: '{key}' is not a number", self.path))
    }

    fn s<'v>(&self, value: &'v Value, key: &str) -> &'v str {
        self.at(value, key).as_str().unwrap_or_else(|| panic!("{}: '{key}' is not text", self.path))
    }

    /// `what` (and the other top-level descriptions) as the file words them.
    fn description(&self, keys: &[&str]) -> String {
        let lines: Vec<String> = keys
            .iter()
            .filter_map(|&k| {
                let text = self.json.get(k).and_then(Value::as_str)?;
                let named = k == "what" || text.starts_with(&format!("{k}:"));
                Some(if named { format!("- {text}") } else { format!("- {k}: {text}") })
            })
            .collect();
        format!("From `{}`:\n\n{}\n\n", self.path, lines.join("\n"))
    }
}

fn abbreviated(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 120 { format!("{}...", text.chars().take(120).collect::<String>()) } else { text }
}

fn ratio(x: f64) -> String {
    format!("{x:.2}×")
}

fn kib(bytes: u64) -> String {
    format!("{:.1}", bytes as f64 / 1024.0)
}

fn percent(x: f64) -> String {
    format!("{:.0}%", x * 100.0)
}

/// Microseconds: whole above 100, one decimal below.
fn micros(us: f64) -> String {
    if us >= 100.0 { thousands(us.round() as u64) } else { format!("{us:.1}") }
}

fn geomean(values: &[f64]) -> f64 {
    (values.iter().map(|v| v.ln()).sum::<f64>() / values.len().max(1) as f64).exp()
}

pub fn regions() -> Vec<Region> {
    let firmware = Bench::load("firmware");
    let host = Bench::load("host");
    let sim = Bench::load("sim");
    let tynnp = Bench::load("tynnp");
    vec![
        region("firmware", firmware_table(&firmware)),
        region("firmware-profile", firmware_profile(&firmware)),
        region("host", host_tables(&host)),
        region("sim", sim_table(&sim)),
        region("tynnp", tynnp_table(&tynnp)),
        region("tynnp-variants", tynnp_variants(&tynnp)),
        region("tynnp-units", tynnp_units(&tynnp)),
        region("tynnp-kernels", tynnp_kernels(&tynnp)),
    ]
}

fn firmware_table(b: &Bench) -> String {
    let mut out = b.description(&["what", "reference"]);
    let rows: Vec<Vec<String>> = b
        .rows()
        .iter()
        .map(|r| {
            let (ours, theirs) = (b.u(r, "instructions_per_inference"), b.u(r, "tflm_cmsis_nn_instructions"));
            let (workspace, arena) = (b.u(r, "workspace_bytes"), b.u(r, "tflm_activation_arena_bytes"));
            vec![
                b.s(r, "model").to_string(),
                format!("`{}`", b.s(r, "target")),
                thousands(ours),
                thousands(theirs),
                ratio(ours as f64 / theirs as f64),
                kib(b.u(r, "text_bytes")),
                kib(b.u(r, "rodata_bytes")),
                thousands(workspace),
                thousands(b.u(r, "liveness_lower_bound_bytes")),
                thousands(arena),
                ratio(workspace as f64 / arena as f64),
                format!("{:.2}", b.f(r, "compile_seconds")),
            ]
        })
        .collect();
    out.push_str(&table(
        &[
            "model",
            "target",
            ">instructions / inference",
            ">TFLM + CMSIS-NN",
            ">vs TFLM",
            ">.text KiB",
            ">.rodata KiB",
            ">workspace B",
            ">liveness bound B",
            ">TFLM activation arena B",
            ">vs arena",
            ">compile s",
        ],
        &rows,
    ));
    // Per target: the geometric mean of the instruction ratios.
    let mut targets: Vec<&str> = Vec::new();
    for r in b.rows() {
        let target = b.s(r, "target");
        if !targets.contains(&target) {
            targets.push(target);
        }
    }
    let summary: Vec<Vec<String>> = targets
        .iter()
        .map(|target| {
            let ratios: Vec<f64> = b
                .rows()
                .iter()
                .filter(|r| b.s(r, "target") == *target)
                .map(|r| b.u(r, "instructions_per_inference") as f64 / b.u(r, "tflm_cmsis_nn_instructions") as f64)
                .collect();
            let (low, high) = ratios.iter().fold((f64::MAX, f64::MIN), |(l, h), &x| (l.min(x), h.max(x)));
            vec![
                format!("`{target}`"),
                ratios.len().to_string(),
                ratio(geomean(&ratios)),
                format!("{} – {}", ratio(low), ratio(high)),
            ]
        })
        .collect();
    out.push_str("\nInstructions against TFLite Micro + CMSIS-NN, per target (below 1: umac executes fewer):\n\n");
    out.push_str(&table(&["target", ">models", ">geometric mean", ">range"], &summary));
    out
}

fn firmware_profile(b: &Bench) -> String {
    let rows: Vec<Vec<String>> = b
        .rows()
        .iter()
        .map(|r| {
            let kinds = b.at(r, "profile_by_kind").as_array().map_or(&[][..], Vec::as_slice);
            let shown: Vec<String> = kinds
                .iter()
                .filter(|k| b.f(k, "share") >= 0.01)
                .map(|k| format!("{} {}", b.s(k, "kind"), percent(b.f(k, "share"))))
                .collect();
            vec![b.s(r, "model").to_string(), format!("`{}`", b.s(r, "target")), shown.join(", ")]
        })
        .collect();
    table(&["model", "target", "instructions by kind of operator function (1% or more)"], &rows)
}

/// The MLPerf Tiny models, in the order the benchmarks run them.
const MODELS: [&str; 4] = ["kws", "vww", "ic", "ad"];

/// The peers of `bench/host.json`, with how the tables name them.
const PEERS: [(&str, &str); 5] = [
    ("umac-cranelift", "umac Cranelift"),
    ("umac-llvm", "umac LLVM"),
    ("iree", "IREE"),
    ("litert", "LiteRT"),
    ("tflm", "TFLM interpreter"),
];

fn host_tables(b: &Bench) -> String {
    let models = b.at(&b.json, "models").as_object().unwrap_or_else(|| panic!("{}: 'models' is not an object", b.path));
    let runs = b.u(&b.json, "runs");
    let value = |m: &Value, peer: &str, key: &str| m.get(peer).and_then(|p| p.get(key)).and_then(Value::as_f64);
    let cell = |v: Option<f64>, show: &dyn Fn(f64) -> String| v.map_or_else(|| "—".to_string(), show);
    let vs = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => ratio(a / b),
        _ => "—".to_string(),
    };
    let mut run_rows = Vec::new();
    let mut compile_rows = Vec::new();
    let mut inexact = Vec::new();
    // In the order the other benchmarks list the models.
    let mut ordered: Vec<(&String, &Value)> = models.iter().collect();
    ordered.sort_by_key(|(name, _)| (MODELS.iter().position(|m| m == name).unwrap_or(MODELS.len()), name.as_str()));
    for (model, m) in ordered {
        let run = |peer: &str| value(m, peer, "run_us");
        let compile = |peer: &str| value(m, peer, "compile_s");
        let mut row = vec![model.clone()];
        row.extend(PEERS.iter().map(|(peer, _)| cell(run(peer), &micros)));
        row.push(vs(run("umac-llvm"), run("iree")));
        row.push(vs(run("umac-llvm"), run("litert")));
        row.push(vs(run("umac-llvm"), run("tflm")));
        run_rows.push(row);
        let seconds = |s: f64| format!("{s:.2}");
        compile_rows.push(vec![
            model.clone(),
            cell(compile("umac-cranelift"), &seconds),
            cell(compile("umac-llvm"), &seconds),
            cell(compile("iree"), &seconds),
            vs(compile("umac-llvm"), compile("iree")),
            vs(compile("umac-cranelift"), compile("umac-llvm")),
        ]);
        for (peer, name) in PEERS {
            match m.get(peer) {
                Some(p) if p.get("error").is_some() => inexact.push(format!("{model}: {name} failed: {}", p["error"])),
                Some(p) if p.get("bit_exact").and_then(Value::as_bool) != Some(true) => {
                    inexact.push(format!("{model}: {name} is not bit-exact"))
                }
                Some(_) => {}
                None => inexact.push(format!("{model}: {name} was not measured")),
            }
        }
    }
    let mut header: Vec<String> = vec!["model".into()];
    header.extend(PEERS.iter().map(|(_, name)| format!(">{name}")));
    header.extend([">LLVM vs IREE".into(), ">LLVM vs LiteRT".into(), ">LLVM vs TFLM".into()]);
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut out =
        format!("Run time, µs per inference (median of {runs} runs after warm-up; below 1×: umac is faster):\n\n");
    out.push_str(&table(&header, &run_rows));
    out.push_str("\nCompile time, seconds (TOSA to runnable code; LiteRT and TFLM interpret the .tflite file):\n\n");
    out.push_str(&table(
        &["model", ">umac Cranelift", ">umac LLVM", ">IREE", ">LLVM vs IREE", ">Cranelift vs LLVM"],
        &compile_rows,
    ));
    if inexact.is_empty() {
        out.push_str("\nEvery engine's output was bit-exact with TFLite Micro's reference output.\n");
    } else {
        out.push_str(&format!("\nNot bit-exact or not measured: {}.\n", inexact.join("; ")));
    }
    out
}

fn sim_table(b: &Bench) -> String {
    let mut out = b.description(&["what", "note"]);
    let rows: Vec<Vec<String>> = b
        .rows()
        .iter()
        .map(|r| {
            vec![
                b.s(r, "model").to_string(),
                thousands(b.u(r, "program_instructions")),
                format!("{:.2}", b.f(r, "simulator_seconds")),
                format!("{:.0}", b.f(r, "simulator_mips")),
                format!("{:.2}", b.f(r, "qemu_seconds")),
                thousands(b.f(r, "qemu_mips").round() as u64),
                ratio(b.f(r, "simulator_speed_vs_qemu")),
            ]
        })
        .collect();
    out.push_str(&table(
        &[
            "model",
            ">instructions (5 cases)",
            ">umac-sim s",
            ">umac-sim MIPS",
            ">QEMU s",
            ">QEMU MIPS",
            ">speed vs QEMU",
        ],
        &rows,
    ));
    out
}

/// How `bench/tynnp.json` describes the variant configured near Ethos-U55-128.
const NEAR_U55: &str = "near Ethos-U55-128";

fn tynnp_table(b: &Bench) -> String {
    let mut out = b.description(&["what", "macs", "contract_bound_cycles", "vela"]);
    let rows: Vec<Vec<String>> = b
        .rows()
        .iter()
        .map(|r| {
            let cycles = b.u(r, "cycles");
            let pool = b.at(r, "cpu_pool");
            let nu = b
                .at(r, "units")
                .as_array()
                .and_then(|units| units.iter().find(|u| u.get("unit").and_then(Value::as_str) == Some("nu")))
                .map_or_else(|| "—".to_string(), |u| percent(b.f(u, "utilisation")));
            let vela = b.u(r, "vela_ethos_u55_128_cycles");
            // The variant configured near Ethos-U55-128, the machine Vela's estimate is for.
            let near = b.at(r, "variants").as_array().and_then(|vs| {
                vs.iter().find(|v| v.get("what").and_then(Value::as_str).is_some_and(|w| w.starts_with(NEAR_U55)))
            });
            let near = near.map(|v| b.u(v, "cycles"));
            vec![
                b.s(r, "model").to_string(),
                thousands(b.u(r, "macs")),
                thousands(cycles),
                thousands(b.u(r, "roofline_cycles")),
                ratio(b.f(r, "cycles_over_roofline")),
                thousands(b.u(r, "contract_bound_cycles")),
                ratio(b.f(r, "cycles_over_contract_bound")),
                format!("{} ({})", thousands(b.u(pool, "cycles")), ratio(b.f(pool, "cycles_over_roofline"))),
                thousands(b.u(r, "ddr_bytes")),
                nu,
                thousands(b.u(r, "cu_alone_cycles")),
                format!("{:.0}×", b.f(r, "speedup_over_cu_alone")),
                thousands(vela),
                ratio(cycles as f64 / vela as f64),
                near.map_or_else(
                    || "—".to_string(),
                    |n| format!("{} ({})", thousands(n), ratio(n as f64 / vela as f64)),
                ),
            ]
        })
        .collect();
    out.push_str(&table(
        &[
            "model",
            ">MACs",
            ">cycles",
            ">roofline",
            ">vs roofline",
            ">contract bound",
            ">vs contract bound",
            ">with a `:cpu` pool in DMEM",
            ">DDR bytes",
            ">NU busy",
            ">control unit alone",
            ">speed-up",
            ">Vela, Ethos-U55-128",
            ">vs Vela",
            ">near-U55 preset (vs Vela)",
        ],
        &rows,
    ));
    let pools: Vec<&str> = b.rows().iter().map(|r| b.s(b.at(r, "cpu_pool"), "pools")).collect();
    if let Some(first) = pools.first().filter(|p| pools.iter().all(|q| q == *p)) {
        out.push_str(&format!("\nThe `:cpu` pool column: `--pool` {first}.\n"));
    }
    if let Some(stage) = b.json.get("stage").and_then(Value::as_str) {
        out.push_str(&format!(
            "\n<details><summary>What the compiler did in this run</summary>\n\n{stage}.\n\n</details>\n"
        ));
    }
    out
}

/// Each variant's cycles per model, against the default configuration's.
fn tynnp_variants(b: &Bench) -> String {
    let models: Vec<&str> = b.rows().iter().map(|r| b.s(r, "model")).collect();
    let mut variants: Vec<(String, String)> = Vec::new();
    for r in b.rows() {
        for v in b.at(r, "variants").as_array().map_or(&[][..], Vec::as_slice) {
            let key = (b.s(v, "target").to_string(), b.s(v, "what").to_string());
            if !variants.contains(&key) {
                variants.push(key);
            }
        }
    }
    // A variant's cycles and their ratio to the default run `r`'s, or a dash where it was not run.
    let cycles_against = |variant: Option<&Value>, r: &Value| {
        variant.map_or_else(
            || "—".to_string(),
            |v| {
                format!(
                    "{} ({})",
                    thousands(b.u(v, "cycles")),
                    ratio(b.u(v, "cycles") as f64 / b.u(r, "cycles") as f64)
                )
            },
        )
    };
    let mut rows = Vec::new();
    for (target, what) in &variants {
        let mut row = vec![format!("`{target}`"), what.clone()];
        for r in b.rows() {
            let found = b
                .at(r, "variants")
                .as_array()
                .and_then(|vs| vs.iter().find(|v| v.get("target").and_then(Value::as_str) == Some(target.as_str())));
            row.push(cycles_against(found, r));
        }
        rows.push(row);
    }
    let mut dm_sizes: Vec<u64> = b
        .rows()
        .iter()
        .flat_map(|r| b.at(r, "dm_sizes").as_array().into_iter().flatten().map(|d| b.u(d, "dm_kib")))
        .collect();
    dm_sizes.sort();
    dm_sizes.dedup();
    for kib in dm_sizes {
        let mut row = vec![format!("`tynnp -dm-kib={kib}`"), format!("{kib} KiB of DM")];
        for r in b.rows() {
            let found = b
                .at(r, "dm_sizes")
                .as_array()
                .and_then(|ds| ds.iter().find(|d| d.get("dm_kib").and_then(Value::as_u64) == Some(kib)));
            row.push(cycles_against(found, r));
        }
        rows.push(row);
    }
    let mut header = vec!["target", "what changes"];
    let shown: Vec<String> = models.iter().map(|m| format!(">{m}")).collect();
    header.extend(shown.iter().map(String::as_str));
    format!(
        "Cycles, and against the default configuration's (above 1×: slower without what the variant turns off):\n\n{}",
        table(&header, &rows)
    )
}

fn tynnp_units(b: &Bench) -> String {
    let mut units: Vec<String> = Vec::new();
    for r in b.rows() {
        for u in b.at(r, "units").as_array().map_or(&[][..], Vec::as_slice) {
            let name = b.s(u, "unit").to_string();
            if !units.contains(&name) {
                units.push(name);
            }
        }
    }
    let rows: Vec<Vec<String>> =
        b.rows()
            .iter()
            .map(|r| {
                let mut row = vec![b.s(r, "model").to_string()];
                for unit in &units {
                    let found = b.at(r, "units").as_array().and_then(|us| {
                        us.iter().find(|u| u.get("unit").and_then(Value::as_str) == Some(unit.as_str()))
                    });
                    row.push(found.map_or_else(
                        || "—".to_string(),
                        |u| format!("{} ({} jobs)", percent(b.f(u, "utilisation")), b.u(u, "jobs")),
                    ));
                }
                row
            })
            .collect();
    let mut header = vec!["model"];
    let shown: Vec<String> = units.iter().map(|u| format!(">{u}")).collect();
    header.extend(shown.iter().map(String::as_str));
    format!("Busy cycles over the run, per unit (and jobs):\n\n{}", table(&header, &rows))
}

fn tynnp_kernels(b: &Bench) -> String {
    let mut out = String::new();
    for r in b.rows() {
        let kernels = b.at(r, "kernels").as_array().map_or(&[][..], Vec::as_slice);
        let rows: Vec<Vec<String>> = kernels
            .iter()
            .map(|k| {
                vec![
                    format!("`{}`", b.s(k, "kernel")),
                    thousands(b.u(k, "cycles")),
                    thousands(b.u(k, "span_cycles")),
                    thousands(b.u(k, "roofline_cycles")),
                    match b.u(k, "roofline_cycles") {
                        0 => "—".to_string(),
                        roofline => ratio(b.u(k, "cycles") as f64 / roofline as f64),
                    },
                    thousands(b.u(k, "ddr_bytes")),
                    thousands(b.u(k, "macs_issued")),
                ]
            })
            .collect();
        out.push_str(&format!("<details><summary>{}: {} kernels</summary>\n\n", b.s(r, "model"), kernels.len()));
        out.push_str(&table(
            &["kernel", ">cycles", ">span", ">roofline", ">vs roofline", ">DDR bytes", ">MACs issued"],
            &rows,
        ));
        out.push_str("\n</details>\n\n");
    }
    out.trim_end().to_string()
}

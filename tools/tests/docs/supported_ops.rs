//! `docs/supported-ops.md`: the TOSA operators (`umac_lowering::supported_ops::TOSA_OPS`, which
//! must name exactly the conformance set's operators and cover the test models'), each with the
//! type signatures of its conformance cases and, per CPU, whether one case of each signature
//! compiles as firmware (compiled here); what each accelerator's patterns claim, with their
//! conditions (from `Backend::patterns`); which CPUs take float models; the TFLite operators of
//! the `.tflite` test models; and the errors a user meets, as `umac` prints them.

use super::{Region, region, root, table};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use umac_backend::{Cpu, Pattern, TargetAttrs};
use umac_lowering::supported_ops::TOSA_OPS;

/// The CPUs every signature is compiled for: one of each kind of lowering (Helium, DSP, neither
/// and no FPU, RISC-V).
const COMPILED_FOR: [&str; 4] = ["cortex-m55", "cortex-m4", "cortex-m0plus", "rv32im"];

/// The float case compiled for every CPU: whether the CPU takes float models.
const FLOAT_CASE: &str = "add/add_6_f32";

/// The integer case compiled for every CPU: an int8 convolution.
const INT_CASE: &str = "conv2d/conv2d_3x3_1x7x7x3_i8xi8_acci32_st22_pad1111_dilat22_lclbnd0";

/// One conformance case.
struct Case {
    op: String,
    dir: PathBuf,
    /// `i8 → i32`: the element types of its arguments (each once, in order) and results.
    signature: String,
}

fn conformance() -> PathBuf {
    umac_runtime::testdata::dir("tosa-conformance")
}

/// Every conformance case, sorted by folder.
fn cases() -> Vec<Case> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(conformance())
        .into_iter()
        .flatten()
        .flatten()
        .flat_map(|op| std::fs::read_dir(op.path()).into_iter().flatten().flatten().map(|c| c.path()))
        .filter(|case| case.join("desc.json").is_file())
        .collect();
    dirs.sort();
    dirs.into_iter()
        .map(|dir| {
            let desc: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("desc.json")).unwrap_or_default())
                .unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
            let elements = |key: &str| {
                let mut out: Vec<String> = Vec::new();
                for t in desc[key].as_array().unwrap_or_else(|| panic!("{}: no {key}", dir.display())) {
                    let element = element_type(t["mlir_type"].as_str().unwrap_or_default());
                    if !out.contains(&element) {
                        out.push(element);
                    }
                }
                out.join(", ")
            };
            let signature = format!("{} → {}", elements("inputs"), elements("outputs"));
            let op = format!("tosa.{}", desc["op"].as_str().unwrap_or_else(|| panic!("{}: no op", dir.display())));
            Case { op, dir, signature }
        })
        .collect()
}

/// `tensor<1x7x7x3xi8>` → `i8`.
fn element_type(tensor: &str) -> String {
    let inner = tensor.trim_start_matches("tensor<").trim_end_matches('>');
    inner.rsplit('x').next().unwrap_or(inner).to_string()
}

/// A compile of `case` for `cpu` as `umac compile` compiles it: `Err` holds the message.
fn compile(case: &Path, cpu: Cpu) -> Result<(), String> {
    use umac_dialects::{ContextOptions, attach_handler, source::parse_module};
    let bytes = std::fs::read(case.join("test.mlir")).map_err(|e| e.to_string())?;
    let context = umac_driver::create_context(ContextOptions { allow_unregistered_dialects: false, threading: false });
    let messages = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let sink = messages.clone();
    attach_handler(&context, move |d| {
        if let Ok(mut v) = sink.lock() {
            v.push(d.message.clone());
        }
        true
    });
    let mut module = parse_module(&context, "test.mlir", &bytes).ok_or("does not parse")?;
    let options = umac_driver::firmware::FirmwareOptions {
        name: "model".into(),
        optimize_for_size: false,
        shapes: None,
        max_workspace: None,
        max_flash: None,
        source: "test.mlir".into(),
        source_sha256: None,
        profile_hooks: false,
        pools: vec![],
        emit_c: false,
        shared_with: vec![],
        accelerators: Default::default(),
        observe: Default::default(),
        constants_section: None,
    };
    umac_driver::firmware::compile(&context, &mut module, "main", cpu, &options).map(|_| ()).map_err(|e| {
        let diagnostics = messages.lock().map(|v| v.join("; ")).unwrap_or_default();
        format!("{e} {diagnostics}")
    })
}

/// Runs `jobs` on every core; the results in order.
fn parallel<T: Send>(jobs: Vec<Box<dyn Fn() -> T + Send + Sync + '_>>) -> Vec<T> {
    let next = AtomicUsize::new(0);
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get()).min(8);
    let mut results: Vec<(usize, T)> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(job) = jobs.get(i) else { break };
                        done.push((i, job()));
                    }
                    done
                })
            })
            .collect();
        workers.into_iter().flat_map(|w| w.join().unwrap_or_else(|_| panic!("a compile panicked"))).collect()
    });
    results.sort_by_key(|(i, _)| *i);
    results.into_iter().map(|(_, r)| r).collect()
}

pub fn regions() -> Vec<Region> {
    umac_driver::register_targets();
    let cases = cases();
    check_table(&cases);
    vec![
        region("cpus", cpus()),
        region("tosa-operators", tosa_operators(&cases)),
        region("accelerator-patterns", accelerator_patterns()),
        region("tflite-operators", tflite_operators()),
        region("tflm-operators", tflm_operators()),
        region("errors", errors()),
    ]
}

/// `TOSA_OPS` names exactly the conformance set's operators, and every TOSA operator of the test
/// models.
fn check_table(cases: &[Case]) {
    let listed: BTreeSet<&str> = TOSA_OPS.iter().map(|op| op.name).collect();
    let tested: BTreeSet<&str> = cases.iter().map(|c| c.op.as_str()).collect();
    let mut problems = Vec::new();
    for op in listed.difference(&tested) {
        problems.push(format!("{op} is listed but has no conformance case in test/tosa-conformance"));
    }
    for op in tested.difference(&listed) {
        problems.push(format!("{op} has conformance cases but is not listed"));
    }
    for (op, model) in model_ops() {
        if !listed.contains(op.as_str()) {
            problems.push(format!("{model} uses {op}, which is not listed"));
        }
    }
    assert!(problems.is_empty(), "lowering/src/supported_ops.rs (TOSA_OPS):\n{}", problems.join("\n"));
}

/// The TOSA ops of every `.mlir` test model (constants aside), each with a model using it.
fn model_ops() -> BTreeMap<String, String> {
    let mut found = BTreeMap::new();
    for path in files(&umac_runtime::testdata::dir("models"), "mlir") {
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        for (at, _) in text.match_indices("tosa.") {
            // An op, not a type (`!tosa.shape<4>`) or an attribute (`tosa.name = ...`).
            if text[..at].ends_with('!') {
                continue;
            }
            let rest = &text[at..];
            let name: String =
                rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '.').collect();
            let after = rest[name.len()..].trim_start_matches('"');
            if after.starts_with(" =") || matches!(name.as_str(), "tosa.const" | "tosa.const_shape") {
                continue;
            }
            let shown = path.strip_prefix(root()).unwrap_or(&path).display().to_string();
            found.entry(name).or_insert(shown);
        }
    }
    found
}

/// The files under `dir` whose extension is `ext`, sorted.
fn files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == ext) {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// Which CPUs take integer and float models: an int8 and a float case compiled for each.
fn cpus() -> String {
    let jobs: Vec<Box<dyn Fn() -> Result<(), String> + Send + Sync>> = umac_backend::CPUS
        .iter()
        .flat_map(|&cpu| [INT_CASE, FLOAT_CASE].map(|case| (cpu, conformance().join(case))))
        .map(|(cpu, case)| Box::new(move || compile(&case, cpu)) as Box<_>)
        .collect();
    let results = parallel(jobs);
    let shown = |result: &Result<(), String>, soft: bool| match result {
        Ok(()) if soft => "✓ (libgcc's soft-float helpers)".to_string(),
        Ok(()) => "✓".to_string(),
        Err(e) => match helpers(e) {
            Some(helpers) => format!("✗ (its code would call {helpers})"),
            None => format!("✗ ({})", e.trim()),
        },
    };
    let rows: Vec<Vec<String>> = umac_backend::CPUS
        .iter()
        .zip(results.chunks(2))
        .map(|(cpu, results)| {
            let mut row = vec![format!("`{}`", cpu.name), cpu.description.to_string()];
            row.push(shown(&results[0], false));
            row.push(shown(&results[1], !cpu.has_fpu()));
            row
        })
        .collect();
    format!(
        "Checked by compiling an int8 convolution (`test/tosa-conformance/{INT_CASE}`) and a float32 add \
         (`test/tosa-conformance/{FLOAT_CASE}`) for each CPU.\n\n{}",
        table(&["CPU", "what", "integer models", "float32 models"], &rows)
    )
}

/// The helper routines an error about undefined symbols names (`__addsf3`), in backticks.
fn helpers(message: &str) -> Option<String> {
    let rest = message.split("the generated code calls ").nth(1)?;
    let names = rest.split(", which").next()?;
    Some(names.split(", ").map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", "))
}

/// What each accelerator's patterns claim, by op: `conv2d` where the op is a composite's root,
/// `(in conv2d)` where it joins one.
fn claims(backend: &dyn umac_backend::Backend) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let prefix = format!("{}.", backend.name());
    for pattern in default_patterns(backend) {
        let short = pattern.name.strip_prefix(&prefix).unwrap_or(&pattern.name).to_string();
        let mut add = |op: Option<&str>, text: String| {
            if let Some(op) = op.filter(|op| op.starts_with("tosa.")) {
                let entry = out.entry(op.to_string()).or_default();
                if !entry.contains(&text) {
                    entry.push(text);
                }
            }
        };
        add(pattern.root().op_name(), short.clone());
        let members = pattern.input_chains().iter().flat_map(|(_, chain)| chain).chain(pattern.trailing_ops());
        for (op, _) in members {
            add(op.op_name(), format!("(in {short})"));
        }
    }
    out
}

fn default_patterns(backend: &dyn umac_backend::Backend) -> Vec<Pattern> {
    backend.patterns(&TargetAttrs::defaults(&backend.attributes()))
}

/// The TOSA table: per operator its signatures, its conformance cases, per compiled CPU which
/// signatures compile, and what each accelerator claims; then the notes.
fn tosa_operators(cases: &[Case]) -> String {
    // One case per (op, signature): the first.
    let mut representatives: BTreeMap<(&str, &str), &Case> = BTreeMap::new();
    for case in cases {
        representatives.entry((case.op.as_str(), case.signature.as_str())).or_insert(case);
    }
    let cpus: Vec<Cpu> =
        COMPILED_FOR.iter().map(|name| Cpu::find(name).unwrap_or_else(|| panic!("no CPU {name}"))).collect();
    let work: Vec<(&Case, Cpu)> =
        representatives.values().flat_map(|&case| cpus.iter().map(move |&cpu| (case, cpu))).collect();
    let jobs: Vec<Box<dyn Fn() -> bool + Send + Sync>> =
        work.iter().map(|&(case, cpu)| Box::new(move || compile(&case.dir, cpu).is_ok()) as Box<_>).collect();
    let compiled: Vec<bool> = parallel(jobs);
    let mut compiles: BTreeMap<(&str, &str, &str), bool> = BTreeMap::new();
    for ((case, cpu), ok) in work.iter().zip(compiled) {
        compiles.insert((case.op.as_str(), case.signature.as_str(), cpu.name), ok);
    }
    let backends = umac_backend::backends();
    let claimed: Vec<BTreeMap<String, Vec<String>>> = backends.iter().map(|b| claims(*b)).collect();
    let mut header: Vec<String> = vec!["operator".into(), "types (conformance cases)".into(), "host".into()];
    header.extend(COMPILED_FOR.iter().map(|c| format!("`{c}`")));
    header.extend(backends.iter().map(|b| format!("{} claims", b.name())));
    let mut rows = Vec::new();
    for op in TOSA_OPS {
        let mut signatures: Vec<(&str, bool)> =
            representatives.keys().filter(|(o, _)| *o == op.name).map(|(_, s)| (*s, s.contains('f'))).collect();
        signatures.sort_by_key(|(s, float)| (*float, *s));
        let counted = |s: &str| cases.iter().filter(|c| c.op == op.name && c.signature == s).count();
        let types: Vec<String> = signatures.iter().map(|(s, _)| format!("{s} ({})", counted(s))).collect();
        let mut row = vec![format!("`{}`", op.name), types.join("<br>"), "✓".to_string()];
        for cpu in COMPILED_FOR {
            let failing: Vec<String> = signatures
                .iter()
                .filter(|(s, _)| !compiles.get(&(op.name, *s, cpu)).copied().unwrap_or(false))
                .map(|(s, _)| format!("`{s}`"))
                .collect();
            row.push(match failing.len() {
                0 => "✓".to_string(),
                n if n == signatures.len() => "✗".to_string(),
                _ => format!("✓ but not {}", failing.join(", ")),
            });
        }
        for claims in &claimed {
            row.push(claims.get(op.name).map_or_else(String::new, |c| c.join(", ")));
        }
        rows.push(row);
    }
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut out = table(&header, &rows);
    out.push_str("\nWhat umac adds to MLIR 22's lowering of an operator:\n\n");
    for op in TOSA_OPS.iter().filter(|op| !op.note.is_empty()) {
        out.push_str(&format!("- `{}`: {}.\n", op.name, op.note));
    }
    out
}

/// Each accelerator's composite patterns with every condition, at the default attributes.
fn accelerator_patterns() -> String {
    let mut out = String::new();
    for backend in umac_backend::backends() {
        let attributes = TargetAttrs::defaults(&backend.attributes());
        let settings: Vec<String> = attributes.values().iter().map(|(k, v)| format!("-{k}={v}")).collect();
        out.push_str(&format!("### {}\n\n", backend.name()));
        if !settings.is_empty() {
            out.push_str(&format!("At the default attributes (`{}`).\n\n", settings.join(" ")));
        }
        let mut own = Vec::new();
        for pattern in default_patterns(*backend) {
            let plain = pattern.input_chains().is_empty()
                && pattern.trailing_ops().is_empty()
                && pattern.root().conditions().is_empty();
            if plain && pattern.root().op_name() == Some(pattern.name.as_str()) {
                own.push(format!("`{}`", pattern.name));
                continue;
            }
            out.push_str(&format!("`{}`:\n\n", pattern.name));
            let mut rows = Vec::new();
            let show = |op: &umac_backend::OpPattern| format!("`{}`", op.op_name().unwrap_or("any op"));
            let conditions = |op: &umac_backend::OpPattern| op.conditions().join("; ");
            for (index, chain) in pattern.input_chains() {
                for (op, optional) in chain {
                    let place = format!("{} producer of the root's operand #{index}", required(*optional));
                    rows.push(vec![show(op), place, conditions(op)]);
                }
            }
            rows.push(vec![show(pattern.root()), "root".to_string(), conditions(pattern.root())]);
            for (op, optional) in pattern.trailing_ops() {
                rows.push(vec![show(op), format!("{} user of the op before", required(*optional)), conditions(op)]);
            }
            out.push_str(&table(&["op", "in the composite", "conditions (each must hold)"], &rows));
            out.push('\n');
        }
        if !own.is_empty() {
            out.push_str(&format!(
                "Its dialect's primitive ops, already one job each, are claimed as they are: {}.\n\n",
                own.join(", ")
            ));
        }
    }
    out.trim_end().to_string()
}

fn required(optional: bool) -> &'static str {
    if optional { "optional" } else { "required" }
}

/// The TFLite operators of the `.tflite` test models: output types, and the models.
fn tflite_operators() -> String {
    let models = umac_runtime::testdata::dir("models");
    let mut seen: BTreeMap<String, (BTreeSet<&'static str>, Vec<String>)> = BTreeMap::new();
    // Models the reader must refuse show nothing it supports.
    for path in files(&models, "tflite").into_iter().filter(|p| !p.parent().is_some_and(|d| d.ends_with("invalid"))) {
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let operators =
            umac_tools::umac::tflite_operators(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let relative = path.strip_prefix(&models).unwrap_or(&path).with_extension("");
        let name = relative.display().to_string();
        let name = name.strip_suffix("/model").unwrap_or(&name).to_string();
        for operator in operators {
            let entry = seen.entry(operator.kind.clone()).or_default();
            entry.0.extend(operator.output_types.iter().copied());
            if !entry.1.contains(&name) {
                entry.1.push(name.clone());
            }
        }
    }
    let lstm = umac_dialects::umac::TFL_LSTM_OP.trim_start_matches("tfl.").to_ascii_uppercase();
    let rows: Vec<Vec<String>> = seen
        .iter()
        .map(|(kind, (types, models))| {
            let native = umac_frontend::tflite::SUPPORTED.iter().any(|(name, _)| name == kind);
            let how = match (native, *kind == lstm) {
                (true, true) => "umac (`umac-legalize-tfl-lstm`)".to_string(),
                (true, false) => "umac".to_string(),
                (false, _) => "tosa-converter-for-tflite (fallback)".to_string(),
            };
            // The single-operator suite's cases (one operator, or a few with state) are counted,
            // not listed.
            let suite = models.iter().filter(|m| m.starts_with("tflite-ops/")).count();
            let mut models: Vec<String> =
                models.iter().filter(|m| !m.starts_with("tflite-ops/")).map(|m| format!("`{m}`")).collect();
            if suite > 0 {
                models.push(format!("`tflite-ops` ({suite} cases)"));
            }
            let mut types: Vec<&str> = types.iter().copied().collect();
            // Integers before floats, narrow before wide.
            types.sort_by_key(|t| {
                (t.starts_with("FLOAT"), t.trim_start_matches(char::is_alphabetic).parse::<u32>().unwrap_or(0))
            });
            vec![format!("`{kind}`"), types.join(", ").to_ascii_lowercase(), how, models.join(", ")]
        })
        .collect();
    table(&["TFLite operator", "output types", "read by", "test models (`test/models/`)"], &rows)
}

/// The builtin operators TFLite Micro has kernels for (its `MicroMutableOpResolver`), as of
/// tflite-micro 2026.
const TFLM_OPERATORS: &[&str] = &[
    "ABS",
    "ADD",
    "ADD_N",
    "ARG_MAX",
    "ARG_MIN",
    "ASSIGN_VARIABLE",
    "AVERAGE_POOL_2D",
    "BATCH_MATMUL",
    "BATCH_TO_SPACE_ND",
    "BROADCAST_ARGS",
    "BROADCAST_TO",
    "CALL_ONCE",
    "CAST",
    "CEIL",
    "CONCATENATION",
    "CONV_2D",
    "COS",
    "CUMSUM",
    "DEPTHWISE_CONV_2D",
    "DEPTH_TO_SPACE",
    "DEQUANTIZE",
    "DIV",
    "ELU",
    "EMBEDDING_LOOKUP",
    "EQUAL",
    "EXP",
    "EXPAND_DIMS",
    "FILL",
    "FLOOR",
    "FLOOR_DIV",
    "FLOOR_MOD",
    "FULLY_CONNECTED",
    "GATHER",
    "GATHER_ND",
    "GREATER",
    "GREATER_EQUAL",
    "HARD_SWISH",
    "IF",
    "L2_NORMALIZATION",
    "L2_POOL_2D",
    "LEAKY_RELU",
    "LESS",
    "LESS_EQUAL",
    "LOG",
    "LOGICAL_AND",
    "LOGICAL_NOT",
    "LOGICAL_OR",
    "LOGISTIC",
    "LOG_SOFTMAX",
    "MAXIMUM",
    "MAX_POOL_2D",
    "MEAN",
    "MINIMUM",
    "MIRROR_PAD",
    "MUL",
    "NEG",
    "NOT_EQUAL",
    "PACK",
    "PAD",
    "PADV2",
    "PRELU",
    "QUANTIZE",
    "READ_VARIABLE",
    "REDUCE_MAX",
    "REDUCE_MIN",
    "RELU",
    "RELU6",
    "RESHAPE",
    "RESIZE_BILINEAR",
    "RESIZE_NEAREST_NEIGHBOR",
    "REVERSE_V2",
    "ROUND",
    "RSQRT",
    "SELECT_V2",
    "SHAPE",
    "SIN",
    "SLICE",
    "SOFTMAX",
    "SPACE_TO_BATCH_ND",
    "SPACE_TO_DEPTH",
    "SPLIT",
    "SPLIT_V",
    "SQRT",
    "SQUARE",
    "SQUARED_DIFFERENCE",
    "SQUEEZE",
    "STRIDED_SLICE",
    "SUB",
    "SUM",
    "SVDF",
    "TANH",
    "TRANSPOSE",
    "TRANSPOSE_CONV",
    "UNIDIRECTIONAL_SEQUENCE_LSTM",
    "UNPACK",
    "VAR_HANDLE",
    "WHILE",
    "ZEROS_LIKE",
];

/// Every builtin operator TFLite Micro has a kernel for, and how umac reads it.
fn tflm_operators() -> String {
    let rows: Vec<Vec<String>> = TFLM_OPERATORS
        .iter()
        .map(|kind| match umac_frontend::tflite::SUPPORTED.iter().find(|(name, _)| name == kind) {
            Some((_, types)) => vec![format!("`{kind}`"), format!("umac: {types}")],
            None => vec![
                format!("`{kind}`"),
                "not yet: tosa-converter-for-tflite when installed, else an error at the operator".to_string(),
            ],
        })
        .collect();
    table(&["TFLite Micro operator", "umac's reader"], &rows)
}

/// The errors of three compiles, as `umac` prints them.
fn errors() -> String {
    let dir = std::env::temp_dir().join(format!("umac-docs-errors-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let copy = |case: &str, to: &str| {
        std::fs::copy(conformance().join(case).join("test.mlir"), dir.join(to))
            .unwrap_or_else(|e| panic!("{case}: {e}"));
    };
    copy(INT_CASE, "dilated_conv.mlir");
    let custom = "func.func @main(%x: tensor<4xi8>) -> tensor<4xi8> {\n  %0 = tosa.custom %x {domain_name = \"acme\", \
                  implementation_attrs = \"\", operator_name = \"my_op\"} : (tensor<4xi8>) -> tensor<4xi8>\n  return \
                  %0 : tensor<4xi8>\n}\n";
    std::fs::write(dir.join("custom.mlir"), custom).unwrap_or_else(|e| panic!("{e}"));
    let pow = "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = tosa.pow %x, %x : (tensor<4xf32>, \
               tensor<4xf32>) -> tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n";
    std::fs::write(dir.join("pow.mlir"), pow).unwrap_or_else(|e| panic!("{e}"));
    let runs = [
        (
            "A float function firmware has no code for (`pow.mlir` holds one `tosa.pow`; umac computes `exp`, \
             `tanh`, `log`, `sin` and `cos` itself)",
            vec!["compile", "pow.mlir", "--target=cortex-m55", "-o", "out/"],
        ),
        (
            "An operator umac has no lowering for (`custom.mlir` holds one `tosa.custom`)",
            vec!["compile", "custom.mlir", "--target=cortex-m55", "-o", "out/"],
        ),
        (
            "An op an accelerator's pattern almost claimed (`--report`; the compile succeeds)",
            vec!["compile", "dilated_conv.mlir", "--target=vanilla,cortex-m55", "-o", "out/", "--report"],
        ),
    ];
    let mut out = String::new();
    for (what, args) in runs {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_umac"))
            .args(&args)
            .current_dir(&dir)
            .output()
            .unwrap_or_else(|e| panic!("umac does not start: {e}"));
        let code = output.status.code().unwrap_or(-1);
        let printed = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
        out.push_str(&format!("{what}:\n\n```text\n$ umac {}\n{}(exit code {code})\n```\n\n", args.join(" "), printed));
    }
    let _ = std::fs::remove_dir_all(&dir);
    out.trim_end().to_string()
}

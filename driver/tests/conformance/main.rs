//! The official TOSA conformance tests (`test/tosa-conformance`, made with Arm's tosa-tools
//! and reference model) pass on both host engines: integer results bit-exact, fp32 results by
//! the TOSA compliance rule each test names. Every run puts each buffer between guard pages
//! (`umac_driver::guarded`): no access outside the planned buffers, inputs never written.

mod compare;
mod simulator;
#[path = "../support/mod.rs"]
mod support;

use serde_json::Value;
use std::path::{Path, PathBuf};
use umac_dialects::{ContextOptions, Diag, attach_handler, source::parse_module};
use umac_driver::create_context;
use umac_driver::guarded::EDGES;
use umac_driver::host::{ENGINES, Engine, compile};
use umac_runtime::{Tensor, read_npy, testdata};

fn suite_dir() -> PathBuf {
    testdata::dir("tosa-conformance")
}

/// Every test folder (`<op>/<case>`) that holds a `desc.json`, sorted.
fn cases(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for op in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        for case in std::fs::read_dir(op.path()).into_iter().flatten().flatten() {
            if case.path().join("desc.json").is_file() {
                out.push(case.path());
            }
        }
    }
    out.sort();
    out
}

/// A case's desc.json and its inputs, in argument order.
fn load(case: &Path) -> Result<(Value, Vec<Tensor>), String> {
    let desc: Value = serde_json::from_slice(&std::fs::read(case.join("desc.json")).map_err(|e| e.to_string())?)
        .map_err(|e| e.to_string())?;
    let inputs: Vec<Tensor> = desc["inputs"]
        .as_array()
        .ok_or("desc.json has no inputs")?
        .iter()
        .map(|i| read_npy(&case.join(i["file"].as_str().unwrap_or_default())).map_err(|e| e.to_string()))
        .collect::<Result<_, _>>()?;
    Ok((desc, inputs))
}

/// Checks `outputs` against the case's expected results by each one's rule.
fn check_outputs(case: &Path, desc: &Value, outputs: &[Tensor]) -> Result<(), String> {
    let expected = desc["outputs"].as_array().ok_or("desc.json has no outputs")?;
    if outputs.len() != expected.len() {
        return Err(format!("{} outputs, expected {}", outputs.len(), expected.len()));
    }
    for (j, (output, expected)) in outputs.iter().zip(expected).enumerate() {
        let reference =
            read_npy(&case.join(expected["file"].as_str().unwrap_or_default())).map_err(|e| e.to_string())?;
        compare::check(output, &reference, &expected["compare"], case).map_err(|e| format!("output {j}: {e}"))?;
    }
    Ok(())
}

/// Which file of a case is run: the MLIR that tosa-tools' `tosa-opt --tosa-deserialize` made, or
/// the TOSA flatbuffer itself, read by umac's reader (`umac_frontend::tosa`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Mlir,
    Flatbuffer,
}

/// Runs one case on one engine and checks it; returns the outputs, or why it failed.
pub fn run_case(case: &Path, engine: Engine) -> Result<Vec<Tensor>, String> {
    run_case_from(case, engine, Source::Mlir)
}

/// Runs one case from `source` on one engine and checks it.
pub fn run_case_from(case: &Path, engine: Engine, source: Source) -> Result<Vec<Tensor>, String> {
    let (desc, inputs) = load(case)?;
    let (path, bytes) = match source {
        Source::Mlir => {
            let path = case.join("test.mlir");
            let bytes = std::fs::read(&path).map_err(|e| e.to_string())?;
            (path, bytes)
        }
        Source::Flatbuffer => {
            let path = case.join("test.tosa");
            let raw = std::fs::read(&path).map_err(|e| e.to_string())?;
            let text = umac_frontend::tosa::to_mlir(&raw, &path.display().to_string()).map_err(|e| e.to_string())?;
            (path, text.into_bytes())
        }
    };
    let context = create_context(ContextOptions { allow_unregistered_dialects: false, threading: false });
    let diagnostics = std::sync::Arc::new(std::sync::Mutex::new(Vec::<Diag>::new()));
    let sink = diagnostics.clone();
    attach_handler(&context, move |d| {
        if let Ok(mut v) = sink.lock() {
            v.push(d.clone());
        }
        true
    });
    let shown = path.display().to_string();
    let messages = || {
        diagnostics
            .lock()
            .map(|v| v.iter().map(|d| d.message.clone()).collect::<Vec<_>>().join("; "))
            .unwrap_or_default()
    };
    let mut module = parse_module(&context, &shown, &bytes).ok_or_else(|| format!("parse: {}", messages()))?;
    let program = compile(&context, &mut module, "main", &inputs, engine, Default::default())
        .map_err(|e| format!("{e}: {}", messages()))?;
    // Every buffer between guard pages, against the page after it and then against the page
    // before: an access outside the planned buffers or a write to an input kills the test.
    let mut outputs = Vec::new();
    for edge in EDGES {
        outputs = program.run_guarded(&inputs, edge).map_err(|e| e.to_string())?;
        check_outputs(case, &desc, &outputs).map_err(|e| format!("{e} ({edge:?} guard)"))?;
    }
    Ok(outputs)
}

#[test]
fn tosa_conformance_on_both_engines_which_agree() {
    let dir = suite_dir();
    let cases = cases(&dir);
    assert!(cases.len() >= 236, "expected the 236 conformance tests, found {}", cases.len());
    let filter = std::env::var("UMAC_CONFORMANCE_FILTER").unwrap_or_default();
    let mut failures = Vec::new();
    let mut passed = 0;
    for case in cases.iter().filter(|c| c.display().to_string().contains(&filter)) {
        let shown = case.strip_prefix(&dir).unwrap_or(case).display().to_string();
        let mut results = Vec::new();
        for engine in ENGINES {
            match run_case(case, *engine) {
                Ok(outputs) => {
                    passed += 1;
                    results.push(outputs);
                }
                Err(e) => failures.push(format!("{shown} [{}]: {e}", engine.name())),
            }
        }
        // Differential check: the engines agree byte for byte, fp32 included (a NaN's sign and
        // payload aside: x86 produces a negative default NaN where Cranelift's is positive).
        if let [reference, other] = &results[..]
            && reference.iter().zip(other).any(|(a, b)| !same_values(a, b))
        {
            failures.push(format!("{shown}: the cranelift and llvm engines differ"));
        }
    }
    eprintln!("conformance: {passed} passed, {} failed", failures.len());
    assert!(failures.is_empty(), "{} conformance failures:\n{}", failures.len(), failures.join("\n"));
}

/// Every case's TOSA flatbuffer (`test.tosa`), read by umac's own reader instead of tosa-tools'
/// deserializer, passes on the reference engine.
#[test]
fn tosa_flatbuffers_read_by_umac_pass() {
    let dir = suite_dir();
    let cases = cases(&dir);
    let mut failures = Vec::new();
    for case in &cases {
        if let Err(e) = run_case_from(case, ENGINES[0], Source::Flatbuffer) {
            failures.push(format!("{}: {e}", case.strip_prefix(&dir).unwrap_or(case).display()));
        }
    }
    eprintln!("conformance from .tosa: {} passed, {} failed", cases.len() - failures.len(), failures.len());
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

/// Byte equality, except that any two NaNs are equal.
fn same_values(a: &Tensor, b: &Tensor) -> bool {
    if a.dtype != b.dtype || a.shape != b.shape {
        return false;
    }
    if !a.dtype.is_float() {
        return a.data == b.data;
    }
    (0..a.len()).all(|i| {
        let (x, y) = (a.get_f64(i), b.get_f64(i));
        (x.is_nan() && y.is_nan()) || x.to_bits() == y.to_bits()
    })
}

//! Every operator and type umac's `.tflite` reader legalizes, one single-operator model at a time
//! (test/models/tflite-ops, written by its gen.py with TFLite Micro's outputs): `umac run` on both
//! engines gives TFLite Micro's bytes for integer results, and float results within 1e-5 relative
//! (or 1e-6 absolute). A case the native reader does not take (`"native": false` in cases.json)
//! must fall back to the converter, and is compared all the same. A case marked `known_failure`
//! must still differ, so that a fix is noticed and the mark removed.

use std::{
    path::{Path, PathBuf},
    process::Command,
    sync::{Mutex, atomic::AtomicUsize, atomic::Ordering},
};
use umac_runtime::{
    Tensor, read_npy,
    testdata::tflite_ops::{Case, cases, difference},
    write_npy,
};

/// Runs the case's inferences as one `umac run --sequence` on `engine`: how it differs from
/// TFLite Micro (`Err`: umac failed), and whether it fell back to the converter.
fn run(case: &Case, per_case: usize, engine: &str, tmp: &Path) -> (Result<Option<String>, String>, bool) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_umac"));
    command.args(["run", "--sequence", "--engine", engine]).arg(&case.model);
    for j in 0..case.inputs {
        let parts: Vec<Tensor> = (0..per_case).map(|k| case.reference("input", k, j)).collect();
        let path = tmp.join(format!("{}-{engine}-input{j}.npy", case.name));
        write_npy(&path, &Tensor::stack(&parts).unwrap()).unwrap();
        command.arg("--input").arg(path);
    }
    let outs: Vec<PathBuf> =
        (0..case.outputs).map(|j| tmp.join(format!("{}-{engine}-output{j}.npy", case.name))).collect();
    for out in &outs {
        command.arg("--output").arg(out);
    }
    let output = command.env_remove("UMAC_TFLITE_READER").output().expect("umac starts");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let fell_back = stderr.contains("converting the model with");
    if !output.status.success() {
        return (Err(stderr.trim().lines().last().unwrap_or("").to_string()), fell_back);
    }
    let differences: Vec<String> = outs
        .iter()
        .enumerate()
        .filter_map(|(j, out)| {
            let want: Vec<Tensor> = (0..per_case).map(|k| case.reference("output", k, j)).collect();
            let diff = difference(&read_npy(out).unwrap(), &Tensor::stack(&want).unwrap());
            diff.map(|d| if case.outputs > 1 { format!("output {j}: {d}") } else { d })
        })
        .collect();
    (Ok((!differences.is_empty()).then(|| differences.join("; "))), fell_back)
}

#[test]
fn every_operator_matches_tflite_micro() {
    let dir = umac_runtime::testdata::dir("models/tflite-ops");
    let (cases, per_case) = cases(&dir);
    assert!(cases.len() > 100, "cases.json lists {} cases", cases.len());
    let tmp = std::env::temp_dir().join(format!("umac-tflite-ops-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let jobs: Vec<(&Case, &str)> = cases.iter().flat_map(|c| [(c, "cranelift"), (c, "llvm")]).collect();
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get()).clamp(2, 8);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                while let Some(&(case, engine)) = jobs.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let (result, fell_back) = run(case, per_case, engine, &tmp);
                    let what = format!("{} on {engine}", case.name);
                    let mut problems = Vec::new();
                    if fell_back == case.native {
                        problems.push(if case.native {
                            format!("{what}: the native reader no longer takes it (cases.json says native)")
                        } else {
                            format!("{what}: the native reader takes it now: set \"native\": true in gen.py")
                        });
                    }
                    match (&result, &case.known_failure) {
                        (Ok(None), None) | (Ok(Some(_)) | Err(_), Some(_)) => {}
                        (Ok(Some(diff)), None) => problems.push(format!("{what}: {diff}")),
                        (Err(error), None) => problems.push(format!("{what}: umac failed: {error}")),
                        (Ok(None), Some(reason)) => problems.push(format!(
                            "{what}: matches TFLite Micro now (known failure '{reason}'): remove the mark in gen.py"
                        )),
                    }
                    failures.lock().unwrap().extend(problems);
                }
            });
        }
    });
    std::fs::remove_dir_all(&tmp).ok();
    let mut failures = failures.into_inner().unwrap();
    failures.sort();
    assert!(failures.is_empty(), "{} of {} runs:\n{}", failures.len(), jobs.len(), failures.join("\n"));
}

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
use umac_runtime::{DType, Tensor, read_npy, write_npy};

struct Case {
    name: String,
    model: PathBuf,
    refs: PathBuf,
    inputs: usize,
    outputs: usize,
    native: bool,
    known_failure: Option<String>,
}

fn cases(dir: &Path) -> (Vec<Case>, usize) {
    let text = std::fs::read_to_string(dir.join("cases.json")).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let per_case = json["inputs_per_case"].as_u64().unwrap() as usize;
    let cases = json["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let file = c["file"].as_str().unwrap();
            Case {
                name: file.trim_end_matches(".tflite").to_string(),
                model: dir.join(file),
                refs: dir.join(c["ref"].as_str().unwrap()),
                inputs: c["inputs"].as_u64().unwrap() as usize,
                outputs: c.get("outputs").and_then(|n| n.as_u64()).unwrap_or(1) as usize,
                native: c["native"].as_bool().unwrap(),
                known_failure: c.get("known_failure").and_then(|r| r.as_str()).map(String::from),
            }
        })
        .collect();
    (cases, per_case)
}

/// How `got` differs from `want` (`None`: it does not): integers byte for byte, floats within
/// 1e-5 of the larger magnitude or 1e-6 absolute.
fn difference(got: &Tensor, want: &Tensor) -> Option<String> {
    if (got.dtype, &got.shape) != (want.dtype, &want.shape) {
        return Some(format!("{} {:?} instead of {} {:?}", got.dtype, got.shape, want.dtype, want.shape));
    }
    if want.dtype != DType::F32 {
        let size = want.dtype.size();
        let differ = got.data.chunks_exact(size).zip(want.data.chunks_exact(size)).filter(|(a, b)| a != b).count();
        return (differ > 0).then(|| format!("{differ} of {} elements differ", want.len()));
    }
    let floats = |t: &Tensor| -> Vec<f32> {
        t.data.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect()
    };
    let (mut differ, mut worst) = (0, 0f32);
    for (x, y) in floats(got).into_iter().zip(floats(want)) {
        let d = (x - y).abs();
        if d.is_nan() || d > (1e-5 * x.abs().max(y.abs())).max(1e-6) {
            differ += 1;
            worst = worst.max(d);
        }
    }
    (differ > 0).then(|| format!("{differ} of {} elements differ, by up to {worst}", want.len()))
}

/// Runs the case's inferences as one `umac run --sequence` on `engine`: how it differs from
/// TFLite Micro (`Err`: umac failed), and whether it fell back to the converter.
fn run(case: &Case, per_case: usize, engine: &str, tmp: &Path) -> (Result<Option<String>, String>, bool) {
    // Inference k's input (or output) j: input_k.npy for the first, input_k_j.npy after it.
    let ref_file = |what: &str, k: usize, j: usize| {
        case.refs.join(if j == 0 { format!("{what}_{k}.npy") } else { format!("{what}_{k}_{j}.npy") })
    };
    let mut command = Command::new(env!("CARGO_BIN_EXE_umac"));
    command.args(["run", "--sequence", "--engine", engine]).arg(&case.model);
    for j in 0..case.inputs {
        let parts: Vec<Tensor> = (0..per_case).map(|k| read_npy(&ref_file("input", k, j)).unwrap()).collect();
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
            let want: Vec<Tensor> = (0..per_case).map(|k| read_npy(&ref_file("output", k, j)).unwrap()).collect();
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

//! umac's own `.tflite` reader (`umac_frontend::tflite`, the default) on every `.tflite` model of test/:
//! TFLite Micro's outputs through it on both engines, and the same outputs as through
//! `tosa-converter-for-tflite` (the differential test, `UMAC_TFLITE_READER=converter`) where the
//! converter computes as TFLite Micro does. The reader takes every model here itself: none may
//! fall back to the converter.

use std::{path::Path, process::Command};
use umac_runtime::{Tensor, read_npy};

/// (model, its TFLite Micro references, whether the converter's TOSA gives TFLite Micro's outputs
/// too: its float32 → int16 QUANTIZE multiplies by 1/scale and rounds half to even, one step off
/// on rounding edges).
const MODELS: &[(&str, &str, bool)] = &[
    ("mlperf-tiny/kws/model.tflite", "mlperf-tiny/kws/ref", true),
    ("mlperf-tiny/vww/model.tflite", "mlperf-tiny/vww/ref", true),
    ("mlperf-tiny/ic/model.tflite", "mlperf-tiny/ic/ref", true),
    ("mlperf-tiny/ad/model.tflite", "mlperf-tiny/ad/ref", true),
    ("float/kws/model.tflite", "float/kws/ref", true),
    ("float/vww/model.tflite", "float/vww/ref", true),
    ("float/ic/model.tflite", "float/ic/ref", true),
    ("float/ad/model.tflite", "float/ad/ref", true),
    ("kws-mean/model.tflite", "kws-mean/ref", true),
    ("lstm-16x8/lstm_small_int8.tflite", "lstm-16x8/ref/lstm_small_int8", true),
    ("lstm-16x8/lstm_small_f32.tflite", "lstm-16x8/ref/lstm_small_f32", true),
    ("lstm-16x8/lstm_stack_int8.tflite", "lstm-16x8/ref/lstm_stack_int8", true),
    ("lstm/mnist/model_int8.tflite", "lstm/mnist/int8/ref", true),
    ("lstm/mnist/model_f32.tflite", "lstm/mnist/f32/ref", true),
    ("lstm/batch2_int8/model.tflite", "lstm/batch2_int8/ref", true),
    ("lstm/sequences_int8/model.tflite", "lstm/sequences_int8/ref", true),
    ("lstm/time_major_int8/model.tflite", "lstm/time_major_int8/ref", true),
    ("lstm-16x8/conv_16x8.tflite", "lstm-16x8/ref/conv_16x8", true),
    ("ops-16x8/elementwise.tflite", "ops-16x8/elementwise/ref", true),
    ("ops-16x8/pad.tflite", "ops-16x8/pad/ref", true),
    ("ops-16x8/quantize.tflite", "ops-16x8/quantize/ref", false),
    ("ops-16x8/softmax.tflite", "ops-16x8/softmax/ref", true),
    ("ops-16x8/spatial.tflite", "ops-16x8/spatial/ref", true),
];

/// Runs `umac run model --input input --engine engine` with `reader`; returns the output and
/// stderr.
fn run(model: &Path, input: &Path, engine: &str, reader: &str, tag: &str) -> (Tensor, String) {
    let dir = std::env::temp_dir().join(format!("umac-tflite-reader-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join(format!("{tag}-{engine}-{reader}.npy"));
    let output = Command::new(env!("CARGO_BIN_EXE_umac"))
        .env("UMAC_TFLITE_READER", reader)
        .args(["run", model.to_str().unwrap(), "--input", input.to_str().unwrap(), "--output"])
        .arg(&out)
        .args(["--engine", engine])
        .output()
        .expect("umac starts");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{} with the {reader} reader on {engine}: {stderr}", model.display());
    (read_npy(&out).unwrap(), stderr)
}

/// Integers byte for byte; floats within 1e-5 of the larger magnitude (or 1e-6 absolute).
fn same(a: &Tensor, b: &Tensor, what: &str) {
    assert_eq!((a.dtype, &a.shape), (b.dtype, &b.shape), "{what}");
    if a.dtype != umac_runtime::DType::F32 {
        assert_eq!(a.data, b.data, "{what}");
        return;
    }
    let floats = |t: &Tensor| -> Vec<f32> {
        t.data.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect()
    };
    for (i, (x, y)) in floats(a).iter().zip(floats(b)).enumerate() {
        assert!((x - y).abs() <= 1e-5 * x.abs().max(y.abs()).max(0.1), "{what}: element {i}: {x} vs {y}");
    }
}

/// Every model: the native reader gives TFLite Micro's outputs on both engines without the
/// converter, and the same as the converter on both engines where the converter is right.
#[test]
fn the_native_reader_matches_tflite_micro_and_the_converter() {
    let models = umac_runtime::testdata::dir("models");
    for (i, (model, refs, converter_agrees)) in MODELS.iter().enumerate() {
        let (model, refs) = (models.join(model), models.join(refs));
        let input = refs.join("input_0.npy");
        let expected = read_npy(&refs.join("output_0.npy")).unwrap();
        for engine in ["cranelift", "llvm"] {
            let (native, stderr) = run(&model, &input, engine, "native", &format!("{i}"));
            assert!(!stderr.contains("converting the model with"), "{}: {stderr}", model.display());
            same(&native, &expected, &format!("{} on {engine}, against TFLite Micro", model.display()));
            if *converter_agrees {
                let (converted, _) = run(&model, &input, engine, "converter", &format!("{i}"));
                same(&native, &converted, &format!("{} on {engine}, against the converter", model.display()));
            }
        }
    }
}

/// Without the converter (no venv): a model the reader takes compiles; one with an operator it
/// does not take is an error naming that operator, exit code 1.
#[test]
fn no_python_is_needed_for_what_the_reader_takes() {
    let models = umac_runtime::testdata::dir("models");
    let compile = |model: &str| {
        let out = std::env::temp_dir().join(format!("umac-no-venv-{}-{}", std::process::id(), model.replace('/', "-")));
        Command::new(env!("CARGO_BIN_EXE_umac"))
            .env("UMAC_TFLITE_CONVERTER", "/nonexistent/tosa-converter-for-tflite")
            .args(["compile", models.join(model).to_str().unwrap(), "--target=cortex-m55", "-o"])
            .arg(&out)
            .output()
            .expect("umac starts")
    };
    let output = compile("mlperf-tiny/kws/model.tflite");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let output = compile("ops-16x8/quantize.tflite");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let output = compile("tflite-ops/invalid/svdf_hybrid.tflite");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("svdf_hybrid.tflite: operator #0 (SVDF, output '"), "{stderr}");
    assert!(stderr.contains("the converter failed"), "{stderr}");
}

/// The reader's errors name the operator by index and builtin name; a model it cannot take
/// without the converter is an error at that operator.
#[test]
fn errors_name_the_operator() {
    let models = umac_runtime::testdata::dir("models");
    let bytes = std::fs::read(models.join("mlperf-tiny/kws/model.tflite")).unwrap();
    let tosa = umac_frontend::tflite::to_tosa(&bytes, "kws.tflite").unwrap();
    // Every op is located at its operator: `loc("operator #0 (CONV_2D, output '...')"("kws.tflite":0:0))`.
    assert!(tosa.contains("loc(\"operator #0 (CONV_2D, output '"), "{tosa}");
    assert!(tosa.contains("\"kws.tflite\":0:12)"), "the softmax, operator #12, has a location");
    // Not a model at all.
    let error = umac_frontend::tflite::to_tosa(b"not a flatbuffer at all", "x.tflite").unwrap_err();
    assert!(error.message.contains("not a .tflite file"), "{error}");
}

/// Models the reader must refuse (test/models/tflite-ops/invalid, written by gen.py): `umac
/// compile` without the converter exits with 1 and an error at the operator, `file: operator #k
/// (KIND...): ...`.
#[test]
fn invalid_models_are_errors_at_the_operator() {
    let dir = umac_runtime::testdata::dir("models/tflite-ops/invalid");
    let list: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("invalid.json")).unwrap()).expect("invalid.json parses");
    let cases = list.as_array().expect("a list");
    assert!(cases.len() >= 4, "{} invalid models", cases.len());
    let out = std::env::temp_dir().join(format!("umac-tflite-invalid-{}", std::process::id()));
    for case in cases {
        let (file, operator, message) =
            (case["file"].as_str().unwrap(), case["operator"].as_str().unwrap(), case["message"].as_str().unwrap());
        let output = Command::new(env!("CARGO_BIN_EXE_umac"))
            .env("UMAC_TFLITE_CONVERTER", "/nonexistent/tosa-converter-for-tflite")
            .arg("compile")
            .arg(dir.join(file))
            .args(["--target=cortex-m55", "-o"])
            .arg(&out)
            .output()
            .expect("umac starts");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{file}: {stderr}");
        assert!(stderr.contains(&format!("{file}: {operator}")), "{file}: wanted '{operator}' in {stderr}");
        assert!(stderr.contains(message), "{file}: wanted '{message}' in {stderr}");
    }
    std::fs::remove_dir_all(&out).ok();
}

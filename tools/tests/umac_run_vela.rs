//! `umac run` of a model that is one Vela-compiled `ethos-u` operator: it runs whole on the
//! Ethos-U device's functional model (targets/ethos-u/device), bit-exact with TFLite Micro;
//! what the device does not model yet is an error naming the model, the operator and the
//! command, with exit code 1.

use std::{path::PathBuf, process::Command};
use umac_runtime::read_npy;

fn umac(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_umac")).args(args).output().expect("umac starts");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).into_owned())
}

fn vela(model: &str) -> String {
    vela_for(model, "ethos-u55-128")
}

fn vela_for(model: &str, configuration: &str) -> String {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let path = format!("targets/ethos-u/device/tests/vela/{model}-{configuration}/model_vela.tflite");
    root.join(path).display().to_string()
}

fn reference(model: &str, file: &str) -> String {
    umac_runtime::testdata::dir(&format!("models/mlperf-tiny/{model}")).join("ref").join(file).display().to_string()
}

#[test]
fn ad_compiled_by_vela_runs_bit_exact_with_tflite_micro() {
    let dir = std::env::temp_dir().join(format!("umac-run-vela-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for k in 0..5 {
        let out = dir.join(format!("ad_{k}.npy"));
        let input = reference("ad", &format!("input_{k}.npy"));
        let (code, stderr) = umac(&["run", &vela("ad"), "--input", &input, "--output", out.to_str().unwrap()]);
        assert_eq!(code, 0, "{stderr}");
        let (got, expected) =
            (read_npy(&out).unwrap(), read_npy(reference("ad", &format!("output_{k}.npy")).as_ref()).unwrap());
        assert_eq!((got.dtype, &got.shape, &got.data), (expected.dtype, &expected.shape, &expected.data), "input {k}");
    }
    // The configuration it was compiled for may be named; another is an error.
    let input = reference("ad", "input_0.npy");
    assert_eq!(umac(&["run", &vela("ad"), "--input", &input, "--target", "ethos-u55-128"]).0, 0);
    let (code, stderr) = umac(&["run", &vela("ad"), "--input", &input, "--target", "ethos-u65-256"]);
    assert_eq!(code, 1);
    assert!(stderr.contains("its ethos-u operator was compiled for ethos-u55-128, not ethos-u65-256"), "{stderr}");
}

#[test]
fn what_the_device_does_not_model_yet_is_an_error_at_the_command() {
    // KWS's stream with its first subtraction (0x00020006) made a leaky ReLU (0x00050006),
    // which the device does not model yet.
    let mut bytes = std::fs::read(vela_for("kws", "ethos-u65-512")).unwrap();
    let at = bytes.windows(4).position(|w| w == [0x06, 0x00, 0x02, 0x00]).expect("a subtraction");
    bytes[at + 2] = 0x05;
    let edited = std::env::temp_dir().join(format!("umac-run-vela-min-{}.tflite", std::process::id()));
    std::fs::write(&edited, bytes).unwrap();
    let (code, stderr) = umac(&["run", edited.to_str().unwrap(), "--input", &reference("kws", "input_0.npy")]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("operator #0 (ethos-u, output 'Identity'): command stream, offset 0x")
            && stderr.contains(
                "(NPU_OP_ELEMENTWISE): elementwise mode ELEMENTWISE_MODE_LRELU is not supported by the simulator yet"
            ),
        "{stderr}"
    );
    // An input of another shape, and flags that need what is not built yet.
    let (code, stderr) = umac(&["run", &vela("ad"), "--input", &reference("kws", "input_0.npy")]);
    assert_eq!(code, 1);
    assert!(stderr.contains("holds int8 1x49x10x1, the model's input 'input_1' is INT8 [1, 640]"), "{stderr}");
    let (code, stderr) = umac(&["run", &vela("ad"), "--input", &reference("ad", "input_0.npy"), "--report"]);
    assert_eq!(code, 1);
    assert!(stderr.contains("--report does not apply yet"), "{stderr}");
}

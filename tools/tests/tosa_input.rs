//! TOSA flatbuffers (`.tosa`) as ExecuTorch's Arm backend writes them for PyTorch models
//! (`test/models/pytorch`): `umac run` gives the TOSA reference model's outputs on both engines,
//! `umac compile` records the quantization the user gives, `umac-opt` reads them, and a file that
//! is no TOSA flatbuffer is an error, exit code 1.

use std::{path::PathBuf, process::Command};
use umac_runtime::read_npy;

fn tool(exe: &str, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(exe).args(args).output().expect("the tool starts");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn umac(args: &[&str]) -> (i32, String, String) {
    tool(env!("CARGO_BIN_EXE_umac"), args)
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("umac-tosa-input-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn models() -> PathBuf {
    umac_runtime::testdata::dir("models/pytorch")
}

/// Every model, every reference input, both engines: the TOSA reference model's bytes.
#[test]
fn pytorch_models_give_the_reference_outputs_on_both_engines() {
    for model in ["cnn", "mlp", "residual"] {
        let dir = models().join(model);
        for engine in ["cranelift", "llvm"] {
            for i in 0..5 {
                let out = temp(&format!("{model}-{engine}-{i}.npy"));
                let (code, _, stderr) = umac(&[
                    "run",
                    dir.join("model.tosa").to_str().unwrap(),
                    "--input",
                    dir.join(format!("ref/input_{i}.npy")).to_str().unwrap(),
                    "--output",
                    out.to_str().unwrap(),
                    "--engine",
                    engine,
                ]);
                assert_eq!(code, 0, "{model} on {engine}: {stderr}");
                let expected = read_npy(&dir.join(format!("ref/output_{i}.npy"))).unwrap();
                assert_eq!(read_npy(&out).unwrap(), expected, "{model} input {i} on {engine}");
            }
        }
    }
}

/// ExecuTorch keeps the input quantize and output dequantize outside the TOSA graph: the user
/// gives them (from meta.json here) and metadata.json records them. Malformed or surplus values
/// are errors naming the flag.
#[test]
fn compile_records_the_quantization_given() {
    let dir = models().join("cnn");
    let meta: serde_json::Value = serde_json::from_slice(&std::fs::read(dir.join("meta.json")).unwrap()).unwrap();
    let flag = |io: &str| format!("{}:{}", meta[io]["scale"].as_f64().unwrap(), meta[io]["zero_point"]);
    let out = temp("cnn-out");
    let model = dir.join("model.tosa");
    let (code, _, stderr) = umac(&[
        "compile",
        model.to_str().unwrap(),
        "--target=cortex-m55",
        "-o",
        out.to_str().unwrap(),
        "--input-quantization",
        &flag("input"),
        "--output-quantization",
        &flag("output"),
    ]);
    assert_eq!(code, 0, "{stderr}");
    let metadata: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("metadata.json")).unwrap()).unwrap();
    for (io, kind) in [("input", "inputs"), ("output", "outputs")] {
        let entry = &metadata[kind][0];
        assert_eq!(entry["scale"][0].as_f64().unwrap() as f32, meta[io]["scale"].as_f64().unwrap() as f32, "{io}");
        assert_eq!(entry["zero_point"][0], meta[io]["zero_point"], "{io}");
    }
    let (code, _, stderr) = umac(&[
        "compile",
        model.to_str().unwrap(),
        "--target=cortex-m55",
        "-o",
        out.to_str().unwrap(),
        "--input-quantization",
        "0.5",
    ]);
    assert_eq!(code, 1);
    assert!(stderr.contains("--input-quantization '0.5': expected SCALE:ZERO_POINT"), "{stderr}");
    let (code, _, stderr) = umac(&[
        "compile",
        model.to_str().unwrap(),
        "--target=cortex-m55",
        "-o",
        out.to_str().unwrap(),
        "--output-quantization",
        "0.5:1",
        "--output-quantization",
        "0.25:0",
    ]);
    assert_eq!(code, 1);
    assert!(stderr.contains("--output-quantization is given 2 times; the model has 1 outputs"), "{stderr}");
}

/// umac-opt reads a `.tosa` file as tosa-tools' deserializer would, each op located at its op in
/// the flatbuffer; a file that is no TOSA flatbuffer is an error naming it, exit code 1.
#[test]
fn umac_opt_reads_tosa_files() {
    let model = models().join("mlp/model.tosa");
    let (code, stdout, stderr) =
        tool(env!("CARGO_BIN_EXE_umac-opt"), &[model.to_str().unwrap(), "--mlir-print-debuginfo"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("tosa.conv2d"), "{stdout}");
    assert!(stdout.contains("op #") && stdout.contains("(CONV2D, output '"), "{stdout}");
    let bad = temp("junk.tosa");
    std::fs::write(&bad, b"\x08\x00\x00\x00TFL3 not a TOSA flatbuffer").unwrap();
    for (code, stderr) in [
        {
            let (c, _, e) = tool(env!("CARGO_BIN_EXE_umac-opt"), &[bad.to_str().unwrap()]);
            (c, e)
        },
        {
            let (c, _, e) = umac(&["run", bad.to_str().unwrap(), "--input", "x.npy"]);
            (c, e)
        },
    ] {
        assert_eq!(code, 1, "{stderr}");
        assert!(stderr.contains("junk.tosa: not a .tosa file"), "{stderr}");
    }
}

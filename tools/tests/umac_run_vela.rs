//! `umac run` of Vela-compiled models: the `ethos-u` operator runs on the Ethos-U device's
//! functional model (targets/ethos-u/device), what Vela left to the CPU on the host, bit-exact
//! with TFLite Micro; what the device does not model yet is an error naming the model, the
//! operator and the command, with exit code 1.

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
    // KWS's stream with its first convolution's OFM scaled globally (OFM_PRECISION 0x0001 made
    // 0x0101), which the device does not model yet.
    let mut bytes = std::fs::read(vela_for("kws", "ethos-u65-512")).unwrap();
    let at = bytes.windows(4).position(|w| w == [0x14, 0x01, 0x01, 0x00]).expect("an OFM precision");
    bytes[at + 3] = 0x01;
    let edited = std::env::temp_dir().join(format!("umac-run-vela-min-{}.tflite", std::process::id()));
    std::fs::write(&edited, bytes).unwrap();
    let (code, stderr) = umac(&["run", edited.to_str().unwrap(), "--input", &reference("kws", "input_0.npy")]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("operator #0 (ethos-u, output 'Identity'): command stream, offset 0x")
            && stderr.contains("(NPU_OP_CONV): a convolution scaled globally is not supported by the simulator yet"),
        "{stderr}"
    );
    // An input of another shape, and flags that need what is not built yet.
    let (code, stderr) = umac(&["run", &vela("ad"), "--input", &reference("kws", "input_0.npy")]);
    assert_eq!(code, 1);
    assert!(stderr.contains("holds int8 1x49x10x1, the model's input 'input_1' is INT8 [1, 640]"), "{stderr}");
    let (code, stderr) = umac(&["run", &vela("ad"), "--input", &reference("ad", "input_0.npy"), "--benchmark", "3"]);
    assert_eq!(code, 1);
    assert!(stderr.contains("--benchmark does not apply yet"), "{stderr}");
}

#[test]
fn report_starts_with_the_npu_cycles_and_lists_every_operation() {
    let input = reference("kws", "input_0.npy");
    let out = std::env::temp_dir().join(format!("umac-run-vela-report-{}.npy", std::process::id()));
    let (code, stderr) = umac(&["run", &vela("kws"), "--input", &input, "--output", out.to_str().unwrap(), "--report"]);
    assert_eq!(code, 0, "{stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    // The timing model's count for KWS on the U55-128 (targets/ethos-u/device/tests/timing.rs
    // holds it within 15% of Vela's own estimate, 89,900).
    assert_eq!(lines[0], "NPU cycles: 79315");
    assert!(
        lines[1].starts_with(
            "ethos-u55-128 in Ethos_U55_High_End_Embedded, Shared_Sram at 500 MHz: 158.6 us, 2664792 MACs"
        )
    );
    // One line per DMA (11) and kernel (40), by offset, after the memories and the header.
    let rows: Vec<&&str> = lines.iter().filter(|l| l.trim_start().starts_with("0x")).collect();
    assert_eq!(rows.len(), 51, "{stderr}");
    assert_eq!(
        rows[0].split_whitespace().collect::<Vec<_>>(),
        ["0x000020", "DMA", "1120", "B", "0", "1216", "1216", "0", "0", "1120", "1120", "0"]
    );
    assert!(rows[1].trim_start().starts_with("0x000148  CONV 4x10/2"), "{}", rows[1]);
    assert!(lines[lines.len() - 2].starts_with("rule checker: no findings"), "{stderr}");
    assert_eq!(lines[lines.len() - 1], "commands and field values: all among those of the Vela streams the tests run");
    // The outputs are the same as without the report.
    assert_eq!(read_npy(&out).unwrap().data, read_npy(reference("kws", "output_0.npy").as_ref()).unwrap().data);
}

#[test]
fn an_lstm_compiled_by_vela_runs_a_sequence_keeping_its_state() {
    // Vela puts the stacked int8 LSTM wholly on the NPU, its state in variable tensors. With
    // --sequence its five reference inputs run one after another, the state kept between them,
    // as TFLite Micro's interpreter ran them: the outputs equal its five, byte for byte.
    let model = vela("lstmstack");
    let reference = |file: &str| umac_runtime::testdata::dir("models/lstm-16x8/ref/lstm_stack_int8").join(file);
    let stack = |kind: &str| {
        let parts: Vec<_> = (0..5).map(|k| read_npy(&reference(&format!("{kind}_{k}.npy"))).unwrap()).collect();
        umac_runtime::Tensor::stack(&parts).unwrap()
    };
    let dir = std::env::temp_dir().join(format!("umac-run-vela-lstm-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (inputs, out) = (dir.join("inputs.npy"), dir.join("outputs.npy"));
    umac_runtime::write_npy(&inputs, &stack("input")).unwrap();
    let args = ["run", &model, "--input", inputs.to_str().unwrap(), "--sequence", "--output", out.to_str().unwrap()];
    let (code, stderr) = umac(&args);
    assert_eq!(code, 0, "{stderr}");
    let (got, expected) = (read_npy(&out).unwrap(), stack("output"));
    assert_eq!((&got.shape, &got.data), (&expected.shape, &expected.data));
    // One inference alone starts from zero state: the first reference output.
    let first = reference("input_0.npy");
    let (code, stderr) = umac(&["run", &model, "--input", first.to_str().unwrap(), "--output", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(read_npy(&out).unwrap().data, read_npy(&reference("output_0.npy")).unwrap().data);
}

#[test]
fn a_model_vela_left_partly_on_the_cpu_runs_its_cpu_part_on_the_host() {
    // Vela puts the two 16x8 fully connected layers of ops-16x8/quantize on the NPU and leaves
    // the float input's QUANTIZE and the output's DEQUANTIZE to the CPU: the host runs those
    // around the device, and the float outputs equal TFLite Micro's bit for bit, on every
    // configuration, with either engine, and as a sequence.
    let reference = |file: &str| umac_runtime::testdata::dir("models/ops-16x8/quantize/ref").join(file);
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../targets/ethos-u/device/tests/mixed");
    let dir = std::env::temp_dir().join(format!("umac-run-vela-mixed-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("output.npy");
    for configuration in
        ["ethos-u55-32", "ethos-u55-64", "ethos-u55-128", "ethos-u55-256", "ethos-u65-256", "ethos-u65-512"]
    {
        let model = root.join(format!("quantize16-{configuration}.tflite")).display().to_string();
        for k in 0..5 {
            let input = reference(&format!("input_{k}.npy"));
            let engine = if k == 4 { "llvm" } else { "cranelift" };
            let args = [
                "run",
                &model,
                "--input",
                input.to_str().unwrap(),
                "--output",
                out.to_str().unwrap(),
                "--engine",
                engine,
            ];
            let (code, stderr) = umac(&args);
            assert_eq!(code, 0, "{configuration}: {stderr}");
            let (got, expected) = (read_npy(&out).unwrap(), read_npy(&reference(&format!("output_{k}.npy"))).unwrap());
            assert_eq!((got.dtype, &got.shape, &got.data), (expected.dtype, &expected.shape, &expected.data), "{k}");
        }
    }
    let stack = |kind: &str| {
        let parts: Vec<_> = (0..5).map(|k| read_npy(&reference(&format!("{kind}_{k}.npy"))).unwrap()).collect();
        umac_runtime::Tensor::stack(&parts).unwrap()
    };
    let inputs = dir.join("inputs.npy");
    umac_runtime::write_npy(&inputs, &stack("input")).unwrap();
    let model = root.join("quantize16-ethos-u55-128.tflite").display().to_string();
    let (code, stderr) =
        umac(&["run", &model, "--input", inputs.to_str().unwrap(), "--sequence", "--output", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(read_npy(&out).unwrap().data, stack("output").data);
    // State the CPU keeps (an accumulator in a resource variable around the NPU's addition) is
    // an error at the operator, not a run in the wrong order.
    let accumulator = root.join("accumulator-ethos-u55-128.tflite").display().to_string();
    let input = umac_runtime::testdata::dir("models/tflite-ops/ref/assign_variable_int8_0").join("input_0.npy");
    let (code, stderr) = umac(&["run", &accumulator, "--input", input.to_str().unwrap()]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains(
            "operator #0 (VAR_HANDLE, output 'acc_handle') keeps state on the CPU beside its ethos-u operators"
        ),
        "{stderr}"
    );
}

#[test]
fn compiling_a_vela_model_is_an_error_at_its_custom_operator() {
    // umac compile takes no other compiler's program: a clear error at the operator, exit code
    // 1, and no converter run (which would not know the operator either).
    let out = std::env::temp_dir().join(format!("umac-compile-vela-{}", std::process::id()));
    let (code, stderr) = umac(&["compile", &vela("kws"), "--target=cortex-m55", "-o", out.to_str().unwrap()]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains(
            "operator #0 (ethos-u, output 'Identity'): it is a custom operator, which no .tflite reader converts to TOSA"
        ),
        "{stderr}"
    );
    assert!(!stderr.contains("converting the model with tosa-converter-for-tflite"), "{stderr}");
}

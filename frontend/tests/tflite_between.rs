//! `to_tosa_between`: the part of a `.tflite` graph between given tensors, as `umac run` runs the
//! CPU's share of a model around a device's custom operators. The model: Vela's compile of
//! ops-16x8/quantize for the Ethos-U55-128, whose tensors are the float input (#0), its int16
//! QUANTIZE (#1), the `ethos-u` operator's program and memories (#2-#4, UINT8), its int16
//! output (#5) and the DEQUANTIZE of that (#6).

use umac_frontend::tflite::to_tosa_between;

fn model() -> Vec<u8> {
    let path =
        concat!(env!("CARGO_MANIFEST_DIR"), "/../targets/ethos-u/device/tests/mixed/quantize16-ethos-u55-128.tflite");
    std::fs::read(path).unwrap()
}

#[test]
fn the_cpu_part_before_and_after_the_device() {
    let bytes = model();
    let before = to_tosa_between(&bytes, "m.tflite", &[0], &[1]).unwrap();
    assert!(before.contains("func.func @main(%arg0: tensor<1x16xf32> loc(#loc0)) -> (tensor<1x16xi16>)"), "{before}");
    assert!(before.contains("operator #0 (QUANTIZE"), "{before}");
    assert!(!before.contains("operator #2 (DEQUANTIZE"), "{before}");
    // The device's output known (and the input, which nothing after needs), only DEQUANTIZE is left.
    let after = to_tosa_between(&bytes, "m.tflite", &[0, 5], &[6]).unwrap();
    let signature =
        "func.func @main(%arg0: tensor<1x16xf32> loc(#loc0), %arg1: tensor<1x4xi16> loc(#loc0)) -> (tensor<1x4xf32>)";
    assert!(after.contains(signature), "{after}");
    assert!(after.contains("operator #2 (DEQUANTIZE") && !after.contains("operator #0 (QUANTIZE"), "{after}");
}

#[test]
fn what_the_arguments_do_not_reach_is_an_error() {
    let bytes = model();
    // The output needs the device's, which the custom operator computes, not the CPU.
    let e = to_tosa_between(&bytes, "m.tflite", &[0], &[6]).unwrap_err().to_string();
    assert!(e.contains("no operator computes tensor #6 ('StatefulPartitionedCall:0') from the tensors given"), "{e}");
    // The device's program is bytes no operator umac legalizes takes.
    let e = to_tosa_between(&bytes, "m.tflite", &[2], &[1]).unwrap_err().to_string();
    assert!(e.contains("'ethos_u_command_stream' is UINT8"), "{e}");
    let e = to_tosa_between(&bytes, "m.tflite", &[0], &[9]).unwrap_err().to_string();
    assert!(e.contains("it has 7 tensors, not a tensor #9"), "{e}");
}

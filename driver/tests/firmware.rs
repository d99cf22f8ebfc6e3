//! Firmware output runs where firmware engineers run it: every MLPerf Tiny model, compiled for
//! Cortex-M55 and Cortex-M4, linked into a bare-metal test program and run under QEMU
//! (mps3-an547, mps2-an386) on all five reference inputs (and KWS on the Cortex-M7 board,
//! mps2-an500); `--target=host` objects linked into a host program the same way; and every model
//! compiled with `--opt=size` for both boards; and KWS with a MEAN (test/models/kws-mean) on both.
//! Every output byte must equal TFLite Micro's.

mod support;

use std::time::Duration;
use support::{cases, compile_model, models_dir, run_for_size, run_on, run_with};
use umac_backend::cpu::{CORTEX_M4, CORTEX_M7, CORTEX_M55, HOST};
use umac_driver::firmware::output;
use umac_runtime::firmware::{MPS2_AN386, MPS2_AN500, MPS3_AN547, Model, Platform, build, run};

// The tutorial accelerator: convolutions run as calls of runtime/kernels/vanilla.c, linked in.
#[test]
fn kws_vanilla_cortex_m55() {
    run_with("kws", CORTEX_M55, MPS3_AN547, "vanilla");
}
#[test]
fn vww_vanilla_cortex_m55() {
    run_with("vww", CORTEX_M55, MPS3_AN547, "vanilla");
}
#[test]
fn ic_vanilla_cortex_m55() {
    run_with("ic", CORTEX_M55, MPS3_AN547, "vanilla");
}
#[test]
fn ad_vanilla_cortex_m55() {
    run_with("ad", CORTEX_M55, MPS3_AN547, "vanilla");
}

// `--opt=size` (LLVM's Os): the same bytes out.
#[test]
fn kws_size_cortex_m55() {
    run_for_size("kws", CORTEX_M55, MPS3_AN547);
}
#[test]
fn vww_size_cortex_m55() {
    run_for_size("vww", CORTEX_M55, MPS3_AN547);
}
#[test]
fn ic_size_cortex_m55() {
    run_for_size("ic", CORTEX_M55, MPS3_AN547);
}
#[test]
fn ad_size_cortex_m55() {
    run_for_size("ad", CORTEX_M55, MPS3_AN547);
}
#[test]
fn kws_size_cortex_m4() {
    run_for_size("kws", CORTEX_M4, MPS2_AN386);
}
#[test]
fn vww_size_cortex_m4() {
    run_for_size("vww", CORTEX_M4, MPS2_AN386);
}
#[test]
fn ic_size_cortex_m4() {
    run_for_size("ic", CORTEX_M4, MPS2_AN386);
}
#[test]
fn ad_size_cortex_m4() {
    run_for_size("ad", CORTEX_M4, MPS2_AN386);
}

#[test]
fn kws_cortex_m55() {
    run_on("kws", CORTEX_M55, MPS3_AN547);
}
#[test]
fn kws_cortex_m4() {
    run_on("kws", CORTEX_M4, MPS2_AN386);
}
// KWS with a MEAN in place of its average pooling (test/models/kws-mean): the mean's sums widen
// the requantized int8 values as they add them (umac-narrow-reduction-inputs).
#[test]
fn kws_mean_cortex_m55_and_m4() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../test/models/kws-mean");
    support::run_in(&dir, "kws_mean", CORTEX_M55, MPS3_AN547, "", false);
    support::run_in(&dir, "kws_mean", CORTEX_M4, MPS2_AN386, "", false);
}
// The int16x8 conv net (test/models/conv-16x8: int16 activations, int8 weights, int64 biases;
// convolution, depthwise convolution, add, average pooling, fully connected), int16 outputs.
#[test]
fn conv_16x8_cortex_m55_and_m4() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../test/models/conv-16x8");
    support::run_in(&dir, "conv_16x8", CORTEX_M55, MPS3_AN547, "", false);
    support::run_in(&dir, "conv_16x8", CORTEX_M4, MPS2_AN386, "", false);
}
// The int8 LSTMs of test/models/lstm (one LSTM; two stacked; TFLite Micro's trained MNIST
// example on five digits; time-major; every step's output; a batch of two): the time loop, the int16 cell
// and TFLite's table-based sigmoid and tanh on the CPU. The harness runs the five cases in order,
// filling the workspace with garbage before each: the LSTMs' state, which persists from one call
// to the next as in TFLite Micro, is kept outside it.
#[test]
fn lstm_int8_cortex_m55_and_m4() {
    let models = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../test/models/lstm");
    for dir in ["lstm_small_int8", "lstm_stack_int8", "mnist/int8", "time_major_int8", "sequences_int8", "batch2_int8"]
    {
        let model = dir.replace('/', "_");
        support::run_in(&models.join(dir), &model, CORTEX_M55, MPS3_AN547, "", false);
        support::run_in(&models.join(dir), &model, CORTEX_M4, MPS2_AN386, "", false);
    }
}
// The int16x8 operator models of test/models/ops-16x8 (gen.py there): subtract, multiply, leaky
// ReLU and add after a convolution and a depthwise one; a padded convolution, a strided slice and
// a transpose convolution; a softmax; float32 in and out through QUANTIZE and DEQUANTIZE; a pad.
#[test]
fn ops_16x8_cortex_m55_and_m4() {
    let models = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../test/models/ops-16x8");
    for model in ["elementwise", "spatial", "softmax", "quantize", "pad"] {
        support::run_in(&models.join(model), model, CORTEX_M55, MPS3_AN547, "", false);
        support::run_in(&models.join(model), model, CORTEX_M4, MPS2_AN386, "", false);
    }
}
// PyTorch models as ExecuTorch's Arm backend lowers them (test/models/pytorch/gen.py there): their
// TOSA flatbuffers read by umac's reader, against the TOSA reference model's outputs.
#[test]
fn pytorch_tosa_cortex_m55_and_m4() {
    let models = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../test/models/pytorch");
    for model in ["cnn", "mlp", "residual"] {
        support::run_in(&models.join(model), model, CORTEX_M55, MPS3_AN547, "", false);
        support::run_in(&models.join(model), model, CORTEX_M4, MPS2_AN386, "", false);
    }
}
#[test]
fn kws_cortex_m7() {
    run_on("kws", CORTEX_M7, MPS2_AN500);
}
#[test]
fn kws_host() {
    run_on("kws", HOST, Platform::Host);
}
#[test]
fn vww_cortex_m55() {
    run_on("vww", CORTEX_M55, MPS3_AN547);
}
#[test]
fn vww_cortex_m4() {
    run_on("vww", CORTEX_M4, MPS2_AN386);
}
#[test]
fn vww_host() {
    run_on("vww", HOST, Platform::Host);
}
#[test]
fn ic_cortex_m55() {
    run_on("ic", CORTEX_M55, MPS3_AN547);
}
#[test]
fn ic_cortex_m4() {
    run_on("ic", CORTEX_M4, MPS2_AN386);
}
#[test]
fn ic_host() {
    run_on("ic", HOST, Platform::Host);
}
#[test]
fn ad_cortex_m55() {
    run_on("ad", CORTEX_M55, MPS3_AN547);
}
#[test]
fn ad_cortex_m4() {
    run_on("ad", CORTEX_M4, MPS2_AN386);
}
#[test]
fn ad_host() {
    run_on("ad", HOST, Platform::Host);
}

/// The object is what firmware can link: one exported symbol `N_run`, operator functions as
/// local symbols, constants in read-only data, no writable data, no unwind tables, and no
/// undefined symbols but the C library's memory functions (here inspected independently of the
/// check `compile` makes).
#[test]
fn objects_are_self_contained() {
    use object::{Object, ObjectSection, ObjectSymbol, SectionKind};
    let models = models_dir();
    for model in ["kws", "ad"] {
        for cpu in [CORTEX_M55, CORTEX_M7, CORTEX_M4] {
            let firmware = compile_model(&models.join(model), model, cpu);
            let file = object::File::parse(&*firmware.object).unwrap();
            let undefined: Vec<&str> = file
                .symbols()
                .filter(|s| s.is_undefined())
                .filter_map(|s| s.name().ok())
                .filter(|n| !n.is_empty())
                .collect();
            for name in &undefined {
                assert!(
                    ["memcpy", "memset", "memmove"].iter().any(|m| name.trim_start_matches("__aeabi_").starts_with(m))
                        || name.starts_with("__aeabi_memclr"),
                    "{model} for {}: undefined symbol {name}",
                    cpu.name
                );
            }
            let global: Vec<&str> =
                file.symbols().filter(|s| s.is_global() && s.is_definition()).filter_map(|s| s.name().ok()).collect();
            assert_eq!(global, vec![format!("{model}_run").as_str()], "{model} for {}", cpu.name);
            for operator in &firmware.operators {
                let symbol = file.symbols().find(|s| s.name() == Ok(operator.function.as_str()));
                assert!(symbol.is_some_and(|s| s.is_local()), "{} is a local symbol", operator.function);
            }
            let mut rodata = 0;
            for section in file.sections() {
                let name = section.name().unwrap_or("");
                // nounwind code: no unwind instructions (.ARM.extab); the index only says
                // "cannot unwind" and is code metadata, not constants.
                assert!(!name.contains("extab"), "unwind tables in {name}");
                if name.starts_with(".ARM.exidx") {
                    continue;
                }
                match section.kind() {
                    SectionKind::Data | SectionKind::UninitializedData => {
                        assert_eq!(section.size(), 0, "writable data in {name}")
                    }
                    SectionKind::ReadOnlyData => rodata += section.size(),
                    _ => {}
                }
            }
            assert_eq!(rodata, firmware.rodata_bytes);
            assert!(rodata > 0);
        }
    }
}

/// The header declares the entry and the sizes a firmware engineer allocates.
#[test]
fn header_and_metadata_describe_the_model() {
    let models = models_dir();
    let firmware = compile_model(&models.join("kws"), "kws", CORTEX_M55);
    let h = &firmware.header;
    assert!(h.contains("int32_t kws_run(const void *const inputs[], void *const outputs[], void *workspace);"));
    assert!(h.contains(&format!("#define KWS_WORKSPACE_SIZE {}\n", firmware.workspace_size)));
    assert!(h.contains("#define KWS_WORKSPACE_ALIGNMENT 16\n"));
    assert!(h.contains("#define KWS_INPUT_0_SIZE 490\n"), "{h}");
    assert!(h.contains("#define KWS_OUTPUT_0_SIZE 12\n"));
    assert!(h.contains("batch (dynamic dimensions) is fixed to 1"));
    let m = &firmware.metadata;
    assert_eq!(m["inputs"][0]["shape"], serde_json::json!([1, 49, 10, 1]));
    assert_eq!(m["inputs"][0]["dtype"], "int8");
    assert_eq!(m["inputs"][0]["name"], "input_1");
    assert_eq!(m["outputs"][0]["bytes"], 12);
    assert_eq!(m["workspace"]["bytes"], firmware.workspace_size);
    assert_eq!(m["workspace"]["alignment"], 16);
    assert!(firmware.workspace_lower_bound <= firmware.workspace_size);
    assert_eq!(m["target"]["name"], "cortex-m55");
    assert_eq!(m["target"]["triple"], "thumbv8.1m.main-none-eabihf");
    assert!(m["text_bytes"].as_u64().unwrap() > 0);
    // KWS: 5 convolutions and 4 depthwise convolutions, each one fused operator, in order.
    let kinds: Vec<&str> = firmware.operators.iter().map(|o| o.function.as_str()).collect();
    assert_eq!(kinds[0], "kws_op0_conv_2d_nhwc_fhwc");
    assert_eq!(kinds[1], "kws_op1_depthwise_conv_2d_nhwc_hwcm");
    let first = &firmware.operators[0].source_ops;
    assert!(first.iter().any(|s| s.starts_with("tosa.conv2d at ")), "{first:?}");
    assert!(first.iter().any(|s| s.starts_with("tosa.rescale at ")), "{first:?}");
}

/// A harness that checks nothing would pass anything: a wrong expected byte must fail.
#[test]
fn a_wrong_output_is_caught() {
    let models = models_dir();
    let dir = models.join("ad");
    let firmware = compile_model(&dir, "ad", HOST);
    let work = std::env::temp_dir().join(format!("umac-fw-{}-wrong", std::process::id()));
    let written = output::write(&work, "ad", &firmware).unwrap();
    let mut cases = cases(&dir);
    cases[3].expected[0][100] ^= 1;
    let spec = Model {
        name: "ad",
        object: &written.object,
        header: &written.header,
        workspace_size: firmware.workspace_size,
        output_bytes: vec![640],
        kernel_sources: vec![],
        include_dirs: vec![],
    };
    let program = build(Platform::Host, &work, &spec, &cases).unwrap();
    let outcome = run(Platform::Host, &program, Duration::from_secs(60)).unwrap();
    assert_eq!(outcome.status, Some(1), "{}", outcome.output);
    assert!(outcome.output.contains("case 3 output 0 byte 100"), "{}", outcome.output);
    std::fs::remove_dir_all(&work).unwrap();
}

/// A model whose constants do not fit the board's 512 KiB of flash: a fully connected layer of
/// 2048 inputs and 1152 outputs (2,359,296 bytes of weights, over 2 MiB). Compiled with
/// `--constants-section=.external.weights`, its constants are in that section alone (metadata's
/// `sections`), the harness's linker script places it in the board's large memory, and it runs on
/// Cortex-M55 under QEMU with the bytes the host's Cranelift engine computes. Left in .rodata, the
/// same model does not link.
#[test]
fn constants_beyond_flash_in_a_section_of_their_own() {
    use umac_runtime::{DType, Tensor};
    let (inputs, outputs) = (2048usize, 1152usize);
    let weights: String = support::lcg(7, inputs * outputs).iter().map(|v| format!("{:02X}", v & 0xff)).collect();
    let bias: Vec<String> = support::lcg(8, outputs).iter().map(|v| (v % 40001 - 20000).to_string()).collect();
    let x = format!("tensor<1x1x1x{inputs}xi8>");
    let w = format!("tensor<{outputs}x1x1x{inputs}xi8>");
    let acc = format!("tensor<1x1x1x{outputs}xi32>");
    let y = format!("tensor<1x1x1x{outputs}xi8>");
    let text = format!(
        r#"func.func @main(%x: {x}) -> {y} {{
  %w = "tosa.const"() <{{values = dense<"0x{weights}"> : {w}}}> : () -> {w}
  %b = "tosa.const"() <{{values = dense<[{bias}]> : tensor<{outputs}xi32>}}> : () -> tensor<{outputs}xi32>
  %zp = "tosa.const"() <{{values = dense<-128> : tensor<1xi8>}}> : () -> tensor<1xi8>
  %wzp = "tosa.const"() <{{values = dense<0> : tensor<1xi8>}}> : () -> tensor<1xi8>
  %m = "tosa.const"() <{{values = dense<1518500250> : tensor<1xi32>}}> : () -> tensor<1xi32>
  %s = "tosa.const"() <{{values = dense<43> : tensor<1xi8>}}> : () -> tensor<1xi8>
  %izp = "tosa.const"() <{{values = dense<0> : tensor<1xi32>}}> : () -> tensor<1xi32>
  %ozp = "tosa.const"() <{{values = dense<3> : tensor<1xi8>}}> : () -> tensor<1xi8>
  %c = tosa.conv2d %x, %w, %b, %zp, %wzp {{acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>}} : ({x}, {w}, tensor<{outputs}xi32>, tensor<1xi8>, tensor<1xi8>) -> {acc}
  %r = tosa.rescale %c, %m, %s, %izp, %ozp {{input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = DOUBLE_ROUND, scale32 = true}} : ({acc}, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> {y}
  return %r : {y}
}}
"#,
        bias = bias.join(", "),
    );
    let input = Tensor {
        dtype: DType::I8,
        shape: vec![1, 1, 1, inputs],
        data: support::lcg(9, inputs).iter().map(|v| (v % 256) as u8).collect(),
    };
    let reference = support::host_reference(&text, &input, "a 2048x1152 fully connected layer");
    // The outputs differ from one another: the test would see a wrong byte.
    assert!(reference.data.iter().collect::<std::collections::HashSet<_>>().len() > 100);
    let work = std::env::temp_dir().join(format!("umac-external-constants-{}", std::process::id()));
    let case = (&input.data[..], &reference.data[..]);
    let what = "a 2048x1152 fully connected layer";
    let (firmware, program) = support::build_text(
        &text,
        CORTEX_M55,
        MPS3_AN547,
        &work.join("section"),
        case,
        what,
        Some(".external.weights"),
    );
    let weights_section = firmware.sections.iter().find(|(name, _)| name == ".external.weights");
    assert!(weights_section.is_some_and(|(_, bytes)| *bytes >= (inputs * outputs) as u64), "{:?}", firmware.sections);
    assert!(firmware.sections.iter().all(|(name, bytes)| name == ".external.weights" || *bytes < 64 * 1024));
    let outcome = run(MPS3_AN547, &program.unwrap(), Duration::from_secs(300)).unwrap();
    assert_eq!(outcome.status, Some(0), "{}", outcome.output);
    let (_, unplaced) = support::build_text(&text, CORTEX_M55, MPS3_AN547, &work.join("rodata"), case, what, None);
    assert!(unplaced.is_err(), "2.3 MB of .rodata linked into 512 KiB of flash");
    let _ = std::fs::remove_dir_all(&work);
}

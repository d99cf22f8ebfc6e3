//! `umac compile` from the command line: the files a firmware engineer links, and the errors
//! they will hit (unknown target, an op without a lowering, limits exceeded), each with a clear
//! message and exit code 1.

use std::{
    path::{Path, PathBuf},
    process::Command,
};

fn umac(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_umac")).args(args).output().expect("umac starts");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// `umac compile MODEL --target=TARGET -o OUT EXTRA...`.
fn compile(model: &Path, target: &str, out: &Path, extra: &[&str]) -> (i32, String) {
    let target = format!("--target={target}");
    let mut args = vec!["compile", model.to_str().unwrap(), &target, "-o", out.to_str().unwrap()];
    args.extend_from_slice(extra);
    umac(&args)
}

fn kws() -> PathBuf {
    umac_runtime::testdata::dir("models/mlperf-tiny/kws")
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("umac-compile-test-{}", std::process::id())).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// `text` written as `file` in a fresh directory `name`: the directory and the model's path.
fn model_in(name: &str, file: &str, text: &str) -> (PathBuf, PathBuf) {
    let dir = temp(name);
    std::fs::create_dir_all(&dir).unwrap();
    let model = dir.join(file);
    std::fs::write(&model, text).unwrap();
    (dir, model)
}

fn metadata(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("metadata.json")).unwrap()).unwrap()
}

#[test]
fn writes_object_header_and_metadata_named_after_the_model() {
    let kws = kws();
    let out = temp("default-name");
    let model = kws.join("model.mlir");
    let (code, stderr) = compile(&model, "cortex-m55", &out, &[]);
    assert_eq!(code, 0, "{stderr}");
    for file in ["model.o", "model.h", "metadata.json"] {
        assert!(out.join(file).is_file(), "{file} missing");
    }
    let header = std::fs::read_to_string(out.join("model.h")).unwrap();
    assert!(header.contains("int32_t model_run(const void *const inputs[], void *const outputs[], void *workspace);"));
    let m = metadata(&out);
    assert_eq!(m["name"], "model");
    assert_eq!(m["entry"], "model_run");
    assert_eq!(m["target"]["name"], "cortex-m55");
    assert_eq!(m["batch_fixed_to_1"], true);
    // A .mlir model carries no quantization parameters.
    assert!(m["inputs"][0]["scale"].is_null());
}

/// An `i48` result (a 16-bit matmul's) lives in an `int64_t` of which the code writes 6 bytes:
/// the header says so, and how to widen it.
#[test]
fn the_header_says_how_a_narrow_integer_is_stored() {
    let (out, model) = model_in(
        "i48",
        "matmul.mlir",
        "func.func @main(%a: tensor<1x2x3xi16>, %b: tensor<1x3x2xi16>) -> tensor<1x2x2xi48> {\n\
         %z = \"tosa.const\"() <{values = dense<0> : tensor<1xi16>}> : () -> tensor<1xi16>\n\
         %0 = tosa.matmul %a, %b, %z, %z : (tensor<1x2x3xi16>, tensor<1x3x2xi16>, tensor<1xi16>, tensor<1xi16>) -> tensor<1x2x2xi48>\n\
         return %0 : tensor<1x2x2xi48>\n}\n",
    );
    let (code, stderr) = compile(&model, "cortex-m55", &out, &[]);
    assert_eq!(code, 0, "{stderr}");
    let header = std::fs::read_to_string(out.join("matmul.h")).unwrap();
    assert!(
        header.contains(
            "int64_t [1, 2, 2], i48 in the low 6 bytes of each element, the others not written: sign-extend from bit 47 */\n\
             #define MATMUL_OUTPUT_0_SIZE 32\n"
        ),
        "{header}"
    );
    assert!(header.contains("/* input 0 'arg0': int16_t [1, 2, 3] */"), "{header}");
}

#[test]
fn tflite_models_convert_and_keep_their_quantization() {
    let kws = kws();
    let out = temp("tflite");
    let model = kws.join("model.tflite");
    let (code, stderr) = compile(&model, "cortex-m4", &out, &["--name", "kws"]);
    assert_eq!(code, 0, "{stderr}");
    let m = metadata(&out);
    // test/models/mlperf-tiny/kws/meta.json: input scale 0.5847029089927673, zero point 83;
    // output 0.00390625, -128.
    assert_eq!(m["inputs"][0]["scale"], serde_json::json!([0.584_702_9_f32]));
    assert_eq!(m["inputs"][0]["zero_point"], serde_json::json!([83]));
    assert_eq!(m["outputs"][0]["scale"], serde_json::json!([0.00390625]));
    assert_eq!(m["outputs"][0]["zero_point"], serde_json::json!([-128]));
    assert!(out.join("kws.o").is_file());
}

/// LSTM models: the converter leaves `tfl.unidirectional_sequence_lstm` (and the `tfl.no_value`
/// placeholders of its absent operands) in TFLite's dialect; umac reads the LSTM's quantization
/// from the .tflite file and compiles it. metadata.json names the LSTM operators (two stacked:
/// operators #0 and #1) and the state they keep between calls (TFLite's variable tensors).
#[test]
fn lstm_models_compile() {
    let dir = umac_runtime::testdata::dir("models/lstm-16x8");
    for (model, count, state) in [("lstm_small_int8.tflite", 1, 36), ("lstm_stack_int8.tflite", 2, 72)] {
        let out = temp(&format!("lstm-{count}"));
        let (code, stderr) = compile(&dir.join(model), "cortex-m4", &out, &[]);
        assert_eq!(code, 0, "{stderr}");
        let m = metadata(&out);
        assert_eq!(m["state_bytes"], state);
        let text = m["operators"].to_string();
        for index in 0..count {
            assert!(text.contains(&format!("operator #{index} (UNIDIRECTIONAL_SEQUENCE_LSTM, output '")), "{text}");
        }
    }
}

/// A TFLite operator the converter leaves that umac does not legalize is an error naming it,
/// with no advice about flags umac does not have; an LSTM that TFLite Micro's kernel does not take
/// (here: coupled input and forget gates, no input gate weights) is an error at the op. Exit code 1.
#[test]
fn tflite_operators_umac_cannot_take_are_errors_at_the_op() {
    let (dir, model) = model_in(
        "tfl-input",
        "tfl.mlir",
        "func.func @main(%x: tensor<2xi8>) -> tensor<2xi8> {\n  %0 = \"tfl.some_op\"(%x) : (tensor<2xi8>) -> \
         tensor<2xi8>\n  return %0 : tensor<2xi8>\n}\n",
    );
    let (code, stderr) = compile(&model, "cortex-m4", &temp("tfl"), &[]);
    assert_eq!(code, 1);
    let expected = "tfl.mlir:2:8: error: 'tfl.some_op' is the TFLite operator SOME_OP that the converter left \
                    unconverted: umac does not support it yet";
    assert!(stderr.contains(expected), "{stderr}");
    // The words, not the paths they name (the temporary directory's may hold anything).
    let words = stderr.replace(&dir.display().to_string(), "<dir>");
    assert!(!words.contains("unregistered") && !words.contains("allowUnregisteredDialects"), "{stderr}");
    let lit = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../test/lit/umac-legalize-tfl-lstm-invalid.mlir"),
    )
    .unwrap();
    // The first case of the lit test: CIFG.
    let cifg = lit.split("// -----").next().unwrap();
    let line = cifg.lines().position(|l| l.contains("\"tfl.unidirectional_sequence_lstm\"")).unwrap() + 1;
    let model = dir.join("cifg.mlir");
    std::fs::write(&model, cifg).unwrap();
    let (code, stderr) = compile(&model, "cortex-m4", &temp("cifg"), &["--entry", "cifg"]);
    assert_eq!(code, 1, "{stderr}");
    let expected = format!(
        "cifg.mlir:{line}:8: error: operand #1 is absent: an LSTM with coupled input and forget gates (CIFG) is not \
         supported yet"
    );
    assert!(stderr.contains(&expected), "{stderr}");
}

/// Every operator of a converted model is named in `metadata.json` by its index, TFLite name and
/// output tensor, in the model's order: the int16x8 conv net's six operators.
#[test]
fn metadata_names_the_tflite_operators() {
    let dir = umac_runtime::testdata::dir("models/lstm-16x8");
    let out = temp("conv-16x8-names");
    let (code, stderr) = compile(&dir.join("conv_16x8.tflite"), "cortex-m4", &out, &[]);
    assert_eq!(code, 0, "{stderr}");
    let m = metadata(&out);
    let mut named: Vec<String> = Vec::new();
    for op in m["operators"].as_array().unwrap() {
        for source in op["source_ops"].as_array().unwrap() {
            let source = source.as_str().unwrap();
            let (_, at) = source.split_once(" at ").unwrap();
            let (file, operator) = at.split_once(": ").unwrap();
            assert!(file.ends_with("conv_16x8.tflite"), "{source}");
            if !named.iter().any(|n| n == operator) {
                named.push(operator.to_string());
            }
        }
    }
    let kinds: Vec<&str> = named.iter().map(|n| n.split(['(', ',']).nth(1).unwrap()).collect();
    assert_eq!(kinds, ["CONV_2D", "DEPTHWISE_CONV_2D", "ADD", "AVERAGE_POOL_2D", "FULLY_CONNECTED"], "{named:?}");
    assert!(named[0].starts_with("operator #0 (CONV_2D, output '"), "{named:?}");
    assert!(named[4].starts_with("operator #5 (FULLY_CONNECTED, output 'StatefulPartitionedCall:0')"), "{named:?}");
}

/// An op of a dialect umac does not know is an error at the op, exit code 1.
#[test]
fn an_op_of_an_unknown_dialect_is_an_error_at_the_op() {
    let (_, model) = model_in(
        "foreign-input",
        "foreign.mlir",
        "func.func @main(%x: tensor<2xi8>) -> tensor<2xi8> {\n  %0 = \"mydialect.op\"(%x) : (tensor<2xi8>) -> \
         tensor<2xi8>\n  return %0 : tensor<2xi8>\n}\n",
    );
    let (code, stderr) = compile(&model, "cortex-m4", &temp("foreign"), &[]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains(
            "foreign.mlir:2:8: error: 'mydialect.op' is from a dialect umac does not know: umac cannot compile it"
        ),
        "{stderr}"
    );
}

/// `--constants-section`: the constants leave .rodata for the named section, which metadata.json
/// lists with its bytes and the header tells how to place; a name a linker script cannot match is
/// refused.
#[test]
fn constants_go_to_the_section_named() {
    let kws = kws();
    let out = temp("constants-section");
    let (code, stderr) = compile(
        &kws.join("model_b1.mlir"),
        "cortex-m4",
        &out,
        &["--constants-section=.ext_flash.kws", "--name", "kws"],
    );
    assert_eq!(code, 0, "{stderr}");
    let m = metadata(&out);
    assert_eq!(m["constants_section"], ".ext_flash.kws");
    let constants = m["constants_bytes"].as_u64().unwrap();
    assert!(constants > 25_000, "{m}");
    assert_eq!(m["sections"][".ext_flash.kws"].as_u64(), Some(constants), "{}", m["sections"]);
    assert!(m["sections"][".rodata"].is_null(), "{}", m["sections"]);
    let header = std::fs::read_to_string(out.join("kws.h")).unwrap();
    assert!(header.contains(&format!("Constants: {constants} bytes in section .ext_flash.kws (--constants-section)")));
    let (code, stderr) = compile(&kws.join("model_b1.mlir"), "cortex-m4", &out, &["--constants-section=ext flash"]);
    assert_eq!(code, 1);
    assert!(stderr.contains("'ext flash' is not a section name"), "{stderr}");
}

#[test]
fn size_optimization_makes_smaller_code() {
    // VWW: the largest code of the four models (on KWS, O3 and Os come out within 2%).
    let kws = kws();
    let model = kws.join("../vww/model.mlir");
    let mut text = Vec::new();
    for opt in ["speed", "size"] {
        let out = temp(&format!("opt-{opt}"));
        let (code, stderr) = compile(&model, "cortex-m4", &out, &["--opt", opt]);
        assert_eq!(code, 0, "{stderr}");
        let m = metadata(&out);
        assert_eq!(m["target"]["opt"], opt);
        text.push(m["text_bytes"].as_u64().unwrap());
    }
    assert!(text[1] < text[0], "Os code ({}) is not smaller than O3 code ({})", text[1], text[0]);
}

#[test]
fn unknown_target_lists_the_known_ones() {
    let kws = kws();
    let model = kws.join("model.mlir");
    let (code, stderr) = umac(&["compile", model.to_str().unwrap(), "--target=cortex-m99", "-o", "/nonexistent"]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains(
            "error: unknown target 'cortex-m99' (known accelerators: vanilla, tynnp; CPUs: cortex-m85, cortex-m55, cortex-m33, cortex-m7, cortex-m4, cortex-m3, cortex-m0plus, rv32imc, rv32im, host)"
        ),
        "{stderr}"
    );
    let errors = [
        (
            "vanilla",
            "error: --target 'vanilla' names no CPU; end it with one of cortex-m85, cortex-m55, cortex-m33, cortex-m7, cortex-m4, cortex-m3, cortex-m0plus, rv32imc, rv32im, host",
        ),
        (
            "vanilla -size=2,cortex-m55",
            "error: vanilla has no attribute '-size' (accepted: -dimension=<int> (default 16",
        ),
        ("vanilla -dimension=x,cortex-m55", "error: '-dimension=x' for vanilla: the attribute takes an int"),
        (
            "cortex-m55,vanilla",
            "error: 'vanilla' follows the CPU in 'cortex-m55,vanilla': accelerators come first, the CPU last",
        ),
        // tynnp's kernels are RV32 code for its control unit.
        (
            "tynnp,cortex-m55",
            "error: tynnp is driven by its rv32im control unit: name rv32imc, rv32im or host as the CPU, not cortex-m55",
        ),
    ];
    for (target, message) in errors {
        let (code, stderr) = compile(&model, target, Path::new("/nonexistent"), &[]);
        assert_eq!(code, 1, "{target}");
        assert!(stderr.contains(message), "{target}: {stderr}");
    }
}

/// `--target="vanilla,cortex-m55" --report`: the convolutions go to vanilla, the report and
/// metadata.json say where every op runs (with its source location), the header includes the
/// kernel's declarations, and the object calls the kernel.
#[test]
fn accelerators_report_where_each_op_runs() {
    let kws = kws();
    let out = temp("vanilla");
    let model = kws.join("model.mlir");
    let output = Command::new(env!("CARGO_BIN_EXE_umac"))
        .args(["compile", model.to_str().unwrap(), "--target=vanilla -dimension=8,cortex-m55", "-o"])
        .arg(&out)
        .arg("--report")
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(report.starts_with("placement of 68 ops: 54 on cortex-m55, 14 on vanilla\n"), "{report}");
    assert!(
        report.contains(
            "model.mlir:70:11: tosa.conv2d -> cortex-m55 (not claimed: vanilla.conv2d: the kernel fits the 8x8 array failed)"
        ),
        "{report}"
    );
    assert!(report.contains("model.mlir:77:11: tosa.conv2d -> vanilla (vanilla.conv2d in @vanilla_0)"), "{report}");
    assert!(report.contains("model.mlir:74:11: tosa.depthwise_conv2d -> cortex-m55\n"), "{report}");
    let m = metadata(&out);
    let placement = m["placement"].as_array().unwrap();
    assert_eq!(placement.len(), 68);
    let first = &placement[0];
    assert_eq!((first["op"].as_str(), first["target"].as_str()), (Some("tosa.conv2d"), Some("cortex-m55")));
    assert_eq!(first["reason"], "vanilla.conv2d: the kernel fits the 8x8 array failed");
    assert!(first["location"].as_str().unwrap().ends_with("model.mlir:70:11"));
    let vanilla_ops = placement.iter().filter(|p| p["target"] == "vanilla").count();
    assert_eq!(vanilla_ops, 14);
    assert_eq!(m["accelerators"][0]["name"], "vanilla");
    assert_eq!(m["accelerators"][0]["attributes"]["dimension"], "8");
    assert_eq!(m["extern_functions"][0]["symbol"], "vanilla_conv2d_s8");
    // vanilla says nothing of its calls.
    assert_eq!(m["accelerator_calls"], serde_json::json!([]));
    let operators = m["operators"].as_array().unwrap();
    let accelerated: Vec<&serde_json::Value> = operators.iter().filter(|o| o["target"] == "vanilla").collect();
    assert_eq!(accelerated.len(), 5, "{operators:?}");
    assert_eq!(accelerated[0]["function"], "vanilla_0");
    assert_eq!(accelerated[0]["composite"], "vanilla.conv2d");
    let sources: Vec<&str> =
        accelerated[0]["source_ops"].as_array().unwrap().iter().filter_map(|s| s.as_str()).collect();
    assert_eq!(sources.len(), 3, "conv2d, rescale and clamp: {sources:?}");
    assert!(sources[0].starts_with("tosa.conv2d at ") && sources[0].ends_with("model.mlir:77:11"), "{sources:?}");
    let header = std::fs::read_to_string(out.join("model.h")).unwrap();
    assert!(header.contains("#include \"umac/vanilla.h\""), "{header}");
    let object = std::fs::read(out.join("model.o")).unwrap();
    assert!(object.windows(17).any(|w| w == b"vanilla_conv2d_s8"));
}

/// `--target=tynnp`: metadata.json describes every NPU kernel: its split, its DM regions and the
/// cycles it should take. KWS's first convolution folds its ten kernel rows and four kernel
/// columns into its input channels (im2col: its input staged in DM, each tile gathered by three
/// copies a kernel row: the inner output columns' four taps at once, each border column's taps
/// inside the input), runs in two tiles, double-buffered, writes its output in place where it
/// stays in DM for the depthwise convolution (no output tiles), copies that one's constants and
/// the next convolution's, and hands its jobs on to it (their tokens in a table in DM).
#[test]
fn tynnp_kernels_have_plans_in_the_metadata() {
    let kws = kws();
    let out = temp("tynnp");
    let (code, stderr) = compile(&kws.join("model.mlir"), "tynnp", &out, &[]);
    assert_eq!(code, 0, "{stderr}");
    let m = metadata(&out);
    let calls = m["accelerator_calls"].as_array().unwrap();
    // Five convolutions, four depthwise ones, a pooling, the fully connected layer (the
    // softmax's four table lookups are one, on the control unit: umac-tabulate-lookups).
    assert_eq!(calls.len(), 11, "{calls:?}");
    let first = &calls[0];
    assert_eq!(first["target"], "tynnp");
    assert_eq!(first["callee"], "tynnp_conv2d_im2col_k3_r10_wo_pf_pff_h_t2");
    assert!(first["locations"][0].as_str().unwrap().ends_with("model.mlir:70:11"), "{first}");
    let plan = &first["plan"];
    assert_eq!((plan["tiles"].as_u64(), plan["gather_copies"].as_u64()), (Some(2), Some(3)), "{plan}");
    assert_eq!(plan["im2col_kernel_rows"].as_u64(), Some(10));
    assert_eq!(plan["folded"], true);
    assert_eq!(plan["double_buffered"], true);
    let holds: Vec<&str> = plan["dm"].as_array().unwrap().iter().filter_map(|r| r["holds"].as_str()).collect();
    assert_eq!(
        holds,
        [
            "constants",
            "input tile",
            "input tile",
            "input, staged for the gather",
            "output, kept for the kernels after",
            "the next kernel's constants",
            "the constants of a kernel further ahead",
            "the jobs' tokens, handed on to the kernel after"
        ]
    );
    // The NU is the busiest unit: 25x5 outputs x 3 passes of the 40 folded channels x 4 blocks of
    // 16 output channels, the 32-cycle fill per tile and a cycle per pixel and block.
    assert_eq!(plan["unit_cycles"]["nu"].as_u64(), Some(25 * 5 * 3 * 4 + 2 * 32 + 25 * 5 * 4));
    assert_eq!(plan["expected_cycles"], plan["unit_cycles"]["nu"]);
    // The mailbox of copies' tokens, a word a kernel, of the function of 11 kernels: 44 bytes of
    // .dmem, which the header tells firmware to place in the control unit's DMEM.
    assert_eq!((m["local_bytes"].as_u64(), m["sections"][".dmem"].as_u64()), (Some(44), Some(44)), "{m}");
    let header = std::fs::read_to_string(out.join("model.h")).unwrap();
    assert!(header.contains(" * Local: 44 bytes in section .dmem,"), "{header}");
    assert!(header.contains("`.dmem (NOLOAD) : { *(.dmem) } > DMEM`"), "{header}");
    assert!(!header.contains("section .dmem."), "not constants: {header}");
}

/// The output directory is all a firmware build needs: the kernel's source and header sit beside
/// the object, metadata.json lists them relative to the directory, and the header declares the
/// kernel with the prototype umac checked the calls against — which the C compiler holds to the
/// kernel's own header.
#[test]
fn the_output_directory_carries_the_kernels() {
    let kws = kws();
    let out = temp("self-contained");
    let (code, stderr) = compile(&kws.join("model.mlir"), "vanilla,cortex-m55", &out, &[]);
    assert_eq!(code, 0, "{stderr}");
    let m = metadata(&out);
    let kernel = &m["extern_functions"][0];
    assert_eq!(kernel["source"], "kernels/vanilla.c");
    assert_eq!(kernel["headers"], serde_json::json!(["include/umac/vanilla.h"]));
    assert_eq!(kernel["include_dir"], "include");
    let prototype = kernel["prototype"].as_str().unwrap();
    assert!(prototype.starts_with("void vanilla_conv2d_s8(const int8_t *input, const int8_t *filter,"), "{prototype}");
    assert!(out.join("kernels/vanilla.c").is_file() && out.join("include/umac/vanilla.h").is_file());
    let header = std::fs::read_to_string(out.join("model.h")).unwrap();
    assert!(header.contains(prototype), "{header}");
    assert!(header.contains("link with kernels/vanilla.c (-I include), beside this header"), "{header}");
    // One program including the header and compiling the kernel, from the directory alone.
    std::fs::write(out.join("use.c"), "#include \"model.h\"\nint main(void) { return 0; }\n").unwrap();
    let status = Command::new("cc")
        .current_dir(&out)
        .args(["-std=c99", "-Wall", "-Wextra", "-Werror", "-Iinclude", "-c", "use.c", "kernels/vanilla.c"])
        .status()
        .unwrap();
    assert!(status.success());
}

#[test]
fn an_op_without_lowering_is_named_at_its_location() {
    let (dir, model) = model_in(
        "custom",
        "custom.mlir",
        "func.func @main(%x: tensor<1x4xi8>) -> tensor<1x4xi8> {\n  \
         %y = tosa.custom %x {operator_name = \"my_op\", domain_name = \"acme\", implementation_attrs = \"\"} \
         : (tensor<1x4xi8>) -> tensor<1x4xi8>\n  return %y : tensor<1x4xi8>\n}\n",
    );
    let (code, stderr) = compile(&model, "cortex-m4", &dir, &[]);
    assert_eq!(code, 1);
    assert!(stderr.contains("custom.mlir:2:8: error: failed to legalize operation 'tosa.custom'"), "{stderr}");
    assert!(!dir.join("custom.o").exists());
}

#[test]
fn limits_name_the_sizes() {
    let kws = kws();
    let model = kws.join("model.mlir");
    let out = temp("limits");
    let (code, stderr) = compile(&model, "cortex-m4", &out, &["--max-workspace=1000"]);
    assert_eq!(code, 1);
    assert!(stderr.contains("-byte workspace, more than --max-workspace=1000"), "{stderr}");
    let (code, stderr) = compile(&model, "cortex-m4", &out, &["--max-flash=4096"]);
    assert_eq!(code, 1);
    assert!(stderr.contains("bytes of flash (") && stderr.contains("more than --max-flash=4096"), "{stderr}");
    assert!(!out.exists(), "nothing is written when a limit is exceeded");
    // Generous limits pass.
    let (code, stderr) = compile(&model, "cortex-m4", &out, &["--max-workspace=65536", "--max-flash=262144"]);
    assert_eq!(code, 0, "{stderr}");
    let m = metadata(&out);
    let (text, rodata) = (m["text_bytes"].as_u64().unwrap(), m["constants_bytes"].as_u64().unwrap());
    // With the constants in a section of their own, only the code counts against --max-flash.
    let placed = ["--constants-section=.ext_flash", "--max-flash"];
    let (code, stderr) = compile(&model, "cortex-m4", &out, &[placed[0], &format!("{}={}", placed[1], text)]);
    assert_eq!(code, 0, "{stderr}");
    let _ = std::fs::remove_dir_all(&out);
    let (code, stderr) = compile(&model, "cortex-m4", &out, &[placed[0], &format!("{}={}", placed[1], text - 1)]);
    assert_eq!(code, 1);
    let expected = format!(
        "the model needs {text} bytes of flash ({text} of code, 0 of constants; the {rodata} bytes of constants in \
         .ext_flash are not counted), more than --max-flash={}",
        text - 1
    );
    assert!(stderr.contains(&expected), "{stderr}");
}

#[test]
fn bad_names_and_shapes_are_rejected() {
    let kws = kws();
    let model = kws.join("model.mlir");
    let out = temp("bad");
    let (code, stderr) = compile(&model, "host", &out, &["--name", "my-model"]);
    assert_eq!(code, 1);
    assert!(stderr.contains("--name 'my-model' is not a C identifier"), "{stderr}");
    let (code, stderr) = compile(&model, "host", &out, &["--shape", "1x49x11x1"]);
    assert_eq!(code, 1);
    assert!(stderr.contains("--shape 1x49x11x1 does not fit input 'input_1' of type ?x49x10x1xi8"), "{stderr}");
    let (code, stderr) = compile(&model, "host", &out, &["--shape", "2x49x10x1"]);
    assert_eq!(code, 0, "a batch of 2 compiles: {stderr}");
    let m = metadata(&out);
    assert_eq!(m["inputs"][0]["shape"], serde_json::json!([2, 49, 10, 1]));
    assert_eq!(m["batch_fixed_to_1"], false);
}

/// Exponentials, sigmoids, tanhs, logarithms, sines and cosines become float arithmetic on
/// firmware (`umac-expand-exp-tanh`, `umac-expand-log-sin-cos`): the conformance tests' float
/// `exp` and a `log` compile for Cortex-M4 importing no libm function. A float math function umac
/// does not expand (`pow`) is named: firmware links no libm.
#[test]
fn a_float_math_function_is_named() {
    let suite = umac_runtime::testdata::dir("tosa-conformance");
    let out = temp("float-exp");
    let (code, stderr) = compile(&suite.join("exp/exp_0_f32/test.mlir"), "cortex-m4", &out, &[]);
    assert_eq!(code, 0, "{stderr}");
    let imports = metadata(&out)["imports"].clone();
    assert!(imports.as_array().unwrap().iter().all(|i| i.as_str().unwrap().starts_with("mem")), "{imports}");
    let (_, model) = model_in(
        "float-log-input",
        "log.mlir",
        "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = tosa.log %x : (tensor<4xf32>) -> \
         tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n",
    );
    let out = temp("float-log");
    let (code, stderr) = compile(&model, "cortex-m4", &out, &[]);
    assert_eq!(code, 0, "{stderr}");
    let imports = metadata(&out)["imports"].clone();
    assert!(imports.as_array().unwrap().iter().all(|i| i.as_str().unwrap().starts_with("mem")), "{imports}");
    let (_, model) = model_in(
        "float-pow-input",
        "pow.mlir",
        "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = tosa.pow %x, %x : (tensor<4xf32>, \
         tensor<4xf32>) -> tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n",
    );
    let out = temp("float-pow");
    let (code, stderr) = compile(&model, "cortex-m4", &out, &[]);
    assert_eq!(code, 1);
    assert!(stderr.contains("the generated code calls powf, which firmware output does not provide"), "{stderr}");
    // Host objects are held to the same rule (they link into the same kind of program).
    let (code, stderr) = compile(&model, "host", &out, &[]);
    assert_eq!(code, 1, "{stderr}");
}

/// A fully connected layer with a softmax (KWS's last two layers) needs no buffer for the
/// softmax's int32 exponentials: `umac-recompute-elementwise` computes them in the sum and again
/// in each output, as TFLite Micro's kernel does. The workspace is the 80 bytes of TFLite Micro's
/// whole arena (which holds the input and output too); materialized, the exponentials took it to
/// 112.
#[test]
fn softmax_keeps_no_exponentials_in_the_workspace() {
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("../test/lit/Inputs/kws_fc_softmax.mlir");
    for cpu in ["cortex-m55", "cortex-m4"] {
        let out = temp(&format!("fc-softmax-{cpu}"));
        let (code, stderr) = compile(&model, cpu, &out, &[]);
        assert_eq!(code, 0, "{stderr}");
        let workspace = &metadata(&out)["workspace"];
        assert_eq!(workspace["bytes"].as_u64(), Some(80), "{cpu}: {workspace}");
        assert_eq!(workspace["liveness_lower_bound"].as_u64(), Some(80), "{cpu}: {workspace}");
    }
}

/// KWS with a MEAN in place of its average pooling (`test/models/kws-mean`): the mean's sums read
/// the last convolution's requantized int8 values, not its int32 accumulators
/// (`umac-narrow-reduction-inputs`), so the workspace is TFLite Micro's activation arena (the
/// head of its arena report, `ref/tflm.json`), 16,000 bytes; with the accumulators it was 40,000.
#[test]
fn a_mean_keeps_the_workspace_within_tflite_micros_arena() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../test/models/kws-mean");
    let tflm: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("ref/tflm.json")).unwrap()).unwrap();
    let arena = tflm["arena_head_bytes"].as_u64().unwrap();
    assert_eq!(arena, 16000);
    for cpu in ["cortex-m55", "cortex-m4"] {
        let out = temp(&format!("kws-mean-{cpu}"));
        let (code, stderr) = compile(&dir.join("model.mlir"), cpu, &out, &[]);
        assert_eq!(code, 0, "{stderr}");
        let workspace = &metadata(&out)["workspace"];
        assert_eq!(workspace["bytes"].as_u64(), Some(arena), "{cpu}: {workspace}");
        assert_eq!(workspace["liveness_lower_bound"].as_u64(), Some(arena), "{cpu}: {workspace}");
    }
}

/// The same model and flags give the same bytes: compiled from three directories a second apart,
/// every file written (object, header, metadata, the accelerator's kernel sources) is identical
/// (bufferization's constant globals are ordered by first use: upstream orders them by memory
/// addresses when a partitioned model has several functions);
/// `metadata.json` and the header carry the model file's SHA-256 (checked with `sha256sum`) and
/// umac's version.
#[test]
fn output_is_byte_reproducible_and_names_the_model_digest() {
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("../test/models/kws-mean/model.tflite");
    let root = temp("reproducible");
    let mut outputs = Vec::new();
    for dir in ["first", "second/deeper", "third"] {
        let dir = root.join(dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::copy(&model, dir.join("model.tflite")).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_umac"))
            .current_dir(&dir)
            .args(["compile", "model.tflite", "--target=vanilla,cortex-m4", "-o", "out"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        outputs.push(dir.join("out"));
        std::thread::sleep(std::time::Duration::from_millis(1100));
    }
    let files = |dir: &Path| {
        let mut found = Vec::new();
        let mut pending = vec![dir.to_path_buf()];
        while let Some(at) = pending.pop() {
            for entry in std::fs::read_dir(&at).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    pending.push(path);
                } else {
                    found.push(path.strip_prefix(dir).unwrap().to_path_buf());
                }
            }
        }
        found.sort();
        found
    };
    let first = files(&outputs[0]);
    assert_eq!(first, files(&outputs[1]));
    assert_eq!(first, files(&outputs[2]));
    for name in ["model.o", "model.h", "metadata.json"] {
        assert!(first.contains(&PathBuf::from(name)), "{first:?}");
    }
    assert!(first.iter().any(|f| f.extension().is_some_and(|e| e == "c")), "the kernel sources: {first:?}");
    for file in &first {
        let bytes: Vec<Vec<u8>> = outputs.iter().map(|out| std::fs::read(out.join(file)).unwrap()).collect();
        assert!(bytes[1] == bytes[0] && bytes[2] == bytes[0], "{} differs between the compiles", file.display());
    }
    let sum = Command::new("sha256sum").arg(&model).output().unwrap();
    let digest = String::from_utf8(sum.stdout).unwrap().split_whitespace().next().unwrap().to_string();
    assert_eq!(digest.len(), 64);
    let m = metadata(&outputs[0]);
    assert_eq!(m["source"], "model.tflite");
    assert_eq!(m["source_sha256"], digest.as_str());
    assert_eq!(m["umac_version"], env!("CARGO_PKG_VERSION"));
    let header = std::fs::read_to_string(outputs[0].join("model.h")).unwrap();
    assert!(header.contains(&format!("The model's SHA-256: {digest}.")), "{header}");
}

/// `--profile-hooks`: the header declares the hooks and the operator count, metadata.json names
/// the hooks and gives each operator its id, MACs and bytes; without the flag there are no hooks.
#[test]
fn profile_hooks_are_declared_and_listed() {
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("../test/models/kws-mean/model.mlir");
    let out = temp("hooks");
    let (code, stderr) = compile(&model, "cortex-m4", &out, &["--name", "kws", "--profile-hooks"]);
    assert_eq!(code, 0, "{stderr}");
    let m = metadata(&out);
    assert_eq!(m["profile_hooks"], serde_json::json!({"begin": "kws_op_begin", "end": "kws_op_end"}));
    let operators = m["operators"].as_array().unwrap();
    for (k, op) in operators.iter().enumerate() {
        assert_eq!(op["id"], k);
        assert!(op["bytes"].as_u64().unwrap() > 0, "{op}");
    }
    // KWS's layers are unchanged by the MEAN: 2,656,768 multiply-accumulates.
    assert_eq!(operators.iter().map(|op| op["macs"].as_u64().unwrap()).sum::<u64>(), 2_656_768);
    let header = std::fs::read_to_string(out.join("kws.h")).unwrap();
    assert!(header.contains(&format!("#define KWS_NUM_OPS {}\n", operators.len())), "{header}");
    assert!(header.contains("void kws_op_begin(uint32_t op);\nvoid kws_op_end(uint32_t op);"), "{header}");
    let plain = temp("no-hooks");
    let (code, stderr) = compile(&model, "cortex-m4", &plain, &["--name", "kws"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(metadata(&plain)["profile_hooks"].is_null());
    assert!(!std::fs::read_to_string(plain.join("kws.h")).unwrap().contains("op_begin"));
}

/// `--output-format=mlf`: one tar laid out as microTVM's Model Library Format, holding the same
/// object and header as the directory output, the kernels' sources and headers where
/// metadata.json says, and a README; the same bytes from two compiles.
#[test]
fn model_library_format_archives_the_output() {
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("../test/models/kws-mean/model.mlir");
    let root = temp("mlf");
    let dir = root.join("dir");
    let target = "vanilla,cortex-m55";
    let (code, stderr) = compile(&model, target, &dir, &["--name", "kws"]);
    assert_eq!(code, 0, "{stderr}");
    let mut archives = Vec::new();
    for run in ["a", "b"] {
        let archive = root.join(run).join("kws.tar");
        let (code, stderr) = compile(&model, target, &archive, &["--name", "kws", "--output-format=mlf"]);
        assert_eq!(code, 0, "{stderr}");
        archives.push(std::fs::read(&archive).unwrap());
    }
    assert!(archives[0] == archives[1], "two compiles give the same archive");
    let extracted = root.join("extracted");
    std::fs::create_dir_all(&extracted).unwrap();
    let tar = Command::new("tar").arg("xf").arg(root.join("a/kws.tar")).arg("-C").arg(&extracted).status().unwrap();
    assert!(tar.success());
    let listing = Command::new("tar").arg("tf").arg(root.join("a/kws.tar")).output().unwrap();
    let entries: Vec<String> = String::from_utf8(listing.stdout).unwrap().lines().map(str::to_string).collect();
    assert_eq!(
        entries,
        [
            "README.md",
            "codegen/host/include/kws.h",
            "codegen/host/lib/kws.o",
            "codegen/host/src/vanilla.c",
            "metadata.json",
            "runtime/include/umac/vanilla.h"
        ]
    );
    let same = |a: &str, b: &str| std::fs::read(extracted.join(a)).unwrap() == std::fs::read(dir.join(b)).unwrap();
    assert!(same("codegen/host/lib/kws.o", "kws.o") && same("codegen/host/include/kws.h", "kws.h"));
    assert!(same("codegen/host/src/vanilla.c", "kernels/vanilla.c"));
    let m = metadata(&extracted);
    assert_eq!(m["mlf"]["version"], 1);
    assert_eq!(m["workspace"], metadata(&dir)["workspace"]);
    let kernel = &m["extern_functions"][0];
    assert!(extracted.join(kernel["source"].as_str().unwrap()).is_file(), "{kernel}");
    assert!(extracted.join(kernel["headers"][0].as_str().unwrap()).is_file(), "{kernel}");
    let readme = std::fs::read_to_string(extracted.join("README.md")).unwrap();
    assert!(readme.contains("codegen/host/lib/kws.o") && readme.contains("KWS_WORKSPACE_SIZE"), "{readme}");
}

/// The attributes of every `<TAG class="CLASS" ...>` of `svg`, by name.
fn svg_elements(svg: &str, tag: &str, class: &str) -> Vec<std::collections::HashMap<String, String>> {
    let opening = format!("<{tag} class=\"{class}\" ");
    svg.match_indices(&opening)
        .map(|(at, _)| {
            let rest = &svg[at + opening.len() - 1..];
            let end = rest.find('>').unwrap();
            let mut attributes = std::collections::HashMap::new();
            let mut text = &rest[..end];
            while let Some(eq) = text.find("=\"") {
                let name = text[..eq].trim().to_string();
                let value_end = text[eq + 2..].find('"').unwrap();
                attributes.insert(name, text[eq + 2..eq + 2 + value_end].to_string());
                text = &text[eq + 3 + value_end..];
            }
            attributes
        })
        .collect()
}

/// `--report-html`: the page's workspace picture has one rectangle per planned buffer of
/// metadata.json, where its offset, bytes and operators put it at the picture's scale; the
/// operator picture one box per operator, coloured by target (the tutorial accelerator's
/// convolutions apart from the CPU's ops). The plan itself is sound: buffers alive at the same
/// operator never overlap, and all lie inside the workspace.
#[test]
fn the_html_report_draws_the_plan_of_the_metadata() {
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("../test/models/kws-mean/model.mlir");
    let out = temp("html");
    let report = temp("html-report");
    let args = ["--name", "kws", "--report-html", report.to_str().unwrap()];
    let (code, stderr) = compile(&model, "vanilla,cortex-m55", &out, &args);
    assert_eq!(code, 0, "{stderr}");
    let m = metadata(&out);
    let html = std::fs::read_to_string(report.join("index.html")).unwrap();
    assert!(!html.contains("<script") && !html.contains("src=\"") && !html.contains("href=\""), "self-contained");
    let plan_at = html.find("<svg id=\"plan\"").unwrap();
    let plan = &html[plan_at..plan_at + html[plan_at..].find("</svg>").unwrap()];
    let svg_tag = &plan[..plan.find('>').unwrap()];
    let number = |text: &str, name: &str| -> f64 {
        let key = format!("{name}=\"");
        let at = text.find(&key).unwrap_or_else(|| panic!("{name} in {text}")) + key.len();
        text[at..at + text[at..].find('"').unwrap()].parse().unwrap()
    };
    let (x0, y0, width, scale) = (
        number(svg_tag, "data-x0"),
        number(svg_tag, "data-y0"),
        number(svg_tag, "data-op-width"),
        number(svg_tag, "data-byte-scale"),
    );
    let workspace = m["workspace"]["bytes"].as_u64().unwrap();
    assert_eq!(number(svg_tag, "data-workspace-bytes") as u64, workspace);
    let pool = &m["memory_plan"]["pools"][0];
    assert_eq!(pool["bytes"], workspace);
    let buffers = pool["buffers"].as_array().unwrap();
    let rects = svg_elements(plan, "rect", "buffer");
    assert!(buffers.len() > 5, "{buffers:?}");
    assert_eq!(rects.len(), buffers.len());
    let close = |a: f64, b: f64| (a - b).abs() < 1e-6;
    for (rect, buffer) in rects.iter().zip(buffers) {
        let get = |key: &str| buffer[key].as_u64().unwrap();
        let attr = |key: &str| rect[key].parse::<f64>().unwrap();
        for key in ["id", "offset", "bytes"] {
            assert_eq!(rect[&format!("data-{key}")], get(key).to_string(), "{rect:?} {buffer}");
        }
        let (first, last) = (get("first_op") as f64, get("last_op") as f64);
        assert!(close(attr("x"), x0 + width * first), "{rect:?} {buffer}");
        assert!(close(attr("width"), width * (last - first + 1.0)), "{rect:?} {buffer}");
        assert!(close(attr("y"), y0 + scale * get("offset") as f64), "{rect:?} {buffer}");
        assert!(close(attr("height"), (scale * get("bytes") as f64).max(1.0)), "{rect:?} {buffer}");
        assert!(get("offset") + get("bytes") <= workspace, "{buffer}");
    }
    for (i, a) in buffers.iter().enumerate() {
        for b in &buffers[i + 1..] {
            let span = |x: &serde_json::Value, key: &str| x[key].as_u64().unwrap();
            let live_together = span(a, "first_op") <= span(b, "last_op") && span(b, "first_op") <= span(a, "last_op");
            let share_bytes = span(a, "offset") < span(b, "offset") + span(b, "bytes")
                && span(b, "offset") < span(a, "offset") + span(a, "bytes");
            assert!(!(live_together && share_bytes), "{a} and {b} overlap while both are alive");
        }
    }
    let boxes = svg_elements(&html, "rect", "operator");
    let operators = m["operators"].as_array().unwrap();
    assert_eq!(boxes.len(), operators.len());
    for (rect, op) in boxes.iter().zip(operators) {
        assert_eq!(rect["data-id"], op["id"].to_string());
        assert_eq!(rect["data-target"], op["target"].as_str().unwrap());
    }
    let fill = |target: &str| boxes.iter().find(|r| r["data-target"] == target).map(|r| r["fill"].clone()).unwrap();
    assert_ne!(fill("vanilla"), fill("cortex-m55"));
}

/// `--pool`: the header defines each pool's size and N_run takes one workspace per pool;
/// metadata.json lists each pool's capacity, bytes and buffers. Pools too small for the model are
/// an error naming them, their capacities and what the model needs; a malformed pool is an error
/// too; exit code 1 and nothing written.
#[test]
fn pools_split_the_workspace_or_name_what_does_not_fit() {
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("../test/models/kws-mean/model.mlir");
    let out = temp("pools");
    let (code, stderr) =
        compile(&model, "cortex-m4", &out, &["--name", "kws", "--pool", "tcm:8K:fast", "--pool", "sram:1M"]);
    assert_eq!(code, 0, "{stderr}");
    let m = metadata(&out);
    let pools = m["memory_plan"]["pools"].as_array().unwrap();
    assert_eq!(pools.iter().map(|p| p["name"].as_str().unwrap()).collect::<Vec<_>>(), ["tcm", "sram"]);
    assert_eq!((pools[0]["capacity"].as_u64(), pools[0]["fast"].as_bool()), (Some(8192), Some(true)));
    assert_eq!((pools[1]["capacity"].as_u64(), pools[1]["fast"].as_bool()), (Some(1 << 20), Some(false)));
    let header = std::fs::read_to_string(out.join("kws.h")).unwrap();
    for pool in pools {
        let bytes = pool["bytes"].as_u64().unwrap();
        assert!(bytes <= pool["capacity"].as_u64().unwrap() && !pool["buffers"].as_array().unwrap().is_empty());
        let name = pool["name"].as_str().unwrap().to_ascii_uppercase();
        assert!(header.contains(&format!("#define KWS_POOL_{name}_SIZE {bytes} ")), "{header}");
        for buffer in pool["buffers"].as_array().unwrap() {
            assert!(buffer["offset"].as_u64().unwrap() + buffer["bytes"].as_u64().unwrap() <= bytes, "{buffer}");
        }
    }
    assert!(header.contains("void *pool_tcm, void *pool_sram);") && !header.contains("KWS_WORKSPACE_SIZE"), "{header}");
    let small = temp("pools-small");
    let (code, stderr) = compile(&model, "cortex-m4", &small, &["--pool", "a:1K:fast", "--pool", "b:4K"]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains(
            "error: umac-plan-memory: the workspace does not fit the pools a (1024 bytes), b (4096 bytes): a 8000-byte \
             buffer fits in none of them after the more accessed ones, and the buffers alive at the busiest point take \
             16000 bytes"
        ),
        "{stderr}"
    );
    assert!(!small.exists());
    let (code, stderr) = compile(&model, "cortex-m4", &small, &["--pool", "a:lots"]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("--pool: pool 'a:lots': expected NAME:SIZE[:fast][:cpu] (e.g. dtcm:64K:fast:cpu)"),
        "{stderr}"
    );
}

/// `--emit=c`: N.c in place of N.o (the header and metadata as for the object, metadata naming
/// the code), also with an accelerator, whose kernel the C calls.
#[test]
fn c_source_replaces_the_object() {
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("../test/models/kws-mean/model.mlir");
    let out = temp("emit-c");
    let (code, stderr) = compile(&model, "cortex-m55", &out, &["--name", "kws", "--emit=c"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(out.join("kws.c").is_file() && out.join("kws.h").is_file() && !out.join("kws.o").exists());
    let m = metadata(&out);
    assert_eq!(m["code"], "kws.c");
    let source = std::fs::read_to_string(out.join("kws.c")).unwrap();
    assert!(source.contains("#include \"kws.h\"") && source.contains("int32_t kws_run(const void *const inputs[]"));
    for operator in m["operators"].as_array().unwrap() {
        let id = operator["id"].as_u64().unwrap();
        assert!(source.contains(&format!("/* Operator {id}: ")), "operator {id}");
    }
    // In a Model Library Format archive the C source goes where microTVM's did.
    let archive = temp("emit-c-mlf").join("kws.tar");
    let (code, stderr) = compile(&model, "cortex-m55", &archive, &["--name", "kws", "--emit=c", "--output-format=mlf"]);
    assert_eq!(code, 0, "{stderr}");
    let listing = Command::new("tar").arg("tf").arg(&archive).output().unwrap();
    let entries = String::from_utf8(listing.stdout).unwrap();
    assert_eq!(entries, "README.md\ncodegen/host/include/kws.h\ncodegen/host/src/kws.c\nmetadata.json\n");
    // With an accelerator: its kernel is called from the C and its sources are written beside it.
    let vanilla = temp("emit-c-vanilla");
    let (code, stderr) = compile(&model, "vanilla,cortex-m55", &vanilla, &["--name", "kws", "--emit=c"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(std::fs::read_to_string(vanilla.join("kws.c")).unwrap().contains("vanilla_conv2d_s8("));
    assert!(vanilla.join("kernels/vanilla.c").is_file());
}

/// `--share-workspace-with`: a model compiled to share another's workspace defines the larger of
/// the two sizes (and metadata.json lists the models); a file that is not a metadata.json is an
/// error and exit code 1.
#[test]
fn a_shared_workspace_takes_the_larger_size() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let (kws, small) = (temp("share-kws"), temp("share-small"));
    let (code, stderr) = compile(&root.join("test/models/kws-mean/model.mlir"), "cortex-m4", &kws, &["--name", "kws"]);
    assert_eq!(code, 0, "{stderr}");
    let kws_bytes = metadata(&kws)["workspace"]["bytes"].as_u64().unwrap();
    let with = kws.join("metadata.json");
    let args = ["--name", "small", "--share-workspace-with", with.to_str().unwrap()];
    let (code, stderr) = compile(&root.join("examples/conv_rescale_clamp.mlir"), "cortex-m4", &small, &args);
    assert_eq!(code, 0, "{stderr}");
    let m = metadata(&small);
    let own = m["workspace"]["bytes"].as_u64().unwrap();
    assert!(own < kws_bytes, "{own} {kws_bytes}");
    assert_eq!(
        m["shared_workspace"],
        serde_json::json!({"bytes": kws_bytes, "with": [{"name": "kws", "bytes": kws_bytes}]})
    );
    let header = std::fs::read_to_string(small.join("small.h")).unwrap();
    assert!(header.contains(&format!("#define SMALL_SHARED_WORKSPACE_SIZE {kws_bytes}\n")), "{header}");
    let bad = temp("share-bad");
    let args = ["--share-workspace-with", "/nonexistent/metadata.json"];
    let (code, stderr) = compile(&root.join("examples/conv_rescale_clamp.mlir"), "cortex-m4", &bad, &args);
    assert_eq!(code, 1);
    assert!(stderr.contains("--share-workspace-with /nonexistent/metadata.json: No such file"), "{stderr}");
}

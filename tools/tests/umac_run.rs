//! `umac run` from the command line: results equal TFLite Micro's, and every mistake a user can
//! make gives a message naming the argument, expected vs given, and exit code 1.

use std::{path::PathBuf, process::Command};
use umac_runtime::{DType, Tensor, read_npy, write_npy};

fn umac(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_umac")).args(args).output().expect("umac starts");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn kws() -> PathBuf {
    umac_runtime::testdata::dir("models/mlperf-tiny/kws")
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("umac-run-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
fn kws_output_equals_tflite_micro_with_either_engine() {
    let dir = kws();
    for engine in ["cranelift", "llvm", "both"] {
        let out = temp(&format!("kws-{engine}.npy"));
        let (code, _, stderr) = umac(&[
            "run",
            dir.join("model.mlir").to_str().unwrap(),
            "--input",
            dir.join("ref/input_0.npy").to_str().unwrap(),
            "--output",
            out.to_str().unwrap(),
            "--engine",
            engine,
        ]);
        assert_eq!(code, 0, "{engine}: {stderr}");
        assert_eq!(read_npy(&out).unwrap(), read_npy(&dir.join("ref/output_0.npy")).unwrap(), "{engine}");
        if engine == "both" {
            assert!(
                stderr.contains("the cranelift and llvm engines agree on all 1 outputs and 77 intermediate results"),
                "{stderr}"
            );
        }
    }
}

/// An LSTM `.tflite` model runs as it is (its quantization read from the file): one inference
/// from the initial state gives TFLite Micro's first output, with both engines agreeing.
#[test]
fn a_tflite_lstm_runs_as_it_is() {
    let dir = umac_runtime::testdata::dir("models/lstm-16x8");
    let out = temp("lstm-tflite.npy");
    let (code, _, stderr) = umac(&[
        "run",
        dir.join("lstm_stack_int8.tflite").to_str().unwrap(),
        "--input",
        dir.join("ref/lstm_stack_int8/input_0.npy").to_str().unwrap(),
        "--output",
        out.to_str().unwrap(),
        "--engine",
        "both",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("the cranelift and llvm engines agree on all 1 outputs"), "{stderr}");
    assert_eq!(read_npy(&out).unwrap(), read_npy(&dir.join("ref/lstm_stack_int8/output_0.npy")).unwrap());
}

/// A `.tflite` model runs as it is, converted as `umac compile` converts it: every reference input
/// gives TFLite Micro's bytes. A file that is no flatbuffer is refused before conversion.
#[test]
fn a_tflite_model_runs_as_it_is() {
    let dir = kws();
    for i in 0..5 {
        let out = temp(&format!("kws-tflite-{i}.npy"));
        let (code, _, stderr) = umac(&[
            "run",
            dir.join("model.tflite").to_str().unwrap(),
            "--input",
            dir.join(format!("ref/input_{i}.npy")).to_str().unwrap(),
            "--output",
            out.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{stderr}");
        assert_eq!(read_npy(&out).unwrap(), read_npy(&dir.join(format!("ref/output_{i}.npy"))).unwrap(), "input {i}");
    }
    let bad = temp("not-a-model.tflite");
    std::fs::write(&bad, b"not a flatbuffer").unwrap();
    let (code, _, stderr) =
        umac(&["run", bad.to_str().unwrap(), "--input", dir.join("ref/input_0.npy").to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("not-a-model.tflite: not a .tflite file (its flatbuffer identifier is not TFL3)"),
        "{stderr}"
    );
}

/// `--target vanilla`: the convolutions run in the vanilla kernel on the host, with the same bytes;
/// `--target "tynnp,host"`: tynnp's primitive ops run on the host as their TOSA reference, with
/// the same bytes (the engines agreeing on every intermediate, the depthwise filters' reshapes
/// among them), and `--compare-unpartitioned` finds every op's result equal to the
/// unpartitioned model's; `--report` says where each op ran; a target that is not an
/// accelerator or the host is refused.
#[test]
fn accelerators_run_on_the_host() {
    let dir = kws();
    for (target, engine) in [("vanilla", "cranelift"), ("vanilla", "llvm"), ("vanilla", "both"), ("tynnp,host", "both")]
    {
        let out = temp(&format!("kws-{target}-{engine}.npy"));
        let (code, _, stderr) = umac(&[
            "run",
            dir.join("model.mlir").to_str().unwrap(),
            "--input",
            dir.join("ref/input_3.npy").to_str().unwrap(),
            "--output",
            out.to_str().unwrap(),
            "--engine",
            engine,
            "--target",
            target,
            "--report",
        ]);
        assert_eq!(code, 0, "{target} {engine}: {stderr}");
        let expected = read_npy(&dir.join("ref/output_3.npy")).unwrap().data;
        assert_eq!(read_npy(&out).unwrap().data, expected, "{target} {engine}");
        let placed = if target == "vanilla" {
            "vanilla (vanilla.conv2d in @vanilla_0)"
        } else {
            "tynnp (tynnp.conv2d in @tynnp_0)"
        };
        assert!(stderr.contains(&format!("model.mlir:70:11: tosa.conv2d -> {placed}")), "{stderr}");
        if engine == "both" {
            assert!(stderr.contains("the cranelift and llvm engines agree on all 1 outputs"), "{stderr}");
        }
    }
    // Op by op against the unpartitioned model: tynnp's primitive ops' reference computes what
    // the ops they replace computed, every intermediate equal.
    let model = dir.join("model.mlir");
    let input = dir.join("ref/input_3.npy");
    let compare = |target: Option<&str>| {
        let mut args =
            vec!["run", model.to_str().unwrap(), "--input", input.to_str().unwrap(), "--compare-unpartitioned"];
        args.extend(target.map(|t| ["--target", t]).into_iter().flatten());
        umac(&args)
    };
    let (code, _, stderr) = compare(Some("tynnp,host"));
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("the unpartitioned and partitioned models agree on all 1 outputs and 77 intermediate results"),
        "{stderr}"
    );
    let (code, _, stderr) = compare(None);
    assert_eq!(
        (code, stderr.trim()),
        (
            1,
            "umac: error: --compare-unpartitioned compares a run partitioned for --target's accelerators, with one engine"
        )
    );
    let (code, _, stderr) =
        umac(&["run", dir.join("model.mlir").to_str().unwrap(), "--input", "x.npy", "--target", "vanilla,cortex-m4"]);
    assert_eq!(
        (code, stderr.trim()),
        (
            1,
            "umac: error: umac run runs on the host or, for rv32im and rv32imc, on umac's simulator; not on \
             cortex-m4 (compile for it with umac compile and run it under QEMU)"
        )
    );
}

/// `--target rv32im` / `rv32imc`: compiled as for firmware and run on umac's cycle-level
/// simulator, with the same bytes as TFLite Micro; `--report` gives cycles per operator. AD
/// imports `memcpy`, which the simulator links from umac's support library.
#[test]
fn rv32_targets_run_on_the_simulator() {
    let kws = kws();
    let ad = kws.parent().unwrap().join("ad");
    // `tynnp` alone comes with its control unit, rv32im.
    for (dir, case, cpu) in [(&kws, 1, "rv32im"), (&ad, 2, "rv32imc"), (&kws, 4, "tynnp,rv32im"), (&ad, 3, "tynnp")] {
        let out = temp(&format!("sim-{cpu}.npy"));
        let (code, _, stderr) = umac(&[
            "run",
            dir.join("model.mlir").to_str().unwrap(),
            "--input",
            dir.join(format!("ref/input_{case}.npy")).to_str().unwrap(),
            "--output",
            out.to_str().unwrap(),
            &format!("--target={cpu}"),
            "--report",
        ]);
        assert_eq!(code, 0, "{cpu}: {stderr}");
        let want = read_npy(&dir.join(format!("ref/output_{case}.npy"))).unwrap();
        assert_eq!(read_npy(&out).unwrap().data, want.data, "{cpu}");
        let core = if cpu == "tynnp" { "rv32im" } else { cpu.rsplit(',').next().unwrap() };
        assert!(stderr.contains(&format!("simulator ({core}): cycles ")), "{stderr}");
        if cpu == "tynnp" && dir == &ad {
            // All of AD runs on the NPU: its reshapes are views, the output is written where the
            // caller wants it (no operator runs on the control unit).
            assert!(!stderr.contains("model_op0_"), "{stderr}");
            assert!(stderr.contains("placement of 22 ops: 2 on rv32im, 20 on tynnp"), "{stderr}");
        } else {
            assert!(stderr.contains("model_op0_"), "{stderr}");
        }
        if cpu.starts_with("tynnp") && dir == &kws {
            // The six convolutions ran on the NU: the first in two tiles of its 25 output rows
            // (its input comes from DDR), the four 1x1 ones in three tiles each, as they read and
            // write their activations in place in DM and run at once with the depthwise
            // convolutions around them, and the fully connected layer (one output row) in one.
            assert!(stderr.contains("tosa.conv2d -> tynnp (tynnp.conv2d in @tynnp_0)"), "{stderr}");
            assert!(stderr.contains("  nu         15 jobs"), "{stderr}");
            // One kernel per composite, named by its root op: the first convolution (one input
            // channel, its ten kernel rows and four columns folded into channels) issued the copy
            // of its constant record and of its input into DM, 2 tiles x (a fill, 10 kernel rows x
            // 3 gathers: the inner output columns' four taps at once and each border column's taps
            // inside the input, the job writing its rows in place where the depthwise convolution
            // reads them) and the copies of the next two kernels' records (it hands its jobs and
            // those copies on to the depthwise convolution, waiting for none), and did all
            // 320,000 MACs of 25x5 outputs x 64 channels x 10x4 taps.
            let first = stderr.lines().find(|l| l.contains("tynnp.conv2d at model.mlir:70:11")).unwrap_or("");
            let figures: Vec<&str> = first.split_whitespace().collect();
            assert_eq!((figures.get(3), figures.get(8)), (Some(&"68"), Some(&"320000")), "{stderr}");
            assert_eq!(stderr.matches("tynnp.depthwise_conv2d at model.mlir:").count(), 4, "{stderr}");
            assert!(stderr.contains("roofline bound "), "{stderr}");
        }
    }
    // A DM too small for a depthwise convolution's tensors: the schedule's error names the sizes,
    // at the op. (The convolution before it fits in slices of its output channels.)
    let (code, _, stderr) = umac(&[
        "run",
        kws.join("model.mlir").to_str().unwrap(),
        "--input",
        kws.join("ref/input_0.npy").to_str().unwrap(),
        "--target=tynnp -dm-kib=1,rv32im",
    ]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains(
            "model.mlir:74:11: error: tynnp cannot schedule tynnp.depthwise_conv2d: the depthwise convolution's tensors \
             need 3712 bytes of DM even in tiles of one output row, double-buffered (input tile 1 960, input tile 2 960, \
             filter 576, bias 256, multipliers 256, shifts 64, output tile 1 320, output tile 2 320), DM has 1024 \
             (-dm-kib=1)"
        ),
        "{stderr}"
    );
    let model = kws.join("model.mlir");
    let input = kws.join("ref/input_0.npy");
    for (extra, message) in [
        ("--engine=both", "--engine both is for the host engines; the simulator reports cycles with --report"),
        ("--benchmark=3", "--benchmark is for the host engines; the simulator reports cycles with --report"),
    ] {
        let (code, _, stderr) =
            umac(&["run", model.to_str().unwrap(), "--input", input.to_str().unwrap(), "--target=rv32im", extra]);
        assert_eq!((code, stderr.trim()), (1, format!("umac: error: {message}").as_str()));
    }
}

/// `--pool` on the simulator: a CPU-only pool in the control unit's DMEM, the rest in DDR, the
/// output TFLite Micro's; on the host engines, and for a pool too large for DMEM, a message.
#[test]
fn pools_run_on_the_simulator() {
    let dir = kws();
    let (model, input) = (dir.join("model.mlir"), dir.join("ref/input_0.npy"));
    let out = temp("kws-pools.npy");
    let run = |extra: &[&str]| {
        let mut args =
            vec!["run", model.to_str().unwrap(), "--input", input.to_str().unwrap(), "--output", out.to_str().unwrap()];
        args.extend_from_slice(extra);
        umac(&args)
    };
    let (code, _, stderr) = run(&["--target=tynnp,rv32im", "--pool", "dmem:64K:fast:cpu", "--pool", "ddr:1M"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(read_npy(&out).unwrap().data, read_npy(&dir.join("ref/output_0.npy")).unwrap().data);
    let (code, _, stderr) = run(&["--pool", "ddr:1M"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("--pool is for the simulator (an RV32 --target)"), "{stderr}");
    let (code, _, stderr) = run(&["--target=rv32im", "--pool", "dmem:200K:cpu"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains(
            "the CPU-only pools hold 204800 bytes; the simulator puts them in DMEM, which has 196608 bytes beside the \
             stack's 65536"
        ),
        "{stderr}"
    );
    let (code, _, stderr) = run(&["--target=rv32im", "--pool", "dmem:64K:slow"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("--pool: pool 'dmem:64K:slow': expected NAME:SIZE[:fast][:cpu]"), "{stderr}");
}

#[test]
fn intermediates_are_dumped_in_program_order() {
    let dir = kws();
    let dump = temp("intermediates");
    let (code, _, stderr) = umac(&[
        "run",
        dir.join("model_b1.mlir").to_str().unwrap(),
        "--input",
        dir.join("ref/input_0.npy").to_str().unwrap(),
        "--dump-intermediates",
        dump.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    let index = std::fs::read_to_string(dump.join("index.txt")).unwrap();
    let first = index.lines().next().unwrap();
    assert!(first.starts_with("0000_tosa_conv2d.npy\ttosa.conv2d\t") && first.ends_with("int32 1x25x5x64"), "{first}");
    assert_eq!(index.lines().count(), 77);
    // The last layer is the softmax output's final op, equal to the model output.
    let last = index.lines().last().unwrap().split('\t').next().unwrap();
    let output = read_npy(&dump.join(last)).unwrap();
    assert_eq!(output, read_npy(&dir.join("ref/output_0.npy")).unwrap());
}

#[test]
fn wrong_inputs_name_the_argument_and_what_was_expected() {
    let dir = kws();
    let model = dir.join("model.mlir");
    let model = model.to_str().unwrap();
    let good = dir.join("ref/input_0.npy");
    let wrong_dtype = temp("f32.npy");
    write_npy(&wrong_dtype, &Tensor::zeros(DType::F32, &[1, 49, 10, 1])).unwrap();
    let wrong_shape = temp("shape.npy");
    write_npy(&wrong_shape, &Tensor::zeros(DType::I8, &[1, 49, 11, 1])).unwrap();
    let cases: &[(&[&str], &str)] = &[
        (&[], "the model takes 1 input(s), 0 given: input_1 (?x49x10x1xi8)"),
        (
            &["--input", good.to_str().unwrap(), "--input", good.to_str().unwrap()],
            "the model takes 1 input(s), 2 given",
        ),
        (
            &["--input", wrong_dtype.to_str().unwrap()],
            "input #0 (input_1): expected int8 (?x49x10x1xi8), given float32",
        ),
        (
            &["--input", wrong_shape.to_str().unwrap()],
            "input #0 (input_1): expected shape ?x49x10x1xi8, given 1x49x11x1",
        ),
        (
            &["--input", good.to_str().unwrap(), "--output", "/tmp/a.npy", "--output", "/tmp/b.npy"],
            "the model has 1 output(s), 2 --output given",
        ),
        (&["--input", "/nonexistent/x.npy"], "/nonexistent/x.npy: No such file"),
        (&["--input", good.to_str().unwrap(), "--entry", "nope"], "the model has no function @nope (it has @main)"),
    ];
    for (extra, message) in cases {
        let mut args = vec!["run", model];
        args.extend_from_slice(extra);
        let (code, _, stderr) = umac(&args);
        assert_eq!(code, 1, "{args:?}: {stderr}");
        assert!(stderr.contains(message), "{args:?}: expected {message:?} in:\n{stderr}");
    }
}

#[test]
fn bad_models_give_located_errors() {
    let garbage = temp("garbage.mlir");
    std::fs::write(&garbage, "func.func @main(%x: tensor<4xi8>) -> tensor<4xi8> {\n  %0 = tosa.nope %x\n}\n").unwrap();
    let input = temp("in4.npy");
    write_npy(&input, &Tensor::zeros(DType::I8, &[4])).unwrap();
    let (code, _, stderr) = umac(&["run", garbage.to_str().unwrap(), "--input", input.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(stderr.contains("garbage.mlir:2:8: error: custom op 'tosa.nope' is unknown"), "{stderr}");

    let unsupported = temp("custom.mlir");
    std::fs::write(
        &unsupported,
        "func.func @main(%x: tensor<4xi8>) -> tensor<4xi8> {\n  %0 = tosa.custom %x {domain_name = \"a\", implementation_attrs = \"\", operator_name = \"b\"} : (tensor<4xi8>) -> tensor<4xi8>\n  return %0 : tensor<4xi8>\n}\n",
    )
    .unwrap();
    for engine in ["cranelift", "llvm"] {
        let (code, _, stderr) =
            umac(&["run", unsupported.to_str().unwrap(), "--input", input.to_str().unwrap(), "--engine", engine]);
        assert_eq!(code, 1);
        assert!(
            stderr.contains("custom.mlir:2:8: error: failed to legalize operation 'tosa.custom'"),
            "{engine}: {stderr}"
        );
    }
    let (code, _, stderr) = umac(&["run", "/nonexistent/model.mlir"]);
    assert_eq!(code, 1);
    assert!(stderr.contains("could not open model '/nonexistent/model.mlir'"), "{stderr}");
}

/// The five reference cases of `dir` (`ref/input_<i>.npy`, `ref/output_<i>.npy`), stacked along
/// a new first axis into `name`'s input and expected output files.
fn stacked(dir: &std::path::Path, name: &str) -> (PathBuf, Tensor) {
    let read = |kind: &str| -> Vec<Tensor> {
        (0..5).map(|i| read_npy(&dir.join(format!("ref/{kind}_{i}.npy"))).unwrap()).collect()
    };
    let input = temp(&format!("{name}-sequence.npy"));
    write_npy(&input, &Tensor::stack(&read("input")).unwrap()).unwrap();
    (input, Tensor::stack(&read("output")).unwrap())
}

/// `--sequence`: an LSTM's five inferences in order, its state carried from one to the next as
/// TFLite Micro carried it (each reference output depends on the inputs before it), on both host
/// engines and on the simulator; the output file has the inferences' axis first.
#[test]
fn a_sequence_carries_an_lstms_state() {
    let dir = umac_runtime::testdata::dir("models/lstm/lstm_stack_int8");
    let model = dir.join("model.mlir");
    let (input, expected) = stacked(&dir, "lstm");
    assert_eq!(expected.shape, [5, 1, 3]);
    for target in [&["--engine", "both"][..], &["--engine", "llvm"], &["--target", "rv32im"]] {
        let out = temp(&format!("lstm-sequence-{}.npy", target[1]));
        let mut args = vec!["run", model.to_str().unwrap(), "--sequence", "--input", input.to_str().unwrap()];
        args.extend(["--output", out.to_str().unwrap()]);
        args.extend(target);
        let (code, _, stderr) = umac(&args);
        assert_eq!(code, 0, "{target:?}: {stderr}");
        assert_eq!(read_npy(&out).unwrap(), expected, "{target:?}");
        if target[1] == "both" {
            assert!(stderr.contains("the cranelift and llvm engines (inference 4) agree on all 1 outputs"), "{stderr}");
        }
    }
    // Alone, the second input starts from the initial state: not the sequence's second output.
    let alone = temp("lstm-alone.npy");
    let (code, _, stderr) = umac(&[
        "run",
        model.to_str().unwrap(),
        "--input",
        dir.join("ref/input_1.npy").to_str().unwrap(),
        "--output",
        alone.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert_ne!(read_npy(&alone).unwrap(), read_npy(&dir.join("ref/output_1.npy")).unwrap());
}

/// `--sequence` on a model without state: each inference as if run alone.
#[test]
fn a_sequence_of_a_stateless_model() {
    let (input, expected) = stacked(&kws(), "kws");
    let out = temp("kws-sequence.npy");
    let model = kws().join("model.mlir");
    let (code, _, stderr) = umac(&[
        "run",
        model.to_str().unwrap(),
        "--sequence",
        "--input",
        input.to_str().unwrap(),
        "--output",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(read_npy(&out).unwrap(), expected);
}

/// `--sequence`'s mistakes: inputs of different lengths, a scalar input, no input, an empty
/// sequence, `--benchmark`. Each is one message and exit code 1.
#[test]
fn sequence_errors() {
    let two = "func.func @main(%a: tensor<2xi8>, %b: tensor<2xi8>) -> tensor<2xi8> {\n  \
               %0 = tosa.maximum %a, %b : (tensor<2xi8>, tensor<2xi8>) -> tensor<2xi8>\n  return %0 : tensor<2xi8>\n}\n";
    let model = temp("two-inputs.mlir");
    std::fs::write(&model, two).unwrap();
    let file = |name: &str, shape: &[usize]| {
        let path = temp(name);
        write_npy(&path, &Tensor::zeros(DType::I8, shape)).unwrap();
        path.to_str().unwrap().to_string()
    };
    let (three, four, scalar, empty) = (
        file("seq-3.npy", &[3, 2]),
        file("seq-4.npy", &[4, 2]),
        file("seq-scalar.npy", &[]),
        file("seq-0.npy", &[0, 2]),
    );
    let model = model.to_str().unwrap();
    let cases: [(Vec<&str>, &str); 5] = [
        (vec!["--input", &three, "--input", &four], "seq-3.npy holds 3 inferences (its first axis), "),
        (vec!["--input", &scalar, "--input", &three], "seq-scalar.npy is a scalar; its first axis should index"),
        (vec![], "--sequence takes the inferences from the inputs' first axis; give at least one --input"),
        (vec!["--input", &empty, "--input", &empty], "seq-0.npy holds no inference (its first axis is 0)"),
        (vec!["--input", &three, "--input", &three, "--benchmark", "3"], "--benchmark times one inference"),
    ];
    for (extra, message) in cases {
        let mut args = vec!["run", model, "--sequence"];
        args.extend(extra);
        let (code, _, stderr) = umac(&args);
        assert_eq!(code, 1, "{args:?}: {stderr}");
        assert!(stderr.contains(message), "{args:?}: {stderr}");
    }
    // The same pair of inputs without --sequence is one inference of the wrong shapes.
    let (code, _, stderr) = umac(&["run", model, "--input", &three, "--input", &three]);
    assert_eq!(code, 1, "{stderr}");
}

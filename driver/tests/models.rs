//! The MLPerf Tiny models run bit-exact with TensorFlow Lite Micro on the host: every engine,
//! dynamic-batch and batch-1 model files, all five reference inputs, every output byte. The LLVM
//! engine compiles the first file in one part and the second in three parts on three threads.
//! Every run puts each buffer between guard pages (`umac_driver::guarded`): no access outside the
//! planned buffers, the input never written.

mod support;

use support::{assert_close, floats, models_dir};
use umac_dialects::{ContextOptions, source::parse_module};
use umac_driver::create_context;
use umac_driver::guarded::EDGES;
use umac_driver::host::{CompileOptions, compile};
use umac_runtime::{DType, read_npy};

fn check_model(name: &str) {
    let dir = models_dir();
    let dir = dir.join(name);
    check(name, &dir, &["model.mlir", "model_b1.mlir"], &dir.join("ref"), &dir.join("ref"));
}

/// Runs `files` of `dir` on every engine with the five inputs of `inputs` and compares every
/// output byte with `outputs` (TFLite Micro's); float outputs within `support::FLOAT_TOLERANCE`.
fn check(name: &str, dir: &std::path::Path, files: &[&str], inputs: &std::path::Path, outputs: &std::path::Path) {
    let dir = dir.to_path_buf();
    for &file in files {
        for engine in umac_driver::host::ENGINES {
            let path = dir.join(file);
            let bytes = std::fs::read(&path).unwrap();
            let context = create_context(ContextOptions { allow_unregistered_dialects: false, threading: true });
            let shown = path.display().to_string();
            let mut module = parse_module(&context, &shown, &bytes).expect("the model parses");
            let first = read_npy(&inputs.join("input_0.npy")).unwrap();
            let options = CompileOptions { threads: if file == "model.mlir" { 1 } else { 3 }, ..Default::default() };
            let program = compile(&context, &mut module, "main", std::slice::from_ref(&first), *engine, options)
                .unwrap_or_else(|e| panic!("{name}/{file} on {}: {e}", engine.name()));
            for i in 0..5 {
                let input = read_npy(&inputs.join(format!("input_{i}.npy"))).unwrap();
                let expected = read_npy(&outputs.join(format!("output_{i}.npy"))).unwrap();
                // Every buffer between guard pages (against the page after it, then the page
                // before): an access outside the planned buffers or a write to the input kills
                // the test.
                for edge in EDGES {
                    let outputs = program.run_guarded(std::slice::from_ref(&input), edge).unwrap();
                    assert_eq!(outputs.len(), 1);
                    assert_eq!(
                        (outputs[0].dtype, &outputs[0].shape),
                        (expected.dtype, &expected.shape),
                        "{name}/{file} input {i}"
                    );
                    let what = format!("{name}/{file} on {}, input {i}, {edge:?} guard", engine.name());
                    if expected.dtype == DType::F32 {
                        assert_close(&floats(&outputs[0].data), &floats(&expected.data), &what);
                    } else {
                        assert!(
                            outputs[0].data == expected.data,
                            "{what}: got {:?}, TFLite Micro gives {:?}",
                            outputs[0].data.iter().map(|&b| b as i8).collect::<Vec<_>>(),
                            expected.data.iter().map(|&b| b as i8).collect::<Vec<_>>()
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn kws_is_bit_exact() {
    check_model("kws");
}

#[test]
fn vww_is_bit_exact() {
    check_model("vww");
}

#[test]
fn ic_is_bit_exact() {
    check_model("ic");
}

#[test]
fn ad_is_bit_exact() {
    check_model("ad");
}

/// KWS with its average pooling replaced by MEAN over rows and columns (`test/models/kws-mean`,
/// KWS's inputs and TFLite Micro's outputs from its `gen.py`): the mean's int32 sums and its
/// rescale. Inputs 0 and 4 give other outputs than KWS's average pooling.
#[test]
fn kws_with_a_mean_is_bit_exact() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../test/models/kws-mean");
    check("kws-mean", &dir, &["model.mlir"], &dir.join("ref"), &dir.join("ref"));
}

/// The float32 twins of the MLPerf Tiny models (`test/models/float`: the same architectures and
/// weights, dequantized by its `gen.py`; TFLite Micro's float outputs): IC is a float residual
/// network, whose stride-2 convolutions with asymmetric padding behind a ReLU once compiled for
/// no target.
#[test]
fn float_twins_match_tflite_micro() {
    let models = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../test/models/float");
    for name in ["kws", "vww", "ic", "ad"] {
        let dir = models.join(name);
        check(&format!("float {name}"), &dir, &["model.mlirbc"], &dir.join("ref"), &dir.join("ref"));
    }
}

/// The int16x8 models (int16 activations, int8 weights): the conv net of test/models/conv-16x8
/// and the operator models of test/models/ops-16x8, TFLite Micro's outputs, every engine.
#[test]
fn int16x8_models_are_bit_exact() {
    let models = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../test/models");
    for dir in ["conv-16x8", "ops-16x8/elementwise", "ops-16x8/spatial", "ops-16x8/softmax", "ops-16x8/quantize"] {
        let dir = models.join(dir);
        check(&dir.display().to_string(), &dir, &["model.mlir"], &dir.join("ref"), &dir.join("ref"));
    }
}

/// The LSTM models of test/models/lstm (int8 with an int16 cell: one LSTM, two stacked with
/// `return_sequences`; float32; TFLite Micro's trained MNIST LSTM example, int8 and float32, on
/// five digits; time-major with a batch of two; every step's output; a batch of two sequences),
/// every engine. TFLite Micro ran their five inputs one after
/// another in one interpreter, and an LSTM's state (TFLite's variable tensors) persists from one
/// inference to the next: so does umac's, so each program runs the five inputs once each, in
/// order, and every output must be TFLite Micro's (int8: every byte; float: within 1e-5).
/// Each run alternates the guard page's edge.
#[test]
fn lstm_models_match_tflite_micro_in_sequence() {
    let models = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../test/models/lstm");
    let names = [
        "lstm_small_int8",
        "lstm_stack_int8",
        "lstm_small_f32",
        "mnist/int8",
        "mnist/f32",
        "time_major_int8",
        "sequences_int8",
        "batch2_int8",
    ];
    for name in names {
        let dir = models.join(name);
        for engine in umac_driver::host::ENGINES {
            let bytes = std::fs::read(dir.join("model.mlir")).unwrap();
            // The LSTM is still in TFLite's dialect (umac-legalize-tfl-lstm replaces it).
            let context = create_context(ContextOptions { allow_unregistered_dialects: true, threading: true });
            let mut module = parse_module(&context, name, &bytes).expect("the model parses");
            let first = read_npy(&dir.join("ref/input_0.npy")).unwrap();
            let program =
                compile(&context, &mut module, "main", std::slice::from_ref(&first), *engine, Default::default())
                    .unwrap_or_else(|e| panic!("{name} on {}: {e}", engine.name()));
            for i in 0..5 {
                let input = read_npy(&dir.join(format!("ref/input_{i}.npy"))).unwrap();
                let expected = read_npy(&dir.join(format!("ref/output_{i}.npy"))).unwrap();
                let outputs = program.run_guarded(std::slice::from_ref(&input), EDGES[i % 2]).unwrap();
                let got = &outputs[0];
                assert_eq!((got.dtype, &got.shape), (expected.dtype, &expected.shape), "{name} input {i}");
                if got.dtype == umac_runtime::DType::F32 {
                    let floats = |t: &umac_runtime::Tensor| -> Vec<f32> {
                        t.data.chunks(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect()
                    };
                    for (a, b) in floats(got).iter().zip(floats(&expected)) {
                        assert!(
                            (a - b).abs() <= 1e-5,
                            "{name} on {}, input {i}: {a} vs TFLite Micro's {b}",
                            engine.name()
                        );
                    }
                } else {
                    assert!(
                        got.data == expected.data,
                        "{name} on {}, input {i}: got {:?}, TFLite Micro gives {:?}",
                        engine.name(),
                        got.data.iter().map(|&b| b as i8).collect::<Vec<_>>(),
                        expected.data.iter().map(|&b| b as i8).collect::<Vec<_>>()
                    );
                }
            }
        }
    }
}

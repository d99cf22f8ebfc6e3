//! Every compile is one pass pipeline: `umac compile --print-pipeline` and `umac run
//! --print-pipeline` print it, and `umac-opt MODEL --pass-pipeline='<printed>'` reproduces the
//! final module `--emit-mlir` writes, byte for byte, for every MLPerf Tiny model on every kind of
//! target (Cortex-M, the host, an accelerator) and both host engines. `UMAC_DUMP_IR` and
//! `--mlir-print-ir-after-all` show every stage.

use std::{
    path::{Path, PathBuf},
    process::Command,
};

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("umac-pipeline-test-{}", std::process::id())).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `command`, checks it succeeded, returns its standard output.
fn run(command: &mut Command) -> String {
    let out = command.output().expect("the tool starts");
    assert!(out.status.success(), "{command:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The printed pipeline replayed by `umac-opt` gives `--emit-mlir`'s module.
fn replays(model: &Path, printed: &str, emitted: &Path, work: &Path) {
    let pipeline = printed.lines().find(|l| l.starts_with("builtin.module(")).expect("a pipeline is printed");
    let replayed = work.join("replayed.mlir");
    run(Command::new(env!("CARGO_BIN_EXE_umac-opt"))
        .arg(model)
        .arg(format!("--pass-pipeline={pipeline}"))
        .arg("-o")
        .arg(&replayed));
    let (a, b) = (std::fs::read(emitted).unwrap(), std::fs::read(&replayed).unwrap());
    assert!(a == b, "{}: umac-opt with the printed pipeline differs from --emit-mlir ({pipeline})", model.display());
}

#[test]
fn compile_pipelines_replay_with_umac_opt() {
    let models = umac_runtime::testdata::dir("models/mlperf-tiny");
    let targets = ["cortex-m55", "cortex-m4", "host", "vanilla,cortex-m55", "tynnp -dm-kib=128"];
    std::thread::scope(|scope| {
        for model in ["kws", "vww", "ic", "ad"] {
            let models = &models;
            scope.spawn(move || {
                let path = models.join(model).join("model.mlir");
                for target in targets {
                    let work = temp(&format!("{model}-{}", target.replace(',', "-")));
                    let emitted = work.join("final.mlir");
                    let printed = run(Command::new(env!("CARGO_BIN_EXE_umac"))
                        .args(["compile", path.to_str().unwrap(), "--target", target, "--print-pipeline", "-o"])
                        .arg(work.join("out"))
                        .arg("--emit-mlir")
                        .arg(&emitted));
                    assert!(
                        std::fs::read_to_string(&emitted).unwrap().contains("llvm.func @model("),
                        "{model} {target}: not the llvm dialect"
                    );
                    // The passes over the kernels (double buffering, DM's allocation, the
                    // kernels' copies for their tile tables) are their own, with the target's
                    // attributes, between legalization and the instructions' lowering.
                    let at = |pass: &str| printed.find(pass);
                    let order = [
                        "umac-legalize-tynnp{",
                        ",umac-double-buffer-tynnp{attributes=",
                        ",umac-allocate-dm-tynnp{attributes=",
                        ",umac-specialize-tynnp{attributes=",
                        ",umac-convert-tynnp-to-llvm,",
                    ]
                    .map(at);
                    let in_order = order.iter().all(Option::is_some) && order.windows(2).all(|w| w[0] < w[1]);
                    assert_eq!(target.starts_with("tynnp"), in_order, "{model} {target}: {printed}");
                    replays(&path, &printed, &emitted, &work);
                }
            });
        }
    });
}

#[test]
fn run_pipelines_replay_with_umac_opt() {
    let kws = umac_runtime::testdata::dir("models/mlperf-tiny/kws");
    let model = kws.join("model.mlir");
    for (engine, target) in [("llvm", None), ("cranelift", None), ("llvm", Some("vanilla"))] {
        let work = temp(&format!("run-{engine}-{}", target.unwrap_or("cpu")));
        let emitted = work.join("final.mlir");
        let mut command = Command::new(env!("CARGO_BIN_EXE_umac"));
        command
            .args(["run", model.to_str().unwrap(), "--input", kws.join("ref/input_0.npy").to_str().unwrap()])
            .args(["--output", work.join("out.npy").to_str().unwrap(), "--engine", engine, "--print-pipeline"])
            .arg("--emit-mlir")
            .arg(&emitted);
        if let Some(target) = target {
            command.args(["--target", target]);
        }
        let printed = run(&mut command);
        replays(&model, &printed, &emitted, &work);
    }
}

/// `UMAC_DUMP_IR=DIR` writes the pipeline, the module after each stage and the optimized LLVM IR;
/// `--mlir-print-ir-after-all` prints the IR after every pass, umac's and upstream's.
#[test]
fn every_stage_can_be_seen() {
    let kws = umac_runtime::testdata::dir("models/mlperf-tiny/kws");
    let work = temp("dump");
    let dump = work.join("ir");
    let out = Command::new(env!("CARGO_BIN_EXE_umac"))
        .args(["compile", kws.join("model.mlir").to_str().unwrap(), "--target", "vanilla,cortex-m55", "-o"])
        .arg(work.join("out"))
        .arg("--mlir-print-ir-after-all")
        .env("UMAC_DUMP_IR", &dump)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut files: Vec<String> =
        std::fs::read_dir(&dump).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    files.sort();
    assert_eq!(
        files,
        [
            "0-entry.mlir",
            "1-pre-partition.mlir",
            "2-accelerators.mlir",
            "3-operators.mlir",
            "4-llvm.mlir",
            "firmware-optimized.ll",
            "pipeline.txt"
        ]
    );
    assert!(std::fs::read_to_string(dump.join("2-accelerators.mlir")).unwrap().contains("umac.call_extern"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    for pass in ["UmacPartition (umac-partition)", "UmacPlanMemory (umac-plan-memory)", "Canonicalizer (canonicalize)"]
    {
        assert!(stderr.contains(&format!("IR Dump After {pass}")), "{pass} is not shown");
    }
}

/// An LSTM model as a user has it, a `.tflite` file: `umac compile` prints its pipeline (the
/// LSTM legalized first, `umac-legalize-tfl-lstm`) and `umac-opt` replays it from the same file
/// to the same module.
#[test]
fn a_tflite_lstm_compile_replays_with_umac_opt() {
    let dir = umac_runtime::testdata::dir("models/lstm-16x8");
    let model = dir.join("lstm_stack_int8.tflite");
    let work = temp("lstm-tflite");
    let emitted = work.join("final.mlir");
    let printed = run(Command::new(env!("CARGO_BIN_EXE_umac"))
        .args(["compile", model.to_str().unwrap(), "--target", "cortex-m4", "--print-pipeline", "-o"])
        .arg(work.join("out"))
        .arg("--emit-mlir")
        .arg(&emitted));
    assert!(printed.contains("builtin.module(umac-legalize-tfl-lstm,"), "{printed}");
    replays(&model, &printed, &emitted, &work);
}

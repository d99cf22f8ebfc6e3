//! C output (`umac compile --emit=c`): every MLPerf Tiny model as one C99 file that compiles
//! without a warning (`-std=c99 -Wall -Wextra -Werror`) with the Arm GNU toolchain and the host's
//! `cc`, and runs bit-exact with TFLite Micro on all five reference inputs under QEMU (Cortex-M4)
//! and on the host; KWS with the tutorial accelerator's C kernel; and the stacked int8 LSTM, whose
//! state persists from one call to the next (the five cases run in order).

mod support;

use std::{path::Path, process::Command, time::Duration};
use support::{cases, compile_with, models_dir, options};
use umac_backend::cpu::CORTEX_M4;
use umac_driver::firmware::{FirmwareOptions, output};
use umac_runtime::firmware::{MPS2_AN386, Model, Platform, build, run};

/// Compiles `source` with `compiler` and `flags`, warnings as errors.
fn compiles_cleanly(compiler: &str, flags: &[&str], source: &Path) {
    let object = source.with_extension(format!("{compiler}.o"));
    let out = Command::new(compiler)
        .args(flags)
        .args(["-O2", "-std=c99", "-Wall", "-Wextra", "-Werror", "-c"])
        .arg(source)
        .arg("-I")
        .arg(source.parent().unwrap())
        .arg("-o")
        .arg(&object)
        .output()
        .unwrap();
    assert!(out.status.success(), "{compiler} {}:\n{}", source.display(), String::from_utf8_lossy(&out.stderr));
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
}

fn c_model(model: &str, accelerators: &str) {
    let models = models_dir();
    c_model_in(&models.join(model), model, accelerators);
}

/// [`c_model`] for the model of `dir`.
fn c_model_in(dir: &Path, model: &str, accelerators: &str) {
    let dir = dir.to_path_buf();
    let firmware =
        compile_with(&dir, CORTEX_M4, &FirmwareOptions { emit_c: true, ..options(model, accelerators, false) });
    assert!(firmware.object.is_empty());
    let source = firmware.c_source.as_deref().unwrap();
    // One function per operator, each named with its source ops.
    for operator in &firmware.operators {
        assert!(source.contains(&format!("static void {}(", operator.function)), "{}", operator.function);
        assert!(source.contains(&format!("/* Operator {}: ", operator.id)), "{}", operator.function);
    }
    let work = std::env::temp_dir().join(format!("umac-c-{}-{model}-{accelerators}", std::process::id()));
    let written = output::write(&work.join("out"), model, &firmware).unwrap();
    assert_eq!(written.object.extension().unwrap(), "c");
    let include = format!("-I{}", written.include_dir.display());
    compiles_cleanly(
        "arm-none-eabi-gcc",
        &["-mcpu=cortex-m4", "-mthumb", "-mfloat-abi=hard", &include],
        &written.object,
    );
    compiles_cleanly("cc", &[&include], &written.object);
    if !accelerators.is_empty() {
        assert!(source.contains("vanilla_conv2d_s8("), "the kernel is called");
    }
    let output_bytes = firmware.signature.outputs.iter().map(|t| t.byte_size() as usize).collect::<Vec<_>>();
    for (platform, name) in [(MPS2_AN386, "qemu"), (Platform::Host, "host")] {
        let spec = Model {
            name: model,
            object: &written.object,
            header: &written.header,
            workspace_size: firmware.workspace_size,
            output_bytes: output_bytes.clone(),
            kernel_sources: written.kernel_sources.clone(),
            include_dirs: vec![written.include_dir.clone()],
        };
        let program = build(platform, &work.join(name), &spec, &cases(&dir)).unwrap();
        let outcome = run(platform, &program, Duration::from_secs(600)).unwrap();
        assert_eq!(outcome.status, Some(0), "{model} as C on {name}: {}", outcome.output);
        assert!(outcome.output.contains("ok: 5 cases"), "{}", outcome.output);
    }
    let _ = std::fs::remove_dir_all(&work);
}

#[test]
fn kws_as_c() {
    c_model("kws", "");
}

#[test]
fn kws_on_the_tutorial_accelerator_as_c() {
    c_model("kws", "vanilla");
}

#[test]
fn vww_as_c() {
    c_model("vww", "");
}

#[test]
fn ic_as_c() {
    c_model("ic", "");
}

#[test]
fn ad_as_c() {
    c_model("ad", "");
}

#[test]
fn lstm_stack_int8_as_c() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../test/models/lstm/lstm_stack_int8");
    c_model_in(&dir, "lstm_stack_int8", "");
}

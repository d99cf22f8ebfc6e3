//! The example firmware project (`examples/firmware-cmake`): CMake with the Arm GNU toolchain,
//! the model compiled at build time by `cmake/umac.cmake`'s `umac_add_model`, once for the CPU
//! with two memory pools and once with the tutorial accelerator, whose C kernel the build adds.
//! It builds, runs under QEMU (mps2-an386, Cortex-M4) with TFLite Micro's output from both, and a
//! rebuild compiles the model again only when the model changed.

use std::{path::Path, process::Command};

fn run(command: &mut Command) -> String {
    let output = command.output().unwrap_or_else(|e| panic!("{command:?}: {e}"));
    let text = String::from_utf8_lossy(&output.stdout).into_owned() + &String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{command:?}:\n{text}");
    text
}

#[test]
fn the_cmake_example_builds_runs_and_rebuilds_when_the_model_changes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let work = std::env::temp_dir().join(format!("umac-cmake-example-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).unwrap();
    // A copy of the model, to change it below.
    let model = work.join("kws.mlir");
    std::fs::copy(root.join("test/models/kws-mean/model.mlir"), &model).unwrap();
    let build = work.join("build");
    run(Command::new("cmake")
        .arg("-S")
        .arg(root.join("examples/firmware-cmake"))
        .arg("-B")
        .arg(&build)
        .arg(format!("-DCMAKE_TOOLCHAIN_FILE={}", root.join("cmake/arm-none-eabi.cmake").display()))
        .arg(format!("-DUMAC_EXECUTABLE={}", env!("CARGO_BIN_EXE_umac")))
        .arg(format!("-DKWS_MODEL={}", model.display())));
    // In the C locale: gcc translates "warning:" otherwise, and the check below would see nothing.
    let first = run(Command::new("cmake").arg("--build").arg(&build).env("LC_ALL", "C"));
    assert!(first.contains("umac: compiling"), "{first}");
    assert!(!first.contains("warning:"), "the example builds without warnings:\n{first}");
    let output = run(Command::new("qemu-system-arm")
        .args(["-M", "mps2-an386", "-nographic", "-monitor", "none"])
        .args(["-semihosting-config", "enable=on,target=native", "-kernel"])
        .arg(build.join("kws_app.elf")));
    let expected = umac_runtime::read_npy(&root.join("test/models/kws-mean/ref/output_0.npy")).unwrap();
    let scores: Vec<String> = expected.data.iter().map(|&b| (b as i8).to_string()).collect();
    assert!(output.contains(&format!("status 0, scores: {}\n", scores.join(" "))), "{output}");
    assert!(output.contains(&format!("with the accelerator: status 0, scores: {}\n", scores.join(" "))), "{output}");
    // Nothing changed: nothing is compiled again.
    let again = run(Command::new("cmake").arg("--build").arg(&build));
    assert!(!again.contains("umac: compiling"), "{again}");
    // The model changed (a comment added): umac runs again and the program is relinked.
    let text = std::fs::read_to_string(&model).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1100));
    std::fs::write(&model, format!("// changed\n{text}")).unwrap();
    let changed = run(Command::new("cmake").arg("--build").arg(&build));
    assert!(changed.contains("umac: compiling") && changed.contains("Linking C executable kws_app.elf"), "{changed}");
    let _ = std::fs::remove_dir_all(&work);
}

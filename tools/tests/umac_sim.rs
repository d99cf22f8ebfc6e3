//! The `umac-sim` command on programs built as for QEMU's RISC-V virt board (picolibc with
//! semihosting, as the firmware harness is): output, exit status, report, and the errors.

use std::{path::PathBuf, process::Command};

fn umac_sim(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_umac-sim")).args(args).output().expect("umac-sim starts");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn temp() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("umac-sim-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Removes the test's files at the end.
struct Cleanup(Vec<PathBuf>);

impl Drop for Cleanup {
    fn drop(&mut self) {
        for f in &self.0 {
            let _ = std::fs::remove_file(f);
            let _ = std::fs::remove_file(f.with_extension("c"));
        }
    }
}

/// Builds `source` with the toolchain scripts/bootstrap installs, as the firmware harness does.
fn build(name: &str, source: &str) -> PathBuf {
    let dir = temp();
    let (c, elf) = (dir.join(format!("{name}.c")), dir.join(format!("{name}.elf")));
    std::fs::write(&c, source).unwrap();
    let status = Command::new("riscv64-unknown-elf-gcc")
        .args(["-march=rv32imac", "-mabi=ilp32", "-O2", "--specs=picolibc.specs", "--oslib=semihost"])
        .args(["--crt0=semihost", "-Wl,--defsym=__flash=0x80000000", "-Wl,--defsym=__flash_size=0x01000000"])
        .args(["-Wl,--defsym=__ram=0x81000000", "-Wl,--defsym=__ram_size=0x01000000", "-o"])
        .arg(&elf)
        .arg(&c)
        .status()
        .expect("riscv64-unknown-elf-gcc (scripts/bootstrap installs it)");
    assert!(status.success());
    elf
}

#[test]
fn runs_a_program_to_its_exit() {
    let elf = build("hello", "#include <stdio.h>\nint main(void) { printf(\"hello %d\\n\", 6 * 7); return 3; }\n");
    let _cleanup = Cleanup(vec![elf.clone()]);
    let (code, stdout, stderr) = umac_sim(&[elf.to_str().unwrap(), "--report"]);
    assert_eq!((code, stdout.as_str()), (3, "hello 42\n"), "{stderr}");
    assert!(stderr.starts_with("cycles "), "{stderr}");
    assert!(stderr.contains(" main "), "{stderr}");
}

#[test]
fn devices_come_from_the_target() {
    // npu.waitall, then npu.param 4 (the number of vector units).
    let source = "int main(void) {\n  unsigned vus;\n  asm volatile(\".insn r CUSTOM_3, 2, 0, x0, x0, x0\");\n  \
                  asm volatile(\".insn r CUSTOM_3, 3, 0, %0, %1, x0\" : \"=r\"(vus) : \"r\"(4));\n  return vus;\n}\n";
    let elf = build("waitall", source);
    let _cleanup = Cleanup(vec![elf.clone()]);
    let (code, _, stderr) = umac_sim(&[elf.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(stderr.contains("(in main): illegal instruction: no device decodes custom-3"), "{stderr}");
    let (code, _, stderr) = umac_sim(&[elf.to_str().unwrap(), "--target=tynnp -vu=3"]);
    assert_eq!(code, 3, "{stderr}");
}

#[test]
fn errors_name_the_pc_and_function() {
    let elf = build("fault", "int main(void) { *(volatile int *)0x40000000 = 1; return 0; }\n");
    let text = temp().join("text.elf");
    let _cleanup = Cleanup(vec![elf.clone(), text.clone()]);
    let (code, _, stderr) = umac_sim(&[elf.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(stderr.starts_with("umac-sim: error: pc 0x8"), "{stderr}");
    assert!(
        stderr.trim_end().ends_with("(in main): store of 4 bytes at 0x40000000, which is in no memory"),
        "{stderr}"
    );
    let (code, _, stderr) = umac_sim(&["/nonexistent.elf"]);
    assert_eq!((code, stderr.starts_with("umac-sim: error: /nonexistent.elf: ")), (1, true), "{stderr}");
    std::fs::write(&text, "not an ELF").unwrap();
    let (code, _, stderr) = umac_sim(&[text.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(stderr.contains("not an ELF file"), "{stderr}");
    let (code, _, stderr) = umac_sim(&[elf.to_str().unwrap(), "--target=tynnp -vu=0"]);
    assert_eq!(code, 1);
    assert!(stderr.starts_with("umac-sim: error: --target: "), "{stderr}");
    assert!(stderr.contains("-vu"), "{stderr}");
    let (code, _, stderr) = umac_sim(&[elf.to_str().unwrap(), "--target=frob"]);
    assert_eq!(code, 1);
    assert!(stderr.starts_with("umac-sim: error: --target: "), "{stderr}");
    let (code, _, stderr) = umac_sim(&[elf.to_str().unwrap(), "--limit=100"]);
    assert_eq!(code, 1);
    assert!(stderr.contains("no exit after 100 instructions"), "{stderr}");
}

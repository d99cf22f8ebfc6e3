//! For tests of the machine and of the devices targets supply: programs assembled by LLVM's
//! assembler and linked into a machine by `elf::link` (code in IMEM, data in DDR).

use crate::{
    elf::{Layout, Program, link},
    machine::Machine,
    memory::DMEM_BASE,
};
use std::{path::PathBuf, process::Command};

/// LLVM's assembler, as scripts/bootstrap installs it.
pub const LLVM_MC: &str = "/usr/lib/llvm-22/bin/llvm-mc";

/// The stack top tests call with: the end of DMEM.
pub const STACK: u32 = DMEM_BASE + 0x4_0000;

/// Assembles `source` for RV32 with the given extensions (`+m,+a`, `+m,+a,+c`) into an object.
/// Panics when llvm-mc is missing or rejects the source: for tests only.
pub fn assemble(source: &str, attrs: &str) -> Vec<u8> {
    let dir: PathBuf = std::env::temp_dir().join(format!("umac-sim-mc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // Tests run in parallel and may assemble the same source: each call has its own files.
    static CALLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let name = format!("{:016x}{attrs}-{call}", fnv(source));
    let (input, output) = (dir.join(format!("{name}.s")), dir.join(format!("{name}.o")));
    std::fs::write(&input, source).unwrap();
    let status = Command::new(LLVM_MC)
        .args(["--triple=riscv32", &format!("-mattr={attrs}"), "-filetype=obj", "-o"])
        .arg(&output)
        .arg(&input)
        .status()
        .unwrap_or_else(|e| panic!("{LLVM_MC} is needed by this test (scripts/bootstrap installs it): {e}"));
    assert!(status.success(), "llvm-mc failed on:\n{source}");
    let object = std::fs::read(&output).unwrap();
    let _ = (std::fs::remove_file(input), std::fs::remove_file(output));
    object
}

fn fnv(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3))
}

/// `m` with `source` assembled and linked in.
pub fn load(mut m: Machine, source: &str, attrs: &str) -> (Machine, Program) {
    let object = assemble(source, attrs);
    let program = link(&mut m, &[("test.o", &object)], Layout::default()).unwrap();
    (m, program)
}

/// Calls `f` of `program` with `args`; panics with the stop's message if the call stops.
pub fn call(m: &mut Machine, program: &Program, f: &str, args: &[u32]) -> u32 {
    let entry = program.symbol(f).unwrap();
    m.call(entry, args, STACK, 1_000_000).unwrap_or_else(|e| panic!("{e}"))
}

//! The conformance tests as firmware on the simulator: every case compiled for each accelerator
//! that supplies a simulated device and comes with an RV32 CPU (tynnp,rv32im: the NPU takes what
//! its patterns claim, the RV32 control unit the rest, with its 32-bit pointers and its LLVM
//! lowering of `i48`) and run on umac-sim with its device, hazard checking on; integer
//! cases bit-exact with the reference model, float ones by their rules. The control unit has no
//! floating point: float cases call libgcc's soft-float helpers, which the simulator links from
//! the RISC-V toolchain as a firmware link does.

use super::{cases, check_outputs, load, suite_dir};
use crate::support::options;
use serde_json::Value;
use std::path::Path;
use umac_backend::cpu::RV32IM;
use umac_dialects::{ContextOptions, source::parse_module};
use umac_driver::{
    create_context,
    firmware::compile,
    simulator::{devices, simulate},
};
use umac_runtime::{Tensor, read_npy};

/// Whether every input and expected result of the case is an integer tensor (counted apart).
fn integer_case(case: &Path, desc: &Value, inputs: &[Tensor]) -> bool {
    let results = desc["outputs"].as_array().into_iter().flatten();
    let expected: Vec<Option<Tensor>> =
        results.map(|o| read_npy(&case.join(o["file"].as_str().unwrap_or_default())).ok()).collect();
    inputs.iter().all(|t| !t.dtype.is_float())
        && expected.iter().all(|t| t.as_ref().is_some_and(|t| !t.dtype.is_float()))
}

/// The accelerators whose code runs on the simulator: those with a device and an RV32 CPU.
fn simulated_accelerators() -> Vec<&'static str> {
    umac_driver::register_targets();
    umac_backend::backends()
        .iter()
        .filter(|b| b.cpu() == Some(RV32IM.name))
        .filter(|b| {
            let defaults = umac_backend::TargetAttrs::defaults(&b.attributes());
            b.device(&defaults).is_ok_and(|d| d.is_some())
        })
        .map(|b| b.name())
        .collect()
}

/// Compiles the case for `accelerator,rv32im` and runs it on the simulator.
fn run_on_simulator(case: &Path, inputs: &[Tensor], accelerator: &str) -> Result<Vec<Tensor>, String> {
    let path = case.join("test.mlir");
    let bytes = std::fs::read(&path).map_err(|e| e.to_string())?;
    let context = create_context(ContextOptions { allow_unregistered_dialects: false, threading: false });
    let mut module = parse_module(&context, &path.display().to_string(), &bytes).ok_or("does not parse")?;
    let options = options("main", accelerator, false);
    let firmware = compile(&context, &mut module, "main", RV32IM, &options).map_err(|e| format!("compile: {e}"))?;
    let devices = devices(&options.accelerators).map_err(|e| e.to_string())?;
    Ok(simulate(&firmware, inputs, devices).map_err(|e| e.to_string())?.outputs)
}

#[test]
fn conformance_on_the_npu_simulator() {
    let accelerators = simulated_accelerators();
    assert!(!accelerators.is_empty(), "no accelerator supplies a device for an RV32 CPU");
    for accelerator in accelerators {
        conformance_on(accelerator);
    }
}

fn conformance_on(accelerator: &str) {
    let dir = suite_dir();
    let mut failures = Vec::new();
    let (mut passed, mut integer) = (0, 0);
    for case in cases(&dir) {
        let shown = case.strip_prefix(&dir).unwrap_or(&case).display().to_string();
        let (desc, inputs) = match load(&case) {
            Ok(loaded) => loaded,
            Err(e) => {
                failures.push(format!("{shown}: {e}"));
                continue;
            }
        };
        integer += usize::from(integer_case(&case, &desc, &inputs));
        match run_on_simulator(&case, &inputs, accelerator).and_then(|outputs| check_outputs(&case, &desc, &outputs)) {
            Ok(()) => passed += 1,
            Err(e) => failures.push(format!("{shown}: {e}")),
        }
    }
    eprintln!(
        "conformance on the simulator with {accelerator}: {passed} cases passed ({integer} integer only), {} failed",
        failures.len()
    );
    // The suite's 236 cases, 155 of them integer only (the i48 results of 16-bit convolutions and
    // matmuls among them).
    assert_eq!((passed + failures.len(), integer), (236, 155));
    assert!(
        failures.is_empty(),
        "{} failures on the simulator with {accelerator}:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

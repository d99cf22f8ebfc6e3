//! Every single-operator model of test/models/tflite-ops that umac's own `.tflite` reader takes,
//! compiled for Cortex-M55, Cortex-M4 and RV32IM, linked in batches into bare-metal programs and
//! run under QEMU (mps3-an547, mps2-an386, virt) on its inferences: integer outputs must be TensorFlow Lite Micro's bytes, float
//! outputs within 1e-5 relative (1e-6 absolute), as on the host (tools/tests/tflite_ops.rs). The
//! programs print every output byte; this test compares.

mod support;

use std::{
    fmt::Write as _,
    path::Path,
    sync::{Mutex, atomic::AtomicUsize, atomic::Ordering},
    time::Duration,
};
use support::options;
use umac_backend::{
    Cpu,
    cpu::{CORTEX_M4, CORTEX_M55, RV32IM},
};
use umac_dialects::{ContextOptions, source::parse_module};
use umac_driver::{
    create_context,
    firmware::{Firmware, compile, output},
};
use umac_runtime::{
    Tensor,
    firmware::{MPS2_AN386, MPS3_AN547, Platform, RISCV_VIRT_RV32IM, build_program, run},
    testdata::tflite_ops::{Case, cases, difference},
};

/// Models linked into one program.
const BATCH: usize = 48;

/// `case` through the native reader, compiled for `cpu` as `name`.
fn compile_case(case: &Case, name: &str, cpu: Cpu) -> Result<Firmware, String> {
    let bytes = std::fs::read(&case.model).map_err(|e| e.to_string())?;
    let shown = case.model.display().to_string();
    let text = umac_frontend::tflite::to_tosa(&bytes, &shown).map_err(|e| e.to_string())?;
    let context = create_context(ContextOptions::default());
    let mut module = parse_module(&context, &shown, text.as_bytes()).ok_or("the reader's TOSA does not parse")?;
    compile(&context, &mut module, "main", cpu, &options(name, "", false)).map_err(|e| e.to_string())
}

/// A C array of `bytes` in the harness's test-data section.
fn array(name: &str, bytes: &[u8]) -> String {
    let values: Vec<String> = bytes.iter().map(u8::to_string).collect();
    format!(
        "__attribute__((section(\".testdata\"), aligned(16))) static const uint8_t {name}[{}] = {{{}}};\n",
        bytes.len().max(1),
        if values.is_empty() { "0".into() } else { values.join(",") }
    )
}

/// The program running `batch` (model names `m<i>` with their cases): each inference's outputs
/// printed as `m<i> c<k> o<j> <hex bytes>`, a model's failure as `m<i> c<k> status <s>`.
fn main_c(batch: &[(usize, &Case, &Firmware)], per_case: usize) -> String {
    let mut c = String::from("#include <stdint.h>\n#include <stdio.h>\n#include <string.h>\n");
    for (i, _, _) in batch {
        let _ = writeln!(c, "#include \"m{i}.h\"");
    }
    c.push_str(
        "static void dump(unsigned m, unsigned c, unsigned o, const uint8_t *p, unsigned n) {\n    printf(\"m%u c%u o%u \", m, c, o);\n    for (unsigned i = 0; i < n; ++i) printf(\"%02x\", p[i]);\n    printf(\"\\n\");\n}\n",
    );
    let mut body = String::new();
    for (i, case, firmware) in batch {
        let upper = format!("M{i}");
        let _ = writeln!(
            c,
            "static uint8_t m{i}_ws[{upper}_WORKSPACE_SIZE > 0 ? {upper}_WORKSPACE_SIZE : 1] __attribute__((aligned({upper}_WORKSPACE_ALIGNMENT)));"
        );
        for (j, t) in firmware.signature.outputs.iter().enumerate() {
            let _ = writeln!(c, "static uint8_t m{i}_o{j}[{}] __attribute__((aligned(16)));", t.byte_size().max(1));
        }
        for k in 0..per_case {
            for j in 0..case.inputs {
                c.push_str(&array(&format!("m{i}_c{k}_i{j}"), &case.reference("input", k, j).data));
            }
            let inputs: Vec<String> = (0..case.inputs).map(|j| format!("m{i}_c{k}_i{j}")).collect();
            let outputs: Vec<String> = (0..firmware.signature.outputs.len()).map(|j| format!("m{i}_o{j}")).collect();
            let _ = writeln!(
                body,
                "    {{\n        const void *const in[] = {{{}}};\n        void *const out[] = {{{}}};\n        memset(m{i}_ws, 0xa5, sizeof m{i}_ws);\n        int s = m{i}_run(in, out, m{i}_ws);\n        if (s != 0) printf(\"m{i} c{k} status %d\\n\", s);\n        else {{",
                inputs.join(", "),
                outputs.join(", ")
            );
            for (j, t) in firmware.signature.outputs.iter().enumerate() {
                let _ = writeln!(body, "            dump({i}, {k}, {j}, m{i}_o{j}, {});", t.byte_size());
            }
            body.push_str("        }\n    }\n");
        }
    }
    let _ = write!(c, "int main(void) {{\n{body}    printf(\"done\\n\");\n    return 0;\n}}\n");
    c
}

/// Links `batch` into one program, runs it under QEMU and returns each problem found.
fn run_batch(
    platform: Platform,
    work: &Path,
    batch: &[(usize, &Case, &Firmware)],
    per_case: usize,
    compared: &AtomicUsize,
) -> Vec<String> {
    let mut objects = Vec::new();
    let mut includes = Vec::new();
    for (i, _, firmware) in batch {
        let written = output::write(&work.join(format!("m{i}")), &format!("m{i}"), firmware).unwrap();
        includes.push(written.header.parent().unwrap().to_path_buf());
        objects.push(written.object);
    }
    let objects: Vec<&Path> = objects.iter().map(|p| p.as_path()).collect();
    let sources = [("main.c", main_c(batch, per_case))];
    let program = build_program(platform, work, "ops", &sources, &[], &objects, &includes).unwrap();
    let outcome = run(platform, &program, Duration::from_secs(600)).unwrap();
    assert_eq!(outcome.status, Some(0), "{}", outcome.output);
    assert!(outcome.output.contains("done"), "{}", outcome.output);
    let mut problems = Vec::new();
    for (i, case, _) in batch {
        for k in 0..per_case {
            if let Some(line) = outcome.output.lines().find(|l| l.starts_with(&format!("m{i} c{k} status"))) {
                problems.push(format!("{} inference {k}: the model returned {line}", case.name));
                continue;
            }
            for j in 0..case.outputs {
                let prefix = format!("m{i} c{k} o{j} ");
                let Some(hex) = outcome.output.lines().find_map(|l| l.strip_prefix(&prefix)) else {
                    problems.push(format!("{} inference {k} output {j}: not printed", case.name));
                    continue;
                };
                let bytes: Vec<u8> =
                    (0..hex.len() / 2).map(|b| u8::from_str_radix(&hex[2 * b..2 * b + 2], 16).unwrap()).collect();
                let want = case.reference("output", k, j);
                let got = Tensor { dtype: want.dtype, shape: want.shape.clone(), data: bytes };
                compared.fetch_add(1, Ordering::Relaxed);
                if let Some(diff) = difference(&got, &want) {
                    problems.push(format!("{} inference {k} output {j}: {diff}", case.name));
                }
            }
        }
    }
    problems
}

#[test]
fn every_native_operator_on_cortex_m55_matches_tflite_micro() {
    every_native_operator(CORTEX_M55, MPS3_AN547);
}

#[test]
fn every_native_operator_on_cortex_m4_matches_tflite_micro() {
    every_native_operator(CORTEX_M4, MPS2_AN386);
}

/// RV32IM: no FPU (float through libgcc's soft-float helpers), no DSP instructions.
#[test]
fn every_native_operator_on_rv32im_matches_tflite_micro() {
    every_native_operator(RV32IM, RISCV_VIRT_RV32IM);
}

/// Compiles every native case for `cpu`, runs them on `platform` and compares.
fn every_native_operator(cpu: Cpu, platform: Platform) {
    let dir = umac_runtime::testdata::dir("models/tflite-ops");
    let (all, per_case) = cases(&dir);
    let native: Vec<&Case> = all.iter().filter(|c| c.native && c.known_failure.is_none()).collect();
    assert!(native.len() > 100, "cases.json lists {} native cases", native.len());
    // For a closer look at some (never set by scripts/test): the cases whose name contains it.
    let only = std::env::var("UMAC_TFLITE_OPS_ONLY").unwrap_or_default();
    let native: Vec<&Case> = native.into_iter().filter(|c| c.name.contains(&only)).collect();
    // Compile on every core.
    let next = AtomicUsize::new(0);
    let compiled = Mutex::new(Vec::new());
    let problems = Mutex::new(Vec::new());
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get()).clamp(2, 8);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                while let Some(&case) = native.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let i = native.iter().position(|c| std::ptr::eq(*c, case)).unwrap_or(0);
                    match compile_case(case, &format!("m{i}"), cpu) {
                        Ok(firmware) => compiled.lock().unwrap().push((i, case, firmware)),
                        Err(e) => problems.lock().unwrap().push(format!("{}: does not compile: {e}", case.name)),
                    }
                }
            });
        }
    });
    let mut compiled = compiled.into_inner().unwrap();
    compiled.sort_by_key(|(i, _, _)| *i);
    let batches: Vec<&[(usize, &Case, Firmware)]> = compiled.chunks(BATCH).collect();
    let next = AtomicUsize::new(0);
    let compared = AtomicUsize::new(0);
    let work = std::env::temp_dir().join(format!("umac-fw-tflite-ops-{}-{}", std::process::id(), cpu.name));
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                while let Some(batch) = batches.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let refs: Vec<(usize, &Case, &Firmware)> = batch.iter().map(|(i, c, f)| (*i, *c, f)).collect();
                    let found =
                        run_batch(platform, &work.join(format!("batch{}", refs[0].0)), &refs, per_case, &compared);
                    problems.lock().unwrap().extend(found);
                }
            });
        }
    });
    std::fs::remove_dir_all(&work).ok();
    let mut problems = problems.into_inner().unwrap();
    problems.sort();
    assert!(problems.is_empty(), "{} problems in {} cases:\n{}", problems.len(), native.len(), problems.join("\n"));
    // Every output of every inference was printed and compared.
    let outputs: usize = native.iter().map(|c| c.outputs * per_case).sum();
    assert_eq!(compared.into_inner(), outputs);
}

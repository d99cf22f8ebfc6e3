//! The single-operator sweep: every int8 and int16 case of `test/models/tflite-ops` that Vela
//! 5.2 puts wholly on the NPU, for each of the six configurations (`tests/sweep/<configuration>/`,
//! made by `gen.sh`: convolutions of every
//! kernel, stride, dilation and padding the cases have, pools, elementwise operations with
//! broadcast, softmax, data movement, ...), run on TFLite Micro's reference inputs. Each case's
//! outcome is listed in `tests/sweep/status.txt`: `exact` (every inference equals TFLite Micro's
//! outputs byte for byte), `exact (LiteRT)`, `exact (rounded once)` or `exact (Vela's stream)`
//! (equals the reference Vela's stream computes where it differs from TFLite Micro: LiteRT's
//! reference kernels, the real result rounded once, or, where Vela compiles the operator
//! wrongly, what its own listing says the stream does; `tests/sweep/references.py` wrote them),
//! `differs` (the device computes something else: a gap to close), or the error the device
//! stops with (what it does not model yet, or a stream that reads bytes nothing wrote, as one
//! that Vela compiles wrongly does: `tests/sweep/README.md`). A changed outcome fails the
//! test until the list says so (`UMAC_UPDATE_SWEEP=1` rewrites it).

mod common;

use common::npy_data;
use std::path::{Path, PathBuf};
use umac_ethos_u_device::{EthosUOperator, decode, operations, rules};

const CONFIGURATIONS: [&str; 6] =
    ["ethos-u55-32", "ethos-u55-64", "ethos-u55-128", "ethos-u55-256", "ethos-u65-256", "ethos-u65-512"];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The reference file of argument `arg` of inference `k` (`input_0.npy`, `input_0_1.npy`, ...).
fn reference(dir: &Path, kind: &str, k: usize, arg: usize) -> PathBuf {
    dir.join(if arg == 0 { format!("{kind}_{k}.npy") } else { format!("{kind}_{k}_{arg}.npy") })
}

/// What running `case` (its Vela model at `path`) on its reference inputs comes to.
fn outcome(case: &str, path: &Path) -> String {
    let model = std::fs::read(path).unwrap();
    let operator = match EthosUOperator::read(&model, 0) {
        Ok(operator) => operator,
        Err(e) => return format!("error: {e}"),
    };
    let (model_inputs, model_outputs) = umac_frontend::tflite::io_tensors(&model).unwrap();
    let listed = umac_frontend::tflite::operators(&model).unwrap();
    let op = &listed[0];
    let refs = root().join("../../../test/models/tflite-ops/ref").join(case);
    let mut machine = operator.machine();
    // The references the outputs are compared with: TFLite Micro's, and where `references.py`
    // wrote them (they differ from TFLite Micro's), LiteRT's reference kernels', the real result
    // rounded once, and what Vela's stream computes where Vela compiles the operator wrongly.
    // Each is matched so far or not.
    let others = [("LiteRT", "litert"), ("rounded once", "rounded"), ("Vela's stream", "stream")];
    let mut references: Vec<(&str, PathBuf, bool)> = vec![("", refs.clone(), true)];
    for (name, dir) in others {
        let dir = root().join("tests/sweep/references").join(dir).join(case);
        if dir.is_dir() {
            references.push((name, dir, true));
        }
    }
    let mut inferences = 0;
    for k in 0.. {
        let Some(first) = npy_data(&reference(&refs, "input", k, 0)) else { break };
        let mut files = vec![first];
        while let Some(more) = npy_data(&reference(&refs, "input", k, files.len())) {
            files.push(more);
        }
        // The operator's feature-map inputs (past its program and memories) from the model's.
        let inputs: Vec<&[u8]> = op.input_tensors[4..]
            .iter()
            .map(|t| files[model_inputs.iter().position(|m| Some(*m) == *t).unwrap()].as_slice())
            .collect();
        let outputs = match operator.run(&mut machine, &inputs) {
            Ok(outputs) => outputs,
            Err(e) => return format!("error: {e}"),
        };
        for (arg, t) in model_outputs.iter().enumerate() {
            let got = &outputs[op.output_tensors.iter().position(|o| o == t).unwrap()];
            for (_, dir, matches) in &mut references {
                *matches &= npy_data(&reference(dir, "output", k, arg)).as_ref() == Some(got);
            }
        }
        inferences += 1;
    }
    assert!(inferences > 0, "{case}: no reference inputs");
    match references.iter().find(|(_, _, matches)| *matches) {
        Some(("", _, _)) => "exact".into(),
        Some((name, _, _)) => format!("exact ({name})"),
        None => "differs".into(),
    }
}

#[test]
fn every_case_has_its_listed_outcome() {
    let dir = root().join("tests/sweep");
    let mut cases: Vec<(String, String, PathBuf)> = Vec::new();
    for configuration in CONFIGURATIONS {
        for entry in std::fs::read_dir(dir.join(configuration)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "tflite") {
                let case = path.file_stem().unwrap().to_string_lossy().into_owned();
                cases.push((configuration.to_string(), case, path));
            }
        }
    }
    cases.sort();
    assert!(cases.len() > 1000, "{} cases", cases.len());
    // One line each: the configuration and case, then its outcome (an error up to its first 100
    // characters, the offsets of commands in it as they are).
    let text: String = cases
        .iter()
        .map(|(configuration, case, path)| {
            let outcome: String = outcome(case, path).chars().take(100).collect();
            format!("{configuration}/{case} {outcome}\n")
        })
        .collect();
    let listed = dir.join("status.txt");
    if std::env::var_os("UMAC_UPDATE_SWEEP").is_some() {
        std::fs::write(&listed, &text).unwrap();
    }
    let expected = std::fs::read_to_string(&listed).unwrap();
    let changed: Vec<String> = expected
        .lines()
        .zip(text.lines())
        .filter(|(a, b)| a != b)
        .map(|(a, b)| format!("  listed: {a}\n  now:    {b}"))
        .collect();
    assert!(
        changed.is_empty() && expected.lines().count() == text.lines().count(),
        "outcomes changed:\n{}",
        changed.join("\n")
    );
    let exact = text.lines().filter(|l| l.split(' ').nth(1) == Some("exact")).count();
    assert!(exact >= 6 * 214, "{exact} cases exact");
}

/// The derived models (`tests/derived/`, made by `gen.py`: what no sweep case makes Vela emit,
/// such as the LRELU elementwise mode) on every configuration, equal to LiteRT's reference
/// kernels' outputs byte for byte, their streams keeping the rules.
#[test]
fn the_derived_models_are_exact() {
    let dir = root().join("tests/derived");
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let case = entry.unwrap().path();
        if !case.is_dir() {
            continue;
        }
        for configuration in CONFIGURATIONS {
            let model = std::fs::read(case.join(format!("{configuration}.tflite"))).unwrap();
            let operator = EthosUOperator::read(&model, 0).unwrap();
            // The rule checker and the timing model take it too.
            let report = operator.report().unwrap_or_else(|e| panic!("{case:?} on {configuration}: {e}"));
            assert!(report.contains("rule checker: no findings"), "{report}");
            let mut machine = operator.machine();
            for k in 0..3 {
                let input = npy_data(&case.join(format!("input_{k}.npy"))).unwrap();
                let outputs = operator.run(&mut machine, &[&input]).unwrap_or_else(|e| panic!("{case:?}: {e}"));
                let expected = npy_data(&case.join(format!("output_{k}.npy"))).unwrap();
                assert_eq!(outputs[0], expected, "{} on {configuration}, input {k}", case.display());
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 6 * 3);
}

/// The parameter sweep's cases Vela 5.2.0 compiles wrongly, with what the device and the rule
/// checker say of them. On the U55-32 and U55-64 (16 KiB of SHRAM, whose last 2 KiB hold the
/// lookup tables: Vela's `lut.py`), the lookup table of the TANH that Vela fuses into the 1x1
/// average pools after a depthwise convolution of depth multiplier 3 is copied to SHRAM byte
/// 0x4000, past the SHRAM's end (Vela's SHRAM banks times 1 KiB, where the other configurations
/// have their tables), while the pools read `ACTIVATION_FUNCTION_TABLE_0` at 0x3800.
const VELA_WRONG: [(&str, &str, &str); 2] = [
    (
        "ethos-u55-32/depthwise_k3_s1_mult3_tanh_int8",
        "(NPU_OP_DMA_START): the DMA's destination (256 bytes at 0x4000) lies outside the internal SRAM (16384 bytes)",
        "it reads lookup table bytes 0x3800..0x3900 of the SHRAM; from 0x3800 no DMA put them there",
    ),
    (
        "ethos-u55-64/depthwise_k3_s1_mult3_tanh_int8",
        "(NPU_OP_DMA_START): the DMA's destination (256 bytes at 0x4000) lies outside the internal SRAM (16384 bytes)",
        "it reads lookup table bytes 0x3800..0x3900 of the SHRAM; from 0x3800 no DMA put them there",
    ),
];

/// What `VELA_WRONG` lists for `configuration/case`: the device's error and the rule checker's
/// finding.
fn vela_wrong(configuration: &str, path: &Path) -> Option<(&'static str, &'static str)> {
    let name = format!("{configuration}/{}", path.file_stem()?.to_string_lossy());
    VELA_WRONG.iter().find(|(case, _, _)| *case == name).map(|&(_, error, finding)| (error, finding))
}

/// Vela's streams for every case of both sweeps and every configuration keep the rules: the
/// waits, BLOCKDEP, the SHRAM areas of each block configuration and the lookup tables (`umac run
/// --report` reports none), but for the cases `VELA_WRONG` lists, which break them as it says.
#[test]
fn the_sweeps_streams_keep_the_rules() {
    let mut checked = 0;
    let mut broken = Vec::new();
    let sweeps = [root().join("tests/sweep"), root().join("tests/params")];
    for (dir, configuration) in sweeps.iter().flat_map(|d| CONFIGURATIONS.map(|c| (d, c))) {
        for entry in std::fs::read_dir(dir.join(configuration)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "tflite") {
                continue;
            }
            let operator = EthosUOperator::read(&std::fs::read(&path).unwrap(), 0).unwrap();
            let ops = operations(&decode(&operator.payload.stream).unwrap());
            let wrong = vela_wrong(configuration, &path).map(|(_, finding)| finding);
            match rules::check(&operator.payload.config, &ops, &operator.regions()) {
                Ok(findings) if findings.is_empty() && wrong.is_none() => {}
                Ok(findings)
                    if wrong.is_some_and(|w| {
                        !findings.is_empty() && findings.iter().all(|f| f.to_string().contains(w))
                    }) => {}
                Ok(findings) => broken.push(format!("{}: {}", path.display(), findings[0])),
                Err(e) => broken.push(format!("{}: {e}", path.display())),
            }
            checked += 1;
        }
    }
    assert_eq!(checked, 6 * (215 + 52));
    assert!(broken.is_empty(), "{} of {checked}:\n{}", broken.len(), broken.join("\n"));
}

/// The parameter sweep (`tests/params/`, made by `gen.py`: convolutions, depthwise convolutions
/// and pools over kernels 1-7, strides 1-3, dilations 1-3, both paddings, channels 1-300, depth
/// multipliers 1-4, int8 and int16x8, convolutions into TANH and LOGISTIC) on every
/// configuration: each case's outputs equal TFLite Micro's byte for byte on its three inputs, but
/// for the cases `VELA_WRONG` lists, which stop with the error it gives.
#[test]
fn the_parameter_sweep_is_exact_with_tflite_micro() {
    let dir = root().join("tests/params");
    let mut checked = 0;
    let mut wrong = Vec::new();
    for configuration in CONFIGURATIONS {
        for entry in std::fs::read_dir(dir.join(configuration)).unwrap() {
            let path = entry.unwrap().path();
            let case = path.file_stem().unwrap().to_string_lossy().into_owned();
            let refs = dir.join("ref").join(&case);
            let operator = EthosUOperator::read(&std::fs::read(&path).unwrap(), 0).unwrap();
            let mut machine = operator.machine();
            for k in 0..3 {
                let input = npy_data(&refs.join(format!("input_{k}.npy"))).unwrap();
                let expected = npy_data(&refs.join(format!("output_{k}.npy"))).unwrap();
                let stops = vela_wrong(configuration, &path).map(|(error, _)| error);
                match operator.run(&mut machine, &[&input]) {
                    Ok(outputs) if outputs[0] == expected && stops.is_none() => {}
                    Err(e) if stops.is_some_and(|w| e.to_string().contains(w)) => {}
                    Ok(_) if stops.is_some() => wrong.push(format!("{configuration}/{case} input {k}: runs")),
                    Ok(outputs) => {
                        let differing = outputs[0].iter().zip(&expected).filter(|(a, b)| a != b).count();
                        wrong.push(format!("{configuration}/{case} input {k}: {differing} bytes differ"));
                    }
                    Err(e) => wrong.push(format!("{configuration}/{case} input {k}: {e}")),
                }
            }
            checked += 1;
        }
    }
    assert_eq!(checked, 6 * 52);
    assert!(wrong.is_empty(), "{} wrong:\n{}", wrong.len(), wrong.join("\n"));
}

//! Structure-aware fuzzing of `umac compile`: a real model (KWS with a MEAN,
//! `test/models/kws-mean/model.mlir`) with one of its TOSA types, shapes, attributes or constants
//! mutated, compiled for Cortex-M4. Every mutant must compile (exit 0, with its files written) or be
//! rejected with exit 1 and an error at a `file:line:col` of the mutant; never a panic, an abort,
//! a signal or a hang. `UMAC_FUZZ_SEED` and `UMAC_FUZZ_ROUNDS` explore further than the default
//! budget; a failure names the mutation and keeps the mutant in `target/`.

use std::{
    path::{Path, PathBuf},
    process::{Command, Stdio},
    time::{Duration, Instant},
};
use umac_runtime::testdata::Rng;

/// The mutations: each picks one place of its kind in the model and changes it.
const KINDS: [&str; 6] = ["dimension", "element type", "i64 array element", "splat constant", "flag", "rounding"];

/// Byte offsets where `pattern` occurs in `text`.
fn occurrences(text: &str, pattern: &str) -> Vec<usize> {
    text.match_indices(pattern).map(|(at, _)| at).collect()
}

/// The integer starting at `at` (an optional minus, digits) and where it ends.
fn integer_at(text: &str, at: usize) -> Option<(i64, usize)> {
    let bytes = text.as_bytes();
    let mut end = at + usize::from(bytes.get(at) == Some(&b'-'));
    while bytes.get(end).is_some_and(u8::is_ascii_digit) {
        end += 1;
    }
    text[at..end].parse().ok().map(|v| (v, end))
}

/// A value to put where `old` was: nearby, zero, negative or far out of range.
fn other_integer(old: i64, rng: &mut Rng) -> i64 {
    match rng.below(5) {
        0 => old + rng.range(1, 3),
        1 => old - rng.range(1, 3),
        2 => 0,
        3 => -rng.range(1, 70),
        _ => [63, 64, 127, 128, 255, 32767, 65536, i64::from(i32::MAX)][rng.below(8)],
    }
}

/// Mutates `text` once with mutation `kind`; `None` when the model has no place of that kind.
fn mutate(text: &str, kind: &str, rng: &mut Rng) -> Option<(String, String)> {
    let pick = |places: Vec<usize>, rng: &mut Rng| (!places.is_empty()).then(|| places[rng.below(places.len())]);
    let (at, end, new) = match kind {
        // One dimension of a tensor type: `tensor<1x49x10x1xi8>` → `tensor<1x50x10x1xi8>`.
        "dimension" => {
            let start = pick(occurrences(text, "tensor<"), rng)? + "tensor<".len();
            let dims: Vec<usize> = std::iter::once(start)
                .chain(text[start..].match_indices('x').map(|(i, _)| start + i + 1))
                .take_while(|&d| text.as_bytes().get(d).is_some_and(u8::is_ascii_digit))
                .collect();
            let at = *dims.get(rng.below(dims.len()))?;
            let (old, end) = integer_at(text, at)?;
            (at, end, other_integer(old, rng).max(0).to_string())
        }
        // One element type: `xi8>` → `xi16>` (or i32, f32, i1).
        "element type" => {
            let at = pick(occurrences(text, "xi8>"), rng)? + 1;
            (at, at + 2, ["i16", "i32", "f32", "i1", "i4"][rng.below(5)].to_string())
        }
        // One element of an i64 array attribute (strides, pads, dilations, kernels, shapes).
        "i64 array element" => {
            let start = pick(occurrences(text, "array<i64: "), rng)? + "array<i64: ".len();
            let close = start + text[start..].find('>')?;
            let elements: Vec<usize> = std::iter::once(start)
                .chain(text[start..close].match_indices(", ").map(|(i, _)| start + i + 2))
                .collect();
            let at = elements[rng.below(elements.len())];
            let (old, end) = integer_at(text, at)?;
            (at, end, other_integer(old, rng).to_string())
        }
        // One splat constant: a zero point, a shift, a multiplier, a bias.
        "splat constant" => {
            let places: Vec<usize> = occurrences(text, "dense<")
                .into_iter()
                .map(|at| at + "dense<".len())
                .filter(|&at| integer_at(text, at).is_some())
                .collect();
            let at = pick(places, rng)?;
            let (old, end) = integer_at(text, at)?;
            (at, end, other_integer(old, rng).to_string())
        }
        // One boolean attribute (`scale32`, `per_channel`, `input_unsigned`, ...).
        "flag" => {
            let places: Vec<usize> = [occurrences(text, "= true"), occurrences(text, "= false")]
                .concat()
                .into_iter()
                .map(|at| at + 2)
                .collect();
            let at = pick(places, rng)?;
            let old = if text[at..].starts_with("true") { "true" } else { "false" };
            (at, at + old.len(), if old == "true" { "false" } else { "true" }.to_string())
        }
        // One rescale's rounding mode (`rounding_mode = DOUBLE_ROUND`).
        _ => {
            let at = pick(occurrences(text, "rounding_mode = "), rng)? + "rounding_mode = ".len();
            let end = at + text[at..].find(|c: char| !(c.is_ascii_uppercase() || c == '_'))?;
            (at, end, ["SINGLE_ROUND", "DOUBLE_ROUND", "INEXACT_ROUND"][rng.below(3)].to_string())
        }
    };
    let line = text[..at].matches('\n').count() + 1;
    let description = format!("{kind} at line {line}: '{}' -> '{new}'", &text[at..end]);
    Some((format!("{}{new}{}", &text[..at], &text[end..]), description))
}

/// An error at a position of `file`: `FILE:LINE:COL: error: `.
fn located_error(stderr: &str, file: &Path) -> bool {
    let prefix = format!("{}:", file.display());
    stderr.lines().any(|line| {
        line.strip_prefix(&prefix).and_then(|rest| rest.split_once(": error: ")).is_some_and(|(place, _)| {
            let mut parts = place.split(':');
            let line = parts.next().is_some_and(|p| p.parse::<u32>().is_ok());
            let column = parts.next().is_some_and(|p| p.parse::<u32>().is_ok());
            line && column && parts.next().is_none()
        })
    })
}

/// Compiles `model` with a deadline; the exit code (`None`: a signal) and standard error.
fn compile(model: &Path, out: &Path) -> (Option<i32>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_umac"))
        .args(["compile", model.to_str().unwrap(), "--target=cortex-m4", "-o", out.to_str().unwrap()])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("umac starts");
    let deadline = Instant::now() + Duration::from_secs(300);
    while child.try_wait().expect("wait works").is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            return (Some(-1), "hung: killed after 300 s".into());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let output = child.wait_with_output().expect("output is collected");
    (output.status.code(), String::from_utf8_lossy(&output.stderr).into_owned())
}

#[test]
fn mutated_models_compile_or_fail_at_a_location() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let text = std::fs::read_to_string(root.join("test/models/kws-mean/model.mlir")).unwrap();
    let seed = std::env::var("UMAC_FUZZ_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0xc0de_2026_u64);
    let rounds = std::env::var("UMAC_FUZZ_ROUNDS").ok().and_then(|s| s.parse().ok()).unwrap_or(24_usize);
    let work = std::env::temp_dir().join(format!("umac-fuzz-compile-{}", std::process::id()));
    std::fs::create_dir_all(&work).unwrap();
    let mut rng = Rng(seed.max(1));
    let mutants: Vec<(PathBuf, String)> = (0..rounds)
        .filter_map(|round| {
            // A place picked may not take the mutation (a scalar type has no dimension): pick again.
            let kind = KINDS[round % KINDS.len()];
            let (mutant, description) = (0..32).find_map(|_| mutate(&text, kind, &mut rng))?;
            let path = work.join(format!("mutant{round}.mlir"));
            std::fs::write(&path, mutant).unwrap();
            Some((path, description))
        })
        .collect();
    assert_eq!(mutants.len(), rounds, "every kind of mutation has places in the model");
    // Two at a time (the machine's cores).
    let outcomes: Vec<(Option<i32>, String)> = std::thread::scope(|scope| {
        let halves: Vec<_> = mutants
            .chunks(mutants.len().div_ceil(2).max(1))
            .map(|chunk| {
                scope.spawn(move || {
                    chunk.iter().map(|(path, _)| compile(path, &path.with_extension("out"))).collect::<Vec<_>>()
                })
            })
            .collect();
        halves.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    let mut counts = [0usize; 2];
    for ((path, description), (code, stderr)) in mutants.iter().zip(&outcomes) {
        let keep = || {
            let kept = root.join("target").join(path.file_name().unwrap());
            let _ = std::fs::copy(path, &kept);
            kept.display().to_string()
        };
        match code {
            Some(0) => {
                assert!(
                    path.with_extension("out")
                        .join(format!("{}.o", path.file_stem().unwrap().to_string_lossy()))
                        .is_file()
                );
                counts[0] += 1;
            }
            Some(1) if located_error(stderr, path) => counts[1] += 1,
            _ => panic!(
                "{description}: exit {code:?} without an error at a location of the model (kept in {}):\n{stderr}",
                keep()
            ),
        }
    }
    eprintln!("{rounds} mutants: {} compiled, {} rejected at a location", counts[0], counts[1]);
    // Both outcomes occur, or the mutations test nothing.
    assert!(counts[0] > 0 && counts[1] > 0, "accepted / rejected: {counts:?}");
    let _ = std::fs::remove_dir_all(&work);
}

//! Fuzz-style robustness test of `umac-opt`: hundreds of mutated inputs and pipelines must each
//! end in exit code 0, or exit code 1 with an error diagnostic (located where MLIR can say where);
//! never a signal, an abort or a hang. Where MLIR itself fails silently (a dialect parser that
//! reports nothing), `umac-opt` does exactly what `mlir-opt` 22 does on the same input.

use std::{
    io::Write,
    path::Path,
    process::{Command, Stdio},
    thread,
    time::{Duration, Instant},
};
use umac_runtime::testdata::Rng;

/// Fragments that steer mutations towards the parser's interesting states.
const TOKENS: &[&str] = &[
    "{",
    "}",
    "(",
    ")",
    "<",
    ">",
    "[",
    "]",
    "%0",
    "%arg0",
    "^bb0",
    "tosa.",
    "\"umac.call_extern\"",
    "loc(",
    "\"",
    "-> ",
    ":",
    "tensor<?x",
    "memref<",
    "dense<",
    "0x",
    "i8",
    "@",
    "#map",
    "// -----\n",
    "\n",
    "\0",
    "\u{ff}",
    "func.func",
    "return",
    "=",
    ",",
    "array<i32: 1, 0>",
    "attributes {umac.target = 1}",
    "affine_map<(d0) -> (d0)>",
];

fn mutate(seed: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut bytes = seed.to_vec();
    for _ in 0..1 + rng.below(4) {
        let len = bytes.len();
        match rng.below(6) {
            0 => bytes.truncate(rng.below(len + 1)),
            1 if len > 0 => {
                let at = rng.below(len);
                bytes[at] = rng.next() as u8;
            }
            2 if len > 0 => {
                let start = rng.below(len);
                let end = (start + 1 + rng.below(64)).min(len);
                bytes.drain(start..end);
            }
            3 => {
                let token = TOKENS[rng.below(TOKENS.len())].as_bytes();
                let at = rng.below(len + 1);
                bytes.splice(at..at, token.iter().copied());
            }
            4 if len > 0 => {
                let start = rng.below(len);
                let end = (start + 1 + rng.below(128)).min(len);
                let copy = bytes[start..end].to_vec();
                let at = rng.below(len + 1);
                bytes.splice(at..at, copy);
            }
            _ => bytes = (0..rng.below(256)).map(|_| rng.next() as u8).collect(),
        }
    }
    bytes
}

struct Outcome {
    code: Option<i32>,
    stderr: String,
}

/// Runs `program` (umac-opt, or mlir-opt as the reference) on `args` and `stdin`.
fn run_program(program: &str, args: &[&str], stdin: &[u8]) -> Outcome {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the program starts");
    let mut input = child.stdin.take().expect("stdin is piped");
    let data = stdin.to_vec();
    let writer = thread::spawn(move || {
        let _ = input.write_all(&data);
    });
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if child.try_wait().expect("wait works").is_some() {
            break;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("{program} hung on args {args:?} and input {:?}", String::from_utf8_lossy(stdin));
        }
        thread::sleep(Duration::from_millis(2));
    }
    let _ = writer.join();
    let output = child.wait_with_output().expect("output is collected");
    Outcome { code: output.status.code(), stderr: String::from_utf8_lossy(&output.stderr).into_owned() }
}

/// An error diagnostic: `FILE:L:C: error:` (`<stdin>`, or `<unknown>:0:` where MLIR has no
/// location, as for a bad pipeline) or LLVM's command-line report (`umac-opt: ...`).
fn reports_an_error(stderr: &str) -> bool {
    stderr.lines().any(|line| {
        let located = line.split_once(": error: ").is_some_and(|(place, _)| {
            if place == "<unknown>:0" {
                return true;
            }
            let mut parts = place.rsplitn(3, ':');
            let col = parts.next().is_some_and(|p| p.parse::<u32>().is_ok());
            let line_no = parts.next().is_some_and(|p| p.parse::<u32>().is_ok());
            col && line_no && parts.next().is_some_and(|file| !file.is_empty())
        });
        located || line.starts_with("umac-opt: ")
    })
}

fn run(args: &[&str], stdin: &[u8]) -> Outcome {
    run_program(env!("CARGO_BIN_EXE_umac-opt"), args, stdin)
}

/// Tells whether `mlir-opt` 22 does exactly what umac-opt did: exit code 1 and the same `stderr`.
fn as_mlir_opt_does(args: &[&str], stdin: &[u8], stderr: &str) -> bool {
    let reference = run_program("/usr/lib/llvm-22/bin/mlir-opt", args, stdin);
    reference.code == Some(1) && reference.stderr.replace("mlir-opt", "umac-opt") == stderr
}

/// The crash guard's report (see `crash_guard.rs`).
const CRASH_REPORT: &str = "umac-opt crashed (";

/// Runs one case. A crash the guard caught is allowed only where `crash_allowed` (malformed
/// bytecode, which MLIR 22's reader does not always survive); anywhere else it fails the test.
fn check(args: &[&str], input: &[u8], outcomes: &mut [usize; 2], crash_allowed: bool) {
    let outcome = run(args, input);
    if outcome.stderr.contains(CRASH_REPORT) && !crash_allowed {
        panic!("MLIR crashed on args {args:?}; input saved to {}:\n{}", save_failure(input), outcome.stderr);
    }
    match outcome.code {
        Some(0) => outcomes[0] += 1,
        Some(1) => {
            if !reports_an_error(&outcome.stderr) && !as_mlir_opt_does(args, input, &outcome.stderr) {
                panic!(
                    "exit 1 without an error diagnostic (and not as mlir-opt does) for args {args:?}:\n{}\ninput saved to {}",
                    outcome.stderr,
                    save_failure(input)
                );
            }
            outcomes[1] += 1;
        }
        code => panic!(
            "umac-opt ended with {code:?} (a signal if None) for args {args:?}; input saved to {}:\n{}",
            save_failure(input),
            outcome.stderr
        ),
    }
}

/// `UMAC_FUZZ_SEED` and `UMAC_FUZZ_ROUNDS` explore further than the default run (a failure prints
/// the input, so any seed's find can become a lit test).
fn settings(default_seed: u64, default_rounds: usize) -> (Rng, usize) {
    let seed = std::env::var("UMAC_FUZZ_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(default_seed);
    let rounds = std::env::var("UMAC_FUZZ_ROUNDS").ok().and_then(|s| s.parse().ok()).unwrap_or(default_rounds);
    (Rng(seed.max(1)), rounds)
}

/// Keeps a failing input for reproduction (`umac-opt ARGS < target/fuzz-failure.bin`).
fn save_failure(input: &[u8]) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/fuzz-failure.bin");
    let _ = std::fs::write(&path, input);
    path.display().to_string()
}

fn seed(path: &str) -> Vec<u8> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    std::fs::read(root.join(path)).unwrap_or_else(|e| panic!("seed {path}: {e}"))
}

#[test]
fn mutated_inputs_give_clean_diagnostics() {
    let text_seeds = [
        seed("examples/conv_rescale_clamp.mlir"),
        seed("test/lit/umac-lower-to-llvm.mlir"),
        seed("test/lit/umac-verify.mlir"),
        seed("test/lit/verify-diagnostics.mlir"),
        seed("test/lit/split-input-file.mlir"),
    ];
    let bytecode = run_to_bytecode(&text_seeds[0]);
    let (mut rng, rounds) = settings(0x5eed_2026, 300);
    let mut outcomes = [0usize; 2];
    let modes: &[&[&str]] = &[
        &["-"],
        &["-", "--split-input-file"],
        &["-", "--split-input-file", "--verify-diagnostics"],
        &["-", "--pass-pipeline=builtin.module(umac-verify,canonicalize)"],
        &["-", "--pass-pipeline=builtin.module(umac-lower-to-llvm)"],
        &["-", "--emit-bytecode"],
    ];
    for round in 0..rounds {
        let from_bytecode = round % 5 == 4;
        let input = if from_bytecode {
            mutate(&bytecode, &mut rng)
        } else {
            mutate(&text_seeds[round % text_seeds.len()], &mut rng)
        };
        let crash_allowed = from_bytecode && input.starts_with(b"ML\xefR");
        check(modes[round % modes.len()], &input, &mut outcomes, crash_allowed);
    }
    // The mutations must exercise both paths, or the test proves nothing.
    assert!(outcomes[1] > rounds / 2, "too few failing inputs: {outcomes:?}");
    assert!(outcomes[0] > rounds / 60, "too few accepted inputs: {outcomes:?}");
}

#[test]
fn mutated_pipelines_give_clean_diagnostics() {
    let input = seed("test/lit/umac-verify.mlir");
    let pipelines = [
        "builtin.module(func.func(canonicalize{max-iterations=3},umac-verify),cse)",
        "builtin.module(umac-lower-to-llvm,umac-plan-memory{alignment=8})",
        "builtin.module(any(cse),func.func(umac-verify))",
    ];
    let (mut rng, rounds) = settings(0x9191_2026, 150);
    let mut outcomes = [0usize; 2];
    for round in 0..rounds {
        let pipeline =
            String::from_utf8_lossy(&mutate(pipelines[round % pipelines.len()].as_bytes(), &mut rng)).replace('\0', "");
        let flag = format!("--pass-pipeline={pipeline}");
        check(&["-", &flag], &input, &mut outcomes, false);
    }
    assert!(outcomes[1] > rounds / 2, "too few failing pipelines: {outcomes:?}");
}

fn run_to_bytecode(text: &[u8]) -> Vec<u8> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_umac-opt"))
        .args(["-", "--emit-bytecode"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("umac-opt starts");
    child.stdin.take().expect("stdin").write_all(text).expect("write");
    let output = child.wait_with_output().expect("output");
    assert!(output.status.success());
    output.stdout
}

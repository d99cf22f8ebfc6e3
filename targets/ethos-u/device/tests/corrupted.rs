//! Corrupted streams run whole: Vela's KWS stream with one or two words changed at random (a bit
//! of a parameter, any bit, a word replaced by a small or any value) goes through the rule
//! checker, the timing model and the functional model, each of which ends with a result or an
//! error at a command: never a panic, and never work or memory out of proportion to the
//! regions (a corrupted shape is an error before a kernel computes it).

mod common;

use common::xorshift;
use std::{
    panic::{AssertUnwindSafe, catch_unwind},
    path::Path,
};
use umac_ethos_u_device::{EthosUOperator, decode, operations, rules, timing};

#[test]
fn corrupted_streams_run_to_a_result_or_an_error_never_a_panic() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vela/kws-ethos-u55-128/model_vela.tflite");
    let operator = EthosUOperator::read(&std::fs::read(path).unwrap(), 0).unwrap();
    let inputs: Vec<Vec<u8>> = operator.inputs.iter().map(|p| vec![7; p.bytes as usize]).collect();
    let inputs: Vec<&[u8]> = inputs.iter().map(Vec::as_slice).collect();
    let system = timing::System::default_for(&operator.payload.config);
    // The same corruptions every run.
    let mut next = xorshift(0x2545_F491_4F6C_DD1D);
    let (mut ran, mut stopped, mut panics) = (0, 0, Vec::new());
    for k in 0..3000 {
        let mut corrupted = operator.clone();
        let words = &mut corrupted.payload.stream;
        for _ in 0..1 + next() % 2 {
            let i = (next() % words.len() as u64) as usize;
            match next() % 4 {
                0 => words[i] ^= 1 << (16 + next() % 16),
                1 => words[i] ^= 1 << (next() % 32),
                2 => words[i] = (next() % 0x1_0000) as u32,
                _ => words[i] = next() as u32,
            }
        }
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            let Ok(decoded) = decode(&corrupted.payload.stream) else { return false };
            let ops = operations(&decoded);
            let _ = rules::check(&corrupted.payload.config, &ops, &corrupted.regions());
            let _ = timing::estimate(&corrupted.payload.config, &system, &ops);
            let mut machine = corrupted.machine();
            corrupted.run(&mut machine, &inputs).is_ok()
        }));
        match outcome {
            Ok(true) => ran += 1,
            Ok(false) => stopped += 1,
            Err(_) => panics.push(k),
        }
    }
    assert!(panics.is_empty(), "corruptions {panics:?} panicked");
    // Most corruptions stop the stream; some leave one that still runs (a changed value).
    assert!(ran > 300 && stopped > 2000, "{ran} ran, {stopped} stopped");
}

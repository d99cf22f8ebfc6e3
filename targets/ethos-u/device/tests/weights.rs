//! The weight decoder on streams Vela's own encoder wrote (`tests/mlw/vectors.bin`, made by
//! `tests/mlw/gen.py`): palettes, zero runs, uncompressed slices, streams of several slices.
//! Each case's weights come from the same xorshift generator as in `gen.py`.

use std::path::Path;
use umac_ethos_u_device::weights::decode;

/// (seed, count, zeros_percent, magnitude), as `gen.py`'s `CASES`.
const CASES: [(u64, usize, u64, i64); 12] = [
    (1, 1, 0, 5),
    (2, 100, 0, 255),
    (3, 1000, 0, 255),
    (4, 5000, 0, 3),
    (5, 4000, 80, 127),
    (6, 300, 100, 1),
    (7, 20000, 10, 40),
    (8, 70000, 30, 7),
    (9, 33000, 0, 1),
    (10, 2048, 95, 255),
    (11, 777, 50, 15),
    (12, 12, 0, 0),
];

fn weights((seed, count, zeros_percent, magnitude): (u64, usize, u64, i64)) -> Vec<i16> {
    let mut state = seed;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    (0..count)
        .map(|_| {
            if next() % 100 < zeros_percent {
                0
            } else {
                ((next() % (2 * magnitude as u64 + 1)) as i64 - magnitude) as i16
            }
        })
        .collect()
}

fn streams() -> Vec<Vec<u8>> {
    let bytes = std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mlw/vectors.bin")).unwrap();
    let mut streams = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let length = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
        streams.push(bytes[at + 4..at + 4 + length].to_vec());
        at += 4 + length;
    }
    streams
}

#[test]
fn velas_encoded_weights_decode_exactly() {
    let streams = streams();
    assert_eq!(streams.len(), CASES.len());
    for (case, stream) in CASES.iter().zip(&streams) {
        let expected = weights(*case);
        assert_eq!(decode(stream, expected.len()).unwrap(), expected, "case {case:?}");
        // One weight fewer than the stream holds is an error, not a truncation.
        if !expected.is_empty() {
            let error = decode(stream, expected.len() - 1).unwrap_err().to_string();
            assert!(error.contains(&format!("more than the {} weights read", expected.len() - 1)), "{error}");
        }
    }
}

#[test]
fn corrupted_weight_streams_decode_or_fail_never_panic() {
    let streams = streams();
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut failed = 0;
    for round in 0..2000 {
        let mut stream = streams[round % streams.len()].clone();
        if stream.is_empty() {
            continue;
        }
        let i = (next() % stream.len() as u64) as usize;
        match next() % 3 {
            0 => stream[i] ^= 1 << (next() % 8),
            1 => stream[i] = next() as u8,
            _ => stream.truncate(i),
        }
        if let Err(e) = decode(&stream, 100_000) {
            failed += 1;
            assert!(e.to_string().starts_with("weight stream, byte "), "{e}");
        }
    }
    assert!(failed > 100, "{failed}");
}

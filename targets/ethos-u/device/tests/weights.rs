//! The weight decoder on streams Vela's own encoder wrote (`tests/mlw/vectors.bin`, made by
//! `tests/mlw/gen.py`): palettes, zero runs, uncompressed slices, streams of several slices.
//! Each case's weights come from the same xorshift generator as in `gen.py`.

mod common;

use common::xorshift;
use std::path::Path;
use umac_ethos_u_device::weights::{Layout, decode};

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
    // gen.py's `weights`.
    let mut next = xorshift(seed);
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
    let mut next = xorshift(0x2545_F491_4F6C_DD1D);
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

#[test]
fn convolution_weights_come_in_the_order_the_layout_gives() {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mlw/ordered.txt")).unwrap();
    let mut cases = 0;
    for line in text.lines() {
        let fields: Vec<&str> = line.split(' ').collect();
        let n: Vec<usize> = fields[1..12].iter().map(|f| f.parse().unwrap()).collect();
        let [o, h, w, i, dx, dy, bits, block, depthwise, part, seed] = n[..] else { panic!("{line}") };
        let stream: Vec<u8> =
            (0..fields[12].len()).step_by(2).map(|k| u8::from_str_radix(&fields[12][k..k + 2], 16).unwrap()).collect();
        let layout = Layout {
            ifm_ublock: 8,
            ofm_ublock: if fields[0] == "Ethos_U55_32" { 4 } else { 8 },
            ofm_depth: o,
            kernel: [h, w],
            ifm_depth: i,
            ofm_block_depth: block,
            depthwise: depthwise == 1,
            part_kernel: part == 1,
            ifm_bits: bits,
            decomposition: [8 / dy, 8 / dx],
        };
        let ohwi = weights((seed as u64, o * h * w * i, 20, 100));
        let order = layout.order();
        let decoded = decode(&stream, order.len()).unwrap();
        assert_eq!(decoded.len(), order.len(), "{line:.40}");
        for (k, (&weight, place)) in decoded.iter().zip(&order).enumerate() {
            let expected = place.map_or(0, |[oz, y, x, iz]| ohwi[((oz * h + y) * w + x) * i + iz]);
            assert_eq!(weight, expected, "{:.40}: weight {k} at {place:?}", line);
        }
        // Every weight of the tensor is read once.
        let mut seen: Vec<_> = order.iter().flatten().collect();
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), o * h * w * i, "{line:.40}");
        cases += 1;
    }
    assert_eq!(cases, 14);
}

//! What the device's integration tests share.
#![allow(dead_code)] // each test file uses a part

pub mod vela;

use std::path::Path;

/// The `.npy` file's data (its header skipped), `None` when there is no such file.
pub fn npy_data(path: &Path) -> Option<Vec<u8>> {
    let bytes = std::fs::read(path).ok()?;
    let header = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    Some(bytes[10 + header..].to_vec())
}

/// The constant data of input `input` of the one `ethos-u` operator of the `.tflite` at `path`.
pub fn operand_of(path: &Path, input: usize) -> Option<Vec<u8>> {
    let bytes = std::fs::read(path).unwrap();
    let listed = umac_frontend::tflite::operators(&bytes).unwrap();
    let ops: Vec<_> = listed.iter().filter(|op| op.kind == "ethos-u").collect();
    assert_eq!(ops.len(), 1, "{}: one ethos-u operator", path.display());
    let data = umac_frontend::tflite::operand_data(&bytes, ops[0].index).unwrap();
    data[input].map(<[u8]>::to_vec)
}

/// xorshift64 from `seed`: the same numbers every run (and as `tests/mlw/gen.py`'s).
pub fn xorshift(seed: u64) -> impl FnMut() -> u64 {
    let mut state = seed;
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    }
}

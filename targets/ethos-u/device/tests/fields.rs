//! The commands and field values Vela's streams in the tests use (`tests/vela/`, `tests/sweep/`,
//! `tests/params/`, `tests/derived/`),
//! against the committed list `fields.txt` that `umac run --report` compares a stream with. A
//! stream added to the tests with a new value fails this test until the list says so
//! (`UMAC_UPDATE_FIELDS=1` rewrites it).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use umac_ethos_u_device::{EthosUOperator, commands, coverage, decode};

fn models() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut paths = Vec::new();
    for dir in std::fs::read_dir(root.join("vela")).unwrap() {
        let model = dir.unwrap().path().join("model_vela.tflite");
        if model.exists() {
            paths.push(model);
        }
    }
    let sweeps = ["sweep", "params"].map(|d| std::fs::read_dir(root.join(d)).unwrap());
    for configuration in sweeps.into_iter().flatten() {
        let configuration = configuration.unwrap().path();
        if !configuration.file_name().unwrap().to_string_lossy().starts_with("ethos-u") {
            continue;
        }
        if !configuration.is_dir() {
            continue;
        }
        for file in std::fs::read_dir(configuration).unwrap() {
            let path = file.unwrap().path();
            if path.extension().is_some_and(|e| e == "tflite") {
                paths.push(path);
            }
        }
    }
    for case in std::fs::read_dir(root.join("derived")).unwrap() {
        let case = case.unwrap().path();
        for file in std::fs::read_dir(&case).into_iter().flatten() {
            let path = file.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy();
            if name.starts_with("ethos-u") && name.ends_with(".tflite") {
                paths.push(path);
            }
        }
    }
    paths.sort();
    paths
}

#[test]
fn the_committed_list_is_what_the_tested_streams_use() {
    let mut met = BTreeSet::new();
    let paths = models();
    assert!(paths.len() > 1000, "{} models", paths.len());
    for path in &paths {
        let bytes = std::fs::read(path).unwrap();
        let operator = EthosUOperator::read(&bytes, 0).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        met.extend(coverage::entries(&decode(&operator.payload.stream).unwrap()));
    }
    let text: String = met.iter().map(|e| format!("{e}\n")).collect();
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("fields.txt");
    if std::env::var_os("UMAC_UPDATE_FIELDS").is_some() {
        std::fs::write(&file, &text).unwrap();
    }
    assert_eq!(coverage::SHOWN, text, "the streams use other commands or values than fields.txt lists");
    // Every entry names a command of the table.
    for entry in &met {
        let command = entry.split(' ').next().unwrap();
        assert!(commands::by_name(command).is_some(), "{entry}");
    }
}

#[test]
fn a_value_no_stream_showed_is_reported() {
    // KWS's stream with its first OFM precision (0x0001_0114) made to round by truncation
    // (round_mode 1, bits 14-15 of the parameter), which no Vela stream in the tests does.
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vela/kws-ethos-u55-128/model_vela.tflite");
    let operator = EthosUOperator::read(&std::fs::read(path).unwrap(), 0).unwrap();
    let mut stream = operator.payload.stream.clone();
    assert_eq!(coverage::unseen(&decode(&stream).unwrap()), Vec::<String>::new());
    let at = stream.iter().position(|&w| w == 0x0001_0114).unwrap();
    stream[at] = 0x4001_0114;
    assert_eq!(coverage::unseen(&decode(&stream).unwrap()), ["NPU_SET_OFM_PRECISION round_mode=ROUND_MODE_TRUNCATE"]);
}

//! File tests of the Cranelift engine, as Cranelift's own filetests are: each `tests/files/*.mlir`
//! is loop-level MLIR (the level `umac-lower-to-host-loops` gives) with its expectations in
//! comments, translated and run by the JIT on its own, without the rest of umac.
//!
//! ```text
//! // case: i32[4] 1 2 3 4 ; f32[2] 0.5 1 -> i32[4] 2 4 6 8
//! // error: file.mlir:5:
//! ```
//! A `case` gives `@main`'s inputs (`;` between arguments) and, after `->`, the values its output
//! arguments must hold afterwards, byte for byte. An `error` expects translation to fail with a
//! message containing the text (the op's location).

use std::path::{Path, PathBuf};
use umac_codegen_cranelift::{EntryPoint, compile_jit};
use umac_dialects::{ContextOptions, create_context, source::parse_module};

/// One argument: its element type and its values' little-endian bytes.
fn parse_tensor(text: &str) -> (String, Vec<u8>) {
    let text = text.trim();
    let (ty, values) = text.split_once(' ').unwrap_or((text, ""));
    let elem = &ty[..ty.find('[').unwrap_or_else(|| panic!("no shape in `{ty}`"))];
    let count: usize = ty[elem.len() + 1..ty.len() - 1].parse().unwrap_or_else(|_| panic!("shape of `{ty}`"));
    let values: Vec<&str> = values.split_whitespace().collect();
    assert_eq!(values.len(), count, "`{text}`: {count} values expected");
    let mut bytes = Vec::new();
    for v in values {
        let int = || v.parse::<i64>().unwrap_or_else(|_| panic!("`{v}` is not an integer"));
        match elem {
            "i8" => bytes.extend((int() as i8).to_le_bytes()),
            "i16" => bytes.extend((int() as i16).to_le_bytes()),
            "i32" => bytes.extend((int() as i32).to_le_bytes()),
            "i64" => bytes.extend(int().to_le_bytes()),
            "f32" => bytes.extend(v.parse::<f32>().unwrap_or_else(|_| panic!("`{v}`")).to_le_bytes()),
            other => panic!("element type {other}"),
        }
    }
    (elem.to_string(), bytes)
}

fn arguments(text: &str) -> Vec<(String, Vec<u8>)> {
    text.split(';').map(parse_tensor).collect()
}

/// Runs the file's cases (or checks its error); returns how many it checked.
fn run_file(path: &Path) -> usize {
    let text = std::fs::read_to_string(path).unwrap();
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let context = create_context(ContextOptions::default());
    let module = parse_module(&context, &name, text.as_bytes()).unwrap_or_else(|| panic!("{name} does not parse"));
    let directive = |key: &str| -> Vec<&str> {
        text.lines().filter_map(|l| l.trim().strip_prefix("// ").and_then(|l| l.strip_prefix(key))).collect()
    };
    let (cases, errors) = (directive("case:"), directive("error:"));
    assert!(!cases.is_empty() || !errors.is_empty(), "{name}: no `case:` or `error:`");
    let mut checked = 0;
    for case in cases {
        let (inputs, outputs) = case.split_once("->").unwrap_or_else(|| panic!("{name}: no `->` in `{case}`"));
        let (inputs, expected) = (arguments(inputs), arguments(outputs));
        let point = EntryPoint {
            function: "main".into(),
            symbol: "umac_filetest_entry".into(),
            inputs: inputs.len(),
            outputs: expected.len(),
        };
        let program = compile_jit(&module, &point, &[]).unwrap_or_else(|e| panic!("{name}: {e}"));
        let input_pointers: Vec<*const u8> = inputs.iter().map(|(_, bytes)| bytes.as_ptr()).collect();
        let mut results: Vec<Vec<u8>> = expected.iter().map(|(_, bytes)| vec![0xA5; bytes.len()]).collect();
        let output_pointers: Vec<*mut u8> = results.iter_mut().map(|r| r.as_mut_ptr()).collect();
        // SAFETY: each pointer is a buffer of the size and element type of its argument, as the
        // file declares them; the program lives until after the call.
        let status =
            unsafe { program.entry()(input_pointers.as_ptr(), output_pointers.as_ptr(), std::ptr::null_mut()) };
        assert_eq!(status, 0, "{name}: the entry returned {status}");
        for (k, ((elem, want), got)) in expected.iter().zip(&results).enumerate() {
            assert_eq!(got, want, "{name}: output #{k} ({elem}) after `{case}`");
        }
        checked += 1;
    }
    for error in errors {
        let point = EntryPoint { function: "main".into(), symbol: "umac_filetest_entry".into(), inputs: 1, outputs: 1 };
        match compile_jit(&module, &point, &[]) {
            Ok(_) => panic!("{name}: translation succeeded, expected an error containing `{error}`"),
            Err(e) => assert!(e.to_string().contains(error.trim()), "{name}: `{e}` lacks `{}`", error.trim()),
        }
        checked += 1;
    }
    checked
}

#[test]
fn every_file_runs_as_it_says() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/files");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "mlir"))
        .collect();
    files.sort();
    assert!(files.len() >= 5, "{} files in {}", files.len(), dir.display());
    let checked: usize = files.iter().map(|f| run_file(f)).sum();
    assert!(checked >= files.len(), "{checked} checks in {} files", files.len());
}

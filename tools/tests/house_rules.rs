//! The house rules `scripts/test` checks on the source tree (docs/development.md):
//! - no pass imports another pass: what two passes share lives in a named module of its own
//!   (`lowering/src/schedule.rs`, `windows.rs`, `unit_expansion.rs`, `umac_dialects::ir`);
//! - outside the passes, a pass is reached only through its registry entries (`INFO`);
//! - no source file outside tests is over 700 lines.
//!
//! Each finding names the file and line.

use std::path::{Path, PathBuf};

/// The longest source file outside tests.
const MAX_LINES: usize = 700;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").canonicalize().expect("the repository")
}

/// Every `.rs` file of the workspace (not `target/`, not hidden directories).
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            if !name.starts_with('.') && name != "target" {
                sources(&path, out);
            }
        } else if name.ends_with(".rs") {
            out.push(path);
        }
    }
}

/// The identifiers a line names right after `prefix` (`prefix::name` or `prefix::{a::.., b}`).
fn named_after(line: &str, prefix: &str) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find(prefix) {
        // Not a longer path ending in the prefix (`foo_passes::`).
        let before = rest[..at].chars().last();
        rest = &rest[at + prefix.len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let group: Vec<&str> = match rest.strip_prefix('{') {
            Some(inner) => inner[..inner.find('}').unwrap_or(inner.len())].split(',').collect(),
            None => vec![rest],
        };
        for part in group {
            let part = part.trim();
            let module: String = part.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            let item = part[module.len()..]
                .strip_prefix("::")
                .map(|r| r.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect())
                .unwrap_or_default();
            if !module.is_empty() {
                found.push((module, item));
            }
        }
    }
    found
}

/// The pass modules of `lowering/src/passes`: those defining a registry entry.
fn pass_modules(passes: &Path) -> Vec<String> {
    let mut modules = Vec::new();
    for entry in std::fs::read_dir(passes).unwrap().flatten() {
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "rs") && path.file_stem().is_some_and(|s| s != "mod") {
            let text = std::fs::read_to_string(&path).unwrap();
            if text.contains("pub const INFO: PassInfo") {
                modules.push(path.file_stem().unwrap().to_string_lossy().into_owned());
            }
        }
    }
    modules
}

/// Code lines (comments and doc comments aside), numbered from 1.
fn code_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines().enumerate().map(|(i, l)| (i + 1, l)).filter(|(_, l)| !l.trim_start().starts_with("//"))
}

#[test]
fn no_pass_imports_another_and_others_reach_passes_by_their_entries() {
    let root = root();
    let passes_dir = root.join("lowering/src/passes");
    let passes = pass_modules(&passes_dir);
    assert!(passes.len() > 20, "found {} passes", passes.len());
    let mut files = Vec::new();
    sources(&root, &mut files);
    let mut findings = Vec::new();
    // (This file names what it forbids in its own test.)
    let this = Path::new(file!()).file_name().unwrap();
    for file in files.iter().filter(|f| f.file_name() != Some(this) || !f.starts_with(root.join("tools/tests"))) {
        let text = std::fs::read_to_string(file).unwrap();
        let relative = file.strip_prefix(&root).unwrap_or(file).display().to_string();
        let in_passes = file.starts_with(&passes_dir);
        // The pass a file of lowering/src/passes belongs to, and what `super::` means there.
        let owner = in_passes.then(|| {
            let inner = file.strip_prefix(&passes_dir).unwrap();
            let first = inner.components().next().unwrap().as_os_str().to_string_lossy().into_owned();
            first.trim_end_matches(".rs").to_string()
        });
        let nested = in_passes && file.parent() != Some(passes_dir.as_path());
        let registry = relative == "lowering/src/passes/mod.rs" || relative == "lowering/src/registry.rs";
        for (number, line) in code_lines(&text) {
            let mut named = named_after(line, "passes::");
            if in_passes {
                named.extend(named_after(line, if nested { "super::super::" } else { "super::" }));
            }
            for (module, item) in named {
                if !passes.contains(&module) || owner.as_deref() == Some(module.as_str()) || registry {
                    continue;
                }
                if in_passes {
                    findings.push(format!("{relative}:{number}: imports the pass `{module}` (`{line}`)"));
                } else if !item.ends_with("INFO") {
                    findings.push(format!("{relative}:{number}: reaches into the pass `{module}` (`{line}`)"));
                }
            }
        }
    }
    assert!(findings.is_empty(), "house rules:\n{}", findings.join("\n"));
}

#[test]
fn no_source_file_outside_tests_is_over_700_lines() {
    let root = root();
    let mut files = Vec::new();
    sources(&root, &mut files);
    let mut long = Vec::new();
    for file in &files {
        let relative = file.strip_prefix(&root).unwrap_or(file).display().to_string();
        let name = file.file_name().unwrap().to_string_lossy();
        let test = relative.split('/').any(|c| c == "tests") || name == "tests.rs" || name.ends_with("_tests.rs");
        let lines = std::fs::read_to_string(file).unwrap().lines().count();
        if !test && lines > MAX_LINES {
            long.push(format!("{relative}: {lines} lines"));
        }
    }
    assert!(long.is_empty(), "over {MAX_LINES} lines:\n{}", long.join("\n"));
}

#[test]
fn the_rules_see_what_they_forbid() {
    assert_eq!(
        named_after("    passes::{im2col::PATCH_OP, fold_padding::map},", "passes::"),
        [("im2col".to_string(), "PATCH_OP".to_string()), ("fold_padding".to_string(), "map".to_string())]
    );
    assert_eq!(
        named_after("use umac_lowering::passes::profile_hooks;", "passes::"),
        [("profile_hooks".to_string(), String::new())]
    );
    assert!(named_after("let x = my_passes::im2col::X;", "passes::").is_empty());
    assert_eq!(
        named_after("use super::fold_padding::pair;", "super::"),
        [("fold_padding".to_string(), "pair".to_string())]
    );
}

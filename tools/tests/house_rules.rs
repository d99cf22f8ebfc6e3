//! The house rules `scripts/test` checks on the source tree (docs/development.md):
//! - no pass imports another pass: what two passes share lives in a named module of its own
//!   (`lowering/src/schedule.rs`, `windows.rs`, `unit_expansion.rs`, `umac_dialects::ir`);
//! - outside the passes, a pass is reached only through its registry entries (`INFO`);
//! - no source file outside tests is over 700 lines;
//! - no library crate (every crate but `tools`, the command-line programs) returns
//!   `Result<_, String>` outside its tests (its `src/` and `examples/`): errors are typed (one `thiserror` enum per crate);
//! - no backend is named outside `targets/`: the code of the other crates (tests aside) reaches
//!   accelerators through the `Backend` trait and the registry, and no crate outside `targets/`
//!   depends on one;
//! - library code builds IR with builders (`umac_dialects::build`), not by formatting MLIR text:
//!   the files that still write IR as text are listed in [`TEXT_IR`], a list that only shrinks
//!   (a listed file that no longer does is a finding too, so the list stays true).
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

/// The passes of `lowering/src/passes` (one folder per level): the files defining a registry
/// entry, by name, with the folder of each.
fn pass_modules(passes: &Path) -> Vec<(String, PathBuf)> {
    let mut modules = Vec::new();
    for group in std::fs::read_dir(passes).unwrap().flatten().map(|e| e.path()).filter(|p| p.is_dir()) {
        for entry in std::fs::read_dir(&group).unwrap().flatten() {
            let path = entry.path();
            if path.extension().is_some_and(|e| e == "rs") && path.file_stem().is_some_and(|s| s != "mod") {
                let text = std::fs::read_to_string(&path).unwrap();
                if text.contains("pub const INFO: PassInfo") {
                    modules.push((path.file_stem().unwrap().to_string_lossy().into_owned(), group.clone()));
                }
            }
        }
    }
    modules
}

/// Whether `line` names `module` as a path segment (`module::`, after `::`, `{`, a space or the
/// line's start).
fn names_module(line: &str, module: &str) -> bool {
    let needle = format!("{module}::");
    line.match_indices(&needle)
        .any(|(at, _)| line[..at].chars().last().is_none_or(|c| !(c.is_alphanumeric() || c == '_')))
}

/// The identifiers right after each `module::` segment of `line` (the first of a `{...}` group).
fn items_after(line: &str, module: &str) -> Vec<String> {
    let needle = format!("{module}::");
    line.match_indices(&needle)
        .filter(|(at, _)| line[..*at].chars().last().is_none_or(|c| !(c.is_alphanumeric() || c == '_')))
        .map(|(at, _)| {
            let rest = line[at + needle.len()..].trim_start_matches('{');
            rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect()
        })
        .collect()
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
        // The pass a file of lowering/src/passes belongs to: its file, or its folder of modules.
        let owner = passes
            .iter()
            .find(|(name, group)| *file == group.join(format!("{name}.rs")) || file.starts_with(group.join(name)));
        let registry = relative.starts_with("lowering/src/passes/") && relative.ends_with("mod.rs")
            || relative == "lowering/src/registry.rs";
        let in_passes = file.starts_with(&passes_dir);
        for (number, line) in code_lines(&text) {
            if registry || !(line.contains("passes::") || line.contains("super::")) {
                continue;
            }
            for (module, _) in &passes {
                if owner.is_some_and(|(name, _)| name == module) || !names_module(line, module) {
                    continue;
                }
                if in_passes {
                    findings.push(format!("{relative}:{number}: imports the pass `{module}` (`{}`)", line.trim()));
                } else if !items_after(line, module).iter().all(|item| item.ends_with("INFO")) {
                    findings.push(format!("{relative}:{number}: reaches into the pass `{module}` (`{}`)", line.trim()));
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

/// The accelerators of the registry (`umac-<name>` lines of targets/registry/Cargo.toml), and
/// its custom-operator devices (`umac-<name>-device` lines: `<name>`).
fn backend_names(root: &Path) -> Vec<String> {
    let manifest = std::fs::read_to_string(root.join("targets/registry/Cargo.toml")).unwrap();
    let section = |name: &str| {
        let begin = manifest.find(&format!("# {name} begin")).expect("the registry's list");
        let end = manifest.find(&format!("# {name} end")).expect("the registry's list");
        manifest[begin..end]
            .lines()
            .skip(1)
            .filter_map(|l| l.trim().strip_prefix("umac-"))
            .map(|l| l.split([' ', '=', '.']).next().unwrap_or_default())
            .map(|l| l.strip_suffix("-device").unwrap_or(l).to_string())
            .collect::<Vec<String>>()
    };
    [section("accelerators"), section("custom operators")].concat()
}

/// Whether `line` holds `word` as a whole word (not inside an identifier).
fn names_word(line: &str, word: &str) -> bool {
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    line.match_indices(word).any(|(at, _)| {
        line[..at].chars().last().is_none_or(|c| !is_ident(c))
            && line[at + word.len()..].chars().next().is_none_or(|c| !is_ident(c))
    })
}

/// The code lines of a source file before its unit-test module (`#[cfg(test)]` then `mod`).
fn code_before_tests(text: &str) -> Vec<(usize, &str)> {
    let lines: Vec<&str> = text.lines().collect();
    let tests = lines.windows(2).position(|w| w[0].trim() == "#[cfg(test)]" && w[1].trim_start().starts_with("mod "));
    code_lines(text).take_while(|(n, _)| tests.is_none_or(|t| *n <= t)).collect()
}

#[test]
fn no_backend_is_named_outside_targets() {
    let root = root();
    let names = backend_names(&root);
    assert!(names.len() >= 2, "the registry lists {names:?}");
    let mut findings = Vec::new();
    for entry in std::fs::read_dir(&root).unwrap().flatten() {
        let dir = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if !dir.join("Cargo.toml").is_file() || name == "targets" {
            continue;
        }
        let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
        for (number, line) in manifest.lines().enumerate() {
            for backend in &names {
                if line.trim_start().starts_with(&format!("umac-{backend}")) {
                    findings.push(format!("{name}/Cargo.toml:{}: depends on the accelerator {backend}", number + 1));
                }
            }
        }
        let mut files = Vec::new();
        for code in ["src", "examples", "build.rs"] {
            let path = dir.join(code);
            if path.is_file() {
                files.push(path);
            } else {
                sources(&path, &mut files);
            }
        }
        for file in files {
            let file_name = file.file_name().unwrap().to_string_lossy().into_owned();
            let relative = file.strip_prefix(&root).unwrap_or(&file).display().to_string();
            if file_name == "tests.rs" || file_name.ends_with("_tests.rs") || relative.contains("/tests/") {
                continue;
            }
            let text = std::fs::read_to_string(&file).unwrap();
            for (number, line) in code_before_tests(&text) {
                for backend in names.iter().filter(|b| names_word(line, b)) {
                    findings.push(format!("{relative}:{number}: names the accelerator {backend} (`{}`)", line.trim()));
                }
            }
        }
    }
    assert!(findings.is_empty(), "house rules:\n{}", findings.join("\n"));
}

/// Whether `line` holds a `Result<..., String>` (its last type argument `String`).
fn string_result(line: &str) -> bool {
    line.match_indices("Result<").any(|(at, _)| {
        let rest = &line[at + "Result<".len()..];
        let (mut depth, mut last_comma) = (1, None);
        for (i, c) in rest.char_indices() {
            match c {
                '<' | '(' | '[' => depth += 1,
                '>' | ')' | ']' => {
                    depth -= 1;
                    if depth == 0 {
                        return last_comma.is_some_and(|k: usize| rest[k + 1..i].trim() == "String");
                    }
                }
                ',' if depth == 1 => last_comma = Some(i),
                _ => {}
            }
        }
        false
    })
}

/// The library crates' directories: every workspace crate but `tools`.
fn library_crates(root: &Path) -> Vec<PathBuf> {
    let mut crates = Vec::new();
    let mut visit = |dir: PathBuf| {
        if dir.join("Cargo.toml").is_file() && dir.join("src").is_dir() && !dir.ends_with("tools") {
            crates.push(dir);
        }
    };
    for entry in std::fs::read_dir(root).unwrap().flatten() {
        visit(entry.path());
    }
    for entry in std::fs::read_dir(root.join("targets")).unwrap().flatten() {
        visit(entry.path());
        for inner in std::fs::read_dir(entry.path()).into_iter().flatten().flatten() {
            visit(inner.path());
        }
    }
    crates
}

/// The source files of every library crate in its folders `dirs` (`src`, `examples`), unit-test
/// files aside: each one's path from the repository's root and its text.
fn library_sources(root: &Path, dirs: &[&str]) -> Vec<(String, String)> {
    let crates = library_crates(root);
    assert!(crates.len() >= 10, "found {crates:?}");
    let mut files = Vec::new();
    for dir in crates {
        for folder in dirs {
            sources(&dir.join(folder), &mut files);
        }
    }
    files
        .into_iter()
        .filter(|file| {
            let name = file.file_name().unwrap().to_string_lossy().into_owned();
            name != "tests.rs" && !name.ends_with("_tests.rs")
        })
        .map(|file| {
            let relative = file.strip_prefix(root).unwrap_or(&file).display().to_string();
            (relative, std::fs::read_to_string(&file).unwrap())
        })
        .collect()
}

#[test]
fn library_crates_return_typed_errors() {
    let root = root();
    let mut findings = Vec::new();
    for (relative, text) in library_sources(&root, &["src", "examples"]) {
        for (number, line) in code_before_tests(&text) {
            if string_result(line) {
                findings.push(format!("{relative}:{number}: returns a String error (`{}`)", line.trim()));
            }
        }
    }
    assert!(findings.is_empty(), "house rules (type the errors):\n{}", findings.join("\n"));
}

/// The library files that still write IR as MLIR text, to be moved to builders
/// (`umac_dialects::build`); no file joins them.
const TEXT_IR: &[&str] = &["frontend/src/emit.rs"];

/// What `line`'s string literals hold (a comment after the code aside).
fn quoted(line: &str) -> String {
    let (mut inside, mut escaped, mut out, mut previous) = (false, false, String::new(), ' ');
    for c in line.chars() {
        if inside {
            match c {
                '"' if !escaped => {
                    inside = false;
                    out.push('\n');
                }
                _ => out.push(c),
            }
            escaped = c == '\\' && !escaped;
        } else if c == '"' {
            inside = true;
        } else if c == '/' && previous == '/' {
            break;
        }
        previous = c;
    }
    out
}

/// Whether `line` holds MLIR text in a string: a function (`func.func @f`, `func.func private
/// @f`; not the name of the op, as in a pass's summary) or an op defining a value (`%name =
/// dialect.op`).
fn mlir_text(line: &str) -> bool {
    let quoted = quoted(line);
    if ["func.func @", "func.func private @", "func.func {"].iter().any(|f| quoted.contains(f)) {
        return true;
    }
    quoted.match_indices(" = ").any(|(at, _)| {
        let name = |c: char| c.is_ascii_alphanumeric() || "%_{}:#".contains(c);
        let before = quoted[..at].rsplit(|c: char| !name(c)).next().unwrap_or("");
        let after: String =
            quoted[at + 3..].chars().take_while(|c| c.is_ascii_alphanumeric() || "._".contains(*c)).collect();
        let op = after.split_once('.').is_some_and(|(d, o)| {
            !d.is_empty() && !o.is_empty() && d.chars().all(|c| c.is_ascii_lowercase() || c == '_')
        });
        before.starts_with('%') && op
    })
}

#[test]
fn library_code_builds_ir_with_builders() {
    let root = root();
    let mut findings = Vec::new();
    let mut still = Vec::new();
    for (relative, text) in library_sources(&root, &["src"]) {
        let lines: Vec<(usize, &str)> = code_before_tests(&text).into_iter().filter(|(_, l)| mlir_text(l)).collect();
        match (lines.first(), TEXT_IR.contains(&relative.as_str())) {
            (Some((number, line)), false) => {
                findings.push(format!("{relative}:{number}: writes IR as MLIR text (`{}`)", line.trim()));
            }
            (None, true) => findings.push(format!("{relative}: builds its IR now: strike it from TEXT_IR")),
            (Some(_), true) => still.push(relative),
            (None, false) => {}
        }
    }
    for listed in TEXT_IR {
        if !still.iter().any(|s| s == listed) && !findings.iter().any(|f| f.starts_with(listed)) {
            findings.push(format!("{listed}: listed in TEXT_IR but not found"));
        }
    }
    assert!(findings.is_empty(), "house rules (build IR with umac_dialects::build):\n{}", findings.join("\n"));
}

#[test]
fn the_rules_see_what_they_forbid() {
    assert!(mlir_text(r#"lines.push(format!("%c{i} = arith.constant {value} : i32"));"#));
    assert!(mlir_text(r#"    "func.func @lowered(%token: i32) {\n""#));
    assert!(mlir_text(r#"format!("func.func private @{name}({args}) {{")"#));
    // The op's name in a message or a pass's summary is no IR.
    assert!(!mlir_text(r#"unsupported(op.location(), "func.func without a body")"#));
    assert!(!mlir_text(r#"summary: "Run a func.func pipeline on the functions partitioned to one target only","#));
    assert!(!mlir_text(r#"let x = format!("{a} = b.c");"#));
    assert!(!mlir_text(r#"b.op("arith.addi", &[x, y], &[], &[]); // %z = arith.addi"#));
    assert!(!mlir_text(r#"let s = "a \" = b.c"; // "%y = d.e""#));
    assert!(mlir_text(r#"f("\"%x = b.c\"")"#));
    assert!(string_result("fn f() -> Result<(), String> {"));
    assert!(string_result("    ) -> Result<Vec<(String, u8)>, String> {"));
    assert!(!string_result("fn f() -> Vec<Result<Option<String>, Error>> {"));
    assert!(!string_result("fn f() -> Result<String, Error> {"));
    assert!(names_word(r#"a.backend.name() == "tynnp""#, "tynnp"));
    assert!(names_word("(\"tynnp -vu=1\", x)", "tynnp"));
    assert!(!names_word("umac_tynnp_device::Params", "tynnp"));
    assert_eq!(
        code_before_tests("fn a() {}\n// tynnp\nfn b() {}\n#[cfg(test)]\nmod tests {\n  tynnp\n}\n"),
        [(1, "fn a() {}"), (3, "fn b() {}")]
    );
    assert_eq!(
        items_after("passes::linalg::im2col::COLLAPSE_INFO, x::im2col::{PATCH_OP}", "im2col"),
        ["COLLAPSE_INFO", "PATCH_OP"]
    );
    assert_eq!(items_after("    passes::{im2col::PATCH_OP, fold_padding::map},", "fold_padding"), ["map"]);
    assert!(names_module("use super::fold_padding::pair;", "fold_padding"));
    assert!(!names_module("use crate::passes::linalg::my_im2col::X;", "im2col"));
}

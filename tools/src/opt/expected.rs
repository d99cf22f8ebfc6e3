//! `--verify-diagnostics`: the `// expected-error {{...}}` comments of `mlir-opt`.
//!
//! Syntax, as MLIR's: `expected-(error|warning|note|remark)[-re] [@+N|@-N|@above|@below|@unknown] {{text}}`.
//! The comment expects a diagnostic on its own line, N lines below/above, on the closest line
//! above/below that is not itself an expectation, or at an unknown location. `{{text}}` matches
//! when the message contains `text`; with `-re`, `{{...}}` groups inside the text are regular
//! expressions. Every diagnostic must be expected and every expectation met.

use super::diagnostics::{Diag, Severity, Sources};
use regex::Regex;
use std::sync::LazyLock;
use umac_dialects::FileLineCol;

static DESIGNATOR: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"expected-(error|note|remark|warning)(-re)? *(@([+-][0-9]+|above|below|unknown))? *\{\{(.*)\}\}\s*$")
        .unwrap_or_else(|e| unreachable!("constant regex: {e}"))
});

/// One expectation from a comment.
#[derive(Debug)]
pub struct Expectation {
    severity: Severity,
    /// The line the diagnostic must be on; `None` for `@unknown`.
    line: Option<usize>,
    /// Where the comment is, for "was not produced" errors.
    at: FileLineCol,
    text: String,
    matcher: Matcher,
    matched: bool,
}

#[derive(Debug)]
enum Matcher {
    Substring,
    Regex(Regex),
}

/// Reads the expectations of a chunk of `file` whose text starts at 1-based line `first_line`.
/// Malformed `-re` patterns are reported as errors.
pub fn parse(file: &str, text: &[u8], first_line: usize) -> Result<Vec<Expectation>, Vec<Diag>> {
    let text = String::from_utf8_lossy(text);
    let mut expectations = Vec::new();
    let mut errors = Vec::new();
    let mut below: Vec<usize> = Vec::new();
    let mut last_plain_line = None;
    for (index, line_text) in text.split('\n').enumerate() {
        let line = first_line + index;
        let Some(caps) = DESIGNATOR.captures(line_text) else {
            for pending in below.drain(..) {
                let e: &mut Expectation = &mut expectations[pending];
                e.line = Some(line);
            }
            last_plain_line = Some(line);
            continue;
        };
        let column = caps.get(0).map_or(0, |m| line_text[..m.start()].chars().count()) + 1;
        let at = FileLineCol { file: file.to_string(), line, column };
        let severity = match &caps[1] {
            "error" => Severity::Error,
            "warning" => Severity::Warning,
            "note" => Severity::Note,
            _ => Severity::Remark,
        };
        let body = caps[5].to_string();
        let matcher = if caps.get(2).is_some() {
            match Regex::new(&regex_of(&body)) {
                Ok(re) => Matcher::Regex(re),
                Err(e) => {
                    errors
                        .push(Diag::error(Some(at), format!("invalid regex in expected-{}-re: {e}", severity.word())));
                    continue;
                }
            }
        } else {
            Matcher::Substring
        };
        let mut expectation = Expectation { severity, line: Some(line), at, text: body, matcher, matched: false };
        match caps.get(4).map(|m| m.as_str()) {
            None => {}
            Some("unknown") => expectation.line = None,
            Some("above") => expectation.line = last_plain_line,
            Some("below") => below.push(expectations.len()),
            Some(offset) => {
                let n: usize = offset[1..].parse().unwrap_or(0);
                expectation.line = Some(if offset.starts_with('+') { line + n } else { line.saturating_sub(n) });
            }
        }
        expectations.push(expectation);
    }
    if errors.is_empty() { Ok(expectations) } else { Err(errors) }
}

/// Turns `text{{re}}text` into one regular expression: literal parts escaped, `{{...}}` kept.
fn regex_of(body: &str) -> String {
    let mut out = String::new();
    let mut rest = body;
    while let Some(open) = rest.find("{{") {
        out.push_str(&regex::escape(&rest[..open]));
        let after = &rest[open + 2..];
        match after.find("}}") {
            Some(close) => {
                out.push('(');
                out.push_str(&after[..close]);
                out.push(')');
                rest = &after[close + 2..];
            }
            None => {
                out.push_str(&regex::escape(&rest[open..]));
                rest = "";
            }
        }
    }
    out.push_str(&regex::escape(rest));
    out
}

impl Expectation {
    fn matches(&self, diag: &Diag, file: &str) -> bool {
        if self.severity != diag.severity {
            return false;
        }
        let place_ok = match (&diag.location, self.line) {
            (None, None) => true,
            (Some(loc), Some(line)) => loc.file == file && loc.line == line,
            _ => false,
        };
        place_ok
            && match &self.matcher {
                Matcher::Substring => diag.message.contains(&self.text),
                Matcher::Regex(re) => re.is_match(&diag.message),
            }
    }
}

/// Checks the diagnostics of one chunk against its expectations. Returns the report of every
/// unexpected diagnostic and unmet expectation, empty when all is as expected.
pub fn check(file: &str, mut expectations: Vec<Expectation>, diagnostics: &[Diag], sources: &Sources) -> String {
    let mut report = String::new();
    let mut flat = Vec::new();
    for diag in diagnostics {
        flatten(diag, &mut flat);
    }
    for diag in flat {
        match expectations.iter_mut().find(|e| e.matches(&diag, file)) {
            Some(expectation) => expectation.matched = true,
            None => {
                let mut unexpected = diag.clone();
                unexpected.severity = Severity::Error;
                unexpected.message = format!("unexpected {}: {}", diag.severity.word(), diag.message);
                report.push_str(&sources.render(&unexpected));
            }
        }
    }
    for expectation in expectations.iter().filter(|e| !e.matched) {
        let message = format!("expected {} \"{}\" was not produced", expectation.severity.word(), expectation.text);
        report.push_str(&sources.render(&Diag::error(Some(expectation.at.clone()), message)));
    }
    report
}

/// The note MLIR attaches to verifier errors to show the op. `mlir-opt --verify-diagnostics`
/// turns it off (the C API cannot), so it is left out here to keep mlir-opt's tests valid.
const CURRENT_OPERATION_NOTE: &str = "see current operation:";

/// A diagnostic, then its notes as diagnostics of their own (each note is expected separately).
fn flatten(diag: &Diag, out: &mut Vec<Diag>) {
    let mut head = diag.clone();
    head.notes.clear();
    out.push(head);
    for note in diag.notes.iter().filter(|n| !n.message.starts_with(CURRENT_OPERATION_NOTE)) {
        flatten(note, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(line: usize) -> Option<FileLineCol> {
        Some(FileLineCol { file: "t.mlir".into(), line, column: 3 })
    }

    fn run(text: &str, diags: &[Diag]) -> String {
        let mut sources = Sources::default();
        sources.add("t.mlir", text.as_bytes().to_vec());
        let expectations = parse("t.mlir", text.as_bytes(), 1).unwrap();
        check("t.mlir", expectations, diags, &sources)
    }

    #[test]
    fn designators_resolve_lines() {
        let text = "op1\n// expected-error @below {{b}}\n// expected-error @above {{a}}\nop4\n// expected-error@-1 {{c}} \nop6 // expected-error {{d}}\n// expected-warning @+1 {{e}}\nop8\n";
        let expectations = parse("t.mlir", text.as_bytes(), 1).unwrap();
        let lines: Vec<_> = expectations.iter().map(|e| e.line).collect();
        assert_eq!(lines, [Some(4), Some(1), Some(4), Some(6), Some(8)]);
    }

    #[test]
    fn lines_count_from_the_chunk_start() {
        let expectations = parse("t.mlir", b"x\n// expected-error @unknown {{u}}\n// expected-note {{n}}", 10).unwrap();
        assert_eq!(expectations.iter().map(|e| e.line).collect::<Vec<_>>(), [None, Some(12)]);
    }

    #[test]
    fn matched_unexpected_and_missing() {
        let text = "op // expected-error {{bad thing}}\nop2 // expected-note {{never}}\n";
        let ok = Diag::error(at(1), "a bad thing happened");
        assert_eq!(run("op // expected-error {{bad thing}}\n", std::slice::from_ref(&ok)), "");
        let report = run(text, &[ok, Diag::error(at(2), "surprise")]);
        assert!(
            report.contains("t.mlir:2:3: error: unexpected error: surprise\nop2 // expected-note {{never}}\n  ^\n"),
            "{report}"
        );
        assert!(report.contains("t.mlir:2:8: error: expected note \"never\" was not produced"), "{report}");
    }

    #[test]
    fn severity_and_line_must_match() {
        let report = run("op // expected-warning {{w}}\n", &[Diag::error(at(1), "w")]);
        assert!(report.contains("unexpected error: w") && report.contains("expected warning \"w\" was not produced"));
        let report = run("op // expected-error @+1 {{w}}\n", &[Diag::error(at(1), "w")]);
        assert!(report.contains("unexpected error"));
    }

    #[test]
    fn regex_expectations() {
        let text = "op // expected-error-re {{operand #{{[0-9]+}} must be}}\n";
        assert_eq!(run(text, &[Diag::error(at(1), "'x' op operand #12 must be a memref")]), "");
        let report = run(text, &[Diag::error(at(1), "operand #a must be")]);
        assert!(report.contains("was not produced"));
        assert!(parse("t.mlir", b"// expected-error-re {{{{(}}}}", 1).is_err());
    }

    #[test]
    fn notes_are_expected_separately() {
        let mut diag = Diag::error(at(1), "main");
        diag.notes.push(Diag { severity: Severity::Note, location: at(2), message: "why".into(), notes: vec![] });
        let text = "a // expected-error {{main}}\nb // expected-note {{why}}\n";
        assert_eq!(run(text, std::slice::from_ref(&diag)), "");
        assert!(run("a // expected-error {{main}}\n", std::slice::from_ref(&diag)).contains("unexpected note: why"));
        // MLIR's op-printing note is not part of what tests expect (mlir-opt disables it).
        diag.notes[0].message = "see current operation: \"x\"() : () -> ()".into();
        assert_eq!(run("a // expected-error {{main}}\n", &[diag]), "");
    }
}

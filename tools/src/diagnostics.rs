//! Collecting MLIR diagnostics and printing them the way `mlir-opt` does:
//! `file:line:col: error: message`, the source line, a caret, then the notes.

use melior::Context;
use std::{
    collections::HashMap,
    fmt::Write as _,
    sync::{Arc, Mutex, PoisonError},
};
pub use umac_dialects::{Diag, Severity};
use umac_dialects::{FileLineCol, attach_handler};

/// Diagnostics gathered from a context, in the order MLIR emitted them.
#[derive(Clone, Default)]
pub struct Collector {
    diagnostics: Arc<Mutex<Vec<Diag>>>,
}

impl Collector {
    /// Attaches a handler to `context` that records every diagnostic into this collector.
    pub fn attach(&self, context: &Context) {
        let sink = self.diagnostics.clone();
        attach_handler(context, move |diagnostic| {
            sink.lock().unwrap_or_else(PoisonError::into_inner).push(diagnostic.clone());
            true
        });
    }

    /// Adds a diagnostic of our own.
    pub fn push(&self, diag: Diag) {
        self.diagnostics.lock().unwrap_or_else(PoisonError::into_inner).push(diag);
    }

    /// Takes everything recorded so far.
    pub fn take(&self) -> Vec<Diag> {
        std::mem::take(&mut *self.diagnostics.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// Tells whether an error has been recorded since the last `take`.
    pub fn has_error(&self) -> bool {
        self.diagnostics.lock().unwrap_or_else(PoisonError::into_inner).iter().any(|d| d.severity == Severity::Error)
    }
}

/// The text of the files diagnostics may point into, to show the offending line.
#[derive(Default)]
pub struct Sources {
    files: HashMap<String, Vec<u8>>,
}

impl Sources {
    /// Registers a file's contents under the name its locations carry.
    pub fn add(&mut self, name: &str, bytes: Vec<u8>) {
        self.files.insert(name.to_string(), bytes);
    }

    /// The 1-based `line` of file `name`, if known and the file is text.
    pub fn line(&self, name: &str, line: usize) -> Option<String> {
        let bytes = self.files.get(name)?;
        if umac_dialects::source::is_bytecode(bytes) || line == 0 {
            return None;
        }
        let text = bytes.split(|&b| b == b'\n').nth(line - 1)?;
        let text = String::from_utf8_lossy(text);
        Some(text.trim_end_matches('\r').to_string())
    }

    /// Renders a diagnostic with its source line, caret and notes.
    pub fn render(&self, diag: &Diag) -> String {
        let mut out = String::new();
        self.render_into(&mut out, diag);
        out
    }

    fn render_into(&self, out: &mut String, diag: &Diag) {
        let word = diag.severity.word();
        match &diag.location {
            // A named position in a file without lines (a .tflite operator): `file: error: name: message`.
            Some(FileLineCol { file, line: 0, name: Some(name), .. }) => {
                let _ = writeln!(out, "{file}: {word}: {name}: {}", diag.message);
            }
            Some(loc) => {
                let _ = writeln!(out, "{}:{}:{}: {word}: {}", loc.file, loc.line, loc.column, diag.message);
                if let Some(line) = self.line(&loc.file, loc.line) {
                    let _ = writeln!(out, "{line}");
                    let _ = writeln!(out, "{}^", caret_padding(&line, loc.column));
                }
            }
            None => {
                let _ = writeln!(out, "<unknown>: {word}: {}", diag.message);
            }
        }
        for note in &diag.notes {
            self.render_into(out, note);
        }
    }
}

/// Whitespace that puts a caret under 1-based `column` of `line`, keeping tabs so it lines up.
pub fn caret_padding(line: &str, column: usize) -> String {
    line.chars().take(column.saturating_sub(1)).map(|c| if c == '\t' { '\t' } else { ' ' }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_location_line_and_caret() {
        let mut sources = Sources::default();
        sources.add("f.mlir", b"module {\n\t%0 = foo\n}\n".to_vec());
        let mut diag = Diag::error(Some(FileLineCol::new("f.mlir", 2, 3)), "bad op");
        diag.notes.push(Diag { severity: Severity::Note, location: None, message: "see here".into(), notes: vec![] });
        assert_eq!(sources.render(&diag), "f.mlir:2:3: error: bad op\n\t%0 = foo\n\t ^\n<unknown>: note: see here\n");
    }

    #[test]
    fn no_source_line_for_unknown_files_or_line_zero() {
        let sources = Sources::default();
        let diag = Diag::error(Some(FileLineCol::new("x.mlir", 0, 0)), "m");
        assert_eq!(sources.render(&diag), "x.mlir:0:0: error: m\n");
    }

    #[test]
    fn a_named_position_without_lines_is_its_name() {
        let at = FileLineCol {
            name: Some("operator #3 (CONV_2D, output 'c')".into()),
            ..FileLineCol::new("m.tflite", 0, 3)
        };
        assert_eq!(at.to_string(), "m.tflite: operator #3 (CONV_2D, output 'c')");
        let diag = Diag::error(Some(at), "bad");
        assert_eq!(Sources::default().render(&diag), "m.tflite: error: operator #3 (CONV_2D, output 'c'): bad\n");
    }
}

//! Options of umac passes: `pass{key=value other="quoted value" flag}`.

use crate::pass_manager::PipelineError;
use std::collections::BTreeMap;

/// The type of a pass option.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionKind {
    /// `true`/`false`; a bare `key` means `true`.
    Bool,
    /// A signed integer.
    Int,
    /// Any text; quote it (or brace it) to include spaces.
    String,
}

impl OptionKind {
    /// How `--list-passes` names the type.
    pub fn type_name(self) -> &'static str {
        match self {
            OptionKind::Bool => "bool",
            OptionKind::Int => "int",
            OptionKind::String => "string",
        }
    }
}

/// One option a pass accepts.
#[derive(Clone, Copy, Debug)]
pub struct OptionSpec {
    /// The key in `{key=value}`.
    pub name: &'static str,
    /// Its type.
    pub kind: OptionKind,
    /// The value when not given, in option syntax.
    pub default: &'static str,
    /// One line for `--list-passes`.
    pub help: &'static str,
}

/// A parsed option value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionValue {
    /// A bool option.
    Bool(bool),
    /// An int option.
    Int(i64),
    /// A string option.
    String(String),
}

/// The values of every option of one pass instance (defaults filled in).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OptionValues {
    values: BTreeMap<&'static str, OptionValue>,
}

impl OptionValues {
    /// A bool option's value (`false` if the pass has no such option).
    pub fn bool(&self, name: &str) -> bool {
        matches!(self.values.get(name), Some(OptionValue::Bool(true)))
    }

    /// An int option's value (0 if the pass has no such option).
    pub fn int(&self, name: &str) -> i64 {
        match self.values.get(name) {
            Some(OptionValue::Int(v)) => *v,
            _ => 0,
        }
    }

    /// A string option's value (empty if the pass has no such option).
    pub fn string(&self, name: &str) -> &str {
        match self.values.get(name) {
            Some(OptionValue::String(v)) => v,
            _ => "",
        }
    }
}

impl OptionValues {
    /// The values of `specs` given as one text each, in declaration order (as MLIR hands over a
    /// pass's parsed options).
    pub fn from_texts(specs: &[OptionSpec], texts: &[String]) -> Result<OptionValues, crate::Error> {
        if texts.len() != specs.len() {
            return Err(crate::Error::Internal(format!("{} option values for {} options", texts.len(), specs.len())));
        }
        let mut values = OptionValues::default();
        for (spec, text) in specs.iter().zip(texts) {
            let value =
                parse_value(spec, text).map_err(|e| crate::Error::Invalid(format!("option '{}': {e}", spec.name)))?;
            values.values.insert(spec.name, value);
        }
        Ok(values)
    }
}

/// Parses the text between a pass's braces against its option specs. `offset` is where that text
/// starts in the whole pipeline, so errors point at the right byte.
pub fn parse_options(
    pass: &str,
    specs: &[OptionSpec],
    text: Option<&str>,
    offset: usize,
) -> Result<OptionValues, PipelineError> {
    let mut values = OptionValues::default();
    for spec in specs {
        let value = parse_value(spec, spec.default).map_err(|message| {
            PipelineError::new(format!("bad default of option '{}': {message}", spec.name), offset)
        })?;
        values.values.insert(spec.name, value);
    }
    for (start, token) in tokens(text.unwrap_or_default()) {
        let at = offset + start;
        let (key, raw) = match token.split_once('=') {
            Some((key, raw)) => (key, Some(raw)),
            None => (token, None),
        };
        let Some(spec) = specs.iter().find(|s| s.name == key) else {
            let known: Vec<&str> = specs.iter().map(|s| s.name).collect();
            let known = if known.is_empty() { "none".to_string() } else { known.join(", ") };
            return Err(PipelineError::new(format!("'{pass}' has no option '{key}' (options: {known})"), at));
        };
        let raw = match (raw, spec.kind) {
            (Some(raw), _) => raw,
            (None, OptionKind::Bool) => "true",
            (None, _) => {
                return Err(PipelineError::new(format!("option '{key}' of '{pass}' needs a value: {key}=..."), at));
            }
        };
        let value = parse_value(spec, raw).map_err(|message| {
            PipelineError::new(format!("option '{key}' of '{pass}': {message}"), at + key.len() + 1)
        })?;
        values.values.insert(spec.name, value);
    }
    Ok(values)
}

fn parse_value(spec: &OptionSpec, raw: &str) -> Result<OptionValue, crate::Error> {
    let raw = unquote(raw);
    match spec.kind {
        OptionKind::Bool => match raw {
            "true" | "1" => Ok(OptionValue::Bool(true)),
            "false" | "0" => Ok(OptionValue::Bool(false)),
            _ => Err(crate::Error::Invalid(format!("expected true or false, got '{raw}'"))),
        },
        OptionKind::Int => raw
            .parse()
            .map(OptionValue::Int)
            .map_err(|_| crate::Error::Invalid(format!("expected an integer, got '{raw}'"))),
        OptionKind::String => Ok(OptionValue::String(raw.to_string())),
    }
}

/// `value` as an option value in pipeline text: as it is, or in braces when it holds whitespace,
/// braces or quotes (`pipeline={canonicalize,cse}` stays one value).
pub fn quote(value: &str) -> String {
    if value.is_empty() || value.contains(|c: char| c.is_whitespace() || matches!(c, '{' | '}' | '"' | '\'')) {
        format!("{{{value}}}")
    } else {
        value.to_string()
    }
}

fn unquote(raw: &str) -> &str {
    let b = raw.as_bytes();
    if b.len() >= 2 && ((b[0] == b'"' && b[b.len() - 1] == b'"') || (b[0] == b'{' && b[b.len() - 1] == b'}')) {
        &raw[1..raw.len() - 1]
    } else {
        raw
    }
}

/// Splits option text on whitespace outside quotes and braces, with each token's byte offset.
fn tokens(text: &str) -> Vec<(usize, &str)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && !bytes[i].is_ascii_whitespace() {
            match bytes[i] {
                b'"' => {
                    i += 1;
                    while i < bytes.len() && bytes[i] != b'"' {
                        i += 1;
                    }
                }
                b'{' => i = matching_brace(text, i).unwrap_or(bytes.len() - 1),
                _ => {}
            }
            i += 1;
        }
        let end = i.min(bytes.len());
        out.push((start, &text[start..end]));
    }
    out
}

/// The index of the `}` closing the `{` at `open`, skipping quoted strings and nested braces.
fn matching_brace(text: &str, open: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut i = open;
    while i < bytes.len() {
        match bytes[i] {
            b'"' | b'\'' => {
                let quote = bytes[i];
                i += 1;
                while i < bytes.len() && bytes[i] != quote {
                    i += 1;
                }
            }
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPECS: &[OptionSpec] = &[
        OptionSpec { name: "flag", kind: OptionKind::Bool, default: "false", help: "" },
        OptionSpec { name: "n", kind: OptionKind::Int, default: "3", help: "" },
        OptionSpec { name: "s", kind: OptionKind::String, default: "", help: "" },
    ];

    #[test]
    fn defaults_and_values() {
        let v = parse_options("p", SPECS, None, 0).unwrap();
        assert!(!v.bool("flag"));
        assert_eq!(v.int("n"), 3);
        let v = parse_options("p", SPECS, Some(" flag n=-7 s=\"a b\""), 0).unwrap();
        assert!(v.bool("flag"));
        assert_eq!(v.int("n"), -7);
        assert_eq!(v.string("s"), "a b");
        let v = parse_options("p", SPECS, Some("s={a,b c} flag=false"), 0).unwrap();
        assert_eq!(v.string("s"), "a,b c");
        assert!(!v.bool("flag"));
    }

    #[test]
    fn errors_name_the_option_and_point_at_it() {
        let e = parse_options("p", SPECS, Some("n=1 bogus=2"), 10).unwrap_err();
        assert_eq!(e.offset, 14);
        assert!(e.message.contains("'p' has no option 'bogus' (options: flag, n, s)"), "{}", e.message);
        let e = parse_options("p", SPECS, Some("n=x"), 10).unwrap_err();
        assert_eq!(e.offset, 12);
        assert!(e.message.contains("expected an integer, got 'x'"));
        let e = parse_options("p", SPECS, Some("flag=maybe"), 0).unwrap_err();
        assert!(e.message.contains("expected true or false"));
        assert!(parse_options("p", SPECS, Some("s"), 0).unwrap_err().message.contains("needs a value"));
    }

    #[test]
    fn quoting_round_trips() {
        for value in ["main", "canonicalize,cse", "vanilla -dimension=8", "func.func(cse{x=1})", ""] {
            let v = parse_options("p", SPECS, Some(&format!("s={}", quote(value))), 0).unwrap();
            assert_eq!(v.string("s"), value);
        }
        assert_eq!(quote("main"), "main");
        assert_eq!(quote("vanilla -dimension=8"), "{vanilla -dimension=8}");
    }
}

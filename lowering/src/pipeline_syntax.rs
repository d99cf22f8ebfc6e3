//! The textual pass-pipeline syntax (`builtin.module(p1, p2{opt=1}, func.func(p3))`) as a tree.

use thiserror::Error;

/// A problem in a pipeline string, at a byte offset of it.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
#[error("{message}")]
pub struct PipelineError {
    /// What is wrong.
    pub message: String,
    /// Byte offset into the pipeline string.
    pub offset: usize,
}

impl PipelineError {
    /// Creates an error at `offset`.
    pub fn new(message: impl Into<String>, offset: usize) -> Self {
        Self { message: message.into(), offset }
    }
}

/// One element of a pipeline: a pass (or named pipeline) with options, or a nested pipeline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Element {
    /// `name` or `name{options}`.
    Pass {
        /// The pass argument, e.g. `canonicalize`.
        name: String,
        /// The text between the braces, if any.
        options: Option<String>,
        /// Byte range of the whole element in the pipeline string.
        span: (usize, usize),
        /// Byte offset of the options text (after `{`).
        options_offset: usize,
    },
    /// `op-name(elements)`.
    Nested {
        /// The operation the nested passes run on, e.g. `func.func`.
        anchor: String,
        /// The nested elements.
        elements: Vec<Element>,
        /// Byte range of the whole element in the pipeline string.
        span: (usize, usize),
    },
}

impl Element {
    /// Byte range of the element in the pipeline string.
    pub fn span(&self) -> (usize, usize) {
        match self {
            Element::Pass { span, .. } | Element::Nested { span, .. } => *span,
        }
    }
}

/// Parses an anchored pipeline, `anchor(elements)`, returning the anchor and the elements.
pub fn parse_anchored(text: &str) -> Result<(String, Vec<Element>), PipelineError> {
    let mut parser = Parser { text, pos: 0 };
    parser.skip_ws();
    let start = parser.pos;
    let element = parser.element()?;
    parser.skip_ws();
    if parser.pos != text.len() {
        return Err(PipelineError::new("unexpected text after the pipeline", parser.pos));
    }
    match element {
        Element::Nested { anchor, elements, .. } => Ok((anchor, elements)),
        Element::Pass { .. } => Err(PipelineError::new(
            "the pipeline must be anchored on an operation, e.g. 'builtin.module(canonicalize)'",
            start,
        )),
    }
}

/// Parses a comma-separated list of elements (a named pipeline's expansion).
pub fn parse_list(text: &str) -> Result<Vec<Element>, PipelineError> {
    let mut parser = Parser { text, pos: 0 };
    let elements = parser.list()?;
    parser.skip_ws();
    if parser.pos != text.len() {
        return Err(PipelineError::new("expected ',' between pipeline elements", parser.pos));
    }
    Ok(elements)
}

struct Parser<'a> {
    text: &'a str,
    pos: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while self.peek().is_some_and(|c| c.is_ascii_whitespace()) {
            self.pos += 1;
        }
    }

    /// Elements up to (not including) a `)` or the end.
    fn list(&mut self) -> Result<Vec<Element>, PipelineError> {
        let mut elements = Vec::new();
        self.skip_ws();
        if matches!(self.peek(), None | Some(b')')) {
            return Ok(elements);
        }
        loop {
            elements.push(self.element()?);
            self.skip_ws();
            if self.peek() == Some(b',') {
                self.pos += 1;
                continue;
            }
            return Ok(elements);
        }
    }

    fn element(&mut self) -> Result<Element, PipelineError> {
        self.skip_ws();
        let start = self.pos;
        while self.peek().is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.' | b'$')) {
            self.pos += 1;
        }
        if self.pos == start {
            let found = self.text[start..].chars().next().map_or("end of pipeline".to_string(), |c| format!("'{c}'"));
            return Err(PipelineError::new(format!("expected a pass or operation name, found {found}"), start));
        }
        let name = self.text[start..self.pos].to_string();
        self.skip_ws();
        match self.peek() {
            Some(b'{') => {
                let open = self.pos;
                let close = matching_brace(self.text, open)
                    .ok_or_else(|| PipelineError::new("unbalanced '{' in pass options", open))?;
                self.pos = close + 1;
                Ok(Element::Pass {
                    name,
                    options: Some(self.text[open + 1..close].to_string()),
                    span: (start, self.pos),
                    options_offset: open + 1,
                })
            }
            Some(b'(') => {
                let open = self.pos;
                self.pos += 1;
                let elements = self.list()?;
                self.skip_ws();
                if self.peek() != Some(b')') {
                    return Err(PipelineError::new(
                        format!(
                            "expected ',' or ')' in the pipeline nested under '{name}' (opened here at byte {open})"
                        ),
                        self.pos,
                    ));
                }
                self.pos += 1;
                Ok(Element::Nested { anchor: name, elements, span: (start, self.pos) })
            }
            _ => Ok(Element::Pass { name, options: None, span: (start, self.pos), options_offset: self.pos }),
        }
    }
}

/// The index of the `}` closing the `{` at `open`, skipping quoted strings and nested braces.
pub(crate) fn matching_brace(text: &str, open: usize) -> Option<usize> {
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

    fn names(elements: &[Element]) -> Vec<String> {
        elements
            .iter()
            .map(|e| match e {
                Element::Pass { name, options: Some(o), .. } => format!("{name}{{{o}}}"),
                Element::Pass { name, .. } => name.clone(),
                Element::Nested { anchor, elements, .. } => format!("{anchor}({})", names(elements).join(",")),
            })
            .collect()
    }

    #[test]
    fn nested_pipeline_with_options() {
        let text = "builtin.module( my-pass{opt=1} , func.func(canonicalize{max-iterations=3 x=\"a}b\"},p2),cse )";
        let (anchor, elements) = parse_anchored(text).unwrap();
        assert_eq!(anchor, "builtin.module");
        assert_eq!(
            names(&elements),
            ["my-pass{opt=1}", "func.func(canonicalize{max-iterations=3 x=\"a}b\"},p2)", "cse"]
        );
        // Spans cover exactly the element's text.
        let (s, e) = elements[1].span();
        assert_eq!(&text[s..e], "func.func(canonicalize{max-iterations=3 x=\"a}b\"},p2)");
    }

    #[test]
    fn empty_pipeline() {
        assert_eq!(parse_anchored("builtin.module()").unwrap(), ("builtin.module".to_string(), vec![]));
    }

    #[test]
    fn errors_point_at_the_offending_byte() {
        assert_eq!(parse_anchored("cse").unwrap_err().offset, 0);
        assert_eq!(parse_anchored("builtin.module(cse").unwrap_err().offset, 18);
        assert_eq!(parse_anchored("builtin.module(cse,)").unwrap_err().offset, 19);
        assert_eq!(parse_anchored("builtin.module(a{x=1)").unwrap_err().offset, 16);
        assert_eq!(parse_anchored("builtin.module(cse) x").unwrap_err().offset, 20);
        assert_eq!(parse_anchored("builtin.module(cse cse)").unwrap_err().offset, 19);
        assert_eq!(parse_anchored("").unwrap_err().offset, 0);
    }

    #[test]
    fn lists() {
        assert_eq!(names(&parse_list("a, b{c=d}, func.func(e)").unwrap()), ["a", "b{c=d}", "func.func(e)"]);
        assert!(parse_list("a b").is_err());
    }
}

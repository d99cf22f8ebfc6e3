//! `--split-input-file`: cutting a file into independent chunks at `// -----` lines.

/// The line that separates chunks, and that separates their outputs.
pub const MARKER: &str = "// -----";

/// A chunk of the input and the 1-based line it starts on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chunk<'a> {
    /// The chunk's bytes, without the marker lines.
    pub bytes: &'a [u8],
    /// The line of the whole file where `bytes` start.
    pub first_line: usize,
}

/// Splits `bytes` at every line that holds only the marker (after leading whitespace).
pub fn split(bytes: &[u8]) -> Vec<Chunk<'_>> {
    let mut chunks = Vec::new();
    let (mut start, mut first_line) = (0, 1);
    let (mut pos, mut line) = (0, 1);
    while pos < bytes.len() {
        let end = bytes[pos..].iter().position(|&b| b == b'\n').map_or(bytes.len(), |i| pos + i);
        let text = String::from_utf8_lossy(&bytes[pos..end]);
        let next = (end + 1).min(bytes.len());
        if text.trim_start().starts_with(MARKER)
            && text.trim_start()[MARKER.len()..].trim_start_matches('-').trim().is_empty()
        {
            chunks.push(Chunk { bytes: &bytes[start..pos], first_line });
            start = next;
            first_line = line + 1;
        }
        pos = end + 1;
        line += 1;
    }
    chunks.push(Chunk { bytes: &bytes[start.min(bytes.len())..], first_line });
    chunks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_on_marker_lines_keeping_line_numbers() {
        let text = b"a\nb\n// -----\nc\n  // -----\n\nd";
        let chunks = split(text);
        assert_eq!(
            chunks,
            [
                Chunk { bytes: b"a\nb\n", first_line: 1 },
                Chunk { bytes: b"c\n", first_line: 4 },
                Chunk { bytes: b"\nd", first_line: 6 },
            ]
        );
    }

    #[test]
    fn marker_must_be_alone_on_its_line() {
        assert_eq!(split(b"x // ----- y\n").len(), 1);
        assert_eq!(split(b"// -----").len(), 2);
        assert_eq!(split(b"").len(), 1);
    }
}

//! Source locations: resolving MLIR locations to `file:line:col`, and emitting located errors.

use melior::ir::Location;
use std::ffi::CString;

/// A resolved source position (1-based line and column, as MLIR prints them).
///
/// A file without lines (a `.tflite` model) has positions on line 0, and a name saying what
/// the position is: `loc("operator #3 (CONV_2D, output 'conv1')"("model.tflite":0:3))` is
/// operator 3 of the model's subgraph (the column is the operator's index, so that positions
/// sort in the model's order), printed `model.tflite: operator #3 (CONV_2D, output 'conv1')`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FileLineCol {
    /// The file name the location carries.
    pub file: String,
    /// 1-based line; 0 in a file without lines.
    pub line: usize,
    /// 1-based column (in a file without lines, an index the name explains).
    pub column: usize,
    /// On line 0, the name of the innermost name location around the position, if any.
    pub name: Option<String>,
}

impl FileLineCol {
    /// A position in a text file.
    pub fn new(file: impl Into<String>, line: usize, column: usize) -> Self {
        Self { file: file.into(), line, column, name: None }
    }
}

impl std::fmt::Display for FileLineCol {
    /// `file:line:col`, or `file: name` for a named position of a file without lines.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.name {
            Some(name) if self.line == 0 => write!(f, "{}: {name}", self.file),
            _ => write!(f, "{}:{}:{}", self.file, self.line, self.column),
        }
    }
}

/// Finds the position a diagnostic should point at, the way MLIR's source manager handler does:
/// a call site shows its callee, a fused location its first resolvable part, a name its child.
pub fn file_line_col(location: Location) -> Option<FileLineCol> {
    if location.is_file_line_col_range() {
        let file = location.file_line_col_range_filename();
        let file = file.as_string_ref().as_str().ok()?.to_string();
        return Some(FileLineCol::new(
            file,
            location.file_line_col_range_start_line(),
            location.file_line_col_range_start_column(),
        ));
    }
    if location.is_name() {
        let mut at = file_line_col(location.name_child_location())?;
        if at.line == 0 && at.name.is_none() {
            at.name = location.name_value().as_string_ref().as_str().ok().map(str::to_string);
        }
        return Some(at);
    }
    if location.is_call_site() {
        return file_line_col(location.call_site_callee()).or_else(|| file_line_col(location.call_site_caller()));
    }
    if location.is_fused() {
        return (0..location.fused_num_locations()).find_map(|index| file_line_col(location.fused_location(index)));
    }
    None
}

/// Every `file:line:col` a location names: itself, or each part of a fused location (an op that
/// stands for several source ops, e.g. an accelerator call).
pub fn file_line_cols(location: Location) -> Vec<FileLineCol> {
    // SAFETY: the location is alive; fused parts are read into a buffer of their count.
    unsafe {
        let raw = location.to_raw();
        if mlir_sys::mlirLocationIsAFused(raw) {
            let n = mlir_sys::mlirLocationFusedGetNumLocations(raw) as usize;
            let mut parts = vec![raw; n];
            mlir_sys::mlirLocationFusedGetLocations(raw, parts.as_mut_ptr());
            return parts.into_iter().flat_map(|p| file_line_cols(Location::from_raw(p))).collect();
        }
    }
    file_line_col(location).into_iter().collect()
}

/// Gives `op` the location `location`.
pub fn set_location<'c: 'a, 'a>(op: &impl melior::ir::operation::OperationLike<'c, 'a>, location: Location<'c>) {
    // SAFETY: both are alive and of one context (the location is borrowed from it).
    unsafe { mlir_sys::mlirOperationSetLocation(op.to_raw(), location.to_raw()) }
}

/// Emits an error at `location` through the context's diagnostic handlers, as MLIR's own
/// verifiers do, so tools print it and `--verify-diagnostics` can match it.
pub fn emit_error(location: Location, message: &str) {
    // Interior NULs cannot cross the C API; they never occur in our messages, but user text
    // quoted in a message might carry one.
    let message = CString::new(message.replace('\0', "\\0")).unwrap_or_default();
    // SAFETY: the location is alive (borrowed for this call) and the message is NUL-terminated;
    // mlirEmitError copies it.
    unsafe { mlir_sys::mlirEmitError(location.to_raw(), message.as_ptr()) }
}

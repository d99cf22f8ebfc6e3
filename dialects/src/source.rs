//! Reading and writing MLIR: text or bytecode in, a `builtin.module` out, with the locations a
//! user expects (`file:line:col` of the real file, also for `--split-input-file` chunks).

use crate::diagnostics::{attach_handler, detach_handler};
use crate::text::str_ref;
use melior::{
    Context,
    ir::{Location, Module, Operation, block::BlockLike, operation::OperationLike, operation::OperationPrintingFlags},
};
use mlir_sys::mlirOperationCreateParse;
use std::{cell::Cell, rc::Rc};

/// The magic number every MLIR bytecode file starts with.
const BYTECODE_MAGIC: &[u8] = b"ML\xefR";

/// What MLIR says when a buffer holds several top-level operations and no container was asked for.
const MULTIPLE_TOP_LEVEL_OPS: &str = "source must contain a single top-level operation";

/// A piece of an input file to parse.
#[derive(Clone, Copy, Debug)]
pub struct SourceChunk<'a> {
    /// The name locations carry: the file as the user named it, or `<stdin>`.
    pub name: &'a str,
    /// The bytes: MLIR text or bytecode.
    pub bytes: &'a [u8],
    /// The 1-based line of the file where these bytes start (not 1 for split chunks).
    pub first_line: usize,
}

/// Tells whether `bytes` are MLIR bytecode rather than text.
pub fn is_bytecode(bytes: &[u8]) -> bool {
    bytes.starts_with(BYTECODE_MAGIC)
}

/// Parses a chunk into a module, as `mlir-opt` does: a single top-level `builtin.module` is the
/// module; anything else is wrapped in a new one. Errors go to the context's diagnostic handlers
/// (with the chunk's real file name and line numbers); `None` means at least one was reported.
pub fn parse_module<'c>(context: &'c Context, chunk: &SourceChunk) -> Option<Module<'c>> {
    if is_bytecode(chunk.bytes) {
        return parse_single(context, chunk.bytes, chunk.name).map(|op| into_module(context, op, chunk.name));
    }
    // Blank lines in front keep every location on the line it has in the real file.
    let padding = chunk.first_line.saturating_sub(1);
    let mut text = Vec::with_capacity(chunk.bytes.len() + padding + 16);
    text.resize(padding, b'\n');
    text.extend_from_slice(chunk.bytes);

    let several = Rc::new(Cell::new(false));
    let flag = several.clone();
    // Intercept only MLIR's "single top-level operation" complaint: it means the text parsed and
    // verified but holds several ops, which mlir-opt accepts by wrapping them in a module.
    let handler = attach_handler(context, move |diagnostic| {
        let intercepted = diagnostic.message.starts_with(MULTIPLE_TOP_LEVEL_OPS);
        if intercepted {
            flag.set(true);
        }
        intercepted
    });
    let parsed = parse_single(context, &text, chunk.name);
    detach_handler(context, handler);
    if let Some(op) = parsed {
        return Some(into_module(context, op, chunk.name));
    }
    if !several.get() {
        return None;
    }
    let wrapped = wrap_in_module_text(chunk.bytes, padding);
    let op = parse_single(context, &wrapped, chunk.name)?;
    Module::from_operation(op)
}

/// Wraps source text in `module { ... }` without moving any line: the opening goes on the last
/// padding line, or replaces a first line that holds only a comment. Only when the first line of
/// the file holds code does it go in front of that line, shifting that one line's columns.
/// Attribute and type alias definitions (`#map = ...`, `!t = ...`) must stay outside the module:
/// they move in front of the opening, and their lines stay as blank lines.
fn wrap_in_module_text(bytes: &[u8], padding: usize) -> Vec<u8> {
    let (aliases, body) = hoist_aliases(bytes);
    let mut open = aliases;
    open.extend_from_slice(b"module {");
    let mut text = Vec::with_capacity(body.len() + padding + open.len() + 8);
    if padding > 0 {
        text.resize(padding - 1, b'\n');
        text.extend_from_slice(&open);
        text.push(b'\n');
        text.extend_from_slice(&body);
    } else {
        let first_end = body.iter().position(|&b| b == b'\n').unwrap_or(body.len());
        let first = String::from_utf8_lossy(&body[..first_end]);
        let first = first.trim();
        text.extend_from_slice(&open);
        if first.is_empty() || first.starts_with("//") {
            text.extend_from_slice(&body[first_end..]);
        } else {
            text.push(b' ');
            text.extend_from_slice(&body);
        }
    }
    text.extend_from_slice(b"\n}\n");
    text
}

/// Splits one-line top-level alias definitions out of `bytes`: returns them (space-separated)
/// and the text with each such line emptied.
fn hoist_aliases(bytes: &[u8]) -> (Vec<u8>, Vec<u8>) {
    let mut aliases = Vec::new();
    let mut body = Vec::with_capacity(bytes.len());
    for line in bytes.split_inclusive(|&b| b == b'\n') {
        if is_alias_definition(line) {
            aliases.extend_from_slice(line.strip_suffix(b"\n").unwrap_or(line));
            aliases.push(b' ');
            if line.ends_with(b"\n") {
                body.push(b'\n');
            }
        } else {
            body.extend_from_slice(line);
        }
    }
    (aliases, body)
}

/// `#name = ...` or `!name = ...` at the start of a line, with its brackets closed on the line.
fn is_alias_definition(line: &[u8]) -> bool {
    let text = String::from_utf8_lossy(line);
    let Some(rest) = text.strip_prefix('#').or_else(|| text.strip_prefix('!')) else {
        return false;
    };
    let name_end = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '$')).unwrap_or(0);
    if name_end == 0 || !rest[name_end..].trim_start().starts_with('=') {
        return false;
    }
    // Brackets balance; the `>` of an arrow (`->`) closes nothing.
    let mut depth = 0i32;
    let mut previous = ' ';
    for c in rest.chars() {
        match c {
            '<' | '(' | '[' | '{' => depth += 1,
            '>' if previous == '-' => {}
            '>' | ')' | ']' | '}' => depth -= 1,
            _ => {}
        }
        previous = c;
    }
    depth == 0
}

fn parse_single<'c>(context: &'c Context, bytes: &[u8], name: &str) -> Option<Operation<'c>> {
    let (source, name) = (str_ref(bytes), str_ref(name));
    // SAFETY: both string refs point into buffers alive for the call (MLIR copies the source into
    // its own memory buffer); the result is null or an operation the caller now owns.
    let raw = unsafe { mlirOperationCreateParse(context.to_raw(), source, name) };
    if raw.ptr.is_null() {
        None
    } else {
        // SAFETY: non-null and owned, as above.
        Some(unsafe { Operation::from_raw(raw) })
    }
}

/// Uses a parsed top-level op as the module, or wraps it in one located at `name:0:0` as MLIR does.
fn into_module<'c>(context: &'c Context, op: Operation<'c>, name: &str) -> Module<'c> {
    if op.name().as_string_ref().as_str() == Ok("builtin.module") {
        // Cannot fail for a builtin.module; the fallback only keeps this path panic-free.
        return Module::from_operation(op).unwrap_or_else(|| Module::new(Location::new(context, name, 0, 0)));
    }
    let module = Module::new(Location::new(context, name, 0, 0));
    module.body().append_operation(op);
    module
}

/// How to print IR.
#[derive(Clone, Copy, Debug, Default)]
pub struct PrintOptions {
    /// Generic form for every op (`--mlir-print-op-generic`).
    pub generic: bool,
    /// Print locations (`--mlir-print-debuginfo`).
    pub debug_info: bool,
}

impl PrintOptions {
    /// The printing flags these options stand for.
    pub fn flags(&self) -> OperationPrintingFlags {
        let mut flags = OperationPrintingFlags::new();
        if self.generic {
            flags = flags.print_generic_operation_form();
        }
        if self.debug_info {
            flags = flags.enable_debug_info(true, false);
        }
        flags
    }
}

/// Prints a module as MLIR text.
pub fn print_module(module: &Module, options: PrintOptions) -> String {
    module.as_operation().to_string_with_flags(options.flags()).unwrap_or_default()
}

/// Writes a module as MLIR bytecode.
pub fn write_bytecode(module: &Module) -> Vec<u8> {
    module.as_operation().write_bytecode()
}

//! Reading and printing MLIR: text or bytecode in, a `builtin.module` out, parsed exactly as
//! `mlir-opt` parses its input (MLIR's own tool parser, through `cxx/opt_main.cpp`), with the
//! locations a user expects (`file:line:col` of the real file).

use melior::{
    Context,
    ir::{Module, operation::OperationLike, operation::OperationPrintingFlags},
};

/// The magic number every MLIR bytecode file starts with.
const BYTECODE_MAGIC: &[u8] = b"ML\xefR";

/// Tells whether `bytes` are MLIR bytecode rather than text.
pub fn is_bytecode(bytes: &[u8]) -> bool {
    bytes.starts_with(BYTECODE_MAGIC)
}

/// Parses `bytes` (MLIR text or bytecode) named `name` into a module, as `mlir-opt` does: a single
/// top-level `builtin.module` is the module; anything else is wrapped in a new one. Errors go to
/// the context's diagnostic handlers; `None` means at least one was reported (a parser that fails
/// silently gets a located one).
pub fn parse_module<'c>(context: &'c Context, name: &str, bytes: &[u8]) -> Option<Module<'c>> {
    let raw = crate::native::parse_module(context, bytes, name);
    if raw.ptr.is_null() {
        return None;
    }
    // SAFETY: a non-null result is a `builtin.module` (the parser inserts one) the caller owns.
    Module::from_operation(unsafe { melior::ir::Operation::from_raw(raw) })
}

/// Writes a module as MLIR bytecode, locations included.
pub fn write_bytecode(module: &Module) -> Vec<u8> {
    crate::native::write_bytecode(module.as_operation().to_raw())
}

/// Prints a module as MLIR text, byte for byte as `mlir-opt` writes it by default: the module, a
/// newline and a blank line.
pub fn print_module(module: &Module) -> String {
    let mut text = module.as_operation().to_string_with_flags(OperationPrintingFlags::new()).unwrap_or_default();
    while text.ends_with('\n') {
        text.pop();
    }
    text.push_str("\n\n");
    text
}

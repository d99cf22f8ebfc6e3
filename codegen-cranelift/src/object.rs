//! Writing a translated module as a host object file (`cranelift-object`), for linking into a
//! program or shared library.

use crate::{
    Error, Result,
    translate::{EntryPoint, translate_module},
};
use cranelift_object::{ObjectBuilder, ObjectModule};

/// Translates `mlir` and writes a position-independent object for the host; the entry wrapper
/// is the only exported symbol.
pub fn compile_object(mlir: &melior::ir::Module, entry: &EntryPoint) -> Result<Vec<u8>> {
    let isa = crate::jit::host_isa(true)?;
    let builder = ObjectBuilder::new(isa, "umac", cranelift_module::default_libcall_names())
        .map_err(|e| Error::Cranelift(e.to_string()))?;
    let mut module = ObjectModule::new(builder);
    translate_module(&mut module, mlir, entry)?;
    module.finish().emit().map_err(|e| Error::Cranelift(e.to_string()))
}

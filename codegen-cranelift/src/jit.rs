//! Compiling a translated module in memory and handing out its entry point.

use crate::{
    Error, Result,
    translate::{EntryPoint, translate_module},
};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_jit::{JITBuilder, JITModule};

/// A compiled model in executable memory.
pub struct JitProgram {
    module: Option<JITModule>,
    entry: *const u8,
}

impl JitProgram {
    /// The entry wrapper: `int32_t entry(const void *const inputs[], void *const outputs[],
    /// void *workspace)`.
    ///
    /// # Safety
    /// The pointers handed to the function must point at buffers of the sizes and element types
    /// of the model's arguments (and a workspace of the planned size, if any); the function
    /// pointer is valid while `self` lives.
    pub unsafe fn entry(&self) -> crate::EntryFn {
        // SAFETY: `entry` was produced by finalize_definitions for a function of this signature.
        unsafe { std::mem::transmute::<*const u8, crate::EntryFn>(self.entry) }
    }
}

impl Drop for JitProgram {
    fn drop(&mut self) {
        if let Some(module) = self.module.take() {
            // SAFETY: nothing can call into the module after its program is dropped.
            unsafe { module.free_memory() };
        }
    }
}

/// Cranelift's ISA for the host CPU, optimizing for speed; `pic` for objects that go into a
/// shared library.
pub(crate) fn host_isa(pic: bool) -> Result<std::sync::Arc<dyn cranelift_codegen::isa::TargetIsa>> {
    let mut flags = settings::builder();
    let set =
        |flags: &mut settings::Builder, k: &str, v: &str| flags.set(k, v).map_err(|e| Error::Cranelift(e.to_string()));
    set(&mut flags, "opt_level", "speed")?;
    set(&mut flags, "use_colocated_libcalls", "false")?;
    set(&mut flags, "is_pic", if pic { "true" } else { "false" })?;
    cranelift_native::builder()
        .map_err(|e| Error::Cranelift(e.to_string()))?
        .finish(settings::Flags::new(flags))
        .map_err(|e| Error::Cranelift(e.to_string()))
}

/// Translates `mlir` (loop level, see the crate doc) and compiles it for the host CPU; calls of
/// `externs` (C symbols and their addresses in this process, e.g. accelerator kernels) go there,
/// other external functions are looked up in the process (libc, libm).
pub fn compile_jit(mlir: &melior::ir::Module, entry: &EntryPoint, externs: &[(&str, usize)]) -> Result<JitProgram> {
    let isa = host_isa(false)?;
    let mut builder = JITBuilder::with_isa(isa, cranelift_module::default_libcall_names());
    for (name, address) in externs {
        builder.symbol(*name, *address as *const u8);
    }
    let mut module = JITModule::new(builder);
    let id = translate_module(&mut module, mlir, entry)?;
    module.finalize_definitions().map_err(|e| Error::Cranelift(e.to_string()))?;
    let entry = module.get_finalized_function(id);
    Ok(JitProgram { module: Some(module), entry })
}

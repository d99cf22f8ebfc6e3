//! Loading a host object into the process with ORC's LLJIT.

use crate::{Error, Result};
use inkwell::llvm_sys::{
    core::LLVMCreateMemoryBufferWithMemoryRangeCopy,
    error::{LLVMDisposeErrorMessage, LLVMErrorRef, LLVMGetErrorMessage},
    orc2::{
        LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess, LLVMOrcJITDylibAddGenerator,
        lljit::{
            LLVMOrcCreateLLJIT, LLVMOrcDisposeLLJIT, LLVMOrcLLJITAddObjectFile, LLVMOrcLLJITGetGlobalPrefix,
            LLVMOrcLLJITGetMainJITDylib, LLVMOrcLLJITLookup, LLVMOrcLLJITRef,
        },
    },
};
use std::ffi::{CStr, CString};

/// A host object linked into this process.
pub struct JitProgram {
    jit: LLVMOrcLLJITRef,
    entry: u64,
}

// SAFETY: the LLJIT instance is only used through &self for reading the entry address; ORC's
// session is thread-safe.
unsafe impl Send for JitProgram {}

fn check(error: LLVMErrorRef) -> Result<()> {
    if error.is_null() {
        return Ok(());
    }
    // SAFETY: a non-null error is consumed by LLVMGetErrorMessage; the message is disposed here.
    unsafe {
        let message = LLVMGetErrorMessage(error);
        let text = CStr::from_ptr(message).to_string_lossy().into_owned();
        LLVMDisposeErrorMessage(message);
        Err(Error::Llvm(text))
    }
}

impl JitProgram {
    /// Links `object` (for the host) into the process, resolving libc/libm from the process,
    /// and finds `symbol`.
    pub fn load(object: &[u8], symbol: &str) -> Result<Self> {
        crate::initialize_targets();
        let name = CString::new(symbol).map_err(|_| Error::Llvm("symbol with a NUL".into()))?;
        let buffer_name = c"umac-object";
        // SAFETY: ORC C API calls in their documented order; the object buffer is copied and its
        // ownership passes to LLJIT; the instance is disposed on drop (or on failure here).
        unsafe {
            let mut jit = std::ptr::null_mut();
            check(LLVMOrcCreateLLJIT(&mut jit, std::ptr::null_mut()))?;
            // Owned from here: dropped (and the JIT disposed) on any early return below.
            let mut program = JitProgram { jit, entry: 0 };
            let dylib = LLVMOrcLLJITGetMainJITDylib(jit);
            let mut generator = std::ptr::null_mut();
            check(LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(
                &mut generator,
                LLVMOrcLLJITGetGlobalPrefix(jit),
                None,
                std::ptr::null_mut(),
            ))?;
            LLVMOrcJITDylibAddGenerator(dylib, generator);
            let buffer =
                LLVMCreateMemoryBufferWithMemoryRangeCopy(object.as_ptr().cast(), object.len(), buffer_name.as_ptr());
            check(LLVMOrcLLJITAddObjectFile(jit, dylib, buffer))?;
            let mut address = 0u64;
            check(LLVMOrcLLJITLookup(jit, &mut address, name.as_ptr()))?;
            program.entry = address;
            Ok(program)
        }
    }

    /// The entry wrapper: `int32_t entry(const void *const inputs[], void *const outputs[],
    /// void *workspace)` (see [`crate::add_executor_wrapper`]).
    ///
    /// # Safety
    /// The pointers handed to the function must point at buffers of the sizes and element types
    /// of the model's arguments and a workspace of the planned size; the function pointer is
    /// valid while `self` lives.
    pub unsafe fn entry(&self) -> unsafe extern "C" fn(*const *const u8, *const *mut u8, *mut u8) -> i32 {
        // SAFETY: the address was looked up for a function of this signature.
        unsafe {
            std::mem::transmute::<u64, unsafe extern "C" fn(*const *const u8, *const *mut u8, *mut u8) -> i32>(
                self.entry,
            )
        }
    }
}

impl Drop for JitProgram {
    fn drop(&mut self) {
        // SAFETY: the instance was created by LLVMOrcCreateLLJIT and is disposed once.
        let _ = check(unsafe { LLVMOrcDisposeLLJIT(self.jit) });
    }
}

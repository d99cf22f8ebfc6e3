//! Loading a host object into the process with ORC's LLJIT.

use crate::{Error, Result};
use inkwell::llvm_sys::{
    core::LLVMCreateMemoryBufferWithMemoryRangeCopy,
    error::{LLVMDisposeErrorMessage, LLVMErrorRef, LLVMGetErrorMessage},
    orc2::{
        LLVMJITEvaluatedSymbol, LLVMJITSymbolFlags, LLVMJITSymbolGenericFlags, LLVMOrcAbsoluteSymbols,
        LLVMOrcCSymbolMapPair, LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess, LLVMOrcJITDylibAddGenerator,
        LLVMOrcJITDylibDefine,
        lljit::{
            LLVMOrcCreateLLJIT, LLVMOrcDisposeLLJIT, LLVMOrcLLJITAddObjectFile, LLVMOrcLLJITGetGlobalPrefix,
            LLVMOrcLLJITGetMainJITDylib, LLVMOrcLLJITLookup, LLVMOrcLLJITMangleAndIntern, LLVMOrcLLJITRef,
        },
    },
};
use std::ffi::{CStr, CString};

/// Host objects linked into this process.
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
    /// Links `objects` (for the host; the parts of one program, which refer to each other's
    /// symbols) into the process, resolving `externs` (C symbols and their addresses in this
    /// process, e.g. accelerator kernels) and then libc/libm from the process, and finds `symbol`.
    pub fn load(objects: &[Vec<u8>], symbol: &str, externs: &[(&str, usize)]) -> Result<Self> {
        let extern_names = externs
            .iter()
            .map(|(name, _)| CString::new(*name).map_err(|_| Error::Llvm("symbol with a NUL".into())))
            .collect::<Result<Vec<_>>>()?;
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
            if !externs.is_empty() {
                let mut pairs: Vec<LLVMOrcCSymbolMapPair> = extern_names
                    .iter()
                    .zip(externs)
                    .map(|(name, (_, address))| LLVMOrcCSymbolMapPair {
                        Name: LLVMOrcLLJITMangleAndIntern(jit, name.as_ptr()),
                        Sym: LLVMJITEvaluatedSymbol {
                            Address: *address as u64,
                            Flags: LLVMJITSymbolFlags {
                                GenericFlags: LLVMJITSymbolGenericFlags::LLVMJITSymbolGenericFlagsExported as u8
                                    | LLVMJITSymbolGenericFlags::LLVMJITSymbolGenericFlagsCallable as u8,
                                TargetFlags: 0,
                            },
                        },
                    })
                    .collect();
                // The materialization unit takes over the interned names.
                let unit = LLVMOrcAbsoluteSymbols(pairs.as_mut_ptr(), pairs.len());
                check(LLVMOrcJITDylibDefine(dylib, unit))?;
            }
            for object in objects {
                let buffer = LLVMCreateMemoryBufferWithMemoryRangeCopy(
                    object.as_ptr().cast(),
                    object.len(),
                    buffer_name.as_ptr(),
                );
                check(LLVMOrcLLJITAddObjectFile(jit, dylib, buffer))?;
            }
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

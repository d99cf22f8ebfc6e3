//! The C++ glue of `cxx/` (see `cxx/umac_mlir.h`): what MLIR's C API does not offer — the umac
//! dialect as a registered dialect, umac passes in MLIR's own pass registry, MLIR's mlir-opt
//! driver, and parsing as mlir-opt parses. The unsafe calls live here, each with its contract.

use crate::text::str_ref;
use mlir_sys::{MlirAttribute, MlirContext, MlirDialectRegistry, MlirOperation, MlirStringRef};
use std::ffi::{CString, c_char, c_int, c_void};

/// Checks a `umac.*` op; emits located errors itself.
pub type VerifyOpFn = unsafe extern "C" fn(MlirOperation) -> bool;
/// Checks a `umac.*` attribute of an op; emits located errors itself.
pub type VerifyAttributeFn = unsafe extern "C" fn(MlirOperation, MlirStringRef, MlirAttribute) -> bool;
/// Receives a string (C side: `UmacStringFn`).
pub type StringFn = unsafe extern "C" fn(MlirStringRef, *mut c_void);
/// Validates a pass's option values.
pub type CheckOptionsFn =
    unsafe extern "C" fn(MlirStringRef, *const MlirStringRef, usize, StringFn, *mut c_void) -> bool;
/// Runs a pass on an op.
pub type RunPassFn = unsafe extern "C" fn(MlirStringRef, *const MlirStringRef, usize, MlirOperation) -> bool;
/// Expands a named pipeline.
pub type ExpandPipelineFn = unsafe extern "C" fn(MlirStringRef, MlirStringRef, StringFn, *mut c_void) -> bool;

/// An option as the C side takes it (`UmacOptionSpec`).
#[repr(C)]
pub struct OptionSpec {
    /// Its key.
    pub name: MlirStringRef,
    /// One line of help.
    pub help: MlirStringRef,
    /// 0 bool, 1 int, 2 string.
    pub kind: c_int,
    /// Its default, as text.
    pub default_value: MlirStringRef,
}

/// A pass or pipeline as the C side takes it (`UmacPassSpec`).
#[repr(C)]
pub struct PassSpec {
    /// Its name in pipelines.
    pub argument: MlirStringRef,
    /// One line for `--help`.
    pub description: MlirStringRef,
    /// The class name MLIR prints in IR dumps and timings.
    pub class_name: MlirStringRef,
    /// The op it runs on; empty: any.
    pub anchor: MlirStringRef,
    /// Its options.
    pub options: *const OptionSpec,
    /// How many.
    pub num_options: usize,
    /// Its MLIR TypeID: an 8-byte aligned address unique to the pass.
    pub type_id: *const c_void,
}

unsafe extern "C" {
    fn umacAddDynamicDialect(name: MlirStringRef, ops: *const MlirStringRef, num_ops: usize, verify: VerifyOpFn);
    fn umacRegisterDialect(registry: MlirDialectRegistry, verify_op: VerifyOpFn, verify_attribute: VerifyAttributeFn);
    fn umacRegisterPass(spec: *const PassSpec, check: CheckOptionsFn, run: RunPassFn);
    fn umacRegisterPipeline(spec: *const PassSpec, expand: ExpandPipelineFn);
    fn umacParseModule(context: MlirContext, source: MlirStringRef, name: MlirStringRef) -> MlirOperation;
    fn umacMlirOptMain(
        argc: c_int,
        argv: *mut *mut c_char,
        verify_op: VerifyOpFn,
        verify_attribute: VerifyAttributeFn,
    ) -> c_int;
}

/// Adds the dialect `name` with `ops` (names without the namespace), each op checked by `verify`:
/// every registry filled by [`register_dialect`] from then on registers it (a second dialect of
/// the same name is ignored). Call it before creating contexts.
pub fn add_dynamic_dialect(name: &str, ops: &[&str], verify: VerifyOpFn) {
    let refs: Vec<MlirStringRef> = ops.iter().map(|op| str_ref(op.as_bytes())).collect();
    // SAFETY: the strings are alive for the call (the C side copies them); `verify` is a plain
    // function.
    unsafe { umacAddDynamicDialect(str_ref(name.as_bytes()), refs.as_ptr(), refs.len(), verify) }
}

/// Registers the umac dialect (and those of [`add_dynamic_dialect`]), checked by `verify_op` and `verify_attribute`, in `registry`.
pub fn register_dialect(
    registry: &melior::dialect::DialectRegistry,
    verify_op: VerifyOpFn,
    verify_attribute: VerifyAttributeFn,
) {
    // SAFETY: the registry is alive for the call; the callbacks are plain functions.
    unsafe { umacRegisterDialect(registry.to_raw(), verify_op, verify_attribute) }
}

/// Adds a pass to MLIR's pass registry (each argument once per process: MLIR aborts on a second
/// registration, so callers keep track).
///
/// # Safety
/// `spec`'s strings and options must be valid for the call (they are copied); `type_id` must be
/// 8-byte aligned and unique to the pass for the life of the process.
pub unsafe fn register_pass(spec: &PassSpec, check: CheckOptionsFn, run: RunPassFn) {
    // SAFETY: the caller's contract; the C side copies everything it keeps.
    unsafe { umacRegisterPass(spec, check, run) }
}

/// Adds a named pipeline to MLIR's pass registry (each argument once per process).
///
/// # Safety
/// As for [`register_pass`].
pub unsafe fn register_pipeline(spec: &PassSpec, expand: ExpandPipelineFn) {
    // SAFETY: the caller's contract; the C side copies everything it keeps.
    unsafe { umacRegisterPipeline(spec, expand) }
}

/// Parses `bytes` (text or bytecode) named `name` as mlir-opt parses its input; errors go to the
/// context's diagnostic handlers. The caller owns the returned operation (null after errors).
pub fn parse_module(context: &melior::Context, bytes: &[u8], name: &str) -> MlirOperation {
    // SAFETY: the context is alive and the strings are valid for the call (MLIR copies the
    // source into a buffer of its own).
    unsafe { umacParseModule(context.to_raw(), str_ref(bytes), str_ref(name)) }
}

/// Writes `op` as MLIR bytecode (with its locations), as `mlir-opt --emit-bytecode` does.
pub fn write_bytecode(op: MlirOperation) -> Vec<u8> {
    unsafe extern "C" fn append(piece: MlirStringRef, data: *mut c_void) {
        // SAFETY: `data` is the vector below, alive and not otherwise borrowed during the call;
        // MLIR passes a valid (pointer, length) piece.
        unsafe {
            let out = &mut *data.cast::<Vec<u8>>();
            if piece.length > 0 {
                out.extend_from_slice(std::slice::from_raw_parts(piece.data.cast::<u8>(), piece.length));
            }
        }
    }
    let mut out: Vec<u8> = Vec::new();
    // SAFETY: `op` is alive; the callback only appends to `out`, which outlives the call.
    unsafe { mlir_sys::mlirOperationWriteBytecode(op, Some(append), (&raw mut out).cast()) };
    out
}

/// Runs MLIR's mlir-opt driver with `args` (program name first); returns the exit code.
pub fn mlir_opt_main(args: &[String], verify_op: VerifyOpFn, verify_attribute: VerifyAttributeFn) -> i32 {
    // Interior NULs cannot come from a command line; an argument holding one is cut there.
    let owned: Vec<CString> =
        args.iter().map(|a| CString::new(a.split('\0').next().unwrap_or_default()).unwrap_or_default()).collect();
    let mut argv: Vec<*mut c_char> = owned.iter().map(|a| a.as_ptr().cast_mut()).collect();
    argv.push(std::ptr::null_mut());
    // SAFETY: argv holds NUL-terminated strings alive for the call, followed by a null pointer,
    // as `main` receives them; LLVM's command line parser only reads them.
    unsafe { umacMlirOptMain(owned.len() as c_int, argv.as_mut_ptr(), verify_op, verify_attribute) }
}

/// Builds a string reference to `text` (for the C side).
pub fn string_ref(text: &str) -> MlirStringRef {
    str_ref(text)
}

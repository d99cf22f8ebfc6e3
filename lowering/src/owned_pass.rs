//! External passes that own state (an option string, a list of backends) and free it.
//!
//! melior 0.27's `create_external` drops a pass's state in place but never frees the box holding
//! it, so umac's own passes are zero-sized. Passes whose state is only known at run time (the
//! partitioner's target list) are built here instead, with callbacks that free what they own.

use melior::{
    ir::{OperationRef, r#type::TypeId},
    pass::{ExternalPass, Pass},
};
use mlir_sys::{
    MlirContext, MlirExternalPass, MlirExternalPassCallbacks, MlirLogicalResult, MlirOperation, mlirCreateExternalPass,
};
use std::ffi::c_void;
use umac_dialects::text::str_ref;

/// The work of a pass with state.
pub trait OwnedPass: Clone + 'static {
    /// Runs the pass on `operation`; call `pass.signal_failure()` on failure.
    fn run(&mut self, operation: OperationRef, pass: ExternalPass);
}

unsafe extern "C" fn construct(_: *mut c_void) {}

unsafe extern "C" fn destruct<T: OwnedPass>(state: *mut c_void) {
    // SAFETY: `state` came from Box::into_raw in `create_owned` or `clone`; MLIR destroys each
    // pass once.
    drop(unsafe { Box::from_raw(state.cast::<T>()) });
}

unsafe extern "C" fn initialize(_: MlirContext, _: *mut c_void) -> MlirLogicalResult {
    MlirLogicalResult { value: 1 }
}

unsafe extern "C" fn clone<T: OwnedPass>(state: *mut c_void) -> *mut c_void {
    // SAFETY: `state` is a live `T` owned by the pass being cloned.
    let copy = unsafe { (*state.cast::<T>()).clone() };
    Box::into_raw(Box::new(copy)).cast()
}

unsafe extern "C" fn run<T: OwnedPass>(operation: MlirOperation, pass: MlirExternalPass, state: *mut c_void) {
    // SAFETY: `state` is this pass's live `T`; MLIR hands a live operation and pass handle for the
    // duration of the call.
    unsafe { (*state.cast::<T>()).run(OperationRef::from_raw(operation), ExternalPass::from_raw(pass)) }
}

/// Builds an external pass owning `state`, identified by `id` (one static per pass type), named
/// `argument` in pipelines, running on ops named `anchor` (empty: any).
pub fn create_owned<T: OwnedPass>(
    state: T,
    id: TypeId,
    class: &str,
    argument: &str,
    description: &str,
    anchor: &str,
) -> Pass {
    let callbacks = MlirExternalPassCallbacks {
        construct: Some(construct),
        destruct: Some(destruct::<T>),
        initialize: Some(initialize),
        clone: Some(clone::<T>),
        run: Some(run::<T>),
    };
    // SAFETY: the strings are copied by MLIR; the state box is owned by the pass from here and
    // freed by `destruct`.
    unsafe {
        Pass::from_raw(mlirCreateExternalPass(
            id.to_raw(),
            str_ref(class),
            str_ref(argument),
            str_ref(description),
            str_ref(anchor),
            0,
            std::ptr::null_mut(),
            callbacks,
            Box::into_raw(Box::new(state)).cast(),
        ))
    }
}

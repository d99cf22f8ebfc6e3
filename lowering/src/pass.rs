//! How a umac pass is defined. A pass is a value implementing [`UmacPass`] — its options, parsed
//! — which MLIR owns as an external pass: it clones it for each thread that runs the pass and
//! frees every copy (melior 0.27's own `create_external` never frees the box holding a pass).
//!
//! MLIR tells pass classes apart by a `TypeID`, an 8-byte-aligned address. [`type_id`] gives each
//! pass name an address of its own, taken from a heap allocation made once per name, so two
//! passes can never share one (distinct statics of a zero-sized type may).

use crate::{Error, registry::PassInfo};
use melior::{
    ir::{OperationRef, operation::OperationLike, r#type::TypeId},
    pass::Pass,
};
use mlir_sys::{
    MlirContext, MlirExternalPass, MlirExternalPassCallbacks, MlirLogicalResult, MlirOperation, mlirCreateExternalPass,
    mlirExternalPassSignalFailure,
};
use std::{
    collections::HashMap,
    ffi::c_void,
    sync::{Mutex, OnceLock},
};
use umac_dialects::{emit_error, text::str_ref};

/// The work of a pass.
pub trait UmacPass: Clone + 'static {
    /// Runs the pass on `operation`. Return [`Error::Reported`] after emitting diagnostics at the
    /// offending ops; any other error is emitted at `operation`, prefixed with the pass name.
    fn run(&mut self, operation: OperationRef) -> Result<(), Error>;
}

/// A pass's state and the name its errors carry.
#[derive(Clone)]
struct Owned<T> {
    state: T,
    argument: String,
}

unsafe extern "C" fn construct(_: *mut c_void) {}

unsafe extern "C" fn destruct<T: UmacPass>(data: *mut c_void) {
    // SAFETY: `data` came from Box::into_raw in `create_named` or `clone`; MLIR destroys each pass
    // once.
    drop(unsafe { Box::from_raw(data.cast::<Owned<T>>()) });
}

unsafe extern "C" fn initialize(_: MlirContext, _: *mut c_void) -> MlirLogicalResult {
    MlirLogicalResult { value: 1 }
}

unsafe extern "C" fn clone<T: UmacPass>(data: *mut c_void) -> *mut c_void {
    // SAFETY: `data` is a live `Owned<T>` owned by the pass being cloned.
    let copy = unsafe { (*data.cast::<Owned<T>>()).clone() };
    Box::into_raw(Box::new(copy)).cast()
}

unsafe extern "C" fn run<T: UmacPass>(operation: MlirOperation, pass: MlirExternalPass, data: *mut c_void) {
    // SAFETY: `data` is this pass's live `Owned<T>`; MLIR hands a live operation and pass handle
    // for the duration of the call.
    unsafe {
        let owned = &mut *data.cast::<Owned<T>>();
        let operation = OperationRef::from_raw(operation);
        match owned.state.run(operation) {
            Ok(()) => {}
            Err(Error::Reported) => mlirExternalPassSignalFailure(pass),
            Err(error) => {
                emit_error(operation.location(), &format!("{}: {error}", owned.argument));
                mlirExternalPassSignalFailure(pass);
            }
        }
    }
}

/// Builds the MLIR pass registered as `info`, owning `state`.
pub fn create<T: UmacPass>(info: &PassInfo, state: T) -> Pass {
    create_named(info.name, info.summary, info.anchor, state)
}

/// Builds an external pass owning `state`, named `argument` in pipelines, running on ops named
/// `anchor` (`any`: every op).
pub fn create_named<T: UmacPass>(argument: &str, description: &str, anchor: &str, state: T) -> Pass {
    let callbacks = MlirExternalPassCallbacks {
        construct: Some(construct),
        destruct: Some(destruct::<T>),
        initialize: Some(initialize),
        clone: Some(clone::<T>),
        run: Some(run::<T>),
    };
    let class = class_name(argument);
    let anchor = if anchor == "any" { "" } else { anchor };
    let owned = Owned { state, argument: argument.to_string() };
    // SAFETY: the strings are copied by MLIR; the state box is owned by the pass from here and
    // freed by `destruct`.
    unsafe {
        Pass::from_raw(mlirCreateExternalPass(
            type_id(argument).to_raw(),
            str_ref(&class),
            str_ref(argument),
            str_ref(description),
            str_ref(anchor),
            0,
            std::ptr::null_mut(),
            callbacks,
            Box::into_raw(Box::new(owned)).cast(),
        ))
    }
}

/// The identity of the pass named `argument`: one address per name, for the life of the process.
pub fn type_id(argument: &str) -> TypeId<'static> {
    /// 8 bytes, 8-aligned, as MLIR's TypeID wants; never zero-sized, so never shared.
    #[repr(align(8))]
    struct Identity(#[allow(dead_code)] u8);
    static IDS: OnceLock<Mutex<HashMap<String, &'static Identity>>> = OnceLock::new();
    let mut ids = IDS.get_or_init(Default::default).lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let identity: &'static Identity =
        ids.entry(argument.to_string()).or_insert_with(|| Box::leak(Box::new(Identity(0))));
    TypeId::create(identity)
}

/// `umac-plan-memory` → `UmacPlanMemory`: the class name MLIR prints in IR dumps and timings.
fn class_name(argument: &str) -> String {
    argument
        .split('-')
        .map(|word| {
            let mut chars = word.chars();
            chars.next().map(|c| c.to_ascii_uppercase().to_string() + chars.as_str()).unwrap_or_default()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_distinct_per_name_and_stable() {
        let a = type_id("umac-test-a").to_raw().ptr;
        let b = type_id("umac-test-b").to_raw().ptr;
        assert_ne!(a, b);
        assert_eq!(a, type_id("umac-test-a").to_raw().ptr);
        assert_eq!(a as usize % 8, 0);
    }

    #[test]
    fn class_names() {
        assert_eq!(class_name("umac-plan-memory"), "UmacPlanMemory");
        assert_eq!(class_name("umac-decompose-transpose-conv2d"), "UmacDecomposeTransposeConv2d");
    }
}

//! How a umac pass is defined and how MLIR runs it. A pass is a value implementing [`UmacPass`],
//! built from its options by its registry entry ([`crate::registry::PassKind`]). Every entry is
//! exported into MLIR's own pass registry ([`export_to_mlir`], through `umac_dialects::native`):
//! MLIR's pipeline parser, mlir-opt's command line, `--help`, `--dump-pass-pipeline` and crash
//! reproducers see umac passes like upstream ones, with real MLIR pass options; when MLIR runs
//! one, it calls back here ([`run_pass`]) with the option values, and the pass is built and run.
//!
//! MLIR tells pass classes apart by a `TypeID`, an 8-byte-aligned address. [`type_id`] gives each
//! pass name an address of its own, taken from a heap allocation made once per name, so two
//! passes can never share one.

use crate::{
    Error,
    options::{OptionKind, OptionValues, parse_options},
    registry::{PassInfo, PassKind, lookup, registry},
};
use melior::ir::{OperationRef, operation::OperationLike};
use mlir_sys::{MlirOperation, MlirStringRef};
use std::{
    collections::{HashMap, HashSet},
    ffi::c_void,
    sync::{Mutex, OnceLock},
};
use umac_dialects::{
    build::{Builder, Value},
    emit_error,
    native::{self, PassSpec, StringFn, string_ref},
    text::string_from,
};

/// The work of a pass, built from its option values for one run.
pub trait UmacPass {
    /// Runs the pass on `operation`. Return [`Error::Reported`] after emitting diagnostics at the
    /// offending ops; any other error is emitted at `operation`, prefixed with the pass name.
    fn run(&mut self, operation: OperationRef) -> Result<(), Error>;
}

/// A pass ready to run, as a registry entry's constructor returns it.
pub type BoxedPass = Box<dyn UmacPass>;

/// `Ok(Box::new(pass))`: the usual end of a registry entry's constructor.
pub fn boxed(pass: impl UmacPass + 'static) -> Result<BoxedPass, Error> {
    Ok(Box::new(pass))
}

/// Replaces, one at a time, each op under `operation` that `select` picks by the values
/// `rewrite` returns, one per result, after writing the ops that compute them in front of the op
/// with the builder it is given (whose arguments are the op's operands; the ops take its
/// location) and the op's name. `select` decides which ops are rewritten: a rewrite always
/// replaces its op. Ops are collected first, so a rewrite touches the IR in front of its own op
/// only.
pub fn build_each(
    operation: OperationRef,
    select: impl FnMut(&OperationRef) -> bool,
    mut rewrite: impl FnMut(&mut Builder, &str) -> Vec<Value>,
) -> Result<(), Error> {
    for raw in umac_dialects::ir::collect(operation, select) {
        // SAFETY: each collected op is live until its own rewrite replaces it (the contract
        // above).
        let op = unsafe { OperationRef::from_raw(raw) };
        let name = umac_dialects::ir::op_name(&op);
        replace_with(op, |b| rewrite(b, &name))?;
    }
    Ok(())
}

/// Replaces `op` by the values `write` returns, one per result, after writing the ops that
/// compute them in front of it with the builder it is given (whose arguments are `op`'s
/// operands; the ops take its location).
pub fn replace_with(op: OperationRef, write: impl FnOnce(&mut Builder) -> Vec<Value>) -> Result<(), Error> {
    umac_dialects::ir::with_context(&op, |context| {
        let mut b = Builder::before(context, op);
        let results = write(&mut b);
        b.replace(&results)
    })?;
    Ok(())
}

/// Builds the pass registered as `info` (named `name`) for `options`.
fn build(info: &PassInfo, name: &str, options: &OptionValues) -> Result<BoxedPass, Error> {
    match info.kind {
        PassKind::Pass(create) => create(options),
        PassKind::Named(create) => create(name, options),
        PassKind::Pipeline(_) => Err(Error::Internal(format!("'{name}' is a pipeline, not a pass"))),
    }
}

/// The identity of the pass named `argument`: one address per name, for the life of the process.
pub fn type_id(argument: &str) -> *const c_void {
    /// 8 bytes, 8-aligned, as MLIR's TypeID wants; never zero-sized, so never shared.
    #[repr(align(8))]
    struct Identity(#[allow(dead_code)] u8);
    static IDS: OnceLock<Mutex<HashMap<String, &'static Identity>>> = OnceLock::new();
    let mut ids = IDS.get_or_init(Default::default).lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let identity: &'static Identity =
        ids.entry(argument.to_string()).or_insert_with(|| Box::leak(Box::new(Identity(0))));
    (identity as *const Identity).cast()
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

/// Adds every registry entry MLIR's pass registry does not have yet (umac's own passes, and those
/// accelerators registered since). Call before MLIR parses a pipeline that may name them.
pub fn export_to_mlir() {
    static EXPORTED: Mutex<Option<HashSet<&'static str>>> = Mutex::new(None);
    let mut exported = EXPORTED.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let exported = exported.get_or_insert_with(HashSet::new);
    for info in registry() {
        if exported.insert(info.name) {
            export(&info);
        }
    }
}

fn export(info: &PassInfo) {
    let options: Vec<native::OptionSpec> = info
        .options
        .iter()
        .map(|o| native::OptionSpec {
            name: string_ref(o.name),
            help: string_ref(o.help),
            kind: match o.kind {
                OptionKind::Bool => 0,
                OptionKind::Int => 1,
                OptionKind::String => 2,
            },
            default_value: string_ref(o.default),
        })
        .collect();
    let class = class_name(info.name);
    let anchor = if info.anchor == "any" { "" } else { info.anchor };
    let spec = PassSpec {
        argument: string_ref(info.name),
        description: string_ref(info.summary),
        class_name: string_ref(&class),
        anchor: string_ref(anchor),
        options: options.as_ptr(),
        num_options: options.len(),
        type_id: type_id(info.name),
    };
    // SAFETY: every string and the options array outlive the calls, which copy them; the type id
    // is unique to the pass and lives as long as the process.
    unsafe {
        match info.kind {
            PassKind::Pipeline(_) => native::register_pipeline(&spec, expand_pipeline),
            PassKind::Pass(_) | PassKind::Named(_) => native::register_pass(&spec, check_options, run_pass),
        }
    }
}

/// The entry named `argument` and its option values (one text per declared option).
///
/// # Safety
/// `values` must point at `count` live string references.
unsafe fn entry(
    argument: MlirStringRef,
    values: *const MlirStringRef,
    count: usize,
) -> Result<(PassInfo, OptionValues), Error> {
    let name = string_from(argument);
    let info = lookup(&name).ok_or_else(|| Error::Internal(format!("'{name}' is not a umac pass")))?;
    let texts: Vec<String> = if count == 0 {
        Vec::new()
    } else {
        // SAFETY: the caller's contract (a non-empty array is never null).
        unsafe { std::slice::from_raw_parts(values, count) }.iter().map(|v| string_from(*v)).collect()
    };
    let values = OptionValues::from_texts(info.options, &texts)?;
    Ok((info, values))
}

/// Writes `text` through a C string callback.
///
/// # Safety
/// `out` and `user_data` must be the pair the C side handed over.
unsafe fn write(out: StringFn, user_data: *mut c_void, text: &str) {
    // SAFETY: the caller's contract; the text is alive for the call.
    unsafe { out(string_ref(text), user_data) }
}

/// MLIR's check of a umac pass's options (at pipeline parsing): the pass must build.
unsafe extern "C" fn check_options(
    argument: MlirStringRef,
    values: *const MlirStringRef,
    count: usize,
    error: StringFn,
    user_data: *mut c_void,
) -> bool {
    // SAFETY: MLIR passes `count` live values and the error callback with its data.
    let built = unsafe { entry(argument, values, count) }.and_then(|(info, values)| build(&info, info.name, &values));
    match built {
        Ok(_) => true,
        Err(e) => {
            // SAFETY: as above.
            unsafe { write(error, user_data, &e.to_string()) };
            false
        }
    }
}

/// MLIR running a umac pass on `op`.
unsafe extern "C" fn run_pass(
    argument: MlirStringRef,
    values: *const MlirStringRef,
    count: usize,
    op: MlirOperation,
) -> bool {
    // SAFETY: MLIR passes `count` live values and the live op the pass runs on.
    let (operation, result) = unsafe {
        let operation = OperationRef::from_raw(op);
        let result = entry(argument, values, count)
            .and_then(|(info, values)| build(&info, info.name, &values))
            .and_then(|mut pass| pass.run(operation));
        (operation, result)
    };
    match result {
        Ok(()) => true,
        Err(Error::Reported) => false,
        Err(error) => {
            emit_error(operation.location(), &format!("{}: {error}", string_from(argument)));
            false
        }
    }
}

/// MLIR expanding a umac pipeline with option text `options`.
unsafe extern "C" fn expand_pipeline(
    argument: MlirStringRef,
    options: MlirStringRef,
    out: StringFn,
    user_data: *mut c_void,
) -> bool {
    let name = string_from(argument);
    let options = string_from(options);
    let expanded =
        lookup(&name).ok_or_else(|| Error::Internal(format!("'{name}' is not a umac pipeline"))).and_then(|info| {
            match info.kind {
                PassKind::Pipeline(expand) => {
                    let text = (!options.is_empty()).then_some(options.as_str());
                    Ok(expand(&parse_options(&name, info.options, text, 0)?))
                }
                _ => Err(Error::Internal(format!("'{name}' is a pass, not a pipeline"))),
            }
        });
    // SAFETY: the callback and its data are the pair MLIR handed over.
    unsafe {
        match expanded {
            Ok(text) => {
                write(out, user_data, &text);
                true
            }
            Err(e) => {
                write(out, user_data, &e.to_string());
                false
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_distinct_per_name_and_stable() {
        let a = type_id("umac-test-a");
        let b = type_id("umac-test-b");
        assert_ne!(a, b);
        assert_eq!(a, type_id("umac-test-a"));
        assert_eq!(a as usize % 8, 0);
    }

    #[test]
    fn class_names() {
        assert_eq!(class_name("umac-plan-memory"), "UmacPlanMemory");
        assert_eq!(class_name("umac-decompose-transpose-conv2d"), "UmacDecomposeTransposeConv2d");
    }
}

//! `umac-<step>-<name>` and `umac-schedule-<name>`: a backend's schedule of each composite as
//! IR. Before legalization, the backend decides in steps ([`Backend::schedule_steps`]) how each
//! composite of a function runs (for tynnp: what stays on chip between kernels, its tiles, its
//! on-chip buffers and their addresses), each step a pass that attaches, as the attribute
//! [`Backend::schedules`] gives, the schedule so far to the composite's last op as
//! `<name>.schedule`; `umac-schedule-<name>` runs every step. A compiler engineer reads the
//! schedule in the IR, `umac-opt` replays it step by step, and an edited schedule is what the
//! next step and legalization take: the backend's strategies read it back (and check it)
//! instead of deciding again.

use crate::{Backend, Composite, Error, TargetAttrs, legalize};
use melior::ir::{OperationRef, RegionLike, operation::OperationLike};
use mlir_sys::*;
use umac_dialects::{ir::symbol_name, text::str_ref};

/// The name of `backend`'s schedule attribute: `<name>.schedule`.
pub fn schedule_attribute(backend: &dyn Backend) -> String {
    format!("{}.schedule", backend.name())
}

/// Runs every step of `backend`'s schedules on `module`, in order.
pub fn attach_all(module: OperationRef, backend: &dyn Backend, attributes: &TargetAttrs) -> Result<(), Error> {
    backend.schedule_steps().iter().try_for_each(|step| attach_schedules(module, backend, step.name, attributes))
}

/// Attaches step `step` of `backend`'s schedule to each composite of its functions in `module`.
pub fn attach_schedules(
    module: OperationRef,
    backend: &dyn Backend,
    step: &str,
    attributes: &TargetAttrs,
) -> Result<(), Error> {
    let name = schedule_attribute(backend);
    for function in legalize::functions_of(module, backend.name()) {
        if function.region(0).ok().and_then(|r| r.first_block()).is_none() {
            continue;
        }
        let composites = legalize::composites_of(function, backend, attributes)?;
        let views: Vec<Composite> = composites.iter().map(|(pattern, m)| legalize::view(pattern, m)).collect();
        let schedules = backend.schedules(step, &views, attributes);
        if schedules.len() != composites.len() {
            let symbol = symbol_name(&function).unwrap_or_default();
            let what = format!("{} schedules for {} composites", schedules.len(), composites.len());
            return Err(legalize::diagnose(
                &function,
                &format!("{}'s schedules for @{symbol}: {what}", backend.name()),
            ));
        }
        for ((pattern, m), schedule) in composites.iter().zip(schedules) {
            let root = m.root_op();
            let text = schedule.map_err(|e| {
                legalize::diagnose(&root, &format!("{} cannot schedule {pattern}: {e}", backend.name()))
            })?;
            let Some(text) = text else { continue };
            let last = m.ops[m.ops.len() - 1].1;
            // SAFETY: the op is live; the attribute is parsed in its context and set on it.
            unsafe {
                let attribute = mlirAttributeParseGet(mlirOperationGetContext(last.to_raw()), str_ref(&text));
                if attribute.ptr.is_null() {
                    let message = format!("{}'s schedule of {pattern} does not parse: {text}", backend.name());
                    return Err(legalize::diagnose(&last, &message));
                }
                mlirOperationSetDiscardableAttributeByName(last.to_raw(), str_ref(&name), attribute);
            }
        }
    }
    Ok(())
}

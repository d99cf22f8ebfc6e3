//! `umac-double-buffer-tynnp`: the double buffering of the kernels' tile loops, as a pass over
//! the loops `umac-legalize-tynnp` writes single-buffered.
//!
//! Legalization writes each kernel's loop over its tiles (`loops.rs`) so that it is correct with
//! one input and one output buffer: a tile's copy in waits for the job of the tile before (the
//! last reader of the buffer), its job for the copy out of the tile before (the last reader of
//! the output buffer), and on the vector units the control unit drains the tile before (waits
//! for its bands, copies its output out) before copying the next tile in. When the schedule
//! double-buffers (`buffers = 2`), the tile table already rotates the tiles through two DM
//! buffers each, and the loop says so with `tynnp.buffers = 2`; this pass then relaxes what
//! the rotation makes needless, so each tile's copies overlap the job of the tile before:
//! - the iteration arguments listed in `tynnp.reuse` (the tokens a tile waits for before it
//!   reuses a buffer, and whether that token is still the constants' copy) are carried
//!   `tynnp.buffers` tiles back instead of one ([`carry_further`]);
//! - the `scf.if` marked `tynnp.drain` (the drain of the tile before) moves to the end of the
//!   body ([`sink_to_yield`]): the control unit copies tile t in and issues its jobs first, and
//!   what followed the drain now follows the drain of the tile two back.
//!
//! ```mlir
//! scf.for %t = ... iter_args(%job = %c0, %out = %weights) -> (i32, i32) {
//!   %in = "tynnp.dma_copy"(..., %job, ...)            // after the job one tile back
//!   %j = "tynnp.nu_conv"(..., %in, %out, ...)          // after the copy out one tile back
//!   %o = "tynnp.dma_copy"(..., %j, ...)
//!   scf.yield %j, %o : i32, i32
//! } {tynnp.buffers = 2 : i64, tynnp.reuse = array<i64: 0, 1>}
//! // becomes
//! scf.for %t = ... iter_args(%job = %c0, %job2 = %c0, %out = %weights, %out2 = %weights) -> (i32, i32, i32, i32) {
//!   %in = "tynnp.dma_copy"(..., %job2, ...)           // after the job two tiles back
//!   %j = "tynnp.nu_conv"(..., %in, %out2, ...)         // after the copy out two tiles back
//!   %o = "tynnp.dma_copy"(..., %j, ...)
//!   scf.yield %j, %job, %o, %out : i32, i32, i32, i32
//! }
//! ```
//!
//! The markers go; a loop with `tynnp.buffers = 1` is left single-buffered. Sound only when
//! the tiles do rotate through that many buffers (legalization's contract; the simulator's
//! hazard checker finds a loop that does not); a drained loop rotates through two.

use crate::error::TynnpError;
use melior::ir::{Location, OperationRef, operation::OperationLike};
use mlir_sys::*;
use umac_backend::{Error, KernelStep, TargetAttrs};
use umac_dialects::{
    ir::{attribute, body_ops, collect, i64_array, name, op_name},
    location::emit_error,
    scf::{carry_further, sink_to_yield},
    text::str_ref,
};

/// How many buffers a loop's tiles rotate through (on its `scf.for`).
pub(crate) const BUFFERS: &str = "tynnp.buffers";
/// The iteration arguments carried one tile back that a tile waits for before it reuses a buffer.
pub(crate) const REUSE: &str = "tynnp.reuse";
/// The `scf.if` draining the tile before.
pub(crate) const DRAIN: &str = "tynnp.drain";

/// The step, run after `umac-legalize-tynnp`.
pub(crate) const STEP: KernelStep = KernelStep {
    name: "double-buffer",
    summary: "Double-buffer the tynnp kernels' tile loops marked tynnp.buffers: carry the buffer-reuse tokens that many tiles back and drain each tile after the next one's jobs issue",
    run,
};

fn run(module: OperationRef, _attributes: &TargetAttrs) -> Result<(), Error> {
    let loops = collect(module, |op| op_name(op) == "scf.for" && op.attribute(BUFFERS).is_ok());
    let mut failed = false;
    for raw in loops {
        // SAFETY: each loop was collected from the live module; rewriting one replaces only it
        // (the kernels' tile loops are not nested in each other).
        let outcome = unsafe { double_buffer(raw) };
        if let Err(message) = outcome {
            // SAFETY: the loop is live when it is refused (nothing was changed).
            let location = unsafe { Location::from_raw(mlirOperationGetLocation(raw)) };
            emit_error(location, &format!("umac-double-buffer-tynnp: this loop {message}"));
            failed = true;
        }
    }
    if failed { Err(Error::Reported) } else { Ok(()) }
}

/// Double-buffers `loop_op` as its markers say (the module documentation), or says why not
/// (then nothing changed).
///
/// # Safety
/// `loop_op` must be a live `scf.for`.
unsafe fn double_buffer(loop_op: MlirOperation) -> Result<(), TynnpError> {
    // SAFETY: the caller's contract; every op read is in the loop, alive until it is rebuilt.
    unsafe {
        let buffers = attribute(loop_op, BUFFERS)
            .filter(|a| mlirAttributeIsAInteger(*a))
            .map(|a| mlirIntegerAttrGetValueInt(a))
            .filter(|n| (1..=16).contains(n))
            .ok_or_else(|| TynnpError::Loop(format!("has a {BUFFERS} that is not a buffer count (1 to 16)")))?;
        let reuse = match attribute(loop_op, REUSE) {
            None => Vec::new(),
            Some(a) => {
                i64_array(a).ok_or_else(|| TynnpError::Loop(format!("has a {REUSE} that is not an array<i64>")))?
            }
        };
        let carried = mlirOperationGetNumResults(loop_op);
        let mut positions: Vec<usize> = Vec::new();
        for &k in &reuse {
            if !(0..carried as i64).contains(&k) || positions.contains(&(k as usize)) {
                return Err(TynnpError::Loop(format!(
                    "lists {k} in {REUSE}, which is not one of its {carried} iteration arguments once"
                )));
            }
            positions.push(k as usize);
        }
        let drains: Vec<MlirOperation> =
            body_ops(loop_op).into_iter().filter(|op| attribute(*op, DRAIN).is_some()).collect();
        if let [_, _, ..] = drains[..] {
            return Err(TynnpError::Loop(format!("has {} ops marked {DRAIN}, not at most one", drains.len())));
        }
        if let Some(&drain) = drains.first() {
            if name(drain) != "scf.if" {
                return Err(TynnpError::Loop(format!("marks a {} as {DRAIN}, which must be an scf.if", name(drain))));
            }
            if buffers > 2 {
                return Err(TynnpError::Loop(format!(
                    "drains the tile before ({DRAIN}), which double-buffers (2 buffers) but not {buffers}"
                )));
            }
            if buffers == 2 {
                sink_to_yield(drain).map_err(|e| {
                    TynnpError::Loop(format!("drains the tile before in an scf.if that cannot move: {e}"))
                })?;
            }
            mlirOperationRemoveAttributeByName(drain, str_ref(DRAIN));
        }
        for marker in [BUFFERS, REUSE] {
            mlirOperationRemoveAttributeByName(loop_op, str_ref(marker));
        }
        if buffers > 1 && !positions.is_empty() {
            carry_further(loop_op, &positions, buffers as usize);
        }
        Ok(())
    }
}

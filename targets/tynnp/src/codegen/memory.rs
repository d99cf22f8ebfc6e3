//! The NPU's global buffer DM as a memref memory space, and `umac-allocate-dm-tynnp`: the static
//! allocation of the buffers in it, as a pass over those memrefs.
//!
//! A buffer in DM is a `memref.alloc` whose type is in the memory space `"tynnp.dm"`; `tynnp.dm`
//! is the whole of DM (from its base, 0x10000000, targets/tynnp/docs/isa.md section 2), a 1-D
//! memref of bytes in that space. The pass gives each function's DM buffers offsets by lifetime
//! with the memory planner's algorithm (`umac_lowering::memory_plan`: greedy by size, then hill
//! climbing), 16-byte aligned (DMA and the units address DM in 16-byte words), and replaces each
//! by a `memref.view` of `tynnp.dm` at its offset; their `memref.dealloc`s go. Lifetimes are
//! counted in kernels: the function's calls are its steps, the ops before a call belong to it
//! (they compute its operands: its addresses in DM) and a dealloc to the call before it. A
//! buffer lives from the first to the last step using it, a view of it or deallocating it (a
//! dealloc keeps a buffer a kernel reads while later kernels run), wherever it is allocated. Buffers that do not fit the
//! target's DM (`-dm-kib`) are an error at the first buffer alive where the most bytes are.
//!
//! ```mlir
//! %a = memref.alloc() : memref<4x32xi8, "tynnp.dm">
//! // becomes
//! %dm = "tynnp.dm"() : () -> memref<262144xi8, "tynnp.dm">
//! %c0 = arith.constant 0 : index
//! %a = memref.view %dm[%c0][] : memref<262144xi8, "tynnp.dm"> to memref<4x32xi8, "tynnp.dm">
//! ```

use crate::{error::TynnpError, target::params};
use melior::ir::{Location, OperationRef, TypeLike, ValueLike, operation::OperationLike};
use mlir_sys::*;
use std::collections::HashMap;
use umac_backend::{Error, KernelStep, OpView, TargetAttrs};
use umac_dialects::{
    ir::{VIEW_OPS, body_ops, build, collect, has_body, name, op_name, static_memref_bits},
    location::emit_error,
    text::{str_ref, string_from, type_text},
    umac::CALL_EXTERN,
};
use umac_lowering::memory_plan::{Buffer, plan_within};

/// DM's memory space: what a memref in DM has as its memory space attribute.
pub(crate) const DM_SPACE: &str = "tynnp.dm";

/// The op giving the whole of DM.
pub(crate) const DM: &str = "tynnp.dm";

/// The bytes of DM a function's buffers take once placed (on the function).
pub(crate) const DM_BYTES: &str = "tynnp.dm_bytes";

/// How DM buffers are aligned (bytes).
const ALIGNMENT: u64 = 16;

/// The step, run after `umac-legalize-tynnp`.
pub(crate) const STEP: KernelStep = KernelStep {
    name: "allocate-dm",
    summary: "Place each memref.alloc in the memory space \"tynnp.dm\" at a static offset in DM by lifetime (the memory planner's algorithm), as a memref.view of tynnp.dm",
    run,
};

/// Whether `ty` (a memref type) is in DM's memory space.
fn in_dm(ty: MlirType) -> bool {
    // SAFETY: the type is owned by its live context; the memory space is read after the kind check.
    unsafe {
        if !mlirTypeIsAMemRef(ty) {
            return false;
        }
        let space = mlirMemRefTypeGetMemorySpace(ty);
        !space.ptr.is_null() && mlirAttributeIsAString(space) && string_from(mlirStringAttrGetValue(space)) == DM_SPACE
    }
}

/// Checks `tynnp.dm`: no operands, one result, a static 1-D memref of bytes in DM's space.
pub fn verify(op: &OpView) -> Result<(), TynnpError> {
    let operation = op.operation();
    let result = operation.result(0).ok().filter(|_| op.result_count() == 1 && op.operand_count() == 0);
    let ty = result.map(|r| r.r#type().to_raw());
    let bytes =
        ty.filter(|t| in_dm(*t)).and_then(static_memref_bits).filter(|&(elements, bits)| bits == 8 && elements > 0);
    // SAFETY: the type is live; its rank is read after `static_memref_bits` found a memref.
    let one_dimensional = ty.is_some_and(|t| unsafe { mlirShapedTypeGetRank(t) } == 1);
    if bytes.is_none() || !one_dimensional {
        return Err(TynnpError::Contract(format!(
            "takes nothing and gives DM as a memref<Nxi8, \"{DM_SPACE}\"> (N bytes)"
        )));
    }
    Ok(())
}

fn run(module: OperationRef, attributes: &TargetAttrs) -> Result<(), Error> {
    let capacity = u64::from(params(attributes)?.dm_bytes);
    let functions = collect(module, |op| op_name(op) == "func.func" && has_body(op));
    let mut failed = false;
    for function in functions {
        // SAFETY: each function was collected from the live module; allocating one function's
        // buffers rewrites only its body.
        if let Err(message) = unsafe { allocate(function, capacity) } {
            let (op, message) = message;
            // SAFETY: the op is live: nothing was rewritten when allocation failed.
            let location = unsafe { Location::from_raw(mlirOperationGetLocation(op)) };
            emit_error(location, &format!("umac-allocate-dm-tynnp: {message}"));
            failed = true;
        }
    }
    if failed { Err(Error::Reported) } else { Ok(()) }
}

/// The step of each op of a function's body (`ops`, in order): the kernels are its steps, so a
/// call (`func.call`, `umac.call_extern`) is one, numbered in order; a `memref.dealloc` belongs
/// to the call before it (the buffer is free once that kernel returns), any other op to the
/// call after it (it computes that call's operands, such as its addresses in DM).
///
/// # Safety
/// The ops must be live.
unsafe fn kernel_steps(ops: &[MlirOperation]) -> HashMap<usize, usize> {
    let mut calls = 0;
    let mut steps = HashMap::new();
    for op in ops {
        // SAFETY: the caller's contract.
        let kind = unsafe { name(*op) };
        let step = match kind.as_str() {
            "func.call" | CALL_EXTERN => {
                calls += 1;
                calls - 1
            }
            "memref.dealloc" => calls.max(1) - 1,
            _ => calls,
        };
        steps.insert(op.ptr as usize, step);
    }
    steps
}

/// The top-level op of `function`'s body holding `op`.
///
/// # Safety
/// `op` must be live and nested in `function`'s body.
unsafe fn step_of(mut op: MlirOperation, body: MlirBlock) -> MlirOperation {
    unsafe {
        while mlirOperationGetBlock(op).ptr != body.ptr {
            op = mlirOperationGetParentOperation(op);
        }
        op
    }
}

/// The ops using `value` or a view of it (`memref.view` or [`VIEW_OPS`]).
///
/// # Safety
/// `value` must be live.
unsafe fn users(value: MlirValue, out: &mut Vec<MlirOperation>) {
    unsafe {
        let mut uses = mlirValueGetFirstUse(value);
        while !uses.ptr.is_null() {
            let user = mlirOpOperandGetOwner(uses);
            out.push(user);
            let kind = name(user);
            if kind == "memref.view" || VIEW_OPS.contains(&kind.as_str()) {
                users(mlirOperationGetResult(user, 0), out);
            }
            uses = mlirOpOperandGetNextUse(uses);
        }
    }
}

/// Allocates the DM buffers of `function` (see the module documentation); `Err`: the op to
/// report at, and why.
///
/// # Safety
/// `function` must be a live `func.func` with a body.
unsafe fn allocate(function: MlirOperation, capacity: u64) -> Result<(), (MlirOperation, TynnpError)> {
    unsafe {
        let body = mlirRegionGetFirstBlock(mlirOperationGetRegion(function, 0));
        let steps = kernel_steps(&body_ops(function));
        let allocs = collect(OperationRef::from_raw(function), |op| {
            op_name(op) == "memref.alloc" && op.result(0).is_ok_and(|r| in_dm(r.r#type().to_raw()))
        });
        if allocs.is_empty() {
            return Ok(());
        }
        let mut buffers = Vec::new();
        let mut deallocs = Vec::new();
        for &alloc in &allocs {
            let ty = mlirValueGetType(mlirOperationGetResult(alloc, 0));
            let Some((elements, bits)) = static_memref_bits(ty).filter(|_| mlirOperationGetNumOperands(alloc) == 0)
            else {
                let shown = type_text(melior::ir::Type::from_raw(ty));
                return Err((alloc, TynnpError::Schedule(format!("a buffer in DM needs a static shape, got {shown}"))));
            };
            let Some(&own) = steps.get(&(alloc.ptr as usize)).filter(|_| mlirOperationGetBlock(alloc).ptr == body.ptr)
            else {
                let message = "a buffer in DM is allocated in the function's body, not in a region";
                return Err((alloc, TynnpError::Schedule(message.into())));
            };
            let mut used = Vec::new();
            users(mlirOperationGetResult(alloc, 0), &mut used);
            let mut span: Option<(usize, usize)> = None;
            for user in used {
                let step = steps[&(step_of(user, body).ptr as usize)];
                let (start, end) = span.get_or_insert((step, step));
                (*start, *end) = ((*start).min(step), (*end).max(step));
                if name(user) == "memref.dealloc" {
                    deallocs.push(user);
                }
            }
            // Unused, a buffer lives where it is allocated.
            let (start, end) = span.unwrap_or((own, own));
            buffers.push(Buffer { size: ((elements * bits) as u64).div_ceil(8), start, end });
        }
        let placed = plan_within(&buffers, ALIGNMENT, capacity);
        if placed.size > capacity {
            let aligned: Vec<Buffer> =
                buffers.iter().map(|b| Buffer { size: b.size.div_ceil(ALIGNMENT) * ALIGNMENT, ..*b }).collect();
            let (worst, alive) = busiest_step(&aligned);
            let first = aligned.iter().position(|b| b.start <= worst && worst <= b.end).unwrap_or(0);
            return Err((
                allocs[first],
                TynnpError::Schedule(format!(
                    "the buffers in DM alive here need {} bytes placed ({alive} at once); DM holds {capacity} (-dm-kib)",
                    placed.size
                )),
            ));
        }
        for dealloc in deallocs {
            mlirOperationDestroy(dealloc);
        }
        let context = mlirOperationGetContext(function);
        let byte = mlirIntegerTypeGet(context, 8);
        let space = mlirStringAttrGet(context, str_ref(DM_SPACE));
        let shape = [capacity as i64];
        let dm_type = mlirMemRefTypeGet(byte, 1, shape.as_ptr(), MlirAttribute { ptr: std::ptr::null() }, space);
        let index = mlirIndexTypeGet(context);
        for (&alloc, offset) in allocs.iter().zip(&placed.offsets) {
            let location = mlirOperationGetLocation(alloc);
            let ty = mlirValueGetType(mlirOperationGetResult(alloc, 0));
            let value = mlirIntegerAttrGet(index, *offset as i64);
            let dm = build(DM, location, &[], &[dm_type], &[]);
            let constant = build("arith.constant", location, &[], &[index], &[("value", value)]);
            let operands = [mlirOperationGetResult(dm, 0), mlirOperationGetResult(constant, 0)];
            let view = build("memref.view", location, &operands, &[ty], &[]);
            for op in [dm, constant, view] {
                mlirBlockInsertOwnedOperationBefore(body, alloc, op);
            }
            mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(alloc, 0), mlirOperationGetResult(view, 0));
            mlirOperationDestroy(alloc);
        }
        let used = mlirIntegerAttrGet(mlirIntegerTypeGet(context, 64), placed.size as i64);
        mlirOperationSetAttributeByName(function, str_ref(DM_BYTES), used);
        Ok(())
    }
}

/// The step where the most bytes of `buffers` are alive, and how many.
fn busiest_step(buffers: &[Buffer]) -> (usize, u64) {
    let last = buffers.iter().map(|b| b.end).max().unwrap_or(0);
    (0..=last)
        .map(|step| (step, buffers.iter().filter(|b| b.start <= step && step <= b.end).map(|b| b.size).sum()))
        .max_by_key(|&(step, bytes)| (bytes, std::cmp::Reverse(step)))
        .unwrap_or((0, 0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_busiest_step_is_the_first_with_the_most_bytes_alive() {
        // Buffers of 32 bytes over steps 0..2, 16 over 1..3, 48 over 3: steps 1 and 2 hold 48,
        // step 3 holds 64.
        let b = |size, start, end| Buffer { size, start, end };
        assert_eq!(busiest_step(&[b(32, 0, 2), b(16, 1, 3), b(48, 3, 3)]), (3, 64));
        assert_eq!(busiest_step(&[b(32, 0, 2), b(16, 1, 3)]), (1, 48));
        assert_eq!(busiest_step(&[]), (0, 0));
    }
}

//! `umac-specialize-tynnp`: a copy of a kernel's function for each tile table its calls pass,
//! with the table and the tile count constants of the copy.
//!
//! Legalization defines one function for every call with the same split but for its number of
//! tiles, which is a value: the call passes its tile table (`tiles`, a constant buffer of the
//! values that differ between tiles, a row each) and its tile count (`tile_count`, the loop's
//! trip count), and the function records which arguments those are
//! (`tynnp.tile_arguments = array<i64: table, count>`). This pass gives the calls that pass the
//! same constant table and count a copy of the function of their own,
//! `<function>_t<tiles>` (`_t<tiles>_<k>` for the k-th copy of that many tiles), whose table is a
//! constant of its body (`bufferization.to_buffer` of an `arith.constant`) and whose count is an
//! `arith.constant`: the loop's trip count is static, so LLVM unrolls it
//! (`llvm.loop.unroll.full`) and the table's loads fold to the values they read, and the
//! control unit runs the straight-line code of that call. The function no call is left to is
//! erased; a call passing a table or count that is not a constant keeps the general function.
//! In each copy, an i32 argument that its calls pass as constants differing between calls, but
//! always at one offset from an earlier such argument (DM regions at a fixed distance from one
//! another, the token words of the kernel's record and the next one's), is computed from that
//! argument: LLVM then drops it, and fewer of a kernel's many arguments go on the stack.
//! With `-specialize=false` (to measure what it earns) the pass changes nothing.
//!
//! ```mlir
//! "umac.call_extern"(%x, %table, ..., %c3, %out) {callee = @tynnp_conv2d} ...
//! func.func private @tynnp_conv2d(%x: index, %tiles: index, ..., %count: i32, %out: index)
//!     attributes {tynnp.tile_arguments = array<i64: 1, 20>} { ... scf.for ... to %count ... }
//! // becomes
//! "umac.call_extern"(%x, %table, ..., %c3, %out) {callee = @tynnp_conv2d_t3} ...
//! func.func private @tynnp_conv2d_t3(%x: index, %tiles: index, ..., %count: i32, %out: index) {
//!   %c3 = arith.constant 3 : i32
//!   %table = bufferization.to_buffer (arith.constant dense<[...]> : tensor<Nxi32>) read_only
//!   %at = memref.extract_aligned_pointer_as_index %table   // replaces %tiles
//!   ...                                                      // %c3 replaces %count
//! }
//! ```

use super::memory::DM;
use crate::{error::TynnpError, kernel::split::specialized_symbol, target::SPECIALIZE};
use melior::ir::{Location, OperationRef, attribute::AttributeLike, operation::OperationLike};
use mlir_sys::*;
use umac_backend::{Builder, Error, KernelStep, TargetAttrs, Ty, constant_ints};
use umac_dialects::{
    ir::{
        attribute, collect, constant_int, folded_int, i64_array, integer_value, name, op_name, produced_by,
        symbol_name, top_level_ops, with_context,
    },
    location::emit_error,
    text::{str_ref, string_from},
    umac::CALL_EXTERN,
};
use umac_tynnp_device::params::DM_BASE;

/// The function attribute naming its tile table's and tile count's arguments.
pub(crate) const TILE_ARGUMENTS: &str = "tynnp.tile_arguments";

/// The step, run after `umac-allocate-dm-tynnp`.
pub(crate) const STEP: KernelStep = KernelStep {
    name: "specialize",
    summary: "Give the calls of a tynnp kernel that pass the same constant tile table and tile count a copy of its function with both as constants (<function>_t<tiles>), so its tile loop unrolls and the table folds; in a copy, an argument its calls pass at a constant offset from another is computed from it",
    run,
};

/// What a group of calls passes: the tile count and the table's values.
type Key = (i64, Vec<i64>);

fn run(module: OperationRef, attributes: &TargetAttrs) -> Result<(), Error> {
    if !attributes.bool(SPECIALIZE) {
        return Ok(());
    }
    let kernels: Vec<MlirOperation> = top_level_ops(module)
        .into_iter()
        .filter(|op| op_name(op) == "func.func" && op.attribute(TILE_ARGUMENTS).is_ok())
        .map(|op| op.to_raw())
        .collect();
    let mut failed = false;
    for function in kernels {
        // SAFETY: each function is a live top-level op of the module; the pass only adds copies
        // after it and erases it last.
        if let Err(error) = unsafe { specialize(module, function) } {
            // SAFETY: a function is refused before anything of it changed: it is live.
            let location = unsafe { Location::from_raw(mlirOperationGetLocation(function)) };
            emit_error(location, &format!("umac-specialize-tynnp: {error}"));
            failed = true;
        }
    }
    if failed { Err(Error::Reported) } else { Ok(()) }
}

/// The callee symbol of `call` (a `umac.call_extern`).
fn callee(call: &OperationRef) -> Option<String> {
    let attribute = call.attribute("callee").ok()?.to_raw();
    // SAFETY: the attribute is alive; its value is read after the kind check.
    unsafe { mlirAttributeIsAFlatSymbolRef(attribute).then(|| string_from(mlirFlatSymbolRefAttrGetValue(attribute))) }
}

/// The integer `arith.constant` that produces operand `index` of `call`.
fn constant_operand(call: &OperationRef, index: usize) -> Option<i64> {
    let value = call.operand(index).ok()?;
    let producer = melior::ir::operation::OperationResult::try_from(value).ok()?.owner();
    (op_name(&producer) == "arith.constant").then(|| producer.attribute("value").ok().and_then(integer_value))?
}

/// Specializes the calls of `function` (see the module documentation).
///
/// # Safety
/// `function` must be a live top-level `func.func` of `module` with [`TILE_ARGUMENTS`].
unsafe fn specialize(module: OperationRef, function: MlirOperation) -> Result<(), TynnpError> {
    // SAFETY: the caller's contract; the calls are live ops of the module, the copies are made
    // of the live function and inserted into its block, and each rewrite keeps the IR valid.
    unsafe {
        let function_ref = OperationRef::from_raw(function);
        let symbol = symbol_name(&function_ref).unwrap_or_default();
        let entry = mlirRegionGetFirstBlock(mlirOperationGetRegion(function, 0));
        let arguments = if entry.ptr.is_null() { 0 } else { mlirBlockGetNumArguments(entry) as usize };
        let [table, count] = attribute(function, TILE_ARGUMENTS)
            .and_then(|a| i64_array(a))
            .and_then(|v| <[i64; 2]>::try_from(v).ok())
            .and_then(|v| v.map(|k| usize::try_from(k).ok().filter(|&k| k < arguments)).into_iter().collect::<Option<Vec<_>>>())
            .and_then(|v| <[usize; 2]>::try_from(v).ok())
            .ok_or_else(|| {
                TynnpError::Kernel(format!(
                    "@{symbol} has a {TILE_ARGUMENTS} that is not array<i64: table, count> of two of its {arguments} arguments"
                ))
            })?;
        let ty = |k: usize| mlirValueGetType(mlirBlockGetArgument(entry, k as isize));
        if !mlirTypeIsAIndex(ty(table))
            || !mlirTypeEqual(ty(count), mlirIntegerTypeGet(mlirOperationGetContext(function), 32))
        {
            return Err(TynnpError::Kernel(format!(
                "@{symbol}'s tile table (argument {table}) is not an index or its tile count (argument {count}) not an i32"
            )));
        }
        let calls = collect(module, |op| op_name(op) == CALL_EXTERN && callee(op).as_deref() == Some(&symbol));
        // The calls by what they pass, in the order each first appears.
        let mut groups: Vec<(Key, Vec<MlirOperation>)> = Vec::new();
        let mut general = false;
        for raw in calls {
            let call = OperationRef::from_raw(raw);
            let key = constant_operand(&call, count).zip(call.operand(table).ok().and_then(constant_ints));
            match key {
                Some(key) => match groups.iter_mut().find(|(k, _)| *k == key) {
                    Some((_, members)) => members.push(raw),
                    None => groups.push((key, vec![raw])),
                },
                None => general = true,
            }
        }
        let block = mlirOperationGetBlock(function);
        let mut after = function;
        let mut copies_of: Vec<i64> = Vec::new();
        for ((tiles, values), members) in &groups {
            copies_of.push(*tiles);
            let k = copies_of.iter().filter(|&&t| t == *tiles).count();
            let name = specialized_symbol(&symbol, usize::try_from(*tiles).unwrap_or(0), k);
            let copy = mlirOperationClone(function);
            let context = mlirOperationGetContext(function);
            mlirOperationSetAttributeByName(copy, str_ref("sym_name"), mlirStringAttrGet(context, str_ref(&name)));
            mlirOperationRemoveAttributeByName(copy, str_ref(TILE_ARGUMENTS));
            mlirBlockInsertOwnedOperationAfter(block, after, copy);
            after = copy;
            let entry = mlirRegionGetFirstBlock(mlirOperationGetRegion(copy, 0));
            let first = OperationRef::from_raw(mlirBlockGetFirstOperation(entry));
            let (count_value, table_value) = with_context(&first, |context| {
                let mut b = Builder::before(context, first);
                let count_value = b.constant(Ty::I32, *tiles);
                let buffer = b.constant_buffer(Ty::I32, values);
                let at = b.op1("memref.extract_aligned_pointer_as_index", &[buffer], Ty::Index, &[]);
                b.done().map(|()| (count_value.to_raw(), at.to_raw()))
            })
            .map_err(|e| TynnpError::Kernel(e.to_string()))?;
            mlirValueReplaceAllUsesOfWith(mlirBlockGetArgument(entry, count as isize), count_value);
            mlirValueReplaceAllUsesOfWith(mlirBlockGetArgument(entry, table as isize), table_value);
            let reference = mlirFlatSymbolRefAttrGet(context, str_ref(&name));
            for call in members {
                mlirOperationSetAttributeByName(*call, str_ref("callee"), reference);
            }
            relate_arguments(copy, members)?;
        }
        if !general && !groups.is_empty() {
            mlirOperationDestroy(function);
        }
        Ok(())
    }
}

/// The address of a buffer in DM, `memref.extract_aligned_pointer_as_index` of a view at a
/// constant offset of `tynnp.dm` (as umac-allocate-dm-tynnp places it): a constant once
/// umac-convert-tynnp-to-llvm writes DM's base.
fn dm_address(op: MlirOperation) -> Option<i64> {
    // SAFETY: `op` is live, and so are its operands and their producers.
    unsafe {
        if name(op) != "memref.extract_aligned_pointer_as_index" {
            return None;
        }
        let view = produced_by(mlirOperationGetOperand(op, 0), "memref.view")?;
        produced_by(mlirOperationGetOperand(view, 0), DM)?;
        Some(i64::from(DM_BASE) + constant_int(mlirOperationGetOperand(view, 1))?)
    }
}

/// The constants the calls pass as each i32 argument of `entry` (`None` for an argument of
/// another type or one some call passes a value that is not a constant).
fn constant_arguments(entry: MlirBlock, calls: &[MlirOperation]) -> Vec<Option<Vec<i32>>> {
    // SAFETY: `entry` is a live block of a function; the calls are live ops.
    unsafe {
        let i32_type = mlirIntegerTypeGet(mlirOperationGetContext(mlirBlockGetParentOperation(entry)), 32);
        (0..mlirBlockGetNumArguments(entry) as usize)
            .map(|k| {
                if !mlirTypeEqual(mlirValueGetType(mlirBlockGetArgument(entry, k as isize)), i32_type) {
                    return None;
                }
                calls
                    .iter()
                    .map(|&call| folded_int(mlirOperationGetOperand(call, k as isize), &dm_address).map(|v| v as i32))
                    .collect()
            })
            .collect()
    }
}

/// For each i32 argument of `function` that its `calls` pass as constants, differing between
/// calls, and equal in every call to an earlier such argument plus the same offset (a DM region
/// at a fixed distance from another, the token word after the one of the kernel's record): its
/// uses become `earlier + offset`, so the argument is dead and LLVM drops it (dead-argument
/// elimination of an internal function). Arguments a kernel takes are many (forty for a
/// convolution that preloads and prefetches), and past the eighth the calls pass them on the
/// stack; an argument every call passes the same constant is left to LLVM, which folds it.
///
/// # Safety
/// `function` must be a live `func.func` with a body, called by each of the live `calls`.
unsafe fn relate_arguments(function: MlirOperation, calls: &[MlirOperation]) -> Result<(), TynnpError> {
    if calls.len() < 2 {
        return Ok(());
    }
    // SAFETY: the caller's contract; the new ops go at the start of the function's entry block.
    unsafe {
        let entry = mlirRegionGetFirstBlock(mlirOperationGetRegion(function, 0));
        let constants = constant_arguments(entry, calls);
        let varies = |k: usize| constants[k].as_ref().filter(|v| v.iter().any(|&c| c != v[0]));
        let mut anchors: Vec<usize> = Vec::new();
        let mut related: Vec<(usize, usize, i64)> = Vec::new();
        for j in 0..constants.len() {
            let Some(values) = varies(j) else { continue };
            let offset_from = |i: usize| {
                let base = varies(i)?;
                let offset = values[0].wrapping_sub(base[0]);
                values.iter().zip(base).all(|(v, b)| v.wrapping_sub(*b) == offset).then_some(i64::from(offset))
            };
            match anchors.iter().find_map(|&i| offset_from(i).map(|offset| (i, offset))) {
                Some((i, offset)) => related.push((j, i, offset)),
                None => anchors.push(j),
            }
        }
        if related.is_empty() {
            return Ok(());
        }
        let first = OperationRef::from_raw(mlirBlockGetFirstOperation(entry));
        let values = with_context(&first, |context| {
            let mut b = Builder::before(context, first);
            let values: Vec<MlirValue> = related
                .iter()
                .map(|&(_, i, offset)| {
                    // Argument i of the entry block: defined before every op of it.
                    let base = b.existing(mlirBlockGetArgument(entry, i as isize));
                    let offset = b.constant(Ty::I32, offset);
                    b.op1("arith.addi", &[base, offset], Ty::I32, &[]).to_raw()
                })
                .collect();
            b.done().map(|()| values)
        })
        .map_err(|e| TynnpError::Kernel(e.to_string()))?;
        for (&(j, _, _), value) in related.iter().zip(values) {
            mlirValueReplaceAllUsesOfWith(mlirBlockGetArgument(entry, j as isize), value);
        }
        Ok(())
    }
}

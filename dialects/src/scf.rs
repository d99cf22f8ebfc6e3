//! Rewrites of `scf.for` loops that software pipelining is made of: carrying a value further
//! back (the loop-carried distance of its uses raised, through a shift register of iteration
//! arguments), and sinking an op of the body to its end (its results then reach the ops before
//! it one iteration later, through the arguments they are yielded into).
//!
//! Both take raw handles, with the contract of [`crate::ir`]: every handle passed in is live.

use crate::ir::name;
use mlir_sys::*;

/// Rebuilds `for_op` (an `scf.for`) so that, in its body, each iteration argument listed in
/// `carried` (by its position among the iteration arguments, the induction variable not
/// counted) holds the value yielded `distance` iterations back instead of one (its initial
/// value in the first `distance` iterations). Each such argument gets `distance − 1` more
/// arguments right after it, all starting from its initial value: the newest first, each
/// yielding the one before it, its old uses reading the oldest. The loop's results are the
/// newest values, as before; every other argument and result is unchanged, and so are the
/// loop's attributes. Returns the new loop; `for_op` is erased.
///
/// ```mlir
/// %r = scf.for %i = %lb to %ub step %s iter_args(%a = %init) -> (i32) {
///   "use"(%a) : (i32) -> ()        // the value of the iteration before
///   scf.yield %next : i32
/// }
/// // carried [0] at distance 2:
/// %r:2 = scf.for %i = %lb to %ub step %s iter_args(%a = %init, %a2 = %init) -> (i32, i32) {
///   "use"(%a2) : (i32) -> ()       // the value of two iterations before
///   scf.yield %next, %a : i32, i32
/// }
/// ```
///
/// # Safety
/// `for_op` must be a live `scf.for` whose body ends in its `scf.yield`; `carried` must be
/// distinct positions of its iteration arguments; `distance >= 1`.
pub unsafe fn carry_further(for_op: MlirOperation, carried: &[usize], distance: usize) -> MlirOperation {
    // SAFETY: the caller's contract; the new loop takes over the old body before the old loop
    // is erased, and every value read is alive until then.
    unsafe {
        let region = mlirOperationGetRegion(for_op, 0);
        let body = mlirRegionGetFirstBlock(region);
        let yield_op = mlirBlockGetTerminator(body);
        let count = mlirOperationGetNumResults(for_op) as usize;
        let location = mlirOperationGetLocation(for_op);
        let operand = |i: usize| mlirOperationGetOperand(for_op, i as isize);
        let old_yields: Vec<MlirValue> = (0..count).map(|i| mlirOperationGetOperand(yield_op, i as isize)).collect();
        // Each old argument's new position (its newest value), and how many it takes.
        let widths: Vec<usize> = (0..count).map(|i| if carried.contains(&i) { distance } else { 1 }).collect();
        let newest: Vec<usize> = widths.iter().scan(0, |at, w| Some(std::mem::replace(at, *at + w))).collect();
        let mut operands: Vec<MlirValue> = (0..3).map(operand).collect();
        let mut types = Vec::new();
        for (i, &width) in widths.iter().enumerate() {
            let ty = mlirValueGetType(mlirBlockGetArgument(body, 1 + i as isize));
            operands.extend(std::iter::repeat_n(operand(3 + i), width));
            types.extend(std::iter::repeat_n(ty, width));
        }
        // The older values' arguments, inserted at their final places in ascending order (the
        // induction variable is argument 0).
        for (&width, &at) in widths.iter().zip(&newest) {
            for k in 1..width {
                mlirBlockInsertArgument(body, (1 + at + k) as isize, types[at], location);
            }
        }
        let argument = |position: usize| mlirBlockGetArgument(body, 1 + position as isize);
        let mut yields = Vec::with_capacity(types.len());
        for ((&width, &at), &new) in widths.iter().zip(&newest).zip(&old_yields) {
            // The old uses read the oldest value; the newest yields the new one, each older one
            // the one before it.
            if width > 1 {
                mlirValueReplaceAllUsesOfWith(argument(at), argument(at + width - 1));
            }
            yields.push(new);
            yields.extend((0..width - 1).map(|k| argument(at + k)));
        }
        mlirOperationSetOperands(yield_op, yields.len() as isize, yields.as_ptr());
        let mut state = mlirOperationStateGet(mlirIdentifierStr(mlirOperationGetName(for_op)), location);
        mlirOperationStateAddOperands(&mut state, operands.len() as isize, operands.as_ptr());
        mlirOperationStateAddResults(&mut state, types.len() as isize, types.as_ptr());
        let attributes: Vec<MlirNamedAttribute> =
            (0..mlirOperationGetNumAttributes(for_op)).map(|k| mlirOperationGetAttribute(for_op, k)).collect();
        mlirOperationStateAddAttributes(&mut state, attributes.len() as isize, attributes.as_ptr());
        let new_region = mlirRegionCreate();
        mlirOperationStateAddOwnedRegions(&mut state, 1, &new_region);
        let new_loop = mlirOperationCreate(&mut state);
        mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(for_op), for_op, new_loop);
        mlirRegionTakeBody(mlirOperationGetRegion(new_loop, 0), region);
        for (i, position) in newest.iter().enumerate() {
            let result = mlirOperationGetResult(new_loop, *position as isize);
            mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(for_op, i as isize), result);
        }
        mlirOperationDestroy(for_op);
        new_loop
    }
}

/// Moves `op` (an op of an `scf.for`'s body) to the end of the body, just before its
/// `scf.yield`, and makes each of its uses it then follows (all but the yield's) read the
/// iteration argument its result is yielded into: the value of the iteration before. So the
/// ops before it that used its result now follow it one iteration later, as a pipeline's stage
/// moved back. The yield must yield each result of `op` that something else uses; an error
/// says which result is not.
///
/// ```mlir
/// scf.for %i = ... iter_args(%last = %init) -> (i32) {
///   %d = "drain"(%last) : (i32) -> i32
///   "use"(%d) : (i32) -> ()
///   scf.yield %d : i32
/// }
/// // sunk:
/// scf.for %i = ... iter_args(%last = %init) -> (i32) {
///   "use"(%last) : (i32) -> ()
///   %d = "drain"(%last) : (i32) -> i32
///   scf.yield %d : i32
/// }
/// ```
///
/// # Safety
/// `op` must be live, directly in the body of a live `scf.for`.
pub unsafe fn sink_to_yield(op: MlirOperation) -> Result<(), crate::Error> {
    // SAFETY: the caller's contract; nothing changes until every result is checked.
    unsafe {
        let body = mlirOperationGetBlock(op);
        let yield_op = mlirBlockGetTerminator(body);
        let loop_op = mlirBlockGetParentOperation(body);
        if name(loop_op) != "scf.for" || name(yield_op) != "scf.yield" {
            return Err(crate::Error::Invalid("it is not in the body of an scf.for".into()));
        }
        let yielded: Vec<MlirValue> =
            (0..mlirOperationGetNumOperands(yield_op)).map(|k| mlirOperationGetOperand(yield_op, k)).collect();
        let mut carried = Vec::new();
        for r in 0..mlirOperationGetNumResults(op) {
            let result = mlirOperationGetResult(op, r);
            let at = yielded.iter().position(|v| mlirValueEqual(*v, result));
            match at {
                Some(k) => carried.push((result, mlirBlockGetArgument(body, 1 + k as isize))),
                None if mlirValueGetFirstUse(result).ptr.is_null() => {}
                None => {
                    return Err(crate::Error::Invalid(format!(
                        "its result #{r} is used but not yielded, so not carried"
                    )));
                }
            }
        }
        mlirOperationMoveBefore(op, yield_op);
        let mut except = [yield_op];
        for (result, argument) in carried {
            mlirValueReplaceAllUsesExcept(result, argument, 1, except.as_mut_ptr());
        }
        Ok(())
    }
}

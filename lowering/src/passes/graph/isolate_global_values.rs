//! `umac-isolate-global-values`: copies the tensors that MLIR 22's bufferization of `ml_program`
//! globals would otherwise get wrong (a model's state: TOSA variables, TFLite's variable tensors).
//!
//! `one-shot-bufferize` turns `ml_program.global_load` into the global's own buffer
//! (`memref.get_global`, no copy) and `ml_program.global_store` into a copy into it, but its
//! analysis sees neither as touching the global, and counts a store as writing its operand, not
//! reading it:
//! - a loaded value read after a store to its global would read the stored bytes. Such a load
//!   gets a copy right after it, which every reader uses;
//! - the stored value's buffer may be overwritten in place by another reader of it (an
//!   elementwise op reusing it as its output) before the store copies it; when it is read after
//!   the store, or cannot be written (a constant, what canonicalization folds to one, a loaded
//!   global, a select of them), the store gets a fresh, uninitialized buffer instead. So every
//!   store stores a copy of its own, but the result of a loop computed for it alone (an LSTM's
//!   state, carried through its time loop from the loaded value: bufferization writes the loop's
//!   buffers in place, copying the loaded value first).
//!
//! ```mlir
//! %s = ml_program.global_load @state : tensor<4xi32>
//! ml_program.global_store @state = %x : tensor<4xi32>
//! %y = tosa.add %s, %x ...                 // reads %s and %x after the store
//! // becomes
//! %s = ml_program.global_load @state : tensor<4xi32>
//! %0 = bufferization.alloc_tensor() copy(%s) : tensor<4xi32>
//! %1 = bufferization.alloc_tensor() copy(%x) : tensor<4xi32>
//! ml_program.global_store @state = %1 : tensor<4xi32>
//! %y = tosa.add %0, %x ...
//! ```
//! Loads and stores are compared within one function; a store or a reader in another block than
//! the load or store it is compared with counts as coming after it. A stored value that already
//! is a copy made for its store keeps it (the pass can run again).

use crate::{
    Error,
    pass::{UmacPass, boxed},
    registry::{PassInfo, PassKind},
};
use melior::ir::OperationRef;
use mlir_sys::*;
use umac_dialects::{
    ir::{attribute, build, collect, name, op_name, producer},
    text::string_from,
};

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    name: "umac-isolate-global-values",
    summary: "Copy a loaded global read after a store to it, and give each store a copy of its own \
              (what MLIR 22's ml_program bufferization assumes away)",
    anchor: "builtin.module",
    options: &[],
    kind: PassKind::Pass(|_| boxed(IsolateGlobalValues)),
};

struct IsolateGlobalValues;

impl UmacPass for IsolateGlobalValues {
    fn run(&mut self, operation: OperationRef) -> Result<(), Error> {
        let stores = collect(operation, |op| op_name(op) == "ml_program.global_store");
        if stores.is_empty() {
            return Ok(());
        }
        let loads = collect(operation, |op| op_name(op) == "ml_program.global_load");
        // SAFETY: the loads and stores are live ops of the module; every op built is inserted
        // into a block of it, and its operand is a live value there.
        unsafe {
            for load in loads {
                let value = mlirOperationGetResult(load, 0);
                let global = global_of(load);
                let function = top_level(load);
                let readers = readers(value);
                let overwritten = stores.iter().any(|&store| {
                    global_of(store) == global
                        && top_level(store).ptr == function.ptr
                        && !before(store, load)
                        && readers.iter().any(|&reader| !before(reader, store))
                });
                if overwritten {
                    let mut copy = copy_of(value, load);
                    mlirBlockInsertOwnedOperationAfter(mlirOperationGetBlock(load), load, copy);
                    mlirValueReplaceAllUsesExcept(value, mlirOperationGetResult(copy, 0), 1, &mut copy);
                }
            }
            for &store in &stores {
                let value = mlirOperationGetOperand(store, 0);
                let alone = readers(value).len() == 1;
                let own = producer(value)
                    .is_some_and(|p| alone && matches!(name(p).as_str(), "scf.for" | "bufferization.alloc_tensor"));
                if !own {
                    let copy = copy_of(value, store);
                    mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(store), store, copy);
                    mlirOperationSetOperand(store, 0, mlirOperationGetResult(copy, 0));
                }
            }
        }
        Ok(())
    }
}

/// The symbol a `global_load` or `global_store` refers to.
///
/// # Safety
/// `op` is live.
unsafe fn global_of(op: MlirOperation) -> Option<String> {
    // SAFETY: the caller's contract; `global` is a symbol reference on both ops (verified).
    unsafe {
        attribute(op, "global")
            .filter(|a| mlirAttributeIsASymbolRef(*a))
            .map(|a| string_from(mlirSymbolRefAttrGetRootReference(a)))
    }
}

/// The op of the module's body (the function) that is or holds `op`.
///
/// # Safety
/// `op` is live.
unsafe fn top_level(mut op: MlirOperation) -> MlirOperation {
    // SAFETY: the caller's contract; parents of live ops are live.
    unsafe {
        loop {
            let parent = mlirBlockGetParentOperation(mlirOperationGetBlock(op));
            if parent.ptr.is_null() || mlirOperationGetBlock(parent).ptr.is_null() {
                return op;
            }
            op = parent;
        }
    }
}

/// The op of `block` that is or holds `op`, if any.
///
/// # Safety
/// `op` and `block` are live.
unsafe fn ancestor_in(mut op: MlirOperation, block: MlirBlock) -> Option<MlirOperation> {
    // SAFETY: the caller's contract; parents of live ops are live.
    unsafe {
        loop {
            let parent_block = mlirOperationGetBlock(op);
            if parent_block.ptr.is_null() {
                return None;
            }
            if parent_block.ptr == block.ptr {
                return Some(op);
            }
            op = mlirBlockGetParentOperation(parent_block);
            if op.ptr.is_null() {
                return None;
            }
        }
    }
}

/// Whether `a` (or the op holding it) certainly runs before `b`: in `b`'s block, before it.
///
/// # Safety
/// Both ops are live.
unsafe fn before(a: MlirOperation, b: MlirOperation) -> bool {
    // SAFETY: the caller's contract.
    unsafe {
        match ancestor_in(a, mlirOperationGetBlock(b)) {
            Some(holder) => holder.ptr != b.ptr && mlirOperationIsBeforeInBlock(holder, b),
            None => false,
        }
    }
}

/// Ops whose result is a view of their first operand's buffer after bufferization.
const VIEWS: [&str; 7] = [
    "tosa.reshape",
    "tosa.slice",
    "tensor.reshape",
    "tensor.expand_shape",
    "tensor.collapse_shape",
    "tensor.extract_slice",
    "tensor.cast",
];

/// Whether `op` is a view of its first operand.
///
/// # Safety
/// `op` is live.
unsafe fn is_view(op: MlirOperation) -> bool {
    // SAFETY: the caller's contract.
    VIEWS.contains(&unsafe { name(op) }.as_str())
}

/// The ops that read `value` or a view of it (not the views themselves).
///
/// # Safety
/// `value` is live.
unsafe fn readers(value: MlirValue) -> Vec<MlirOperation> {
    // SAFETY: the caller's contract; the uses of a live value are live.
    unsafe {
        let (mut found, mut pending) = (Vec::new(), vec![value]);
        while let Some(value) = pending.pop() {
            let mut usage = mlirValueGetFirstUse(value);
            while !mlirOpOperandIsNull(usage) {
                let user = mlirOpOperandGetOwner(usage);
                usage = mlirOpOperandGetNextUse(usage);
                if is_view(user) && mlirOperationGetOperand(user, 0).ptr == value.ptr {
                    pending.push(mlirOperationGetResult(user, 0));
                } else {
                    found.push(user);
                }
            }
        }
        found
    }
}

/// A detached `bufferization.alloc_tensor() copy(value)`, located at `at`.
///
/// # Safety
/// `value` and `at` are live, in one context.
unsafe fn copy_of(value: MlirValue, at: MlirOperation) -> MlirOperation {
    // SAFETY: the caller's contract.
    unsafe {
        let context = mlirOperationGetContext(at);
        let segments = [0i32, 1, 0];
        let sizes = mlirDenseI32ArrayGet(context, 3, segments.as_ptr());
        build(
            "bufferization.alloc_tensor",
            mlirOperationGetLocation(at),
            &[value],
            &[mlirValueGetType(value)],
            &[("operandSegmentSizes", sizes)],
        )
    }
}

//! `umac-outline-operators`: the AOT executor's shape. Every computing top-level op of a public
//! function (a loop nest, a linalg op, a copy) moves into its own private function
//! `@<function>_op<k>_<kind>`, and the public function becomes the executor: a straight list of
//! calls in execution order, on buffers planned by `umac-plan-memory`.
//!
//! Each operator function takes the buffers it touches as arguments (identity-layout memrefs,
//! so they stay single pointers) and scalars computed outside; constants (`arith.constant`,
//! `memref.get_global`) and strided views of arguments are rebuilt inside it, so the code
//! generator sees the weights' addresses and the views' strides as constants.
//!
//! Arguments that no other argument of the call can overlap are `llvm.noalias`: distinct buffers
//! (the entry's inputs, outputs and workspace, which the caller must not overlap) or disjoint
//! byte ranges of one (the planned `memref.view`s of the workspace: buffers alive in the same
//! operator never overlap). So LLVM moves a load out of a loop that stores to another buffer
//! (the input vectors of a pixel out of the loop over its output channels).
//! ```mlir
//! func.func @main(%in: memref<8xi8>, %out: memref<8xi8>) {
//!   linalg.generic ... ins(%in) outs(%out)
//! }
//! // becomes
//! func.func @main(%in: memref<8xi8>, %out: memref<8xi8>) {
//!   call @main_op0_generic(%in, %out) : (memref<8xi8>, memref<8xi8>) -> ()
//! }
//! func.func private @main_op0_generic(%arg0: memref<8xi8> {llvm.noalias}, %arg1: memref<8xi8> {llvm.noalias}) {
//!   linalg.generic ...
//! }
//! ```

use crate::{
    Error,
    linalg_kinds::accumulating_kind,
    pass::{UmacPass, boxed},
    registry::{PassInfo, PassKind},
};
use melior::ir::{
    OperationRef,
    operation::{OperationLike, WalkOrder, WalkResult},
};
use mlir_sys::*;
use std::collections::HashMap;
use umac_dialects::{
    ir::{
        CONTROL_FLOW_OPS, VIEW_OPS, build, constant_int, defined_inside, function_type_get, has_body, identity_layout,
        is_private, name, op_name, private_function, static_memref_bits, symbol_name, views_bytes,
    },
    text::str_ref,
};

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    name: "umac-outline-operators",
    summary: "Move each computing top-level op of a public function into its own function (the AOT executor's calls)",
    anchor: "builtin.module",
    options: &[],
    kind: PassKind::Pass(|_| boxed(OutlineOperators)),
};

struct OutlineOperators;

impl UmacPass for OutlineOperators {
    fn run(&mut self, operation: OperationRef) -> Result<(), Error> {
        let functions: Vec<(MlirOperation, String)> = umac_dialects::ir::top_level_ops(operation)
            .into_iter()
            .filter(|op| op_name(op) == "func.func" && !is_private(op) && has_body(op))
            .map(|op| (op.to_raw(), symbol_name(&op).unwrap_or_default()))
            .collect();
        for (function, symbol) in functions {
            // SAFETY: the module is live and owned by the pass manager for this run; the pass only
            // moves ops between functions of this module and creates new ones in it.
            unsafe { outline_function(operation.to_raw(), function, &symbol) };
        }
        Ok(())
    }
}

/// # Safety
/// `module` and `function` must be live; `function` is a child of `module`.
unsafe fn outline_function(module: MlirOperation, function: MlirOperation, name: &str) {
    unsafe {
        let block = mlirRegionGetFirstBlock(mlirOperationGetRegion(function, 0));
        let (mut candidates, mut blocks) = (Vec::new(), Vec::new());
        computing_ops(block, &mut candidates, &mut blocks);
        let mut insert_after = function;
        for (index, op) in candidates.into_iter().enumerate() {
            let symbol = format!("{name}_op{index}_{}", kind(op));
            insert_after = outline(module, insert_after, op, &symbol);
        }
        for block in blocks {
            erase_dead_rebuilt(block);
        }
    }
}

/// The computing ops of `block` in order, with those inside its control flow in their place, and
/// `block` and the blocks of that control flow.
///
/// # Safety
/// `block` must be live.
unsafe fn computing_ops(block: MlirBlock, candidates: &mut Vec<MlirOperation>, blocks: &mut Vec<MlirBlock>) {
    unsafe {
        blocks.push(block);
        let mut op = mlirBlockGetFirstOperation(block);
        while !op.ptr.is_null() {
            // The model's control flow stays in the executor; its operators are outlined in place.
            if CONTROL_FLOW_OPS.contains(&name(op).as_str()) {
                for r in 0..mlirOperationGetNumRegions(op) {
                    let mut inner = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, r));
                    while !inner.ptr.is_null() {
                        computing_ops(inner, candidates, blocks);
                        inner = mlirBlockGetNextInRegion(inner);
                    }
                }
            } else if computes(op) {
                candidates.push(op);
            }
            op = mlirOperationGetNextInBlock(op);
        }
    }
}

/// Erases the constants and views the operator functions now rebuild for themselves.
///
/// # Safety
/// `block` must be live.
unsafe fn erase_dead_rebuilt(block: MlirBlock) {
    unsafe {
        loop {
            let mut dead = Vec::new();
            let mut op = mlirBlockGetFirstOperation(block);
            while !op.ptr.is_null() {
                let results = mlirOperationGetNumResults(op);
                let unused = (0..results).all(|i| mlirValueGetFirstUse(mlirOperationGetResult(op, i)).ptr.is_null());
                if results > 0 && unused && rebuilt_inside(mlirOperationGetResult(op, 0)) {
                    dead.push(op);
                }
                op = mlirOperationGetNextInBlock(op);
            }
            if dead.is_empty() {
                return;
            }
            for op in dead {
                mlirOperationDestroy(op);
            }
        }
    }
}

/// Ops that do work (as opposed to constants, views and the terminator).
///
/// # Safety
/// `op` must be live.
unsafe fn computes(op: MlirOperation) -> bool {
    unsafe {
        let name = name(op);
        mlirOperationGetNumRegions(op) > 0 || name == "memref.copy" || name.starts_with("linalg.")
    }
}

/// A short name for what `op` computes: its main linalg op.
///
/// # Safety
/// `op` must be live.
unsafe fn kind(op: MlirOperation) -> String {
    // SAFETY: the caller's contract.
    let op = unsafe { OperationRef::from_raw(op) };
    let mut accumulating = None;
    let mut first_linalg = None;
    op.walk(WalkOrder::PreOrder, |nested| {
        let name = op_name(&nested);
        if accumulating.is_none() {
            accumulating = accumulating_kind(&nested);
        }
        if first_linalg.is_none() && name.starts_with("linalg.") && name != "linalg.yield" && name != "linalg.fill" {
            first_linalg = Some(name);
        }
        WalkResult::Advance
    });
    let name = accumulating.or(first_linalg).unwrap_or_else(|| op_name(&op));
    name.rsplit('.').next().unwrap_or("op").chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect()
}

/// Moves `op` into a new private function `symbol` placed after `after`, and calls it in its
/// place. Returns the new function.
///
/// # Safety
/// All ops must be live; `op` is a top-level op of a function of `module`.
unsafe fn outline(module: MlirOperation, after: MlirOperation, op: MlirOperation, symbol: &str) -> MlirOperation {
    unsafe {
        let context = mlirOperationGetContext(op);
        let location = mlirOperationGetLocation(op);
        // Values defined outside `op` and used inside it, in first-use order.
        let mut captured: Vec<MlirValue> = Vec::new();
        OperationRef::from_raw(op).walk(WalkOrder::PreOrder, |nested| {
            let raw = nested.to_raw();
            for i in 0..mlirOperationGetNumOperands(raw) {
                let value = mlirOperationGetOperand(raw, i);
                if !defined_inside(value, op) && !captured.iter().any(|v| mlirValueEqual(*v, value)) {
                    captured.push(value);
                }
            }
            WalkResult::Advance
        });
        let block = mlirBlockCreate(0, std::ptr::null(), std::ptr::null());
        let mut map: HashMap<usize, MlirValue> = HashMap::new();
        let mut arguments: Vec<MlirValue> = Vec::new();
        let mut prologue: Vec<MlirOperation> = Vec::new();
        for &value in &captured {
            resolve(value, block, &mut map, &mut arguments, &mut prologue);
        }
        for clone in &prologue {
            mlirBlockAppendOwnedOperation(block, *clone);
        }
        let ret = build("func.return", location, &[], &[], &[]);
        mlirBlockAppendOwnedOperation(block, ret);

        let argument_types: Vec<MlirType> = arguments.iter().map(|v| mlirValueGetType(*v)).collect();
        let function_type = function_type_get(context, &argument_types, &[]);
        let argument_attributes = noalias_attributes(context, &arguments);
        let function =
            private_function(symbol, function_type, Some(block), location, &[("arg_attrs", argument_attributes)]);
        let module_body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
        mlirBlockInsertOwnedOperationAfter(module_body, after, function);

        // The call, in the op's place; then the op moves into the function.
        let callee = mlirFlatSymbolRefAttrGet(context, str_ref(symbol));
        let call = build("func.call", location, &arguments, &[], &[("callee", callee)]);
        mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(op), op, call);
        mlirOperationMoveBefore(op, ret);
        let mut nested_ops = Vec::new();
        OperationRef::from_raw(op).walk(WalkOrder::PreOrder, |nested| {
            nested_ops.push(nested.to_raw());
            WalkResult::Advance
        });
        for nested in nested_ops.into_iter().chain(prologue) {
            for i in 0..mlirOperationGetNumOperands(nested) {
                let value = mlirOperationGetOperand(nested, i);
                if let Some(new) = map.get(&(value.ptr as usize)) {
                    mlirOperationSetOperand(nested, i, *new);
                }
            }
        }
        function
    }
}

/// Maps an outside value to its stand-in inside the new function: a clone of a constant, a
/// clone of a strided view (whose operands are resolved in turn), or a new argument.
///
/// # Safety
/// `value` and `block` must be live.
unsafe fn resolve(
    value: MlirValue,
    block: MlirBlock,
    map: &mut HashMap<usize, MlirValue>,
    arguments: &mut Vec<MlirValue>,
    prologue: &mut Vec<MlirOperation>,
) -> MlirValue {
    unsafe {
        if let Some(existing) = map.get(&(value.ptr as usize)) {
            return *existing;
        }
        let new = if mlirValueIsAOpResult(value) && rebuilt_inside(value) {
            let owner = mlirOpResultGetOwner(value);
            for i in 0..mlirOperationGetNumOperands(owner) {
                resolve(mlirOperationGetOperand(owner, i), block, map, arguments, prologue);
            }
            let clone = mlirOperationClone(owner);
            prologue.push(clone);
            mlirOperationGetResult(clone, mlirOpResultGetResultNumber(value))
        } else {
            arguments.push(value);
            mlirBlockAddArgument(block, mlirValueGetType(value), mlirValueGetLocation(value))
        };
        map.insert(value.ptr as usize, new);
        new
    }
}

/// Constants, scalar stack slots (registers after LLVM's SROA), and views whose type a bare
/// pointer cannot carry.
///
/// # Safety
/// `value` must be an op result.
unsafe fn rebuilt_inside(value: MlirValue) -> bool {
    unsafe {
        let owner = mlirOpResultGetOwner(value);
        match name(owner).as_str() {
            "arith.constant" | "memref.get_global" | "ub.poison" | "memref.alloca" => true,
            view if views_bytes(view) => !identity_layout(mlirValueGetType(value)),
            _ => false,
        }
    }
}

/// A buffer (the value all views of it start from) and the bytes of it a view may reach, if known.
type Extent = (usize, Option<(i64, i64)>);

/// The buffer a memref value views and the bytes of it the view may reach: through views to a
/// block argument or an op that is not a view, with the byte range of a `memref.view` at a
/// constant offset on the way (the whole buffer otherwise). `None` when the buffer is a block
/// argument of control flow (a loop's carried buffer), which may be any buffer.
///
/// # Safety
/// `value` must be live.
unsafe fn extent(value: MlirValue) -> Option<Extent> {
    unsafe {
        let mut value = value;
        let mut range = None;
        while mlirValueIsAOpResult(value) {
            let owner = mlirOpResultGetOwner(value);
            match name(owner).as_str() {
                "memref.view" => {
                    let offset = constant_int(mlirOperationGetOperand(owner, 1));
                    let ty = mlirValueGetType(value);
                    let bytes = static_memref_bits(ty).map(|(elements, bits)| elements * ((bits + 7) / 8));
                    range = offset.zip(bytes).map(|(offset, bytes)| (offset, offset + bytes));
                }
                view if VIEW_OPS.contains(&view) => {}
                _ => break,
            }
            value = mlirOperationGetOperand(owner, 0);
        }
        if mlirValueIsABlockArgument(value) {
            let block = mlirBlockArgumentGetOwner(value);
            let holder = mlirBlockGetParentOperation(block);
            if !holder.ptr.is_null() && name(holder) != "func.func" {
                return None;
            }
        }
        Some((value.ptr as usize, range))
    }
}

/// The operator function's `arg_attrs`: `{llvm.noalias}` on each memref argument whose extent
/// ([`extent`]) no other memref argument's can overlap.
///
/// # Safety
/// The values must be live.
unsafe fn noalias_attributes(context: MlirContext, arguments: &[MlirValue]) -> MlirAttribute {
    unsafe {
        let memref = |v: &MlirValue| mlirTypeIsAMemRef(mlirValueGetType(*v));
        // Per argument: not a memref (`None`), a memref of unknown buffer (`Some(None)`), or its extent.
        let extents: Vec<Option<Option<Extent>>> = arguments.iter().map(|v| memref(v).then(|| extent(*v))).collect();
        let disjoint = |a: Extent, b: Extent| match (a, b) {
            ((x, _), (y, _)) if x != y => true,
            ((_, Some((a0, a1))), (_, Some((b0, b1)))) => a1 <= b0 || b1 <= a0,
            _ => false,
        };
        let entries: Vec<&str> = extents
            .iter()
            .enumerate()
            .map(|(i, mine)| {
                let alone = mine.flatten().is_some_and(|mine| {
                    extents.iter().enumerate().all(|(j, other)| {
                        i == j || other.is_none_or(|other| other.is_some_and(|other| disjoint(mine, other)))
                    })
                });
                if alone { "{llvm.noalias}" } else { "{}" }
            })
            .collect();
        let text = format!("[{}]", entries.join(", "));
        mlirAttributeParseGet(context, str_ref(&text))
    }
}

//! The workspace plan as `metadata.json` and the HTML report show it: every buffer the executor
//! carves out of the workspace (a `memref.view` at a constant offset), its bytes, and the
//! operators using it, read from the executor after `umac-plan-memory` and
//! `umac-outline-operators`.

use super::operators::operator_call;
use melior::ir::Module;
use mlir_sys::*;
use std::collections::HashMap;
use umac_dialects::ir::{body_ops, constant_int, find_function, name, static_memref_bits, type_text};
use umac_dialects::umac::POOL_SIZES_ATTR;

/// One buffer of the workspace.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct PlannedBuffer {
    /// Its index, in the executor's order.
    pub id: usize,
    /// Its memory pool (an index into `--pool`'s pools; 0 for the one workspace).
    #[serde(skip)]
    pub pool: usize,
    /// Its offset in the workspace.
    pub offset: u64,
    /// Its bytes.
    pub bytes: u64,
    /// The first and last operators using it (ids as in `operators`).
    pub first_op: usize,
    pub last_op: usize,
    /// Every operator using it, in order.
    pub ops: Vec<usize>,
    /// Its type (`memref<1x25x5x64xi8>`).
    #[serde(rename = "type")]
    pub ty: String,
}

/// The buffers the executor `name` places in its workspace and passes to operators, in order.
pub fn planned_buffers(module: &Module, name_: &str) -> Vec<PlannedBuffer> {
    let Some(executor) = find_function(module.as_operation(), name_) else {
        return vec![];
    };
    let pools = pool_sizes(module, name_).len().max(1);
    // SAFETY: the function is alive; its type is read, not changed.
    let (arguments, _) = unsafe { umac_dialects::ir::function_type(executor.to_raw()) };
    let first_workspace = arguments.len().saturating_sub(pools);
    let mut buffers: Vec<PlannedBuffer> = Vec::new();
    // Which buffer a value is (a view, or a reshaped view).
    let mut of: HashMap<usize, usize> = HashMap::new();
    let mut op_index = 0;
    // SAFETY: the module is alive and not modified while its ops and values are read.
    unsafe {
        for op in body_ops(executor.to_raw()) {
            let kind = name(op);
            let operand = |i: isize| mlirOperationGetOperand(op, i);
            match kind.as_str() {
                "memref.view" if mlirValueIsABlockArgument(operand(0)) => {
                    // The workspace arguments (one per pool) follow the inputs and outputs.
                    let argument = mlirBlockArgumentGetArgNumber(operand(0)) as usize;
                    let result = mlirOperationGetResult(op, 0);
                    let ty = mlirValueGetType(result);
                    let (Some(offset), Some((elements, bits))) = (constant_int(operand(1)), static_memref_bits(ty))
                    else {
                        continue;
                    };
                    of.insert(result.ptr as usize, buffers.len());
                    buffers.push(PlannedBuffer {
                        id: buffers.len(),
                        pool: argument.saturating_sub(first_workspace),
                        offset: offset.max(0) as u64,
                        bytes: (elements * bits / 8).max(0) as u64,
                        first_op: usize::MAX,
                        last_op: 0,
                        ops: Vec::new(),
                        ty: type_text(ty),
                    });
                }
                "memref.collapse_shape"
                | "memref.expand_shape"
                | "memref.cast"
                | "memref.subview"
                | "memref.reinterpret_cast" => {
                    if let Some(&buffer) = of.get(&(operand(0).ptr as usize)) {
                        of.insert(mlirOperationGetResult(op, 0).ptr as usize, buffer);
                    }
                }
                "func.call" => {
                    if operator_call(&melior::ir::OperationRef::from_raw(op), name_).is_none() {
                        continue;
                    }
                    for i in 0..mlirOperationGetNumOperands(op) {
                        if let Some(&buffer) = of.get(&(operand(i).ptr as usize)) {
                            let b = &mut buffers[buffer];
                            b.first_op = b.first_op.min(op_index);
                            b.last_op = b.last_op.max(op_index);
                            if b.ops.last() != Some(&op_index) {
                                b.ops.push(op_index);
                            }
                        }
                    }
                    op_index += 1;
                }
                _ => {}
            }
        }
    }
    // Views no operator uses are not buffers.
    buffers.retain(|b| b.first_op != usize::MAX);
    for (id, buffer) in buffers.iter_mut().enumerate() {
        buffer.id = id;
    }
    buffers
}

/// The bytes each memory pool takes (`umac.pool_sizes`, written by `umac-plan-memory{pools}`), in
/// the order of the workspace parameters; empty for one workspace.
pub fn pool_sizes(module: &Module, name: &str) -> Vec<u64> {
    let Some(executor) = find_function(module.as_operation(), name) else {
        return vec![];
    };
    // SAFETY: the function is alive; the attribute is read after its kind check.
    unsafe {
        let Some(sizes) = umac_dialects::ir::attribute(executor.to_raw(), POOL_SIZES_ATTR) else {
            return vec![];
        };
        umac_dialects::ir::i64_array(sizes).unwrap_or_default().into_iter().map(|s| s.max(0) as u64).collect()
    }
}

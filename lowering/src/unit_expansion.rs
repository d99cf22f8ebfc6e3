//! What `umac-recompute-elementwise` and `umac-narrow-reduction-inputs` share about tensors on
//! their way between linalg ops: expansions that only add unit dimensions (which fusion looks
//! through), a value's uses, a tensor's bytes.

use mlir_sys::*;
use umac_dialects::ir::{attribute, element_type, name, scalar_bits, static_tensor_shape};

/// For a `tensor.expand_shape` that only adds unit dimensions, each source dimension's group of
/// result dimensions (as the reassociation gives them).
///
/// # Safety
/// `op` must be live.
pub(crate) unsafe fn unit_expansion(op: MlirOperation) -> Option<Vec<Vec<usize>>> {
    unsafe {
        if name(op) != "tensor.expand_shape" {
            return None;
        }
        let source = static_tensor_shape(mlirValueGetType(mlirOperationGetOperand(op, 0)))?;
        let result = static_tensor_shape(mlirValueGetType(mlirOperationGetResult(op, 0)))?;
        let groups = attribute(op, "reassociation")?;
        let groups: Vec<Vec<usize>> = (0..mlirArrayAttrGetNumElements(groups))
            .map(|g| {
                let group = mlirArrayAttrGetElement(groups, g);
                (0..mlirArrayAttrGetNumElements(group))
                    .map(|k| mlirIntegerAttrGetValueInt(mlirArrayAttrGetElement(group, k)) as usize)
                    .collect()
            })
            .collect();
        // Each group keeps its source dimension's size in one result dimension, the others 1.
        let units = groups.len() == source.len()
            && groups.iter().zip(&source).all(|(group, size)| {
                group.iter().filter(|d| result.get(**d) != Some(&1)).count() <= 1
                    && group.iter().map(|d| result.get(*d).copied().unwrap_or(0)).product::<i64>() == *size
            });
        units.then_some(groups)
    }
}

/// For each group of a unit expansion ([`unit_expansion`]) of a tensor into `shape`: the result
/// dimension that keeps the source dimension's size (the last of a group of units).
pub(crate) fn kept_dimensions(groups: &[Vec<usize>], shape: &[i64]) -> Vec<usize> {
    groups
        .iter()
        .map(|group| *group.iter().rev().find(|d| shape[**d] != 1).unwrap_or(&group[group.len() - 1]))
        .collect()
}

/// The uses of `value`: (owner, operand position).
///
/// # Safety
/// `value` must be live.
pub(crate) unsafe fn uses(value: MlirValue) -> Vec<(MlirOperation, isize)> {
    unsafe {
        let mut found = Vec::new();
        let mut operand = mlirValueGetFirstUse(value);
        while !mlirOpOperandIsNull(operand) {
            found.push((mlirOpOperandGetOwner(operand), mlirOpOperandGetOperandNumber(operand) as isize));
            operand = mlirOpOperandGetNextUse(operand);
        }
        found
    }
}

/// The bytes of a statically shaped tensor of integers or floats (an element of fewer than 8
/// bits takes a byte).
pub(crate) fn bytes(value: MlirValue) -> Option<i64> {
    // SAFETY: the value and its type are live.
    let ty = unsafe { mlirValueGetType(value) };
    let bits = scalar_bits(element_type(ty))?;
    Some(static_tensor_shape(ty)?.iter().product::<i64>() * ((bits + 7) / 8).max(1))
}

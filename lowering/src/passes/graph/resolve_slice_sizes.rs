//! `umac-resolve-slice-sizes`: replaces `-1` ("to the end") in the size operand of every
//! `tosa.slice` whose input is static by the size it stands for. MLIR 22's `tosa-to-tensor` turns
//! a `-1` size into a dynamic `tensor.extract_slice` size even when shape inference made the
//! result static, which then fails to verify.
//! ```mlir
//! %size = tosa.const_shape {values = dense<[1, -1]> : tensor<2xindex>} : () -> !tosa.shape<2>
//! %y = tosa.slice %x, %start, %size : (tensor<1x10xi8>, ...)      // %start = [0, 4]
//! // the slice then reads a new tosa.const_shape of [1, 6]
//! ```

use crate::{
    Error,
    pass::{UmacPass, boxed},
    registry::{PassInfo, PassKind},
};
use melior::ir::{Identifier, Location, OperationRef, operation::OperationBuilder};
use mlir_sys::*;
use umac_dialects::ir::{attribute, collect, op_name, produced_by, with_context};

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    name: "umac-resolve-slice-sizes",
    summary: "Replace -1 sizes of tosa.slice over static inputs by the sizes they stand for",
    anchor: "any",
    options: &[],
    kind: PassKind::Pass(|_| boxed(ResolveSliceSizes)),
};

struct ResolveSliceSizes;

impl UmacPass for ResolveSliceSizes {
    fn run(&mut self, operation: OperationRef) -> Result<(), Error> {
        with_context(&operation, |context| resolve(context, operation))
    }
}

/// Resolves the slices under `operation`.
fn resolve(context: &melior::Context, operation: OperationRef) -> Result<(), Error> {
    for raw in collect(operation, |op| op_name(op) == "tosa.slice") {
        // SAFETY: the slices are alive in the module; operands and their producers are read
        // before a new const_shape is inserted in front of the slice and becomes its operand.
        unsafe {
            let input = mlirValueGetType(mlirOperationGetOperand(raw, 0));
            let (start, size) = (mlirOperationGetOperand(raw, 1), mlirOperationGetOperand(raw, 2));
            let (Some(start), Some(size)) = (const_shape_values(start), const_shape_values(size)) else {
                continue;
            };
            if !size.contains(&-1) || !mlirTypeIsARankedTensor(input) || !mlirShapedTypeHasStaticShape(input) {
                continue;
            }
            let resolved: Vec<i64> = size
                .iter()
                .enumerate()
                .map(|(i, &s)| {
                    if s == -1 {
                        mlirShapedTypeGetDimSize(input, i as isize) - start.get(i).copied().unwrap_or(0)
                    } else {
                        s
                    }
                })
                .collect();
            let text = format!(
                "dense<[{}]> : tensor<{}xindex>",
                resolved.iter().map(i64::to_string).collect::<Vec<_>>().join(", "),
                resolved.len()
            );
            let internal = |what: &str| Error::Internal(format!("cannot build {what}"));
            let values = melior::ir::Attribute::parse(context, &text).ok_or_else(|| internal("a tosa.const_shape"))?;
            let shape_type = melior::ir::Type::parse(context, &format!("!tosa.shape<{}>", resolved.len()))
                .ok_or_else(|| internal("a !tosa.shape type"))?;
            let location = Location::from_raw(mlirOperationGetLocation(raw));
            let op = OperationBuilder::new("tosa.const_shape", location)
                .add_attributes(&[(Identifier::new(context, "values"), values)])
                .add_results(&[shape_type])
                .build()
                .map_err(|e| Error::Internal(e.to_string()))?;
            let op = op.into_raw();
            mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(raw), raw, op);
            mlirOperationSetOperand(raw, 2, mlirOperationGetResult(op, 0));
        }
    }
    Ok(())
}

/// The values of a `tosa.const_shape` result.
///
/// # Safety
/// `value` must be alive.
unsafe fn const_shape_values(value: MlirValue) -> Option<Vec<i64>> {
    // SAFETY: caller's contract; the attribute is read after its kind check.
    unsafe {
        let values = attribute(produced_by(value, "tosa.const_shape")?, "values")?;
        mlirAttributeIsADenseIntElements(values).then(|| {
            (0..mlirElementsAttrGetNumElements(values))
                .map(|i| mlirDenseElementsAttrGetInt64Value(values, i as isize))
                .collect()
        })
    }
}

//! `umac-set-entry-shapes{entry=main shapes=2x49x10x1}`: gives the entry function's tensor
//! arguments static shapes, one per argument (`,`-separated, dimensions `x`-separated): a dynamic
//! dimension takes the size given, a static one must equal it. TOSA ops take the refined
//! arguments as they are; any other user gets a `tensor.cast` back to the old type, so the IR
//! stays valid. Shape inference (`tosa-infer-shapes`, see `umac-specialize-entry`) then
//! propagates the new types.
//! ```mlir
//! func.func @main(%x: tensor<?x49x10x1xi8>) -> tensor<?x12xi8>
//! // becomes, with shapes=2x49x10x1
//! func.func @main(%x: tensor<2x49x10x1xi8>) -> tensor<?x12xi8>
//! ```

use crate::{
    Error,
    entry::{ENTRY_OPTION, SHAPES_OPTION, find_entry},
    error::report,
    options::OptionValues,
    pass::{UmacPass, boxed},
    registry::{PassInfo, PassKind},
};
use melior::ir::{BlockLike, OperationRef, RegionLike, ValueLike, operation::OperationLike};
use mlir_sys::*;
use umac_dialects::ir::{build, function_type, name, set_function_type, type_text};

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    name: "umac-set-entry-shapes",
    summary: "Give the entry function's tensor arguments static shapes (dynamic dimensions take the sizes given)",
    anchor: "builtin.module",
    options: &[ENTRY_OPTION, SHAPES_OPTION],
    kind: PassKind::Pass(|options: &OptionValues| {
        boxed(SetEntryShapes { entry: options.string("entry").into(), shapes: parse_shapes(options.string("shapes"))? })
    }),
};

struct SetEntryShapes {
    entry: String,
    shapes: Vec<Vec<i64>>,
}

/// `2x49x10x1,1x4` → `[[2, 49, 10, 1], [1, 4]]` (an empty text: no arguments).
fn parse_shapes(text: &str) -> Result<Vec<Vec<i64>>, Error> {
    if text.trim().is_empty() {
        return Ok(vec![]);
    }
    text.split(',')
        .map(|shape| {
            shape
                .split('x')
                .map(|d| d.trim().parse::<i64>().ok().filter(|d| *d > 0))
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| {
                    Error::Invalid(format!("shapes: '{shape}' is not a shape like 1x49x10x1 (positive sizes)"))
                })
        })
        .collect()
}

impl UmacPass for SetEntryShapes {
    fn run(&mut self, operation: OperationRef) -> Result<(), Error> {
        let shapes = &self.shapes;
        let entry = find_entry(operation, &self.entry)?;
        let fail = |message: String| report(entry.location(), &format!("{}: {message}", INFO.name));
        let block = entry
            .region(0)
            .ok()
            .and_then(|r| r.first_block())
            .ok_or_else(|| fail(format!("@{} has no body", self.entry)))?;
        // SAFETY: the entry is a live func.func.
        let (inputs, results) = unsafe { function_type(entry.to_raw()) };
        if shapes.len() != inputs.len() {
            return Err(fail(format!(
                "{} shape(s) given for the {} argument(s) of @{}",
                shapes.len(),
                inputs.len(),
                self.entry
            )));
        }
        let mut new_inputs = Vec::new();
        for (i, (ty, shape)) in inputs.iter().zip(shapes).enumerate() {
            // SAFETY: the type is alive; it is read after the kind check, and the new type is
            // built in its context and set on the block argument it replaces.
            let new = unsafe {
                let fits = mlirTypeIsARankedTensor(*ty)
                    && mlirShapedTypeGetRank(*ty) == shape.len() as i64
                    && shape.iter().enumerate().all(|(d, size)| {
                        let declared = mlirShapedTypeGetDimSize(*ty, d as isize);
                        mlirShapedTypeIsDynamicSize(declared) || declared == *size
                    });
                if !fits {
                    let dims: Vec<String> = shape.iter().map(i64::to_string).collect();
                    return Err(fail(format!(
                        "argument #{i} of @{} has type {}, which shape {} does not fit",
                        self.entry,
                        type_text(*ty),
                        dims.join("x")
                    )));
                }
                let new = mlirRankedTensorTypeGet(
                    shape.len() as isize,
                    shape.as_ptr(),
                    mlirShapedTypeGetElementType(*ty),
                    mlirRankedTensorTypeGetEncoding(*ty),
                );
                let argument = block.argument(i).map_err(|e| Error::Internal(e.to_string()))?.to_raw();
                // Users that are not TOSA ops keep seeing the old type, through a cast.
                let mut others = Vec::new();
                let mut use_ = mlirValueGetFirstUse(argument);
                while !mlirOpOperandIsNull(use_) {
                    let owner = mlirOpOperandGetOwner(use_);
                    if !name(owner).starts_with("tosa.") {
                        others.push((owner, mlirOpOperandGetOperandNumber(use_)));
                    }
                    use_ = mlirOpOperandGetNextUse(use_);
                }
                mlirValueSetType(argument, new);
                if !others.is_empty() {
                    let cast = build("tensor.cast", mlirValueGetLocation(argument), &[argument], &[*ty], &[]);
                    mlirBlockInsertOwnedOperationBefore(
                        block.to_raw(),
                        mlirBlockGetFirstOperation(block.to_raw()),
                        cast,
                    );
                    for (owner, number) in others {
                        mlirOperationSetOperand(owner, number as isize, mlirOperationGetResult(cast, 0));
                    }
                }
                new
            };
            new_inputs.push(new);
        }
        // SAFETY: the entry is live; the types belong to its context.
        unsafe { set_function_type(entry.to_raw(), &new_inputs, &results) };
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::parse_shapes;

    #[test]
    fn shapes() {
        assert_eq!(parse_shapes("2x49x10x1,1x4").unwrap(), vec![vec![2, 49, 10, 1], vec![1, 4]]);
        assert!(parse_shapes("").unwrap().is_empty());
        assert!(parse_shapes("2x0").is_err());
        assert!(parse_shapes("2xa").is_err());
    }
}

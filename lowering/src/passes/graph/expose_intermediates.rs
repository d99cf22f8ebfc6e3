//! `umac-expose-intermediates{entry=main}`: the entry function also returns the result of every
//! TOSA op in its body (constants aside), in program order, after the model's own outputs, so a
//! run can be compared layer by layer (`umac run --engine both`, `--dump-intermediates`).
//! ```mlir
//! %a = tosa.conv2d ...            %a = tosa.conv2d ...
//! %y = tosa.rescale %a ...   →    %y = tosa.rescale %a ...
//! return %y                       %c0 = bufferization.alloc_tensor() copy(%a)
//!                                 %c1 = bufferization.alloc_tensor() copy(%y)
//!                                 return %y, %c0, %c1
//! ```

use crate::{
    Error,
    entry::{ENTRY_OPTION, find_entry, intermediates},
    options::OptionValues,
    pass::{UmacPass, boxed},
    registry::{PassInfo, PassKind},
};
use melior::ir::{
    BlockLike, Identifier, OperationRef, RegionLike, Type, Value,
    attribute::DenseI32ArrayAttribute,
    operation::{OperationBuilder, OperationLike},
};
use mlir_sys::*;
use umac_dialects::ir::{function_type, set_function_type, with_context};

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    name: "umac-expose-intermediates",
    summary: "Return every TOSA op's result from the entry function too, after its own results",
    anchor: "builtin.module",
    options: &[ENTRY_OPTION],
    kind: PassKind::Pass(|options: &OptionValues| boxed(ExposeIntermediates { entry: options.string("entry").into() })),
};

struct ExposeIntermediates {
    entry: String,
}

impl UmacPass for ExposeIntermediates {
    fn run(&mut self, operation: OperationRef) -> Result<(), Error> {
        let entry = find_entry(operation, &self.entry)?;
        with_context(&operation, |context| expose(context, entry, &self.entry))
    }
}

/// Makes `entry` (named `name`) return its intermediates too.
fn expose(context: &melior::Context, entry: OperationRef, name: &str) -> Result<(), Error> {
    let terminator = entry
        .region(0)
        .ok()
        .and_then(|r| r.first_block())
        .and_then(|b| b.terminator())
        .ok_or_else(|| Error::Invalid(format!("@{name} has no terminator")))?;
    // SAFETY: the entry is a live func.func.
    let (inputs, mut results) = unsafe { function_type(entry.to_raw()) };
    // Each intermediate is returned through its own copy: bufferization may compute a result in
    // place of its input or leave a reshaped constant in place, and returning one buffer twice
    // (or a global) is something buffer-results-to-out-params cannot handle.
    let location = terminator.location();
    let mut copies = Vec::new();
    for (value, _) in intermediates(entry) {
        // SAFETY: the value is a live result; the new op is inserted before the return.
        let copy = unsafe {
            let ty = mlirValueGetType(value);
            let op = OperationBuilder::new("bufferization.alloc_tensor", location)
                .add_operands(&[Value::from_raw(value)])
                .add_attributes(&[(
                    Identifier::new(context, "operandSegmentSizes"),
                    DenseI32ArrayAttribute::new(context, &[0, 1, 0]).into(),
                )])
                .add_results(&[Type::from_raw(ty)])
                .build()
                .map_err(|e| Error::Internal(e.to_string()))?;
            let op = op.into_raw();
            mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(terminator.to_raw()), terminator.to_raw(), op);
            results.push(ty);
            mlirOperationGetResult(op, 0)
        };
        copies.push(copy);
    }
    // SAFETY: the return op is alive; the new operands are live results of ops in its block;
    // the types belong to the entry's context.
    unsafe {
        let term = terminator.to_raw();
        let mut operands: Vec<MlirValue> =
            (0..mlirOperationGetNumOperands(term)).map(|i| mlirOperationGetOperand(term, i)).collect();
        operands.extend(copies);
        mlirOperationSetOperands(term, operands.len() as isize, operands.as_ptr());
        set_function_type(entry.to_raw(), &inputs, &results);
    }
    Ok(())
}

//! A model's entry function as umac's entry passes and the driver see it: finding it by name, and
//! the layers whose results `umac-expose-intermediates` returns.

use crate::{
    Error,
    options::{OptionKind, OptionSpec},
};
use melior::ir::{BlockLike, OperationRef, RegionLike, TypeLike, ValueLike, operation::OperationLike};
use mlir_sys::MlirValue;
use umac_dialects::ir::{find_function, op_name, static_tensor_shape, symbol_name, top_level_ops};

/// The `entry` option of umac's entry passes.
pub const ENTRY_OPTION: OptionSpec =
    OptionSpec { name: "entry", kind: OptionKind::String, default: "main", help: "the entry function" };

/// The `shapes` option of `umac-set-entry-shapes` and `umac-specialize-entry`.
pub const SHAPES_OPTION: OptionSpec = OptionSpec {
    name: "shapes",
    kind: OptionKind::String,
    default: "",
    help: "one shape per argument, e.g. 2x49x10x1,1x4 (`,` between arguments)",
};

/// Finds `func.func @name` at the top of `module`; the error lists the functions there are.
pub fn find_entry<'c, 'a>(module: OperationRef<'c, 'a>, name: &str) -> Result<OperationRef<'c, 'a>, Error> {
    if let Some(entry) = find_function(module, name) {
        return Ok(entry);
    }
    let functions: Vec<String> = top_level_ops(module)
        .iter()
        .filter(|op| op_name(op) == "func.func")
        .map(|op| format!("@{}", symbol_name(op).unwrap_or_default()))
        .collect();
    Err(Error::Invalid(if functions.is_empty() {
        format!("the model has no function @{name} (it has no functions at all)")
    } else {
        format!("the model has no function @{name} (it has {})", functions.join(", "))
    }))
}

/// One intermediate result a run returns after the model's own outputs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Intermediate {
    /// The op that produced it, e.g. `tosa.conv2d`.
    pub op: String,
    /// Its location, `file:line:col` when known.
    pub location: String,
}

/// The layers of `entry`'s body whose results `umac-expose-intermediates` returns, in program
/// order: every result of a TOSA op (constants aside) with a static tensor type.
pub fn intermediates(entry: OperationRef) -> Vec<(MlirValue, Intermediate)> {
    let mut found = Vec::new();
    let Some(block) = entry.region(0).ok().and_then(|r| r.first_block()) else {
        return found;
    };
    let mut next = block.first_operation();
    while let Some(op) = next {
        next = op.next_in_block();
        let name = op_name(&op);
        // The model's layers: TOSA ops, not constants, not casts left by shape inference.
        if !name.starts_with("tosa.") || matches!(name.as_str(), "tosa.const" | "tosa.const_shape") {
            continue;
        }
        for result in op.results() {
            if static_tensor_shape(result.r#type().to_raw()).is_none() {
                continue;
            }
            let location =
                umac_dialects::file_line_col(op.location()).map_or_else(|| "<unknown>".into(), |l| l.to_string());
            found.push((result.to_raw(), Intermediate { op: name.clone(), location }));
        }
    }
    found
}

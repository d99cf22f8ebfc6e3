//! The `umac` dialect: umac's own low-level ops and the discardable attributes of partitioned
//! functions, with the verifier that checks them.
//!
//! # A registered dialect with a Rust verifier, not IRDL
//! `umac.call_extern` passes a list of operands of different types (an int8 input, an int32 bias,
//! an int8 output...). In IRDL a constraint variable unifies across all of its uses, including all
//! elements of one variadic operand group, so an IRDL `call_extern` would only accept calls whose
//! inputs all share one type (MLIR 22: `expected 'memref<4xi8>' but got 'memref<2xi32>'`). IRDL
//! cannot check discardable attributes on other dialects' ops either (`umac.target` on a
//! `func.func` needs a dialect attribute hook IRDL does not have). So the dialect is registered
//! from C++ (`cxx/umac_dialect.cpp`: an extensible dialect whose op `call_extern` is a dynamic
//! op) with this module's checks as its verifier hooks: MLIR's own verifier runs them after
//! parsing and after every pass, in umac's tools and in `umac-opt` (mlir-opt's driver) alike; the
//! `umac-verify` pass runs them explicitly anywhere in a pipeline. The op has no declared effects,
//! so MLIR treats it as having unknown side effects, which is what a call into C is. It is printed
//! in generic form.
//!
//! # Ops
//! `umac.call_extern` calls a C function in destination-passing style:
//! ```mlir
//! "umac.call_extern"(%in, %weights, %out) {callee = @my_conv, operandSegmentSizes = array<i32: 2, 1>}
//!     : (memref<1x8x8x4xi8>, memref<4x3x3x4xi8>, memref<1x8x8x4xi8>) -> ()
//! ```
//! Operands are the inputs, then the outputs (`operandSegmentSizes` gives the two counts); inputs
//! are memrefs or scalars (integers, index, floats: the shapes and attributes a kernel needs), outputs
//! are memrefs, there is at least one output, and the op has no results. In C a memref is a pointer
//! to its first element (`umac-lower-call-extern`). If the module
//! declares the callee as a `func.func`, its type must be `(operand types) -> ()` or its C form,
//! each memref replaced by `index` (an address).
//!
//! # Attributes
//! - `umac.target = "<target>"` on a `func.func` (or the `llvm.func` it becomes): the function was
//!   partitioned to that target.
//! - `umac.composite = "<pattern>"` on a `func.func` that also has `umac.target`: the composite
//!   pattern the function's body matched.
//! - `umac.workspace_size = N : i64` and `umac.workspace_lower_bound = N : i64` on a `func.func`:
//!   set by `umac-plan-memory` — the bytes of the function's workspace argument, and the most
//!   bytes of buffers alive at once.
//! - `umac.op = "<name>"` on a `linalg.generic` umac wrote in place of a named linalg op (e.g.
//!   `umac-fold-padding`): the name of that op, kept for readers and operator names.
//! - `umac.interior = array<i64: a, b, c, d>` on such a generic: output rows `[a, b)` and columns
//!   `[c, d)` read no padding (`umac-split-borders` drops the bounds checks there).

use crate::{
    ir::{integer_value, op_name, string_value},
    location::emit_error,
    text::{attribute_text, string_from, type_text},
};
use melior::ir::{
    Attribute, AttributeLike, BlockLike, OperationRef, RegionLike, Type, TypeLike, ValueLike,
    operation::{OperationLike, WalkOrder, WalkResult},
};
use mlir_sys::{
    MlirAttribute, MlirOperation, MlirStringRef, mlirAttributeIsADenseI32Array, mlirAttributeIsAFlatSymbolRef,
    mlirDenseArrayGetNumElements, mlirDenseI32ArrayGetElement, mlirFlatSymbolRefAttrGetValue, mlirTypeIsAFloat,
    mlirTypeIsAIndex, mlirTypeIsAInteger, mlirTypeIsAMemRef,
};

/// `umac.call_extern`: a destination-passing call of a C symbol.
pub const CALL_EXTERN: &str = "umac.call_extern";
/// The symbol `umac.call_extern` calls.
pub const CALLEE_ATTR: &str = "callee";
/// The input and output operand counts of `umac.call_extern`.
pub const SEGMENT_SIZES_ATTR: &str = "operandSegmentSizes";
/// The target a partitioned function runs on.
pub const TARGET_ATTR: &str = "umac.target";
/// The composite pattern a partitioned function matched.
pub const COMPOSITE_ATTR: &str = "umac.composite";
/// On a `linalg.generic` that umac wrote in place of a named op: that op's name.
pub const OP_ATTR: &str = "umac.op";
/// On a generic from `umac-fold-padding`: the output rows `[a, b)` and columns `[c, d)` whose
/// windows lie inside the input, as `array<i64: a, b, c, d>`.
pub const INTERIOR_ATTR: &str = "umac.interior";
/// On an `arith.trunci` of `(extsi a * extsi b + 2^30) >> 31` from `umac-apply-scale-32{helium}`:
/// `a` and `b` are never both `i32::MIN`, so it is Helium's `vqrdmulh` (a unit attribute, kept by
/// the lowering to `llvm.trunc` where the code stays scalar).
pub const DOUBLING_HIGH_ATTR: &str = "umac.doubling_high";
/// The planned workspace size of a function.
pub const WORKSPACE_SIZE_ATTR: &str = "umac.workspace_size";
/// The liveness lower bound of a function's planned buffers.
pub const WORKSPACE_LOWER_BOUND_ATTR: &str = "umac.workspace_lower_bound";

/// On a function whose workspace `umac-plan-memory{pools}` split over memory pools: their names,
/// in the order of the workspace arguments, as an array of strings.
pub const POOLS_ATTR: &str = "umac.pools";
/// Beside [`POOLS_ATTR`]: the bytes each pool takes, as `array<i64: ...>`.
pub const POOL_SIZES_ATTR: &str = "umac.pool_sizes";
/// On a `tfl.unidirectional_sequence_lstm`: its quantization and options from the `.tflite`
/// file, a dictionary (`umac-legalize-tfl-lstm` reads and checks its entries).
pub const LSTM_ATTR: &str = "umac.lstm";
/// The TFLite op `umac-legalize-tfl-lstm` replaces, and the placeholder of its absent operands.
pub const TFL_LSTM_OP: &str = "tfl.unidirectional_sequence_lstm";
pub const TFL_NO_VALUE_OP: &str = "tfl.no_value";

/// The profiling hooks' names for the executor `entry` (`umac-profile-hooks`): called before and
/// after each operator.
pub fn profile_hook_names(entry: &str) -> [String; 2] {
    [format!("{entry}_op_begin"), format!("{entry}_op_end")]
}

/// Every discardable attribute of the dialect.
pub const ATTRIBUTES: &[&str] = &[
    TARGET_ATTR,
    COMPOSITE_ATTR,
    WORKSPACE_SIZE_ATTR,
    WORKSPACE_LOWER_BOUND_ATTR,
    OP_ATTR,
    INTERIOR_ATTR,
    DOUBLING_HIGH_ATTR,
    POOLS_ATTR,
    POOL_SIZES_ATTR,
    LSTM_ATTR,
];

/// Verifies every umac op and attribute nested in `root`, emitting a located error for each
/// problem. Returns `true` when there was none.
pub fn verify(root: OperationRef) -> bool {
    let mut ok = true;
    root.walk(WalkOrder::PreOrder, |op| {
        if op_name(&op) == CALL_EXTERN {
            ok &= verify_call_extern(&op);
        }
        for index in 0..op.discardable_attribute_count() {
            if let Ok((name, value)) = op.discardable_attribute_at(index) {
                let name = name.as_string_ref().as_str().unwrap_or_default().to_string();
                if name.starts_with("umac.") {
                    ok &= verify_attribute(&op, &name, value);
                }
            }
        }
        WalkResult::Advance
    });
    ok
}

/// The dialect's op verifier hook (`cxx/umac_dialect.cpp`).
///
/// # Safety
/// `op` must be a live op (MLIR calls the hook so).
pub unsafe extern "C" fn verify_op_hook(op: MlirOperation) -> bool {
    // SAFETY: MLIR calls the hook with a live op, for the duration of the call.
    let op = unsafe { OperationRef::from_raw(op) };
    op_name(&op) != CALL_EXTERN || verify_call_extern(&op)
}

/// The dialect's attribute verifier hook (`cxx/umac_dialect.cpp`).
///
/// # Safety
/// `op`, `name` and `value` must be alive (MLIR calls the hook so).
pub unsafe extern "C" fn verify_attribute_hook(op: MlirOperation, name: MlirStringRef, value: MlirAttribute) -> bool {
    // SAFETY: MLIR calls the hook with a live op and attribute, for the duration of the call.
    let (op, value) = unsafe { (OperationRef::from_raw(op), Attribute::from_raw(value)) };
    verify_attribute(&op, &string_from(name), value)
}

/// Checks one `umac.*` discardable attribute `attr_name` of `op`.
fn verify_attribute(op: &OperationRef, attr_name: &str, value: Attribute) -> bool {
    let name = op_name(op);
    match attr_name {
        TARGET_ATTR | COMPOSITE_ATTR => {
            if name != "func.func" && name != "llvm.func" {
                fail(
                    op,
                    &format!("'{attr_name}' is only valid on a function (a partitioned function), not on '{name}'"),
                )
            } else if string_value(value).is_none_or(|s| s.is_empty()) {
                fail(op, &format!("'{attr_name}' must be a non-empty string, got {}", attribute_text(value)))
            } else if attr_name == COMPOSITE_ATTR && !op.has_attribute(TARGET_ATTR) {
                fail(op, &format!("'{COMPOSITE_ATTR}' requires '{TARGET_ATTR}' on the same function"))
            } else {
                true
            }
        }
        INTERIOR_ATTR => {
            // SAFETY: the attribute is alive; its elements are read after the type check.
            let four = unsafe {
                mlir_sys::mlirAttributeIsADenseI64Array(value.to_raw())
                    && mlir_sys::mlirDenseArrayGetNumElements(value.to_raw()) == 4
            };
            four || fail(op, &format!("'{attr_name}' must be array<i64: 4 values>, got {}", attribute_text(value)))
        }
        DOUBLING_HIGH_ATTR => {
            if name != "arith.trunci" && name != "llvm.trunc" {
                fail(
                    op,
                    &format!("'{attr_name}' is only valid on 'arith.trunci' (or its 'llvm.trunc'), not on '{name}'"),
                )
            } else {
                // SAFETY: the attribute is alive.
                let unit = unsafe { mlir_sys::mlirAttributeIsAUnit(value.to_raw()) };
                unit || fail(op, &format!("'{attr_name}' must be a unit attribute, got {}", attribute_text(value)))
            }
        }
        OP_ATTR => {
            string_value(value).is_some_and(|s| !s.is_empty())
                || fail(op, &format!("'{attr_name}' must be a non-empty string, got {}", attribute_text(value)))
        }
        WORKSPACE_SIZE_ATTR | WORKSPACE_LOWER_BOUND_ATTR => {
            if name != "func.func" && name != "llvm.func" {
                fail(op, &format!("'{attr_name}' is only valid on a function, not on '{name}'"))
            } else if integer_value(value).is_none_or(|v| v < 0) {
                fail(op, &format!("'{attr_name}' must be a non-negative integer, got {}", attribute_text(value)))
            } else {
                true
            }
        }
        POOLS_ATTR | POOL_SIZES_ATTR if name != "func.func" && name != "llvm.func" => {
            fail(op, &format!("'{attr_name}' is only valid on a function, not on '{name}'"))
        }
        POOLS_ATTR => {
            // SAFETY: the attribute is alive; elements are read after the kind checks, within the count.
            let names = unsafe {
                let raw = value.to_raw();
                mlir_sys::mlirAttributeIsAArray(raw)
                    && (0..mlir_sys::mlirArrayAttrGetNumElements(raw)).all(|i| {
                        string_value(Attribute::from_raw(mlir_sys::mlirArrayAttrGetElement(raw, i)))
                            .is_some_and(|s| !s.is_empty())
                    })
            };
            names || fail(op, &format!("'{attr_name}' must be an array of pool names, got {}", attribute_text(value)))
        }
        POOL_SIZES_ATTR => {
            // SAFETY: the attribute is alive; elements are read after the kind check, within the count.
            let sizes = unsafe {
                let raw = value.to_raw();
                mlir_sys::mlirAttributeIsADenseI64Array(raw)
                    && (0..mlir_sys::mlirDenseArrayGetNumElements(raw))
                        .all(|i| mlir_sys::mlirDenseI64ArrayGetElement(raw, i) >= 0)
            };
            sizes
                || fail(
                    op,
                    &format!("'{attr_name}' must be array<i64: ...> of sizes >= 0, got {}", attribute_text(value)),
                )
        }
        LSTM_ATTR => {
            if name != "tfl.unidirectional_sequence_lstm" {
                fail(op, &format!("'{attr_name}' is only valid on 'tfl.unidirectional_sequence_lstm', not on '{name}'"))
            } else {
                // SAFETY: the attribute is alive.
                let dictionary = unsafe { mlir_sys::mlirAttributeIsADictionary(value.to_raw()) };
                dictionary || fail(op, &format!("'{attr_name}' must be a dictionary, got {}", attribute_text(value)))
            }
        }
        _ => fail(op, &format!("unknown umac attribute '{attr_name}' (known: {})", ATTRIBUTES.join(", "))),
    }
}

fn verify_call_extern(op: &OperationRef) -> bool {
    let prefix = format!("'{CALL_EXTERN}' op");
    let Ok(callee) = op.attribute(CALLEE_ATTR) else {
        return fail(
            op,
            &format!(
                "{prefix} requires a '{CALLEE_ATTR}' attribute naming the C symbol to call (e.g. callee = @my_kernel)"
            ),
        );
    };
    // SAFETY: the attribute is alive for this call.
    if !unsafe { mlirAttributeIsAFlatSymbolRef(callee.to_raw()) } {
        return fail(
            op,
            &format!(
                "{prefix} '{CALLEE_ATTR}' must be a flat symbol reference such as @my_kernel, got {}",
                attribute_text(callee)
            ),
        );
    }
    // SAFETY: checked above that this is a flat symbol ref.
    let symbol = string_from(unsafe { mlirFlatSymbolRefAttrGetValue(callee.to_raw()) });
    if !is_c_identifier(&symbol) {
        return fail(op, &format!("{prefix} callee @{symbol:?} is not a C identifier"));
    }
    if op.result_count() != 0 {
        return fail(op, &format!("{prefix} must have no results: outputs are operands (destination-passing style)"));
    }
    if op.region_count() != 0 || op.successor_count() != 0 {
        return fail(op, &format!("{prefix} must have no regions or successors"));
    }
    let Some((inputs, outputs)) = segment_sizes(op) else {
        return fail(
            op,
            &format!(
                "{prefix} requires '{SEGMENT_SIZES_ATTR} = array<i32: #inputs, #outputs>' adding up to its {} operands",
                op.operand_count()
            ),
        );
    };
    if outputs == 0 {
        return fail(op, &format!("{prefix} requires at least one output operand, got {inputs} inputs and 0 outputs"));
    }
    let types: Vec<Type> = op.operands().map(|value| value.r#type()).collect();
    for (index, ty) in types.iter().enumerate() {
        // SAFETY: the type is alive for this call.
        let (memref, scalar) = unsafe {
            let raw = ty.to_raw();
            (mlirTypeIsAMemRef(raw), mlirTypeIsAInteger(raw) || mlirTypeIsAIndex(raw) || mlirTypeIsAFloat(raw))
        };
        if index >= inputs && !memref {
            return fail(op, &format!("{prefix} operand #{index} (output) must be a memref, got '{}'", type_text(*ty)));
        }
        if index < inputs && !memref && !scalar {
            return fail(
                op,
                &format!(
                    "{prefix} operand #{index} (input) must be a memref or a scalar (integer, index, float), got '{}'",
                    type_text(*ty)
                ),
            );
        }
    }
    check_declaration(op, &symbol, &types)
}

/// If the enclosing module declares the callee as a function, its type must fit the call.
fn check_declaration(op: &OperationRef, symbol: &str, types: &[Type]) -> bool {
    let Some(module) = enclosing_module(op) else {
        return true;
    };
    let Ok(region) = module.region(0) else {
        return true;
    };
    let Some(body) = region.first_block() else {
        return true;
    };
    let mut next = body.first_operation();
    while let Some(candidate) = next {
        next = candidate.next_in_block();
        if op_name(&candidate) != "func.func" {
            continue;
        }
        let Ok(name) = candidate.attribute("sym_name") else {
            continue;
        };
        if string_value(name).as_deref() != Some(symbol) {
            continue;
        }
        let Ok(function_type) = candidate.attribute("function_type") else {
            return true;
        };
        let signature = |memref: &dyn Fn(Type) -> String| {
            let texts: Vec<String> = types
                .iter()
                // SAFETY: the type is alive for this call.
                .map(|t| if unsafe { mlirTypeIsAMemRef(t.to_raw()) } { memref(*t) } else { type_text(*t) })
                .collect();
            format!("({}) -> ()", texts.join(", "))
        };
        let called = signature(&|t| type_text(t));
        // The C form `umac-lower-call-extern` declares: each memref is an address (`index`).
        let c_form = signature(&|_| "index".to_string());
        let declared = attribute_text(function_type);
        if declared != called && declared != c_form {
            return fail(
                op,
                &format!(
                    "'{CALL_EXTERN}' op callee @{symbol} is declared as '{declared}' but called as '{called}' (C form '{c_form}')"
                ),
            );
        }
        return true;
    }
    true
}

fn enclosing_module<'c, 'a>(op: &OperationRef<'c, 'a>) -> Option<OperationRef<'c, 'a>> {
    let mut parent = op.parent_operation();
    while let Some(p) = parent {
        if op_name(&p) == "builtin.module" {
            return Some(p);
        }
        parent = p.parent_operation();
    }
    None
}

fn segment_sizes(op: &OperationRef) -> Option<(usize, usize)> {
    let attr = op.attribute(SEGMENT_SIZES_ATTR).ok()?;
    let raw = attr.to_raw();
    // SAFETY: the attribute is alive; the element reads are guarded by the kind and count checks.
    unsafe {
        if !mlirAttributeIsADenseI32Array(raw) || mlirDenseArrayGetNumElements(raw) != 2 {
            return None;
        }
        let (inputs, outputs) = (mlirDenseI32ArrayGetElement(raw, 0), mlirDenseI32ArrayGetElement(raw, 1));
        let (inputs, outputs) = (usize::try_from(inputs).ok()?, usize::try_from(outputs).ok()?);
        (inputs + outputs == op.operand_count()).then_some((inputs, outputs))
    }
}

/// Tells whether `s` can name a C function.
pub fn is_c_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn fail(op: &OperationRef, message: &str) -> bool {
    emit_error(op.location(), message);
    false
}

#[cfg(test)]
mod tests {
    use super::is_c_identifier;

    #[test]
    fn c_identifiers() {
        assert!(is_c_identifier("vanilla_conv2d_s8"));
        assert!(is_c_identifier("_x1"));
        assert!(!is_c_identifier(""));
        assert!(!is_c_identifier("1abc"));
        assert!(!is_c_identifier("a.b"));
        assert!(!is_c_identifier("a-b"));
    }
}

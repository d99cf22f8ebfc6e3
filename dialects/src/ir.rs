//! The IR helpers every umac pass shares: reading names, attributes, shapes and producers,
//! building ops and functions, and replacing an op by IR written as text.
//!
//! Passes hold raw C API handles (`MlirOperation`, `MlirValue`) across rewrites, where melior's
//! borrowed references cannot live, so most helpers take raw handles and are `unsafe` with one
//! contract: every handle passed in is live (owned by a context that outlives the call). Helpers
//! on melior references are safe.

use crate::text::{str_ref, string_from};
use melior::ir::{
    Attribute, AttributeLike, OperationRef,
    operation::{OperationLike, WalkOrder, WalkResult},
};
use mlir_sys::*;

/// An operation's name, e.g. `tosa.conv2d`.
///
/// # Safety
/// `op` must be live.
pub unsafe fn name(op: MlirOperation) -> String {
    // SAFETY: the caller's contract; the name identifier is owned by the context.
    unsafe { string_from(mlirIdentifierStr(mlirOperationGetName(op))) }
}

/// Calls `f` with the context `op` belongs to. (melior's `ContextRef::to_ref` borrows the
/// `ContextRef` itself: called on a temporary it dangles at the end of the statement.)
pub fn with_context<R>(op: &OperationRef, f: impl FnOnce(&melior::Context) -> R) -> R {
    let context = op.context();
    // SAFETY: `context` lives until the end of this function, and the context it refers to
    // outlives the op.
    f(unsafe { context.to_ref() })
}

/// An operation's name, e.g. `tosa.conv2d`.
pub fn op_name(op: &OperationRef) -> String {
    // SAFETY: a borrowed op is live.
    unsafe { name(op.to_raw()) }
}

/// The op defining `value`, if it is an op result (not a block argument).
///
/// # Safety
/// `value` must be live.
pub unsafe fn producer(value: MlirValue) -> Option<MlirOperation> {
    // SAFETY: the caller's contract; the owner is read only for op results.
    unsafe { mlirValueIsAOpResult(value).then(|| mlirOpResultGetOwner(value)) }
}

/// The op defining `value` if it is a `name` op.
///
/// # Safety
/// `value` must be live.
pub unsafe fn produced_by(value: MlirValue, name: &str) -> Option<MlirOperation> {
    // SAFETY: the caller's contract.
    unsafe { producer(value).filter(|op| self::name(*op) == name) }
}

/// The op using `value`, when exactly one use of it exists.
///
/// # Safety
/// `value` must be live.
pub unsafe fn only_user(value: MlirValue) -> Option<MlirOperation> {
    // SAFETY: the caller's contract; the use list is read without modification.
    unsafe {
        let first = mlirValueGetFirstUse(value);
        (!mlirOpOperandIsNull(first) && mlirOpOperandIsNull(mlirOpOperandGetNextUse(first)))
            .then(|| mlirOpOperandGetOwner(first))
    }
}

/// Whether every use of `value` but by `through` lies in `block` (directly, or nested in an op of
/// it) before `op` (a buffer's uses before the copy that reads it by `through`).
///
/// # Safety
/// All must be live; `op` in `block`.
pub unsafe fn uses_before(value: MlirValue, through: MlirOperation, op: MlirOperation, block: MlirBlock) -> bool {
    // SAFETY: the caller's contract; the use list and parents are only read.
    unsafe {
        let mut used = mlirValueGetFirstUse(value);
        while !mlirOpOperandIsNull(used) {
            let owner = mlirOpOperandGetOwner(used);
            used = mlirOpOperandGetNextUse(used);
            if owner.ptr == through.ptr {
                continue;
            }
            match ancestor_in(owner, block) {
                Some(user) if user.ptr != op.ptr && mlirOperationIsBeforeInBlock(user, op) => {}
                _ => return false,
            }
        }
        true
    }
}

/// The ancestor of `op` (itself, or an op it is nested in) that lies directly in `block`, if any.
///
/// # Safety
/// Both must be live.
pub unsafe fn ancestor_in(mut op: MlirOperation, block: MlirBlock) -> Option<MlirOperation> {
    // SAFETY: the caller's contract; parents of live ops are live or null.
    unsafe {
        while !op.ptr.is_null() && mlirOperationGetBlock(op).ptr != block.ptr {
            op = mlirOperationGetParentOperation(op);
        }
        (!op.ptr.is_null()).then_some(op)
    }
}

/// The memref ops that view their first operand's buffer (`memref.view` aside: it places a typed
/// buffer at a byte offset of an `i8` one).
pub const VIEW_OPS: &[&str] =
    &["memref.subview", "memref.collapse_shape", "memref.expand_shape", "memref.cast", "memref.reinterpret_cast"];

/// Whether an op named `name` gives a view of its first operand's bytes: one of [`VIEW_OPS`] or
/// a `memref.view` (what follows a buffer to the allocation it lives in, or to its users).
pub fn views_bytes(name: &str) -> bool {
    name == "memref.view" || VIEW_OPS.contains(&name)
}

/// A model's own control flow after `tosa-to-scf` (TFLite's IF and WHILE): the executor keeps it,
/// and the ops of its regions are operators and planning steps of their own.
pub const CONTROL_FLOW_OPS: &[&str] = &["scf.if", "scf.while", "scf.index_switch"];

/// The loops among [`CONTROL_FLOW_OPS`]: a buffer used inside one lives through all of it.
pub const LOOP_OPS: &[&str] = &["scf.while"];

/// An attribute of `op` by name, `None` when absent.
///
/// # Safety
/// `op` must be live.
pub unsafe fn attribute(op: MlirOperation, name: &str) -> Option<MlirAttribute> {
    // SAFETY: the caller's contract; the name is alive for the call.
    let attribute = unsafe { mlirOperationGetAttributeByName(op, str_ref(name)) };
    (!attribute.ptr.is_null()).then_some(attribute)
}

/// The elements of a `array<i64: ...>` attribute.
///
/// # Safety
/// `attribute` must be live.
pub unsafe fn i64_array(attribute: MlirAttribute) -> Option<Vec<i64>> {
    // SAFETY: the caller's contract; elements are read after the kind check, within the count.
    unsafe {
        mlirAttributeIsADenseI64Array(attribute).then(|| {
            (0..mlirDenseArrayGetNumElements(attribute)).map(|i| mlirDenseI64ArrayGetElement(attribute, i)).collect()
        })
    }
}

/// Every integer of a dense integer elements attribute, in order (a splat as many times as the
/// type has elements), sign-extended from the element type's width (1, 8, 16, 32 or 64 bits).
///
/// # Safety
/// `attribute` must be live.
pub unsafe fn dense_ints(attribute: MlirAttribute) -> Option<Vec<i64>> {
    // SAFETY: the caller's contract; elements are read after the kind checks, within the count.
    unsafe {
        if !mlirAttributeIsADenseIntElements(attribute) {
            return None;
        }
        let count = mlirElementsAttrGetNumElements(attribute) as isize;
        let element = mlirShapedTypeGetElementType(mlirAttributeGetType(attribute));
        let read: fn(MlirAttribute, isize) -> i64 = match mlirIntegerTypeGetWidth(element) {
            1 => |a, i| i64::from(mlirDenseElementsAttrGetBoolValue(a, i)),
            8 => |a, i| i64::from(mlirDenseElementsAttrGetInt8Value(a, i)),
            16 => |a, i| i64::from(mlirDenseElementsAttrGetInt16Value(a, i)),
            32 => |a, i| i64::from(mlirDenseElementsAttrGetInt32Value(a, i)),
            64 => |a, i| mlirDenseElementsAttrGetInt64Value(a, i),
            _ => return None,
        };
        Some((0..count).map(|i| read(attribute, i)).collect())
    }
}

/// The integer an `arith.constant` producing `value` holds.
///
/// # Safety
/// `value` must be live.
pub unsafe fn constant_int(value: MlirValue) -> Option<i64> {
    // SAFETY: the caller's contract; the value is read after the kind check.
    unsafe {
        let attribute = constant_value(value)?;
        mlirAttributeIsAInteger(attribute).then(|| mlirIntegerAttrGetValueInt(attribute))
    }
}

/// The integer `value` always holds when it is computed from integer constants, through
/// `arith.addi`, `arith.subi`, `arith.muli` and `arith.index_cast` (as canonicalization would
/// fold them), wrapped to its type's width (an `index` as 64 bits); `leaf` gives the value of
/// any other op's result it knows (an address a later pass makes a constant).
///
/// # Safety
/// `value` must be live.
pub unsafe fn folded_int(value: MlirValue, leaf: &dyn Fn(MlirOperation) -> Option<i64>) -> Option<i64> {
    // SAFETY: the caller's contract; operands of a live op are live.
    unsafe {
        let op = producer(value)?;
        let operand = |k: isize| folded_int(mlirOperationGetOperand(op, k), leaf);
        let raw = match name(op).as_str() {
            "arith.constant" => return constant_int(value),
            "arith.index_cast" => operand(0)?,
            "arith.addi" => operand(0)?.wrapping_add(operand(1)?),
            "arith.subi" => operand(0)?.wrapping_sub(operand(1)?),
            "arith.muli" => operand(0)?.wrapping_mul(operand(1)?),
            _ => leaf(op)?,
        };
        let ty = mlirValueGetType(value);
        let bits = if mlirTypeIsAIndex(ty) {
            64
        } else if mlirTypeIsAInteger(ty) {
            mlirIntegerTypeGetWidth(ty)
        } else {
            return None;
        };
        let shift = 64 - bits.clamp(1, 64);
        Some((raw << shift) >> shift)
    }
}

/// The `value` attribute of the `arith.constant` producing `value`.
///
/// # Safety
/// `value` must be live.
pub unsafe fn constant_value(value: MlirValue) -> Option<MlirAttribute> {
    // SAFETY: the caller's contract.
    unsafe { attribute(produced_by(value, "arith.constant")?, "value") }
}

/// The elements attribute of the `tosa.const` (its `values`) or `arith.constant` producing `value`.
///
/// # Safety
/// `value` must be live.
pub unsafe fn constant_elements(value: MlirValue) -> Option<MlirAttribute> {
    // SAFETY: the caller's contract.
    unsafe {
        match produced_by(value, "tosa.const") {
            Some(op) => attribute(op, "values"),
            None => constant_value(value),
        }
    }
}

/// Sets the discardable attribute `name` of `op` to `value`.
pub fn set_attribute<'c: 'a, 'a>(op: &impl OperationLike<'c, 'a>, name: &str, value: Attribute<'c>) {
    // SAFETY: both are alive and of one context (the attribute is borrowed from it).
    unsafe { mlirOperationSetDiscardableAttributeByName(op.to_raw(), str_ref(name), value.to_raw()) }
}

/// The sizes of a ranked tensor type with a static shape.
pub fn static_tensor_shape(ty: MlirType) -> Option<Vec<i64>> {
    // SAFETY: a type handle from a melior type or a live op is owned by its context; the sizes
    // are read after the kind checks.
    unsafe {
        (mlirTypeIsARankedTensor(ty) && mlirShapedTypeHasStaticShape(ty))
            .then(|| (0..mlirShapedTypeGetRank(ty)).map(|i| mlirShapedTypeGetDimSize(ty, i as isize)).collect())
    }
}

/// The sizes of a ranked shaped type (a dynamic one as MLIR's marker, `i64::MIN`).
pub fn shape_of(ty: MlirType) -> Vec<i64> {
    // SAFETY: a type handle is owned by its context; sizes are read only of a ranked shaped type.
    unsafe {
        if !mlirTypeIsAShaped(ty) || !mlirShapedTypeHasRank(ty) {
            return Vec::new();
        }
        (0..mlirShapedTypeGetRank(ty) as isize).map(|d| mlirShapedTypeGetDimSize(ty, d)).collect()
    }
}

/// A ranked memref type's strides and offset, in elements (`None` for a dynamic one), when its
/// layout is strided.
pub fn strides_and_offset(ty: MlirType) -> Option<(Vec<Option<i64>>, Option<i64>)> {
    // SAFETY: a type handle is owned by its context; the strides fill a buffer of the memref's rank.
    unsafe {
        if !mlirTypeIsAMemRef(ty) || !mlirShapedTypeHasRank(ty) {
            return None;
        }
        let rank = usize::try_from(mlirShapedTypeGetRank(ty)).ok()?;
        let (mut strides, mut offset) = (vec![0; rank], 0);
        if mlirMemRefTypeGetStridesAndOffset(ty, strides.as_mut_ptr(), &mut offset).value == 0 {
            return None;
        }
        let known = |v: i64| (!mlirShapedTypeIsDynamicStrideOrOffset(v)).then_some(v);
        Some((strides.into_iter().map(known).collect(), known(offset)))
    }
}

/// The elements of a statically shaped memref of integers or floats and the bits of one.
pub fn static_memref_bits(ty: MlirType) -> Option<(i64, i64)> {
    // SAFETY: the type is owned by its context; sizes and widths are read after the kind checks.
    unsafe {
        if !mlirTypeIsAMemRef(ty) || !mlirShapedTypeHasStaticShape(ty) {
            return None;
        }
        let bits = scalar_bits(mlirShapedTypeGetElementType(ty))?;
        let elements = (0..mlirShapedTypeGetRank(ty)).map(|d| mlirShapedTypeGetDimSize(ty, d as isize)).product();
        Some((elements, bits))
    }
}

/// The bits of an integer or float type.
pub fn scalar_bits(ty: MlirType) -> Option<i64> {
    // SAFETY: the type is owned by its context; its width is read after the kind check.
    unsafe {
        if mlirTypeIsAInteger(ty) {
            Some(i64::from(mlirIntegerTypeGetWidth(ty)))
        } else if mlirTypeIsAFloat(ty) {
            Some(i64::from(mlirFloatTypeGetWidth(ty)))
        } else {
            None
        }
    }
}

/// The element type of a shaped type.
pub fn element_type(ty: MlirType) -> MlirType {
    // SAFETY: the type is owned by its context.
    unsafe { mlirShapedTypeGetElementType(ty) }
}

/// A type in MLIR syntax.
pub fn type_text(ty: MlirType) -> String {
    // SAFETY: the type is owned by its context.
    crate::text::type_text(unsafe { melior::ir::Type::from_raw(ty) })
}

/// Whether `ty` is not a memref, or a memref with the identity layout (a plain buffer).
pub fn identity_layout(ty: MlirType) -> bool {
    // SAFETY: the type is owned by its context; the layout is read only for memref types.
    unsafe {
        if !mlirTypeIsAMemRef(ty) {
            return true;
        }
        let layout = mlirMemRefTypeGetLayout(ty);
        mlirAttributeIsAAffineMap(layout) && mlirAffineMapIsIdentity(mlirAffineMapAttrGetValue(layout))
    }
}

/// The value of a string attribute, or `None` for another kind.
pub fn string_value(attribute: Attribute) -> Option<String> {
    let raw = attribute.to_raw();
    // SAFETY: the attribute is alive; the value is only read after the kind check.
    unsafe { mlirAttributeIsAString(raw).then(|| string_from(mlirStringAttrGetValue(raw))) }
}

/// The value of an integer attribute.
pub fn integer_value(attribute: Attribute) -> Option<i64> {
    let raw = attribute.to_raw();
    // SAFETY: the attribute is alive; the value is read only from integer attributes.
    unsafe { mlirAttributeIsAInteger(raw).then(|| mlirIntegerAttrGetValueInt(raw)) }
}

/// A function's (or any symbol's) name.
pub fn symbol_name(op: &OperationRef) -> Option<String> {
    op.attribute("sym_name").ok().and_then(string_value)
}

/// Whether a symbol (a `func.func`) is not public: callable only from within its module.
pub fn is_private(function: &OperationRef) -> bool {
    function.attribute("sym_visibility").ok().and_then(string_value).is_some_and(|v| v != "public")
}

/// Whether a function has a body (is a definition, not a declaration).
pub fn has_body(function: &OperationRef) -> bool {
    function.region(0).ok().and_then(|r| melior::ir::RegionLike::first_block(&r)).is_some()
}

/// The top-level ops of a module (or of any op's first block), in order.
pub fn top_level_ops<'c, 'a>(module: OperationRef<'c, 'a>) -> Vec<OperationRef<'c, 'a>> {
    use melior::ir::{BlockLike, RegionLike};
    let mut ops = Vec::new();
    let mut next = module.region(0).ok().and_then(|r| r.first_block()).and_then(|b| b.first_operation());
    while let Some(op) = next {
        next = op.next_in_block();
        ops.push(op);
    }
    ops
}

/// The `func.func` named `symbol` at the top of `module`.
pub fn find_function<'c, 'a>(module: OperationRef<'c, 'a>, symbol: &str) -> Option<OperationRef<'c, 'a>> {
    top_level_ops(module)
        .into_iter()
        .find(|op| op_name(op) == "func.func" && symbol_name(op).as_deref() == Some(symbol))
}

/// Every op nested in `root` (itself included) that `select` picks, in pre-order, as raw handles
/// that stay valid while the IR is rewritten (as long as the ops themselves are not erased).
pub fn collect(root: OperationRef, mut select: impl FnMut(&OperationRef) -> bool) -> Vec<MlirOperation> {
    let mut found = Vec::new();
    root.walk(WalkOrder::PreOrder, |op| {
        if select(&op) {
            found.push(op.to_raw());
        }
        WalkResult::Advance
    });
    found
}

/// A function's argument and result types.
///
/// # Safety
/// `function` must be a live `func.func` (its verifier guarantees a function type).
pub unsafe fn function_type(function: MlirOperation) -> (Vec<MlirType>, Vec<MlirType>) {
    // SAFETY: the caller's contract; indices are within the counts.
    unsafe {
        let Some(attribute) = attribute(function, "function_type") else {
            return (vec![], vec![]);
        };
        let ty = mlirTypeAttrGetValue(attribute);
        let inputs = (0..mlirFunctionTypeGetNumInputs(ty)).map(|i| mlirFunctionTypeGetInput(ty, i)).collect();
        let results = (0..mlirFunctionTypeGetNumResults(ty)).map(|i| mlirFunctionTypeGetResult(ty, i)).collect();
        (inputs, results)
    }
}

/// The function type `(inputs) -> results`.
///
/// # Safety
/// The types must belong to the live `context`.
pub unsafe fn function_type_get(context: MlirContext, inputs: &[MlirType], results: &[MlirType]) -> MlirType {
    // SAFETY: the caller's contract; the arrays outlive the call.
    unsafe {
        mlirFunctionTypeGet(context, inputs.len() as isize, inputs.as_ptr(), results.len() as isize, results.as_ptr())
    }
}

/// Sets a function's type to `(inputs) -> results`.
///
/// # Safety
/// `function` must be a live `func.func`; the types belong to its context.
pub unsafe fn set_function_type(function: MlirOperation, inputs: &[MlirType], results: &[MlirType]) {
    // SAFETY: the caller's contract.
    unsafe {
        let ty = function_type_get(mlirOperationGetContext(function), inputs, results);
        mlirOperationSetAttributeByName(function, str_ref("function_type"), mlirTypeAttrGet(ty));
    }
}

/// Builds a detached op.
///
/// # Safety
/// Operands, types, attributes and the location must belong to one live context.
pub unsafe fn build(
    name: &str,
    location: MlirLocation,
    operands: &[MlirValue],
    results: &[MlirType],
    attributes: &[(&str, MlirAttribute)],
) -> MlirOperation {
    // SAFETY: the caller's contract.
    unsafe { build_with_regions(name, location, operands, results, attributes, &[]) }
}

/// [`build`] with regions: one per entry of `regions`, holding the detached block given (`None`:
/// an empty region), which the op takes over.
///
/// # Safety
/// As [`build`]'s; each block must be detached.
pub unsafe fn build_with_regions(
    name: &str,
    location: MlirLocation,
    operands: &[MlirValue],
    results: &[MlirType],
    attributes: &[(&str, MlirAttribute)],
    regions: &[Option<MlirBlock>],
) -> MlirOperation {
    // SAFETY: the caller's contract; the state copies everything it is given, the regions take
    // over the blocks and the state the regions.
    unsafe {
        let context = mlirLocationGetContext(location);
        // As the parser does: the op's dialect is loaded first (one registered but not yet
        // loaded, such as a backend's dynamic dialect, would leave the op unregistered).
        if let Some((dialect, _)) = name.split_once('.') {
            mlirContextGetOrLoadDialect(context, str_ref(dialect));
        }
        let mut state = mlirOperationStateGet(str_ref(name), location);
        mlirOperationStateAddOperands(&mut state, operands.len() as isize, operands.as_ptr());
        mlirOperationStateAddResults(&mut state, results.len() as isize, results.as_ptr());
        let named: Vec<MlirNamedAttribute> = attributes
            .iter()
            .map(|(name, value)| mlirNamedAttributeGet(mlirIdentifierGet(context, str_ref(name)), *value))
            .collect();
        mlirOperationStateAddAttributes(&mut state, named.len() as isize, named.as_ptr());
        let owned: Vec<MlirRegion> = regions
            .iter()
            .map(|block| {
                let region = mlirRegionCreate();
                if let Some(block) = block {
                    mlirRegionAppendOwnedBlock(region, *block);
                }
                region
            })
            .collect();
        mlirOperationStateAddOwnedRegions(&mut state, owned.len() as isize, owned.as_ptr());
        mlirOperationCreate(&mut state)
    }
}

/// Builds a detached private `func.func @symbol` of type `function_type` with `body` as its
/// only block (`None`: a declaration) and the extra discardable `attributes`.
///
/// # Safety
/// Everything must belong to the live context of `location`; `body` must be a detached block,
/// which the function takes over.
pub unsafe fn private_function(
    symbol: &str,
    function_type: MlirType,
    body: Option<MlirBlock>,
    location: MlirLocation,
    attributes: &[(&str, MlirAttribute)],
) -> MlirOperation {
    // SAFETY: the caller's contract.
    unsafe {
        let context = mlirLocationGetContext(location);
        let mut all = vec![
            ("sym_name", mlirStringAttrGet(context, str_ref(symbol))),
            ("function_type", mlirTypeAttrGet(function_type)),
            ("sym_visibility", mlirStringAttrGet(context, str_ref("private"))),
        ];
        all.extend_from_slice(attributes);
        build_with_regions("func.func", location, &[], &[], &all, &[body])
    }
}

/// Whether the op defining `value` (for a block argument: the op owning the block), or one of its
/// ancestors, satisfies `inside`.
///
/// # Safety
/// `value` must be live.
pub unsafe fn defined_under(value: MlirValue, inside: impl Fn(MlirOperation) -> bool) -> bool {
    // SAFETY: the caller's contract; parents of live ops are live or null.
    unsafe {
        let mut owner = if mlirValueIsAOpResult(value) {
            mlirOpResultGetOwner(value)
        } else {
            mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(value))
        };
        while !owner.ptr.is_null() {
            if inside(owner) {
                return true;
            }
            owner = mlirOperationGetParentOperation(owner);
        }
        false
    }
}

/// Whether `value` is defined by `op` or inside it.
///
/// # Safety
/// Both must be live.
pub unsafe fn defined_inside(value: MlirValue, op: MlirOperation) -> bool {
    // SAFETY: the caller's contract.
    unsafe { defined_under(value, |owner| mlirOperationEqual(owner, op)) }
}

/// The ops of the first block of `op`'s first region (a loop's or a `linalg.generic`'s body), in
/// order.
///
/// # Safety
/// `op` must be live, with a region holding a block.
pub unsafe fn body_ops(op: MlirOperation) -> Vec<MlirOperation> {
    // SAFETY: the caller's contract; the block's ops are read while the IR is not modified.
    unsafe {
        let mut ops = Vec::new();
        let mut next = mlirBlockGetFirstOperation(mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0)));
        while !next.ptr.is_null() {
            ops.push(next);
            next = mlirOperationGetNextInBlock(next);
        }
        ops
    }
}

/// Whether `op`'s name is an operation its context knows (not an op of a dialect parsed as
/// unregistered).
pub fn is_registered(op: &OperationRef) -> bool {
    let name = op_name(op);
    // SAFETY: the context is live while `op` is; the name's bytes outlive the call.
    unsafe { mlirContextIsRegisteredOperation(mlirOperationGetContext(op.to_raw()), str_ref(&name)) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ContextOptions, create_context, source::print_module};
    use melior::ir::{Module, operation::OperationLike};

    const TEXT: &str = r#"
func.func @f(%x: tensor<2x3xi8>) -> tensor<2x3xi8> {
  %c = arith.constant 7 : i32
  %y = tosa.abs %x : (tensor<2x3xi8>) -> tensor<2x3xi8>
  return %y : tensor<2x3xi8>
}
func.func private @g(%x: tensor<?xi8>) attributes {pads = array<i64: 1, 2>} {
  return
}
"#;

    fn with_module(work: impl FnOnce(&Module)) {
        let context = create_context(ContextOptions::default());
        let module = Module::parse(&context, TEXT).unwrap();
        work(&module);
    }

    #[test]
    fn reads() {
        with_module(|module| {
            let ops = top_level_ops(module.as_operation());
            assert_eq!(ops.iter().map(|o| symbol_name(o).unwrap()).collect::<Vec<_>>(), ["f", "g"]);
            let (f, g) = (
                find_function(module.as_operation(), "f").unwrap(),
                find_function(module.as_operation(), "g").unwrap(),
            );
            assert!(!is_private(&f) && is_private(&g) && has_body(&f));
            // SAFETY: the functions are live; their types belong to the module's context.
            unsafe {
                let (inputs, results) = function_type(f.to_raw());
                assert_eq!(static_tensor_shape(inputs[0]), Some(vec![2, 3]));
                assert_eq!(type_text(element_type(results[0])), "i8");
                assert_eq!(static_tensor_shape(function_type(g.to_raw()).0[0]), None, "dynamic");
                assert_eq!(i64_array(attribute(g.to_raw(), "pads").unwrap()), Some(vec![1, 2]));
                assert!(attribute(g.to_raw(), "nope").is_none());
            }
            let found = collect(f, |op| op_name(op) == "tosa.abs" || op_name(op) == "arith.constant");
            assert_eq!(found.len(), 2);
            // SAFETY: the ops are live.
            unsafe {
                let abs = found[1];
                assert_eq!(name(abs), "tosa.abs");
                let result = mlirOperationGetResult(found[0], 0);
                assert_eq!(constant_int(result), Some(7));
                assert!(produced_by(result, "arith.constant").is_some() && produced_by(result, "tosa.abs").is_none());
                assert!(defined_inside(mlirOperationGetResult(abs, 0), abs));
                assert!(!defined_inside(mlirOperationGetOperand(abs, 0), abs), "a block argument of @f");
            }
        });
    }

    #[test]
    fn declares_functions() {
        with_module(|module| {
            let f = find_function(module.as_operation(), "f").unwrap();
            // SAFETY: the function is live; the new function's parts belong to its context.
            unsafe {
                let (inputs, results) = function_type(f.to_raw());
                set_function_type(f.to_raw(), &inputs, &results);
                let declared = private_function(
                    "k",
                    function_type_get(mlirOperationGetContext(f.to_raw()), &inputs, &[]),
                    None,
                    mlirOperationGetLocation(f.to_raw()),
                    &[],
                );
                mlirBlockAppendOwnedOperation(module.body().to_raw(), declared);
            }
            let text = print_module(module);
            assert!(text.contains("func.func private @k(tensor<2x3xi8>)"), "{text}");
            assert!(module.as_operation().verify());
        });
    }

    #[test]
    fn folds_integer_arithmetic() {
        // (7 + 2^31 - 1) wraps in i32; (3 * 4 - 5) through index and back; a leaf the caller
        // knows (test.address is 100); an argument is not a constant.
        let text = r#"
func.func @h(%a: i32) {
  %c7 = arith.constant 7 : i32
  %max = arith.constant 2147483647 : i32
  %wrapped = arith.addi %c7, %max : i32
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %m = arith.muli %c3, %c4 : index
  %d = arith.subi %m, %c5 : index
  %back = arith.index_cast %d : index to i32
  %at = "test.address"() : () -> i32
  %past = arith.addi %at, %back : i32
  %x = arith.addi %a, %c7 : i32
  "test.use"(%wrapped, %back, %past, %x) : (i32, i32, i32, i32) -> ()
  return
}
"#;
        let context = create_context(ContextOptions { allow_unregistered_dialects: true, ..Default::default() });
        let module = Module::parse(&context, text).unwrap();
        let uses = collect(module.as_operation(), |op| op_name(op) == "test.use");
        let leaf = |op: MlirOperation| {
            // SAFETY: the folder passes live ops.
            (unsafe { name(op) } == "test.address").then_some(100)
        };
        // SAFETY: the use and its operands are live.
        let folded: Vec<Option<i64>> =
            (0..4).map(|k| unsafe { folded_int(mlirOperationGetOperand(uses[0], k), &leaf) }).collect();
        assert_eq!(folded, [Some(7 - 2_147_483_647 - 2), Some(7), Some(107), None]);
        // SAFETY: as above.
        assert_eq!(unsafe { folded_int(mlirOperationGetOperand(uses[0], 2), &|_| None) }, None);
    }
}

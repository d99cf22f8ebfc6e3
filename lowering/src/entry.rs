//! A model's entry function: its tensor signature, and specializing its dynamic dimensions to
//! the shapes of the tensors a user runs it on.

use melior::{
    Context,
    ir::{
        AttributeLike, BlockLike, Module, OperationRef, RegionLike, Type, TypeLike, ValueLike, operation::OperationLike,
    },
};
use mlir_sys::*;
use umac_dialects::text::{str_ref, string_from, type_text};

/// The element type of a tensor argument or result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Element {
    /// `iN` (`unsigned` for `uiN`).
    Int {
        /// Width.
        bits: u32,
        /// `uiN`.
        unsigned: bool,
    },
    /// `f32`.
    F32,
    /// `f64`.
    F64,
}

/// One tensor of the entry's signature.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorSig {
    /// The name the model gives it (`tf.entry_function`), or `arg<i>`/`result<i>`.
    pub name: String,
    /// Element type.
    pub element: Element,
    /// Sizes, `None` where dynamic.
    pub shape: Vec<Option<i64>>,
}

impl TensorSig {
    /// The type as `tensor<?x49x10x1xi8>`-style text without the `tensor<>`: `?x49x10x1xi8`.
    pub fn describe(&self) -> String {
        let dims: Vec<String> = self.shape.iter().map(|d| d.map_or("?".to_string(), |d| d.to_string())).collect();
        let element = match self.element {
            Element::Int { bits, unsigned } => {
                format!("{}i{bits}", if unsigned { "u" } else { "" })
            }
            Element::F32 => "f32".into(),
            Element::F64 => "f64".into(),
        };
        if dims.is_empty() { element } else { format!("{}x{element}", dims.join("x")) }
    }
}

/// Inputs and outputs of an entry function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntrySignature {
    /// Arguments, in order.
    pub inputs: Vec<TensorSig>,
    /// Results, in order.
    pub outputs: Vec<TensorSig>,
}

/// Finds `func.func @name` at the top of `module`.
pub fn find_entry<'c, 'a>(module: &'a Module<'c>, name: &str) -> Result<OperationRef<'c, 'a>, String> {
    let mut next = module.body().first_operation();
    let mut functions = Vec::new();
    while let Some(op) = next {
        next = op.next_in_block();
        if op.name().as_string_ref().as_str() != Ok("func.func") {
            continue;
        }
        let symbol = op.attribute("sym_name").ok().and_then(umac_dialects::umac::string_value).unwrap_or_default();
        if symbol == name {
            return Ok(op);
        }
        functions.push(format!("@{symbol}"));
    }
    Err(if functions.is_empty() {
        format!("the model has no function @{name} (it has no functions at all)")
    } else {
        format!("the model has no function @{name} (it has {})", functions.join(", "))
    })
}

/// Reads the entry's signature: every argument and result must be a ranked tensor of a
/// supported element type.
pub fn entry_signature(module: &Module, name: &str) -> Result<EntrySignature, String> {
    let entry = find_entry(module, name)?;
    let (inputs, outputs) = function_types(&entry);
    let names = |key: &str, count: usize, prefix: &str| -> Vec<String> {
        let listed = entry
            .attribute("tf.entry_function")
            .ok()
            .map(|d| umac_dialects::text::attribute_text(d))
            .and_then(|text| {
                let start = text.find(&format!("{key} = \""))? + key.len() + 4;
                let end = text[start..].find('"')? + start;
                Some(text[start..end].split(',').map(|s| s.trim().to_string()).collect::<Vec<_>>())
            })
            .filter(|names| names.len() == count);
        listed.unwrap_or_else(|| (0..count).map(|i| format!("{prefix}{i}")).collect())
    };
    let input_names = names("inputs", inputs.len(), "arg");
    let output_names = names("outputs", outputs.len(), "result");
    let sig = |types: Vec<Type>, names: Vec<String>, what: &str| -> Result<Vec<TensorSig>, String> {
        types
            .into_iter()
            .zip(names)
            .enumerate()
            .map(|(i, (ty, name))| {
                tensor_sig(ty, name).map_err(|m| format!("@{} {what} #{i}: {m}", entry_name(&entry)))
            })
            .collect()
    };
    Ok(EntrySignature { inputs: sig(inputs, input_names, "argument")?, outputs: sig(outputs, output_names, "result")? })
}

fn entry_name(op: &OperationRef) -> String {
    op.attribute("sym_name").ok().and_then(umac_dialects::umac::string_value).unwrap_or_default()
}

fn function_types<'c>(op: &OperationRef<'c, '_>) -> (Vec<Type<'c>>, Vec<Type<'c>>) {
    let Ok(attr) = op.attribute("function_type") else {
        return (vec![], vec![]);
    };
    // SAFETY: func.func's verifier guarantees a TypeAttr holding a FunctionType; indices are in range.
    unsafe {
        let fty = mlirTypeAttrGetValue(attr.to_raw());
        let inputs =
            (0..mlirFunctionTypeGetNumInputs(fty)).map(|i| Type::from_raw(mlirFunctionTypeGetInput(fty, i))).collect();
        let results = (0..mlirFunctionTypeGetNumResults(fty))
            .map(|i| Type::from_raw(mlirFunctionTypeGetResult(fty, i)))
            .collect();
        (inputs, results)
    }
}

fn tensor_sig(ty: Type, name: String) -> Result<TensorSig, String> {
    let raw = ty.to_raw();
    // SAFETY: the type is alive; each accessor follows its kind check.
    unsafe {
        if !mlirTypeIsARankedTensor(raw) {
            return Err(format!("'{}' is not a ranked tensor", type_text(ty)));
        }
        let element_raw = mlirShapedTypeGetElementType(raw);
        let element = if mlirTypeIsAInteger(element_raw) {
            let bits = mlirIntegerTypeGetWidth(element_raw);
            if !(1..=64).contains(&bits) {
                return Err(format!("element type of '{}' is not supported at the boundary", type_text(ty)));
            }
            Element::Int { bits, unsigned: mlirIntegerTypeIsUnsigned(element_raw) }
        } else if mlirTypeIsAF32(element_raw) {
            Element::F32
        } else if mlirTypeIsAF64(element_raw) {
            Element::F64
        } else {
            return Err(format!("element type of '{}' is not supported at the boundary", type_text(ty)));
        };
        let rank = mlirShapedTypeGetRank(raw);
        let shape = (0..rank)
            .map(|i| {
                let d = mlirShapedTypeGetDimSize(raw, i as isize);
                (!mlirShapedTypeIsDynamicSize(d)).then_some(d)
            })
            .collect();
        Ok(TensorSig { name, element, shape })
    }
}

/// Gives the entry's dynamic dimensions the sizes in `shapes` (one per argument, already checked
/// against the signature), propagates them through the TOSA graph, and updates the result types.
pub fn specialize_entry(context: &Context, module: &mut Module, name: &str, shapes: &[Vec<i64>]) -> Result<(), String> {
    let signature = entry_signature(module, name)?;
    if signature.inputs.iter().all(|t| t.shape.iter().all(Option::is_some)) {
        return resolve_slice_sizes(context, module);
    }
    {
        let entry = find_entry(module, name)?;
        let block = entry.region(0).ok().and_then(|r| r.first_block()).ok_or("the entry function has no body")?;
        let (inputs, results) = function_types(&entry);
        let mut new_inputs = Vec::new();
        for (i, (ty, shape)) in inputs.iter().zip(shapes).enumerate() {
            // SAFETY: `ty` is a ranked tensor (checked by entry_signature); the new type is built
            // in the same context and set on the block argument it replaces.
            let new = unsafe {
                let raw = ty.to_raw();
                let t = mlirRankedTensorTypeGet(
                    shape.len() as isize,
                    shape.as_ptr(),
                    mlirShapedTypeGetElementType(raw),
                    mlirRankedTensorTypeGetEncoding(raw),
                );
                let arg = block.argument(i).map_err(|e| e.to_string())?;
                mlirValueSetType(arg.to_raw(), t);
                Type::from_raw(t)
            };
            new_inputs.push(new);
        }
        set_function_type(context, &entry, &new_inputs, &results);
    }
    let manager = crate::build_pass_manager(context, "builtin.module(func.func(tosa-infer-shapes))", "builtin.module")
        .map_err(|e| e.message)?;
    manager.run(module).map_err(|_| "shape inference failed for the given input shapes".to_string())?;
    resolve_slice_sizes(context, module)?;
    let entry = find_entry(module, name)?;
    let (inputs, _) = function_types(&entry);
    let returned = return_types(&entry).ok_or("the entry function has no func.return")?;
    for (i, ty) in returned.iter().enumerate() {
        let sig = tensor_sig(*ty, format!("result{i}"))?;
        if sig.shape.iter().any(Option::is_none) {
            return Err(format!(
                "result #{i} still has a dynamic shape ({}) after specializing the inputs",
                type_text(*ty)
            ));
        }
    }
    set_function_type(context, &entry, &inputs, &returned);
    Ok(())
}

/// The types the entry returns. `tosa-infer-shapes` keeps non-TOSA users valid by casting a
/// refined value back to its old type (`tensor.cast`); the return takes the refined value instead.
fn return_types<'c>(entry: &OperationRef<'c, '_>) -> Option<Vec<Type<'c>>> {
    let region = entry.region(0).ok()?;
    let mut block = region.first_block();
    while let Some(b) = block {
        if let Some(term) = b.terminator()
            && term.name().as_string_ref().as_str() == Ok("func.return")
        {
            {
                for (i, value) in term.operands().enumerate() {
                    // SAFETY: the value and its defining op are alive; the cast's source
                    // replaces the operand of the same (refined) tensor type family.
                    unsafe {
                        let raw = value.to_raw();
                        if !mlirValueIsAOpResult(raw) {
                            continue;
                        }
                        let def = mlirOpResultGetOwner(raw);
                        if string_from(mlirIdentifierStr(mlirOperationGetName(def))) == "tensor.cast"
                            && mlirOperationGetNumOperands(def) == 1
                        {
                            mlirOperationSetOperand(term.to_raw(), i as isize, mlirOperationGetOperand(def, 0));
                        }
                    }
                }
                return Some(term.operands().map(|v| v.r#type()).collect());
            }
        }
        block = b.next_in_region();
    }
    None
}

fn set_function_type(context: &Context, entry: &OperationRef, inputs: &[Type], results: &[Type]) {
    let inputs: Vec<MlirType> = inputs.iter().map(|t| t.to_raw()).collect();
    let results: Vec<MlirType> = results.iter().map(|t| t.to_raw()).collect();
    let name = "function_type";
    // SAFETY: all types belong to `context`; the attribute name outlives the call.
    unsafe {
        let fty = mlirFunctionTypeGet(
            context.to_raw(),
            inputs.len() as isize,
            inputs.as_ptr(),
            results.len() as isize,
            results.as_ptr(),
        );
        mlirOperationSetAttributeByName(entry.to_raw(), str_ref(name), mlirTypeAttrGet(fty));
    }
}

/// Replaces `-1` ("to the end") in the size operand of every `tosa.slice` whose input is now
/// static. MLIR 22's `tosa-to-tensor` turns a `-1` size into a dynamic `tensor.extract_slice`
/// size even when shape inference made the result static, which then fails to verify.
fn resolve_slice_sizes(context: &Context, module: &Module) -> Result<(), String> {
    let mut slices = Vec::new();
    module.as_operation().walk(melior::ir::operation::WalkOrder::PreOrder, |op| {
        if op.name().as_string_ref().as_str() == Ok("tosa.slice") {
            slices.push(op.to_raw());
        }
        melior::ir::operation::WalkResult::Advance
    });
    for raw in slices {
        // SAFETY: the slices are alive in `module`; operands and their defining ops are read
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
            let values = melior::ir::Attribute::parse(context, &text).ok_or("cannot build a tosa.const_shape")?;
            let shape_type = melior::ir::Type::parse(context, &format!("!tosa.shape<{}>", resolved.len()))
                .ok_or("cannot build a !tosa.shape type")?;
            let location = melior::ir::Location::from_raw(mlirOperationGetLocation(raw));
            let op = melior::ir::operation::OperationBuilder::new("tosa.const_shape", location)
                .add_attributes(&[(melior::ir::Identifier::new(context, "values"), values)])
                .add_results(&[shape_type])
                .build()
                .map_err(|e| e.to_string())?;
            let block = mlirOperationGetBlock(raw);
            let op = op.into_raw();
            mlirBlockInsertOwnedOperationBefore(block, raw, op);
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
        if !mlirValueIsAOpResult(value) {
            return None;
        }
        let def = mlirOpResultGetOwner(value);
        if string_from(mlirIdentifierStr(mlirOperationGetName(def))) != "tosa.const_shape" {
            return None;
        }
        let key = "values";
        let attr = mlirOperationGetAttributeByName(def, str_ref(key));
        if attr.ptr.is_null() || !mlirAttributeIsADenseIntElements(attr) {
            return None;
        }
        Some(
            (0..mlirElementsAttrGetNumElements(attr))
                .map(|i| mlirDenseElementsAttrGetInt64Value(attr, i as isize))
                .collect(),
        )
    }
}

/// One intermediate result made visible by [`expose_intermediates`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Intermediate {
    /// The op that produced it, e.g. `tosa.conv2d`.
    pub op: String,
    /// Its location, `file:line:col` when known.
    pub location: String,
}

/// Appends the result of every TOSA op in the entry's body (constants aside) to its results, in
/// program order, so a run returns each layer's output after the model's own outputs.
pub fn expose_intermediates(context: &Context, module: &Module, name: &str) -> Result<Vec<Intermediate>, String> {
    let entry = find_entry(module, name)?;
    let (inputs, mut results) = function_types(&entry);
    let region = entry.region(0).map_err(|e| e.to_string())?;
    let block = region.first_block().ok_or("the entry function has no body")?;
    let terminator = block.terminator().ok_or("the entry function has no terminator")?;
    let mut values = Vec::new();
    let mut exposed = Vec::new();
    let mut next = block.first_operation();
    while let Some(op) = next {
        next = op.next_in_block();
        let op_name = op.name().as_string_ref().as_str().unwrap_or_default().to_string();
        // The model's layers: TOSA ops, not constants, not casts left by shape inference.
        if !op_name.starts_with("tosa.") || matches!(op_name.as_str(), "tosa.const" | "tosa.const_shape") {
            continue;
        }
        for result in op.results() {
            let ty = result.r#type();
            // SAFETY: the type is alive.
            if !unsafe { mlirTypeIsARankedTensor(ty.to_raw()) && mlirShapedTypeHasStaticShape(ty.to_raw()) } {
                continue;
            }
            values.push(result.to_raw());
            results.push(ty);
            let location = umac_dialects::file_line_col(op.location())
                .map(|l| format!("{}:{}:{}", l.file, l.line, l.column))
                .unwrap_or_else(|| "<unknown>".into());
            exposed.push(Intermediate { op: op_name.clone(), location });
        }
    }
    // Each intermediate is returned through its own copy: bufferization may compute a result in
    // place of its input or leave a reshaped constant in place, and returning one buffer twice
    // (or a global) is something buffer-results-to-out-params cannot handle.
    let location = terminator.location();
    let mut copies = Vec::new();
    for value in values {
        // SAFETY: the value is a live result; the new op is inserted before the return.
        let copy = unsafe {
            let ty = melior::ir::Type::from_raw(mlirValueGetType(value));
            let op = melior::ir::operation::OperationBuilder::new("bufferization.alloc_tensor", location)
                .add_operands(&[melior::ir::Value::from_raw(value)])
                .add_attributes(&[(
                    melior::ir::Identifier::new(context, "operandSegmentSizes"),
                    melior::ir::attribute::DenseI32ArrayAttribute::new(context, &[0, 1, 0]).into(),
                )])
                .add_results(&[ty])
                .build()
                .map_err(|e| e.to_string())?;
            let op = op.into_raw();
            mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(terminator.to_raw()), terminator.to_raw(), op);
            mlirOperationGetResult(op, 0)
        };
        copies.push(copy);
    }
    // SAFETY: the return op is alive; the new operands are live results of ops in its block.
    unsafe {
        let term = terminator.to_raw();
        let mut operands: Vec<MlirValue> =
            (0..mlirOperationGetNumOperands(term)).map(|i| mlirOperationGetOperand(term, i)).collect();
        operands.extend(copies);
        mlirOperationSetOperands(term, operands.len() as isize, operands.as_ptr());
    }
    set_function_type(context, &entry, &inputs, &results);
    Ok(exposed)
}

/// Drops the entry's argument and result attributes (`tosa.tensor_name` and the like): they
/// are discardable, and LLVM translation warns about every one it does not know.
pub fn strip_argument_attributes(module: &Module, name: &str) -> Result<(), String> {
    let entry = find_entry(module, name)?;
    for key in ["arg_attrs", "res_attrs"] {
        // SAFETY: the op is alive; a null value clears the inherent attribute (func.func keeps
        // argument and result attributes in its properties).
        unsafe {
            mlirOperationSetInherentAttributeByName(
                entry.to_raw(),
                str_ref(key),
                MlirAttribute { ptr: std::ptr::null() },
            );
        }
    }
    Ok(())
}

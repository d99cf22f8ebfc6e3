//! Read access to ops for patterns' predicates and backends' strategies: [`OpView`] and the
//! [`TensorType`] of its operands and results.

use crate::{
    Error,
    pattern::{is_constant_op, single_user, uses},
};
use melior::ir::{
    Attribute, AttributeLike, OperationRef, Type, TypeLike, Value, ValueLike,
    operation::{OperationLike, OperationResult},
};
use umac_dialects::{
    ir::{op_name, string_value},
    location::file_line_col,
    text::{attribute_text, type_text},
};

/// The type of a tensor operand or result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorType {
    /// The dimensions (`None`: dynamic); empty for a scalar or unranked type.
    pub shape: Vec<Option<i64>>,
    /// The element type as MLIR prints it (`i8`, `f32`).
    pub element: String,
}

impl TensorType {
    /// Whether every dimension is known.
    pub fn is_static(&self) -> bool {
        self.shape.iter().all(Option::is_some)
    }

    /// The static dimensions (dynamic ones as -1).
    pub fn dims(&self) -> Vec<i64> {
        self.shape.iter().map(|d| d.unwrap_or(-1)).collect()
    }

    fn of(ty: Type) -> Option<TensorType> {
        let raw = ty.to_raw();
        // SAFETY: the type is alive; shaped-type queries run after the kind checks.
        unsafe {
            if !mlir_sys::mlirTypeIsAShaped(raw) || !mlir_sys::mlirShapedTypeHasRank(raw) {
                return None;
            }
            let rank = mlir_sys::mlirShapedTypeGetRank(raw);
            let shape = (0..rank)
                .map(|i| {
                    (!mlir_sys::mlirShapedTypeIsDynamicDim(raw, i as isize))
                        .then(|| mlir_sys::mlirShapedTypeGetDimSize(raw, i as isize))
                })
                .collect();
            let element = type_text(Type::from_raw(mlir_sys::mlirShapedTypeGetElementType(raw)));
            Some(TensorType { shape, element })
        }
    }
}

/// The entries of a dictionary of integers: each name with its integers.
pub type IntEntries = Vec<(String, Vec<i64>)>;

/// The entries of dictionary attribute `raw` as [`OpView::int_dict`] gives them, each name
/// after `prefix`.
///
/// # Safety
/// `raw` must be a live attribute.
unsafe fn flatten(raw: mlir_sys::MlirAttribute, prefix: &str, out: &mut Vec<(String, Vec<i64>)>) -> Result<(), Error> {
    use mlir_sys::*;
    // SAFETY: the caller's contract; elements are read after the kind checks, within the counts.
    unsafe {
        if !mlirAttributeIsADictionary(raw) {
            let what = if prefix.is_empty() { "the attribute" } else { prefix };
            return Err(Error::Invalid(format!("{what} is not a dictionary")));
        }
        for i in 0..mlirDictionaryAttrGetNumElements(raw) {
            let entry = mlirDictionaryAttrGetElement(raw, i);
            let name = format!("{prefix}{}", umac_dialects::text::string_from(mlirIdentifierStr(entry.name)));
            let value = entry.attribute;
            if mlirAttributeIsADictionary(value) {
                flatten(value, &format!("{name}."), out)?;
            } else if mlirAttributeIsAInteger(value) {
                out.push((name, vec![mlirIntegerAttrGetValueInt(value)]));
            } else if mlirAttributeIsAUnit(value) {
                out.push((name, Vec::new()));
            } else if mlirAttributeIsABool(value) {
                out.push((name, vec![i64::from(mlirBoolAttrGetValue(value))]));
            } else if mlirAttributeIsADenseI64Array(value) {
                let n = mlirDenseArrayGetNumElements(value);
                out.push((name, (0..n).map(|k| mlirDenseI64ArrayGetElement(value, k)).collect()));
            } else {
                return Err(Error::Invalid(format!(
                    "'{name}' is neither an integer, an array<i64>, a unit nor a dictionary"
                )));
            }
        }
    }
    Ok(())
}

/// Read access to an op for predicates and strategies.
#[derive(Clone, Copy)]
pub struct OpView<'c, 'a> {
    op: OperationRef<'c, 'a>,
}

impl<'c, 'a> OpView<'c, 'a> {
    /// Views `op`.
    pub fn new(op: OperationRef<'c, 'a>) -> Self {
        OpView { op }
    }

    /// The op.
    pub fn operation(&self) -> OperationRef<'c, 'a> {
        self.op
    }

    /// Its name, e.g. `tosa.conv2d`.
    pub fn name(&self) -> String {
        op_name(&self.op)
    }

    /// Where it is, as `file:line:col` (or MLIR's printed location).
    pub fn location(&self) -> String {
        match file_line_col(self.op.location()) {
            Some(at) => format!("{}:{}:{}", at.file, at.line, at.column),
            None => self.op.location().to_string(),
        }
    }

    fn attribute(&self, name: &str) -> Option<Attribute<'c>> {
        self.op.attribute(name).ok()
    }

    /// An integer-array attribute (`array<i64: ...>`, `array<i32: ...>`, or `[1, 2]`).
    pub fn ints(&self, name: &str) -> Option<Vec<i64>> {
        let raw = self.attribute(name)?.to_raw();
        // SAFETY: the attribute is alive; elements are read after the kind checks.
        unsafe {
            if mlir_sys::mlirAttributeIsADenseI64Array(raw) {
                let n = mlir_sys::mlirDenseArrayGetNumElements(raw);
                return Some((0..n).map(|i| mlir_sys::mlirDenseI64ArrayGetElement(raw, i)).collect());
            }
            if mlir_sys::mlirAttributeIsADenseI32Array(raw) {
                let n = mlir_sys::mlirDenseArrayGetNumElements(raw);
                return Some((0..n).map(|i| i64::from(mlir_sys::mlirDenseI32ArrayGetElement(raw, i))).collect());
            }
            if mlir_sys::mlirAttributeIsAArray(raw) {
                let n = mlir_sys::mlirArrayAttrGetNumElements(raw);
                return (0..n)
                    .map(|i| {
                        let e = mlir_sys::mlirArrayAttrGetElement(raw, i);
                        mlir_sys::mlirAttributeIsAInteger(e).then(|| mlir_sys::mlirIntegerAttrGetValueInt(e))
                    })
                    .collect();
            }
        }
        None
    }

    /// An integer (or boolean, as 0/1) attribute.
    pub fn int(&self, name: &str) -> Option<i64> {
        let raw = self.attribute(name)?.to_raw();
        // SAFETY: the attribute is alive; values are read after the kind checks.
        unsafe {
            if mlir_sys::mlirAttributeIsAInteger(raw) {
                return Some(mlir_sys::mlirIntegerAttrGetValueInt(raw));
            }
            if mlir_sys::mlirAttributeIsABool(raw) {
                return Some(i64::from(mlir_sys::mlirBoolAttrGetValue(raw)));
            }
        }
        None
    }

    /// A dictionary attribute of integers and integer arrays (`{tiles = array<i64: 0, 4>, dm =
    /// {input = array<i64: 0, 128>}}`), nested dictionaries flattened to `outer.inner`: each
    /// entry's name and its integers (one for an integer or boolean, none for a unit), in the dictionary's
    /// (sorted) order. `None` when the op has no such attribute; `Err` names an entry of another
    /// kind, or says the attribute is no dictionary.
    pub fn int_dict(&self, name: &str) -> Option<Result<IntEntries, Error>> {
        let raw = self.attribute(name)?.to_raw();
        let mut entries = Vec::new();
        // SAFETY: the attribute is alive for the call.
        Some(unsafe { flatten(raw, "", &mut entries) }.map(|()| entries))
    }

    /// An attribute as text, without type or dialect decoration: `DOUBLE_ROUND`, `true`, `3`.
    pub fn attr_text(&self, name: &str) -> Option<String> {
        let attr = self.attribute(name)?;
        if let Some(v) = self.int(name) {
            // SAFETY: the attribute is alive.
            if unsafe { mlir_sys::mlirAttributeIsABool(attr.to_raw()) } {
                return Some((v != 0).to_string());
            }
            return Some(v.to_string());
        }
        if let Some(s) = string_value(attr) {
            return Some(s);
        }
        // Enums print as `#tosa<rounding_mode DOUBLE_ROUND>` or plain `DOUBLE_ROUND`.
        let text = attribute_text(attr);
        let inner = text.rsplit(['<', ' ']).next().unwrap_or(&text).trim_end_matches('>');
        Some(inner.to_string())
    }

    /// How many results it has.
    pub fn result_count(&self) -> usize {
        self.op.result_count()
    }

    /// How many operands it has.
    pub fn operand_count(&self) -> usize {
        self.op.operand_count()
    }

    /// Operand `index`.
    pub fn operand(&self, index: usize) -> Option<Value<'c, 'a>> {
        self.op.operand(index).ok()
    }

    /// The tensor type of operand `index`.
    pub fn operand_type(&self, index: usize) -> Option<TensorType> {
        TensorType::of(self.operand(index)?.r#type())
    }

    /// The type of operand `index` as MLIR prints it (`i32`, `!llvm.ptr`, `tensor<4xi8>`).
    pub fn operand_type_text(&self, index: usize) -> Option<String> {
        Some(type_text(self.operand(index)?.r#type()))
    }

    /// The op whose result operand `index` is (none for a block argument).
    pub fn producer(&self, index: usize) -> Option<OpView<'c, 'a>> {
        OperationResult::try_from(self.operand(index)?).ok().map(|r| OpView::new(r.owner()))
    }

    /// The ops using the op's (first) result, one entry per use.
    pub fn users(&self) -> Vec<OpView<'c, 'a>> {
        uses(&self.op).into_iter().map(|(owner, _)| OpView::new(owner)).collect()
    }

    /// Whether a caller reads the op's (first) result: its function returns it, and the result a
    /// `func.call` of that function in the module gets for it has a use.
    pub fn read_by_callers(&self) -> bool {
        let returned: Vec<usize> =
            uses(&self.op).into_iter().filter(|(owner, _)| op_name(owner) == "func.return").map(|(_, i)| i).collect();
        let function = self.op.parent_operation();
        let (Some(function), false) = (function, returned.is_empty()) else { return false };
        let (Some(name), Some(module)) = (umac_dialects::ir::symbol_name(&function), function.parent_operation())
        else {
            return true;
        };
        let callee = format!("@{name}");
        let calls = umac_dialects::ir::collect(module, |op| {
            op_name(op) == "func.call" && op.attribute("callee").ok().map(attribute_text).as_deref() == Some(&callee)
        });
        // SAFETY: the calls were just collected from the live module; results are read only.
        calls.into_iter().any(|call| unsafe {
            let call = OperationRef::from_raw(call);
            returned
                .iter()
                .any(|&i| call.result(i).is_ok_and(|r| !mlir_sys::mlirValueGetFirstUse(r.to_raw()).ptr.is_null()))
        })
    }

    /// The op after this one in its block.
    pub fn next(&self) -> Option<OpView<'c, 'a>> {
        self.op.next_in_block().map(OpView::new)
    }

    /// The only user of the op's only result, in the same block.
    pub fn only_user(&self) -> Option<OpView<'c, 'a>> {
        single_user(&self.op).map(OpView::new)
    }

    /// The tensor type of the (first) result.
    pub fn result_type(&self) -> Option<TensorType> {
        TensorType::of(self.op.result(0).ok()?.r#type())
    }

    /// Whether operand `index` is the result of a constant op.
    pub fn operand_is_constant(&self, index: usize) -> bool {
        let Some(value) = self.operand(index) else {
            return false;
        };
        // SAFETY: the value is alive; its owner is read only if it is an op result.
        unsafe {
            let raw = value.to_raw();
            if !mlir_sys::mlirValueIsAOpResult(raw) {
                return false;
            }
            let owner = OperationRef::from_raw(mlir_sys::mlirOpResultGetOwner(raw));
            is_constant_op(&op_name(&owner))
        }
    }
}

impl OpView<'_, '_> {
    /// The integer elements of operand `index` when a constant op produces it (`tosa.const`,
    /// `tosa.const_shape`, `arith.constant`; a splat gives its value once per element), in
    /// row-major order.
    pub fn operand_ints(&self, index: usize) -> Option<Vec<i64>> {
        constant_ints(self.operand(index)?)
    }
}

/// The integer elements `value` holds when a constant op produces it (`tosa.const`,
/// `tosa.const_shape`, `arith.constant`, or `bufferization.to_buffer` of one; a splat gives its
/// value once per element), in row-major order.
pub fn constant_ints(value: melior::ir::Value) -> Option<Vec<i64>> {
    // SAFETY: the value and its producer are alive; the attribute is read after the kind
    // checks, at indices below its element count.
    unsafe {
        let raw = value.to_raw();
        if !mlir_sys::mlirValueIsAOpResult(raw) {
            return None;
        }
        let owner = OperationRef::from_raw(mlir_sys::mlirOpResultGetOwner(raw));
        let name = op_name(&owner);
        let attr = match name.as_str() {
            "tosa.const" | "tosa.const_shape" => owner.attribute("values").ok()?,
            "arith.constant" => owner.attribute("value").ok()?,
            "bufferization.to_buffer" => return constant_ints(owner.operand(0).ok()?),
            _ => return None,
        }
        .to_raw();
        if !mlir_sys::mlirAttributeIsADenseElements(attr) {
            return None;
        }
        let ty = mlir_sys::mlirAttributeGetType(attr);
        let rank = mlir_sys::mlirShapedTypeGetRank(ty);
        let count: i64 = (0..rank as isize).map(|d| mlir_sys::mlirShapedTypeGetDimSize(ty, d)).product();
        let element = mlir_sys::mlirShapedTypeGetElementType(ty);
        let bits = if mlir_sys::mlirTypeIsAIndex(element) {
            0
        } else if mlir_sys::mlirTypeIsAInteger(element) {
            mlir_sys::mlirIntegerTypeGetWidth(element)
        } else {
            return None;
        };
        let splat = mlir_sys::mlirDenseElementsAttrIsSplat(attr);
        (0..count)
            .map(|i| {
                let i = if splat { 0 } else { i as isize };
                Some(match bits {
                    0 => mlir_sys::mlirDenseElementsAttrGetIndexValue(attr, i) as i64,
                    1 => i64::from(mlir_sys::mlirDenseElementsAttrGetBoolValue(attr, i)),
                    8 => i64::from(mlir_sys::mlirDenseElementsAttrGetInt8Value(attr, i)),
                    16 => i64::from(mlir_sys::mlirDenseElementsAttrGetInt16Value(attr, i)),
                    32 => i64::from(mlir_sys::mlirDenseElementsAttrGetInt32Value(attr, i)),
                    64 => mlir_sys::mlirDenseElementsAttrGetInt64Value(attr, i),
                    _ => return None,
                })
            })
            .collect()
    }
}

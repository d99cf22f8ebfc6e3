//! A model's entry function as its callers see it: the tensors it takes and returns, their
//! element types and shapes, and how the runtime stores them.

use crate::Error;
use melior::ir::{Module, OperationRef, Type, TypeLike, operation::OperationLike};
use mlir_sys::*;
use umac_dialects::{ir::function_type, text::type_text};
use umac_lowering::entry::find_entry;
use umac_runtime::{DType, Tensor};

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

/// The entry function `name` of `module`; the error names the functions there are.
pub fn entry_function<'c, 'a>(module: &'a Module<'c>, name: &str) -> Result<OperationRef<'c, 'a>, Error> {
    find_entry(module.as_operation(), name).map_err(|e| Error::Usage(e.to_string()))
}

/// Reads the entry's signature: every argument and result must be a ranked tensor of a
/// supported element type.
pub fn entry_signature(module: &Module, name: &str) -> Result<EntrySignature, Error> {
    let entry = entry_function(module, name)?;
    // SAFETY: the entry is a live func.func; its types belong to the module's context.
    let (inputs, outputs): (Vec<Type>, Vec<Type>) = unsafe {
        let (inputs, outputs) = function_type(entry.to_raw());
        (
            inputs.into_iter().map(|t| Type::from_raw(t)).collect(),
            outputs.into_iter().map(|t| Type::from_raw(t)).collect(),
        )
    };
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
    let sig = |types: Vec<Type>, names: Vec<String>, what: &str| -> Result<Vec<TensorSig>, Error> {
        types
            .into_iter()
            .zip(names)
            .enumerate()
            .map(|(i, (ty, tensor))| tensor_sig(ty, tensor, &format!("@{name} {what} #{i}")))
            .collect()
    };
    Ok(EntrySignature { inputs: sig(inputs, input_names, "argument")?, outputs: sig(outputs, output_names, "result")? })
}

/// The signature of one tensor; errors start with `at` (`@main argument #0`).
fn tensor_sig(ty: Type, name: String, at: &str) -> Result<TensorSig, Error> {
    let raw = ty.to_raw();
    let unsupported =
        || Error::Usage(format!("{at}: element type of '{}' is not supported at the boundary", type_text(ty)));
    // SAFETY: the type is alive; each accessor follows its kind check.
    unsafe {
        if !mlirTypeIsARankedTensor(raw) {
            return Err(Error::Usage(format!("{at}: '{}' is not a ranked tensor", type_text(ty))));
        }
        let element_raw = mlirShapedTypeGetElementType(raw);
        let element = if mlirTypeIsAInteger(element_raw) {
            let bits = mlirIntegerTypeGetWidth(element_raw);
            if !(1..=64).contains(&bits) {
                return Err(unsupported());
            }
            Element::Int { bits, unsigned: mlirIntegerTypeIsUnsigned(element_raw) }
        } else if mlirTypeIsAF32(element_raw) {
            Element::F32
        } else if mlirTypeIsAF64(element_raw) {
            Element::F64
        } else {
            return Err(unsupported());
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

/// Sign-extends integers narrower than their container: LLVM stores an `i48` in 6 of its 8 bytes,
/// on the host as on the RV32 control unit, so the other two hold whatever the buffer held.
pub fn sign_extend_odd_widths(tensor: &mut Tensor, element: Element) {
    let Element::Int { bits, unsigned: false } = element else { return };
    let size = tensor.dtype.size();
    let container = size as u32 * 8;
    if bits == 1 || bits >= container {
        return;
    }
    let shift = 64 - bits;
    for chunk in tensor.data.chunks_exact_mut(size) {
        let mut raw = [0u8; 8];
        raw[..size].copy_from_slice(chunk);
        let value = ((u64::from_le_bytes(raw) << shift) as i64) >> shift;
        chunk.copy_from_slice(&value.to_le_bytes()[..size]);
    }
}

/// The runtime type of a signature element: the container both engines store it in (an `i48`
/// lives in 8 bytes, so it is exchanged as int64, sign-extended).
pub fn dtype_of(element: Element) -> Option<DType> {
    Some(match element {
        Element::Int { bits: 1, .. } => DType::Bool,
        Element::Int { bits: 8, unsigned: true } => DType::U8,
        Element::Int { bits: 2..=8, .. } => DType::I8,
        Element::Int { bits: 9..=16, .. } => DType::I16,
        Element::Int { bits: 17..=32, .. } => DType::I32,
        Element::Int { bits: 33..=64, .. } => DType::I64,
        Element::F32 => DType::F32,
        Element::F64 => DType::F64,
        Element::Int { .. } => return None,
    })
}

impl TensorSig {
    /// Its sizes, a dynamic dimension counted as 1.
    pub fn dims(&self) -> Vec<i64> {
        self.shape.iter().map(|d| d.unwrap_or(1)).collect()
    }

    /// Its bytes as the runtime stores it.
    pub fn byte_size(&self) -> u64 {
        let elements: i64 = self.dims().iter().product();
        elements as u64 * dtype_of(self.element).map_or(1, |d| d.size() as u64)
    }

    /// Whether a dimension is dynamic.
    pub fn is_dynamic(&self) -> bool {
        self.shape.iter().any(Option::is_none)
    }
}

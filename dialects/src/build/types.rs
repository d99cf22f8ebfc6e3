//! The types, attributes and comparison predicates of [`super::Builder`]'s ops, and how each
//! becomes the C API's.

use crate::text::str_ref;
use mlir_sys::*;

/// The types the builder's ops take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    I1,
    I8,
    I16,
    I32,
    I64,
    Index,
    F32,
    F64,
    /// `!llvm.ptr`.
    Ptr,
    /// Any other type of the builder's context, e.g. `vector<4xf32>` ([`Builder::shaped_like`]).
    Of(RawType),
}

impl Ty {
    /// The integer type MLIR spells `name` (`i8`, `i16`, `i32`, `i64`, `i1`), if it is one of
    /// the named ones.
    pub fn integer(name: &str) -> Option<Ty> {
        Some(match name {
            "i1" => Ty::I1,
            "i8" => Ty::I8,
            "i16" => Ty::I16,
            "i32" => Ty::I32,
            "i64" => Ty::I64,
            _ => return None,
        })
    }
}

/// An MLIR type by handle, for [`Ty::Of`]; types are uniqued in their context, so equal handles
/// are equal types.
#[derive(Clone, Copy, Debug)]
pub struct RawType(pub MlirType);

impl PartialEq for RawType {
    fn eq(&self, other: &RawType) -> bool {
        self.0.ptr == other.0.ptr
    }
}

impl Eq for RawType {}

/// An attribute of an op being built.
#[derive(Clone, Copy, Debug)]
pub enum Attr<'a> {
    /// An integer of the type (of its element type, splat, for a vector or tensor type).
    Int(Ty, i64),
    /// A float of the type (of its element type, splat, for a vector or tensor type).
    Float(Ty, f64),
    /// A type.
    Type(Ty),
    /// `array<i32: ...>`.
    I32Array(&'a [i32]),
    /// `array<i64: ...>`.
    I64Array(&'a [i64]),
    /// A string.
    Str(&'a str),
    /// The integers of a dense elements attribute of the (shaped) type, e.g. `dense<[1, 2]> :
    /// tensor<2xindex>`; one integer is a splat. Integers are truncated to the element type's
    /// width.
    Dense(Ty, &'a [i64]),
    /// `[\"a\", \"b\"]`: an array of strings.
    Strings(&'a [&'a str]),
    /// A unit attribute (a flag).
    Unit,
    /// `true` or `false`.
    Bool(bool),
    /// An array of attributes.
    Array(&'a [Attr<'a>]),
    /// An affine map of `dims` dimensions whose results are linear: each row holds a coefficient
    /// for each dimension, then a constant (`[2, 1, -1]` is `(d0, d1) -> (d0 * 2 + d1 - 1)`).
    Map(usize, &'a [Vec<i64>]),
    /// `@name`: a reference to a symbol (a function).
    Symbol(&'a str),
    /// An attribute the IR holds already (copied from an op).
    Raw(MlirAttribute),
    /// A dictionary of named attributes (MLIR sorts the names).
    Dict(&'a [(&'a str, Attr<'a>)]),
    /// A fixed attribute in MLIR syntax, e.g. `#llvm.loop_annotation<unroll = <full = true>>`;
    /// one that does not parse is an internal error at [`Builder::finish`].
    Parsed(&'a str),
}

/// The predicates of `arith.cmpi`, numbered as MLIR numbers them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    Eq = 0,
    Ne = 1,
    Slt = 2,
    Sle = 3,
    Sgt = 4,
    Sge = 5,
    Ult = 6,
    Ule = 7,
    Ugt = 8,
    Uge = 9,
}

/// The predicates of `arith.cmpf`, numbered as MLIR numbers them (`O`: ordered, false when
/// either operand is NaN; `U`: unordered, true then).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpF {
    False = 0,
    Oeq = 1,
    Ogt = 2,
    Oge = 3,
    Olt = 4,
    Ole = 5,
    One = 6,
    Ord = 7,
    Ueq = 8,
    Ugt = 9,
    Uge = 10,
    Ult = 11,
    Ule = 12,
    Une = 13,
    Uno = 14,
    True = 15,
}

/// The MLIR type of `t` in `context`.
///
/// # Safety
/// `context` must be live.
pub(super) unsafe fn ty(context: MlirContext, t: Ty) -> MlirType {
    // SAFETY: the caller's contract.
    unsafe {
        match t {
            Ty::I1 => mlirIntegerTypeGet(context, 1),
            Ty::I8 => mlirIntegerTypeGet(context, 8),
            Ty::I16 => mlirIntegerTypeGet(context, 16),
            Ty::I32 => mlirIntegerTypeGet(context, 32),
            Ty::I64 => mlirIntegerTypeGet(context, 64),
            Ty::Index => mlirIndexTypeGet(context),
            Ty::F32 => mlirF32TypeGet(context),
            Ty::F64 => mlirF64TypeGet(context),
            Ty::Ptr => mlirLLVMPointerTypeGet(context, 0),
            Ty::Of(RawType(raw)) => raw,
        }
    }
}

/// `raw` as the named [`Ty`] it is, or a [`Ty::Of`].
///
/// # Safety
/// `context` must be live, `raw` of it.
pub(super) unsafe fn named(context: MlirContext, raw: MlirType) -> Ty {
    // SAFETY: the caller's contract.
    unsafe {
        [Ty::I1, Ty::I8, Ty::I16, Ty::I32, Ty::I64, Ty::Index, Ty::F32, Ty::F64, Ty::Ptr]
            .into_iter()
            .find(|t| mlirTypeEqual(ty(context, *t), raw))
            .unwrap_or(Ty::Of(RawType(raw)))
    }
}

/// The attribute `scalar` makes of an element type, for `t` itself or splat over `t`'s shape
/// when it is a vector or tensor.
///
/// # Safety
/// `t` must be live.
unsafe fn splat_or_scalar(t: MlirType, scalar: impl FnOnce(MlirType) -> MlirAttribute) -> MlirAttribute {
    // SAFETY: the caller's contract; the element type is `t`'s.
    unsafe {
        if mlirTypeIsAShaped(t) {
            mlirDenseElementsAttrSplatGet(t, scalar(mlirShapedTypeGetElementType(t)))
        } else {
            scalar(t)
        }
    }
}

/// `attr` in `context`; one that does not parse is noted in `error` (the first such) and
/// made a unit attribute.
///
/// # Safety
/// `context` must be live, the types the attribute names of it.
pub(super) unsafe fn attribute(context: MlirContext, attr: Attr, error: &mut Option<String>) -> MlirAttribute {
    // SAFETY: every attribute is created in the live context from data alive for the call.
    unsafe {
        match attr {
            Attr::Int(t, value) => splat_or_scalar(ty(context, t), |e| mlirIntegerAttrGet(e, value)),
            Attr::Float(t, value) => splat_or_scalar(ty(context, t), |e| mlirFloatAttrDoubleGet(context, e, value)),
            Attr::Type(t) => mlirTypeAttrGet(ty(context, t)),
            Attr::Dense(t, values) => {
                let t = ty(context, t);
                let element = mlirShapedTypeGetElementType(t);
                // Each value truncated to the element's width (its low bits, sign-extended).
                let bits = if mlirTypeIsAInteger(element) { mlirIntegerTypeGetWidth(element).clamp(1, 64) } else { 64 };
                let truncated = |v: i64| (v << (64 - bits)) >> (64 - bits);
                let all: Vec<MlirAttribute> =
                    values.iter().map(|v| mlirIntegerAttrGet(element, truncated(*v))).collect();
                match all[..] {
                    [one] => mlirDenseElementsAttrSplatGet(t, one),
                    _ => mlirDenseElementsAttrGet(t, all.len() as isize, all.as_ptr()),
                }
            }
            Attr::I32Array(values) => mlirDenseI32ArrayGet(context, values.len() as isize, values.as_ptr()),
            Attr::I64Array(values) => mlirDenseI64ArrayGet(context, values.len() as isize, values.as_ptr()),
            Attr::Str(text) => mlirStringAttrGet(context, str_ref(text)),
            Attr::Strings(texts) => {
                let all: Vec<MlirAttribute> = texts.iter().map(|t| mlirStringAttrGet(context, str_ref(t))).collect();
                mlirArrayAttrGet(context, all.len() as isize, all.as_ptr())
            }
            Attr::Unit => mlirUnitAttrGet(context),
            Attr::Bool(value) => mlirBoolAttrGet(context, i32::from(value)),
            Attr::Array(items) => {
                let all: Vec<MlirAttribute> = items.iter().map(|a| attribute(context, *a, error)).collect();
                mlirArrayAttrGet(context, all.len() as isize, all.as_ptr())
            }
            Attr::Map(dims, rows) => mlirAffineMapAttrGet(affine_map(context, dims, rows)),
            Attr::Raw(raw) => raw,
            Attr::Symbol(name) => mlirFlatSymbolRefAttrGet(context, str_ref(name)),
            Attr::Dict(entries) => {
                let named: Vec<MlirNamedAttribute> = entries
                    .iter()
                    .map(|(name, value)| {
                        let value = attribute(context, *value, error);
                        mlirNamedAttributeGet(mlirIdentifierGet(context, str_ref(name)), value)
                    })
                    .collect();
                mlirDictionaryAttrGet(context, named.len() as isize, named.as_ptr())
            }
            Attr::Parsed(text) => {
                let parsed = mlirAttributeParseGet(context, str_ref(text));
                if parsed.ptr.is_null() {
                    error.get_or_insert_with(|| format!("the attribute '{text}' does not parse"));
                    return mlirUnitAttrGet(context);
                }
                parsed
            }
        }
    }
}

/// The rows of [`Attr::Map`] for a projection: each result one of `dims` dimensions.
pub fn projection(dims: usize, results: &[usize]) -> Vec<Vec<i64>> {
    results.iter().map(|r| (0..=dims).map(|d| i64::from(d == *r)).collect()).collect()
}

/// The affine map [`Attr::Map`] describes, its expressions in the form MLIR's parser simplifies
/// the same text to (`d * 1` is `d`; a zero term is dropped; the constant last).
///
/// # Safety
/// `context` must be live.
unsafe fn affine_map(context: MlirContext, dims: usize, rows: &[Vec<i64>]) -> MlirAffineMap {
    // SAFETY: the caller's contract; every expression is made in the context.
    unsafe {
        let results: Vec<MlirAffineExpr> = rows
            .iter()
            .map(|row| {
                let mut sum: Option<MlirAffineExpr> = None;
                for (d, &c) in row[..dims].iter().enumerate().filter(|(_, c)| **c != 0) {
                    let dim = mlirAffineDimExprGet(context, d as isize);
                    let term =
                        if c == 1 { dim } else { mlirAffineMulExprGet(dim, mlirAffineConstantExprGet(context, c)) };
                    sum = Some(sum.map_or(term, |s| mlirAffineAddExprGet(s, term)));
                }
                let constant = row[dims];
                match sum {
                    None => mlirAffineConstantExprGet(context, constant),
                    Some(s) if constant == 0 => s,
                    Some(s) => mlirAffineAddExprGet(s, mlirAffineConstantExprGet(context, constant)),
                }
            })
            .collect();
        mlirAffineMapGet(context, dims as isize, 0, results.len() as isize, results.as_ptr().cast_mut())
    }
}

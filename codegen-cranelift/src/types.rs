//! MLIR types as the translator sees them: scalars in Cranelift containers, memrefs as layouts.

use cranelift_codegen::ir::{Type as ClifType, types};
use melior::ir::{Type, TypeLike};
use mlir_sys::*;

/// A scalar MLIR type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scalar {
    /// `iN` for 1 ≤ N ≤ 64, held in the smallest Cranelift integer type that fits.
    Int(u32),
    /// `index`, 64-bit on the host.
    Index,
    /// `f32`.
    F32,
    /// `f64`.
    F64,
}

impl Scalar {
    /// The Cranelift type holding the value.
    pub fn clif(self) -> ClifType {
        match self {
            Scalar::Int(bits) => container(bits),
            Scalar::Index => types::I64,
            Scalar::F32 => types::F32,
            Scalar::F64 => types::F64,
        }
    }

    /// Bytes one element takes in memory (LLVM's allocation size: i1 is a byte, i48 eight).
    pub fn bytes(self) -> i64 {
        i64::from(self.clif().bytes())
    }

    /// The integer width, or `None` for floats.
    pub fn int_bits(self) -> Option<u32> {
        match self {
            Scalar::Int(bits) => Some(bits),
            Scalar::Index => Some(64),
            _ => None,
        }
    }

    /// Tells whether this is a float type.
    pub fn is_float(self) -> bool {
        matches!(self, Scalar::F32 | Scalar::F64)
    }
}

/// The Cranelift integer type for an `iN`.
pub fn container(bits: u32) -> ClifType {
    match bits {
        0..=8 => types::I8,
        9..=16 => types::I16,
        17..=32 => types::I32,
        _ => types::I64,
    }
}

/// A memref type: element, shape and strided layout (`None` marks a dynamic value).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemRefType {
    /// Element type.
    pub element: Scalar,
    /// Sizes.
    pub shape: Vec<Option<i64>>,
    /// Strides in elements.
    pub strides: Vec<Option<i64>>,
    /// Offset in elements.
    pub offset: Option<i64>,
}

impl MemRefType {
    /// Number of elements, if static.
    pub fn static_len(&self) -> Option<i64> {
        self.shape.iter().try_fold(1i64, |acc, d| d.map(|d| acc * d))
    }

    /// Tells whether the layout is the row-major identity with static sizes.
    pub fn is_contiguous_static(&self) -> bool {
        if self.offset != Some(0) || self.shape.iter().any(Option::is_none) {
            return false;
        }
        let mut expected = 1;
        for (size, stride) in self.shape.iter().zip(&self.strides).rev() {
            if *stride != Some(expected) && size.unwrap_or(0) != 1 {
                return false;
            }
            expected *= size.unwrap_or(0);
        }
        true
    }
}

/// An MLIR type the translator handles.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ValType {
    /// A scalar.
    Scalar(Scalar),
    /// A memref.
    MemRef(MemRefType),
}

/// Classifies an MLIR type, or says why it is not supported.
pub fn classify(ty: Type) -> Result<ValType, crate::Error> {
    let raw = ty.to_raw();
    // SAFETY: the type is alive; every call only inspects it.
    unsafe {
        if mlirTypeIsAMemRef(raw) {
            let element = match scalar(mlirShapedTypeGetElementType(raw)) {
                Some(s) => s,
                None => {
                    return Err(crate::Error::Unsupported(format!(
                        "memref element type '{}' is not supported",
                        umac_dialects::text::type_text(ty)
                    )));
                }
            };
            let rank = usize::try_from(mlirShapedTypeGetRank(raw)).unwrap_or(0);
            let shape = (0..rank)
                .map(|i| {
                    let d = mlirShapedTypeGetDimSize(raw, i as isize);
                    (!mlirShapedTypeIsDynamicSize(d)).then_some(d)
                })
                .collect();
            let mut strides = vec![0i64; rank];
            let mut offset = 0i64;
            if mlirMemRefTypeGetStridesAndOffset(raw, strides.as_mut_ptr(), &mut offset).value == 0 {
                return Err(crate::Error::Unsupported(format!(
                    "memref layout of '{}' is not strided",
                    umac_dialects::text::type_text(ty)
                )));
            }
            let dynamic = |v: i64| (!mlirShapedTypeIsDynamicStrideOrOffset(v)).then_some(v);
            return Ok(ValType::MemRef(MemRefType {
                element,
                shape,
                strides: strides.into_iter().map(dynamic).collect(),
                offset: dynamic(offset),
            }));
        }
        scalar(raw).map(ValType::Scalar).ok_or_else(|| {
            crate::Error::Unsupported(format!(
                "type '{}' is not supported by the Cranelift engine",
                umac_dialects::text::type_text(ty)
            ))
        })
    }
}

/// # Safety
/// `raw` must be a live type.
unsafe fn scalar(raw: MlirType) -> Option<Scalar> {
    // SAFETY: caller's contract.
    unsafe {
        if mlirTypeIsAInteger(raw) {
            let bits = mlirIntegerTypeGetWidth(raw);
            return (1..=64).contains(&bits).then_some(Scalar::Int(bits));
        }
        if mlirTypeIsAIndex(raw) {
            return Some(Scalar::Index);
        }
        if mlirTypeIsAF32(raw) {
            return Some(Scalar::F32);
        }
        if mlirTypeIsAF64(raw) {
            return Some(Scalar::F64);
        }
    }
    None
}

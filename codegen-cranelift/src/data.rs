//! `memref.global` → Cranelift data objects, with MLIR's dense storage decoded into the engine's
//! element layout (container-sized, little-endian, integers sign-extended, i1 as 0/1 bytes).

use crate::{
    Error, Result,
    translate::{string_attr, unsupported},
    types::{Scalar, ValType, classify},
};
use cranelift_module::{DataDescription, DataId, Linkage, Module};
use melior::ir::{Attribute, AttributeLike, OperationRef, operation::OperationLike};

/// Defines the data object of a `memref.global`; returns its MLIR name and id.
pub(crate) fn define_global<M: Module>(module: &mut M, op: &OperationRef) -> Result<(String, DataId)> {
    let name = string_attr(op, "sym_name")?;
    let ty_attr = op.attribute("type").map_err(|_| unsupported(op.location(), "memref.global without type"))?;
    // SAFETY: the attribute is alive and, for memref.global, a TypeAttr.
    let ty = unsafe { melior::ir::Type::from_raw(mlir_sys::mlirTypeAttrGetValue(ty_attr.to_raw())) };
    let ValType::MemRef(memref) = classify(ty).map_err(|e| unsupported(op.location(), &e.to_string()))? else {
        return Err(unsupported(op.location(), "memref.global of a non-memref type"));
    };
    let Some(len) = memref.static_len() else {
        return Err(unsupported(op.location(), "memref.global with a dynamic shape"));
    };
    let constant = op.attribute("constant").is_ok();
    let id = module
        .declare_data(&format!("__umac_global_{name}"), Linkage::Local, !constant, false)
        .map_err(|e| Error::Cranelift(e.to_string()))?;
    let mut description = DataDescription::new();
    let bytes = len as usize * memref.element.bytes() as usize;
    match op.attribute("initial_value") {
        // SAFETY: the attribute is alive; checked to be a unit attribute.
        Ok(init) if !unsafe { mlir_sys::mlirAttributeIsAUnit(init.to_raw()) } => {
            let data =
                decode(init, memref.element, len as usize).map_err(|e| unsupported(op.location(), &e.to_string()))?;
            description.define(data.into_boxed_slice());
        }
        Ok(_) => description.define_zeroinit(bytes.max(1)),
        Err(_) => {
            return Err(unsupported(op.location(), "external memref.global (no initial value) is not supported"));
        }
    }
    let align = op
        .attribute("alignment")
        .ok()
        // SAFETY: the attribute is alive and checked to be an integer.
        .filter(|a| unsafe { mlir_sys::mlirAttributeIsAInteger(a.to_raw()) })
        .map(|a| unsafe { mlir_sys::mlirIntegerAttrGetValueInt(a.to_raw()) } as u64)
        .unwrap_or(16)
        .max(16);
    description.set_align(align);
    module.define_data(id, &description).map_err(|e| Error::Cranelift(e.to_string()))?;
    Ok((name, id))
}

/// Decodes a dense elements attribute (or a dense resource) into the engine's layout.
pub fn decode(attr: Attribute, element: Scalar, len: usize) -> Result<Vec<u8>> {
    let raw = attr.to_raw();
    let width = element.bytes() as usize;
    let mut out = Vec::with_capacity(len * width);
    // SAFETY: the attribute is alive; raw data is read within the sizes MLIR defines for its
    // storage (one element when splat, `len` otherwise; i1 packed 8 to a byte).
    unsafe {
        if mlir_sys::mlirAttributeIsADenseElements(raw) {
            let data = mlir_sys::mlirDenseElementsAttrGetRawData(raw).cast::<u8>();
            let splat = mlir_sys::mlirDenseElementsAttrIsSplat(raw);
            let bits = match element {
                Scalar::Int(b) => b,
                Scalar::Index => 64,
                Scalar::F32 => 32,
                Scalar::F64 => 64,
            };
            for i in 0..len {
                let index = if splat { 0 } else { i };
                let value: u64 = if bits == 1 {
                    if splat { u64::from(*data != 0) } else { u64::from((*data.add(index / 8) >> (index % 8)) & 1) }
                } else {
                    let storage = (bits as usize).div_ceil(8);
                    let mut v = 0u64;
                    for k in 0..storage {
                        v |= u64::from(*data.add(index * storage + k)) << (8 * k);
                    }
                    if matches!(element, Scalar::Int(_)) && bits < 64 {
                        (((v << (64 - bits)) as i64) >> (64 - bits)) as u64
                    } else {
                        v
                    }
                };
                out.extend_from_slice(&value.to_le_bytes()[..width]);
            }
            return Ok(out);
        }
        if mlir_sys::mlirAttributeIsADenseResourceElements(raw) {
            for i in 0..len as isize {
                let value: u64 = match element {
                    Scalar::Int(1) => u64::from(mlir_sys::mlirDenseBoolResourceElementsAttrGetValue(raw, i)),
                    Scalar::Int(8) => mlir_sys::mlirDenseInt8ResourceElementsAttrGetValue(raw, i) as i64 as u64,
                    Scalar::Int(16) => mlir_sys::mlirDenseInt16ResourceElementsAttrGetValue(raw, i) as i64 as u64,
                    Scalar::Int(32) => mlir_sys::mlirDenseInt32ResourceElementsAttrGetValue(raw, i) as i64 as u64,
                    Scalar::Int(64) | Scalar::Index => {
                        mlir_sys::mlirDenseInt64ResourceElementsAttrGetValue(raw, i) as u64
                    }
                    Scalar::F32 => u64::from(mlir_sys::mlirDenseFloatResourceElementsAttrGetValue(raw, i).to_bits()),
                    Scalar::F64 => mlir_sys::mlirDenseDoubleResourceElementsAttrGetValue(raw, i).to_bits(),
                    Scalar::Int(_) => {
                        return Err(Error::Unsupported(
                            "dense_resource of an odd-width integer is not supported".into(),
                        ));
                    }
                };
                out.extend_from_slice(&value.to_le_bytes()[..width]);
            }
            return Ok(out);
        }
    }
    Err(Error::Unsupported(format!(
        "initial value {} is not a dense constant",
        umac_dialects::text::attribute_text(attr)
    )))
}

//! `tynnp.dma`: a DMA copy between memrefs, with completion tokens, and its lowering to
//! `dma.copy` (targets/tynnp/docs/isa.md section 5.1).
//!
//! ```mlir
//! %t = "tynnp.dma"(%descriptor, %channel, %after0, %after1, %src, %dst)
//!     : (!llvm.ptr, i32, i32, i32, memref<4x32xi8, strided<[96, 1], offset: ?>>, memref<4x32xi8, "tynnp.dm">) -> i32
//! ```
//!
//! Every element of `%src` is copied into `%dst` (the same shape and element type) on DMA
//! channel `%channel`, after the jobs of the tokens `%after0` and `%after1` (0: none); the
//! result is the copy's token. Either side is in DDR (the default memory space) or in DM
//! (`"tynnp.dm"`), of up to three dimensions with static strides and a contiguous innermost one:
//! a strided `dma.copy` of planes of rows. Like the instruction ops, it writes its descriptor at
//! `%descriptor`, a buffer in DMEM.
//!
//! `umac-convert-tynnp-to-llvm` computes each side's address: a buffer in DM from the offset
//! `umac-allocate-dm-tynnp` gave it (a `memref.view` of `tynnp.dm`, 0x10000000) and the offsets
//! of the subviews taken of it; a buffer in DDR from its aligned pointer and likewise. The
//! aligned pointer of a buffer in DM (what a kernel's call passes for an address in a region)
//! becomes its address too.

use crate::{
    codegen::{
        instructions::{copy_words, issue, named},
        memory::{DM, DM_SPACE},
    },
    error::TynnpError,
};
use melior::ir::{OperationRef, TypeLike, ValueLike, operation::OperationLike};
use mlir_sys::*;
use umac_backend::{Builder, OpView, Ty, Value};
use umac_dialects::{
    ir::{shape_of, static_memref_bits, strides_and_offset},
    text::string_from,
};
use umac_tynnp_device::params::DM_BASE;

/// The op.
pub(crate) const DMA: &str = "tynnp.dma";

/// One side of a copy: in DM or not, its shape, strides (elements) and offset (elements; `None`:
/// dynamic), and the bytes of an element.
#[derive(Debug, PartialEq)]
struct Side {
    dm: bool,
    shape: Vec<i64>,
    strides: Vec<i64>,
    offset: Option<i64>,
    bytes: i64,
}

/// The side a memref of type `ty` is.
fn side(ty: MlirType) -> Result<Side, TynnpError> {
    let contract = |message: &str| TynnpError::Contract(message.to_string());
    let (_, bits) = static_memref_bits(ty).ok_or_else(|| contract("takes memrefs of static shape"))?;
    if bits % 8 != 0 {
        return Err(contract(&format!("copies whole bytes; an element has {bits} bits")));
    }
    // SAFETY: `static_memref_bits` found a live memref type; its memory space is read.
    unsafe {
        let space = mlirMemRefTypeGetMemorySpace(ty);
        let dm = !space.ptr.is_null();
        if dm && !(mlirAttributeIsAString(space) && string_from(mlirStringAttrGetValue(space)) == DM_SPACE) {
            return Err(contract(&format!("copies between DDR (the default memory space) and DM (\"{DM_SPACE}\")")));
        }
        let (strides, offset) = strides_and_offset(ty).ok_or_else(|| contract("takes memrefs of strided layouts"))?;
        let strides: Vec<i64> =
            strides.into_iter().collect::<Option<_>>().ok_or_else(|| contract("takes memrefs of static strides"))?;
        Ok(Side { dm, shape: shape_of(ty), strides, offset, bytes: bits / 8 })
    }
}

/// The `dma.copy` of `src` to `dst` (checked by [`verify`]): row bytes, rows, planes, and the
/// row and plane strides of each side, in bytes (a copy of fewer dimensions has one plane, or
/// one row).
fn shape(src: &Side, dst: &Side) -> [i64; 7] {
    let pad = |v: &[i64], fill: i64| -> Vec<i64> { [vec![fill; 3 - v.len()], v.to_vec()].concat() };
    let (dims, s, d) = (pad(&src.shape, 1), pad(&src.strides, 0), pad(&dst.strides, 0));
    let b = src.bytes;
    [dims[2] * b, dims[1], dims[0], s[1] * b, d[1] * b, s[0] * b, d[0] * b]
}

/// Checks `tynnp.dma`: the descriptor, channel and two tokens, then two memrefs of the same shape
/// and element type, each in DDR or DM, of one to three dimensions with static strides, the
/// innermost contiguous; one i32 token.
pub fn verify(op: &OpView) -> Result<(), TynnpError> {
    let types: Vec<String> = (0..op.operand_count()).filter_map(|i| op.operand_type_text(i)).collect();
    let scalars_ok = types.len() == 6 && types[0] == "!llvm.ptr" && types[1..4].iter().all(|t| t == "i32");
    let result_ok = op.result_count() == 1
        && op.operation().result(0).is_ok_and(|r| umac_dialects::text::type_text(r.r#type()) == "i32");
    if !scalars_ok || !result_ok {
        return Err(TynnpError::Contract(
            "takes the descriptor's address (!llvm.ptr), the channel and two tokens (i32), the source and the \
             destination (memrefs), and gives a token"
                .into(),
        ));
    }
    let contract = |message: String| TynnpError::Contract(message);
    let [src, dst] = [4, 5].map(|i| op.operand(i).map(|v| side(v.r#type().to_raw())));
    let (src, dst) = match (src, dst) {
        (Some(Ok(src)), Some(Ok(dst))) => (src, dst),
        (Some(Err(e)), _) | (_, Some(Err(e))) => return Err(e),
        _ => return Err(contract("takes a source and a destination".into())),
    };
    let element = |i: usize| {
        // SAFETY: the operand's type is a live memref type (`side` checked it).
        op.operand(i).map(|v| unsafe { mlirShapedTypeGetElementType(v.r#type().to_raw()) })
    };
    // SAFETY: both element types are live types of the op's context.
    let same_element = matches!((element(4), element(5)), (Some(a), Some(b)) if unsafe { mlirTypeEqual(a, b) });
    if src.shape != dst.shape || !same_element {
        return Err(contract(format!("copies {} to {}: not the same shape and element type", types[4], types[5])));
    }
    if src.shape.is_empty() || src.shape.len() > 3 || src.shape.contains(&0) {
        return Err(contract(format!("copies one to three dimensions of at least one element, not {}", types[4])));
    }
    if src.strides.last() != Some(&1) || dst.strides.last() != Some(&1) {
        return Err(contract("copies rows of contiguous elements (the innermost stride 1 on both sides)".into()));
    }
    Ok(())
}

/// The lowering of `tynnp.dma`, written by `b` in front of it (`None`: not this op): each side's
/// address ([`address`]), then the `dma.copy` descriptor and instruction. The op is verified.
pub fn lower(op: &OpView, b: &mut Builder) -> Option<Result<Vec<Value>, TynnpError>> {
    if op.name() != DMA {
        return None;
    }
    let sides = [4, 5].map(|i| op.operand(i).map(|v| (v, side(v.r#type().to_raw()))));
    let [Some((src, Ok(src_side))), Some((dst, Ok(dst_side)))] = sides else {
        return Some(Err(TynnpError::Contract("is not a verified tynnp.dma".into())));
    };
    let addresses = address(src.to_raw(), b).and_then(|s| Ok((s, address(dst.to_raw(), b)?)));
    let (from, to) = match addresses {
        Ok(pair) => pair,
        Err(e) => return Some(Err(e)),
    };
    let shape = shape(&src_side, &dst_side).map(|v| b.constant(Ty::I32, v));
    let words = copy_words([b.arg(2), b.arg(3)], (from, to), shape);
    let copy = named("tynnp.dma_copy").expect("dma.copy is an instruction");
    Some(Ok(vec![issue(b, (copy, 0), b.arg(0), b.arg(1), &words)]))
}

/// The op giving a buffer's address, which `umac-convert-tynnp-to-llvm` sees for buffers in DM
/// (a call's address of a region, `umac_backend::ExternArg::Address`).
const POINTER: &str = "memref.extract_aligned_pointer_as_index";

/// The lowering of [`POINTER`] of a buffer in DM (`None`: not this op): its [`address`].
pub fn lower_pointer(op: &OpView, b: &mut Builder) -> Option<Result<Vec<Value>, TynnpError>> {
    if op.name() != POINTER {
        return None;
    }
    let buffer = op.operand(0)?.to_raw();
    // SAFETY: the operand is a live value of the op being lowered.
    let in_dm = side(unsafe { mlirValueGetType(buffer) }).is_ok_and(|s| s.dm);
    if !in_dm {
        // A buffer in DDR keeps its pointer.
        return None;
    }
    Some(address(buffer, b).map(|at| vec![b.index_cast(at, Ty::Index)]))
}

/// The address (an i32) of the first element of the memref `value`, written by `b`: a view
/// (`memref.view`) adds its byte shift to its source's, a subview its offsets times its source's
/// strides; `tynnp.dm` is DM's base; any other buffer in DDR is its aligned pointer plus its
/// layout's static offset. A buffer in DM must come from `tynnp.dm` (placed by
/// `umac-allocate-dm-tynnp`).
fn address(value: MlirValue, b: &mut Builder) -> Result<Value, TynnpError> {
    let contract = |message: &str| TynnpError::Contract(message.to_string());
    // SAFETY: the value is a live operand (or an operand's source) of the op being lowered.
    let (ty, producer) = unsafe {
        let producer = mlirValueIsAOpResult(value).then(|| OperationRef::from_raw(mlirOpResultGetOwner(value)));
        (mlirValueGetType(value), producer)
    };
    let kind = producer.as_ref().map(umac_dialects::ir::op_name).unwrap_or_default();
    let operand = |i: usize| producer.as_ref().and_then(|p| p.operand(i).ok()).map(|v| v.to_raw());
    match kind.as_str() {
        DM => Ok(b.constant(Ty::I32, i64::from(DM_BASE))),
        "memref.view" => {
            let (source, shift) = (
                operand(0).ok_or_else(|| contract("a view without a source"))?,
                operand(1).ok_or_else(|| contract("no shift"))?,
            );
            let base = address(source, b)?;
            let shift = b.existing(shift);
            let shift = b.index_cast(shift, Ty::I32);
            Ok(b.addi(base, shift))
        }
        "memref.subview" => {
            let view = OpView::new(*producer.as_ref().expect("a subview"));
            let source = operand(0).ok_or_else(|| contract("a subview without a source"))?;
            // SAFETY: the source is a live value.
            let of = side(unsafe { mlirValueGetType(source) })?;
            let offsets = view.ints("static_offsets").ok_or_else(|| contract("a subview without offsets"))?;
            let mut at = address(source, b)?;
            let mut dynamic = 1;
            for (offset, stride) in offsets.iter().zip(&of.strides) {
                let bytes = b.constant(Ty::I32, stride * of.bytes);
                let step = if *offset == i64::MIN {
                    let value = b.existing(operand(dynamic).ok_or_else(|| contract("a dynamic offset missing"))?);
                    dynamic += 1;
                    let value = b.index_cast(value, Ty::I32);
                    b.muli(value, bytes)
                } else {
                    b.constant(Ty::I32, offset * stride * of.bytes)
                };
                at = b.addi(at, step);
            }
            Ok(at)
        }
        _ => {
            let this = side(ty)?;
            if this.dm {
                let unplaced =
                    "copies a buffer in DM that umac-allocate-dm-tynnp did not place (not a view of tynnp.dm)";
                return Err(contract(unplaced));
            }
            let offset = this.offset.ok_or_else(|| contract("copies a buffer in DDR of dynamic offset"))?;
            let buffer = b.existing(value);
            let pointer = b.op1(POINTER, &[buffer], Ty::Index, &[]);
            let pointer = b.index_cast(pointer, Ty::I32);
            let offset = b.constant(Ty::I32, offset * this.bytes);
            Ok(b.addi(pointer, offset))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_are_planes_of_rows_in_bytes() {
        let side = |shape: &[i64], strides: &[i64], bytes| Side {
            dm: false,
            shape: shape.to_vec(),
            strides: strides.to_vec(),
            offset: Some(0),
            bytes,
        };
        // Rows 2..6 of a 10x96 int8 image into a dense 4x96 buffer: 4 rows of 96 bytes.
        assert_eq!(shape(&side(&[4, 96], &[96, 1], 1), &side(&[4, 96], &[96, 1], 1)), [96, 4, 1, 96, 96, 0, 0]);
        // A 3x4x8 block of int32 from a 3x10x16 tensor: planes of 4 rows of 32 bytes.
        let src = side(&[3, 4, 8], &[160, 16, 1], 4);
        let dst = side(&[3, 4, 8], &[32, 8, 1], 4);
        assert_eq!(shape(&src, &dst), [32, 4, 3, 64, 32, 640, 128]);
        // One dimension: one row of one plane.
        assert_eq!(shape(&side(&[84], &[1], 1), &side(&[84], &[1], 1)), [84, 1, 1, 0, 0, 0, 0]);
    }
}

//! `umac-elide-slice-copies`: a buffer copied whole into a contiguous part of another buffer
//! becomes a `memref.view` of that part, so whatever writes the buffer (an accelerator's
//! function, whose out-parameter is a fresh buffer, or the CPU's loops) writes there, and nothing
//! is copied.
//!
//! Bufferization leaves such copies where a `tosa.concat` joins results: each operand's buffer is
//! copied into a subview of the concat's. Along an axis whose outer dimensions are all 1 (the
//! output channels of a fully connected layer sliced by `umac-slice-filters-tynnp`, the rows of
//! a batch of one) each part is one run of bytes. The copy goes when
//! - its source is a `memref.alloc` of the copy's block (static shape, identity layout), every
//!   other use of which comes before the copy;
//! - its target is a `memref.subview` whose elements are one run of bytes (a static offset; each
//!   dimension of more than one element at a dense buffer's stride), of a buffer that is, through
//!   `memref.expand_shape`s and `memref.collapse_shape`s of identity layout, a root: a
//!   `memref.alloc` of the block or an argument of the function's body, of static shape, `i8`
//!   elements (what `memref.view` views) and the buffer's memory space;
//! - the part starts at a multiple of 16 bytes ([`ALIGNMENT`]: `umac-plan-memory`'s, which what
//!   writes a buffer may assume) and of the buffer's own `alignment`;
//! - no op before the copy may read or write the root's bytes the part covers (the concat's other
//!   parts may be written: their ranges are known through subviews and views at constant
//!   offsets).
//!
//! The buffer becomes a `memref.view` of the root, collapsed to one dimension, at the part's
//! byte offset; a root allocated after the buffer is allocated before it. Its other parts'
//! buffers become views of it likewise, so the concat takes no copy and no workspace of its own.
//! Parts that are not one run of bytes (a channel slice of pixels) keep their copies.
//! ```mlir
//! %a = memref.alloc() : memref<1x1x1x48xi8>
//! call @tynnp_1(%x, %a) : (memref<1x1x1x640xi8>, memref<1x1x1x48xi8>) -> ()
//! %c = memref.alloc() : memref<1x1x1x128xi8>
//! %s = memref.subview %c[0, 0, 0, 48] [1, 1, 1, 48] [1, 1, 1, 1] : memref<1x1x1x128xi8> to memref<1x1x1x48xi8, strided<[128, 128, 128, 1], offset: 48>>
//! memref.copy %a, %s : memref<1x1x1x48xi8> to memref<1x1x1x48xi8, strided<[128, 128, 128, 1], offset: 48>>
//! // becomes
//! %c = memref.alloc() : memref<1x1x1x128xi8>
//! %flat = memref.collapse_shape %c [[0, 1, 2, 3]] : memref<1x1x1x128xi8> into memref<128xi8>
//! %c48 = arith.constant 48 : index
//! %a = memref.view %flat[%c48][] : memref<128xi8> to memref<1x1x1x48xi8>
//! call @tynnp_1(%x, %a) : (memref<1x1x1x640xi8>, memref<1x1x1x48xi8>) -> ()
//! ```

use crate::{
    Error,
    pass::{UmacPass, boxed},
    registry::{PassInfo, PassKind},
};
use melior::ir::{OperationRef, operation::OperationLike};
use mlir_sys::*;
use umac_dialects::ir::{
    ancestor_in, attribute, build, collect, constant_int, identity_layout, name, op_name, produced_by, producer,
    shape_of, static_memref_bits, strides_and_offset, uses_before, views_bytes,
};

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    name: "umac-elide-slice-copies",
    summary: "Make a buffer copied whole into a contiguous part of another buffer (a concat's operand) a view of that part (no copy, no workspace)",
    anchor: "any",
    options: &[],
    kind: PassKind::Pass(|_| boxed(ElideSliceCopies)),
};

/// The byte alignment a part must start at: `umac-plan-memory`'s default, which the code writing
/// a buffer may assume.
pub const ALIGNMENT: i64 = 16;

struct ElideSliceCopies;

impl UmacPass for ElideSliceCopies {
    fn run(&mut self, operation: OperationRef) -> Result<(), Error> {
        let copies = collect(operation, |op| op_name(op) == "memref.copy" && op.operand_count() == 2);
        for copy in copies {
            // SAFETY: each copy was collected from the live module; an elided copy is destroyed
            // with the subview and reshapes only it used, none of which is another collected copy.
            unsafe { elide(copy) }
        }
        Ok(())
    }
}

/// Bytes `[start, end)` of a root buffer (an alloc's result or an argument of the function's
/// body).
struct Part {
    root: MlirValue,
    start: i64,
    end: i64,
}

/// A memref type's static strides and offset (elements), if its layout is strided and static.
fn static_strides_and_offset(ty: MlirType) -> Option<(Vec<i64>, i64)> {
    let (strides, offset) = strides_and_offset(ty)?;
    Some((strides.into_iter().collect::<Option<_>>()?, offset?))
}

/// The bytes an element of a memref type takes, when whole.
fn element_bytes(ty: MlirType) -> Option<i64> {
    static_memref_bits(ty).and_then(|(_, bits)| (bits % 8 == 0).then_some(bits / 8))
}

/// The part of a root in `block` that `target` covers, when it is a subview of one run of bytes
/// of a dense view of the root (see the module documentation).
///
/// # Safety
/// Both must be live.
unsafe fn part(target: MlirValue, block: MlirBlock) -> Option<Part> {
    // SAFETY: the caller's contract; values and ops are only read.
    unsafe {
        let subview = produced_by(target, "memref.subview")?;
        let ty = mlirValueGetType(target);
        let (elements, _) = static_memref_bits(ty)?;
        let bytes = element_bytes(ty)?;
        let (strides, offset) = static_strides_and_offset(ty)?;
        let mut dense = 1;
        for (&size, &stride) in shape_of(ty).iter().zip(&strides).rev() {
            if size > 1 && stride != dense {
                return None;
            }
            dense *= size;
        }
        let mut root = mlirOperationGetOperand(subview, 0);
        loop {
            if !identity_layout(mlirValueGetType(root)) {
                return None;
            }
            match producer(root) {
                Some(op) if ["memref.expand_shape", "memref.collapse_shape"].contains(&name(op).as_str()) => {
                    root = mlirOperationGetOperand(op, 0);
                }
                _ => break,
            }
        }
        let owned = if mlirValueIsABlockArgument(root) {
            let owner = mlirBlockArgumentGetOwner(root);
            let holder = mlirBlockGetParentOperation(owner);
            owner.ptr == block.ptr && !holder.ptr.is_null() && name(holder) == "func.func"
        } else {
            produced_by(root, "memref.alloc").is_some_and(|alloc| {
                mlirOperationGetBlock(alloc).ptr == block.ptr && mlirOperationGetNumOperands(alloc) == 0
            })
        };
        let root_ty = mlirValueGetType(root);
        let element = mlirShapedTypeGetElementType(root_ty);
        let i8_elements = mlirTypeIsAInteger(element) && mlirIntegerTypeGetWidth(element) == 8;
        let spaces = [mlirMemRefTypeGetMemorySpace(root_ty), mlirMemRefTypeGetMemorySpace(ty)];
        let same_space = match spaces.map(|s| s.ptr.is_null()) {
            [true, true] => true,
            [false, false] => mlirAttributeEqual(spaces[0], spaces[1]),
            _ => false,
        };
        let static_root = static_memref_bits(root_ty).is_some() && mlirShapedTypeGetRank(root_ty) >= 1;
        (owned && i8_elements && same_space && static_root).then_some(Part {
            root,
            start: offset * bytes,
            end: (offset + elements) * bytes,
        })
    }
}

/// Whether an op before `copy` in `block` may read or write the part's bytes, other than by
/// taking views: the root's uses are followed through views, each with the bytes of the root it
/// may reach (exact for a dense view at a known offset and for a subview of one, the whole root
/// where a view's offset is not known).
///
/// # Safety
/// All must be live; `copy` in `block`.
unsafe fn touched_before(part: &Part, copy: MlirOperation, block: MlirBlock) -> bool {
    // SAFETY: the caller's contract; use lists and types are only read.
    unsafe {
        let whole = (0, i64::MAX);
        // A value, the bytes of the root it may reach, and where it starts when it is a dense
        // (identity layout) view of them.
        let mut pending = vec![(part.root, whole, Some(0))];
        while let Some((value, reach, dense_at)) = pending.pop() {
            let mut used = mlirValueGetFirstUse(value);
            while !mlirOpOperandIsNull(used) {
                let owner = mlirOpOperandGetOwner(used);
                let index = mlirOpOperandGetOperandNumber(used);
                used = mlirOpOperandGetNextUse(used);
                let kind = name(owner);
                if index == 0 && views_bytes(&kind) {
                    let result = mlirOperationGetResult(owner, 0);
                    let ty = mlirValueGetType(result);
                    let bytes = static_memref_bits(ty).zip(element_bytes(ty)).map(|((n, _), b)| n * b);
                    let dense = identity_layout(ty);
                    let child = match (kind.as_str(), dense_at) {
                        ("memref.view", Some(at)) => {
                            let start = constant_int(mlirOperationGetOperand(owner, 1)).map(|shift| at + shift);
                            match start.zip(bytes) {
                                Some((start, bytes)) => ((start, start + bytes), Some(start)),
                                None => (reach, None),
                            }
                        }
                        ("memref.subview", Some(at)) => {
                            let span =
                                static_strides_and_offset(ty).zip(element_bytes(ty)).map(|((strides, offset), b)| {
                                    let last: i64 = shape_of(ty).iter().zip(&strides).map(|(&n, &s)| (n - 1) * s).sum();
                                    (at + offset * b, at + (offset + last + 1) * b)
                                });
                            (span.unwrap_or(reach), None)
                        }
                        ("memref.expand_shape" | "memref.collapse_shape" | "memref.cast", at) => {
                            (reach, at.filter(|_| dense))
                        }
                        ("memref.reinterpret_cast", _) => (whole, None),
                        _ => (reach, None),
                    };
                    pending.push((result, child.0, child.1));
                    continue;
                }
                if owner.ptr == copy.ptr {
                    continue;
                }
                let overlaps = reach.0 < part.end && part.start < reach.1;
                match ancestor_in(owner, block) {
                    Some(user) if !mlirOperationIsBeforeInBlock(user, copy) || !overlaps => {}
                    _ => return true,
                }
            }
        }
        false
    }
}

/// Elides `copy` when it qualifies (see the module documentation).
///
/// # Safety
/// `copy` must be a live `memref.copy`.
unsafe fn elide(copy: MlirOperation) {
    // SAFETY: the caller's contract; every op and value read here is alive, and the module is
    // only changed once all of them are checked.
    unsafe {
        let (source, target) = (mlirOperationGetOperand(copy, 0), mlirOperationGetOperand(copy, 1));
        let block = mlirOperationGetBlock(copy);
        let Some(alloc) = produced_by(source, "memref.alloc") else { return };
        let ty = mlirValueGetType(source);
        if mlirOperationGetBlock(alloc).ptr != block.ptr
            || mlirOperationGetNumOperands(alloc) != 0
            || !identity_layout(ty)
            || !uses_before(source, copy, copy, block)
        {
            return;
        }
        let Some(part) = part(target, block) else { return };
        let aligned = attribute(alloc, "alignment").map_or(1, |a| mlirIntegerAttrGetValueInt(a)).max(ALIGNMENT);
        if part.root.ptr == source.ptr || part.start % aligned != 0 || touched_before(&part, copy, block) {
            return;
        }
        if let Some(root_alloc) = producer(part.root)
            && !mlirOperationIsBeforeInBlock(root_alloc, alloc)
        {
            mlirOperationMoveBefore(root_alloc, alloc);
        }
        let context = mlirOperationGetContext(copy);
        let location = mlirOperationGetLocation(alloc);
        let insert = |op: MlirOperation| {
            mlirBlockInsertOwnedOperationBefore(block, alloc, op);
            mlirOperationGetResult(op, 0)
        };
        let root_ty = mlirValueGetType(part.root);
        let rank = mlirShapedTypeGetRank(root_ty);
        let flat = if rank == 1 {
            part.root
        } else {
            let i64_type = mlirIntegerTypeGet(context, 64);
            let dims: Vec<MlirAttribute> = (0..rank).map(|d| mlirIntegerAttrGet(i64_type, d)).collect();
            let group = mlirArrayAttrGet(context, rank as isize, dims.as_ptr());
            let reassociation = mlirArrayAttrGet(context, 1, &group);
            let elements = shape_of(root_ty).iter().product::<i64>();
            let flat_ty = mlirMemRefTypeContiguousGet(
                mlirShapedTypeGetElementType(root_ty),
                1,
                &elements,
                mlirMemRefTypeGetMemorySpace(root_ty),
            );
            insert(build(
                "memref.collapse_shape",
                location,
                &[part.root],
                &[flat_ty],
                &[("reassociation", reassociation)],
            ))
        };
        let index = mlirIndexTypeGet(context);
        let shift = insert(build(
            "arith.constant",
            location,
            &[],
            &[index],
            &[("value", mlirIntegerAttrGet(index, part.start))],
        ));
        let view = insert(build("memref.view", location, &[flat, shift], &[ty], &[]));
        mlirValueReplaceAllUsesOfWith(source, view);
        mlirOperationDestroy(copy);
        mlirOperationDestroy(alloc);
        // The target's subview and the reshapes only it used.
        let mut dead = target;
        while let Some(op) = producer(dead) {
            if !mlirOpOperandIsNull(mlirValueGetFirstUse(dead)) {
                break;
            }
            dead = mlirOperationGetOperand(op, 0);
            mlirOperationDestroy(op);
        }
    }
}

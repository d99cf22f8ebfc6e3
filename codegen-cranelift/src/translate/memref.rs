//! `memref` ops: address arithmetic over descriptors, heap buffers through libc, constants as data.

use crate::{
    Result,
    translate::state::{Dim, FnCx, MemDesc, Val, segments, unsupported},
    types::MemRefType,
};
use cranelift_codegen::ir::{InstBuilder, StackSlotData, StackSlotKind, Value, condcodes::IntCC, types};
use cranelift_module::Module;
use melior::ir::{AttributeLike, OperationRef, operation::OperationLike};

/// MLIR's marker for a dynamic value in static offset/size/stride arrays.
const DYNAMIC: i64 = i64::MIN;

/// Translates one `memref` op.
pub(crate) fn translate<M: Module>(cx: &mut FnCx<M>, op: &OperationRef, name: &str) -> Result<()> {
    match name {
        "memref.load" => {
            let ty = cx.operand_memref(op, 0)?;
            let desc = cx.memref(op, 0)?;
            let indices = (1..op.operand_count()).map(|i| cx.scalar(op, i)).collect::<Result<Vec<_>>>()?;
            let (addr, offset) = address(cx, &desc, &indices, ty.element.bytes());
            let v = cx.b.ins().load(ty.element.clif(), FnCx::<M>::flags(), addr, offset);
            cx.set_result(op, 0, Val::S(v));
            Ok(())
        }
        "memref.store" => {
            let ty = cx.operand_memref(op, 1)?;
            let value = cx.scalar(op, 0)?;
            let desc = cx.memref(op, 1)?;
            let indices = (2..op.operand_count()).map(|i| cx.scalar(op, i)).collect::<Result<Vec<_>>>()?;
            let (addr, offset) = address(cx, &desc, &indices, ty.element.bytes());
            cx.b.ins().store(FnCx::<M>::flags(), value, addr, offset);
            Ok(())
        }
        "memref.alloc" | "memref.alloca" => alloc(cx, op, name == "memref.alloca"),
        "memref.dealloc" => {
            let desc = cx.memref(op, 0)?;
            let free = cx.libcall("free", &[types::I64], &[])?;
            cx.b.ins().call(free, &[desc.base]);
            Ok(())
        }
        "memref.get_global" => {
            let ty = cx.result_memref(op, 0)?;
            let symbol =
                op.attribute("name").map_err(|_| unsupported(op.location(), "memref.get_global without name"))?;
            let symbol =
                umac_dialects::text::attribute_text(symbol).trim_start_matches('@').trim_matches('"').to_string();
            let Some(id) = cx.mcx.globals.get(&symbol).copied() else {
                return Err(unsupported(op.location(), &format!("unknown memref.global @{symbol}")));
            };
            let gv = cx.module.declare_data_in_func(id, cx.b.func);
            let base = cx.b.ins().symbol_value(types::I64, gv);
            let desc = static_desc(cx, base, &ty, op)?;
            cx.set_result(op, 0, Val::M(desc));
            Ok(())
        }
        "memref.reinterpret_cast" => {
            let [_, n_off, n_size, n_stride] = segments::<4>(op)?;
            let source = cx.memref(op, 0)?;
            let mut dynamic =
                (1..1 + n_off + n_size + n_stride).map(|i| cx.scalar(op, i)).collect::<Result<Vec<_>>>()?.into_iter();
            let mut take = |values: Vec<i64>| -> Vec<Dim> {
                values
                    .into_iter()
                    .map(|v| if v == DYNAMIC { dynamic.next().map_or(Dim::C(0), Dim::V) } else { Dim::C(v) })
                    .collect()
            };
            let offsets = take(i64_array(op, "static_offsets")?);
            let sizes = take(i64_array(op, "static_sizes")?);
            let strides = take(i64_array(op, "static_strides")?);
            let offset = offsets.first().copied().unwrap_or(Dim::C(0));
            cx.set_result(op, 0, Val::M(MemDesc { base: source.base, offset, sizes, strides }));
            Ok(())
        }
        "memref.extract_strided_metadata" => {
            let source = cx.memref(op, 0)?;
            let rank = source.sizes.len();
            cx.set_result(
                op,
                0,
                Val::M(MemDesc { base: source.base, offset: Dim::C(0), sizes: vec![], strides: vec![] }),
            );
            let offset = cx.dim_value(source.offset);
            cx.set_result(op, 1, Val::S(offset));
            for i in 0..rank {
                let size = cx.dim_value(source.sizes[i]);
                cx.set_result(op, 2 + i, Val::S(size));
                let stride = cx.dim_value(source.strides[i]);
                cx.set_result(op, 2 + rank + i, Val::S(stride));
            }
            Ok(())
        }
        // The aligned pointer is the buffer's element 0 (the offset is not included, as in MLIR).
        "memref.extract_aligned_pointer_as_index" => {
            let desc = cx.memref(op, 0)?;
            cx.set_result(op, 0, Val::S(desc.base));
            Ok(())
        }
        "memref.cast" => {
            let desc = cx.memref(op, 0)?;
            cx.set_result(op, 0, Val::M(desc));
            Ok(())
        }
        "memref.dim" => {
            let desc = cx.memref(op, 0)?;
            let index = cx.scalar(op, 1)?;
            // A select chain picks the size even when the index is not a constant.
            let mut result = cx.b.ins().iconst(types::I64, 0);
            for (i, size) in desc.sizes.iter().enumerate().rev() {
                let size = cx.dim_value(*size);
                let hit = cx.b.ins().icmp_imm_s(IntCC::Equal, index, i as i64);
                result = cx.b.ins().select(hit, size, result);
            }
            cx.set_result(op, 0, Val::S(result));
            Ok(())
        }
        "memref.copy" => copy(cx, op),
        _ => Err(unsupported(op.location(), &format!("the Cranelift engine cannot translate '{name}'"))),
    }
}

/// The address of an element, as a pointer value plus a constant byte offset.
fn address<M: Module>(cx: &mut FnCx<M>, desc: &MemDesc, indices: &[Value], element_bytes: i64) -> (Value, i32) {
    let mut constant = 0i64;
    let mut linear: Option<Value> = None;
    let mut add = |cx: &mut FnCx<M>, v: Value| {
        linear = Some(match linear {
            Some(l) => cx.b.ins().iadd(l, v),
            None => v,
        });
    };
    match desc.offset {
        Dim::C(c) => constant += c,
        Dim::V(v) => add(cx, v),
    }
    for (index, stride) in indices.iter().zip(&desc.strides) {
        match stride {
            Dim::C(0) => {}
            Dim::C(1) => add(cx, *index),
            Dim::C(s) => {
                let scaled = cx.b.ins().imul_imm_s(*index, *s);
                add(cx, scaled);
            }
            Dim::V(s) => {
                let scaled = cx.b.ins().imul(*index, *s);
                add(cx, scaled);
            }
        }
    }
    let byte_offset = constant * element_bytes;
    let (base, byte_offset) = match i32::try_from(byte_offset) {
        Ok(small) => (desc.base, small),
        Err(_) => (cx.b.ins().iadd_imm_s(desc.base, byte_offset), 0),
    };
    match linear {
        Some(l) => {
            let bytes = if element_bytes == 1 { l } else { cx.b.ins().imul_imm_s(l, element_bytes) };
            (cx.b.ins().iadd(base, bytes), byte_offset)
        }
        None => (base, byte_offset),
    }
}

/// A descriptor for a buffer whose type fixes its layout.
fn static_desc<M: Module>(_cx: &mut FnCx<M>, base: Value, ty: &MemRefType, op: &OperationRef) -> Result<MemDesc> {
    let (Some(offset), Some(sizes), Some(strides)) = (
        ty.offset,
        ty.shape.iter().copied().collect::<Option<Vec<_>>>(),
        ty.strides.iter().copied().collect::<Option<Vec<_>>>(),
    ) else {
        return Err(unsupported(op.location(), "expected a memref type with a static layout"));
    };
    Ok(MemDesc {
        base,
        offset: Dim::C(offset),
        sizes: sizes.into_iter().map(Dim::C).collect(),
        strides: strides.into_iter().map(Dim::C).collect(),
    })
}

fn alloc<M: Module>(cx: &mut FnCx<M>, op: &OperationRef, on_stack: bool) -> Result<()> {
    let ty = cx.result_memref(op, 0)?;
    if ty.offset != Some(0) {
        return Err(unsupported(op.location(), "allocation with a non-identity layout"));
    }
    // Sizes: static from the type, dynamic from the operands in order; strides row-major.
    let mut dynamic = (0..op.operand_count()).map(|i| cx.scalar(op, i)).collect::<Result<Vec<_>>>()?.into_iter();
    let sizes: Vec<Dim> =
        ty.shape.iter().map(|d| d.map_or_else(|| dynamic.next().map_or(Dim::C(0), Dim::V), Dim::C)).collect();
    let mut strides = vec![Dim::C(1); sizes.len()];
    let mut running = Dim::C(1);
    for i in (0..sizes.len()).rev() {
        strides[i] = running;
        running = mul_dims(cx, running, sizes[i]);
    }
    let bytes = mul_dims(cx, running, Dim::C(ty.element.bytes()));
    let align = alignment(op).max(16);
    let base = match (on_stack, bytes) {
        (true, Dim::C(n)) => {
            let shift = align.trailing_zeros() as u8;
            let slot =
                cx.b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, n.max(1) as u32, shift));
            cx.b.ins().stack_addr(types::I64, slot, 0)
        }
        (true, Dim::V(_)) => {
            return Err(unsupported(op.location(), "dynamically sized memref.alloca is not supported"));
        }
        (false, bytes) => {
            // aligned_alloc wants a size that is a multiple of the alignment (and not zero).
            let bytes = cx.dim_value(bytes);
            let padded = cx.b.ins().iadd_imm_s(bytes, align - 1);
            let rounded = cx.b.ins().band_imm_s(padded, -align);
            let at_least = cx.b.ins().iconst(types::I64, align);
            let size = cx.b.ins().umax(rounded, at_least);
            let align_v = cx.b.ins().iconst(types::I64, align);
            let f = cx.libcall("aligned_alloc", &[types::I64, types::I64], &[types::I64])?;
            let call = cx.b.ins().call(f, &[align_v, size]);
            cx.b.inst_results(call)[0]
        }
    };
    cx.set_result(op, 0, Val::M(MemDesc { base, offset: Dim::C(0), sizes, strides }));
    Ok(())
}

fn mul_dims<M: Module>(cx: &mut FnCx<M>, a: Dim, b: Dim) -> Dim {
    match (a, b) {
        (Dim::C(x), Dim::C(y)) => Dim::C(x * y),
        (Dim::C(c), Dim::V(v)) | (Dim::V(v), Dim::C(c)) => Dim::V(cx.b.ins().imul_imm_s(v, c)),
        (Dim::V(x), Dim::V(y)) => Dim::V(cx.b.ins().imul(x, y)),
    }
}

fn alignment(op: &OperationRef) -> i64 {
    op.attribute("alignment")
        .ok()
        // SAFETY: the attribute is alive and checked to be an integer.
        .filter(|a| unsafe { mlir_sys::mlirAttributeIsAInteger(a.to_raw()) })
        .map(|a| unsafe { mlir_sys::mlirIntegerAttrGetValueInt(a.to_raw()) })
        .filter(|a| *a > 0 && (*a as u64).is_power_of_two())
        .unwrap_or(16)
}

fn i64_array(op: &OperationRef, name: &str) -> Result<Vec<i64>> {
    let attr = op.attribute(name).map_err(|_| unsupported(op.location(), &format!("missing '{name}'")))?;
    let raw = attr.to_raw();
    // SAFETY: the attribute is alive; reads are bounded by its element count.
    unsafe {
        if !mlir_sys::mlirAttributeIsADenseI64Array(raw) {
            return Err(unsupported(op.location(), &format!("'{name}' is not an i64 array")));
        }
        Ok((0..mlir_sys::mlirDenseArrayGetNumElements(raw))
            .map(|i| mlir_sys::mlirDenseI64ArrayGetElement(raw, i))
            .collect())
    }
}

/// `memref.copy`: one `memcpy` when both sides are contiguous, else a loop nest.
fn copy<M: Module>(cx: &mut FnCx<M>, op: &OperationRef) -> Result<()> {
    let (src_ty, dst_ty) = (cx.operand_memref(op, 0)?, cx.operand_memref(op, 1)?);
    let (src, dst) = (cx.memref(op, 0)?, cx.memref(op, 1)?);
    let element = src_ty.element;
    if src_ty.is_contiguous_static() && dst_ty.is_contiguous_static() {
        let bytes = src_ty.static_len().unwrap_or(0) * element.bytes();
        let n = cx.b.ins().iconst(types::I64, bytes);
        let f = cx.libcall("memcpy", &[types::I64, types::I64, types::I64], &[types::I64])?;
        cx.b.ins().call(f, &[dst.base, src.base, n]);
        return Ok(());
    }
    let mut indices = Vec::new();
    copy_level(cx, &src, &dst, &mut indices, element)
}

fn copy_level<M: Module>(
    cx: &mut FnCx<M>,
    src: &MemDesc,
    dst: &MemDesc,
    indices: &mut Vec<Value>,
    element: crate::types::Scalar,
) -> Result<()> {
    let level = indices.len();
    if level == src.sizes.len() {
        let (from, from_off) = address(cx, src, indices, element.bytes());
        let v = cx.b.ins().load(element.clif(), FnCx::<M>::flags(), from, from_off);
        let (to, to_off) = address(cx, dst, indices, element.bytes());
        cx.b.ins().store(FnCx::<M>::flags(), v, to, to_off);
        return Ok(());
    }
    let size = cx.dim_value(src.sizes[level]);
    let (header, body, exit) = (cx.b.create_block(), cx.b.create_block(), cx.b.create_block());
    let i = cx.b.append_block_param(header, types::I64);
    let zero = cx.b.ins().iconst(types::I64, 0);
    cx.b.ins().jump(header, &[cranelift_codegen::ir::BlockArg::Value(zero)]);
    cx.b.switch_to_block(header);
    let more = cx.b.ins().icmp(IntCC::SignedLessThan, i, size);
    cx.b.ins().brif(more, body, &[], exit, &[]);
    cx.b.switch_to_block(body);
    indices.push(i);
    copy_level(cx, src, dst, indices, element)?;
    indices.pop();
    let next = cx.b.ins().iadd_imm_s(i, 1);
    cx.b.ins().jump(header, &[cranelift_codegen::ir::BlockArg::Value(next)]);
    cx.b.switch_to_block(exit);
    Ok(())
}

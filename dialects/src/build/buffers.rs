//! Buffers for the [`Builder`]: memref types (in a memory space or not), and the ops that move
//! between tensors and buffers.

use super::{Builder, RawType, Ty, Value, ty};
use crate::text::str_ref;
use mlir_sys::*;

/// `memref<dims x element>` with the identity layout, in the memory space named `space` (a
/// string attribute) or the default one.
///
/// # Safety
/// `context` must be live, `element` of it.
pub unsafe fn memref_type(context: MlirContext, dims: &[i64], element: MlirType, space: Option<&str>) -> MlirType {
    // SAFETY: the caller's contract; the dimensions outlive the call.
    unsafe {
        let space = space.map_or(mlirAttributeGetNull(), |s| mlirStringAttrGet(context, str_ref(s)));
        mlirMemRefTypeContiguousGet(element, dims.len() as isize, dims.as_ptr(), space)
    }
}

impl Builder<'_> {
    /// `memref<dims x element>` in the memory space `space` (or the default one).
    pub fn memref(&self, dims: &[i64], element: Ty, space: Option<&str>) -> Ty {
        // SAFETY: the context is live; the element type is of it.
        unsafe {
            let context = self.context.to_raw();
            Ty::Of(RawType(memref_type(context, dims, ty(context, element), space)))
        }
    }

    /// The buffer type of the ranked tensor type `tensor`: a memref of its shape and element.
    pub fn memref_like(&self, tensor: Ty) -> Ty {
        // SAFETY: the type is of the live context; the dimensions are read within its rank.
        unsafe {
            let raw = ty(self.context.to_raw(), tensor);
            let dims: Vec<i64> =
                (0..mlirShapedTypeGetRank(raw)).map(|d| mlirShapedTypeGetDimSize(raw, d as isize)).collect();
            self.memref(&dims, self.element_of(tensor), None)
        }
    }

    /// `bufferization.to_buffer value read_only`: the buffer of the tensor `value`.
    pub fn to_buffer(&mut self, value: Value) -> Value {
        let buffer = self.memref_like(self.type_of(value));
        self.op1("bufferization.to_buffer", &[value], buffer, &[("read_only", super::Attr::Unit)])
    }

    /// A read-only buffer of `values` (integers of type `element`): `bufferization.to_buffer` of
    /// their `arith.constant` tensor.
    pub fn constant_buffer(&mut self, element: Ty, values: &[i64]) -> Value {
        let ty = self.tensor(&[values.len() as i64], element);
        let constant = self.op1("arith.constant", &[], ty, &[("value", super::Attr::Dense(ty, values))]);
        self.to_buffer(constant)
    }

    /// `memref.alloc() {alignment}` of type `buffer`.
    pub fn alloc(&mut self, buffer: Ty, alignment: i64) -> Value {
        let attributes = [
            ("alignment", super::Attr::Int(Ty::I64, alignment)),
            ("operandSegmentSizes", super::Attr::I32Array(&[0, 0])),
        ];
        self.op1("memref.alloc", &[], buffer, &attributes)
    }
}

//! The translation state every op's translation shares: the values an MLIR value became
//! (`Val`: a scalar, or a memref's base, offset, sizes and strides), the module's symbols, one
//! function's builder and its blocks and values, and the helpers every dialect's translation
//! uses (operands, results, segment sizes, located errors). The dialects' translations
//! (`arith`, `memref`, `math`) import only this module; the dispatch (`mod.rs`) imports them.

use crate::{
    Error, Result,
    types::{MemRefType, Scalar, ValType, classify},
};
use cranelift_codegen::ir::{AbiParam, Block, BlockArg, InstBuilder, MemFlagsData, Value, types};
use cranelift_frontend::FunctionBuilder;
use cranelift_module::{DataId, FuncId, Linkage, Module};
use melior::ir::{AttributeLike, Location, OperationRef, ValueLike, operation::OperationLike};
use mlir_sys::MlirValue;
use std::collections::HashMap;
use umac_dialects::{emit_error, file_line_col};

/// One dimension of a memref descriptor: known at compile time or a run-time value.
#[derive(Clone, Copy, Debug)]
pub enum Dim {
    /// A constant.
    C(i64),
    /// An `i64` value.
    V(Value),
}

/// A memref value: base pointer (element 0 of the underlying buffer) plus layout.
#[derive(Clone, Debug)]
pub struct MemDesc {
    /// Pointer to the buffer's element 0.
    pub base: Value,
    /// Offset in elements.
    pub offset: Dim,
    /// Sizes.
    pub sizes: Vec<Dim>,
    /// Strides in elements.
    pub strides: Vec<Dim>,
}

/// A translated MLIR value.
#[derive(Clone, Debug)]
pub enum Val {
    /// A scalar.
    S(Value),
    /// A memref.
    M(MemDesc),
}

/// Function symbols and their MLIR argument/result types.
pub(crate) struct FuncInfo {
    pub id: FuncId,
    pub args: Vec<ValType>,
    pub results: Vec<ValType>,
}

/// State shared by all functions of a module.
pub(crate) struct ModuleCx {
    pub globals: HashMap<String, DataId>,
    pub functions: HashMap<String, FuncInfo>,
    /// libc/libm functions declared so far.
    pub imports: HashMap<String, FuncId>,
}

/// Flattened Cranelift parameter types of an MLIR type.
pub(crate) fn flat_types(ty: &ValType) -> Vec<cranelift_codegen::ir::Type> {
    match ty {
        ValType::Scalar(s) => vec![s.clif()],
        ValType::MemRef(m) => {
            let dynamic = usize::from(m.offset.is_none())
                + m.shape.iter().filter(|d| d.is_none()).count()
                + m.strides.iter().filter(|d| d.is_none()).count();
            std::iter::once(types::I64).chain(std::iter::repeat_n(types::I64, dynamic)).collect()
        }
    }
}

/// The translation state of one function.
pub(crate) struct FnCx<'a, 'b, M: Module> {
    pub module: &'a mut M,
    pub mcx: &'a mut ModuleCx,
    pub b: FunctionBuilder<'b>,
    pub(super) values: HashMap<usize, Val>,
    pub(super) blocks: HashMap<usize, Block>,
}

pub(super) fn key(v: MlirValue) -> usize {
    v.ptr as usize
}

/// The `operandSegmentSizes` of an op with N operand groups.
pub(crate) fn segments<const N: usize>(op: &OperationRef) -> Result<[usize; N]> {
    let attr =
        op.attribute("operandSegmentSizes").map_err(|_| unsupported(op.location(), "missing operandSegmentSizes"))?;
    let raw = attr.to_raw();
    let mut out = [0usize; N];
    // SAFETY: the attribute is alive; reads are bounded by its element count.
    unsafe {
        if !mlir_sys::mlirAttributeIsADenseI32Array(raw) || mlir_sys::mlirDenseArrayGetNumElements(raw) != N as isize {
            return Err(unsupported(op.location(), "malformed operandSegmentSizes"));
        }
        for (i, slot) in out.iter_mut().enumerate() {
            *slot = usize::try_from(mlir_sys::mlirDenseI32ArrayGetElement(raw, i as isize)).unwrap_or(0);
        }
    }
    Ok(out)
}

impl<M: Module> FnCx<'_, '_, M> {
    /// Builds a value from flattened parameters of type `ty`.
    pub(crate) fn unflatten(&mut self, ty: &ValType, flat: &[Value]) -> Val {
        match ty {
            ValType::Scalar(_) => Val::S(flat[0]),
            ValType::MemRef(m) => {
                let mut rest = flat[1..].iter().copied();
                let mut dim = |d: Option<i64>| d.map_or_else(|| Dim::V(rest.next().unwrap_or(flat[0])), Dim::C);
                let offset = dim(m.offset);
                let sizes = m.shape.iter().map(|d| dim(*d)).collect();
                let strides = m.strides.iter().map(|d| dim(*d)).collect();
                Val::M(MemDesc { base: flat[0], offset, sizes, strides })
            }
        }
    }

    /// The flattened values of operand `index` (for calls, branches and returns).
    pub(crate) fn flatten_operand(&mut self, op: &OperationRef, index: usize) -> Result<Vec<Value>> {
        let ty = self.operand_type(op, index)?;
        match (self.operand(op, index)?, &ty) {
            (Val::S(v), _) => Ok(vec![v]),
            (Val::M(desc), ValType::MemRef(m)) => {
                let mut out = vec![desc.base];
                if m.offset.is_none() {
                    out.push(self.dim_value(desc.offset));
                }
                for (i, d) in m.shape.iter().enumerate() {
                    if d.is_none() {
                        out.push(self.dim_value(desc.sizes[i]));
                    }
                }
                for (i, d) in m.strides.iter().enumerate() {
                    if d.is_none() {
                        out.push(self.dim_value(desc.strides[i]));
                    }
                }
                Ok(out)
            }
            _ => Err(unsupported(op.location(), "memref operand with a non-memref type")),
        }
    }

    pub(super) fn block_args(&mut self, op: &OperationRef, range: std::ops::Range<usize>) -> Result<Vec<BlockArg>> {
        let mut out = Vec::new();
        for i in range {
            out.extend(self.flatten_operand(op, i)?.into_iter().map(BlockArg::Value));
        }
        Ok(out)
    }

    /// A dimension as an `i64` value.
    pub(crate) fn dim_value(&mut self, d: Dim) -> Value {
        match d {
            Dim::C(c) => self.b.ins().iconst(types::I64, c),
            Dim::V(v) => v,
        }
    }

    /// The translated value of operand `index`.
    pub(crate) fn operand(&self, op: &OperationRef, index: usize) -> Result<Val> {
        let value = op.operand(index).map_err(|e| Error::Cranelift(e.to_string()))?;
        self.values.get(&key(value.to_raw())).cloned().ok_or_else(|| {
            unsupported(
                op.location(),
                &format!("operand #{index} is defined in a way the Cranelift engine did not translate"),
            )
        })
    }

    /// Operand `index` as a scalar.
    pub(crate) fn scalar(&self, op: &OperationRef, index: usize) -> Result<Value> {
        match self.operand(op, index)? {
            Val::S(v) => Ok(v),
            Val::M(_) => {
                Err(unsupported(op.location(), &format!("operand #{index} is a memref where a scalar was expected")))
            }
        }
    }

    /// Operand `index` as a memref.
    pub(crate) fn memref(&self, op: &OperationRef, index: usize) -> Result<MemDesc> {
        match self.operand(op, index)? {
            Val::M(m) => Ok(m),
            Val::S(_) => {
                Err(unsupported(op.location(), &format!("operand #{index} is a scalar where a memref was expected")))
            }
        }
    }

    /// The type of operand `index`.
    pub(crate) fn operand_type(&self, op: &OperationRef, index: usize) -> Result<ValType> {
        let value = op.operand(index).map_err(|e| Error::Cranelift(e.to_string()))?;
        classify(value.r#type()).map_err(|e| unsupported(op.location(), &e.to_string()))
    }

    /// The type of result `index`.
    pub(crate) fn result_type(&self, op: &OperationRef, index: usize) -> Result<ValType> {
        let value = op.result(index).map_err(|e| Error::Cranelift(e.to_string()))?;
        classify(value.r#type()).map_err(|e| unsupported(op.location(), &e.to_string()))
    }

    /// The scalar type of result `index`.
    pub(crate) fn result_scalar(&self, op: &OperationRef, index: usize) -> Result<Scalar> {
        match self.result_type(op, index)? {
            ValType::Scalar(s) => Ok(s),
            ValType::MemRef(_) => Err(unsupported(op.location(), "expected a scalar result")),
        }
    }

    /// The scalar type of operand `index`.
    pub(crate) fn operand_scalar(&self, op: &OperationRef, index: usize) -> Result<Scalar> {
        match self.operand_type(op, index)? {
            ValType::Scalar(s) => Ok(s),
            ValType::MemRef(_) => Err(unsupported(op.location(), "expected a scalar operand")),
        }
    }

    /// The memref type of result `index`.
    pub(crate) fn result_memref(&self, op: &OperationRef, index: usize) -> Result<MemRefType> {
        match self.result_type(op, index)? {
            ValType::MemRef(m) => Ok(m),
            ValType::Scalar(_) => Err(unsupported(op.location(), "expected a memref result")),
        }
    }

    /// The memref type of operand `index`.
    pub(crate) fn operand_memref(&self, op: &OperationRef, index: usize) -> Result<MemRefType> {
        match self.operand_type(op, index)? {
            ValType::MemRef(m) => Ok(m),
            ValType::Scalar(_) => Err(unsupported(op.location(), "expected a memref operand")),
        }
    }

    /// Records the translation of result `index`.
    pub(crate) fn set_result(&mut self, op: &OperationRef, index: usize, val: Val) {
        if let Ok(result) = op.result(index) {
            self.values.insert(key(result.to_raw()), val);
        }
    }

    /// Zero of a scalar type.
    pub(crate) fn zero(&mut self, s: Scalar) -> Value {
        match s {
            Scalar::F32 => self.b.ins().f32const(0.0),
            Scalar::F64 => self.b.ins().f64const(0.0),
            _ => self.b.ins().iconst(s.clif(), 0),
        }
    }

    /// A reference to a libc/libm function, declared on first use.
    pub(crate) fn libcall(
        &mut self,
        name: &str,
        params: &[cranelift_codegen::ir::Type],
        returns: &[cranelift_codegen::ir::Type],
    ) -> Result<cranelift_codegen::ir::FuncRef> {
        let id = match self.mcx.imports.get(name) {
            Some(id) => *id,
            None => {
                let mut sig = self.module.make_signature();
                sig.params.extend(params.iter().map(|t| AbiParam::new(*t)));
                sig.returns.extend(returns.iter().map(|t| AbiParam::new(*t)));
                let id = self
                    .module
                    .declare_function(name, Linkage::Import, &sig)
                    .map_err(|e| Error::Cranelift(e.to_string()))?;
                self.mcx.imports.insert(name.to_string(), id);
                id
            }
        };
        Ok(self.module.declare_func_in_func(id, self.b.func))
    }

    /// Memory flags for accesses to buffers we own.
    pub(crate) fn flags() -> MemFlagsData {
        MemFlagsData::trusted()
    }
}

/// A string attribute's value.
pub(crate) fn string_attr(op: &OperationRef, name: &str) -> Result<String> {
    op.attribute(name)
        .ok()
        .and_then(umac_dialects::ir::string_value)
        .ok_or_else(|| unsupported(op.location(), &format!("missing string attribute '{name}'")))
}

/// Emits a located error and returns it.
pub(crate) fn unsupported(location: Location, message: &str) -> Error {
    emit_error(location, message);
    let at = file_line_col(location).map(|l| format!("{l}: ")).unwrap_or_default();
    Error::Unsupported(format!("{at}{message}"))
}

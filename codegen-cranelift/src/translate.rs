//! Module and function translation: signatures, blocks, values, and the op dispatch.

use crate::{
    Error, Result, arith, data, math, memref,
    types::{MemRefType, Scalar, ValType, classify},
};
use cranelift_codegen::ir::{
    AbiParam, Block, BlockArg, Function, InstBuilder, MemFlagsData, Signature, UserFuncName, Value, types,
};
use cranelift_codegen::isa::CallConv;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_module::{DataId, FuncId, Linkage, Module};
use melior::ir::{
    AttributeLike, BlockLike, BlockRef, Location, OperationRef, RegionLike, ValueLike, operation::OperationLike,
};
use mlir_sys::MlirValue;
use std::collections::HashMap;
use umac_dialects::{emit_error, file_line_col, ir::op_name, text::attribute_text};

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

/// The entry wrapper a runtime calls: `int32_t NAME(const void *const inputs[], void *const
/// outputs[], void *workspace)`. The workspace goes to the function's last argument when it has
/// one more than the inputs and outputs (a module planned by `umac-plan-memory`).
#[derive(Clone, Debug)]
pub struct EntryPoint {
    /// The MLIR function it calls.
    pub function: String,
    /// The wrapper's symbol.
    pub symbol: String,
    /// How many of the function's arguments are inputs; the rest are outputs.
    pub inputs: usize,
    /// How many are outputs (a last argument beyond them is the workspace).
    pub outputs: usize,
}

/// Function symbols and their MLIR argument/result types.
pub(crate) struct FuncInfo {
    pub id: FuncId,
    pub args: Vec<ValType>,
    pub results: Vec<ValType>,
}

/// Translates every function and global of `mlir` into `module`, plus the entry wrapper.
/// Returns the wrapper's id.
pub fn translate_module<M: Module>(module: &mut M, mlir: &melior::ir::Module, entry: &EntryPoint) -> Result<FuncId> {
    let mut globals = HashMap::new();
    let mut functions = HashMap::new();
    let mut bodies = Vec::new();
    let body = mlir.body();
    let mut next = body.first_operation();
    while let Some(op) = next {
        next = op.next_in_block();
        match op_name(&op).as_str() {
            "memref.global" => {
                let (name, id) = data::define_global(module, &op)?;
                globals.insert(name, id);
            }
            "func.func" => {
                let name = string_attr(&op, "sym_name")?;
                let (args, results) = function_type(&op)?;
                let has_body = op.region(0).ok().and_then(|r| r.first_block()).is_some();
                let sig = signature(module, &args, &results, &op)?;
                let linkage = if has_body { Linkage::Local } else { Linkage::Import };
                let id = module.declare_function(&name, linkage, &sig).map_err(|e| Error::Cranelift(e.to_string()))?;
                functions.insert(name, FuncInfo { id, args, results });
                if has_body {
                    bodies.push(op.to_raw());
                }
            }
            _ => {}
        }
    }
    let mut cx = ModuleCx { globals, functions, imports: HashMap::new() };
    let mut context = module.make_context();
    let mut builder_context = FunctionBuilderContext::new();
    for raw in bodies {
        // SAFETY: the op is owned by `mlir`, which outlives this loop.
        let op = unsafe { OperationRef::from_raw(raw) };
        let name = string_attr(&op, "sym_name")?;
        let info = &cx.functions[&name];
        let id = info.id;
        context.func = Function::with_name_signature(
            UserFuncName::user(0, id.as_u32()),
            signature(module, &info.args, &info.results, &op)?,
        );
        translate_function(module, &mut cx, &mut context.func, &mut builder_context, &op)?;
        module.define_function(id, &mut context).map_err(|e| Error::Cranelift(format!("{name}: {e:?}")))?;
        module.clear_context(&mut context);
    }
    define_entry(module, &cx, entry, &mut context, &mut builder_context)
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

fn signature<M: Module>(module: &M, args: &[ValType], results: &[ValType], op: &OperationRef) -> Result<Signature> {
    let mut sig = module.make_signature();
    sig.call_conv = CallConv::triple_default(module.isa().triple());
    for ty in args {
        sig.params.extend(flat_types(ty).into_iter().map(AbiParam::new));
    }
    for ty in results {
        if matches!(ty, ValType::MemRef(_)) {
            return Err(unsupported(
                op.location(),
                "functions returning memrefs are not supported by the Cranelift engine (lower with buffer-results-to-out-params)",
            ));
        }
        sig.returns.extend(flat_types(ty).into_iter().map(AbiParam::new));
    }
    Ok(sig)
}

fn function_type(op: &OperationRef) -> Result<(Vec<ValType>, Vec<ValType>)> {
    let attr =
        op.attribute("function_type").map_err(|_| unsupported(op.location(), "func.func without function_type"))?;
    let raw = attr.to_raw();
    // SAFETY: the attribute is alive; it is a TypeAttr holding a FunctionType for func.func.
    let fty = unsafe { mlir_sys::mlirTypeAttrGetValue(raw) };
    let get =
        |n: isize, f: unsafe extern "C" fn(mlir_sys::MlirType, isize) -> mlir_sys::MlirType| -> Result<Vec<ValType>> {
            (0..n)
                .map(|i| {
                    // SAFETY: `i` is within the function type's count.
                    let ty = unsafe { melior::ir::Type::from_raw(f(fty, i)) };
                    classify(ty).map_err(|e| unsupported(op.location(), &e.to_string()))
                })
                .collect()
        };
    // SAFETY: `fty` is a function type (func.func's verifier guarantees it).
    let (n_in, n_out) =
        unsafe { (mlir_sys::mlirFunctionTypeGetNumInputs(fty), mlir_sys::mlirFunctionTypeGetNumResults(fty)) };
    Ok((get(n_in, mlir_sys::mlirFunctionTypeGetInput)?, get(n_out, mlir_sys::mlirFunctionTypeGetResult)?))
}

/// The translation state of one function.
pub(crate) struct FnCx<'a, 'b, M: Module> {
    pub module: &'a mut M,
    pub mcx: &'a mut ModuleCx,
    pub b: FunctionBuilder<'b>,
    values: HashMap<usize, Val>,
    blocks: HashMap<usize, Block>,
}

fn key(v: MlirValue) -> usize {
    v.ptr as usize
}

fn translate_function<M: Module>(
    module: &mut M,
    mcx: &mut ModuleCx,
    func: &mut Function,
    builder_context: &mut FunctionBuilderContext,
    op: &OperationRef,
) -> Result<()> {
    let region = op.region(0).map_err(|_| unsupported(op.location(), "func.func without a body"))?;
    let mut cx = FnCx {
        module,
        mcx,
        b: FunctionBuilder::new(func, builder_context),
        values: HashMap::new(),
        blocks: HashMap::new(),
    };
    // Blocks first, so branches can target blocks not translated yet.
    let mut mlir_blocks = Vec::new();
    let mut next = region.first_block();
    while let Some(block) = next {
        next = block.next_in_region();
        let clif = cx.b.create_block();
        cx.blocks.insert(block.to_raw().ptr as usize, clif);
        mlir_blocks.push(block);
    }
    // Block parameters follow the block arguments, flattened (the entry block's are the function's).
    for block in &mlir_blocks {
        let clif = cx.blocks[&(block.to_raw().ptr as usize)];
        let mut params = Vec::new();
        for i in 0..block.argument_count() {
            let arg = block.argument(i).map_err(|e| Error::Cranelift(e.to_string()))?;
            let ty = classify(arg.r#type()).map_err(|e| unsupported(op.location(), &e.to_string()))?;
            let flat: Vec<Value> = flat_types(&ty).into_iter().map(|t| cx.b.append_block_param(clif, t)).collect();
            params.push((key(arg.to_raw()), ty, flat));
        }
        for (k, ty, flat) in params {
            let val = cx.unflatten(&ty, &flat);
            cx.values.insert(k, val);
        }
    }
    for block in &mlir_blocks {
        let clif = cx.blocks[&(block.to_raw().ptr as usize)];
        cx.b.switch_to_block(clif);
        translate_block(&mut cx, block)?;
    }
    cx.b.seal_all_blocks();
    let config = cx.module.isa().frontend_config();
    cx.b.finalize(config);
    Ok(())
}

fn translate_block<M: Module>(cx: &mut FnCx<M>, block: &BlockRef) -> Result<()> {
    let mut next = block.first_operation();
    while let Some(op) = next {
        next = op.next_in_block();
        translate_op(cx, &op)?;
    }
    Ok(())
}

fn translate_op<M: Module>(cx: &mut FnCx<M>, op: &OperationRef) -> Result<()> {
    let name = op_name(op);
    let (dialect, _) = name.split_once('.').unwrap_or((&name, ""));
    match dialect {
        "arith" => arith::translate(cx, op, &name),
        "math" => math::translate(cx, op, &name),
        "memref" => memref::translate(cx, op, &name),
        _ => match name.as_str() {
            "cf.br" => {
                let dest = successor(cx, op, 0)?;
                let args = cx.block_args(op, 0..op.operand_count())?;
                cx.b.ins().jump(dest, &args);
                Ok(())
            }
            "cf.cond_br" => {
                let [_, n_true, n_false] = segments::<3>(op)?;
                let cond = cx.scalar(op, 0)?;
                let (t, f) = (successor(cx, op, 0)?, successor(cx, op, 1)?);
                let t_args = cx.block_args(op, 1..1 + n_true)?;
                let f_args = cx.block_args(op, 1 + n_true..1 + n_true + n_false)?;
                cx.b.ins().brif(cond, t, &t_args, f, &f_args);
                Ok(())
            }
            "func.return" => {
                let mut values = Vec::new();
                for i in 0..op.operand_count() {
                    values.extend(cx.flatten_operand(op, i)?);
                }
                cx.b.ins().return_(&values);
                Ok(())
            }
            "func.call" => call(cx, op),
            "ub.poison" => {
                let ty = cx.result_scalar(op, 0)?;
                let zero = cx.zero(ty);
                cx.set_result(op, 0, Val::S(zero));
                Ok(())
            }
            "builtin.unrealized_conversion_cast" if op.operand_count() == 1 && op.result_count() == 1 => {
                let from = cx.operand_type(op, 0)?;
                let to = cx.result_type(op, 0)?;
                if from != to {
                    return Err(unsupported(
                        op.location(),
                        "unrealized_conversion_cast between different types is left over from an incomplete lowering",
                    ));
                }
                let v = cx.operand(op, 0)?;
                cx.set_result(op, 0, v);
                Ok(())
            }
            _ => Err(unsupported(op.location(), &format!("the Cranelift engine cannot translate '{name}'"))),
        },
    }
}

fn call<M: Module>(cx: &mut FnCx<M>, op: &OperationRef) -> Result<()> {
    let callee = op.attribute("callee").map_err(|_| unsupported(op.location(), "func.call without callee"))?;
    let name = attribute_text(callee).trim_start_matches('@').trim_matches('"').to_string();
    let Some(info) = cx.mcx.functions.get(&name) else {
        return Err(unsupported(op.location(), &format!("call to unknown function @{name}")));
    };
    let (id, results) = (info.id, info.results.clone());
    let fref = cx.module.declare_func_in_func(id, cx.b.func);
    let mut args = Vec::new();
    for i in 0..op.operand_count() {
        args.extend(cx.flatten_operand(op, i)?);
    }
    let inst = cx.b.ins().call(fref, &args);
    let values = cx.b.inst_results(inst).to_vec();
    for (i, _) in results.iter().enumerate() {
        cx.set_result(op, i, Val::S(values[i]));
    }
    Ok(())
}

fn successor<M: Module>(cx: &FnCx<M>, op: &OperationRef, index: usize) -> Result<Block> {
    let block = op.successor(index).map_err(|e| Error::Cranelift(e.to_string()))?;
    cx.blocks
        .get(&(block.to_raw().ptr as usize))
        .copied()
        .ok_or_else(|| unsupported(op.location(), "branch to a block of another region"))
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

    fn block_args(&mut self, op: &OperationRef, range: std::ops::Range<usize>) -> Result<Vec<BlockArg>> {
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

/// Defines the wrapper `int32_t SYMBOL(const void *const inputs[], void *const outputs[], void *workspace)`.
fn define_entry<M: Module>(
    module: &mut M,
    cx: &ModuleCx,
    entry: &EntryPoint,
    context: &mut cranelift_codegen::Context,
    builder_context: &mut FunctionBuilderContext,
) -> Result<FuncId> {
    let Some(info) = cx.functions.get(&entry.function) else {
        return Err(Error::Unsupported(format!("the module has no function @{}", entry.function)));
    };
    let ptr = module.target_config().pointer_type();
    let mut sig = module.make_signature();
    sig.params.push(AbiParam::new(ptr));
    sig.params.push(AbiParam::new(ptr));
    sig.params.push(AbiParam::new(ptr));
    sig.returns.push(AbiParam::new(types::I32));
    let id =
        module.declare_function(&entry.symbol, Linkage::Export, &sig).map_err(|e| Error::Cranelift(e.to_string()))?;
    context.func = Function::with_name_signature(UserFuncName::user(1, id.as_u32()), sig);
    let mut b = FunctionBuilder::new(&mut context.func, builder_context);
    let block = b.create_block();
    b.append_block_params_for_function_params(block);
    b.switch_to_block(block);
    let (inputs, outputs, workspace) = (b.block_params(block)[0], b.block_params(block)[1], b.block_params(block)[2]);
    let mut args = Vec::new();
    for (i, ty) in info.args.iter().enumerate() {
        let ValType::MemRef(m) = ty else {
            return Err(Error::Unsupported(format!(
                "entry @{} takes a scalar argument #{i}; only memrefs can be bound to tensors",
                entry.function
            )));
        };
        if !m.is_contiguous_static() {
            return Err(Error::Unsupported(format!(
                "entry @{} argument #{i} is not a static contiguous memref",
                entry.function
            )));
        }
        if i == entry.inputs + entry.outputs {
            args.push(workspace);
            continue;
        }
        let (array, slot) = if i < entry.inputs { (inputs, i) } else { (outputs, i - entry.inputs) };
        let offset =
            i32::try_from(slot * ptr.bytes() as usize).map_err(|_| Error::Unsupported("too many arguments".into()))?;
        args.push(b.ins().load(ptr, MemFlagsData::trusted(), array, offset));
    }
    let callee = module.declare_func_in_func(info.id, b.func);
    b.ins().call(callee, &args);
    let zero = b.ins().iconst(types::I32, 0);
    b.ins().return_(&[zero]);
    b.seal_all_blocks();
    b.finalize(module.isa().frontend_config());
    module.define_function(id, context).map_err(|e| Error::Cranelift(format!("entry: {e:?}")))?;
    module.clear_context(context);
    Ok(id)
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

//! Module and function translation: signatures, blocks, and the op dispatch to each dialect's
//! translation (`arith`, `memref`, `math`), which share the state of `state.rs`.

mod arith;
mod math;
mod memref;
mod state;

pub(crate) use state::{string_attr, unsupported};

use state::{FnCx, FuncInfo, ModuleCx, Val, flat_types, key, segments};

use crate::{
    Error, Result, data,
    types::{ValType, classify},
};
use cranelift_codegen::ir::{
    AbiParam, Block, Function, InstBuilder, MemFlagsData, Signature, UserFuncName, Value, types,
};
use cranelift_codegen::isa::CallConv;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_module::{FuncId, Linkage, Module};
use melior::ir::{AttributeLike, BlockLike, BlockRef, OperationRef, RegionLike, ValueLike, operation::OperationLike};
use std::collections::HashMap;
use umac_dialects::{ir::op_name, text::attribute_text};

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

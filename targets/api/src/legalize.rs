//! Legalization (`umac-legalize-<target>`): each composite in a backend's outlined functions is
//! lowered by the backend's [`Strategy`]. An extern call becomes, at the tensor level,
//! ```mlir
//! %b0 = bufferization.to_buffer %input read_only : tensor<1x8x8x4xi8> to memref<1x8x8x4xi8>
//! %c1 = arith.constant 1 : i32
//! %out = memref.alloc() {alignment = 16 : i64} : memref<1x8x8x4xi8>
//! "umac.call_extern"(%b0, %c1, %out) {callee = @kernel, operandSegmentSizes = array<i32: 2, 1>} : ...
//! %r = bufferization.to_tensor %out restrict writable : memref<1x8x8x4xi8> to tensor<1x8x8x4xi8>
//! ```
//! which bufferization turns into a call writing straight into the caller's buffer. A function
//! whose composites all take the reference lowering is inlined back into its caller.

use crate::{
    Backend, Composite, Error, ExternArg, ExternCallSite, ExternRegion, Strategy, TargetAttrs,
    kernel::{Passed, check_call},
    pattern::{is_constant_op, match_at},
};
use melior::ir::{BlockLike, OperationRef, RegionLike, TypeLike, ValueLike, operation::OperationLike};
use mlir_sys::*;
use umac_dialects::{
    build::{Attr, Builder, RawType, Ty, Value, memref_type},
    ir::{name, op_name, string_value, symbol_name, top_level_ops, type_text, with_context},
    text::str_ref,
    umac::{CALL_EXTERN, TARGET_ATTR, is_c_identifier},
};

/// Legalizes every function of `module` partitioned to `backend`.
pub fn legalize(module: OperationRef, backend: &dyn Backend, attributes: &TargetAttrs) -> Result<(), Error> {
    for function in functions_of(module, backend.name()) {
        legalize_function(module, function, backend, attributes)?;
    }
    Ok(())
}

/// The functions of `module` with `umac.target = target`.
pub fn functions_of<'c, 'a>(module: OperationRef<'c, 'a>, target: &str) -> Vec<OperationRef<'c, 'a>> {
    top_level_ops(module)
        .into_iter()
        .filter(|op| {
            op_name(op) == "func.func"
                && op.attribute(TARGET_ATTR).ok().and_then(string_value).as_deref() == Some(target)
        })
        .collect()
}

/// The composites of `function` (a backend's), found again by its patterns (the partitioner
/// outlined whole matches), in the order the function computes them: by the place of their last
/// op (where a call goes). An op in no composite (hand-written or edited IR) is an error.
pub(crate) fn composites_of<'c, 'a>(
    function: OperationRef<'c, 'a>,
    backend: &dyn Backend,
    attributes: &TargetAttrs,
) -> Result<Vec<(String, crate::pattern::Match<'c, 'a>)>, Error> {
    let symbol = symbol_name(&function).unwrap_or_default();
    let Some(block) = function.region(0).ok().and_then(|r| r.first_block()) else {
        return Ok(Vec::new());
    };
    let patterns = backend.patterns(attributes);
    let mut claimed = std::collections::HashSet::new();
    let mut composites = Vec::new();
    for pattern in &patterns {
        let mut next = block.first_operation();
        while let Some(op) = next {
            next = op.next_in_block();
            if claimed.contains(&(op.to_raw().ptr as usize)) {
                continue;
            }
            let taken = |o: &OperationRef| claimed.contains(&(o.to_raw().ptr as usize));
            if let crate::pattern::Outcome::Matched(m) = match_at(pattern, op, &taken) {
                for (_, o) in &m.ops {
                    claimed.insert(o.to_raw().ptr as usize);
                }
                composites.push((pattern.name.clone(), m));
            }
        }
    }
    // Every op must belong to a composite (hand-written or edited IR may not).
    let mut next = block.first_operation();
    while let Some(op) = next {
        next = op.next_in_block();
        let name = op_name(&op);
        if !claimed.contains(&(op.to_raw().ptr as usize)) && !is_constant_op(&name) && name != "func.return" {
            return Err(diagnose(
                &op,
                &format!("'{name}' in @{symbol} is not part of any of {}'s composite patterns", backend.name()),
            ));
        }
    }
    // In the order the function computes them: by the place of their last op (where the call
    // goes).
    let mut position = std::collections::HashMap::new();
    let mut next = block.first_operation();
    while let Some(op) = next {
        next = op.next_in_block();
        position.insert(op.to_raw().ptr as usize, position.len());
    }
    let last_position = |m: &crate::pattern::Match| {
        m.ops.iter().filter_map(|(_, op)| position.get(&(op.to_raw().ptr as usize))).max().copied().unwrap_or(0)
    };
    composites.sort_by_key(|(_, m)| last_position(m));
    Ok(composites)
}

/// The composite `m` of `pattern` as a backend sees it.
pub(crate) fn view<'c, 'a>(pattern: &str, m: &crate::pattern::Match<'c, 'a>) -> Composite<'c, 'a> {
    Composite {
        pattern: pattern.to_string(),
        ops: m.ops.iter().map(|(role, op)| (role.clone(), crate::OpView::new(*op))).collect(),
    }
}

fn legalize_function(
    module: OperationRef,
    function: OperationRef,
    backend: &dyn Backend,
    attributes: &TargetAttrs,
) -> Result<(), Error> {
    let symbol = symbol_name(&function).unwrap_or_default();
    if function.region(0).ok().and_then(|r| r.first_block()).is_none() {
        return Ok(());
    }
    let composites = composites_of(function, backend, attributes)?;
    let views: Vec<Composite> = composites.iter().map(|(pattern, m)| view(pattern, m)).collect();
    let strategies = backend.strategies(&views, attributes);
    if strategies.len() != composites.len() {
        let what = format!("{} strategies for {} composites", strategies.len(), composites.len());
        return Err(diagnose(&function, &format!("{}'s strategies for @{symbol}: {what}", backend.name())));
    }
    let mut plans = Vec::new();
    for ((pattern, m), strategy) in composites.iter().zip(strategies) {
        // Reported at the pattern's root op (the convolution of conv + rescale + clamp): what
        // the backend cannot take is about it.
        plans.push(
            strategy.map_err(|e| diagnose(&m.root_op(), &format!("{} cannot lower {pattern}: {e}", backend.name())))?,
        );
    }
    let externs = plans.iter().filter(|s| matches!(s, Strategy::Extern(_))).count();
    if externs == 0 {
        let mut schedules: Vec<&str> = plans
            .iter()
            .filter_map(|s| match s {
                Strategy::Schedule(pipeline) => Some(pipeline.as_str()),
                _ => None,
            })
            .collect();
        schedules.dedup();
        match schedules[..] {
            [] => {}
            [schedule] => run_schedule(function, schedule, backend.name())?,
            _ => {
                return Err(diagnose(
                    &function,
                    &format!(
                        "@{symbol} merges composites with different schedules; {} must not merge them",
                        backend.name()
                    ),
                ));
            }
        }
        return inline(function);
    }
    if externs != plans.len() {
        return Err(diagnose(
            &function,
            &format!(
                "@{symbol} mixes composites with the reference lowering and extern calls; \
                 {} must not merge them (merge_compiler_regions = false) or use one strategy",
                backend.name()
            ),
        ));
    }
    let mut regions = Regions::default();
    for ((pattern, m), strategy) in composites.iter().zip(plans) {
        if let Strategy::Extern(call) = strategy {
            extern_call(module, (function, &mut regions), pattern, m, call, backend)?;
        }
    }
    Ok(())
}

/// Runs a backend's schedule (pipeline text anchored on `func.func`) on `function`.
fn run_schedule(function: OperationRef, schedule: &str, target: &str) -> Result<(), Error> {
    with_context(&function, |context| umac_lowering::run_on_function(context, function, schedule)).map_err(|e| {
        let what = match e {
            umac_lowering::Error::Reported => "failed".to_string(),
            other => format!("does not parse: {other}"),
        };
        diagnose(&function, &format!("{target}'s schedule '{schedule}' {what}"))
    })
}

/// Emits `message` as an error at `op`.
pub(crate) fn diagnose(op: &OperationRef, message: &str) -> Error {
    umac_dialects::emit_error(op.location(), message);
    Error::Reported
}

/// The regions the calls of one function name ([`ExternRegion`]): each one's buffer, allocated
/// at the function's entry in the order first named.
#[derive(Default)]
struct Regions {
    buffers: Vec<(ExternRegion, MlirValue)>,
    /// The last buffer allocated.
    last: Option<MlirOperation>,
}

impl Regions {
    /// The buffer of `region`, allocated at `function`'s entry when first named; `Err` when the
    /// key was named with other bytes or another space.
    fn buffer(&mut self, function: OperationRef, region: &ExternRegion) -> Result<MlirValue, Error> {
        if let Some((named, value)) = self.buffers.iter().find(|(r, _)| r.key == region.key) {
            return if named == region {
                Ok(*value)
            } else {
                Err(Error::Invalid(format!("region '{}' is named as {named:?} and as {region:?}", region.key)))
            };
        }
        if region.bytes == 0 {
            return Err(Error::Invalid(format!("region '{}' has no bytes", region.key)));
        }
        let block = function
            .region(0)
            .ok()
            .and_then(|r| r.first_block())
            .ok_or_else(|| Error::Invalid("a function without a body".into()))?;
        // SAFETY: the function is live, its entry block holds ops (the composites); the ops are
        // created in its context and inserted into that block, which then owns them.
        unsafe {
            let context = mlirOperationGetContext(function.to_raw());
            let location = mlirOperationGetLocation(function.to_raw());
            let ops = if region.is_static() {
                static_buffer(function, region, context, location)?.to_vec()
            } else {
                let ty =
                    memref_type(context, &[region.bytes as i64], mlirIntegerTypeGet(context, 8), Some(&region.space));
                let alignment = mlirIntegerAttrGet(mlirIntegerTypeGet(context, 64), 16);
                vec![umac_dialects::ir::build("memref.alloc", location, &[], &[ty], &[("alignment", alignment)])]
            };
            for &op in &ops {
                match self.last {
                    Some(last) => mlirBlockInsertOwnedOperationAfter(block.to_raw(), last, op),
                    None => mlirBlockInsertOwnedOperationBefore(
                        block.to_raw(),
                        mlirBlockGetFirstOperation(block.to_raw()),
                        op,
                    ),
                }
                self.last = Some(op);
            }
            let value = mlirOperationGetResult(ops[ops.len() - 1], 0);
            self.buffers.push((region.clone(), value));
            Ok(value)
        }
    }
}

/// The static buffer of `region` for `function` ([`crate::ExternCall::static_region`]):
/// `llvm.mlir.global internal @__umac_<function>_<key>`, zeroed and word-aligned in
/// [`crate::LOCAL_SECTION`], before the function; returns the ops giving its address (an i32):
/// `llvm.mlir.addressof` and `llvm.ptrtoint`, for the function's entry.
///
/// # Safety
/// `function` is a live function of a module; `context` and `location` are its own.
unsafe fn static_buffer(
    function: OperationRef,
    region: &ExternRegion,
    context: MlirContext,
    location: MlirLocation,
) -> Result<[MlirOperation; 2], Error> {
    let symbol = format!("__umac_{}_{}", symbol_name(&function).unwrap_or_default(), region.key);
    if !is_c_identifier(&symbol) {
        return Err(Error::Invalid(format!(
            "the static region '{}' would be named {symbol}, no C identifier",
            region.key
        )));
    }
    let module = function.parent_operation().ok_or_else(|| Error::Invalid("a function outside a module".into()))?;
    if top_level_ops(module).iter().any(|op| symbol_name(op).as_deref() == Some(symbol.as_str())) {
        return Err(Error::Invalid(format!("the static region '{}': @{symbol} is defined already", region.key)));
    }
    let bytes = u32::try_from(region.bytes)
        .map_err(|_| Error::Invalid(format!("the static region '{}' has {} bytes", region.key, region.bytes)))?;
    // SAFETY: the caller's contract; the global is inserted into the module's body before the
    // function, which then owns it.
    unsafe {
        let text = |s: &str| mlirStringAttrGet(context, str_ref(s));
        let i8 = mlirIntegerTypeGet(context, 8);
        let tensor = mlirRankedTensorTypeGet(1, [i64::from(bytes)].as_ptr(), i8, mlirAttributeGetNull());
        let attributes = [
            ("sym_name", text(&symbol)),
            ("global_type", mlirTypeAttrGet(mlirLLVMArrayTypeGet(i8, bytes))),
            ("linkage", mlirLLVMLinkageAttrGet(context, MlirLLVMLinkage_MlirLLVMLinkageInternal)),
            ("value", mlirDenseElementsAttrInt8SplatGet(tensor, 0)),
            ("alignment", mlirIntegerAttrGet(mlirIntegerTypeGet(context, 64), 4)),
            ("section", text(crate::LOCAL_SECTION)),
            ("addr_space", mlirIntegerAttrGet(mlirIntegerTypeGet(context, 32), 0)),
        ];
        let global =
            umac_dialects::ir::build_with_regions("llvm.mlir.global", location, &[], &[], &attributes, &[None]);
        let body = mlirOperationGetBlock(function.to_raw());
        mlirBlockInsertOwnedOperationBefore(body, function.to_raw(), global);
        let at = mlirFlatSymbolRefAttrGet(context, str_ref(&symbol));
        let pointer = mlirLLVMPointerTypeGet(context, 0);
        let addressof =
            umac_dialects::ir::build("llvm.mlir.addressof", location, &[], &[pointer], &[("global_name", at)]);
        let address = mlirOperationGetResult(addressof, 0);
        let i32 = mlirIntegerTypeGet(context, 32);
        Ok([addressof, umac_dialects::ir::build("llvm.ptrtoint", location, &[address], &[i32], &[])])
    }
}

/// An argument of an extern call, checked before anything is written.
enum Planned {
    /// A tensor operand of the composite, passed as its buffer.
    Operand(MlirValue),
    /// `len` zeros of `element`.
    Zeros(Ty, i64),
    /// Constant integers of an element type.
    Constant(Ty, Vec<i64>),
    /// The address of region `k` plus `offset`.
    Address(usize, i64),
    I32(i64),
}

/// Replaces the composite `m` of `function` by the extern call `call`, checked against the
/// kernel's prototype; the regions it names are those of `regions`.
fn extern_call(
    module: OperationRef,
    (function, regions): (OperationRef, &mut Regions),
    pattern: &str,
    m: &crate::pattern::Match,
    mut call: crate::ExternCall,
    backend: &dyn Backend,
) -> Result<(), Error> {
    let last = m.ops[m.ops.len() - 1].1;
    let fail = |message: String| diagnose(&last, &format!("{pattern}: {message}"));
    let result = last.result(0).map_err(|_| fail("the composite has no result".into()))?;
    let result_type = type_text(result.r#type().to_raw());
    let memref = |tensor: &str| -> Result<String, Error> {
        if !tensor.starts_with("tensor<") || tensor.contains('?') {
            return Err(fail(format!("extern calls need static tensor types, got {tensor}")));
        }
        Ok(tensor.replacen("tensor<", "memref<", 1))
    };
    let element = |ty: MlirType| type_text(umac_dialects::ir::element_type(ty));
    let mut planned = Vec::new();
    let mut types = Vec::new();
    let mut passed = Vec::new();
    // The regions the call names, bound to their buffers, and whether the call points into each
    // (then its address, an i32, is taken first).
    let mut buffers = Vec::new();
    for region in &call.regions {
        let buffer = regions.buffer(function, region).map_err(|e| fail(e.to_string()))?;
        let points =
            call.arguments.iter().any(|(_, a)| matches!(a, ExternArg::Address { region: r, .. } if *r == region.key));
        buffers.push((buffer, points));
    }
    let named = |key: &str| -> Result<(usize, &ExternRegion), Error> {
        call.regions
            .iter()
            .enumerate()
            .find(|(_, r)| r.key == key)
            .ok_or_else(|| fail(format!("the call does not name the region '{key}'")))
    };
    for (i, (_, argument)) in call.arguments.iter().enumerate() {
        match argument {
            ExternArg::Operand { role, index } => {
                let op =
                    m.ops.iter().find(|(r, _)| r == role).map(|(_, o)| *o).ok_or_else(|| {
                        fail(format!("the strategy names an op '{role}' the composite does not have"))
                    })?;
                let value = op.operand(*index).map_err(|_| fail(format!("'{role}' has no operand #{index}")))?;
                types.push(memref(&type_text(value.r#type().to_raw()))?);
                planned.push(Planned::Operand(value.to_raw()));
                passed.push(Passed::Input(element(value.r#type().to_raw())));
            }
            ExternArg::Zeros { element, len } => {
                let ty = Ty::integer(element)
                    .filter(|t| *t != Ty::I1)
                    .ok_or_else(|| fail(format!("zeros of {element} are not supported")))?;
                planned.push(Planned::Zeros(ty, *len as i64));
                types.push(format!("memref<{len}x{element}>"));
                passed.push(Passed::Input(element.to_string()));
            }
            ExternArg::Bytes(_) | ExternArg::Words(_) => {
                let (element, ty, values): (&str, Ty, Vec<i64>) = match argument {
                    ExternArg::Bytes(bytes) => ("i8", Ty::I8, bytes.iter().map(|v| i64::from(*v)).collect()),
                    ExternArg::Words(words) => ("i32", Ty::I32, words.iter().map(|v| i64::from(*v)).collect()),
                    _ => unreachable!("matched as a constant buffer"),
                };
                if values.is_empty() {
                    return Err(fail(format!("constant argument #{i} has no elements")));
                }
                types.push(format!("memref<{}x{element}>", values.len()));
                planned.push(Planned::Constant(ty, values));
                passed.push(Passed::Input(element.to_string()));
            }
            ExternArg::Address { region, offset } => {
                let (k, named) = named(region)?;
                if !(0..named.bytes as i64).contains(offset) {
                    return Err(fail(format!(
                        "address {offset} is outside region '{region}' of {} bytes",
                        named.bytes
                    )));
                }
                planned.push(Planned::Address(k, *offset));
                types.push("i32".into());
                passed.push(Passed::Int32);
            }
            ExternArg::I32(value) => {
                let value = i32::try_from(*value)
                    .map_err(|_| fail(format!("scalar argument #{i} ({value}) does not fit an int32_t")))?;
                planned.push(Planned::I32(i64::from(value)));
                types.push("i32".into());
                passed.push(Passed::Int32);
            }
        }
    }
    types.push(memref(&result_type)?);
    passed.push(Passed::Output(element(result.r#type().to_raw())));
    let defined = match call.definition.take() {
        Some(build) => {
            let parameters: Vec<Ty> = types.iter().map(|t| if t == "i32" { Ty::I32 } else { Ty::Index }).collect();
            define(module, &call.callee, &parameters, build.as_ref()).map_err(|e| fail(e.to_string()))?;
            true
        }
        None => {
            let site = ExternCallSite {
                callee: call.callee.clone(),
                composite: pattern.to_string(),
                argument_types: types.clone(),
                kernel: None,
                constants: Vec::new(),
            };
            if let Some(symbol) = backend.replace_call_extern(&site) {
                call.callee = symbol;
            }
            false
        }
    };
    if !is_c_identifier(&call.callee) {
        return Err(fail(format!("the extern callee '{}' is not a C identifier", call.callee)));
    }
    // A call left to C must match the prototype of a kernel the backend declares.
    if !defined {
        let kernels = backend.kernels();
        let kernel = kernels.iter().find(|k| k.symbol == call.callee).ok_or_else(|| {
            let declared: Vec<&str> = kernels.iter().map(|k| k.symbol).collect();
            fail(format!(
                "{} declares no kernel '{}' (kernels: {})",
                backend.name(),
                call.callee,
                if declared.is_empty() { "none".to_string() } else { declared.join(", ") }
            ))
        })?;
        let names: Vec<&str> = call.arguments.iter().map(|(name, _)| name.as_str()).collect();
        check_call(kernel, &names, &passed).map_err(|e| fail(e.to_string()))?;
    }
    let releases = call.releases.iter().map(|key| named(key).map(|(k, _)| k)).collect::<Result<Vec<_>, _>>()?;
    let fixed: Vec<bool> = call.regions.iter().map(ExternRegion::is_static).collect();
    with_context(&last, |context| {
        let mut b = Builder::before(context, last);
        b.set_location(fused_location(m));
        let buffers: Vec<(Value, bool)> = buffers.iter().map(|(v, points)| (b.existing(*v), *points)).collect();
        // A static buffer is its address already.
        let addresses: Vec<Option<Value>> = buffers
            .iter()
            .zip(&fixed)
            .map(|(&(buffer, points), &fixed)| {
                points.then(|| {
                    if fixed {
                        return buffer;
                    }
                    let x = b.op1("memref.extract_aligned_pointer_as_index", &[buffer], Ty::Index, &[]);
                    b.index_cast(x, Ty::I32)
                })
            })
            .collect();
        let mut operands = Vec::new();
        for argument in &planned {
            operands.push(match *argument {
                Planned::Operand(value) => {
                    let value = b.existing(value);
                    b.to_buffer(value)
                }
                Planned::Zeros(element, len) => {
                    let ty = b.tensor(&[len], element);
                    let zeros = b.op1("arith.constant", &[], ty, &[("value", Attr::Int(ty, 0))]);
                    b.to_buffer(zeros)
                }
                Planned::Constant(element, ref values) => b.constant_buffer(element, values),
                Planned::Address(k, offset) => {
                    let offset = b.constant(Ty::I32, offset);
                    let at = addresses[k]
                        .ok_or_else(|| umac_dialects::Error::Internal("an address of a region not taken".into()))?;
                    b.addi(at, offset)
                }
                Planned::I32(value) => b.constant(Ty::I32, value),
            });
        }
        let result = Ty::Of(RawType(result.r#type().to_raw()));
        let out = b.memref_like(result);
        let out = b.alloc(out, 16);
        let sizes = [operands.len() as i32, 1];
        operands.push(out);
        let attributes = [("callee", Attr::Symbol(&call.callee)), ("operandSegmentSizes", Attr::I32Array(&sizes))];
        b.op(CALL_EXTERN, &operands, &[], &attributes);
        // A static buffer lives as long as the program.
        for k in releases.iter().filter(|&&k| !fixed[k]) {
            b.op("memref.dealloc", &[buffers[*k].0], &[], &[]);
        }
        let attributes = [("restrict", Attr::Unit), ("writable", Attr::Unit)];
        let r = b.op1("bufferization.to_tensor", &[out], result, &attributes);
        b.replace(&[r])
    })
    .map_err(|e| fail(e.to_string()))?;
    // SAFETY: the composite's other ops are live ops of one block, each used only by the next
    // one, whose replacement left them unused; they are erased last first.
    unsafe {
        for (_, op) in m.ops.iter().rev().skip(1) {
            mlirOperationDestroy(op.to_raw());
        }
    }
    Ok(())
}

/// One location naming every op of the composite (the operator metadata lists them all).
pub(crate) fn fused_location(m: &crate::pattern::Match) -> MlirLocation {
    let locations: Vec<MlirLocation> = m.ops.iter().map(|(_, op)| op.location().to_raw()).collect();
    // SAFETY: the locations belong to the ops' context.
    unsafe {
        let context = mlirLocationGetContext(locations[0]);
        mlirLocationFusedGet(context, locations.len() as isize, locations.as_ptr(), mlirAttributeGetNull())
    }
}

/// Adds the backend's definition of `callee`, taking `parameters`, to `module`, once.
fn define(module: OperationRef, callee: &str, parameters: &[Ty], build: &crate::Define) -> Result<(), Error> {
    let body = module
        .region(0)
        .ok()
        .and_then(|r| r.first_block())
        .ok_or_else(|| Error::Invalid("the module has no body".into()))?;
    if top_level_ops(module).iter().any(|op| symbol_name(op).as_deref() == Some(callee)) {
        return Ok(());
    }
    with_context(&module, |context| {
        let mut builder = Builder::function(context, callee, parameters, callee);
        build(&mut builder)?;
        let function = builder.finish().map_err(|e| Error::Invalid(format!("the definition of @{callee}: {e}")))?;
        body.append_operation(function);
        Ok(())
    })
}

/// Inlines `function` (called exactly once) at its call and erases it.
pub(crate) fn inline(function: OperationRef) -> Result<(), Error> {
    let symbol = symbol_name(&function).unwrap_or_default();
    let module = function.parent_operation().ok_or_else(|| Error::Invalid("a function outside a module".into()))?;
    let mut calls = Vec::new();
    module.walk(melior::ir::operation::WalkOrder::PreOrder, |op| {
        if op_name(&op) == "func.call"
            && op.attribute("callee").ok().map(umac_dialects::text::attribute_text).as_deref()
                == Some(format!("@{symbol}").as_str())
        {
            calls.push(op.to_raw());
        }
        melior::ir::operation::WalkResult::Advance
    });
    let [call] = calls[..] else {
        return Err(diagnose(
            &function,
            &format!(
                "@{symbol} is called {} times; the reference lowering inlines a function called once",
                calls.len()
            ),
        ));
    };
    // SAFETY: the function and its call are live; ops move from the function's block to before
    // the call, then the call, the return and the function are erased.
    unsafe {
        let block = mlirRegionGetFirstBlock(mlirOperationGetRegion(function.to_raw(), 0));
        for i in 0..mlirBlockGetNumArguments(block) {
            mlirValueReplaceAllUsesOfWith(mlirBlockGetArgument(block, i), mlirOperationGetOperand(call, i));
        }
        let mut next = mlirBlockGetFirstOperation(block);
        while !next.ptr.is_null() {
            let current = next;
            next = mlirOperationGetNextInBlock(current);
            if name(current) == "func.return" {
                for i in 0..mlirOperationGetNumOperands(current) {
                    mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(call, i), mlirOperationGetOperand(current, i));
                }
                break;
            }
            mlirOperationMoveBefore(current, call);
        }
        mlirOperationDestroy(call);
        mlirOperationDestroy(function.to_raw());
    }
    Ok(())
}

//! An accelerator's primitive ops: the level between the graph and loop IR (DESIGN.md's L2),
//! each op what one job of the hardware computes, e.g. `tynnp.conv2d` for a convolution with its
//! bias, rescale and clamp. A backend that lists [`Backend::dialect_ops`] gets
//! - a dialect named as the backend, registered beside umac's (in `umac-opt` as in every tool),
//!   each op checked by [`Backend::verify_primitive`] wherever MLIR verifies;
//! - `umac-primitives-<name>`: each composite of its functions becomes the primitive op
//!   [`Backend::primitive`] gives (the composite's ops replaced, the op located at all of them);
//! - `umac-reference-<name>`: each primitive op becomes the upstream ops of
//!   [`Backend::reference`] and the backend's functions are inlined back into their callers, so a
//!   partitioned model runs on the host as it will on the accelerator, op for op;
//! - `umac-convert-<name>-to-llvm`: each low-level op of its dialect (an instruction its kernels
//!   are written in) becomes the llvm dialect ops of [`Backend::lower_to_llvm`].

use crate::{Attr, Backend, Builder, Error, OpView, TargetAttrs, Ty, Value, backend, legalize};
use melior::ir::{BlockLike, OperationRef, RegionLike, TypeLike, ValueLike, operation::OperationLike};
use mlir_sys::*;
use umac_dialects::{
    build::RawType,
    ir::{op_name, symbol_name, with_context},
};

/// The primitive op a composite becomes.
#[derive(Clone, Debug)]
pub struct Primitive {
    /// Its name, `<backend>.<op>`, one of [`Backend::dialect_ops`].
    pub op: String,
    /// Its operands, in order.
    pub operands: Vec<PrimitiveArg>,
    /// Its integer attributes (written as `i64`), in order.
    pub attributes: Vec<(String, i64)>,
}

/// An operand of a [`Primitive`].
#[derive(Clone, Debug)]
pub enum PrimitiveArg {
    /// Operand `index` of the composite's op with role `role`.
    Operand {
        /// The op's role in the pattern.
        role: String,
        /// Which operand.
        index: usize,
    },
    /// A constant tensor the backend computed (weights in the layout its job reads).
    Constant {
        /// Its shape.
        shape: Vec<i64>,
        /// Its element type: `i8`, `i16` or `i32`.
        element: &'static str,
        /// Its elements, row-major.
        values: Vec<i64>,
    },
}

/// Adds the dialect of each of `backends` that has primitive ops.
pub(crate) fn add_dialects(backends: &[&'static dyn Backend]) {
    for backend in backends {
        let ops: Vec<&str> =
            backend.dialect_ops().iter().map(|op| op.split_once('.').map_or(*op, |(_, o)| o)).collect();
        if !ops.is_empty() {
            umac_dialects::native::add_dynamic_dialect(backend.name(), &ops, verify_hook);
        }
    }
}

/// The verifier of every primitive op: its backend's [`Backend::verify_primitive`], the message
/// reported at the op.
///
/// # Safety
/// `op` must be a live op (MLIR calls the hook so).
unsafe extern "C" fn verify_hook(op: MlirOperation) -> bool {
    // SAFETY: MLIR calls the hook with a live op, for the duration of the call.
    let op = unsafe { OperationRef::from_raw(op) };
    let name = op_name(&op);
    let Some(backend) = name.split_once('.').and_then(|(dialect, _)| backend(dialect)) else {
        return true;
    };
    match backend.verify_primitive(&OpView::new(op)) {
        Ok(()) => true,
        Err(message) => {
            umac_dialects::emit_error(op.location(), &format!("'{name}' op {message}"));
            false
        }
    }
}

/// `umac-primitives-<name>`: every composite of `backend`'s functions in `module` becomes its
/// primitive op (a composite the backend gives none keeps its ops).
pub fn form_primitives(module: OperationRef, backend: &dyn Backend, attributes: &TargetAttrs) -> Result<(), Error> {
    for function in legalize::functions_of(module, backend.name()) {
        let Some(block) = function.region(0).ok().and_then(|r| r.first_block()) else { continue };
        let composites = legalize::composites_of(function, backend, attributes)?;
        for (pattern, m) in &composites {
            let view = legalize::view(pattern, m);
            let root = m.root_op();
            let fail = |message: String| legalize::diagnose(&root, &format!("{pattern}: {message}"));
            let primitive = backend
                .primitive(&view, attributes)
                .map_err(|e| legalize::diagnose(&root, &format!("{} cannot form {pattern}: {e}", backend.name())))?;
            let Some(primitive) = primitive else { continue };
            if !backend.dialect_ops().contains(&primitive.op.as_str()) {
                return Err(fail(format!("{} is not one of {}'s primitive ops", primitive.op, backend.name())));
            }
            replace(m, &primitive).map_err(|e| fail(e.to_string()))?;
        }
        erase_unused_constants(block);
    }
    Ok(())
}

/// Replaces the composite `m` by `primitive`, located at every op of the composite.
fn replace(m: &crate::pattern::Match, primitive: &Primitive) -> Result<(), Error> {
    let last = m.ops[m.ops.len() - 1].1;
    let result = last.result(0).map_err(|_| Error::Invalid("the composite has no result".into()))?;
    /// An operand, checked before anything is written.
    enum Operand<'a> {
        Value(MlirValue),
        /// A constant's shape, element type and elements.
        Constant(&'a [i64], Ty, &'a [i64]),
    }
    let mut operands = Vec::new();
    for operand in &primitive.operands {
        operands.push(match operand {
            PrimitiveArg::Operand { role, index } => {
                let op = m.ops.iter().find(|(r, _)| r == role).map(|(_, o)| *o);
                let value = op
                    .and_then(|op| op.operand(*index).ok())
                    .ok_or_else(|| Error::Invalid(format!("the composite has no operand #{index} of '{role}'")))?;
                Operand::Value(value.to_raw())
            }
            PrimitiveArg::Constant { shape, element, values } => {
                let element = Ty::integer(element)
                    .filter(|t| *t != Ty::I1)
                    .ok_or_else(|| Error::Invalid(format!("constants of {element} are not supported")))?;
                if values.is_empty() {
                    return Err(Error::Invalid("an empty constant".into()));
                }
                Operand::Constant(shape, element, values)
            }
        });
    }
    let attributes: Vec<(&str, Attr)> =
        primitive.attributes.iter().map(|(name, value)| (name.as_str(), Attr::Int(Ty::I64, *value))).collect();
    with_context(&last, |context| {
        let mut b = Builder::before(context, last);
        b.set_location(legalize::fused_location(m));
        let operands: Vec<Value> = operands
            .iter()
            .map(|operand| match operand {
                Operand::Value(value) => b.existing(*value),
                Operand::Constant(shape, element, values) => b.tosa_const(b.tensor(shape, *element), values),
            })
            .collect();
        let ty = Ty::Of(RawType(result.r#type().to_raw()));
        let r = b.op1(&primitive.op, &operands, ty, &attributes);
        b.replace(&[r])
    })
    .map_err(|e| Error::Invalid(e.to_string()))?;
    // SAFETY: the composite's other ops are live ops of one block, each used only by the next
    // one, whose replacement left them unused; they are erased last first.
    unsafe {
        for (_, op) in m.ops.iter().rev().skip(1) {
            mlirOperationDestroy(op.to_raw());
        }
    }
    Ok(())
}

/// Erases the constants of `block` nothing uses any more (the composites' own, once replaced).
fn erase_unused_constants(block: melior::ir::BlockRef) {
    let mut next = block.first_operation();
    let mut unused = Vec::new();
    while let Some(op) = next {
        next = op.next_in_block();
        // SAFETY: the op is live; its results' uses are read only.
        let used = (0..op.result_count())
            .any(|i| op.result(i).is_ok_and(|r| unsafe { !mlirValueGetFirstUse(r.to_raw()).ptr.is_null() }));
        if crate::pattern::is_constant_op(&op_name(&op)) && !used {
            unused.push(op.to_raw());
        }
    }
    // SAFETY: each op is live, in the block, and unused.
    unsafe { unused.into_iter().for_each(|op| mlirOperationDestroy(op)) }
}

/// `umac-reference-<name>`: every primitive op of `backend` in `module` becomes its reference
/// lowering (the ops [`Backend::reference`] writes in front of it), and `backend`'s functions
/// are inlined back into their callers; a failure is reported at the op.
pub fn lower_to_reference(module: OperationRef, backend: &dyn Backend) -> Result<(), Error> {
    let prefix = format!("{}.", backend.name());
    for raw in umac_dialects::ir::collect(module, |op| op_name(op).starts_with(&prefix)) {
        // SAFETY: collected from the live module; each op is replaced once (none holds another).
        let op = unsafe { OperationRef::from_raw(raw) };
        let fail = |message: String| legalize::diagnose(&op, &format!("'{}': {message}", op_name(&op)));
        with_context(&op, |context| {
            let mut builder = Builder::before(context, op);
            let results = backend
                .reference(&OpView::new(op), &mut builder)
                .map_err(|e| fail(format!("no reference lowering: {e}")))?;
            builder.replace(&results).map_err(|e| fail(e.to_string()))
        })?;
    }
    for function in legalize::functions_of(module, backend.name()) {
        let symbol = symbol_name(&function).unwrap_or_default();
        let left = umac_dialects::ir::collect(function, |op| op_name(op).starts_with(&prefix));
        if !left.is_empty() {
            return Err(legalize::diagnose(
                &function,
                &format!("@{symbol} still holds {} primitive ops", backend.name()),
            ));
        }
        legalize::inline(function)?;
    }
    Ok(())
}

/// `umac-convert-<name>-to-llvm`: every low-level op of `backend`'s dialect in `module`, and
/// every `memref.extract_aligned_pointer_as_index` of a buffer in one of its memories (a memory
/// space `<name>.<memory>`), becomes the llvm dialect ops [`Backend::lower_to_llvm`] builds in
/// front of it; a failure is reported at the op. An op it does not lower (one giving an on-chip memory as a memref, which the
/// lowered ops addressed through it) goes once nothing but views nothing uses are left of it,
/// with those views; one still used is an error at the op.
pub fn convert_to_llvm(module: OperationRef, backend: &dyn Backend) -> Result<(), Error> {
    let prefix = format!("{}.", backend.name());
    let mut left = Vec::new();
    // The backend's ops, and the addresses of buffers in its memories (`<name>.<memory>` spaces).
    let ops = umac_dialects::ir::collect(module, |op| {
        op_name(op).starts_with(&prefix)
            || (op_name(op) == "memref.extract_aligned_pointer_as_index"
                && op
                    .operand(0)
                    .is_ok_and(|v| memory_space(v.r#type().to_raw()).is_some_and(|s| s.starts_with(&prefix))))
    });
    for raw in ops {
        // SAFETY: collected from the live module; each op is replaced once (none holds another),
        // and an op not lowered stays in place.
        let op = unsafe { OperationRef::from_raw(raw) };
        let fail = |message: String| legalize::diagnose(&op, &format!("'{}': {message}", op_name(&op)));
        with_context(&op, |context| {
            let mut builder = Builder::before(context, op);
            match backend.lower_to_llvm(&OpView::new(op), &mut builder) {
                None => {
                    left.push(raw);
                    Ok(())
                }
                Some(Err(e)) => Err(fail(format!("no lowering to the llvm dialect: {e}"))),
                Some(Ok(results)) => builder.replace(&results).map_err(|e| fail(e.to_string())),
            }
        })?;
    }
    for raw in left {
        // SAFETY: an op not lowered is still live: lowering replaced only the ops it lowered.
        let op = unsafe { OperationRef::from_raw(raw) };
        let mut dead = Vec::new();
        // SAFETY: the op is live; the views found are live users of it.
        if unsafe { only_dead_views(raw, &mut dead) } {
            // SAFETY: users first (each view's users are before it in `dead`), then the op: each
            // is destroyed once nothing uses it.
            unsafe {
                for view in dead.into_iter().chain([raw]) {
                    mlirOperationDestroy(view);
                }
            }
        } else if op.result_count() > 0 {
            return Err(legalize::diagnose(
                &op,
                &format!("'{}' is still used once its target's ops are lowered", op_name(&op)),
            ));
        }
    }
    Ok(())
}

/// The memory space of a memref type when it is a string (an accelerator's memory).
fn memory_space(ty: MlirType) -> Option<String> {
    // SAFETY: the type is live; its memory space is read after the kind check.
    unsafe {
        if !mlirTypeIsAMemRef(ty) {
            return None;
        }
        let space = mlirMemRefTypeGetMemorySpace(ty);
        (!space.ptr.is_null() && mlirAttributeIsAString(space))
            .then(|| umac_dialects::text::string_from(mlirStringAttrGetValue(space)))
    }
}

/// Whether every use of `op`'s results is by a view (`memref.view` or a view op of
/// `umac_dialects::ir::VIEW_OPS`) of which the same holds; those views go into `dead`, each after
/// the views of it.
///
/// # Safety
/// `op` must be live.
unsafe fn only_dead_views(op: MlirOperation, dead: &mut Vec<MlirOperation>) -> bool {
    // SAFETY: the caller's contract; uses are read while the IR is not modified.
    unsafe {
        for r in 0..mlirOperationGetNumResults(op) {
            let mut uses = mlirValueGetFirstUse(mlirOperationGetResult(op, r));
            while !uses.ptr.is_null() {
                let user = mlirOpOperandGetOwner(uses);
                let name = umac_dialects::ir::name(user);
                let is_view = name == "memref.view" || umac_dialects::ir::VIEW_OPS.contains(&name.as_str());
                if !is_view || !only_dead_views(user, dead) {
                    return false;
                }
                if !dead.iter().any(|d| d.ptr == user.ptr) {
                    dead.push(user);
                }
                uses = mlirOpOperandGetNextUse(uses);
            }
        }
        true
    }
}

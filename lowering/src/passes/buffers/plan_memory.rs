//! `umac-plan-memory`: static memory planning. Every `memref.alloc` of a function becomes a
//! `memref.view` into one workspace buffer, a new last argument `memref<Nxi8>` the caller
//! provides; nothing is allocated at run time.
//!
//! Lifetimes are measured over the executor's steps in order (the AOT execution order): the
//! function's top-level ops, with the ops inside its control flow (`scf.if`, `scf.while`: TFLite's
//! IF and WHILE) in their place after it. A buffer is alive from the first to the last step that
//! uses it or a view of it (`subview`, `collapse_shape`, `expand_shape`, `cast`,
//! `reinterpret_cast`, `view`); one used inside a `scf.while` is alive through the whole loop (the next
//! iteration may read it). Buffers allocated inside a loop nest (per-tile scratch) are alive for
//! that nest. Offsets come from
//! [`crate::memory_plan::plan`] (greedy by size, then hill climbing), aligned to `alignment`.
//!
//! In place: an elementwise `linalg.generic` (all loops parallel, identity indexing maps) whose
//! output buffer starts there and whose input buffer of the same type dies there writes over the
//! input; the two become one buffer.
//!
//! A buffer of a single element or of at most 128 bits used within one step (a tile's
//! accumulator: a scalar, or a vector of four int32 channels) is a register, not
//! memory: it becomes a `memref.alloca` in front of that step, which LLVM promotes to a register.
//!
//! With `pools=dtcm:64K:fast,sram:512K` the workspace is split over those memories
//! (`crate::memory_pools`): one workspace argument per pool, in the order given, each buffer a view
//! of its pool's; the function also gets `umac.pools` (their names) and `umac.pool_sizes`. A
//! buffer a call takes (an accelerator's kernel may copy it by DMA) goes to no `:cpu` pool.
//!
//! The function gets `umac.workspace_size` (with pools, the sum of their sizes) and
//! `umac.workspace_lower_bound` (the most bytes alive at once, which no placement can beat). A buffer whose size is not static is an error at its
//! `memref.alloc`.
//! ```mlir
//! %a = memref.alloc() : memref<1x8xi8>
//! // becomes, in func.func @f(..., %ws: memref<32xi8>)
//! %c16 = arith.constant 16 : index
//! %a = memref.view %ws[%c16][] : memref<32xi8> to memref<1x8xi8>
//! ```

use crate::{
    Error,
    error::report,
    memory_plan::{Buffer, align_up, liveness_lower_bound, plan, validate},
    memory_pools::{Pool, parse_pools, plan_pools},
    options::{OptionKind, OptionSpec, OptionValues},
    pass::{UmacPass, boxed},
    registry::{PassInfo, PassKind},
};
use melior::ir::{
    Location, OperationRef,
    operation::{OperationLike, WalkOrder, WalkResult},
};
use mlir_sys::*;
use std::collections::HashMap;
use umac_dialects::{
    ir::{
        CONTROL_FLOW_OPS, LOOP_OPS, attribute, build, function_type, has_body, is_private, name, op_name,
        set_function_type, static_memref_bits, top_level_ops, views_bytes,
    },
    text::{attribute_text, str_ref, type_text},
    umac::{
        POOL_SIZES_ATTR, POOLS_ATTR, WORKSPACE_LOWER_BOUND_ATTR as WORKSPACE_LOWER_BOUND,
        WORKSPACE_SIZE_ATTR as WORKSPACE_SIZE,
    },
};

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    name: "umac-plan-memory",
    summary: "Place every memref.alloc in one caller-provided workspace argument by static lifetime analysis",
    anchor: "builtin.module",
    options: &[
        OptionSpec {
            name: "alignment",
            kind: OptionKind::Int,
            default: "16",
            help: "byte alignment of every buffer (a power of two)",
        },
        OptionSpec {
            name: "pools",
            kind: OptionKind::String,
            default: "",
            help: "memories to split the workspace over, NAME:SIZE[:fast][:cpu] separated by commas (e.g. \
                   dtcm:64K:fast:cpu,sram:512K): one workspace argument each, in this order; a :cpu pool \
                   takes no buffer a call takes",
        },
    ],
    kind: PassKind::Pass(|options: &OptionValues| {
        let given = options.int("alignment");
        let alignment = u64::try_from(given).ok().filter(|a| a.is_power_of_two() && *a <= 4096).ok_or_else(|| {
            Error::Invalid(format!("option 'alignment' must be a power of two from 1 to 4096, got {given}"))
        })?;
        let pools = parse_pools(options.string("pools")).map_err(|e| Error::Invalid(e.to_string()))?;
        boxed(PlanMemory { alignment, pools })
    }),
};

struct PlanMemory {
    alignment: u64,
    pools: Vec<Pool>,
}

impl UmacPass for PlanMemory {
    fn run(&mut self, operation: OperationRef) -> Result<(), Error> {
        let alignment = self.alignment;
        let mut functions = Vec::new();
        for op in top_level_ops(operation) {
            if op_name(&op) != "func.func" || !has_body(&op) {
                continue;
            }
            if !is_private(&op) {
                functions.push(op.to_raw());
                continue;
            }
            // A private function is called with its caller's buffers (a partitioned function, an
            // operator); it has no workspace of its own.
            let mut allocation = None;
            op.walk(WalkOrder::PreOrder, |inner| {
                if op_name(&inner) == "memref.alloc" {
                    allocation = Some(location_of(inner.to_raw()));
                    return WalkResult::Interrupt;
                }
                WalkResult::Advance
            });
            if let Some(location) = allocation {
                return Err(report(
                    location,
                    "umac-plan-memory: a private (called) function allocates a buffer; only public functions get a workspace",
                ));
            }
        }
        for function in functions {
            // SAFETY: each function is a live op of the module; the pass rewrites only its body
            // and signature.
            unsafe { plan_function(function, alignment, &self.pools) }?;
        }
        Ok(())
    }
}

fn location_of(op: MlirOperation) -> Location<'static> {
    // SAFETY: the location is owned by the context, which outlives the pass.
    unsafe { Location::from_raw(mlirOperationGetLocation(op)) }
}

/// The alloc a value is a view of, if any.
///
/// # Safety
/// `value` must be live.
unsafe fn root_alloc(mut value: MlirValue) -> Option<MlirOperation> {
    unsafe {
        loop {
            if !mlirValueIsAOpResult(value) {
                return None;
            }
            let owner = mlirOpResultGetOwner(value);
            let name = name(owner);
            if name == "memref.alloc" {
                return Some(owner);
            }
            if !views_bytes(&name) {
                return None;
            }
            value = mlirOperationGetOperand(owner, 0);
        }
    }
}

/// # Safety
/// `function` must be a live `func.func` with a body.
unsafe fn plan_function(function: MlirOperation, alignment: u64, pools: &[Pool]) -> Result<(), Error> {
    unsafe {
        let region = mlirOperationGetRegion(function, 0);
        let block = mlirRegionGetFirstBlock(region);
        if !mlirBlockGetNextInRegion(block).ptr.is_null() {
            return Err(report(
                location_of(function),
                "umac-plan-memory: the function has more than one block; plan memory before lowering to cf",
            ));
        }
        // The executor's steps in execution order, and the span of steps of each loop.
        let mut steps: HashMap<usize, usize> = HashMap::new();
        let mut top = Vec::new();
        let mut loops = Vec::new();
        flatten(block, &mut steps, &mut top, &mut loops);
        // Every alloc, and the steps where it (or a view of it) is used.
        let mut allocs: Vec<MlirOperation> = Vec::new();
        let mut index_of: HashMap<usize, usize> = HashMap::new();
        let mut uses: Vec<Option<(usize, usize)>> = Vec::new();
        // The top-level steps using each buffer: its weight for the pools.
        let mut users: Vec<Vec<usize>> = Vec::new();
        let mut failure = None;
        let mut self_copies = Vec::new();
        OperationRef::from_raw(function).walk(WalkOrder::PreOrder, |op| {
            let raw = op.to_raw();
            let name = op_name(&op);
            if name == "memref.alloc" || name == "memref.alloca" {
                let ty = mlirValueGetType(mlirOperationGetResult(raw, 0));
                if name == "memref.alloca" && fits_a_register(ty) {
                    return WalkResult::Advance;
                }
                if name == "memref.alloca" || !mlirShapedTypeHasStaticShape(ty) {
                    failure.get_or_insert((
                        mlirOperationGetLocation(raw),
                        format!(
                            "umac-plan-memory: cannot place a {} of {} in the workspace (only static-size memref.alloc)",
                            name,
                            type_text(melior::ir::Type::from_raw(ty))
                        ),
                    ));
                    return WalkResult::Interrupt;
                }
                index_of.insert(raw.ptr as usize, allocs.len());
                allocs.push(raw);
                uses.push(None);
                users.push(Vec::new());
            }
            if name == "memref.copy" && mlirValueEqual(mlirOperationGetOperand(raw, 0), mlirOperationGetOperand(raw, 1))
            {
                self_copies.push(raw);
                return WalkResult::Advance;
            }
            let step = step_of(raw, function, &steps);
            for i in 0..mlirOperationGetNumOperands(raw) {
                if let Some(alloc) = root_alloc(mlirOperationGetOperand(raw, i))
                    && let (Some(&index), Some(step)) = (index_of.get(&(alloc.ptr as usize)), step)
                {
                    let entry = uses[index].get_or_insert((step, step));
                    entry.0 = entry.0.min(step);
                    entry.1 = entry.1.max(step);
                    if !users[index].contains(&step) {
                        users[index].push(step);
                    }
                }
            }
            WalkResult::Advance
        });
        if let Some((location, message)) = failure {
            return Err(report(Location::from_raw(location), &message));
        }
        for copy in self_copies {
            mlirOperationDestroy(copy);
        }
        // A buffer used inside a loop lives through the whole loop (inner loops first).
        loops.sort_by_key(|&(start, end)| end - start);
        for &(first, last) in &loops {
            for (start, end) in uses.iter_mut().flatten() {
                if *start <= last && *end >= first {
                    (*start, *end) = ((*start).min(first), (*end).max(last));
                }
            }
        }
        // In place: an elementwise generic overwrites an input that dies there.
        let mut merged_into: Vec<Option<usize>> = vec![None; allocs.len()];
        for (step, &op) in top.iter().enumerate() {
            if let Some((input, output)) = in_place_pair(op, &index_of, &uses, step) {
                let output_value = mlirOperationGetResult(allocs[output], 0);
                mlirValueReplaceAllUsesOfWith(output_value, mlirOperationGetResult(allocs[input], 0));
                let (start, _) = uses[input].unwrap_or((step, step));
                let (_, end) = uses[output].unwrap_or((step, step));
                uses[input] = Some((start, end));
                uses[output] = None;
                let moved: Vec<usize> =
                    std::mem::take(&mut users[output]).into_iter().filter(|s| !users[input].contains(s)).collect();
                users[input].extend(moved);
                merged_into[output] = Some(input);
            }
        }
        // Plan the buffers that are used; drop the others (and the merged ones). A scalar or a
        // vector used within one step is a register, not memory: it becomes a `memref.alloca` in
        // front of that step, which LLVM promotes to a register. Not one a call takes (an
        // accelerator's kernel may copy it by DMA, which does not reach the CPU's stack).
        let mut planned = Vec::new();
        let mut buffers = Vec::new();
        let mut weights = Vec::new();
        // What a call takes: an accelerator's kernel may copy it by DMA (not in a CPU-only pool).
        let mut reaches = Vec::new();
        for (index, &alloc) in allocs.iter().enumerate() {
            match uses[index] {
                Some((start, end))
                    if start == end
                        && fits_a_register(mlirValueGetType(mlirOperationGetResult(alloc, 0)))
                        && !called_with(mlirOperationGetResult(alloc, 0)) =>
                {
                    let alloca = build(
                        "memref.alloca",
                        mlirOperationGetLocation(alloc),
                        &[],
                        &[mlirValueGetType(mlirOperationGetResult(alloc, 0))],
                        &[("operandSegmentSizes", mlirDenseI32ArrayGet(context_of(alloc), 2, [0, 0].as_ptr()))],
                    );
                    // In the function's body (not inside control flow, where an alloca would be
                    // a dynamic one).
                    let anchor = ancestor_in(top[start], block);
                    mlirBlockInsertOwnedOperationBefore(block, anchor, alloca);
                    mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(alloc, 0), mlirOperationGetResult(alloca, 0));
                    mlirOperationDestroy(alloc);
                }
                Some((start, end)) => {
                    planned.push(index);
                    buffers.push(Buffer { size: byte_size(alloc)?, start, end });
                    weights.push(byte_size(alloc)? * users[index].len() as u64);
                    reaches.push(called_with(mlirOperationGetResult(alloc, 0)));
                }
                None if merged_into[index].is_some() => mlirOperationDestroy(alloc),
                None => {
                    if !mlirValueGetFirstUse(mlirOperationGetResult(alloc, 0)).ptr.is_null() {
                        // Used only by views that nothing reads: drop the views with it.
                        return Err(report(
                            location_of(alloc),
                            "umac-plan-memory: a buffer used only through unused views",
                        ));
                    }
                    mlirOperationDestroy(alloc);
                }
            }
        }
        // One pool (the workspace), or the pools given: each buffer's pool and offset.
        let (sizes, placement): (Vec<u64>, Vec<(usize, u64)>) = if pools.is_empty() {
            let result = plan(&buffers, alignment);
            validate(&buffers, &result, alignment)
                .map_err(|e| report(location_of(function), &format!("umac-plan-memory: {e}")))?;
            (vec![result.size], result.offsets.iter().map(|&offset| (0, offset)).collect())
        } else {
            let planned_pools = plan_pools(&buffers, &weights, &reaches, pools, alignment)
                .map_err(|e| report(location_of(function), &format!("umac-plan-memory: {e}")))?;
            let mut placement = vec![(0, 0); buffers.len()];
            for (pool, (members, result)) in planned_pools.members.iter().zip(&planned_pools.plans).enumerate() {
                let set: Vec<Buffer> = members.iter().map(|&m| buffers[m]).collect();
                validate(&set, result, alignment)
                    .map_err(|e| report(location_of(function), &format!("umac-plan-memory: {e}")))?;
                for (&member, &offset) in members.iter().zip(&result.offsets) {
                    placement[member] = (pool, offset);
                }
            }
            (planned_pools.plans.iter().map(|p| p.size).collect(), placement)
        };
        let aligned: Vec<Buffer> = buffers.iter().map(|b| Buffer { size: align_up(b.size, alignment), ..*b }).collect();
        let lower_bound = liveness_lower_bound(&aligned);

        // The workspace argument (one per pool), and a view per buffer.
        let context = mlirOperationGetContext(function);
        let i8t = mlirIntegerTypeGet(context, 8);
        let workspaces: Vec<MlirValue> = sizes
            .iter()
            .map(|&size| {
                let size = size as i64;
                let workspace_type = mlirMemRefTypeContiguousGet(i8t, 1, &size, mlirAttributeGetNull());
                add_argument_to_signature(function, workspace_type);
                mlirBlockAddArgument(block, workspace_type, mlirOperationGetLocation(function))
            })
            .collect();
        let index_type = mlirIndexTypeGet(context);
        for (slot, &index) in planned.iter().enumerate() {
            let (pool, offset) = placement[slot];
            let workspace = workspaces[pool];
            let alloc = allocs[index];
            let location = mlirOperationGetLocation(alloc);
            let offset = build(
                "arith.constant",
                location,
                &[],
                &[index_type],
                &[("value", mlirIntegerAttrGet(index_type, offset as i64))],
            );
            mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(alloc), alloc, offset);
            let ty = mlirValueGetType(mlirOperationGetResult(alloc, 0));
            let view = build("memref.view", location, &[workspace, mlirOperationGetResult(offset, 0)], &[ty], &[]);
            mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(alloc), alloc, view);
            mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(alloc, 0), mlirOperationGetResult(view, 0));
            mlirOperationDestroy(alloc);
        }
        let i64t = mlirIntegerTypeGet(context, 64);
        let size: u64 = sizes.iter().sum();
        mlirOperationSetDiscardableAttributeByName(
            function,
            str_ref(WORKSPACE_SIZE),
            mlirIntegerAttrGet(i64t, size as i64),
        );
        if !pools.is_empty() {
            let names: Vec<MlirAttribute> =
                pools.iter().map(|p| mlirStringAttrGet(context, str_ref(&p.name))).collect();
            let names = mlirArrayAttrGet(context, names.len() as isize, names.as_ptr());
            mlirOperationSetDiscardableAttributeByName(function, str_ref(POOLS_ATTR), names);
            let sizes: Vec<i64> = sizes.iter().map(|&s| s as i64).collect();
            let sizes = mlirDenseI64ArrayGet(context, sizes.len() as isize, sizes.as_ptr());
            mlirOperationSetDiscardableAttributeByName(function, str_ref(POOL_SIZES_ATTR), sizes);
        }
        mlirOperationSetDiscardableAttributeByName(
            function,
            str_ref(WORKSPACE_LOWER_BOUND),
            mlirIntegerAttrGet(i64t, lower_bound as i64),
        );
        Ok(())
    }
}

/// Whether `buffer`, or a view of it, is an operand of a call.
///
/// # Safety
/// `buffer` must be live.
unsafe fn called_with(buffer: MlirValue) -> bool {
    unsafe {
        let mut pending = vec![buffer];
        while let Some(value) = pending.pop() {
            let mut use_ = mlirValueGetFirstUse(value);
            while !mlirOpOperandIsNull(use_) {
                let user = mlirOpOperandGetOwner(use_);
                let kind = name(user);
                if kind.ends_with("call") || kind.ends_with("call_extern") {
                    return true;
                }
                if views_bytes(&kind) {
                    pending.push(mlirOperationGetResult(user, 0));
                }
                use_ = mlirOpOperandGetNextUse(use_);
            }
        }
        false
    }
}

/// The most bits of a buffer that is a register: one 128-bit vector (a channel tile's four int32
/// accumulators, `umac-tile-and-fuse{vectors}`).
const REGISTER_BITS: i64 = 128;

/// A statically shaped memref of one element, or of at most [`REGISTER_BITS`].
///
/// # Safety
/// `ty` must be live.
unsafe fn fits_a_register(ty: MlirType) -> bool {
    unsafe {
        let one_element = mlirTypeIsAMemRef(ty)
            && mlirShapedTypeHasStaticShape(ty)
            && (0..mlirShapedTypeGetRank(ty)).all(|d| mlirShapedTypeGetDimSize(ty, d as isize) == 1);
        one_element || static_memref_bits(ty).is_some_and(|(elements, bits)| elements * bits <= REGISTER_BITS)
    }
}

/// # Safety
/// `op` must be live.
unsafe fn context_of(op: MlirOperation) -> MlirContext {
    unsafe { mlirOperationGetContext(op) }
}

/// Numbers the ops of `block` as steps in execution order, the ops in the regions of control flow
/// after the control-flow op itself; records the span of steps of each loop.
///
/// # Safety
/// `block` must be live.
unsafe fn flatten(
    block: MlirBlock,
    steps: &mut HashMap<usize, usize>,
    order: &mut Vec<MlirOperation>,
    loops: &mut Vec<(usize, usize)>,
) {
    unsafe {
        let mut op = mlirBlockGetFirstOperation(block);
        while !op.ptr.is_null() {
            let first = order.len();
            steps.insert(op.ptr as usize, first);
            order.push(op);
            let kind = name(op);
            if CONTROL_FLOW_OPS.contains(&kind.as_str()) {
                for r in 0..mlirOperationGetNumRegions(op) {
                    let mut inner = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, r));
                    while !inner.ptr.is_null() {
                        flatten(inner, steps, order, loops);
                        inner = mlirBlockGetNextInRegion(inner);
                    }
                }
                if LOOP_OPS.contains(&kind.as_str()) {
                    loops.push((first, order.len() - 1));
                }
            }
            op = mlirOperationGetNextInBlock(op);
        }
    }
}

/// The step of `op`: its own, or that of the nearest op holding it that is a step.
///
/// # Safety
/// `op` and `function` must be live.
unsafe fn step_of(mut op: MlirOperation, function: MlirOperation, steps: &HashMap<usize, usize>) -> Option<usize> {
    unsafe {
        loop {
            if let Some(&step) = steps.get(&(op.ptr as usize)) {
                return Some(step);
            }
            op = mlirOperationGetParentOperation(op);
            if op.ptr.is_null() || mlirOperationEqual(op, function) {
                return None;
            }
        }
    }
}

/// The op of `block` that is or holds `op` (`op` is nested in `block`).
///
/// # Safety
/// `op` and `block` must be live.
unsafe fn ancestor_in(mut op: MlirOperation, block: MlirBlock) -> MlirOperation {
    unsafe {
        while mlirOperationGetBlock(op).ptr != block.ptr {
            op = mlirOperationGetParentOperation(op);
        }
        op
    }
}

/// For an elementwise `linalg.generic` at `step`: an input alloc that dies here and the output
/// alloc that starts here, of the same type.
///
/// # Safety
/// `op` must be live.
unsafe fn in_place_pair(
    op: MlirOperation,
    index_of: &HashMap<usize, usize>,
    uses: &[Option<(usize, usize)>],
    step: usize,
) -> Option<(usize, usize)> {
    unsafe {
        if name(op) != "linalg.generic" || mlirOperationGetNumResults(op) != 0 {
            return None;
        }
        let iterators = attribute(op, "iterator_types")?;
        let maps = attribute(op, "indexing_maps")?;
        if attribute_text(melior::ir::Attribute::from_raw(iterators)).contains("reduction") {
            return None;
        }
        let operands = mlirOperationGetNumOperands(op);
        if operands < 2 || mlirArrayAttrGetNumElements(maps) != operands {
            return None;
        }
        let identity = |i: isize| mlirAffineMapIsIdentity(mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, i)));
        let direct_alloc = |value: MlirValue| -> Option<usize> {
            if !mlirValueIsAOpResult(value) {
                return None;
            }
            let owner = mlirOpResultGetOwner(value);
            (name(owner) == "memref.alloc").then(|| index_of.get(&(owner.ptr as usize)).copied()).flatten()
        };
        let output_value = mlirOperationGetOperand(op, operands - 1);
        let output = direct_alloc(output_value)?;
        if !identity(operands - 1) || uses[output]?.0 != step {
            return None;
        }
        (0..operands - 1).find_map(|i| {
            let value = mlirOperationGetOperand(op, i);
            let input = direct_alloc(value)?;
            let same_type = mlirTypeEqual(mlirValueGetType(value), mlirValueGetType(output_value));
            (input != output && same_type && identity(i) && uses[input]?.1 == step).then_some((input, output))
        })
    }
}

/// # Safety
/// `alloc` must be a live `memref.alloc` of a static shape.
unsafe fn byte_size(alloc: MlirOperation) -> Result<u64, Error> {
    unsafe {
        let ty = mlirValueGetType(mlirOperationGetResult(alloc, 0));
        let element = mlirShapedTypeGetElementType(ty);
        let bits = if mlirTypeIsAInteger(element) {
            u64::from(mlirIntegerTypeGetWidth(element))
        } else if mlirTypeIsAIndex(element) {
            64
        } else if mlirTypeIsAFloat(element) {
            u64::from(mlirFloatTypeGetWidth(element))
        } else {
            return Err(report(
                location_of(alloc),
                &format!(
                    "umac-plan-memory: buffer of {} has no known element size",
                    type_text(melior::ir::Type::from_raw(ty))
                ),
            ));
        };
        let count: u64 =
            (0..mlirShapedTypeGetRank(ty)).map(|d| mlirShapedTypeGetDimSize(ty, d as isize) as u64).product();
        // Sub-byte and odd widths are stored in whole bytes, as the llvm dialect lowers them.
        Ok(count * bits.div_ceil(8).next_power_of_two())
    }
}

/// # Safety
/// `function` must be a live `func.func`.
unsafe fn add_argument_to_signature(function: MlirOperation, argument: MlirType) {
    unsafe {
        let (mut inputs, results) = function_type(function);
        inputs.push(argument);
        set_function_type(function, &inputs, &results);
        let context = mlirOperationGetContext(function);
        let arg_attrs = mlirOperationGetAttributeByName(function, str_ref("arg_attrs"));
        if !arg_attrs.ptr.is_null() {
            let mut elements: Vec<MlirAttribute> =
                (0..mlirArrayAttrGetNumElements(arg_attrs)).map(|i| mlirArrayAttrGetElement(arg_attrs, i)).collect();
            elements.push(mlirDictionaryAttrGet(context, 0, std::ptr::null()));
            mlirOperationSetAttributeByName(
                function,
                str_ref("arg_attrs"),
                mlirArrayAttrGet(context, elements.len() as isize, elements.as_ptr()),
            );
        }
    }
}

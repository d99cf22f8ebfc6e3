//! The partitioner (TVM's `MergeComposite` → `AnnotateTarget` → `MergeCompilerRegions` →
//! `PartitionGraph`): in each public function, match the backends' composite patterns (the
//! earlier backend in the target string wins an op), group matches of one backend into regions
//! (one consuming another's result or reading a value it reads merged, when the backend allows
//! and no path through other ops leads out and back), and outline each region into
//! `func.func private @<target>_<n>` with `umac.target` and `umac.composite`, called from where it
//! was. Everything unclaimed stays for the CPU. Constants a region uses are copied into it.

use crate::{
    ConfiguredBackend, Error,
    pattern::{Match, Outcome, is_constant_op, match_at},
};
use melior::ir::{BlockLike, OperationRef, RegionLike, operation::OperationLike};
use mlir_sys::*;
use std::collections::{HashMap, HashSet};
use umac_dialects::{
    ir::{
        build, defined_under, function_type_get, has_body, is_private, name, op_name, private_function, symbol_name,
        top_level_ops,
    },
    location::file_line_col,
    text::str_ref,
    umac::{COMPOSITE_ATTR, TARGET_ATTR},
};

/// Where one op of the source model runs.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Placement {
    /// The op, e.g. `tosa.conv2d`.
    pub op: String,
    /// `file:line:col` in the source model.
    pub location: String,
    /// The target that runs it: an accelerator, or `cpu` (filled in with the CPU's name later).
    pub target: String,
    /// The composite it is part of, if claimed.
    pub composite: Option<String>,
    /// The outlined function computing it, if claimed.
    pub function: Option<String>,
    /// Why it stayed on the CPU although a pattern almost matched: `<pattern>: <predicate> failed`.
    pub reason: Option<String>,
}

/// The placeholder target of unclaimed ops.
pub const CPU: &str = "cpu";

struct Region<'c, 'a> {
    backend: usize,
    ops: Vec<OperationRef<'c, 'a>>,
    composites: Vec<String>,
    /// The last op of each composite: in a merged region, every composite's result is returned,
    /// so that its buffer belongs to the caller (planned in its workspace), not to the function.
    results: Vec<OperationRef<'c, 'a>>,
}

fn key(op: &OperationRef) -> usize {
    op.to_raw().ptr as usize
}

/// What partitioning will do to a module: the regions to outline, and where every op runs.
pub struct Plan<'c, 'a> {
    /// Each region with the function it becomes, by function.
    regions: Vec<(OperationRef<'c, 'a>, Region<'c, 'a>, String)>,
    /// The placement of every op that computes (constants and returns left out), in source order.
    pub placements: Vec<Placement>,
}

/// Partitions every public function of `module` for `backends`; returns the placement of every
/// op that computes (constants and returns left out), in source order.
pub fn partition(module: OperationRef, backends: &[ConfiguredBackend]) -> Result<Vec<Placement>, Error> {
    let plan = plan(module, backends)?;
    for (function, region, symbol) in &plan.regions {
        let block = function.region(0).ok().and_then(|r| r.first_block()).ok_or_else(|| no_body(function))?;
        outline(module, block.to_raw(), region, symbol, backends[region.backend].backend.name());
    }
    Ok(plan.placements)
}

fn no_body(function: &OperationRef) -> Error {
    Error::Invalid(format!("@{} has no body", symbol_name(function).unwrap_or_default()))
}

/// Plans the partitioning of `module` for `backends` without changing it: what
/// [`partition`] would outline, and where each op runs.
pub fn plan<'c, 'a>(module: OperationRef<'c, 'a>, backends: &[ConfiguredBackend]) -> Result<Plan<'c, 'a>, Error> {
    let functions: Vec<OperationRef> = top_level_ops(module)
        .into_iter()
        .filter(|op| {
            op_name(op) == "func.func" && !is_private(op) && op.attribute(TARGET_ATTR).is_err() && has_body(op)
        })
        .collect();
    let mut taken: HashSet<String> = top_level_ops(module).iter().filter_map(symbol_name).collect();
    let mut counters: HashMap<&str, usize> = HashMap::new();
    let mut plan = Plan { regions: Vec::new(), placements: Vec::new() };
    for function in functions {
        plan_function(function, backends, &mut taken, &mut counters, &mut plan)?;
    }
    Ok(plan)
}

fn plan_function<'c, 'a>(
    function: OperationRef<'c, 'a>,
    backends: &[ConfiguredBackend],
    taken: &mut HashSet<String>,
    counters: &mut HashMap<&'static str, usize>,
    plan: &mut Plan<'c, 'a>,
) -> Result<(), Error> {
    let block = function.region(0).ok().and_then(|r| r.first_block()).ok_or_else(|| no_body(&function))?;
    let mut ops = Vec::new();
    let mut next = block.first_operation();
    while let Some(op) = next {
        next = op.next_in_block();
        ops.push(op);
    }
    let position: HashMap<usize, usize> = ops.iter().enumerate().map(|(i, op)| (key(op), i)).collect();

    // Match: backends in target-string order, patterns in priority order, ops in program order.
    let mut claimed: HashMap<usize, (usize, String)> = HashMap::new();
    let mut near_misses: HashMap<usize, String> = HashMap::new();
    let mut matches: Vec<(usize, String, Match)> = Vec::new();
    for (b, configured) in backends.iter().enumerate() {
        for pattern in configured.backend.patterns(&configured.attributes) {
            for op in &ops {
                if claimed.contains_key(&key(op)) {
                    continue;
                }
                let is_claimed = |o: &OperationRef| claimed.contains_key(&key(o));
                match match_at(&pattern, *op, &is_claimed) {
                    Outcome::Matched(m) => {
                        for (_, o) in &m.ops {
                            claimed.insert(key(o), (b, pattern.name.clone()));
                        }
                        matches.push((b, pattern.name.clone(), m));
                    }
                    Outcome::NearMiss(why) => {
                        near_misses.entry(key(op)).or_insert(format!("{}: {why} failed", pattern.name));
                    }
                    Outcome::NoMatch => {}
                }
            }
        }
    }
    matches.sort_by_key(|(_, _, m)| position[&key(&m.root_op())]);

    // Group into regions; merge a match into the latest region of its backend that it consumes
    // from or shares an input with (siblings, such as the lookups of one softmax reading one
    // tensor), when no path leaves the region and comes back through another op.
    let mut regions: Vec<Region> = Vec::new();
    for (b, name, m) in matches {
        let new_ops: Vec<OperationRef> = m.ops.iter().map(|(_, o)| *o).collect();
        let merge_into = if backends[b].backend.merge_compiler_regions() {
            regions.iter().rposition(|r| {
                r.backend == b
                    && (consumes(&new_ops, &r.ops) || shares_input(&new_ops, &r.ops))
                    && !creates_cycle(&r.ops, &new_ops)
            })
        } else {
            None
        };
        match merge_into {
            Some(r) => {
                regions[r].results.push(new_ops[new_ops.len() - 1]);
                regions[r].ops.extend(new_ops);
                regions[r].composites.push(name);
            }
            None => {
                let results = vec![new_ops[new_ops.len() - 1]];
                regions.push(Region { backend: b, ops: new_ops, composites: vec![name], results });
            }
        }
    }

    let mut function_of: HashMap<usize, String> = HashMap::new();
    for mut region in regions {
        region.ops.sort_by_key(|o| position[&key(o)]);
        let target = backends[region.backend].backend.name();
        let symbol = fresh_symbol(taken, target, counters.entry(target).or_insert(0));
        for op in &region.ops {
            function_of.insert(key(op), symbol.clone());
        }
        region.composites.dedup();
        plan.regions.push((function, region, symbol));
    }

    plan.placements.extend(
        ops.iter()
            .filter(|op| {
                let name = op_name(op);
                !is_constant_op(&name) && name != "func.return"
            })
            .map(|op| {
                let (target, composite) = match claimed.get(&key(op)) {
                    Some((b, pattern)) => (backends[*b].backend.name().to_string(), Some(pattern.clone())),
                    None => (CPU.to_string(), None),
                };
                Placement {
                    op: op_name(op),
                    location: location_text(op),
                    reason: if composite.is_none() { near_misses.get(&key(op)).cloned() } else { None },
                    function: function_of.get(&key(op)).cloned(),
                    target,
                    composite,
                }
            }),
    );
    Ok(())
}

fn location_text(op: &OperationRef) -> String {
    match file_line_col(op.location()) {
        Some(at) => format!("{}:{}:{}", at.file, at.line, at.column),
        None => op.location().to_string(),
    }
}

/// The ops using a result of `op`.
fn users<'c, 'a>(op: &OperationRef<'c, 'a>) -> Vec<OperationRef<'c, 'a>> {
    let mut found = Vec::new();
    // SAFETY: the op and its results are alive; use lists are only read.
    unsafe {
        let raw = op.to_raw();
        for i in 0..mlirOperationGetNumResults(raw) {
            let mut use_ = mlirValueGetFirstUse(mlirOperationGetResult(raw, i));
            while !use_.ptr.is_null() {
                let user = top_level_ancestor(mlirOpOperandGetOwner(use_), raw);
                if !user.ptr.is_null() {
                    found.push(OperationRef::from_raw(user));
                }
                use_ = mlirOpOperandGetNextUse(use_);
            }
        }
    }
    found
}

/// The ancestor of `user` in the block of `of` (a use nested in a region counts as its parent op).
///
/// # Safety
/// Both ops must be live.
unsafe fn top_level_ancestor(mut user: MlirOperation, of: MlirOperation) -> MlirOperation {
    unsafe {
        let block = mlirOperationGetBlock(of);
        while !user.ptr.is_null() && mlirOperationGetBlock(user).ptr != block.ptr {
            user = mlirOperationGetParentOperation(user);
        }
        user
    }
}

/// Whether an op of `new_ops` uses a result of `region`.
fn consumes(new_ops: &[OperationRef], region: &[OperationRef]) -> bool {
    let new: HashSet<usize> = new_ops.iter().map(key).collect();
    region.iter().any(|op| users(op).iter().any(|u| new.contains(&key(u))))
}

/// Whether an op of `new_ops` reads a value that an op of `region` reads too, other than a
/// constant (each region copies its constants) and other than one of their own results.
fn shares_input(new_ops: &[OperationRef], region: &[OperationRef]) -> bool {
    let inside: HashSet<usize> = new_ops.iter().chain(region).map(key).collect();
    let inputs = |ops: &[OperationRef]| {
        let mut values = HashSet::new();
        for op in ops {
            // SAFETY: the ops are live; their operands are only read.
            unsafe {
                for_each_operand(op.to_raw(), &mut |value| {
                    let outside = !mlirValueIsAOpResult(value) || {
                        let owner = mlirOpResultGetOwner(value);
                        !is_constant_op(&name(owner)) && !inside.contains(&(owner.ptr as usize))
                    };
                    if outside {
                        values.insert(value.ptr as usize);
                    }
                });
            }
        }
        values
    };
    !inputs(new_ops).is_disjoint(&inputs(region))
}

/// Whether merging `a` and `b` would create a cycle: a path from one to the other through ops of
/// neither.
fn creates_cycle(a: &[OperationRef], b: &[OperationRef]) -> bool {
    path_outside(a, b) || path_outside(b, a)
}

fn path_outside(from: &[OperationRef], to: &[OperationRef]) -> bool {
    let inside: HashSet<usize> = from.iter().chain(to).map(key).collect();
    let target: HashSet<usize> = to.iter().map(key).collect();
    let mut seen = HashSet::new();
    let mut stack: Vec<OperationRef> = from.iter().flat_map(users).filter(|u| !inside.contains(&key(u))).collect();
    while let Some(op) = stack.pop() {
        if !seen.insert(key(&op)) {
            continue;
        }
        for user in users(&op) {
            if target.contains(&key(&user)) {
                return true;
            }
            if !inside.contains(&key(&user)) {
                stack.push(user);
            }
        }
    }
    false
}

/// `<target>_<n>` for the first `n` from `counter` on that names nothing `taken`; taken from now on.
fn fresh_symbol(taken: &mut HashSet<String>, target: &str, counter: &mut usize) -> String {
    loop {
        let symbol = format!("{target}_{counter}");
        *counter += 1;
        if taken.insert(symbol.clone()) {
            return symbol;
        }
    }
}

/// Moves `region`'s ops into a new private function `symbol` and calls it where the last of them was.
fn outline(module: OperationRef, block: MlirBlock, region: &Region, symbol: &str, target: &str) {
    let members: HashSet<usize> = region.ops.iter().map(key).collect();
    // SAFETY: all ops are live ops of `block` (a block of `module`); ops are moved, not freed,
    // until the end, and every value rewired belongs to this context.
    unsafe {
        let context = mlirOperationGetContext(module.to_raw());
        let last = region.ops[region.ops.len() - 1].to_raw();
        let location = mlirOperationGetLocation(region.ops[0].to_raw());
        // Inputs: values the region uses but does not define (constants are copied instead).
        let mut inputs: Vec<MlirValue> = Vec::new();
        let mut constants: Vec<MlirOperation> = Vec::new();
        for op in &region.ops {
            for_each_operand(op.to_raw(), &mut |value| {
                if defined_in(value, &members) {
                    return;
                }
                if mlirValueIsAOpResult(value) {
                    let owner = mlirOpResultGetOwner(value);
                    if is_constant_op(&name(owner)) {
                        if !constants.iter().any(|c| c.ptr == owner.ptr) {
                            constants.push(owner);
                        }
                        return;
                    }
                }
                if !inputs.iter().any(|v| mlirValueEqual(*v, value)) {
                    inputs.push(value);
                }
            });
        }
        // Outputs: results used outside the region (and, merged, each composite's result).
        let mut outputs: Vec<MlirValue> = Vec::new();
        for op in &region.ops {
            let raw = op.to_raw();
            for i in 0..mlirOperationGetNumResults(raw) {
                let result = mlirOperationGetResult(raw, i);
                if region.results.len() > 1 && region.results.iter().any(|r| r.to_raw().ptr == raw.ptr) {
                    outputs.push(result);
                    continue;
                }
                let mut use_ = mlirValueGetFirstUse(result);
                while !use_.ptr.is_null() {
                    let owner = top_level_ancestor(mlirOpOperandGetOwner(use_), raw);
                    if !members.contains(&(owner.ptr as usize)) {
                        outputs.push(result);
                        break;
                    }
                    use_ = mlirOpOperandGetNextUse(use_);
                }
            }
        }

        // The function.
        let input_types: Vec<MlirType> = inputs.iter().map(|v| mlirValueGetType(*v)).collect();
        let output_types: Vec<MlirType> = outputs.iter().map(|v| mlirValueGetType(*v)).collect();
        let function_type = function_type_get(context, &input_types, &output_types);
        let locations = vec![location; inputs.len()];
        let body = mlirBlockCreate(input_types.len() as isize, input_types.as_ptr(), locations.as_ptr());
        let composite = region.composites.join(",");
        let attributes = [
            (TARGET_ATTR, mlirStringAttrGet(context, str_ref(target))),
            (COMPOSITE_ATTR, mlirStringAttrGet(context, str_ref(&composite))),
        ];
        let function = private_function(symbol, function_type, Some(body), location, &attributes);
        mlirBlockAppendOwnedOperation(mlirRegionGetFirstBlock(mlirOperationGetRegion(module.to_raw(), 0)), function);

        // The call, where the region's last op is; ops between the region's first and last op
        // that depend on the region move after it.
        let callee = mlirFlatSymbolRefAttrGet(context, str_ref(symbol));
        let call_op = build("func.call", location, &inputs, &output_types, &[("callee", callee)]);
        mlirBlockInsertOwnedOperationAfter(block, last, call_op);
        let mut dependent: HashSet<usize> = members.clone();
        let mut to_move = Vec::new();
        let mut op = mlirOperationGetNextInBlock(region.ops[0].to_raw());
        while op.ptr != call_op.ptr {
            let next = mlirOperationGetNextInBlock(op);
            if !members.contains(&(op.ptr as usize)) {
                let mut depends = false;
                for_each_operand(op, &mut |value| depends |= defined_in(value, &dependent));
                if depends {
                    dependent.insert(op.ptr as usize);
                    to_move.push(op);
                }
            }
            op = next;
        }
        let mut after = call_op;
        for op in to_move {
            mlirOperationMoveAfter(op, after);
            after = op;
        }

        // Move the ops in, with copies of the constants, and rewire.
        let ret = build("func.return", location, &outputs, &[], &[]);
        mlirBlockAppendOwnedOperation(body, ret);
        let mut replacements: Vec<(MlirValue, MlirValue)> = Vec::new();
        for constant in &constants {
            let copy = mlirOperationClone(*constant);
            mlirBlockInsertOwnedOperationBefore(body, ret, copy);
            for i in 0..mlirOperationGetNumResults(*constant) {
                replacements.push((mlirOperationGetResult(*constant, i), mlirOperationGetResult(copy, i)));
            }
        }
        for (i, input) in inputs.iter().enumerate() {
            replacements.push((*input, mlirBlockGetArgument(body, i as isize)));
        }
        for op in &region.ops {
            mlirOperationMoveBefore(op.to_raw(), ret);
            rewire(op.to_raw(), &replacements);
        }
        // Outside uses of the outputs now read the call's results.
        for (i, output) in outputs.iter().enumerate() {
            let new = mlirOperationGetResult(call_op, i as isize);
            let mut use_ = mlirValueGetFirstUse(*output);
            let mut outside = Vec::new();
            while !use_.ptr.is_null() {
                let owner = mlirOpOperandGetOwner(use_);
                if !is_inside(owner, function) {
                    outside.push((owner, mlirOpOperandGetOperandNumber(use_)));
                }
                use_ = mlirOpOperandGetNextUse(use_);
            }
            for (owner, number) in outside {
                mlirOperationSetOperand(owner, number as isize, new);
            }
        }
    }
}

/// Calls `f` with every operand of `op` and of the ops nested in it.
///
/// # Safety
/// `op` must be live.
unsafe fn for_each_operand(op: MlirOperation, f: &mut dyn FnMut(MlirValue)) {
    unsafe {
        OperationRef::from_raw(op).walk(melior::ir::operation::WalkOrder::PreOrder, |nested| {
            let raw = nested.to_raw();
            for i in 0..mlirOperationGetNumOperands(raw) {
                f(mlirOperationGetOperand(raw, i));
            }
            melior::ir::operation::WalkResult::Advance
        });
    }
}

/// Whether `value` is a result of (or a block argument inside) one of `ops` (keys).
///
/// # Safety
/// `value` must be live.
unsafe fn defined_in(value: MlirValue, ops: &HashSet<usize>) -> bool {
    // SAFETY: the caller's contract.
    unsafe { defined_under(value, |owner| ops.contains(&(owner.ptr as usize))) }
}

/// Replaces, in `op` and the ops nested in it, operands equal to a first element by the second.
///
/// # Safety
/// `op` and the values must be live.
unsafe fn rewire(op: MlirOperation, replacements: &[(MlirValue, MlirValue)]) {
    unsafe {
        OperationRef::from_raw(op).walk(melior::ir::operation::WalkOrder::PreOrder, |nested| {
            let raw = nested.to_raw();
            for i in 0..mlirOperationGetNumOperands(raw) {
                let operand = mlirOperationGetOperand(raw, i);
                if let Some((_, new)) = replacements.iter().find(|(old, _)| mlirValueEqual(*old, operand)) {
                    mlirOperationSetOperand(raw, i, *new);
                }
            }
            melior::ir::operation::WalkResult::Advance
        });
    }
}

/// Whether `op` is `ancestor` or nested in it.
///
/// # Safety
/// Both ops must be live.
unsafe fn is_inside(mut op: MlirOperation, ancestor: MlirOperation) -> bool {
    unsafe {
        while !op.ptr.is_null() {
            if op.ptr == ancestor.ptr {
                return true;
            }
            op = mlirOperationGetParentOperation(op);
        }
        false
    }
}

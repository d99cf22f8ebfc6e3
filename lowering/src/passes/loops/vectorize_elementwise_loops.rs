//! `umac-vectorize-elementwise-loops`: an innermost `scf.for` whose iterations are independent
//! element operations along one contiguous dimension — every load and store reads or writes
//! element `%i` of a dimension with stride 1 (the other indices the same for the whole loop), the
//! rest integer or float `arith` — becomes a loop over vectors of as many lanes as fill a vector
//! register (`bits` wide), then the original loop for the elements left over. After
//! `umac-tile-and-fuse{vectors}` and `umac-channels-innermost`, these are a depthwise
//! convolution's or a pooling's channel loops: the bias, the multiply-accumulate of one window
//! element into every channel, and the rescale of the accumulators to int8.
//!
//! LLVM's own loop vectorizer takes most such loops, but not a rescale: its 32-bit form
//! (`tosa-to-arith{use-32-bit}`) takes the high half of a 64-bit product, which LLVM's cost model
//! prices as 64-bit vector arithmetic. Written as vectors here, the high half is one instruction
//! (Helium's `vmulh`); the low half is taken by a separate 32-bit multiply, which LLVM would
//! otherwise split into scalars. Memory is accessed by `llvm.load`/`llvm.store` of vectors at the
//! element's address (`vector.load` would lower its memref with 64-bit indices on a 32-bit CPU).
//! ```mlir
//! scf.for %c = %c0 to %c64 step %c1 {
//!   %a = memref.load %acc[%c] : memref<64xi32>   %b = memref.load %bias[%c, %c0] : memref<64x1xi32>
//!   %s = arith.addi %a, %b : i32   memref.store %s, %acc[%c] : memref<64xi32>
//! }
//! // becomes, with 128-bit vectors
//! scf.for %c = %c0 to %c64 step %c4 {
//!   %a = llvm.load (address of %acc[%c]) : vector<4xi32>   %b = llvm.load ... : vector<4xi32>
//!   %s = arith.addi %a, %b : vector<4xi32>   llvm.store %s, (address of %acc[%c])
//! }
//! ```
//! With `helium`, the rescale's doubling high multiply and rounding right shift, in the shapes
//! `umac-apply-scale-32{helium}` writes them, are Helium's `vqrdmulh` and `vrshl` (`helium.rs`).
//!
//! With `max-element-bits=64` 64-bit integer ops are lanes too (a rescale's products: on a
//! host with 512-bit registers, eight lanes). A loop shorter than a register's lanes takes half
//! as many, down to 128-bit vectors.
//!
//! A select on a condition from outside the loop (a window position in the padding or not)
//! picks whole vectors. With `channel-offsets` (the host, which has no border split), an access
//! may also index its dimension by `%offset + %iv` (a channel tile reading the window through
//! `umac-fold-padding`'s check, in place in the whole input). (On Cortex-M55, whose split leaves
//! such reads to the border tiles only, those run better as scalar code: KWS 1.48M -> 1.52M
//! instructions vectorized.)
//!
//! Distinct memrefs are taken to be distinct buffers or the same one (as `umac-plan-memory`
//! places them: buffers live in one operator never overlap), so a store in one iteration never
//! feeds a load of a later one.

mod helium;

use crate::{
    Error,
    options::{OptionKind, OptionSpec, OptionValues},
    pass::{UmacPass, boxed},
    registry::{PassInfo, PassKind},
};
use melior::ir::OperationRef;
use mlir_sys::*;
use std::collections::HashMap;
use umac_dialects::{
    ir::{build, collect, constant_int, defined_inside, name, op_name, strides_and_offset},
    text::{str_ref, string_from},
};

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    name: "umac-vectorize-elementwise-loops",
    summary: "Rewrite innermost loops of independent element operations along a contiguous dimension into vector loops",
    anchor: "any",
    options: &[
        OptionSpec { name: "bits", kind: OptionKind::Int, default: "128", help: "the vector registers' width" },
        OptionSpec {
            name: "max-element-bits",
            kind: OptionKind::Int,
            default: "32",
            help: "the widest integer lanes taken (64: a rescale's 64-bit products as vectors too)",
        },
        OptionSpec {
            name: "helium",
            kind: OptionKind::Bool,
            default: "false",
            help: "rescales by Helium's vqrdmulh and vrshl (in umac-apply-scale-32{helium}'s shapes)",
        },
        OptionSpec {
            name: "channel-offsets",
            kind: OptionKind::Bool,
            default: "false",
            help: "also take accesses at a channel tile's offset plus the loop's variable (windows read in place through umac-fold-padding's check)",
        },
    ],
    kind: PassKind::Pass(|options: &OptionValues| {
        boxed(VectorizeElementwiseLoops {
            bits: options.int("bits"),
            max_element_bits: options.int("max-element-bits"),
            helium: options.bool("helium"),
            offsets: options.bool("channel-offsets"),
        })
    }),
};

struct VectorizeElementwiseLoops {
    bits: i64,
    max_element_bits: i64,
    helium: bool,
    offsets: bool,
}

impl UmacPass for VectorizeElementwiseLoops {
    fn run(&mut self, operation: OperationRef) -> Result<(), Error> {
        if self.bits < 16 {
            return Err(Error::Internal(format!("{}: bits must be at least 16, not {}", INFO.name, self.bits)));
        }
        for raw in collect(operation, |op| op_name(op) == "scf.for") {
            // SAFETY: loops are innermost (no region in the body), so rewriting one leaves the
            // others, collected before, alive.
            unsafe {
                let widths = Widths { bits: self.bits, max_element_bits: self.max_element_bits };
                if let Some(plan) = plan(raw, widths, self.helium, self.offsets) {
                    vectorize(raw, &plan);
                }
            }
        }
        Ok(())
    }
}

/// What a loop becomes: its bounds, the lanes of its vectors, and whether Helium's idioms are
/// taken.
struct Plan {
    lower: i64,
    upper: i64,
    lanes: i64,
    helium: bool,
}

/// An access of a load or store: its memref's operand position, and where among its indices the
/// loop's variable is.
struct Access {
    memref_at: isize,
    along: usize,
    strides: Vec<i64>,
    /// Where the index along the loop is `%offset + %iv` (a channel tile's channels), the
    /// offset, defined outside the loop.
    offset: Option<MlirValue>,
}

/// The plan for `raw`, if it is an elementwise loop: constant bounds, step 1, no results, every
/// op a load or store along the loop (see [`access`]) or an `arith` op on integers or floats at
/// most `max-element-bits` wide (but for a Helium idiom's 64-bit ops, and constants, which only
/// the ops using them make vectors of), at least as many iterations as lanes.
///
/// # Safety
/// `raw` must be a live `scf.for`.
unsafe fn plan(raw: MlirOperation, widths: Widths, helium: bool, offsets: bool) -> Option<Plan> {
    unsafe {
        let bound = |k: isize| constant_int(mlirOperationGetOperand(raw, k));
        let (Some(lower), Some(upper), Some(1)) = (bound(0), bound(1), bound(2)) else { return None };
        if mlirOperationGetNumResults(raw) != 0 || mlirOperationGetNumOperands(raw) != 3 {
            return None;
        }
        let block = mlirRegionGetFirstBlock(mlirOperationGetRegion(raw, 0));
        let iv = mlirBlockGetArgument(block, 0);
        let mut widest = 0;
        let mut stores = 0;
        let ops = body(block);
        let idioms = if helium { helium::Idioms::find(&ops) } else { helium::Idioms::default() };
        for op in ops {
            if mlirOperationGetNumRegions(op) != 0 {
                return None;
            }
            let op_kind = name(op);
            if op_kind == "arith.constant" || idioms.interior.contains(&(op.ptr as usize)) {
                continue;
            }
            // An index `%offset + %iv` is part of the accesses using it (`access` checks
            // them; any other use of an index is no element operation and fails below).
            if offsets
                && mlirOperationGetNumResults(op) == 1
                && offset_along(mlirOperationGetResult(op, 0), iv, raw).is_some()
            {
                continue;
            }
            let values: Vec<MlirValue> = match op_kind.as_str() {
                "memref.load" => {
                    (access(op, 0, iv, raw)?.offset.is_none() || offsets).then_some(())?;
                    whole_bytes(mlirOperationGetResult(op, 0))?
                }
                "memref.store" => {
                    (access(op, 1, iv, raw)?.offset.is_none() || offsets).then_some(())?;
                    stores += 1;
                    whole_bytes(mlirOperationGetOperand(op, 0))?
                }
                // An idiom's 64-bit operands are its own (not vectorized).
                _ if idioms.roots.contains_key(&(op.ptr as usize)) => vec![mlirOperationGetResult(op, 0)],
                _ if op_kind.starts_with("arith.") => {
                    let operands = (0..mlirOperationGetNumOperands(op)).map(|k| mlirOperationGetOperand(op, k));
                    let results = (0..mlirOperationGetNumResults(op)).map(|k| mlirOperationGetResult(op, k));
                    operands.chain(results).collect()
                }
                _ => return None,
            };
            for value in values {
                widest = widest.max(element_bits(mlirValueGetType(value)).filter(|b| *b <= widths.max_element_bits)?);
            }
        }
        // As many lanes as fill a register; for a shorter loop, as many as fill half of it, and
        // so on down to 128 bits (a wide register's four-channel tile on 128-bit vectors).
        let mut lanes = widths.bits / widest.max(8);
        while lanes * widest.max(8) > 128 && upper - lower < lanes {
            lanes /= 2;
        }
        let vectors = stores > 0 && lanes >= 2 && upper - lower >= lanes;
        // Helium's instructions are for four 32-bit lanes.
        (vectors && (idioms.roots.is_empty() || lanes == 4)).then_some(Plan { lower, upper, lanes, helium })
    }
}

/// The ops of `block` but its terminator.
///
/// # Safety
/// `block` must be live.
unsafe fn body(block: MlirBlock) -> Vec<MlirOperation> {
    unsafe {
        let mut ops = Vec::new();
        let mut op = mlirBlockGetFirstOperation(block);
        while !op.ptr.is_null() {
            if name(op) != "scf.yield" {
                ops.push(op);
            }
            op = mlirOperationGetNextInBlock(op);
        }
        ops
    }
}

/// `value` (loaded or stored) as a list, when its type takes whole bytes: a memref of `i1` holds
/// a byte an element, but a vector of `i1` in memory is packed into bits, so such loops stay
/// scalar (TOSA's `equal` and `greater` store booleans).
///
/// # Safety
/// `value` must be live.
unsafe fn whole_bytes(value: MlirValue) -> Option<Vec<MlirValue>> {
    unsafe {
        let ty = mlirValueGetType(value);
        (!mlirTypeIsAInteger(ty) || mlirIntegerTypeGetWidth(ty).is_multiple_of(8)).then(|| vec![value])
    }
}

/// The vector registers' width and the widest integer lanes taken.
#[derive(Clone, Copy)]
struct Widths {
    bits: i64,
    max_element_bits: i64,
}

/// The width of a scalar integer (`i1` counts as 8) or float type; `None` for anything else
/// (index, vectors, values wider than 64 bits, and integers of other widths than 8, 16, 32 or
/// 64: an array of `i48` takes 8 bytes an element, a vector of them 6).
fn element_bits(ty: MlirType) -> Option<i64> {
    // SAFETY: the type is live; its width is read after the kind checks.
    let bits = unsafe {
        if mlirTypeIsAInteger(ty) {
            i64::from(mlirIntegerTypeGetWidth(ty))
        } else if mlirTypeIsAF32(ty) {
            32
        } else if mlirTypeIsAF16(ty) || mlirTypeIsABF16(ty) {
            16
        } else {
            return None;
        }
    };
    let bits = bits.max(8);
    matches!(bits, 8 | 16 | 32 | 64).then_some(bits)
}

/// The access of the load or store `op` (memref at operand `memref_at`), if the loop's variable
/// `iv` is exactly one of its indices, in a dimension of static stride 1, and the memref and the
/// other indices are defined outside `lp`.
///
/// # Safety
/// All must be live.
unsafe fn access(op: MlirOperation, memref_at: isize, iv: MlirValue, lp: MlirOperation) -> Option<Access> {
    unsafe {
        let memref = mlirOperationGetOperand(op, memref_at);
        if defined_inside(memref, lp) {
            return None;
        }
        let indices: Vec<MlirValue> =
            (memref_at + 1..mlirOperationGetNumOperands(op)).map(|k| mlirOperationGetOperand(op, k)).collect();
        let along: Vec<(usize, Option<MlirValue>)> = (0..indices.len())
            .filter_map(|k| {
                if mlirValueEqual(indices[k], iv) {
                    Some((k, None))
                } else {
                    offset_along(indices[k], iv, lp).map(|offset| (k, Some(offset)))
                }
            })
            .collect();
        let [(along, offset)] = along[..] else { return None };
        if indices.iter().enumerate().any(|(k, v)| k != along && defined_inside(*v, lp)) {
            return None;
        }
        let strides = static_strides(mlirValueGetType(memref))?;
        (strides[along] == 1).then_some(Access { memref_at, along, strides, offset })
    }
}

/// The offset of an index `%offset + %iv` (`arith.addi`, or `affine.apply` of `d0 + d1`, either
/// way round) computed in the loop `lp` from its variable `iv` and a value defined outside it.
///
/// # Safety
/// All must be live.
unsafe fn offset_along(index: MlirValue, iv: MlirValue, lp: MlirOperation) -> Option<MlirValue> {
    unsafe {
        if !mlirValueIsAOpResult(index) || !mlirTypeIsAIndex(mlirValueGetType(index)) {
            return None;
        }
        let op = mlirOpResultGetOwner(index);
        let sum = match name(op).as_str() {
            "arith.addi" => true,
            "affine.apply" => {
                let map = mlirAffineMapAttrGetValue(mlirOperationGetAttributeByName(op, str_ref("map")));
                let expr = mlirAffineMapGetResult(map, 0);
                let dim =
                    |e: MlirAffineExpr, at: isize| mlirAffineExprIsADim(e) && mlirAffineDimExprGetPosition(e) == at;
                mlirAffineMapGetNumResults(map) == 1
                    && mlirAffineMapGetNumSymbols(map) == 0
                    && mlirAffineExprIsAAdd(expr)
                    && dim(mlirAffineBinaryOpExprGetLHS(expr), 0)
                    && dim(mlirAffineBinaryOpExprGetRHS(expr), 1)
            }
            _ => false,
        };
        if !sum || mlirOperationGetNumOperands(op) != 2 || !defined_inside(index, lp) {
            return None;
        }
        let (a, b) = (mlirOperationGetOperand(op, 0), mlirOperationGetOperand(op, 1));
        match (mlirValueEqual(a, iv), mlirValueEqual(b, iv)) {
            (true, false) if !defined_inside(b, lp) => Some(b),
            (false, true) if !defined_inside(a, lp) => Some(a),
            _ => None,
        }
    }
}

/// The strides of a memref type, if all are static.
fn static_strides(ty: MlirType) -> Option<Vec<i64>> {
    strides_and_offset(ty).filter(|(strides, _)| !strides.is_empty())?.0.into_iter().collect()
}

/// Builds ops in front of one op (`at`), all at one location.
struct Builder {
    at: MlirOperation,
    location: MlirLocation,
    context: MlirContext,
}

impl Builder {
    /// # Safety
    /// The operands, types and attributes must be live in the builder's context.
    unsafe fn op(
        &self,
        name: &str,
        operands: &[MlirValue],
        results: &[MlirType],
        attributes: &[(&str, MlirAttribute)],
    ) -> MlirOperation {
        unsafe {
            let op = build(name, self.location, operands, results, attributes);
            mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(self.at), self.at, op);
            op
        }
    }

    /// # Safety
    /// As [`Builder::op`]; the op has one result.
    unsafe fn value(
        &self,
        name: &str,
        operands: &[MlirValue],
        result: MlirType,
        attributes: &[(&str, MlirAttribute)],
    ) -> MlirValue {
        unsafe { mlirOperationGetResult(self.op(name, operands, &[result], attributes), 0) }
    }

    fn index(&self) -> MlirType {
        // SAFETY: the context is live.
        unsafe { mlirIndexTypeGet(self.context) }
    }

    /// # Safety
    /// The builder's op must be live.
    unsafe fn constant(&self, value: i64) -> MlirValue {
        unsafe {
            let attribute = mlirIntegerAttrGet(self.index(), value);
            self.value("arith.constant", &[], self.index(), &[("value", attribute)])
        }
    }

    /// # Safety
    /// Both values must be live index values.
    unsafe fn arith(&self, op: &str, a: MlirValue, b: MlirValue) -> MlirValue {
        unsafe { self.value(op, &[a, b], self.index(), &[]) }
    }
}

/// Inserts the vector loop in front of `raw` and leaves `raw` the elements left over (or erases
/// it).
///
/// # Safety
/// `raw` must be a live `scf.for` that [`plan`] accepted.
unsafe fn vectorize(raw: MlirOperation, plan: &Plan) {
    unsafe {
        let outside =
            Builder { at: raw, location: mlirOperationGetLocation(raw), context: mlirOperationGetContext(raw) };
        let vector_end = plan.lower + (plan.upper - plan.lower) / plan.lanes * plan.lanes;
        let end = outside.constant(vector_end);
        let lanes = outside.constant(plan.lanes);
        let vector_loop = mlirOperationClone(raw);
        mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(raw), raw, vector_loop);
        mlirOperationSetOperand(vector_loop, 1, end);
        mlirOperationSetOperand(vector_loop, 2, lanes);
        let block = mlirRegionGetFirstBlock(mlirOperationGetRegion(vector_loop, 0));
        let iv = mlirBlockGetArgument(block, 0);
        let outside = Builder { at: vector_loop, ..outside };
        let ops = body(block);
        let idioms = if plan.helium { helium::Idioms::find(&ops) } else { helium::Idioms::default() };
        // The clone is the loop `plan` accepted: every load and store has its access.
        let accesses: Vec<Option<Access>> = ops
            .iter()
            .map(|&op| match name(op).as_str() {
                "memref.load" => access(op, 0, iv, vector_loop),
                "memref.store" => access(op, 1, iv, vector_loop),
                _ => None,
            })
            .collect();
        let mut lanes = Lanes { count: plan.lanes, vectors: HashMap::new(), broadcasts: HashMap::new() };
        for (&op, access) in ops.iter().zip(&accesses) {
            let inside = Builder { at: op, location: mlirOperationGetLocation(op), context: outside.context };
            match (name(op).as_str(), access) {
                ("memref.load", Some(access)) => {
                    let ty = lanes.vector_of(mlirValueGetType(mlirOperationGetResult(op, 0)));
                    let pointer = address(op, access, iv, &outside, &inside);
                    let alignment = alignment_attribute(&inside, op);
                    let loaded = inside.value("llvm.load", &[pointer], ty, &[("alignment", alignment)]);
                    lanes.vectors.insert(mlirOperationGetResult(op, 0).ptr as usize, loaded);
                }
                ("memref.store", Some(access)) => {
                    let value = lanes.operand(mlirOperationGetOperand(op, 0), vector_loop, &inside, &outside);
                    let pointer = address(op, access, iv, &outside, &inside);
                    let alignment = alignment_attribute(&inside, op);
                    inside.op("llvm.store", &[value, pointer], &[], &[("alignment", alignment)]);
                }
                ("arith.constant", _) => {}
                _ if idioms.interior.contains(&(op.ptr as usize)) => {}
                // An index `%offset + %iv`: its accesses' addresses take the offset.
                _ if mlirOperationGetNumResults(op) == 1
                    && offset_along(mlirOperationGetResult(op, 0), iv, vector_loop).is_some() => {}
                _ if idioms.roots.contains_key(&(op.ptr as usize)) => {
                    let idiom = &idioms.roots[&(op.ptr as usize)];
                    let ty = lanes.vector_of(mlirValueGetType(mlirOperationGetResult(op, 0)));
                    let vector = helium::emit(idiom, ty, &mut lanes, vector_loop, &inside, &outside);
                    lanes.vectors.insert(mlirOperationGetResult(op, 0).ptr as usize, vector);
                }
                (kind, _) => {
                    let operands: Vec<MlirValue> = (0..mlirOperationGetNumOperands(op))
                        .map(|k| {
                            let operand = mlirOperationGetOperand(op, k);
                            // A select on a condition the same for every element (a window
                            // position inside the input or in its padding) selects whole vectors.
                            if kind == "arith.select" && k == 0 && !defined_inside(operand, vector_loop) {
                                operand
                            } else {
                                lanes.operand(operand, vector_loop, &inside, &outside)
                            }
                        })
                        .collect();
                    let results: Vec<MlirType> = (0..mlirOperationGetNumResults(op))
                        .map(|k| lanes.vector_of(mlirValueGetType(mlirOperationGetResult(op, k))))
                        .collect();
                    let attributes: Vec<(String, MlirAttribute)> = (0..mlirOperationGetNumAttributes(op))
                        .map(|k| {
                            let named = mlirOperationGetAttribute(op, k);
                            (string_from(mlirIdentifierStr(named.name)), named.attribute)
                        })
                        .collect();
                    let attributes: Vec<(&str, MlirAttribute)> =
                        attributes.iter().map(|(name, value)| (name.as_str(), *value)).collect();
                    let new = inside.op(kind, &operands, &results, &attributes);
                    for k in 0..mlirOperationGetNumResults(op) {
                        lanes
                            .vectors
                            .insert(mlirOperationGetResult(op, k).ptr as usize, mlirOperationGetResult(new, k));
                    }
                    if kind == "arith.mulsi_extended" {
                        // The low half as a 32-bit multiply: LLVM splits the low half of a
                        // 64-bit vector product into scalars.
                        let low = inside.value("arith.muli", &operands, results[0], &[]);
                        lanes.vectors.insert(mlirOperationGetResult(op, 0).ptr as usize, low);
                    }
                }
            }
        }
        for &op in ops.iter().rev() {
            if name(op) != "arith.constant"
                || (0..mlirOperationGetNumResults(op)).all(|k| unused(mlirOperationGetResult(op, k)))
            {
                mlirOperationDestroy(op);
            }
        }
        if vector_end == plan.upper {
            mlirOperationDestroy(raw);
        } else {
            mlirOperationSetOperand(raw, 0, end);
        }
    }
}

/// The vector loop's values: the vector each scalar of the original body became, and the
/// broadcasts of scalars from outside it (or constants inside it).
struct Lanes {
    count: i64,
    vectors: HashMap<usize, MlirValue>,
    broadcasts: HashMap<usize, MlirValue>,
}

impl Lanes {
    fn vector_of(&self, ty: MlirType) -> MlirType {
        let shape = [self.count];
        // SAFETY: the element type is live.
        unsafe { mlirVectorTypeGet(1, shape.as_ptr(), ty) }
    }

    /// The vector standing for `value` in the vector loop `lp`: its rewrite, or its broadcast
    /// (built in front of the loop, or for a constant inside the loop in front of the op using it).
    ///
    /// # Safety
    /// All must be live.
    unsafe fn operand(
        &mut self,
        value: MlirValue,
        lp: MlirOperation,
        inside: &Builder,
        outside: &Builder,
    ) -> MlirValue {
        unsafe {
            if let Some(vector) = self.vectors.get(&(value.ptr as usize)) {
                return *vector;
            }
            if let Some(vector) = self.broadcasts.get(&(value.ptr as usize)) {
                return *vector;
            }
            let at = if defined_inside(value, lp) { inside } else { outside };
            let vector = at.value("vector.broadcast", &[value], self.vector_of(mlirValueGetType(value)), &[]);
            self.broadcasts.insert(value.ptr as usize, vector);
            vector
        }
    }
}

/// # Safety
/// `value` must be live.
unsafe fn unused(value: MlirValue) -> bool {
    unsafe { mlirOpOperandIsNull(mlirValueGetFirstUse(value)) }
}

/// The `alignment` of a vector access through `op`'s memref: its element's size.
///
/// # Safety
/// `op` must be a live load or store.
unsafe fn alignment_attribute(builder: &Builder, op: MlirOperation) -> MlirAttribute {
    unsafe {
        let memref = mlirOperationGetOperand(op, if name(op) == "memref.store" { 1 } else { 0 });
        let bytes = element_bits(mlirShapedTypeGetElementType(mlirValueGetType(memref))).unwrap_or(8) / 8;
        mlirIntegerAttrGet(mlirIntegerTypeGet(builder.context, 64), bytes)
    }
}

/// The address of element `[..., %iv, ...]` of the access's memref as an `!llvm.ptr`: the
/// memref's aligned pointer and offset plus the other indices times their strides (computed in
/// front of the vector loop), plus the loop's variable (inside it), in bytes.
///
/// # Safety
/// All must be live; `op` is a load or store with `access`.
unsafe fn address(op: MlirOperation, access: &Access, iv: MlirValue, outside: &Builder, inside: &Builder) -> MlirValue {
    unsafe {
        let memref = mlirOperationGetOperand(op, access.memref_at);
        let ty = mlirValueGetType(memref);
        let rank = access.strides.len();
        let element = mlirShapedTypeGetElementType(ty);
        let bytes = element_bits(element).unwrap_or(8) / 8;
        let index = outside.index();
        let scalar = mlirMemRefTypeContiguousGet(element, 0, std::ptr::null(), mlirAttributeGetNull());
        let mut types = vec![scalar, index];
        types.extend(std::iter::repeat_n(index, 2 * rank));
        let metadata = outside.op("memref.extract_strided_metadata", &[memref], &types, &[]);
        let aligned = outside.value("memref.extract_aligned_pointer_as_index", &[memref], index, &[]);
        let mut elements = mlirOperationGetResult(metadata, 1);
        if let Some(offset) = access.offset {
            elements = outside.arith("arith.addi", elements, offset);
        }
        for (k, stride) in access.strides.iter().enumerate() {
            if k != access.along {
                let index_value = mlirOperationGetOperand(op, access.memref_at + 1 + k as isize);
                let step = outside.arith("arith.muli", index_value, outside.constant(*stride));
                elements = outside.arith("arith.addi", elements, step);
            }
        }
        let size = outside.constant(bytes);
        let start = outside.arith("arith.addi", aligned, outside.arith("arith.muli", elements, size));
        let i64t = mlirIntegerTypeGet(inside.context, 64);
        let pointer = mlirTypeParseGet(inside.context, str_ref("!llvm.ptr"));
        let start = outside.value("arith.index_cast", &[start], i64t, &[]);
        let base = outside.value("llvm.inttoptr", &[start], pointer, &[]);
        // Element `%iv` from there: a step LLVM's strength reduction turns into post-incremented
        // addressing.
        let iv = inside.value("arith.index_cast", &[iv], i64t, &[]);
        let dynamic = mlirDenseI32ArrayGet(inside.context, 1, [i32::MIN].as_ptr());
        inside.value(
            "llvm.getelementptr",
            &[base, iv],
            pointer,
            &[("rawConstantIndices", dynamic), ("elem_type", mlirTypeAttrGet(element))],
        )
    }
}

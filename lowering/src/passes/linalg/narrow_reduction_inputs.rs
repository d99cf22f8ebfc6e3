//! `umac-narrow-reduction-inputs`: a reduction whose body narrows what it reads and widens it
//! again — a convolution's requantization to int8 fused into a mean's sum, which TOSA writes as
//! a rescale of the int8 values to int32 before `reduce_sum` — is split at the narrow value: an
//! elementwise op computes the narrow values (the requantization, which `umac-tile-and-fuse` then
//! computes with the convolution) and the reduction widens each one as it sums it. Otherwise the
//! convolution's int32 accumulators were the reduction's input, materialized whole: KWS with a
//! MEAN in place of its average pooling needed a 40,000-byte workspace, where TFLite Micro's
//! activation arena is 16,000 bytes.
//!
//! The split is made where the narrow tensor takes fewer bytes than the input it replaces (an op's
//! result only the reduction reads, materialized for it; not a function argument), at the
//! last `arith.trunci` whose value alone (with values from outside) the rest of the body reads,
//! and which is computed from the inputs alone (not from the accumulator). An input that a
//! `tensor.expand_shape` adding unit dimensions (TOSA's reduction keeps its reduced axes) made of
//! the convolution's result is read unexpanded, so that fusion reaches the convolution.
//! ```mlir
//! %e = tensor.expand_shape %acc ... : tensor<1x25x5x64xi32> into tensor<1x25x1x5x1x64xi32>
//! %sum = linalg.generic {reduction} ins(%e, %scale ...) outs(%init) {
//!   ... %q = arith.trunci %r : i32 to i8  %w = arith.extsi %q ... %s = arith.addi %v, %out }
//! // becomes
//! %q = linalg.generic {parallel} ins(%acc, %scale ...) outs(tensor<1x25x5x64xi8>) { ... yield %q }
//! %qe = tensor.expand_shape %q ... : tensor<1x25x5x64xi8> into tensor<1x25x1x5x1x64xi8>
//! %sum = linalg.generic {reduction} ins(%qe ...) outs(%init) { ^bb0(%q: i8, %out: i32): %w = arith.extsi %q ... }
//! ```

use crate::{
    Error,
    pass::{UmacPass, boxed},
    registry::{PassInfo, PassKind},
    unit_expansion::{bytes, kept_dimensions, unit_expansion, uses},
};
use melior::ir::OperationRef;
use mlir_sys::*;
use std::collections::HashSet;
use umac_dialects::{
    ir::{attribute, body_ops, build, collect, name, op_name, scalar_bits, static_tensor_shape},
    text::{attribute_text, str_ref},
};

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    name: "umac-narrow-reduction-inputs",
    summary: "Split a reduction that narrows its input and widens it again, so the narrow values are what is materialized",
    anchor: "any",
    options: &[],
    kind: PassKind::Pass(|_| boxed(NarrowReductionInputs)),
};

struct NarrowReductionInputs;

impl UmacPass for NarrowReductionInputs {
    fn run(&mut self, operation: OperationRef) -> Result<(), Error> {
        for raw in collect(operation, |op| op_name(op) == "linalg.generic") {
            // SAFETY: each collected op is live when visited: a split creates new ops and
            // rewrites only the op being visited.
            unsafe {
                if let Some(split) = plan(raw) {
                    rewrite(raw, &split);
                }
            }
        }
        Ok(())
    }
}

/// Where a reduction splits: positions in its body of the narrowing op, of the ops computing it
/// (`head`) and of those after it (`tail`, the terminator excluded); the input the narrow values
/// replace (`data`, the only one not a constant the head reads) and the unit expansion it is read
/// through, if any; the elementwise op's indexing maps (over the expansion's source).
struct Split {
    narrow: usize,
    head: Vec<usize>,
    tail: Vec<usize>,
    data: isize,
    expansion: Option<MlirOperation>,
    maps: String,
}

/// The split of `op` if it is a reduction `linalg.generic` worth splitting (see the module).
///
/// # Safety
/// `op` must be a live `linalg.generic`.
unsafe fn plan(op: MlirOperation) -> Option<Split> {
    unsafe {
        let iterators = attribute_text(melior::ir::Attribute::from_raw(attribute(op, "iterator_types")?));
        if !iterators.contains("reduction") || mlirOperationGetNumResults(op) != 1 {
            return None;
        }
        let inputs = mlirOperationGetNumOperands(op) - 1;
        let block = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
        let ops = body_ops(op);
        let position = |value: MlirValue| -> Option<usize> {
            if !mlirValueIsAOpResult(value) {
                return None;
            }
            let owner = mlirOpResultGetOwner(value);
            ops.iter().position(|o| o.ptr == owner.ptr)
        };
        let argument = |value: MlirValue| -> Option<isize> {
            (mlirValueIsABlockArgument(value) && mlirBlockArgumentGetOwner(value).ptr == block.ptr)
                .then(|| mlirBlockArgumentGetArgNumber(value))
        };
        if ops.iter().any(|o| mlirOperationGetNumRegions(*o) > 0 || name(*o) == "linalg.index") {
            return None;
        }
        for (narrow, &candidate) in ops.iter().enumerate().rev() {
            if name(candidate) != "arith.trunci" {
                continue;
            }
            // The head: what the narrow value is computed from, within the body.
            let mut head = HashSet::new();
            let mut read = HashSet::new();
            let mut pending = vec![narrow];
            while let Some(at) = pending.pop() {
                for k in 0..mlirOperationGetNumOperands(ops[at]) {
                    let operand = mlirOperationGetOperand(ops[at], k);
                    if let Some(p) = position(operand)
                        && head.insert(p)
                    {
                        pending.push(p);
                    } else if let Some(a) = argument(operand) {
                        read.insert(a);
                    }
                }
            }
            if read.contains(&inputs) {
                continue;
            }
            // The tail reads the narrow value, its own results and values from outside only.
            let terminator = ops.len() - 1;
            let tail: Vec<usize> = (0..terminator).filter(|p| *p != narrow && !head.contains(p)).collect();
            let tail_reads_only = |at: usize| {
                (0..mlirOperationGetNumOperands(ops[at])).all(|k| {
                    let operand = mlirOperationGetOperand(ops[at], k);
                    match (position(operand), argument(operand)) {
                        (Some(p), _) => p == narrow || tail.contains(&p),
                        (None, Some(a)) => a == inputs,
                        (None, None) => true,
                    }
                })
            };
            if tail.is_empty() || !tail.iter().chain([&terminator]).all(|at| tail_reads_only(*at)) {
                continue;
            }
            let mut head: Vec<usize> = head.into_iter().collect();
            head.sort_unstable();
            // The input the narrow values replace: the one the head reads that is no constant,
            // read element for element over the loops.
            let maps = attribute(op, "indexing_maps")?;
            let data: Vec<isize> = read
                .iter()
                .copied()
                .filter(|k| {
                    let value = mlirOperationGetOperand(op, *k);
                    !(mlirValueIsAOpResult(value) && name(mlirOpResultGetOwner(value)) == "arith.constant")
                })
                .collect();
            let [data] = data[..] else { return None };
            if !mlirAffineMapIsIdentity(mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, data))) {
                return None;
            }
            let input = mlirOperationGetOperand(op, data);
            let expansion = (mlirValueIsAOpResult(input) && uses(input).len() == 1)
                .then(|| mlirOpResultGetOwner(input))
                .filter(|producer| unit_expansion(*producer).is_some());
            let replaced = expansion.map_or(input, |e| mlirOperationGetOperand(e, 0));
            // Only a tensor that is materialized for the reduction alone is worth replacing (a
            // function argument is read where it is).
            if !mlirValueIsAOpResult(replaced) || uses(replaced).len() != 1 {
                return None;
            }
            let narrow_bits = scalar_bits(mlirValueGetType(mlirOperationGetResult(candidate, 0)))?;
            let elements: i64 = static_tensor_shape(mlirValueGetType(input))?.iter().product();
            if elements * ((narrow_bits + 7) / 8) >= bytes(replaced)? {
                return None;
            }
            let maps = elementwise_maps(op, data, expansion)?;
            return Some(Split { narrow, head, tail, data, expansion, maps });
        }
        None
    }
}

/// Splits `op` as `split` says: a clone of it, made elementwise and cut after the narrowing op,
/// computes the narrow values (from the expansion's source when there is one, then expanded the
/// same way); `op` reads them in place of its input and keeps only its tail.
///
/// # Safety
/// `op` must be live and `split` its [`plan`].
unsafe fn rewrite(op: MlirOperation, split: &Split) {
    unsafe {
        let location = mlirOperationGetLocation(op);
        let context = mlirOperationGetContext(op);
        let parent = mlirOperationGetBlock(op);
        let narrow_type = mlirValueGetType(mlirOperationGetResult(body_ops(op)[split.narrow], 0));
        let input = mlirOperationGetOperand(op, split.data);
        let source = split.expansion.map_or(input, |e| mlirOperationGetOperand(e, 0));
        let shape = static_tensor_shape(mlirValueGetType(source)).unwrap_or_default();
        let narrow_tensor =
            mlirRankedTensorTypeGet(shape.len() as isize, shape.as_ptr(), narrow_type, mlirAttributeGetNull());
        // The elementwise op: the head, yielding the narrow value.
        let head = mlirOperationClone(op);
        mlirBlockInsertOwnedOperationBefore(parent, op, head);
        let ops = body_ops(head);
        mlirOperationSetOperand(ops[ops.len() - 1], 0, mlirOperationGetResult(ops[split.narrow], 0));
        for &at in split.tail.iter().rev() {
            mlirOperationDestroy(ops[at]);
        }
        let init = mlirOperationGetNumOperands(head) - 1;
        let empty = build("tensor.empty", location, &[], &[narrow_tensor], &[]);
        mlirBlockInsertOwnedOperationBefore(parent, head, empty);
        mlirOperationSetOperand(head, init, mlirOperationGetResult(empty, 0));
        mlirOperationSetOperand(head, split.data, source);
        let block = mlirRegionGetFirstBlock(mlirOperationGetRegion(head, 0));
        mlirValueSetType(mlirBlockGetArgument(block, init), narrow_type);
        mlirValueSetType(mlirOperationGetResult(head, 0), narrow_tensor);
        let parallel = vec!["#linalg.iterator_type<parallel>"; shape.len()].join(", ");
        mlirOperationSetAttributeByName(
            head,
            str_ref("indexing_maps"),
            mlirAttributeParseGet(context, str_ref(&split.maps)),
        );
        mlirOperationSetAttributeByName(
            head,
            str_ref("iterator_types"),
            mlirAttributeParseGet(context, str_ref(&format!("[{parallel}]"))),
        );
        // The narrow values as the reduction reads them: expanded as its input was.
        let mut narrow = mlirOperationGetResult(head, 0);
        if let Some(expansion) = split.expansion {
            let expanded = mlirOperationClone(expansion);
            mlirBlockInsertOwnedOperationBefore(parent, op, expanded);
            mlirOperationSetOperand(expanded, 0, narrow);
            let shape = static_tensor_shape(mlirValueGetType(input)).unwrap_or_default();
            let ty = mlirRankedTensorTypeGet(shape.len() as isize, shape.as_ptr(), narrow_type, mlirAttributeGetNull());
            mlirValueSetType(mlirOperationGetResult(expanded, 0), ty);
            narrow = mlirOperationGetResult(expanded, 0);
        }
        // The reduction: its tail, reading the narrow value.
        mlirOperationSetOperand(op, split.data, narrow);
        let block = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
        let argument = mlirBlockGetArgument(block, split.data);
        mlirValueSetType(argument, narrow_type);
        let ops = body_ops(op);
        mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(ops[split.narrow], 0), argument);
        mlirOperationDestroy(ops[split.narrow]);
        for &at in split.head.iter().rev() {
            mlirOperationDestroy(ops[at]);
        }
    }
}

/// The indexing maps of the elementwise op computing the narrow values of `op` in place of input
/// `data`: the inputs' maps and an identity for the result, over the loops of `op` or, when
/// `data` is read through `expansion`, over the dimensions of its source ([`source_map`]).
///
/// # Safety
/// Both must be live.
unsafe fn elementwise_maps(op: MlirOperation, data: isize, expansion: Option<MlirOperation>) -> Option<String> {
    unsafe {
        let source = expansion.map_or(mlirOperationGetOperand(op, data), |e| mlirOperationGetOperand(e, 0));
        let rank = static_tensor_shape(mlirValueGetType(source))?.len();
        let dims: Vec<String> = (0..rank).map(|d| format!("d{d}")).collect();
        let identity = format!("affine_map<({0}) -> ({0})>", dims.join(", "));
        let maps = attribute(op, "indexing_maps")?;
        let mut texts = Vec::new();
        for k in 0..mlirOperationGetNumOperands(op) - 1 {
            let map = mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, k));
            texts.push(match expansion {
                _ if k == data => identity.clone(),
                Some(expansion) => source_map(map, expansion, &dims)?,
                None => attribute_text(melior::ir::Attribute::from_raw(mlirAffineMapAttrGet(map))),
            });
        }
        texts.push(identity);
        Some(format!("[{}]", texts.join(", ")))
    }
}

/// `map` (over the reduction's loops, the expanded dimensions) over the dimensions of the
/// expansion's source: a unit dimension the expansion added becomes 0. `None` when a result is
/// neither a dimension nor a constant.
///
/// # Safety
/// Both must be live; `expansion` a [`unit_expansion`].
unsafe fn source_map(map: MlirAffineMap, expansion: MlirOperation, dims: &[String]) -> Option<String> {
    unsafe {
        let groups = unit_expansion(expansion)?;
        let expanded = static_tensor_shape(mlirValueGetType(mlirOperationGetResult(expansion, 0)))?;
        // Each expanded dimension: its source dimension, where it keeps the size (the last of a
        // group of units).
        let mut of = vec![None; expanded.len()];
        for (j, kept) in kept_dimensions(&groups, &expanded).into_iter().enumerate() {
            of[kept] = Some(j);
        }
        let mut results = Vec::new();
        for r in 0..mlirAffineMapGetNumResults(map) {
            let expr = mlirAffineMapGetResult(map, r);
            if mlirAffineExprIsADim(expr) {
                let position = mlirAffineDimExprGetPosition(expr) as usize;
                results.push(match of.get(position)? {
                    Some(j) => dims[*j].clone(),
                    None => "0".to_string(),
                });
            } else if mlirAffineExprIsAConstant(expr) {
                results.push(mlirAffineConstantExprGetValue(expr).to_string());
            } else {
                return None;
            }
        }
        Some(format!("affine_map<({}) -> ({})>", dims.join(", "), results.join(", ")))
    }
}

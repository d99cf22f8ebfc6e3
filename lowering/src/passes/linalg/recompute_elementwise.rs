//! `umac-recompute-elementwise`: an elementwise `linalg.generic` whose result several
//! `linalg.generic`s read is cloned for each of them, so that `linalg-fuse-elementwise-ops` (run
//! after it) computes it inside each reader instead of materializing it — when its result takes
//! more bytes than the inputs the clones would then leave materialized in its place. Reductions
//! fused so recompute their elementwise operands, as TFLite Micro's kernels do: a softmax reads
//! its input twice (the sum of the exponentials, then each output) and keeps no exponential in
//! memory. A reader behind a `tensor.expand_shape` that only adds unit dimensions (TOSA's
//! reductions keep their reduced axis) gets a clone computing the expanded shape, which fusion
//! takes where it would not fuse through the reshape (a broadcast operand's map is no projected
//! permutation).
//!
//! On a fully connected layer with a softmax (the tail of KWS, 12 classes) the int32
//! exponentials (48 bytes) are no longer a buffer: the workspace's liveness bound drops from 112
//! to 80 bytes, the size of TFLite Micro's whole arena for that model (input and output included).
//! ```mlir
//! %e = linalg.generic {parallel} ins(%x, %max) { ... table lookups ... } -> tensor<1x12xi32>
//! %e3 = tensor.expand_shape %e ... into tensor<1x1x12xi32>
//! %sum = linalg.generic {reduction} ins(%e3) ...
//! %y = linalg.generic {parallel} ins(%e, %sum) ...
//! // becomes (before fusion)
//! %e = linalg.generic ... -> tensor<1x12xi32>      %e3 = linalg.generic ... -> tensor<1x1x12xi32>
//! %sum = linalg.generic {reduction} ins(%e3) ...   %y = linalg.generic {parallel} ins(%e, %sum) ...
//! ```
//! Inputs count as left materialized when the op is their only reader (through reshapes) and
//! they are not constants or arguments: a convolution's int32 result that the op rescales is not
//! recomputed in its place, nor is any op whose readers are not all `linalg.generic`s (or such
//! expansions of it).

use crate::{
    Error,
    linalg_kinds::accumulating_kind,
    pass::{UmacPass, boxed},
    registry::{PassInfo, PassKind},
    unit_expansion::{bytes, kept_dimensions, unit_expansion, uses},
};
use melior::ir::OperationRef;
use mlir_sys::*;
use umac_dialects::{
    ir::{attribute, build, collect, name, op_name, static_tensor_shape},
    text::{attribute_text, str_ref},
};

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    name: "umac-recompute-elementwise",
    summary: "Clone an elementwise op for each linalg.generic reading it, when that materializes fewer bytes",
    anchor: "any",
    options: &[],
    kind: PassKind::Pass(|_| boxed(RecomputeElementwise)),
};

struct RecomputeElementwise;

/// Reshapes between an op and a reader: views, which fusion looks through.
const RESHAPES: [&str; 2] = ["tensor.expand_shape", "tensor.collapse_shape"];

/// The indexing maps of the elementwise `op` computing its result expanded by `expansion` (an
/// `expand_shape` of it, [`unit_expansion`]): a source dimension becomes its group's dimension
/// of the same size (the last one for a unit dimension). `None` when a map has results other
/// than dimensions and constants, or the body reads `linalg.index`.
///
/// # Safety
/// Both must be live.
unsafe fn expanded_maps(op: MlirOperation, expansion: MlirOperation) -> Option<MlirAttribute> {
    unsafe {
        let groups = unit_expansion(expansion)?;
        let shape = static_tensor_shape(mlirValueGetType(mlirOperationGetResult(expansion, 0)))?;
        let body = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
        let mut inner = mlirBlockGetFirstOperation(body);
        while !inner.ptr.is_null() {
            if name(inner) == "linalg.index" {
                return None;
            }
            inner = mlirOperationGetNextInBlock(inner);
        }
        let representative = kept_dimensions(&groups, &shape);
        let dims: Vec<String> = (0..shape.len()).map(|d| format!("d{d}")).collect();
        let maps = attribute(op, "indexing_maps")?;
        let mut texts = Vec::new();
        let inputs = mlirArrayAttrGetNumElements(maps) - 1;
        for k in 0..inputs {
            let map = mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, k));
            let mut results = Vec::new();
            for r in 0..mlirAffineMapGetNumResults(map) {
                let expr = mlirAffineMapGetResult(map, r);
                if mlirAffineExprIsADim(expr) {
                    results.push(format!("d{}", representative.get(mlirAffineDimExprGetPosition(expr) as usize)?));
                } else if mlirAffineExprIsAConstant(expr) {
                    results.push(mlirAffineConstantExprGetValue(expr).to_string());
                } else {
                    return None;
                }
            }
            texts.push(format!("affine_map<({}) -> ({})>", dims.join(", "), results.join(", ")));
        }
        // The result: the expanded shape, element for element.
        let output = mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, inputs));
        if !mlirAffineMapIsIdentity(output) {
            return None;
        }
        texts.push(format!("affine_map<({0}) -> ({0})>", dims.join(", ")));
        let context = mlirOperationGetContext(op);
        let parsed = mlirAttributeParseGet(context, str_ref(&format!("[{}]", texts.join(", "))));
        (!parsed.ptr.is_null()).then_some(parsed)
    }
}

/// Makes the elementwise `op` (a clone) compute the result of `expansion` ([`expanded_maps`]):
/// its maps, iterators and init (an empty tensor) of the expanded shape.
///
/// # Safety
/// Both must be live and [`expanded_maps`] of them `Some`.
unsafe fn expand(op: MlirOperation, expansion: MlirOperation) {
    unsafe {
        let Some(maps) = expanded_maps(op, expansion) else { return };
        let expanded = mlirValueGetType(mlirOperationGetResult(expansion, 0));
        let rank = mlirShapedTypeGetRank(expanded) as usize;
        let context = mlirOperationGetContext(op);
        let parallel = vec!["#linalg.iterator_type<parallel>"; rank].join(", ");
        let iterators = mlirAttributeParseGet(context, str_ref(&format!("[{parallel}]")));
        mlirOperationSetAttributeByName(op, str_ref("indexing_maps"), maps);
        mlirOperationSetAttributeByName(op, str_ref("iterator_types"), iterators);
        let empty = build("tensor.empty", mlirOperationGetLocation(op), &[], &[expanded], &[]);
        mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(op), op, empty);
        let init = mlirOperationGetNumOperands(op) - 1;
        mlirOperationSetOperand(op, init, mlirOperationGetResult(empty, 0));
        mlirValueSetType(mlirOperationGetResult(op, 0), expanded);
    }
}

impl UmacPass for RecomputeElementwise {
    fn run(&mut self, operation: OperationRef) -> Result<(), Error> {
        for raw in collect(operation, |op| op_name(op) == "linalg.generic") {
            // SAFETY: the collected ops stay alive: clones are inserted beside them, nothing is
            // erased, and each op's uses are read before they are rewired.
            unsafe {
                let readers = readers(raw);
                if readers.len() < 2 || !worth_recomputing(raw) {
                    continue;
                }
                let block = mlirOperationGetBlock(raw);
                // The op itself stays for its first direct reader; every other reader gets a
                // clone, an expansion's readers one computing the expanded shape.
                let first = readers.iter().position(|(owner, _)| name(*owner) == "linalg.generic");
                for (k, &(owner, position)) in readers.iter().enumerate() {
                    if Some(k) == first {
                        continue;
                    }
                    let clone = mlirOperationClone(raw);
                    mlirBlockInsertOwnedOperationAfter(block, raw, clone);
                    if name(owner) == "tensor.expand_shape" {
                        expand(clone, owner);
                        let expanded = mlirOperationGetResult(owner, 0);
                        for (reader, at) in uses(expanded) {
                            mlirOperationSetOperand(reader, at, mlirOperationGetResult(clone, 0));
                        }
                    } else {
                        mlirOperationSetOperand(owner, position, mlirOperationGetResult(clone, 0));
                    }
                }
            }
        }
        Ok(())
    }
}

/// The uses of `op`'s result, as (owner, operand position), when `op` is an elementwise
/// `linalg.generic` with one result and every use is a `linalg.generic` or a reshape only
/// `linalg.generic`s read; empty otherwise.
///
/// # Safety
/// `op` must be a live `linalg.generic`.
unsafe fn readers(op: MlirOperation) -> Vec<(MlirOperation, isize)> {
    unsafe {
        let parallel = attribute(op, "iterator_types")
            .is_some_and(|iterators| !attribute_text(melior::ir::Attribute::from_raw(iterators)).contains("reduction"));
        if !parallel || mlirOperationGetNumResults(op) != 1 {
            return vec![];
        }
        let found = uses(mlirOperationGetResult(op, 0));
        let fusible = |owner: MlirOperation| {
            name(owner) == "linalg.generic"
                || (expanded_maps(op, owner).is_some()
                    && uses(mlirOperationGetResult(owner, 0)).iter().all(|(o, _)| name(*o) == "linalg.generic"))
        };
        if found.iter().all(|(owner, _)| fusible(*owner)) { found } else { vec![] }
    }
}

/// Whether `op`'s result takes more bytes than the inputs that only `op` reads (through
/// reshapes), which its clones would leave materialized once fused into the readers. Accumulating
/// ops (`umac-tile-and-fuse` fuses their one elementwise reader with them) and unknown shapes
/// count as too much.
///
/// # Safety
/// `op` must be a live `linalg.generic` with one result.
unsafe fn worth_recomputing(op: MlirOperation) -> bool {
    unsafe {
        let Some(result) = bytes(mlirOperationGetResult(op, 0)) else { return false };
        let inputs = mlirOperationGetNumOperands(op) - mlirOperationGetNumResults(op);
        let mut kept = 0;
        for k in 0..inputs {
            let mut value = mlirOperationGetOperand(op, k);
            // Through reshapes read by this op alone, to the tensor they view.
            while mlirValueIsAOpResult(value) && uses(value).len() == 1 {
                let producer = mlirOpResultGetOwner(value);
                if !RESHAPES.contains(&name(producer).as_str()) {
                    break;
                }
                value = mlirOperationGetOperand(producer, 0);
            }
            let mut owners: Vec<usize> = uses(value).iter().map(|(owner, _)| owner.ptr as usize).collect();
            owners.dedup();
            if !mlirValueIsAOpResult(value) || owners.len() > 1 {
                continue;
            }
            let producer = mlirOpResultGetOwner(value);
            if name(producer) == "arith.constant" || name(producer) == "tosa.const" {
                continue;
            }
            if accumulating_kind(&OperationRef::from_raw(producer)).is_some() {
                return false;
            }
            let Some(input) = bytes(value) else { return false };
            kept += input;
        }
        result > kept
    }
}

//! Named pipelines: umac's lowering recipes, built from upstream MLIR passes.
//!
//! Each stage is a constant so later pipelines (the Cranelift engine stops after the loop stage,
//! firmware output adds memory planning between them) reuse the same recipe.

use crate::{
    options::OptionValues,
    registry::{PassInfo, PassKind},
};

/// TOSA → linalg/arith/tensor/scf on tensors. `include-apply-rescale` lowers `tosa.apply_scale`
/// (the int8 rescale arithmetic) instead of leaving it behind.
pub const TOSA_TO_LINALG: &str = "func.func(tosa-optional-decompositions,tosa-make-broadcastable,\
tosa-to-linalg-named,tosa-to-linalg,tosa-to-arith{include-apply-rescale=true},tosa-to-tensor,tosa-to-scf),\
canonicalize";

/// Tensors → buffers, including function boundaries (identity layouts, so memref descriptors stay
/// plain), with deallocation of every temporary.
pub const BUFFERIZE: &str = "one-shot-bufferize{bufferize-function-boundaries \
function-boundary-type-conversion=identity-layout-map},buffer-deallocation-pipeline";

/// linalg → loops → `cf`; `memref` with strided metadata expanded; `affine` gone.
pub const LOWER_TO_CF: &str = "func.func(convert-linalg-to-loops),convert-bufferization-to-memref,\
expand-strided-metadata,lower-affine,convert-scf-to-cf";

/// Everything left → the llvm dialect, ready for translation to LLVM IR.
pub const CF_TO_LLVM: &str = "finalize-memref-to-llvm,convert-to-llvm,reconcile-unrealized-casts";

/// `umac-lower-to-llvm`: a TOSA model to the llvm dialect.
pub const LOWER_TO_LLVM: PassInfo = PassInfo {
    name: "umac-lower-to-llvm",
    summary: "Lower a TOSA model to the llvm dialect (TOSA -> linalg -> bufferize -> loops -> cf -> llvm)",
    anchor: "builtin.module",
    options: &[],
    kind: PassKind::Pipeline(lower_to_llvm),
};

fn lower_to_llvm(_: &OptionValues) -> String {
    [TOSA_TO_LINALG, BUFFERIZE, LOWER_TO_CF, CF_TO_LLVM].join(",")
}

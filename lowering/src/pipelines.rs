//! Named pipelines: umac's lowering recipes, built from upstream MLIR passes.
//!
//! Each stage is a constant so later pipelines (the Cranelift engine stops after the loop stage,
//! firmware output adds memory planning between them) reuse the same recipe.

use crate::{
    options::{OptionKind, OptionSpec, OptionValues},
    registry::{PassInfo, PassKind},
};

/// TOSA → linalg/arith/tensor/scf on tensors. `include-apply-rescale` lowers `tosa.apply_scale`
/// (the int8 rescale arithmetic) instead of leaving it behind.
pub const TOSA_TO_LINALG: &str = "func.func(umac-decompose-transpose-conv2d,tosa-optional-decompositions,tosa-make-broadcastable,\
tosa-to-linalg-named,tosa-to-linalg,tosa-to-arith{include-apply-rescale=true},tosa-to-tensor,tosa-to-scf,\
linalg-fuse-elementwise-ops),\
canonicalize";

/// Tensors → buffers, including function boundaries (identity layouts, so memref descriptors stay
/// plain), with deallocation of every temporary.
pub const BUFFERIZE: &str = "one-shot-bufferize{bufferize-function-boundaries \
function-boundary-type-conversion=identity-layout-map},buffer-deallocation-pipeline";

/// linalg → loops → `cf`; `memref` with strided metadata expanded; `affine` gone; extern C calls
/// as calls of declared functions.
pub const LOWER_TO_CF: &str = "umac-lower-call-extern,func.func(umac-strided-copy-to-linalg,convert-linalg-to-loops),convert-bufferization-to-memref,\
expand-strided-metadata,lower-affine,convert-scf-to-cf";

/// Everything left → the llvm dialect, ready for translation to LLVM IR.
pub const CF_TO_LLVM: &str = "finalize-memref-to-llvm,convert-to-llvm,reconcile-unrealized-casts";

/// Bufferization for host execution: results become caller-provided out-parameters (the
/// runtime owns inputs and outputs), every temporary is freed. Private functions (partitioned
/// ones) go first, so that their callers' results are hoisted too and nothing is copied. Extern
/// calls become plain calls first: the deallocation pipeline rejects ops with unknown effects.
pub const HOST_BUFFERIZE: &str = "one-shot-bufferize{bufferize-function-boundaries \
function-boundary-type-conversion=identity-layout-map},\
buffer-results-to-out-params{hoist-static-allocs=true},\
buffer-results-to-out-params{hoist-static-allocs=true modify-public-functions=true},\
umac-lower-call-extern,buffer-deallocation-pipeline";

/// The loop level both host engines start from, cleaned up.
pub const HOST_LOOPS: &[&str] = &[TOSA_TO_LINALG, HOST_BUFFERIZE, LOWER_TO_CF, "canonicalize,cse"];

/// From the host loop level to the llvm dialect, with bare pointers for memref arguments (all
/// static after specialization), so the entry is `void main(ptr in..., ptr out...)`.
pub const HOST_CF_TO_LLVM: &str = "finalize-memref-to-llvm,convert-func-to-llvm{use-bare-ptr-memref-call-conv=1},\
convert-to-llvm,reconcile-unrealized-casts";

/// Bufferization for firmware: results become out-parameters, allocations of static size are
/// hoisted out of loops and left for `umac-plan-memory` (no deallocation: nothing is allocated
/// at run time).
pub const FIRMWARE_BUFFERIZE: &str = "one-shot-bufferize{bufferize-function-boundaries \
function-boundary-type-conversion=identity-layout-map},\
buffer-results-to-out-params{hoist-static-allocs=true},\
buffer-results-to-out-params{hoist-static-allocs=true modify-public-functions=true},\
func.func(buffer-loop-hoisting),canonicalize,cse";

/// TOSA → fused loop nests (one output element per tile) on buffers in one planned workspace,
/// one function per operator: the executor's level, shared by firmware and the LLVM host engine.
pub const PLANNED_OPERATORS: [&str; 4] = [
    TOSA_TO_LINALG,
    "func.func(umac-fold-zero-points,umac-fold-padding),canonicalize,umac-tile-and-fuse,canonicalize,cse",
    FIRMWARE_BUFFERIZE,
    "umac-plan-memory,umac-outline-operators",
];

/// Firmware adds the border/interior split: fewer instructions per inference, at the price of
/// more code and a longer LLVM compile (the host engine, where compile time counts, skips it).
pub const SPLIT_BORDERS: &str = "func.func(umac-split-borders),canonicalize";

/// [`PLANNED_OPERATORS`] then [`SPLIT_BORDERS`]: the firmware operator level.
pub fn firmware_operators() -> String {
    format!("{},{SPLIT_BORDERS}", PLANNED_OPERATORS.join(","))
}

/// From the firmware operator level to the llvm dialect (bare-pointer arguments), with `index`
/// as an `index_bits` integer (32 on Cortex-M: address arithmetic in single registers): the
/// loops to `cf` ([`LOWER_TO_CF`]), then [`cf_to_llvm`].
pub fn firmware_to_llvm(index_bits: u32) -> String {
    format!("{LOWER_TO_CF},canonicalize,cse,{}", cf_to_llvm(index_bits))
}

/// From `cf`/`arith`/`memref` to the llvm dialect with bare-pointer arguments and `index` as an
/// `index_bits` integer. Each conversion is told the width: `convert-to-llvm` alone would use 64
/// bits for some patterns.
pub fn cf_to_llvm(index_bits: u32) -> String {
    let w = format!("index-bitwidth={index_bits}");
    format!(
        "finalize-memref-to-llvm{{{w}}},\
         convert-func-to-llvm{{use-bare-ptr-memref-call-conv=1 {w}}},convert-arith-to-llvm{{{w}}},\
         convert-cf-to-llvm{{{w}}},convert-index-to-llvm{{{w}}},convert-to-llvm,reconcile-unrealized-casts"
    )
}

/// `umac-lower-to-firmware-operators`: TOSA to planned, outlined operator functions.
pub const LOWER_TO_FIRMWARE_OPERATORS: PassInfo = PassInfo {
    name: "umac-lower-to-firmware-operators",
    summary: "Lower a static-shaped TOSA model to fused loop nests in a planned workspace, one function per operator",
    anchor: "builtin.module",
    options: &[],
    kind: PassKind::Pipeline(|_| firmware_operators()),
};

/// `umac-lower-to-firmware-llvm`: the whole firmware lowering to the llvm dialect.
pub const LOWER_TO_FIRMWARE_LLVM: PassInfo = PassInfo {
    name: "umac-lower-to-firmware-llvm",
    summary: "Lower a static-shaped TOSA model to the llvm dialect for firmware (planned workspace, AOT executor)",
    anchor: "builtin.module",
    options: &[OptionSpec {
        name: "index-bitwidth",
        kind: OptionKind::Int,
        default: "64",
        help: "bits of `index` in the llvm dialect: 32 for Cortex-M",
    }],
    kind: PassKind::Pipeline(|options| {
        format!("{},{}", firmware_operators(), firmware_to_llvm(options.int("index-bitwidth") as u32))
    }),
};

/// `umac-lower-to-host-loops`: a TOSA model with static shapes to the level of the Cranelift
/// engine: `func` + `cf` + `arith` + `math` + `memref`, results as out-parameters.
pub const LOWER_TO_HOST_LOOPS: PassInfo = PassInfo {
    name: "umac-lower-to-host-loops",
    summary: "Lower a static-shaped TOSA model to cf/arith/math/memref with results as out-parameters (host engines)",
    anchor: "builtin.module",
    options: &[],
    kind: PassKind::Pipeline(|_| HOST_LOOPS.join(",")),
};

/// `umac-lower-to-host-llvm`: the host loop level, then the llvm dialect with bare-pointer arguments.
pub const LOWER_TO_HOST_LLVM: PassInfo = PassInfo {
    name: "umac-lower-to-host-llvm",
    summary: "Lower a static-shaped TOSA model to the llvm dialect with bare-pointer memref arguments (LLVM host engine)",
    anchor: "builtin.module",
    options: &[],
    kind: PassKind::Pipeline(|_| format!("{},{HOST_CF_TO_LLVM}", HOST_LOOPS.join(","))),
};

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

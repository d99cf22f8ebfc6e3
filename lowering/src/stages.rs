//! The one list of stages every umac lowering is built from, with the points where
//! accelerators' passes run ([`Phase`]s, TVM's pass phases).
//!
//! A lowering is a list of [`Step`]s: pipeline text, or a [`Step::Hook`] where the passes an
//! accelerator registered for a phase go. The named pipelines of `umac-opt` are these lists with
//! the hooks empty; `umac compile` and `umac run` fill the hooks from the target string and run
//! (and, with `--print-pipeline`, print) the same text, so every compile replays as one
//! `umac-opt --pass-pipeline`.

use crate::{
    entry::{ENTRY_OPTION, SHAPES_OPTION},
    options::{OptionKind, OptionSpec, OptionValues, quote},
    registry::{PassInfo, PassKind},
};

/// Where in the compilation an accelerator's pass runs. Passes of one phase run in registration
/// order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Phase {
    /// On the whole TOSA model, before partitioning (TVM: `PRE_PARTITIONING`).
    PrePartition,
    /// On the whole model after partitioning: the backend's functions are outlined (TVM:
    /// `POST_PARTITIONING`).
    PostPartition,
    /// On each of the backend's functions after its strategies ran (its own ops, extern calls).
    PostLegalization,
    /// Loop IR phase 0 on each of the backend's functions: linalg on tensors (TVM: TIR phase 0).
    Loop0,
    /// Loop IR phase 1: after tiling and fusion, still on tensors.
    Loop1,
    /// Loop IR phase 2: on buffers, before memory planning.
    Loop2,
    /// Loop IR phase 3: after memory planning and the executor's outlining.
    Loop3,
    /// Low level: `cf`/`arith`/`memref` (extern calls lowered), just before the llvm dialect.
    LowLevel,
}

impl Phase {
    /// Every phase, in compilation order.
    pub const ALL: [Phase; 8] = [
        Phase::PrePartition,
        Phase::PostPartition,
        Phase::PostLegalization,
        Phase::Loop0,
        Phase::Loop1,
        Phase::Loop2,
        Phase::Loop3,
        Phase::LowLevel,
    ];

    /// Whether the phase's passes run on the whole module (else on each of the backend's
    /// functions, anchored on `func.func`).
    pub fn on_module(self) -> bool {
        matches!(self, Phase::PrePartition | Phase::PostPartition)
    }
}

/// One step of a lowering.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Passes in pipeline syntax, without the anchor: `canonicalize,cse`.
    Passes(String),
    /// Where accelerators' passes of a phase run.
    Hook(Phase),
}

fn passes(text: &str) -> Step {
    Step::Passes(text.to_string())
}

/// The graph optimizations every target gets, after the entry's shapes are static and before
/// accelerators partition the graph: several table lookups of one index and the arithmetic
/// combining them become one lookup (`umac-tabulate-lookups`: softmax's exponentials).
pub const GRAPH_OPTIMIZATIONS: &str = "func.func(umac-tabulate-lookups)";

/// TOSA → linalg/arith/tensor/scf on tensors, with `$rescale` lowering `tosa.apply_scale` (the
/// int8 rescale arithmetic) instead of leaving it behind; `arith`/`math` ops on tensors beside
/// TOSA (the f32 division TOSA lacks, which the `.tflite` reader writes for QUANTIZE) as
/// `linalg.generic`s; elementwise ops fused, and fused again
/// into each reader where recomputing them materializes fewer bytes (`umac-recompute-elementwise`);
/// a reduction that narrows its input and widens it again split at the narrow values
/// (`umac-narrow-reduction-inputs`).
macro_rules! tosa_to_linalg {
    ($rescale:literal) => {
        concat!(
            "func.func(umac-decompose-transpose-conv2d,tosa-optional-decompositions,tosa-make-broadcastable,",
            "tosa-to-scf,tosa-to-linalg-named,tosa-to-linalg,",
            $rescale,
            ",tosa-to-tensor,convert-elementwise-to-linalg,linalg-fuse-elementwise-ops,umac-recompute-elementwise,",
            "linalg-fuse-elementwise-ops,umac-narrow-reduction-inputs),canonicalize"
        )
    };
}

/// TOSA → linalg/arith/tensor/scf on tensors, the rescale in 64-bit integers.
pub const TOSA_TO_LINALG: &str = tosa_to_linalg!("tosa-to-arith{include-apply-rescale=true}");

/// [`TOSA_TO_LINALG`] with the rescale's arithmetic in 32-bit integers: on the halves of the
/// product where the shifts allow (`umac-apply-scale-32`), upstream's 32-bit form elsewhere. On a
/// CPU with vectors, a rescale of a channel loop then becomes vector code
/// (`umac-vectorize-elementwise-loops`); in 64-bit integers it would stay scalar.
const TOSA_TO_LINALG_32_BIT: &str =
    tosa_to_linalg!("umac-apply-scale-32,tosa-to-arith{include-apply-rescale=true use-32-bit=true}");

/// [`TOSA_TO_LINALG_32_BIT`] with rescales in the form Helium's `vqrdmulh` and `vrshl` compute.
const TOSA_TO_LINALG_HELIUM: &str =
    tosa_to_linalg!("umac-apply-scale-32{helium=true},tosa-to-arith{include-apply-rescale=true use-32-bit=true}");

/// Tensors → buffers, including function boundaries (identity layouts, so memref descriptors stay
/// plain), with deallocation of every temporary.
const BUFFERIZE: &str = "one-shot-bufferize{allow-return-allocs-from-loops bufferize-function-boundaries \
function-boundary-type-conversion=identity-layout-map unknown-type-conversion=identity-layout-map},umac-order-constant-globals,buffer-deallocation-pipeline";

/// linalg → loops → `cf`; `memref` with strided metadata expanded; `affine` gone; extern C calls
/// as calls of declared functions. For a CPU with `vectors`, per-pixel depthwise convolutions and
/// pooling get their channel loops innermost (`umac-channels-innermost`); then, their index
/// arithmetic moved out, int8 dot-product loops become vector loops
/// (`umac-vectorize-dot-products`) and channel loops too (`umac-vectorize-elementwise-loops`).
/// Helium's dot products and rescales are its own instructions (`{helium}`). For a
/// CPU with the DSP extension (`dsp`), int8 dot products take four products per step
/// (`umac-vectorize-dot-products{dsp}`).
fn lower_to_cf(options: OperatorOptions) -> String {
    // Plain vectors are the host's, which has no border split: its windows read through the
    // padding check keep their channel tiles' offsets, which the vector loops then take. With
    // registers wider than 128 bits, its rescales' 64-bit products are lanes too.
    let elementwise_host = match options.vector_bits {
        0 | 128 => "umac-vectorize-elementwise-loops{channel-offsets=true}".to_string(),
        bits => format!("umac-vectorize-elementwise-loops{{bits={bits} max-element-bits=64 channel-offsets=true}}"),
    };
    let (dot, elementwise) = if options.helium {
        ("umac-vectorize-dot-products{helium=true}", "umac-vectorize-elementwise-loops{helium=true}".to_string())
    } else {
        ("umac-vectorize-dot-products", elementwise_host)
    };
    let dsp_dot = if options.unroll {
        "umac-vectorize-dot-products{dsp=true unroll=true}"
    } else {
        "umac-vectorize-dot-products{dsp=true}"
    };
    let (interchange, vectorize) = if options.vectors {
        (
            "umac-channels-innermost,".to_string(),
            format!(",canonicalize,loop-invariant-code-motion,{dot},{elementwise}"),
        )
    } else if options.dsp {
        // The jammed tiles' output channels go inside their input channels (see `fold_and_fuse`).
        let jammed = if options.jams_dot_products() { "umac-channels-innermost{dot-products=true}," } else { "" };
        (jammed.to_string(), format!(",loop-invariant-code-motion,{dsp_dot}"))
    } else {
        (String::new(), String::new())
    };
    // No libm: float rounding as additions; exponentials, tanh, logarithms, sines and cosines as
    // polynomials.
    let rounding =
        if options.expand_rounding { ",umac-expand-rounding,umac-expand-exp-tanh,umac-expand-log-sin-cos" } else { "" };
    // Without an FPU LLVM calls libm for the float minimum and maximum (fminimumf) and square
    // roots (sqrtf): comparisons and selects, and Newton's steps, instead, whose arithmetic is
    // libgcc's soft-float helpers like the rest.
    let soft_float = if options.soft_float && !options.structured { ",arith-expand,umac-expand-sqrt" } else { "" };
    // Structured loops keep the accelerators' calls as `umac.call_extern` (a printer calls the
    // kernels itself).
    let (calls, end) = if options.structured {
        ("", ",arith-expand,canonicalize,cse")
    } else {
        ("umac-lower-call-extern,", ",convert-scf-to-cf")
    };
    format!(
        "{calls}func.func(umac-strided-copy-to-linalg,{interchange}convert-linalg-to-loops{vectorize}{rounding}{soft_float}),\
         convert-bufferization-to-memref,expand-strided-metadata,lower-affine{end}"
    )
}

/// From the operator level to structured loops (`scf`, `arith`, `memref` with static strides, no
/// `max`/`min` ops, accelerator calls as `umac.call_extern`), as the C printer of
/// `umac compile --emit=c` reads them.
pub fn operators_to_c_loops(options: OperatorOptions) -> Vec<Step> {
    vec![passes(&lower_to_cf(OperatorOptions { structured: true, ..options }))]
}

/// Everything left → the llvm dialect, ready for translation to LLVM IR.
const CF_TO_LLVM: &str = "finalize-memref-to-llvm,convert-to-llvm,reconcile-unrealized-casts";

/// Bufferization for host execution: results become caller-provided out-parameters (the
/// runtime owns inputs and outputs), every temporary is freed. Private functions (partitioned
/// ones) go first, so that their callers' results are hoisted too and nothing is copied. Extern
/// calls become plain calls first: the deallocation pipeline rejects ops with unknown effects.
const HOST_BUFFERIZE: &str = "one-shot-bufferize{allow-return-allocs-from-loops bufferize-function-boundaries \
function-boundary-type-conversion=identity-layout-map unknown-type-conversion=identity-layout-map},umac-order-constant-globals,\
buffer-results-to-out-params{hoist-static-allocs=true},\
buffer-results-to-out-params{hoist-static-allocs=true modify-public-functions=true},\
umac-lower-call-extern,buffer-deallocation-pipeline";

/// From the host loop level to the llvm dialect, with bare pointers for memref arguments (all
/// static after specialization), so the entry is `void main(ptr in..., ptr out...)`.
const HOST_CF_TO_LLVM: &str = "finalize-memref-to-llvm,convert-func-to-llvm{use-bare-ptr-memref-call-conv=1},\
convert-to-llvm,reconcile-unrealized-casts";

/// How many output channels a convolution's tile takes on a CPU with the DSP extension: their dot
/// products run side by side, each input word loaded and sign-extended once for all of them
/// (`umac-vectorize-dot-products{dsp}`).
const DSP_OUTPUT_CHANNELS: i64 = 2;

/// Zero points and padding folded into the accumulating ops, which are then fused with their
/// producers and consumer into per-element loop nests (per-pixel ones for the ops that compute
/// their channels apart, on a CPU with `vectors`). With `jam` (the DSP extension, where code may
/// grow for speed), a convolution's tile takes [`DSP_OUTPUT_CHANNELS`] channels (at `--opt=size`
/// IC on Cortex-M4 took 9.5 KB of .text so, 7.2 KB without). Where dot products run on vectors or
/// the DSP extension (`dsp`), convolutions over too few input channels for them read their
/// windows through per-pixel patches; with `spend_workspace` every convolution with a window
/// larger than 1x1 does, and every accumulating op is tiled by pixel.
fn fold_and_fuse(vectors: bool, dsp: bool, jam: bool, spend_workspace: bool) -> String {
    let im2col = vectors || dsp;
    let mut tile = match (vectors, spend_workspace) {
        (true, true) => "umac-tile-and-fuse{vectors=true pixels=true}",
        (true, false) => "umac-tile-and-fuse{vectors=true}",
        (false, true) => "umac-tile-and-fuse{pixels=true}",
        (false, false) => "umac-tile-and-fuse",
    }
    .to_string();
    if jam && !vectors {
        tile = format!("umac-tile-and-fuse{{output-channels={DSP_OUTPUT_CHANNELS}}}");
    }
    let (patches, rows) = match (im2col, spend_workspace) {
        (true, true) => ("umac-im2col{all-windows=true},", ",func.func(umac-collapse-window)"),
        (true, false) => ("umac-im2col,", ",func.func(umac-collapse-window)"),
        _ => ("", ""),
    };
    // Without vectors or the DSP extension a wide convolution's border split costs more than it
    // saves (see umac-fold-padding).
    let fold = if vectors || dsp { "umac-fold-padding" } else { "umac-fold-padding{wide-interiors=false}" };
    format!("func.func(umac-fold-zero-points,{patches}{fold}),canonicalize,{tile}{rows},canonicalize,cse")
}

/// Bufferization for firmware: results become out-parameters (a buffer copied whole into one at
/// the end, through a reshape, becomes a view of it: `umac-elide-output-copies`; one copied into a
/// contiguous part of another, a concat's operand, a view of that part: `umac-elide-slice-copies`), allocations of
/// static size are hoisted out of loops and left for `umac-plan-memory` (no deallocation:
/// nothing is allocated at run time). Every bufferization orders its constant globals by first
/// use (the same model gives the same bytes; upstream's order varies between runs when a module
/// has several functions).
const FIRMWARE_BUFFERIZE: &str = "one-shot-bufferize{allow-return-allocs-from-loops bufferize-function-boundaries \
function-boundary-type-conversion=identity-layout-map unknown-type-conversion=identity-layout-map},umac-order-constant-globals,\
buffer-results-to-out-params{hoist-static-allocs=true},\
buffer-results-to-out-params{hoist-static-allocs=true modify-public-functions=true},\
func.func(buffer-loop-hoisting),canonicalize,cse,umac-elide-output-copies,umac-elide-slice-copies";

/// One workspace, one function per operator: the AOT executor's shape.
const PLAN_AND_OUTLINE: &str = "umac-plan-memory,umac-outline-operators";

/// The border/interior split: fewer instructions per inference, at the price of more code and a
/// longer LLVM compile (the host engine, where compile time counts, skips it).
const SPLIT_BORDERS: &str = "func.func(umac-split-borders),canonicalize";

/// The Cranelift engine's level: `func` + `cf` + `arith` + `math` + `memref`, results as
/// out-parameters, every temporary allocated and freed.
pub fn host_loops() -> Vec<Step> {
    vec![
        passes(TOSA_TO_LINALG),
        Step::Hook(Phase::Loop0),
        Step::Hook(Phase::Loop1),
        passes(HOST_BUFFERIZE),
        Step::Hook(Phase::Loop2),
        Step::Hook(Phase::Loop3),
        passes(&lower_to_cf(OperatorOptions::default())),
        passes("canonicalize,cse"),
        Step::Hook(Phase::LowLevel),
    ]
}

/// What the operator level is built for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OperatorOptions {
    /// Split the loops around bounds-checked windows into borders and interior (firmware: fewer
    /// instructions for more code; the host engine, where compile time counts, skips it).
    pub split_borders: bool,
    /// The CPU has vector registers: ops computing their channels apart are tiled by pixel
    /// (their channels become vector lanes in [`operators_to_llvm`]).
    pub vectors: bool,
    /// Rescales in 32-bit arithmetic ([`TOSA_TO_LINALG_32_BIT`]), for CPUs with a one-instruction
    /// 32x32 → 64-bit multiply and no cheaper 64-bit arithmetic.
    pub rescale_32: bool,
    /// The CPU has the DSP extension (no vectors): int8 dot products four at a time in
    /// [`operators_to_llvm`].
    pub dsp: bool,
    /// Fully unroll DSP dot products over up to 128 channels (firmware, but for size: fewer
    /// instructions for more code; see `umac-vectorize-dot-products{unroll}`).
    pub unroll: bool,
    /// The vectors are Arm Helium's (MVE): int8 dot products are its multiply-accumulate-across
    /// (`vmladava`) on the loaded bytes, so that LLVM cannot separate the sign extension from it.
    pub helium: bool,
    /// Schedules that spend workspace for speed (the host engine, whose memory is not scarce):
    /// every convolution with a window larger than 1x1 reads it through per-pixel patches
    /// (`umac-im2col{all-windows}`), and every accumulating op is tiled by pixel, its int32
    /// accumulators in a buffer (`umac-tile-and-fuse{pixels}`). Firmware keeps its workspace at
    /// the liveness bound of one element per tile.
    pub spend_workspace: bool,
    /// The vector registers' width for elementwise loops (0: 128 bits, every vector CPU's); the
    /// host takes its widest (AVX-512: 512).
    pub vector_bits: u32,
    /// Float rounding to the nearest (even) integer, floor and ceil as plain float additions
    /// (`umac-expand-rounding`): a float model input quantized (TOSA's cast) rounds so, TFLite's
    /// FLOOR, CEIL, ROUND, FLOOR_DIV and CAST floor. For firmware, which links no libm and runs
    /// on FPUs without a rounding instruction (Cortex-M4's FPv4: LLVM would call `roundevenf`,
    /// `floorf`, `ceilf`). Exponentials and tanh (float sigmoids, softmaxes and LSTMs) become float
    /// arithmetic too (`umac-expand-exp-tanh`), and so do logarithms (float LOG, LOG_SOFTMAX),
    /// sines and cosines (`umac-expand-log-sin-cos`): firmware links no `expf`, `tanhf`, `logf`,
    /// `sinf` or `cosf`.
    pub expand_rounding: bool,
    /// Stop at structured loops (`scf`) for a printer of source code: no lowering to `cf`.
    pub structured: bool,
    /// The CPU has no floating-point unit (Cortex-M0+ and M3, RV32IM): float minimum and maximum
    /// become comparisons and selects (`arith-expand`), not calls of libm's `fminimumf`; the
    /// rest of float arithmetic calls libgcc's soft-float helpers.
    pub soft_float: bool,
}

impl OperatorOptions {
    /// Convolution tiles of [`DSP_OUTPUT_CHANNELS`] output channels whose dot products run side
    /// by side: the DSP extension, where code may grow for speed (not at `--opt=size`).
    fn jams_dot_products(&self) -> bool {
        self.dsp && self.unroll
    }
}

/// TOSA → fused loop nests (one output element per tile) on buffers in one planned workspace,
/// one function per operator: the executor's level, shared by firmware and the LLVM host engine.
pub fn planned_operators(options: OperatorOptions) -> Vec<Step> {
    let (split_borders, vectors) = (options.split_borders, options.vectors);
    let mut steps = vec![
        passes(match (options.rescale_32, options.helium) {
            (true, true) => TOSA_TO_LINALG_HELIUM,
            (true, false) => TOSA_TO_LINALG_32_BIT,
            _ => TOSA_TO_LINALG,
        }),
        Step::Hook(Phase::Loop0),
        passes(&fold_and_fuse(vectors, options.dsp, options.jams_dot_products(), options.spend_workspace)),
        Step::Hook(Phase::Loop1),
        passes(FIRMWARE_BUFFERIZE),
        Step::Hook(Phase::Loop2),
        passes(PLAN_AND_OUTLINE),
    ];
    if split_borders {
        steps.push(passes(SPLIT_BORDERS));
    }
    steps.push(Step::Hook(Phase::Loop3));
    steps
}

/// From the operator level to the llvm dialect (bare-pointer arguments), with `index` as an
/// `index_bits` integer (32 on Cortex-M: address arithmetic in single registers); for a CPU with
/// vectors or the DSP extension, int8 dot products and channel loops use them.
pub fn operators_to_llvm(index_bits: u32, options: OperatorOptions) -> Vec<Step> {
    vec![
        passes(&format!("{},canonicalize,cse", lower_to_cf(options))),
        Step::Hook(Phase::LowLevel),
        passes(&cf_to_llvm(index_bits)),
    ]
}

/// From `cf`/`arith`/`memref` to the llvm dialect with bare-pointer arguments and `index` as an
/// `index_bits` integer. Each conversion is told the width: `convert-to-llvm` alone would use 64
/// bits for some patterns.
fn cf_to_llvm(index_bits: u32) -> String {
    let w = format!("index-bitwidth={index_bits}");
    format!(
        "finalize-memref-to-llvm{{{w}}},\
         convert-func-to-llvm{{use-bare-ptr-memref-call-conv=1 {w}}},convert-arith-to-llvm{{{w}}},\
         convert-cf-to-llvm{{{w}}},convert-index-to-llvm{{{w}}},convert-to-llvm,reconcile-unrealized-casts"
    )
}

/// The pipeline text of `steps` with every hook empty.
pub fn text(steps: &[Step]) -> String {
    let parts: Vec<&str> = steps
        .iter()
        .filter_map(|step| match step {
            Step::Passes(text) => Some(text.as_str()),
            Step::Hook(_) => None,
        })
        .collect();
    parts.join(",")
}

/// The steps that make the entry function's dynamic dimensions static, for the given shapes
/// (`1x49x10x1`, one per argument); `None` when the entry is static already.
pub fn specialize_entry(entry: &str, shapes: Option<&[Vec<i64>]>) -> String {
    match shapes {
        Some(shapes) => {
            let shapes: Vec<String> =
                shapes.iter().map(|s| s.iter().map(i64::to_string).collect::<Vec<_>>().join("x")).collect();
            format!("umac-specialize-entry{{entry={} shapes={}}}", quote(entry), shapes.join(","))
        }
        None => "umac-resolve-slice-sizes".into(),
    }
}

/// `umac-specialize-entry`: the entry's dynamic dimensions made static, through the whole graph.
pub const SPECIALIZE_ENTRY: PassInfo = PassInfo {
    name: "umac-specialize-entry",
    summary: "Give the entry function static argument shapes and propagate them (shape inference, slices, results)",
    anchor: "builtin.module",
    options: &[ENTRY_OPTION, SHAPES_OPTION],
    kind: PassKind::Pipeline(|options: &OptionValues| {
        let entry = quote(options.string("entry"));
        format!(
            "umac-set-entry-shapes{{entry={entry} shapes={}}},func.func(tosa-infer-shapes),umac-resolve-slice-sizes,\
             umac-refine-entry-results{{entry={entry}}}",
            quote(options.string("shapes"))
        )
    }),
};

/// `umac-lower-to-firmware-operators`: TOSA to planned, outlined operator functions.
pub const LOWER_TO_FIRMWARE_OPERATORS: PassInfo = PassInfo {
    name: "umac-lower-to-firmware-operators",
    summary: "Lower a static-shaped TOSA model to fused loop nests in a planned workspace, one function per operator",
    anchor: "builtin.module",
    options: &[],
    kind: PassKind::Pipeline(|_| {
        text(&planned_operators(OperatorOptions { split_borders: true, ..Default::default() }))
    }),
};

/// `umac-lower-to-firmware-llvm`: the whole firmware lowering to the llvm dialect.
pub const LOWER_TO_FIRMWARE_LLVM: PassInfo = PassInfo {
    name: "umac-lower-to-firmware-llvm",
    summary: "Lower a static-shaped TOSA model to the llvm dialect for firmware (planned workspace, AOT executor)",
    anchor: "builtin.module",
    options: &[
        OptionSpec {
            name: "index-bitwidth",
            kind: OptionKind::Int,
            default: "64",
            help: "bits of `index` in the llvm dialect: 32 for Cortex-M",
        },
        OptionSpec {
            name: "vectors",
            kind: OptionKind::Bool,
            default: "false",
            help: "the CPU has Helium vectors: int8 dot products and depthwise/pooling channels become vector loops",
        },
        OptionSpec {
            name: "rescale-32",
            kind: OptionKind::Bool,
            default: "false",
            help: "rescales in 32-bit arithmetic (Cortex-M)",
        },
        OptionSpec {
            name: "dsp",
            kind: OptionKind::Bool,
            default: "false",
            help: "the CPU has the DSP extension (Cortex-M4/M7/M33): int8 dot products four at a time",
        },
        OptionSpec {
            name: "unroll-dot-products",
            kind: OptionKind::Bool,
            default: "true",
            help: "fully unroll DSP dot products over up to 128 channels (more code, fewer instructions)",
        },
        OptionSpec {
            name: "split-borders",
            kind: OptionKind::Bool,
            default: "true",
            help: "split bounds-checked windows into borders and an unchecked interior (more code, fewer instructions)",
        },
        OptionSpec {
            name: "expand-rounding",
            kind: OptionKind::Bool,
            default: "true",
            help: "round floats to integers in integer arithmetic (no libm call; FPUs without a rounding instruction)",
        },
        OptionSpec {
            name: "soft-float",
            kind: OptionKind::Bool,
            default: "false",
            help: "the CPU has no FPU: float minimum and maximum as compares and selects (no libm call)",
        },
    ],
    kind: PassKind::Pipeline(|options| {
        let bits = u32::try_from(options.int("index-bitwidth")).unwrap_or(0);
        let vectors = options.bool("vectors");
        let operators = OperatorOptions {
            split_borders: options.bool("split-borders"),
            unroll: options.bool("unroll-dot-products"),
            vectors,
            rescale_32: options.bool("rescale-32"),
            dsp: options.bool("dsp"),
            helium: vectors,
            spend_workspace: false,
            vector_bits: 0,
            expand_rounding: options.bool("expand-rounding"),
            structured: false,
            soft_float: options.bool("soft-float"),
        };
        text(&[planned_operators(operators), operators_to_llvm(bits, operators)].concat())
    }),
};

/// `umac-lower-to-host-loops`: a TOSA model with static shapes to the level of the Cranelift
/// engine: `func` + `cf` + `arith` + `math` + `memref`, results as out-parameters.
pub const LOWER_TO_HOST_LOOPS: PassInfo = PassInfo {
    name: "umac-lower-to-host-loops",
    summary: "Lower a static-shaped TOSA model to cf/arith/math/memref with results as out-parameters (host engines)",
    anchor: "builtin.module",
    options: &[],
    kind: PassKind::Pipeline(|_| text(&host_loops())),
};

/// `umac-lower-to-host-llvm`: the host loop level, then the llvm dialect with bare-pointer arguments.
pub const LOWER_TO_HOST_LLVM: PassInfo = PassInfo {
    name: "umac-lower-to-host-llvm",
    summary: "Lower a static-shaped TOSA model to the llvm dialect with bare-pointer memref arguments (LLVM host engine)",
    anchor: "builtin.module",
    options: &[],
    kind: PassKind::Pipeline(|_| text(&[host_loops(), vec![passes(HOST_CF_TO_LLVM)]].concat())),
};

/// `umac-lower-to-llvm`: a TOSA model to the llvm dialect.
pub const LOWER_TO_LLVM: PassInfo = PassInfo {
    name: "umac-lower-to-llvm",
    summary: "Lower a TOSA model to the llvm dialect (TOSA -> linalg -> bufferize -> loops -> cf -> llvm)",
    anchor: "builtin.module",
    options: &[],
    kind: PassKind::Pipeline(|_| {
        [TOSA_TO_LINALG, BUFFERIZE, &lower_to_cf(OperatorOptions::default()), CF_TO_LLVM].join(",")
    }),
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hooks_are_points_between_stages() {
        let steps = planned_operators(OperatorOptions { split_borders: true, ..Default::default() });
        let hooks: Vec<Phase> = steps
            .iter()
            .filter_map(|s| match s {
                Step::Hook(p) => Some(*p),
                Step::Passes(_) => None,
            })
            .collect();
        assert_eq!(hooks, [Phase::Loop0, Phase::Loop1, Phase::Loop2, Phase::Loop3]);
        assert!(
            text(&steps)
                .ends_with("umac-plan-memory,umac-outline-operators,func.func(umac-split-borders),canonicalize")
        );
        assert!(!text(&planned_operators(OperatorOptions::default())).contains("umac-split-borders"));
    }

    #[test]
    fn vector_cpus_rescale_in_32_bits() {
        // The two forms differ in the rescale's lowering only.
        let plain = TOSA_TO_LINALG.replace("tosa-to-arith{include-apply-rescale=true}", "");
        let wide = TOSA_TO_LINALG_32_BIT
            .replace("umac-apply-scale-32,tosa-to-arith{include-apply-rescale=true use-32-bit=true}", "");
        assert_eq!(plain, wide);
        let rescale_32 = OperatorOptions { rescale_32: true, ..Default::default() };
        assert!(text(&planned_operators(rescale_32)).contains("umac-apply-scale-32"));
        assert!(!text(&planned_operators(OperatorOptions::default())).contains("umac-apply-scale-32"));
    }

    #[test]
    fn patches_where_dot_products_run_on_vectors_or_the_dsp_extension() {
        let has =
            |options: OperatorOptions| text(&planned_operators(options)).contains("umac-im2col,umac-fold-padding");
        assert!(has(OperatorOptions { vectors: true, ..Default::default() }));
        assert!(has(OperatorOptions { dsp: true, ..Default::default() }));
        assert!(!text(&planned_operators(OperatorOptions::default())).contains("umac-im2col"));
    }

    #[test]
    fn dsp_dot_products_unrolled_but_for_size() {
        let lowered =
            |unroll: bool| text(&operators_to_llvm(32, OperatorOptions { dsp: true, unroll, ..Default::default() }));
        assert!(lowered(true).contains("umac-vectorize-dot-products{dsp=true unroll=true}"));
        assert!(lowered(false).contains("umac-vectorize-dot-products{dsp=true}"));
    }

    #[test]
    fn dsp_dot_products_of_two_output_channels_side_by_side_but_for_size() {
        let dsp = OperatorOptions { dsp: true, unroll: true, ..Default::default() };
        assert!(text(&planned_operators(dsp)).contains("umac-tile-and-fuse{output-channels=2}"));
        assert!(text(&operators_to_llvm(32, dsp)).contains("umac-channels-innermost{dot-products=true}"));
        let others = [
            OperatorOptions::default(),
            OperatorOptions { vectors: true, helium: true, unroll: true, ..Default::default() },
            OperatorOptions { dsp: true, unroll: false, ..Default::default() },
        ];
        for other in others {
            assert!(!text(&planned_operators(other)).contains("output-channels"));
            assert!(!text(&operators_to_llvm(32, other)).contains("dot-products=true"));
        }
    }

    #[test]
    fn helium_dot_products_only_on_helium() {
        let lowered = |options: OperatorOptions| text(&operators_to_llvm(32, options));
        let helium = OperatorOptions { vectors: true, helium: true, ..Default::default() };
        assert!(lowered(helium).contains("umac-vectorize-dot-products{helium=true}"));
        let host = OperatorOptions { vectors: true, ..Default::default() };
        assert!(lowered(host).contains("umac-vectorize-dot-products,"));
        assert!(!lowered(host).contains("helium"));
    }

    #[test]
    fn entry_specialization() {
        assert_eq!(specialize_entry("main", None), "umac-resolve-slice-sizes");
        assert_eq!(
            specialize_entry("main", Some(&[vec![2, 49, 10, 1], vec![1, 4]])),
            "umac-specialize-entry{entry=main shapes=2x49x10x1,1x4}"
        );
    }
}

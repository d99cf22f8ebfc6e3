//! Where the backend API meets a compilation: partitioning and legalization for a target
//! string, the backends' passes at each [`Phase`], lowering in stages with those phases in
//! between, and the extern C functions the result calls.

use super::{
    Phase, TargetSet,
    legalize::{functions_of, legalize},
    partition::{Placement, partition},
};
use melior::{
    Context,
    ir::{
        BlockLike, Module, OperationRef,
        operation::{OperationLike, WalkOrder, WalkResult},
    },
};
use umac_dialects::{
    text::{attribute_text, op_name},
    umac::{CALL_EXTERN, CALLEE_ATTR, string_value},
};
use umac_lowering::{
    build_pass_manager,
    pipelines::{LOWER_TO_CF, PLANNED_OPERATORS, SPLIT_BORDERS, cf_to_llvm},
};
use umac_runtime::kernels::Kernel;

/// Runs the passes the backends of `targets` registered for `phase`, backends in target-string
/// order, each backend's in registration order; function phases run on each of the backend's
/// functions only.
pub fn run_phase(context: &Context, module: &mut Module, targets: &TargetSet, phase: Phase) -> Result<(), String> {
    for configured in &targets.accelerators {
        let backend = configured.backend;
        for pass in backend.passes(&configured.attributes).into_iter().filter(|p| p.phase == phase) {
            let failed = |what: &str| format!("{} pass '{}' at {phase:?} {what}", backend.name(), pass.pipeline);
            if phase.on_module() {
                let manager =
                    build_pass_manager(context, &format!("builtin.module({})", pass.pipeline), "builtin.module")
                        .map_err(|e| failed(&format!("does not parse: {}", e.message)))?;
                manager.run(module).map_err(|_| failed("failed"))?;
            } else {
                for function in functions_of(module.as_operation(), backend.name()) {
                    run_on_function(context, function, &pass.pipeline).map_err(|e| failed(&e))?;
                }
            }
        }
    }
    Ok(())
}

/// Runs `pipeline` (pipeline text anchored on `func.func`) on `function` alone. The error says
/// whether it did not parse or failed.
pub fn run_on_function(context: &Context, function: OperationRef, pipeline: &str) -> Result<(), String> {
    let manager = build_pass_manager(context, &format!("func.func({pipeline})"), "func.func")
        .map_err(|e| format!("does not parse: {}", e.message))?;
    // SAFETY: the pass manager is anchored on func.func and `function` is a live func.func, which
    // outlives the run.
    let result = unsafe { mlir_sys::mlirPassManagerRunOnOp(manager.to_raw(), function.to_raw()) };
    if result.value == 0 { Err("failed".into()) } else { Ok(()) }
}

/// The accelerator steps at the start of a compilation: pre-partition passes, partitioning,
/// post-partition passes, each backend's legalization, post-legalization passes. Returns where
/// each op of the model runs (`cpu` for the rest).
pub fn partition_and_legalize(
    context: &Context,
    module: &mut Module,
    targets: &TargetSet,
) -> Result<Vec<Placement>, String> {
    run_phase(context, module, targets, Phase::PrePartition)?;
    let placements = partition(module.as_operation(), &targets.accelerators)?;
    run_phase(context, module, targets, Phase::PostPartition)?;
    for configured in &targets.accelerators {
        legalize(module.as_operation(), configured.backend, &configured.attributes).map_err(|e| {
            if e.is_empty() {
                format!("legalizing for {} failed (see the errors above)", configured.backend.name())
            } else {
                e
            }
        })?;
    }
    if !module.as_operation().verify() {
        return Err("the partitioned module does not verify (see the errors above)".into());
    }
    run_phase(context, module, targets, Phase::PostLegalization)?;
    Ok(placements)
}

/// One step of a lowering: a pipeline, then the backends' passes of a phase.
pub struct Stage<'p> {
    /// Pipeline text without the anchor.
    pub pipeline: &'p str,
    /// The phases whose passes run after it, in order.
    pub then: &'p [Phase],
}

/// Runs `stages` in order on `module` (with no accelerators, as one pipeline).
pub fn lower_in_stages(
    context: &Context,
    module: &mut Module,
    stages: &[Stage],
    targets: &TargetSet,
) -> Result<(), String> {
    let run = |module: &mut Module, pipeline: &str| -> Result<(), String> {
        let manager = build_pass_manager(context, &format!("builtin.module({pipeline})"), "builtin.module")
            .map_err(|e| e.message)?;
        manager.run(module).map_err(|_| "lowering the model failed".to_string())
    };
    if targets.accelerators.is_empty() {
        let all: Vec<&str> = stages.iter().map(|s| s.pipeline).filter(|p| !p.is_empty()).collect();
        return run(module, &all.join(","));
    }
    for stage in stages {
        if !stage.pipeline.is_empty() {
            run(module, stage.pipeline)?;
        }
        for phase in stage.then {
            run_phase(context, module, targets, *phase)?;
        }
    }
    Ok(())
}

/// TOSA to the executor's operator functions on a planned workspace (the upstream-MLIR stages of
/// [`PLANNED_OPERATORS`], and firmware's border split), with the loop-IR phases between them.
pub fn lower_to_operators(
    context: &Context,
    module: &mut Module,
    targets: &TargetSet,
    split_borders: bool,
) -> Result<(), String> {
    let [to_linalg, tiled, buffers, planned] = PLANNED_OPERATORS;
    let mut stages = vec![
        Stage { pipeline: to_linalg, then: &[Phase::Loop0] },
        Stage { pipeline: tiled, then: &[Phase::Loop1] },
        Stage { pipeline: buffers, then: &[Phase::Loop2] },
    ];
    if split_borders {
        stages.push(Stage { pipeline: planned, then: &[] });
        stages.push(Stage { pipeline: SPLIT_BORDERS, then: &[Phase::Loop3] });
    } else {
        stages.push(Stage { pipeline: planned, then: &[Phase::Loop3] });
    }
    lower_in_stages(context, module, &stages, targets)
}

/// The operator level to the llvm dialect with `index` as an `index_bits` integer, with the
/// low-level phase on `cf`.
pub fn lower_operators_to_llvm(
    context: &Context,
    module: &mut Module,
    targets: &TargetSet,
    index_bits: u32,
) -> Result<(), String> {
    let to_cf = format!("{LOWER_TO_CF},canonicalize,cse");
    let to_llvm = cf_to_llvm(index_bits);
    let stages = [Stage { pipeline: &to_cf, then: &[Phase::LowLevel] }, Stage { pipeline: &to_llvm, then: &[] }];
    lower_in_stages(context, module, &stages, targets)
}

/// The C functions `module` calls through `umac.call_extern` (or, after lowering, declares
/// without defining them), sorted.
pub fn extern_functions(module: &Module) -> Vec<String> {
    let mut names = std::collections::BTreeSet::new();
    module.as_operation().walk(WalkOrder::PreOrder, |op| {
        if op_name(&op) == CALL_EXTERN
            && let Ok(callee) = op.attribute(CALLEE_ATTR)
        {
            names.insert(attribute_text(callee).trim_start_matches('@').to_string());
        }
        WalkResult::Advance
    });
    let mut next = module.body().first_operation();
    while let Some(op) = next {
        next = op.next_in_block();
        let declaration = op.region(0).ok().and_then(|r| melior::ir::RegionLike::first_block(&r)).is_none();
        if let Some(name) = op.attribute("sym_name").ok().and_then(string_value) {
            if op_name(&op) == "func.func" && declaration {
                names.insert(name);
            } else {
                names.remove(&name);
            }
        }
    }
    names.into_iter().collect()
}

/// The kernels of `targets`' backends that `functions` names, or an error naming a function no
/// backend provides.
pub fn kernels_for(targets: &TargetSet, functions: &[String]) -> Result<Vec<Kernel>, String> {
    let available: Vec<Kernel> = targets.accelerators.iter().flat_map(|c| c.backend.kernels()).collect();
    functions
        .iter()
        .map(|f| {
            available.iter().find(|k| k.symbol == f).copied().ok_or_else(|| {
                format!(
                    "the model calls the C function {f}, which none of the targets provides (kernels: {})",
                    available.iter().map(|k| k.symbol).collect::<Vec<_>>().join(", ")
                )
            })
        })
        .collect()
}

//! Where the backend API meets a compilation: the accelerator steps of a pipeline for a target
//! string, the backends' passes in the phase hooks of umac's stages, and the C functions a
//! partitioned module calls.

use crate::{
    ConfiguredBackend, Error, Kernel, TargetSet,
    passes::{legalize_pass_name, primitives_pass_name, reference_pass_name, step_pass_name, to_llvm_pass_name},
};
use melior::ir::{
    Module, ValueLike,
    operation::{OperationLike, OperationResult, WalkOrder, WalkResult},
};
use umac_dialects::{
    ir::{has_body, integer_value, op_name, string_value, symbol_name, top_level_ops},
    location::file_line_cols,
    text::{attribute_text, type_text},
    umac::{CALL_EXTERN, CALLEE_ATTR, COMPOSITE_ATTR, TARGET_ATTR},
};
use umac_lowering::{Phase, Step, options::quote};

/// Where a partitioned model's accelerator work runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Runs {
    /// On the accelerators: every backend's strategies (`umac-legalize-<name>`).
    Accelerators,
    /// On the host: a backend with primitive ops, whose calls only its hardware runs, computes
    /// them by their reference lowering (`umac-reference-<name>`); the others' kernels are
    /// linked into the host program.
    Host,
}

/// A pass of `configured`'s with its attributes (`pass{attributes="..."}`), or plain without any.
fn with_attributes(configured: &ConfiguredBackend, pass: String) -> String {
    let attributes = configured.attribute_text();
    if attributes.is_empty() { pass } else { format!("{pass}{{attributes={}}}", quote(&attributes)) }
}

/// The steps before partitioning for `targets`' accelerators: the pre-partition hook, then each
/// accelerator's graph steps, `umac-<step>-<name>{attributes}`. Empty without accelerators.
/// What `umac-partition` will do is read after them (`partition::plan`).
pub fn pre_partition_steps(targets: &TargetSet) -> Vec<Step> {
    if targets.accelerators.is_empty() {
        return vec![];
    }
    let mut steps = vec![Step::Hook(Phase::PrePartition)];
    for configured in &targets.accelerators {
        for step in configured.backend.graph_steps() {
            steps.push(Step::Passes(with_attributes(configured, step_pass_name(configured.backend, step.name))));
        }
    }
    steps
}

/// The steps that partition and legalize a model for `targets`' accelerators, after
/// [`pre_partition_steps`]: `umac-partition`, the post-partition hook, each accelerator's
/// `umac-legalize-<name>` (for one with a dialect, after `umac-primitives-<name>` and the steps of
/// its schedules, `umac-<step>-<name>`, and before the passes over its kernels,
/// `umac-<step>-<name>`, and `umac-convert-<name>-to-llvm`, or on the host
/// `umac-reference-<name>` in its place), the post-legalization hook. Empty without accelerators.
pub fn accelerator_steps(targets: &TargetSet, runs: Runs) -> Vec<Step> {
    if targets.accelerators.is_empty() {
        return vec![];
    }
    let specs: Vec<String> = targets
        .accelerators
        .iter()
        .map(|c| format!("{} {}", c.backend.name(), c.attribute_text()).trim_end().to_string())
        .collect();
    let mut steps = vec![
        Step::Passes(format!("umac-partition{{targets={}}}", quote(&specs.join(",")))),
        Step::Hook(Phase::PostPartition),
    ];
    for configured in &targets.accelerators {
        let with_attributes = |pass: String| with_attributes(configured, pass);
        if configured.backend.dialect_ops().is_empty() {
            steps.push(Step::Passes(with_attributes(legalize_pass_name(configured.backend))));
            continue;
        }
        steps.push(Step::Passes(with_attributes(primitives_pass_name(configured.backend))));
        match runs {
            Runs::Accelerators => {
                for step in configured.backend.schedule_steps() {
                    steps.push(Step::Passes(with_attributes(step_pass_name(configured.backend, step.name))));
                }
                steps.push(Step::Passes(with_attributes(legalize_pass_name(configured.backend))));
                for step in configured.backend.kernel_steps() {
                    steps.push(Step::Passes(with_attributes(step_pass_name(configured.backend, step.name))));
                }
                steps.push(Step::Passes(to_llvm_pass_name(configured.backend)));
            }
            Runs::Host => steps.push(Step::Passes(reference_pass_name(configured.backend))),
        }
    }
    steps.push(Step::Hook(Phase::PostLegalization));
    steps
}

/// The pipeline text of the passes `targets`' backends registered for `phase`, backends in
/// target-string order, each backend's in registration order: module phases as they are,
/// function phases on the backend's functions only (`umac-on-target-functions`).
pub fn hook_text(targets: &TargetSet, phase: Phase) -> Vec<String> {
    let mut texts = Vec::new();
    for configured in &targets.accelerators {
        let backend = configured.backend;
        for pass in backend.passes(&configured.attributes).into_iter().filter(|p| p.phase == phase) {
            texts.push(if phase.on_module() {
                pass.pipeline
            } else {
                format!("umac-on-target-functions{{target={} pipeline={}}}", backend.name(), quote(&pass.pipeline))
            });
        }
    }
    texts
}

/// The pipeline text of `steps` with each hook filled for `targets`, one string per step (a hook
/// no backend uses gives nothing).
pub fn fill_hooks(steps: &[Step], targets: &TargetSet) -> Vec<String> {
    steps
        .iter()
        .filter_map(|step| {
            let text = match step {
                Step::Passes(text) => text.clone(),
                Step::Hook(phase) => hook_text(targets, *phase).join(","),
            };
            (!text.is_empty()).then_some(text)
        })
        .collect()
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
    for op in top_level_ops(module.as_operation()) {
        if let Some(name) = symbol_name(&op) {
            if op_name(&op) == "func.func" && !has_body(&op) {
                names.insert(name);
            } else {
                names.remove(&name);
            }
        }
    }
    names.into_iter().collect()
}

/// An accelerator's call in a legalized module, as `metadata.json` lists it.
#[derive(Clone, Debug, serde::Serialize)]
pub struct CallDescription {
    /// The target it runs on.
    pub target: String,
    /// The function it calls.
    pub callee: String,
    /// Where the ops of the composite it computes are (`file:line:col`).
    pub locations: Vec<String>,
    /// What the backend says of it ([`crate::Backend::describe_call`]).
    pub plan: serde_json::Value,
}

/// Every `umac.call_extern` in `module` (legalized for `targets`) whose backend describes it, in
/// module order.
pub fn describe_calls(module: &Module, targets: &TargetSet) -> Vec<CallDescription> {
    let mut calls = Vec::new();
    let functions = top_level_ops(module.as_operation());
    module.as_operation().walk(WalkOrder::PreOrder, |op| {
        if op_name(&op) != CALL_EXTERN {
            return WalkResult::Advance;
        }
        let function = op.parent_operation();
        let text = |name: &str| function.and_then(|f| f.attribute(name).ok()).and_then(string_value);
        let (Some(target), Some(callee)) = (text(TARGET_ATTR), op.attribute(CALLEE_ATTR).ok()) else {
            return WalkResult::Advance;
        };
        let Some(configured) = targets.accelerators.iter().find(|c| c.backend.name() == target) else {
            return WalkResult::Advance;
        };
        let operands: Vec<_> = (0..op.operand_count()).filter_map(|i| op.operand(i).ok()).collect();
        let scalars: Vec<Option<i64>> = operands.iter().map(|value| constant_of(*value)).collect();
        let callee = attribute_text(callee).trim_start_matches('@').to_string();
        // What the backend recorded of the kernel it defined, on the definition.
        let kernel = functions
            .iter()
            .find(|f| symbol_name(f).as_deref() == Some(callee.as_str()))
            .and_then(|f| crate::OpView::new(*f).int_dict(&crate::kernel_attribute(&target)))
            .and_then(Result::ok);
        let site = crate::ExternCallSite {
            callee,
            composite: text(COMPOSITE_ATTR).unwrap_or_default(),
            argument_types: operands.iter().map(|v| type_text(v.r#type())).collect(),
            kernel,
            constants: operands.iter().map(|v| crate::view::constant_ints(*v)).collect(),
        };
        if let Some(plan) = configured.backend.describe_call(&site, &scalars, &configured.attributes) {
            let at = file_line_cols(op.location());
            let locations = at.iter().map(|l| format!("{}:{}:{}", l.file, l.line, l.column));
            calls.push(CallDescription { target, callee: site.callee, locations: locations.collect(), plan });
        }
        WalkResult::Advance
    });
    calls
}

/// The integer `value` always is: a constant, or `arith.addi`, `muli` or `index_cast` of such
/// values (an address in an accelerator's memory, its allocated base plus an offset).
pub(crate) fn constant_of(value: melior::ir::Value) -> Option<i64> {
    let producer = OperationResult::try_from(value).ok()?.owner();
    let operand = |i: usize| producer.operand(i).ok().and_then(constant_of);
    match op_name(&producer).as_str() {
        "arith.constant" => producer.attribute("value").ok().and_then(integer_value),
        "arith.addi" => operand(0)?.checked_add(operand(1)?),
        "arith.muli" => operand(0)?.checked_mul(operand(1)?),
        "arith.index_cast" => operand(0),
        _ => None,
    }
}

/// The kernels of `targets`' backends that `functions` names, or an error naming a function no
/// backend provides.
pub fn kernels_for(targets: &TargetSet, functions: &[String]) -> Result<Vec<Kernel>, Error> {
    let available: Vec<Kernel> = targets.accelerators.iter().flat_map(|c| c.backend.kernels()).collect();
    functions
        .iter()
        .map(|f| {
            available.iter().find(|k| k.symbol == f).cloned().ok_or_else(|| {
                Error::Invalid(format!(
                    "the model calls the C function {f}, which none of the targets provides (kernels: {})",
                    available.iter().map(|k| k.symbol).collect::<Vec<_>>().join(", ")
                ))
            })
        })
        .collect()
}

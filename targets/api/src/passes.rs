//! The backend API's passes, registered into umac's pass registry so pipelines can name them:
//! `umac-partition{targets=...}` and one `umac-legalize-<target>` per backend, with
//! `umac-primitives-<target>`, `umac-reference-<target>` and `umac-convert-<target>-to-llvm` for a
//! backend with a dialect, and `umac-<step>-<target>` for each of its graph steps, each step of
//! its schedules (with `umac-schedule-<target>` running them all) and each pass over its kernels.

use crate::{
    Backend, ConfiguredBackend, Error, TargetAttrs, backend, legalize::legalize, partition::partition, primitive,
    schedule, target_string::parse_accelerators,
};
use melior::ir::OperationRef;
use umac_lowering::{
    PassInfo, PassKind,
    options::{OptionKind, OptionSpec, OptionValues},
    pass::{BoxedPass, UmacPass, boxed},
    register,
};

/// The registry entry of the partitioner.
pub const PARTITION: PassInfo = PassInfo {
    name: "umac-partition",
    summary: "Match the targets' composite patterns, outline each region into a function @<target>_<n> marked umac.target and umac.composite",
    anchor: "builtin.module",
    options: &[OptionSpec {
        name: "targets",
        kind: OptionKind::String,
        default: "",
        help: "accelerators in priority order, with attributes: \"vanilla -dimension=8\" (comma-separated)",
    }],
    kind: PassKind::Pass(create_partition),
};

/// The options of every `umac-legalize-<target>`.
const LEGALIZE_OPTIONS: &[OptionSpec] = &[OptionSpec {
    name: "attributes",
    kind: OptionKind::String,
    default: "",
    help: "the target's attributes as in a target string: \"-dimension=8\"",
}];

/// The name of `backend`'s legalization pass.
pub fn legalize_pass_name(backend: &dyn Backend) -> String {
    format!("umac-legalize-{}", backend.name())
}

/// The name of `backend`'s pass forming its primitive ops.
pub fn primitives_pass_name(backend: &dyn Backend) -> String {
    format!("umac-primitives-{}", backend.name())
}

/// The name of `backend`'s pass running every step of its schedules.
pub fn schedule_pass_name(backend: &dyn Backend) -> String {
    step_pass_name(backend, "schedule")
}

/// The name of `backend`'s pass for step `step` of its schedules.
pub fn step_pass_name(backend: &dyn Backend, step: &str) -> String {
    format!("umac-{step}-{}", backend.name())
}

/// The name of `backend`'s pass lowering its primitive ops to their reference.
pub fn reference_pass_name(backend: &dyn Backend) -> String {
    format!("umac-reference-{}", backend.name())
}

/// The name of `backend`'s pass lowering its dialect's low-level ops to the llvm dialect.
pub fn to_llvm_pass_name(backend: &dyn Backend) -> String {
    format!("umac-convert-{}-to-llvm", backend.name())
}

/// The constructor of a pass registered under several names.
type NamedFactory = fn(&str, &OptionValues) -> Result<BoxedPass, umac_lowering::Error>;

/// Registers the partitioner and the legalization of each of `backends` (and the passes of its
/// dialect).
pub(crate) fn register_passes(backends: &[&'static dyn Backend]) {
    register(PARTITION);
    // Registered names live as long as the process (the registry is static).
    let leak = |name: String| -> &'static str { Box::leak(name.into_boxed_str()) };
    // A step of a backend's: a pass on the module.
    let register_step = |name: String, summary: &'static str, options: &'static [OptionSpec], create: NamedFactory| {
        register(PassInfo {
            name: leak(name),
            summary,
            anchor: "builtin.module",
            options,
            kind: PassKind::Named(create),
        })
    };
    for backend in backends {
        register(PassInfo {
            name: leak(legalize_pass_name(*backend)),
            summary: "Lower the target's composites by its strategies (extern C calls, schedules, or the reference lowering)",
            anchor: "builtin.module",
            options: LEGALIZE_OPTIONS,
            kind: PassKind::Named(create_legalize),
        });
        for step in backend.graph_steps() {
            register_step(step_pass_name(*backend, step.name), step.summary, LEGALIZE_OPTIONS, create_graph_step);
        }
        if backend.dialect_ops().is_empty() {
            continue;
        }
        register(PassInfo {
            name: leak(primitives_pass_name(*backend)),
            summary: "Replace each of the target's composites by its primitive op (one job of the hardware)",
            anchor: "builtin.module",
            options: LEGALIZE_OPTIONS,
            kind: PassKind::Named(create_primitives),
        });
        if !backend.schedule_steps().is_empty() {
            register(PassInfo {
                name: leak(schedule_pass_name(*backend)),
                summary: "Attach the target's schedule of each composite as <target>.schedule, which legalization lowers: every step of it, in turn",
                anchor: "builtin.module",
                options: LEGALIZE_OPTIONS,
                kind: PassKind::Named(create_schedule),
            });
        }
        for step in backend.schedule_steps() {
            register_step(step_pass_name(*backend, step.name), step.summary, LEGALIZE_OPTIONS, create_step);
        }
        for step in backend.kernel_steps() {
            register_step(step_pass_name(*backend, step.name), step.summary, LEGALIZE_OPTIONS, create_kernel_step);
        }
        register(PassInfo {
            name: leak(reference_pass_name(*backend)),
            summary: "Lower the target's primitive ops to upstream ops (what they compute) and inline its functions back into their callers",
            anchor: "builtin.module",
            options: &[],
            kind: PassKind::Named(create_reference),
        });
        register(PassInfo {
            name: leak(to_llvm_pass_name(*backend)),
            summary: "Lower the target's low-level ops (the instructions its kernels are written in) to the llvm dialect",
            anchor: "builtin.module",
            options: &[],
            kind: PassKind::Named(create_to_llvm),
        });
    }
}

/// The accelerators to partition for.
struct Partition {
    backends: Vec<ConfiguredBackend>,
}

impl UmacPass for Partition {
    fn run(&mut self, operation: OperationRef) -> Result<(), umac_lowering::Error> {
        partition(operation, &self.backends).map(|_| ()).map_err(lowering_error)
    }
}

fn create_partition(options: &OptionValues) -> Result<BoxedPass, umac_lowering::Error> {
    let text = options.string("targets");
    if text.trim().is_empty() {
        let message = "targets= names no accelerator (e.g. umac-partition{targets=vanilla})";
        return Err(umac_lowering::Error::Invalid(message.into()));
    }
    boxed(Partition { backends: parse_accelerators(text).map_err(lowering_error)? })
}

/// One backend's pass: `work` on the module with the backend as the pass was configured.
struct OfBackend {
    target: ConfiguredBackend,
    work: fn(OperationRef, &ConfiguredBackend) -> Result<(), Error>,
}

impl UmacPass for OfBackend {
    fn run(&mut self, operation: OperationRef) -> Result<(), umac_lowering::Error> {
        (self.work)(operation, &self.target).map_err(lowering_error)
    }
}

/// The backend pass `name` (`<prefix><target><suffix>`) runs for, configured by the `attributes`
/// option.
fn configured(
    name: &str,
    (prefix, suffix): (&str, &str),
    options: &OptionValues,
) -> Result<ConfiguredBackend, umac_lowering::Error> {
    let target = name.trim_start_matches(prefix).trim_end_matches(suffix);
    if backend(target).is_none() {
        return Err(umac_lowering::Error::Invalid(format!("no backend named {target}")));
    }
    let spec = format!("{target} {}", options.string("attributes"));
    Ok(parse_accelerators(&spec).map_err(lowering_error)?.remove(0))
}

fn create_legalize(name: &str, options: &OptionValues) -> Result<BoxedPass, umac_lowering::Error> {
    let target = configured(name, ("umac-legalize-", ""), options)?;
    boxed(OfBackend { target, work: |op, t| legalize(op, t.backend, &t.attributes) })
}

fn create_primitives(name: &str, options: &OptionValues) -> Result<BoxedPass, umac_lowering::Error> {
    let target = configured(name, ("umac-primitives-", ""), options)?;
    boxed(OfBackend { target, work: |op, t| primitive::form_primitives(op, t.backend, &t.attributes) })
}

fn create_schedule(name: &str, options: &OptionValues) -> Result<BoxedPass, umac_lowering::Error> {
    let target = configured(name, ("umac-schedule-", ""), options)?;
    boxed(OfBackend { target, work: |op, t| schedule::attach_all(op, t.backend, &t.attributes) })
}

/// `umac-<step>-<target>`: one step of a backend's schedules.
struct Step {
    target: ConfiguredBackend,
    step: &'static str,
}

impl UmacPass for Step {
    fn run(&mut self, operation: OperationRef) -> Result<(), umac_lowering::Error> {
        schedule::attach_schedules(operation, self.target.backend, self.step, &self.target.attributes)
            .map_err(lowering_error)
    }
}

fn create_step(name: &str, options: &OptionValues) -> Result<BoxedPass, umac_lowering::Error> {
    // Target names are C identifiers: the target follows the last '-'.
    let (prefix, target) = name.rsplit_once('-').unwrap_or(("", name));
    let target = configured(target, ("", ""), options)?;
    let step = prefix.trim_start_matches("umac-");
    let step = target.backend.schedule_steps().iter().find(|s| s.name == step).map(|s| s.name).ok_or_else(|| {
        umac_lowering::Error::Invalid(format!("{} has no schedule step {step}", target.backend.name()))
    })?;
    boxed(Step { target, step })
}

/// `umac-<step>-<target>{attributes}`: a rewrite of the graph before partitioning.
struct GraphPass {
    target: ConfiguredBackend,
    run: fn(OperationRef, &TargetAttrs) -> Result<(), Error>,
}

impl UmacPass for GraphPass {
    fn run(&mut self, operation: OperationRef) -> Result<(), umac_lowering::Error> {
        (self.run)(operation, &self.target.attributes).map_err(lowering_error)
    }
}

fn create_graph_step(name: &str, options: &OptionValues) -> Result<BoxedPass, umac_lowering::Error> {
    let (prefix, target) = name.rsplit_once('-').unwrap_or(("", name));
    let target = configured(target, ("", ""), options)?;
    let step = prefix.trim_start_matches("umac-");
    let found = target.backend.graph_steps().iter().find(|s| s.name == step);
    let run = found
        .ok_or_else(|| umac_lowering::Error::Invalid(format!("{} has no graph step {step}", target.backend.name())))?
        .run;
    boxed(GraphPass { target, run })
}

/// `umac-<step>-<target>{attributes}`: a pass over a backend's kernels.
struct KernelPass {
    target: ConfiguredBackend,
    run: fn(OperationRef, &TargetAttrs) -> Result<(), Error>,
}

impl UmacPass for KernelPass {
    fn run(&mut self, operation: OperationRef) -> Result<(), umac_lowering::Error> {
        (self.run)(operation, &self.target.attributes).map_err(lowering_error)
    }
}

fn create_kernel_step(name: &str, options: &OptionValues) -> Result<BoxedPass, umac_lowering::Error> {
    let (prefix, target) = name.rsplit_once('-').unwrap_or(("", name));
    let target = configured(target, ("", ""), options)?;
    let step = prefix.trim_start_matches("umac-");
    let found = target.backend.kernel_steps().iter().find(|s| s.name == step);
    let run = found
        .ok_or_else(|| umac_lowering::Error::Invalid(format!("{} has no kernel step {step}", target.backend.name())))?
        .run;
    boxed(KernelPass { target, run })
}

fn create_reference(name: &str, options: &OptionValues) -> Result<BoxedPass, umac_lowering::Error> {
    let target = configured(name, ("umac-reference-", ""), options)?;
    boxed(OfBackend { target, work: |op, t| primitive::lower_to_reference(op, t.backend) })
}

fn create_to_llvm(name: &str, options: &OptionValues) -> Result<BoxedPass, umac_lowering::Error> {
    let target = configured(name, ("umac-convert-", "-to-llvm"), options)?;
    boxed(OfBackend { target, work: |op, t| primitive::convert_to_llvm(op, t.backend) })
}

/// An API error as a pass failure: reported ones stay reported, others are reported at the module.
fn lowering_error(error: Error) -> umac_lowering::Error {
    match error {
        Error::Reported => umac_lowering::Error::Reported,
        other => umac_lowering::Error::Invalid(other.to_string()),
    }
}

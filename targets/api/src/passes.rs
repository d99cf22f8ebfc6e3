//! The backend API's passes, registered into umac's pass registry so pipelines can name them:
//! `umac-partition{targets=...}` and one `umac-legalize-<target>` per backend.

use crate::{
    Backend, ConfiguredBackend, Error, backend, legalize::legalize, partition::partition,
    target_string::parse_accelerators,
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
    summary: "Match the targets' composite patterns, outline each region into func.func @<target>_<n> {umac.target, umac.composite}",
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

/// Registers the partitioner and the legalization of each of `backends`.
pub(crate) fn register_passes(backends: &[&'static dyn Backend]) {
    register(PARTITION);
    for backend in backends {
        // Registered names live as long as the process (the registry is static).
        let name: &'static str = Box::leak(legalize_pass_name(*backend).into_boxed_str());
        register(PassInfo {
            name,
            summary: "Lower the target's composites by its strategies (extern C calls, schedules, or the reference lowering)",
            anchor: "builtin.module",
            options: LEGALIZE_OPTIONS,
            kind: PassKind::Named(create_legalize),
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

struct Legalize {
    target: ConfiguredBackend,
}

impl UmacPass for Legalize {
    fn run(&mut self, operation: OperationRef) -> Result<(), umac_lowering::Error> {
        legalize(operation, self.target.backend, &self.target.attributes).map_err(lowering_error)
    }
}

fn create_legalize(name: &str, options: &OptionValues) -> Result<BoxedPass, umac_lowering::Error> {
    let target = name.trim_start_matches("umac-legalize-");
    if backend(target).is_none() {
        return Err(umac_lowering::Error::Invalid(format!("no backend named {target}")));
    }
    let spec = format!("{target} {}", options.string("attributes"));
    let target = parse_accelerators(&spec).map_err(lowering_error)?.remove(0);
    boxed(Legalize { target })
}

/// An API error as a pass failure: reported ones stay reported, others are reported at the module.
fn lowering_error(error: Error) -> umac_lowering::Error {
    match error {
        Error::Reported => umac_lowering::Error::Reported,
        other => umac_lowering::Error::Invalid(other.to_string()),
    }
}

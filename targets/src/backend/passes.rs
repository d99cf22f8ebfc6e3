//! The backend API's passes, registered into umac's pass registry so pipelines can name them:
//! `umac-partition{targets=...}` and one `umac-legalize-<target>` per backend.

use super::{ConfiguredBackend, backend, backends, legalize::legalize, parse_target_string, partition::partition};
use melior::{
    ir::{OperationRef, operation::OperationLike, r#type::TypeId},
    pass::{ExternalPass, Pass},
};
use std::sync::Once;
use umac_dialects::emit_error;
use umac_lowering::{
    PassInfo, PassKind,
    options::{OptionKind, OptionSpec, OptionValues},
    owned_pass::{OwnedPass, create_owned},
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

/// Registers the partitioner and every backend's legalization (once per process).
pub fn register_passes() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        register(PARTITION);
        for backend in backends() {
            // Registered names live as long as the process (the registry is static).
            let name: &'static str = Box::leak(format!("umac-legalize-{}", backend.name()).into_boxed_str());
            register(PassInfo {
                name,
                summary: "Lower the target's composites by its strategies (extern C calls, or the reference lowering)",
                anchor: "builtin.module",
                options: &[OptionSpec {
                    name: "attributes",
                    kind: OptionKind::String,
                    default: "",
                    help: "the target's attributes as in a target string: \"-dimension=8\"",
                }],
                kind: PassKind::Named(create_legalize),
            });
        }
    });
}

/// Pass identities: MLIR tells passes apart by these statics' addresses (8-byte aligned; not
/// zero-sized, so two of them never share an address).
#[repr(align(8))]
struct PassId(#[allow(dead_code)] u8);
static PARTITION_ID: PassId = PassId(0);
static LEGALIZE_ID: PassId = PassId(1);

/// The parsed option, or the error to report when the pass runs.
#[derive(Clone)]
struct Partition {
    backends: Result<Vec<ConfiguredBackend>, String>,
}

impl OwnedPass for Partition {
    fn run(&mut self, operation: OperationRef, pass: ExternalPass) {
        let result = self.backends.clone().and_then(|backends| partition(operation, &backends).map(|_| ()));
        if let Err(message) = result {
            emit_error(operation.location(), &format!("umac-partition: {message}"));
            pass.signal_failure();
        }
    }
}

fn create_partition(options: &OptionValues) -> Pass {
    let text = options.string("targets");
    let backends = if text.trim().is_empty() {
        Err("targets= names no accelerator (e.g. umac-partition{targets=vanilla})".to_string())
    } else {
        parse_target_string(text, &[]).map(|set| set.accelerators)
    };
    create_owned(
        Partition { backends },
        TypeId::create(&PARTITION_ID),
        "UmacPartition",
        PARTITION.name,
        PARTITION.summary,
        "builtin.module",
    )
}

#[derive(Clone)]
struct Legalize {
    target: Result<ConfiguredBackend, String>,
}

impl OwnedPass for Legalize {
    fn run(&mut self, operation: OperationRef, pass: ExternalPass) {
        let result = self.target.clone().and_then(|t| legalize(operation, t.backend, &t.attributes));
        if let Err(message) = result {
            // An empty message: the error was reported at the offending op.
            if !message.is_empty() {
                emit_error(operation.location(), &message);
            }
            pass.signal_failure();
        }
    }
}

fn create_legalize(name: &str, options: &OptionValues) -> Pass {
    let target = name.trim_start_matches("umac-legalize-");
    let spec = format!("{target} {}", options.string("attributes"));
    let parsed = match backend(target) {
        Some(_) => parse_target_string(&spec, &[]).map(|mut set| set.accelerators.remove(0)),
        None => Err(format!("no backend named {target}")),
    };
    create_owned(Legalize { target: parsed }, TypeId::create(&LEGALIZE_ID), "UmacLegalize", name, "", "builtin.module")
}

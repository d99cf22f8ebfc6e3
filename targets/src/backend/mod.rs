//! The accelerator integration API — TVM's UMA (RFC 0060) in Rust. An accelerator is one folder
//! under `targets/` implementing [`Backend`], plus one line in [`backends`]; umac then
//! partitions models for it (`umac-partition`), legalizes what it claimed (`umac-legalize-<name>`),
//! runs its passes at their phases, and links its kernels into host JIT runs and firmware.
//!
//! What a backend registers, and where the RFC has it:
//! - its name and typed [`TargetAttr`]s with defaults, set from the target string
//!   (`--target="vanilla -dimension=8,cortex-m55"`, see [`target_string`]);
//! - composite [`Pattern`]s (the RFC's `_register_pattern`), matched by the partitioner;
//! - [`PhasePass`]es (the RFC's `_register_relay_pass`/`_register_tir_pass`) at a [`Phase`];
//! - an operator [`Strategy`] per composite (the RFC's `_register_operator_strategy`): the
//!   reference lowering, a custom schedule, or an [`ExternCall`] of a C function in
//!   destination-passing style;
//! - codegen hooks: [`Backend::includes`] and [`Backend::replace_call_extern`] (the RFC's
//!   `_register_codegen(includes=..., replace_call_extern=...)`);
//! - configuration: [`Backend::merge_compiler_regions`].

pub mod flow;
pub mod legalize;
pub mod partition;
pub mod passes;
pub mod pattern;
pub mod target_string;
#[cfg(test)]
mod tests;

pub use pattern::{OpPattern, OpView, Operand, Pattern, TensorType, any_op, constant, op, wildcard};
pub use target_string::{
    AttrKind, AttrValue, ConfiguredBackend, TargetAttr, TargetAttrs, TargetSet, parse_target_string,
};
use umac_runtime::kernels::Kernel;

/// Where in the compilation a backend's pass runs. Passes of one phase run in registration order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
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

/// A pass a backend runs at a phase: pipeline text in `umac-opt` syntax (umac passes, upstream
/// passes, nests), without the anchor: `canonicalize,cse` or `func.func(my-pass)` for module phases.
#[derive(Clone, Debug)]
pub struct PhasePass {
    /// When it runs.
    pub phase: Phase,
    /// What runs.
    pub pipeline: String,
}

/// How a composite is lowered.
#[derive(Clone, Debug)]
pub enum Strategy {
    /// umac's own lowering of the composite's TOSA ops, on the CPU: the function is inlined back
    /// into its caller (a backend can claim ops before it has kernels for them).
    Reference,
    /// A custom schedule: this pipeline (`umac-opt` syntax, on the function: e.g.
    /// `tosa-to-linalg-named,tosa-to-linalg,linalg-generalize-named-ops`, tiling, a transform
    /// script) lowers the composite's function towards loop IR, which is then inlined back into
    /// its caller and compiled with the rest.
    Schedule(String),
    /// A call of a C function: the composite becomes `umac.call_extern`.
    Extern(ExternCall),
}

/// A destination-passing call of a C function: every input, then the composite's result buffer.
#[derive(Clone, Debug)]
pub struct ExternCall {
    /// The C symbol.
    pub callee: String,
    /// The arguments before the output, in order.
    pub arguments: Vec<ExternArg>,
}

/// One argument of an [`ExternCall`].
#[derive(Clone, Debug)]
pub enum ExternArg {
    /// Operand `index` of the composite's op with role `role` (a tensor), passed as a pointer to
    /// its first element (`const T *`).
    Operand {
        /// The op's role in the pattern.
        role: String,
        /// Which operand.
        index: usize,
    },
    /// A buffer of `len` zero elements of an integer type (`"i8"`, `"i32"`): what an absent
    /// optional operand is passed as.
    Zeros {
        /// Its element type.
        element: &'static str,
        /// How many elements.
        len: usize,
    },
    /// An `int32_t` known at compile time (a shape or an attribute).
    I32(i64),
}

/// What [`Backend::replace_call_extern`] puts in place of a call.
#[derive(Clone, Debug)]
pub enum Replacement {
    /// Call another C symbol with the same arguments (a specialized kernel, a driver entry).
    Symbol(String),
    /// Define the callee in the generated code: a `func.func @<callee>` in MLIR text taking the C
    /// form of the arguments (each buffer an `index` address, then the `i32`s); it is compiled into
    /// the object, so nothing external is called.
    Definition(String),
}

/// An extern call as the codegen hook sees it.
#[derive(Clone, Debug)]
pub struct ExternCallSite {
    /// The C symbol called.
    pub callee: String,
    /// The composite it computes.
    pub composite: String,
    /// The MLIR types of the arguments (inputs then outputs).
    pub argument_types: Vec<String>,
}

/// An accelerator (or any target that claims part of a model). See the module documentation.
pub trait Backend: Send + Sync {
    /// The name in target strings, `umac.target` and function names (`<name>_<n>`): a C identifier.
    fn name(&self) -> &'static str;

    /// The attributes the target string may set, with their types and defaults.
    fn attributes(&self) -> Vec<TargetAttr> {
        Vec::new()
    }

    /// The composite patterns, in priority order (an op goes to the first that matches).
    fn patterns(&self, attributes: &TargetAttrs) -> Vec<Pattern>;

    /// How each matched composite lowers. `composite` holds the ops the pattern matched, in
    /// pattern order (the root first, then the optional ops that were present).
    fn strategy(&self, composite: &Composite, attributes: &TargetAttrs) -> Result<Strategy, String>;

    /// The backend's passes, each with its phase.
    fn passes(&self, _attributes: &TargetAttrs) -> Vec<PhasePass> {
        Vec::new()
    }

    /// Text added to the generated C header (and so to every C source that includes it): the
    /// declarations or `#include`s of the backend's C functions.
    fn includes(&self) -> String {
        String::new()
    }

    /// Replaces an extern call at code generation; `None` keeps it.
    fn replace_call_extern(&self, _call: &ExternCallSite) -> Option<Replacement> {
        None
    }

    /// Whether adjacent regions of this backend (one consuming the other, with no op of another
    /// target between them) become one function.
    fn merge_compiler_regions(&self) -> bool {
        true
    }

    /// The C kernels this backend's calls need: linked into host JIT runs, and their sources for
    /// firmware builds.
    fn kernels(&self) -> Vec<Kernel> {
        Vec::new()
    }
}

/// The ops of one matched composite, for [`Backend::strategy`].
pub struct Composite<'c, 'a> {
    /// The pattern's name (`umac.composite`).
    pub pattern: String,
    /// The matched ops: the root, then each optional op that was present, tagged with the name
    /// the pattern gave it.
    pub ops: Vec<(String, OpView<'c, 'a>)>,
}

impl<'c, 'a> Composite<'c, 'a> {
    /// The matched op the pattern named `role` (its op name unless the pattern set a role), if present.
    pub fn get(&self, role: &str) -> Option<&OpView<'c, 'a>> {
        self.ops.iter().find(|(r, _)| r == role).map(|(_, op)| op)
    }

    /// The op whose result is the composite's result (the last one matched).
    pub fn last(&self) -> &OpView<'c, 'a> {
        &self.ops[self.ops.len() - 1].1
    }
}

/// Declares the accelerator folders and lists their backends: `name => "folder/mod.rs"`, each
/// folder's module exporting `pub static BACKEND`.
macro_rules! backends {
    ($($name:ident => $path:literal),* $(,)?) => {
        $(
            #[path = $path]
            pub mod $name;
        )*

        /// Every backend umac knows, in the order `--target` errors list them.
        pub fn backends() -> Vec<&'static dyn Backend> {
            vec![$(&$name::BACKEND),*]
        }
    };
}

// Adding an accelerator: its folder under `targets/`, and one line here.
backends! {
    vanilla => "../../vanilla/mod.rs",
}

/// Finds a backend by name.
pub fn backend(name: &str) -> Option<&'static dyn Backend> {
    backends().into_iter().find(|b| b.name() == name)
}

//! The accelerator integration API — TVM's UMA (RFC 0060) in Rust. An accelerator is one crate
//! under `targets/` implementing [`Backend`] (its Rust, its C kernels and headers, its lit
//! tests), plus one line in `targets/registry/Cargo.toml`; umac then partitions models for it
//! (`umac-partition`), legalizes what it claimed (`umac-legalize-<name>`), runs its passes at
//! their phases, and links its kernels into host JIT runs and ships them with firmware output.
//!
//! What a backend registers, and where the RFC has it:
//! - its name and typed [`TargetAttr`]s with defaults, set from the target string
//!   (`--target="vanilla -dimension=8,cortex-m55"`, see [`target_string`]);
//! - composite [`Pattern`]s (the RFC's `_register_pattern`), matched by the partitioner;
//! - [`PhasePass`]es (the RFC's `_register_relay_pass`/`_register_tir_pass`) at a [`Phase`], and
//!   passes of its own in Rust: [`GraphStep`]s before partitioning, with its attributes, and
//!   [`KernelStep`]s over the kernels its legalization defined;
//! - an operator [`Strategy`] per composite (the RFC's `_register_operator_strategy`): the
//!   reference lowering, a custom schedule, or an [`ExternCall`] of a C function in
//!   destination-passing style, checked against the [`Kernel`]'s C prototype;
//! - codegen hooks: [`Backend::includes`] and [`Backend::replace_call_extern`] (the RFC's
//!   `_register_codegen(includes=..., replace_call_extern=...)`);
//! - configuration: [`Backend::merge_compiler_regions`];
//! - optionally its own dialect ([`Backend::dialect_ops`]): primitive ops, what one job of the
//!   hardware computes, verified, formed from composites and lowered to a host reference, and
//!   low-level ops its kernels are written in, lowered to the llvm dialect; see [`primitive`].

pub mod cpu;
mod error;
pub mod flow;
pub mod kernel;
pub mod legalize;
pub mod partition;
pub mod passes;
pub mod pattern;
pub mod primitive;
pub mod schedule;
pub mod target_string;
#[cfg(test)]
mod tests;
mod view;

pub use cpu::{CPUS, Cpu, Machine};
pub use error::Error;
pub use kernel::{CType, Kernel, Param, SourceFile};
pub use pattern::{
    OpPattern, OpView, Operand, Pattern, TensorType, any_op, constant, op, requantize_to_int8, wildcard,
};
pub use primitive::{Primitive, PrimitiveArg};
pub use target_string::{
    AttrKind, AttrValue, ConfiguredBackend, TargetAttr, TargetAttrs, TargetSet, parse_target_string,
};
pub use umac_dialects::build::{Attr, Builder, Cmp, Ty, Value};
pub use umac_lowering::Phase;
pub use view::{IntEntries, constant_ints};

/// A pass a backend runs at a phase: pipeline text in `umac-opt` syntax (umac passes, upstream
/// passes, nests), without the anchor: `canonicalize,cse` or `func.func(my-pass)` for module phases.
#[derive(Clone, Debug)]
pub struct PhasePass {
    /// When it runs.
    pub phase: Phase,
    /// What runs.
    pub pipeline: String,
}

/// One step of a backend's schedules ([`Backend::schedule_steps`]): the pass
/// `umac-<name>-<backend>`.
#[derive(Clone, Copy, Debug)]
pub struct ScheduleStep {
    /// The step's name, a verb: `tile`.
    pub name: &'static str,
    /// What the pass does, for `umac-opt --help`.
    pub summary: &'static str,
}

/// A pass over the kernels a backend's legalization defined ([`Backend::kernel_steps`]): the
/// pass `umac-<name>-<backend>`, run on the module after `umac-legalize-<backend>` and before
/// `umac-convert-<backend>-to-llvm`, with the target's attributes (`{attributes="..."}`, as a
/// [`GraphStep`] takes them: the sizes of the memories it allocates), so it rewrites the kernels'
/// loops of copies and jobs while they are still written in the backend's low-level ops.
#[derive(Clone, Copy, Debug)]
pub struct KernelStep {
    /// The step's name, a verb phrase: `double-buffer`.
    pub name: &'static str,
    /// What the pass does, for `umac-opt --help`.
    pub summary: &'static str,
    /// The rewrite, on the module, for the target's attributes; an error reported at an op is
    /// [`Error::Reported`].
    pub run: fn(melior::ir::OperationRef, &TargetAttrs) -> Result<(), Error>,
}

/// A rewrite of the model's graph before partitioning ([`Backend::graph_steps`]): the pass
/// `umac-<name>-<backend>{attributes="..."}`, run on the module after the pre-partition hook and
/// before `umac-partition`, with the target's attributes, so it can shape the graph into what
/// the configured hardware takes (tynnp splits a convolution whose filter DM cannot hold into
/// convolutions on slices of its output channels) while the ops are still TOSA.
#[derive(Clone, Copy, Debug)]
pub struct GraphStep {
    /// The step's name, a verb phrase: `split-filters`.
    pub name: &'static str,
    /// What the pass does, for `umac-opt --help`.
    pub summary: &'static str,
    /// The rewrite, on the module, for the target's attributes; an error reported at an op is
    /// [`Error::Reported`].
    pub run: fn(melior::ir::OperationRef, &TargetAttrs) -> Result<(), Error>,
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

/// A destination-passing call of a C function: every input, then the composite's result buffer
/// (the last parameter). Each argument names the parameter of the kernel's prototype it binds;
/// legalization checks names, count and types against the [`Kernel`] the backend declares,
/// unless the backend defines the callee itself ([`ExternCall::defined_by`]).
#[derive(Clone)]
pub struct ExternCall {
    /// The C symbol (a [`Kernel`] of the backend's, one it defines, or replaced by
    /// [`Backend::replace_call_extern`]).
    pub callee: String,
    /// The arguments before the output, in order, each with its parameter's name.
    pub arguments: Vec<(String, ExternArg)>,
    /// The callee's definition, when the backend writes it in the generated code (compiled into
    /// the object, so nothing external is called): the builder holds `func.func private
    /// @<callee>` taking the C form of the arguments (each buffer an `index` address, each scalar
    /// an `i32`, the output's address last); [`Define`] writes its body (`return` follows) and
    /// may set its attributes, e.g. [`kernel_attribute`], which [`ExternCallSite::kernel`] reads
    /// back. Calls of one callee share the first call's definition, so the callee must name
    /// everything the definition depends on besides the arguments.
    pub definition: Option<std::sync::Arc<Define>>,
    /// The buffers of the accelerator's own memories the call uses ([`ExternRegion`]), which
    /// [`ExternArg::Address`] points into.
    pub regions: Vec<ExternRegion>,
    /// The regions free once the call returns (their `memref.dealloc` follows it).
    pub releases: Vec<String>,
}

/// A buffer in an accelerator's own memory (an on-chip buffer), shared by the calls of one
/// function that name it: `memref.alloc() : memref<<bytes>xi8, "<space>">` at the function's
/// entry (in the order first named), which the backend's kernel step allocates (tynnp's
/// `umac-allocate-dm-tynnp`) and its `umac-convert-<name>-to-llvm` gives an address. It lives from
/// the first call using it to the last, or to the call that releases it
/// ([`ExternCall::release`]), whichever is later.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExternRegion {
    /// What the function's calls name it.
    pub key: String,
    pub bytes: u64,
    /// Its memory space, `<backend>.<memory>` (tynnp's DM: `tynnp.dm`); empty for a static
    /// buffer of the calling processor ([`ExternCall::static_region`]).
    pub space: String,
}

impl ExternRegion {
    /// Whether it is a static buffer of the calling processor ([`ExternCall::static_region`]).
    pub fn is_static(&self) -> bool {
        self.space.is_empty()
    }
}

/// The ELF section of the static buffers extern calls share ([`ExternCall::static_region`]):
/// firmware places it in the data memory of the processor running the calls, next to it (the
/// tynnp control unit's DMEM, where umac's simulator puts it; a Cortex-M's DTCM).
pub const LOCAL_SECTION: &str = ".dmem";

/// What writes a defined callee's body ([`ExternCall::definition`]).
pub type Define = dyn Fn(&mut Builder) -> Result<(), Error> + Send + Sync;

impl ExternCall {
    /// A call of `callee` with no arguments yet.
    pub fn new(callee: &str) -> Self {
        ExternCall {
            callee: callee.to_string(),
            arguments: Vec::new(),
            definition: None,
            regions: Vec::new(),
            releases: Vec::new(),
        }
    }

    /// Adds the argument for parameter `name`.
    pub fn arg(mut self, name: &str, argument: ExternArg) -> Self {
        self.arguments.push((name.to_string(), argument));
        self
    }

    /// The callee defined by `define` ([`ExternCall::definition`]).
    pub fn defined_by(mut self, define: std::sync::Arc<Define>) -> Self {
        self.definition = Some(define);
        self
    }

    /// Names the region `key` of `bytes` in memory space `space` ([`ExternRegion`]): the same
    /// key in another call of the function is the same buffer (of the same bytes and space).
    pub fn region(mut self, key: &str, bytes: u64, space: &str) -> Self {
        if !self.regions.iter().any(|r| r.key == key) {
            self.regions.push(ExternRegion { key: key.to_string(), bytes, space: space.to_string() });
        }
        self
    }

    /// Names the region `key` of `bytes` in the memory of the processor running the calls, for
    /// what only that code reads and writes between calls: a static buffer of the function, an
    /// `llvm.mlir.global` (`@__umac_<function>_<key>`, word-aligned, zeroed) in the section
    /// [`LOCAL_SECTION`], whose address the calls take as a link-time constant. Unlike a buffer on
    /// the stack, it costs the function no frame and keeps no call from being a tail call;
    /// like the model's state, it makes the function not reentrant. A release frees nothing.
    pub fn static_region(self, key: &str, bytes: u64) -> Self {
        self.region(key, bytes, "")
    }

    /// The region `key` (named by this call) is free once the call returns.
    pub fn release(mut self, key: &str) -> Self {
        self.releases.push(key.to_string());
        self
    }
}

impl std::fmt::Debug for ExternCall {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.debug_struct("ExternCall")
            .field("callee", &self.callee)
            .field("arguments", &self.arguments)
            .field("defined", &self.definition.is_some())
            .field("regions", &self.regions)
            .field("releases", &self.releases)
            .finish()
    }
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
    /// The address (an `int32_t`) of byte `offset` of the region `region` the call names
    /// ([`ExternCall::region`]): `memref.extract_aligned_pointer_as_index` of its buffer plus
    /// `offset`, a constant once the backend allocated the region and lowered its address.
    Address {
        /// The region's key.
        region: String,
        /// Bytes into it.
        offset: i64,
    },
    /// Bytes the backend computed at compile time, e.g. weights packed in the layout its schedule
    /// chose: a read-only int8 constant (`const int8_t *`), so nothing is packed at run time.
    Bytes(Vec<u8>),
    /// Words the backend computed at compile time, e.g. a table its kernel indexes: a read-only
    /// int32 constant (`const int32_t *`), each word aligned.
    Words(Vec<i32>),
}

/// The attribute on a callee `backend` defines in which it records the kernel for
/// [`Backend::describe_call`] (`<backend>.kernel`, a dictionary; [`ExternCallSite::kernel`]).
pub fn kernel_attribute(backend: &str) -> String {
    format!("{backend}.kernel")
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
    /// What the backend recorded of a callee it defined: the entries of the [`kernel_attribute`]
    /// dictionary on the definition, as [`OpView::int_dict`] gives them (`None`: no such
    /// attribute, or a callee not defined yet).
    pub kernel: Option<IntEntries>,
    /// The values of each argument that is a constant buffer ([`ExternArg::Bytes`],
    /// [`ExternArg::Words`]), else `None`.
    pub constants: Vec<Option<Vec<i64>>>,
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
    /// An error says why the backend cannot lower it (reported at the composite).
    fn strategy(&self, composite: &Composite, attributes: &TargetAttrs) -> Result<Strategy, Error>;

    /// How each composite of one partitioned function lowers, given all of them in the order
    /// the function computes them: by default [`Backend::strategy`] of each. A backend that
    /// plans across the kernels of a function (on-chip memory they share, the next kernel's
    /// weights loaded during this one) overrides it; the result has one entry per composite.
    fn strategies(&self, composites: &[Composite], attributes: &TargetAttrs) -> Vec<Result<Strategy, Error>> {
        composites.iter().map(|composite| self.strategy(composite, attributes)).collect()
    }

    /// The rewrites of the graph before partitioning, in the order they run: each is a pass
    /// `umac-<step>-<name>` (see [`GraphStep`]), and a compile runs them, so its pipeline shows
    /// each. Empty by default.
    fn graph_steps(&self) -> &'static [GraphStep] {
        &[]
    }

    /// The steps that decide the schedules of its composites, in the order they run: each is a
    /// pass `umac-<step>-<name>` rewriting `<name>.schedule` (see [`schedule`]), and
    /// `umac-schedule-<name>` runs them all in turn. A compile runs the steps, so its pipeline
    /// shows each. Empty by default: nothing is scheduled before legalization.
    fn schedule_steps(&self) -> &'static [ScheduleStep] {
        &[]
    }

    /// The passes over its kernels once legalization defined them, in the order they run:
    /// each is a pass `umac-<step>-<name>` (see [`KernelStep`]), and a compile runs them, so its
    /// pipeline shows each. Empty by default.
    fn kernel_steps(&self) -> &'static [KernelStep] {
        &[]
    }

    /// Step `step` of the schedule of each composite of one function (given as to
    /// [`Backend::strategies`], each with what the steps before attached to it), as MLIR
    /// attribute text (a dictionary) that `umac-<step>-<name>` attaches to the composite's last
    /// op as `<name>.schedule`: how it runs on the hardware (tiles, on-chip buffers and their
    /// addresses, what stays on chip between kernels), decided before legalization so that it is
    /// IR a compiler engineer reads, replays and may edit. The backend's strategies then read it
    /// back from there, checked, and decide themselves for a composite without one. An error
    /// says why the composite cannot be scheduled (reported at it). `Ok(None)`, the default:
    /// nothing to attach (or what is attached stays).
    fn schedules(
        &self,
        _step: &str,
        composites: &[Composite],
        _attributes: &TargetAttrs,
    ) -> Vec<Result<Option<String>, Error>> {
        composites.iter().map(|_| Ok(None)).collect()
    }

    /// The backend's passes, each with its phase.
    fn passes(&self, _attributes: &TargetAttrs) -> Vec<PhasePass> {
        Vec::new()
    }

    /// Text added to the generated C header (and so to every C source that includes it): the
    /// `#include`s the backend's C functions need (umac writes their prototypes itself).
    fn includes(&self) -> String {
        String::new()
    }

    /// The C symbol to call in place of an extern call's callee at code generation (a
    /// specialized kernel, a driver entry); `None` keeps it.
    fn replace_call_extern(&self, _call: &ExternCallSite) -> Option<String> {
        None
    }

    /// What a call this backend's strategy made does with the accelerator's memories and how
    /// long it should take, for `metadata.json` (`None`: nothing to say). `scalars` holds the
    /// call's arguments, the compile-time integers as values and the buffers as `None`.
    fn describe_call(
        &self,
        _call: &ExternCallSite,
        _scalars: &[Option<i64>],
        _attributes: &TargetAttrs,
    ) -> Option<serde_json::Value> {
        None
    }

    /// The ops of the backend's dialect, `<name>.<op>` (see [`primitive`]): its primitive ops,
    /// one per kind of job, and any lower-level ops (instructions) its kernels are written in.
    /// Empty (the default): no dialect, composites go straight to their strategies.
    fn dialect_ops(&self) -> &'static [&'static str] {
        &[]
    }

    /// Checks one of the dialect's ops wherever MLIR verifies (types, shapes, the hardware's
    /// limits); the message is reported at the op.
    fn verify_primitive(&self, _op: &OpView) -> Result<(), Error> {
        Ok(())
    }

    /// The primitive op a composite becomes (`umac-primitives-<name>`); `None` keeps its ops.
    fn primitive(&self, _composite: &Composite, _attributes: &TargetAttrs) -> Result<Option<Primitive>, Error> {
        Ok(None)
    }

    /// What a primitive op computes in upstream ops (`umac-reference-<name>`): the ops `builder`
    /// writes in front of it (its arguments are the op's operands) and the values replacing its
    /// results. An error is reported at the op; it must come before anything is written.
    fn reference(&self, op: &OpView, _builder: &mut Builder) -> Result<Vec<Value>, Error> {
        Err(Error::Unsupported(format!("{} gives no reference lowering of {}", self.name(), op.name())))
    }

    /// What one of the dialect's low-level ops becomes in the llvm dialect
    /// (`umac-convert-<name>-to-llvm`, after legalization): the ops `builder` writes in front of
    /// it (its arguments are the op's operands) and the values replacing its results. `None`:
    /// not a low-level op (nothing written).
    fn lower_to_llvm(&self, _op: &OpView, _builder: &mut Builder) -> Option<Result<Vec<Value>, Error>> {
        None
    }

    /// Whether regions of this backend where one consumes the other or both read one value become
    /// one function (when no path leaves it through another target's op and comes back).
    fn merge_compiler_regions(&self) -> bool {
        true
    }

    /// The CPU the accelerator comes with, used when a target string names none (an NPU driven
    /// by its own control unit: `--target=tynnp` means `tynnp,rv32im`). `None` (the default)
    /// leaves the CPU to the command.
    fn cpu(&self) -> Option<&'static str> {
        None
    }

    /// The C kernels this backend's calls need: their prototypes (calls are checked against
    /// them, and the generated header declares them), their addresses (linked into host JIT
    /// runs) and their sources and headers (written beside firmware output).
    fn kernels(&self) -> Vec<Kernel> {
        Vec::new()
    }

    /// The device the simulator hosts for this accelerator, built for these attributes: what
    /// `umac run` on a simulated CPU and the cycle reports run the compiled code against. Its
    /// memories join the machine's map and its custom instructions or registers route to it;
    /// the machine knows no device by name. `None` (the default): the accelerator has none.
    fn device(&self, _attributes: &TargetAttrs) -> Result<Option<Box<dyn umac_sim::Device>>, Error> {
        Ok(None)
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

/// The backends umac was built with, in the order `--target` errors list them: set once by the
/// registry (`umac_targets::register`), read by target strings and the partitioner.
static BACKENDS: std::sync::OnceLock<Vec<&'static dyn Backend>> = std::sync::OnceLock::new();

/// Makes `backends` the known accelerators and registers their passes (`umac-partition`,
/// `umac-legalize-<name>`). The first call wins; later calls change nothing.
pub fn register_backends(backends: Vec<&'static dyn Backend>) {
    if BACKENDS.set(backends).is_ok() {
        primitive::add_dialects(self::backends());
        passes::register_passes(self::backends());
    }
}

/// Every registered backend (none before [`register_backends`]).
pub fn backends() -> &'static [&'static dyn Backend] {
    BACKENDS.get().map_or(&[], Vec::as_slice)
}

/// Finds a registered backend by name.
pub fn backend(name: &str) -> Option<&'static dyn Backend> {
    backends().iter().copied().find(|b| b.name() == name)
}

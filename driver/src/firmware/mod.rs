//! Firmware output: a model compiled ahead of time into one object file for a CPU, with a C
//! header and a metadata record, for linking into bare-metal firmware.
//!
//! The object exports one function, `int32_t N_run(const void *const inputs[],
//! void *const outputs[], void *workspace)`, the AOT executor: it calls the model's operator
//! functions (`N_op<k>_<kind>`, kept as separate local symbols for profiling) in order on
//! buffers at fixed offsets of the caller's workspace. Nothing is allocated at run time;
//! constants are in `.rodata`; the only external symbols code may reference are
//! `memcpy`/`memset`/`memmove` (and their AEABI spellings on Arm) and the C kernels of the
//! accelerators named in the target string (listed in the metadata, their sources written beside
//! the object by [`output::write`]), which [`compile`] checks.
//!
//! - [`header`] writes `N.h`, [`metadata`] `metadata.json`, [`checks`] inspects the object,
//!   [`output`] writes the self-contained output directory.

mod c_source;
pub mod checks;
pub mod header;
pub mod memory_plan;
pub mod metadata;
mod operators;
pub mod output;
pub mod report_html;

pub use metadata::set_quantization;
pub use operators::Operator;

use crate::{
    Error,
    llvm_object::{ObjectSpec, llvm_object},
    runner::{
        ACCELERATORS, CompilePipeline, ENTRY, EntrySteps, LLVM, Lowering, OPERATORS, Observe, PRE_PARTITION, Runner,
    },
    signature::{EntrySignature, TensorSig, dtype_of, entry_function, entry_signature},
};
use melior::{
    Context,
    ir::{Module, operation::OperationLike},
};
use umac_backend::{
    Cpu, Kernel, TargetSet,
    flow::{CallDescription, describe_calls, extern_functions, kernels_for},
    partition::{CPU, Placement},
};
use umac_codegen_llvm as llvm;
use umac_dialects::{
    ir::{find_function, integer_value},
    umac::{WORKSPACE_LOWER_BOUND_ATTR, WORKSPACE_SIZE_ATTR, is_c_identifier},
};
use umac_lowering::memory_pools::Pool;

/// Where the operator pipeline plans the workspace, which `--pool` gives its pools.
const PLAN_MEMORY: &str = "umac-plan-memory,";

/// What the user asked for.
#[derive(Clone, Debug)]
pub struct FirmwareOptions {
    /// The C identifier prefixing every symbol and macro.
    pub name: String,
    /// `--opt=size`: LLVM's `Os` instead of `O3`, no border split (`umac-split-borders`) and no
    /// unrolled DSP dot products (`umac-vectorize-dot-products{unroll}`).
    pub optimize_for_size: bool,
    /// Input shapes replacing dynamic dimensions (`--shape`); `None`: dynamic dimensions are 1.
    pub shapes: Option<Vec<Vec<i64>>>,
    /// `--max-workspace`: the most RAM the workspace may take.
    pub max_workspace: Option<u64>,
    /// `--max-flash`: the most bytes code and constants may take.
    pub max_flash: Option<u64>,
    /// The model's file name, recorded in the header and metadata.
    pub source: String,
    /// The SHA-256 of the model file (hex), recorded in the header and metadata when known.
    pub source_sha256: Option<String>,
    /// `--profile-hooks`: `N_run` calls weak `N_op_begin(k)`/`N_op_end(k)` around operator `k`.
    pub profile_hooks: bool,
    /// `--pool`: memories to split the workspace over (empty: one workspace).
    pub pools: Vec<Pool>,
    /// `--emit=c`: the model as C source (`N.c`) instead of an object.
    pub emit_c: bool,
    /// `--share-workspace-with`: other models (name, workspace bytes) whose workspace this one
    /// shares; the header defines `N_SHARED_WORKSPACE_SIZE`, the largest of them.
    pub shared_with: Vec<(String, u64)>,
    /// Accelerators the model is partitioned for first (from the target string).
    pub accelerators: TargetSet,
    /// What to show of the compile (`--mlir-print-ir-after-all`, `--emit-mlir`).
    pub observe: Observe,
    /// `--constants-section`: the ELF section of the model's constants (`None`: `.rodata`).
    pub constants_section: Option<String>,
}

/// A compiled model.
#[derive(Clone, Debug)]
pub struct Firmware {
    /// The object file (empty with `--emit=c`).
    pub object: Vec<u8>,
    /// With `--emit=c`, the C source instead.
    pub c_source: Option<String>,
    /// The C header.
    pub header: String,
    /// `metadata.json`.
    pub metadata: serde_json::Value,
    /// Workspace bytes the caller provides.
    pub workspace_size: u64,
    /// The most bytes of buffers alive at once.
    pub workspace_lower_bound: u64,
    /// Bytes of executable code.
    pub text_bytes: u64,
    /// Bytes of read-only data (constants).
    pub rodata_bytes: u64,
    /// Bytes of writable data: the model's state (TFLite's variable tensors and resource
    /// variables: an LSTM's or SVDF's state), which persists between calls; `N_reset_state()`
    /// resets it.
    pub state_bytes: u64,
    /// Bytes of the static buffers accelerators' calls share in the processor's own memory (the
    /// section `umac_backend::LOCAL_SECTION`, which firmware places there).
    pub local_bytes: u64,
    /// Bytes per loaded section of the object (`.text`, `.rodata`, the constants' own section).
    pub sections: Vec<(String, u64)>,
    /// The symbols the object needs from the firmware it is linked into, sorted.
    pub imports: Vec<String>,
    /// The specialized signature.
    pub signature: EntrySignature,
    /// The operator functions in execution order.
    pub operators: Vec<Operator>,
    /// The buffers of the workspace, with the operators using each.
    pub memory_plan: Vec<memory_plan::PlannedBuffer>,
    /// With `--pool`, each pool's bytes used, in the order given (the workspace parameters).
    pub pool_sizes: Vec<u64>,
    /// With `--pool`, the pools, in that order.
    pub pools: Vec<Pool>,
    /// Where each op of the model runs (empty without accelerators).
    pub placements: Vec<Placement>,
    /// The C kernels the object calls, to link into the firmware.
    pub kernels: Vec<Kernel>,
    /// The accelerators' calls their backends describe (on-chip plans, expected cycles).
    pub calls: Vec<CallDescription>,
    /// The CPU it was compiled for.
    pub cpu: Cpu,
}

/// The workspace alignment the header promises and the planner uses.
pub const WORKSPACE_ALIGNMENT: u64 = 16;

/// Turns a file stem into a C identifier: other characters become `_`, a leading digit gets a
/// `_` in front.
pub fn c_identifier(stem: &str) -> String {
    let mut id: String = stem.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect();
    if id.is_empty() || id.starts_with(|c: char| c.is_ascii_digit()) {
        id.insert(0, '_');
    }
    id
}

/// The compile pipeline [`compile`] runs for `module`'s `entry` (for `--print-pipeline`).
pub fn pipeline(module: &Module, entry: &str, cpu: Cpu, options: &FirmwareOptions) -> Result<CompilePipeline, Error> {
    plan(module, entry, cpu, options).map(|(_, pipeline)| pipeline)
}

/// The entry's signature and the pipeline that compiles it.
fn plan(
    module: &Module,
    entry: &str,
    cpu: Cpu,
    options: &FirmwareOptions,
) -> Result<(EntrySignature, CompilePipeline), Error> {
    let original = entry_signature(module, entry)?;
    let shapes = input_shapes(&original, options.shapes.as_deref())?;
    let steps = EntrySteps { rename: Some(&options.name), ..EntrySteps::new(entry, &original, &shapes) };
    // The border split copies loop nests: fewer instructions for more code, so not for size.
    let operators = umac_lowering::stages::OperatorOptions {
        split_borders: !options.optimize_for_size,
        unroll: !options.optimize_for_size,
        vectors: cpu.vectors,
        rescale_32: cpu.rescale_32,
        dsp: cpu.dsp,
        helium: cpu.vectors,
        // The workspace stays at the liveness bound.
        spend_workspace: false,
        expand_rounding: true,
        vector_bits: 0,
        structured: false,
        soft_float: !cpu.has_fpu(),
    };
    // C source: portable loops (no vector or DSP code), printed from the loop level.
    let operators = if options.emit_c {
        umac_lowering::stages::OperatorOptions { vectors: false, dsp: false, helium: false, unroll: false, ..operators }
    } else {
        operators
    };
    let lowering = Lowering::Firmware { index_bits: cpu.index_bits, operators };
    let mut pipeline = CompilePipeline::new(&steps, &options.accelerators, lowering);
    if let Some(part) = pipeline.parts.iter_mut().find(|part| part.name == OPERATORS) {
        if !options.pools.is_empty() {
            let specs: Vec<String> = options.pools.iter().map(Pool::spec).collect();
            let planned = format!("umac-plan-memory{{pools={}}},", specs.join(","));
            if !part.text.contains(PLAN_MEMORY) {
                return Err(Error::Compile("internal error: the operator pipeline plans no memory".into()));
            }
            part.text = part.text.replacen(PLAN_MEMORY, &planned, 1);
        }
        if options.profile_hooks {
            part.text.push_str(&format!(",umac-profile-hooks{{entry={}}}", options.name));
        }
    }
    if options.emit_c
        && let Some(part) = pipeline.parts.iter_mut().find(|part| part.name == LLVM)
    {
        part.text = umac_lowering::stages::text(&umac_lowering::stages::operators_to_c_loops(operators));
    }
    Ok((original, pipeline))
}

/// Compiles `module`'s `entry` for `cpu`. The module is lowered in place; MLIR's diagnostics
/// (unsupported ops, with their locations) go to `context`'s handlers.
pub fn compile(
    context: &Context,
    module: &mut Module,
    entry: &str,
    cpu: Cpu,
    options: &FirmwareOptions,
) -> Result<Firmware, Error> {
    let name = options.name.as_str();
    if !is_c_identifier(name) {
        return Err(Error::Usage(format!("--name '{name}' is not a C identifier")));
    }
    let (original, pipeline) = plan(module, entry, cpu, options)?;
    let fixed_batch = original.inputs.iter().any(TensorSig::is_dynamic) && options.shapes.is_none();
    for tensor in original.inputs.iter().chain(&original.outputs) {
        if dtype_of(tensor.element).is_none() {
            return Err(Error::Usage(format!(
                "tensor '{}' has an element type firmware output does not support ({})",
                tensor.name,
                tensor.describe()
            )));
        }
    }
    if name != entry && find_function(module.as_operation(), name).is_some() {
        return Err(Error::Usage(format!(
            "--name '{name}' clashes with function @{name} of the model; choose another name"
        )));
    }
    let runner = Runner::new(context, &pipeline, &options.observe);
    runner.run(module, ENTRY)?;
    let mut signature = entry_signature(module, name)?;
    for (new, old) in signature.inputs.iter_mut().zip(&original.inputs) {
        new.name.clone_from(&old.name);
    }
    for (new, old) in signature.outputs.iter_mut().zip(&original.outputs) {
        new.name.clone_from(&old.name);
    }
    let source_ops = operators::source_ops(module, name)?;

    let targets = &options.accelerators;
    runner.run(module, PRE_PARTITION)?;
    let mut placements = crate::placements(module, targets)?;
    for placement in &mut placements {
        if placement.target == CPU {
            placement.target = cpu.name.to_string();
        }
    }
    runner.run(module, ACCELERATORS)?;
    let kernels = kernels_for(targets, &extern_functions(module))?;
    let calls = describe_calls(module, targets);
    runner.run(module, OPERATORS)?;
    let (workspace_size, workspace_lower_bound) = workspace_attributes(module, name)?;
    // Checked as soon as the plan is made, before any code is generated.
    if let Some(limit) = options.max_workspace
        && workspace_size > limit
    {
        return Err(Error::Limit(format!(
            "the model needs a {workspace_size}-byte workspace, more than --max-workspace={limit} \
             (the buffers alive at the busiest point alone take {workspace_lower_bound} bytes)"
        )));
    }
    let operators = operators::operator_functions(module, name, &source_ops);
    let memory_plan = memory_plan::planned_buffers(module, name);
    let pool_sizes = memory_plan::pool_sizes(module, name);
    runner.run(module, LLVM)?;
    let (object, c_source, sizes) = if options.emit_c {
        let io = (signature.inputs.len(), signature.outputs.len());
        let (text, state) = c_source::c_source(module, name, &format!("{name}.h"), &operators, io)?;
        (Vec::new(), Some(text), checks::ObjectSizes { state, ..Default::default() })
    } else {
        let (object, sizes) = object_code(module, name, cpu, options, &operators, &kernels, &signature)?;
        (object, None, sizes)
    };
    let mut firmware = Firmware {
        object,
        c_source,
        header: String::new(),
        metadata: serde_json::Value::Null,
        workspace_size,
        workspace_lower_bound,
        text_bytes: sizes.text,
        rodata_bytes: sizes.rodata,
        state_bytes: sizes.state,
        local_bytes: sizes.local,
        imports: sizes.imports,
        sections: sizes.sections,
        signature,
        operators,
        memory_plan,
        pool_sizes,
        pools: options.pools.clone(),
        placements,
        kernels,
        calls,
        cpu,
    };
    firmware.header = header::header(&firmware, name, options, fixed_batch);
    firmware.metadata = metadata::metadata(&firmware, name, options, fixed_batch);
    Ok(firmware)
}

/// The object of the lowered `module` (the llvm dialect), its sizes checked against
/// `--max-flash`.
fn object_code(
    module: &Module,
    name: &str,
    cpu: Cpu,
    options: &FirmwareOptions,
    operators: &[Operator],
    kernels: &[Kernel],
    signature: &EntrySignature,
) -> Result<(Vec<u8>, checks::ObjectSizes), Error> {
    let run_symbol = format!("{name}_run");
    let reset_symbol = format!("{name}_reset_state");
    let operator_symbols: Vec<&str> = operators.iter().map(|o| o.function.as_str()).collect();
    let hooks = if options.profile_hooks { umac_dialects::umac::profile_hook_names(name).to_vec() } else { vec![] };
    let hooks: Vec<&str> = hooks.iter().map(String::as_str).collect();
    let spec = ObjectSpec {
        cpu,
        opt: if options.optimize_for_size { llvm::OptLevel::Size } else { llvm::OptLevel::Speed },
        entry: name,
        run_symbol: &run_symbol,
        inputs: signature.inputs.len(),
        outputs: signature.outputs.len(),
        keep: &operator_symbols,
        exports: &hooks,
        float_abi_neutral: true,
        dump_as: "firmware-optimized.ll",
        constants_section: options.constants_section.as_deref(),
        state_reset: Some(&reset_symbol),
    };
    let object = llvm_object(module, &spec)?;
    let sizes = checks::inspect_object(&object, kernels)?;
    // Constants placed in a section of their own (external flash) do not count against the
    // on-chip flash that --max-flash bounds.
    let placed: u64 = options
        .constants_section
        .as_deref()
        .map_or(0, |placed| sizes.sections.iter().filter(|(name, _)| name == placed).map(|(_, bytes)| bytes).sum());
    let flash = sizes.text + sizes.rodata - placed;
    if let Some(limit) = options.max_flash
        && flash > limit
    {
        let elsewhere = match &options.constants_section {
            Some(section) => format!("; the {placed} bytes of constants in {section} are not counted"),
            None => String::new(),
        };
        return Err(Error::Limit(format!(
            "the model needs {flash} bytes of flash ({} of code, {} of constants{elsewhere}), more than \
             --max-flash={limit}",
            sizes.text,
            sizes.rodata - placed
        )));
    }
    Ok((object, sizes))
}

fn input_shapes(signature: &EntrySignature, given: Option<&[Vec<i64>]>) -> Result<Vec<Vec<i64>>, Error> {
    match given {
        None => Ok(signature.inputs.iter().map(|t| t.shape.iter().map(|d| d.unwrap_or(1)).collect()).collect()),
        Some(shapes) => {
            if shapes.len() != signature.inputs.len() {
                return Err(Error::Usage(format!(
                    "--shape given for {} inputs, the model has {}",
                    shapes.len(),
                    signature.inputs.len()
                )));
            }
            for (shape, input) in shapes.iter().zip(&signature.inputs) {
                let fits = shape.len() == input.shape.len()
                    && shape.iter().zip(&input.shape).all(|(s, d)| *s > 0 && d.is_none_or(|d| d == *s));
                if !fits {
                    return Err(Error::Usage(format!(
                        "--shape {} does not fit input '{}' of type {}",
                        shape.iter().map(i64::to_string).collect::<Vec<_>>().join("x"),
                        input.name,
                        input.describe()
                    )));
                }
            }
            Ok(shapes.to_vec())
        }
    }
}

fn workspace_attributes(module: &Module, name: &str) -> Result<(u64, u64), Error> {
    let function = entry_function(module, name)?;
    let get = |attr: &str| function.attribute(attr).ok().and_then(integer_value).map(|v| v as u64);
    Ok((get(WORKSPACE_SIZE_ATTR).unwrap_or(0), get(WORKSPACE_LOWER_BOUND_ATTR).unwrap_or(0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers() {
        assert_eq!(c_identifier("model"), "model");
        assert_eq!(c_identifier("kws-model.v2"), "kws_model_v2");
        assert_eq!(c_identifier("1st"), "_1st");
        assert_eq!(c_identifier(""), "_");
        assert!(is_c_identifier("kws_1"));
        assert!(!is_c_identifier("1kws"));
        assert!(!is_c_identifier("a-b"));
    }
}

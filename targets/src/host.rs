//! Running a TOSA model on the host: check the inputs against the entry's signature, specialize
//! dynamic dimensions to the inputs' shapes, lower to loops, compile with an engine, run.

use crate::backend::{
    Phase, TargetSet,
    flow::{
        Stage, extern_functions, kernels_for, lower_in_stages, lower_operators_to_llvm, lower_to_operators,
        partition_and_legalize,
    },
    partition::Placement,
};
use melior::{
    Context,
    ir::{Module, operation::OperationLike},
};
use umac_codegen_cranelift::{EntryPoint, JitProgram, compile_jit};
use umac_dialects::umac::{WORKSPACE_SIZE_ATTR, integer_value};
use umac_lowering::{
    entry::{
        Element, EntrySignature, Intermediate, TensorSig, entry_signature, expose_intermediates, find_entry,
        specialize_entry, strip_argument_attributes,
    },
    pipelines::{HOST_BUFFERIZE, LOWER_TO_CF, TOSA_TO_LINALG},
};
use umac_runtime::{DType, Tensor};

/// Which compiler turns the loop-level IR into machine code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// The reference engine: Cranelift, fast to compile.
    Cranelift,
    /// LLVM with its O3 middle end for the host CPU: fast code.
    Llvm,
}

/// Every engine, for tests and `--engine both`.
pub const ENGINES: &[Engine] = &[Engine::Cranelift, Engine::Llvm];

impl Engine {
    /// The name users write (`--engine cranelift`).
    pub fn name(self) -> &'static str {
        match self {
            Engine::Cranelift => "cranelift",
            Engine::Llvm => "llvm",
        }
    }
}

/// Why a model could not be run.
#[derive(Debug, thiserror::Error)]
pub enum HostError {
    /// The inputs do not fit the model's entry function.
    #[error("{0}")]
    Inputs(String),
    /// The model could not be compiled; MLIR diagnostics were emitted with the details.
    #[error("{0}")]
    Compile(String),
}

/// The runtime type of a signature element: the container both engines store it in (an `i48`
/// lives in 8 bytes, so it is exchanged as int64, sign-extended).
pub fn dtype_of(element: Element) -> Option<DType> {
    Some(match element {
        Element::Int { bits: 1, .. } => DType::Bool,
        Element::Int { bits: 8, unsigned: true } => DType::U8,
        Element::Int { bits: 2..=8, .. } => DType::I8,
        Element::Int { bits: 9..=16, .. } => DType::I16,
        Element::Int { bits: 17..=32, .. } => DType::I32,
        Element::Int { bits: 33..=64, .. } => DType::I64,
        Element::F32 => DType::F32,
        Element::F64 => DType::F64,
        Element::Int { .. } => return None,
    })
}

/// Sign-extends integers narrower than their container (LLVM stores an `i48` in 6 of its 8 bytes).
fn sign_extend_odd_widths(tensor: &mut Tensor, element: Element) {
    let Element::Int { bits, unsigned: false } = element else { return };
    let size = tensor.dtype.size();
    let container = size as u32 * 8;
    if bits == 1 || bits >= container {
        return;
    }
    let shift = 64 - bits;
    for chunk in tensor.data.chunks_exact_mut(size) {
        let mut raw = [0u8; 8];
        raw[..size].copy_from_slice(chunk);
        let value = ((u64::from_le_bytes(raw) << shift) as i64) >> shift;
        chunk.copy_from_slice(&value.to_le_bytes()[..size]);
    }
}

/// Checks `inputs` against the signature: count, element type and every static dimension.
/// Returns the concrete shapes.
pub fn check_inputs(signature: &EntrySignature, inputs: &[Tensor]) -> Result<Vec<Vec<i64>>, HostError> {
    if inputs.len() != signature.inputs.len() {
        let expected: Vec<String> = signature.inputs.iter().map(|t| format!("{} ({})", t.name, t.describe())).collect();
        return Err(HostError::Inputs(format!(
            "the model takes {} input(s), {} given: {}",
            signature.inputs.len(),
            inputs.len(),
            expected.join(", ")
        )));
    }
    signature
        .inputs
        .iter()
        .zip(inputs)
        .enumerate()
        .map(|(i, (sig, tensor))| {
            let at = format!("input #{i} ({})", sig.name);
            let expected = dtype_of(sig.element)
                .ok_or_else(|| HostError::Inputs(format!("{at}: element type {} cannot be fed", sig.describe())))?;
            if tensor.dtype != expected {
                return Err(HostError::Inputs(format!(
                    "{at}: expected {expected} ({}), given {}",
                    sig.describe(),
                    tensor.dtype
                )));
            }
            let fits = tensor.shape.len() == sig.shape.len()
                && sig.shape.iter().zip(&tensor.shape).all(|(want, got)| want.is_none_or(|w| w == *got as i64));
            if !fits {
                return Err(HostError::Inputs(format!(
                    "{at}: expected shape {}, given {}",
                    sig.describe(),
                    tensor.shape_text()
                )));
            }
            Ok(tensor.shape.iter().map(|&d| d as i64).collect())
        })
        .collect()
}

/// A model compiled for the host, ready to run on tensors of the shapes it was specialized to.
pub struct HostProgram {
    engine: Engine,
    signature: EntrySignature,
    program: Program,
    /// The model's own outputs come first; these follow them (with `intermediates` compiled in).
    intermediates: Vec<Intermediate>,
    /// Bytes of the planned workspace the entry takes (0 when it plans none).
    workspace_size: u64,
    /// Where each op of the model runs (empty without accelerators).
    placements: Vec<Placement>,
}

/// What to compile besides the model itself.
#[derive(Clone, Default)]
pub struct CompileOptions {
    /// Also return every op's result (after the model's outputs), for `--dump-intermediates`
    /// and engine comparisons.
    pub intermediates: bool,
    /// Accelerators to partition the model for (their kernels run on the host); the CPU, if the
    /// target string names one, is ignored: the host runs the rest.
    pub targets: TargetSet,
}

enum Program {
    Cranelift(Box<JitProgram>),
    Llvm(umac_codegen_llvm::JitProgram),
}

impl HostProgram {
    /// The engine that compiled it.
    pub fn engine(&self) -> Engine {
        self.engine
    }

    /// The (specialized, static) signature; its outputs include the intermediates, if any.
    pub fn signature(&self) -> &EntrySignature {
        &self.signature
    }

    /// The intermediates returned after the model's outputs (empty unless compiled in).
    pub fn intermediates(&self) -> &[Intermediate] {
        &self.intermediates
    }

    /// Where each op of the model runs (empty without accelerators).
    pub fn placements(&self) -> &[Placement] {
        &self.placements
    }

    /// How many of the outputs are the model's own.
    pub fn model_outputs(&self) -> usize {
        self.signature.outputs.len() - self.intermediates.len()
    }

    /// Runs the model; `inputs` must have the shapes it was compiled for.
    pub fn run(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>, HostError> {
        let shapes = check_inputs(&self.signature, inputs)?;
        let specialized: Vec<Vec<i64>> =
            self.signature.inputs.iter().map(|t| t.shape.iter().map(|d| d.unwrap_or(-1)).collect()).collect();
        if shapes != specialized {
            return Err(HostError::Inputs("the inputs' shapes differ from those the program was compiled for".into()));
        }
        let mut outputs: Vec<Tensor> = self.signature.outputs.iter().map(output_tensor).collect::<Result<_, _>>()?;
        let input_ptrs: Vec<*const u8> = inputs.iter().map(|t| t.data.as_ptr()).collect();
        let output_ptrs: Vec<*mut u8> = outputs.iter_mut().map(|t| t.data.as_mut_ptr()).collect();
        // 16-byte aligned, as the plan assumes.
        let mut workspace = vec![0u128; (self.workspace_size as usize).div_ceil(16).max(1)];
        // SAFETY: every pointer points at a buffer of exactly the size and element type of the
        // corresponding (static) argument, checked above, and the workspace has the planned size;
        // the program outlives the call.
        let status = unsafe {
            let entry = match &self.program {
                Program::Cranelift(p) => p.entry(),
                Program::Llvm(p) => p.entry(),
            };
            entry(input_ptrs.as_ptr(), output_ptrs.as_ptr(), workspace.as_mut_ptr().cast())
        };
        if status != 0 {
            return Err(HostError::Compile(format!("the model returned status {status}")));
        }
        for (tensor, sig) in outputs.iter_mut().zip(&self.signature.outputs) {
            sign_extend_odd_widths(tensor, sig.element);
        }
        Ok(outputs)
    }
}

fn output_tensor(sig: &TensorSig) -> Result<Tensor, HostError> {
    let dtype = dtype_of(sig.element)
        .ok_or_else(|| HostError::Compile(format!("output {} has an unsupported element type", sig.name)))?;
    let shape: Vec<usize> = sig.shape.iter().map(|d| d.unwrap_or(0) as usize).collect();
    Ok(Tensor::zeros(dtype, &shape))
}

/// Compiles `module`'s `entry` for inputs shaped like `inputs` with `engine`. The module is
/// lowered in place. Errors from MLIR are also emitted as diagnostics on `context`.
pub fn compile(
    context: &Context,
    module: &mut Module,
    entry: &str,
    inputs: &[Tensor],
    engine: Engine,
    options: CompileOptions,
) -> Result<HostProgram, HostError> {
    let lowered = lower(context, module, entry, inputs, engine, &options)?;
    let outputs = lowered.signature.outputs.len();
    let symbols: Vec<(&str, usize)> = lowered.kernels.iter().map(|k| (k.symbol, k.address)).collect();
    let program = match engine {
        Engine::Cranelift => {
            let point =
                EntryPoint { function: entry.to_string(), symbol: ENTRY_SYMBOL.into(), inputs: inputs.len(), outputs };
            Program::Cranelift(Box::new(
                compile_jit(module, &point, &symbols).map_err(|e| HostError::Compile(e.to_string()))?,
            ))
        }
        Engine::Llvm => Program::Llvm(
            umac_codegen_llvm::JitProgram::load(
                &llvm_object(module, entry, inputs.len(), outputs)?,
                ENTRY_SYMBOL,
                &symbols,
            )
            .map_err(|e| HostError::Compile(e.to_string()))?,
        ),
    };
    Ok(HostProgram {
        engine,
        signature: lowered.signature,
        program,
        intermediates: lowered.intermediates,
        workspace_size: lowered.workspace_size,
        placements: lowered.placements,
    })
}

/// The entry wrapper's symbol in host programs and objects:
/// `int32_t __umac_run(const void *const inputs[], void *const outputs[], void *workspace)`;
/// the workspace (16-byte aligned) has the size [`HostObject::workspace_size`] gives.
pub const ENTRY_SYMBOL: &str = "__umac_run";

/// A host object and what its caller needs to know.
pub struct HostObject {
    /// The object file.
    pub object: Vec<u8>,
    /// The specialized signature.
    pub signature: EntrySignature,
    /// Bytes of the workspace the entry takes.
    pub workspace_size: u64,
}

/// Compiles `module`'s `entry` for inputs shaped like `inputs` into a position-independent host
/// object exporting [`ENTRY_SYMBOL`] (to link into a program or shared library).
pub fn compile_object(
    context: &Context,
    module: &mut Module,
    entry: &str,
    inputs: &[Tensor],
    engine: Engine,
) -> Result<HostObject, HostError> {
    let lowered = lower(context, module, entry, inputs, engine, &CompileOptions::default())?;
    let (signature, workspace_size) = (lowered.signature, lowered.workspace_size);
    let outputs = signature.outputs.len();
    let object = match engine {
        Engine::Cranelift => {
            let point =
                EntryPoint { function: entry.to_string(), symbol: ENTRY_SYMBOL.into(), inputs: inputs.len(), outputs };
            umac_codegen_cranelift::compile_object(module, &point).map_err(|e| HostError::Compile(e.to_string()))?
        }
        Engine::Llvm => llvm_object(module, entry, inputs.len(), outputs)?,
    };
    Ok(HostObject { object, signature, workspace_size })
}

/// A module lowered to an engine's input level, and what compiling it needs.
struct Lowered {
    signature: EntrySignature,
    intermediates: Vec<Intermediate>,
    workspace_size: u64,
    placements: Vec<Placement>,
    /// The C kernels the model calls.
    kernels: Vec<umac_runtime::kernels::Kernel>,
}

/// Checks the inputs, specializes, partitions for the accelerators, and lowers the module to the
/// engine's input level.
fn lower(
    context: &Context,
    module: &mut Module,
    entry: &str,
    inputs: &[Tensor],
    engine: Engine,
    options: &CompileOptions,
) -> Result<Lowered, HostError> {
    let original = entry_signature(module, entry).map_err(HostError::Inputs)?;
    let shapes = check_inputs(&original, inputs)?;
    specialize_entry(context, module, entry, &shapes).map_err(HostError::Compile)?;
    strip_argument_attributes(module, entry).map_err(HostError::Compile)?;
    let intermediates = if options.intermediates {
        expose_intermediates(context, module, entry).map_err(HostError::Compile)?
    } else {
        vec![]
    };
    dump_ir("specialized", module);
    let mut signature = entry_signature(module, entry).map_err(HostError::Compile)?;
    for (output, named) in signature.outputs.iter_mut().zip(&original.outputs) {
        output.name.clone_from(&named.name);
    }
    for (output, intermediate) in signature.outputs.iter_mut().skip(original.outputs.len()).zip(&intermediates) {
        output.name = format!("{} at {}", intermediate.op, intermediate.location);
    }
    let targets = &options.targets;
    let mut placements = Vec::new();
    let mut kernels = Vec::new();
    if !targets.accelerators.is_empty() {
        placements = partition_and_legalize(context, module, targets).map_err(HostError::Compile)?;
        kernels = kernels_for(targets, &extern_functions(module)).map_err(HostError::Compile)?;
        dump_ir("partitioned", module);
    }
    // Cranelift, the reference, gets the plain loop nests; LLVM the fused per-element loop nests
    // on a planned workspace (the firmware lowering without its border split, which would cost
    // compile time), which it vectorizes for the host CPU.
    let err = HostError::Compile;
    let mut workspace_size = 0;
    match engine {
        Engine::Cranelift => {
            let stages = [
                Stage { pipeline: TOSA_TO_LINALG, then: &[Phase::Loop0, Phase::Loop1] },
                Stage { pipeline: HOST_BUFFERIZE, then: &[Phase::Loop2, Phase::Loop3] },
                Stage { pipeline: LOWER_TO_CF, then: &[] },
                Stage { pipeline: "canonicalize,cse", then: &[Phase::LowLevel] },
            ];
            lower_in_stages(context, module, &stages, targets).map_err(err)?;
        }
        Engine::Llvm => {
            lower_to_operators(context, module, targets, false).map_err(err)?;
            let function = find_entry(module, entry).map_err(HostError::Compile)?;
            workspace_size = function.attribute(WORKSPACE_SIZE_ATTR).ok().and_then(integer_value).unwrap_or(0) as u64;
            lower_operators_to_llvm(context, module, targets, usize::BITS).map_err(err)?;
        }
    }
    dump_ir(engine.name(), module);
    Ok(Lowered { signature, intermediates, workspace_size, placements, kernels })
}

/// llvm dialect → LLVM IR → O3 for the host CPU → object (PIC, with the entry wrapper, which
/// is the only exported symbol).
fn llvm_object(module: &Module, entry: &str, inputs: usize, outputs: usize) -> Result<Vec<u8>, HostError> {
    use umac_codegen_llvm as llvm;
    let err = |e: llvm::Error| HostError::Compile(e.to_string());
    let machine = llvm::target_machine(&llvm::Target::host(), llvm::OptLevel::Speed).map_err(err)?;
    let context = llvm::LlvmContext::create();
    let ir = llvm::translate(module, &context).map_err(err)?;
    llvm::prepare(&ir, &machine);
    llvm::add_executor_wrapper(&ir, entry, ENTRY_SYMBOL, inputs, outputs).map_err(err)?;
    llvm::internalize(&ir, &[ENTRY_SYMBOL], &[]);
    llvm::optimize(&ir, &machine, llvm::OptLevel::Speed).map_err(err)?;
    let object = llvm::emit_object(&ir, &machine).map_err(err)?;
    if let Some(dir) = std::env::var_os("UMAC_DUMP_IR") {
        let dir = std::path::PathBuf::from(dir);
        let _ = std::fs::write(dir.join("llvm-optimized.ll"), ir.print_to_string().to_string());
        let _ = std::fs::write(dir.join("llvm.o"), &object);
    }
    Ok(object)
}

/// With `UMAC_DUMP_IR=DIR`, writes the module at each stage to `DIR/<stage>.mlir` (debugging
/// without a debugger).
fn dump_ir(stage: &str, module: &Module) {
    if let Some(dir) = std::env::var_os("UMAC_DUMP_IR") {
        let dir = std::path::PathBuf::from(dir);
        let _ = std::fs::create_dir_all(&dir);
        let text = umac_dialects::source::print_module(module, Default::default());
        let _ = std::fs::write(dir.join(format!("{stage}.mlir")), text);
    }
}

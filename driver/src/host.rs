//! Running a TOSA model on the host: check the inputs against the entry's signature, build the
//! compile pipeline (specialization to the inputs' shapes, the accelerators, the engine's
//! lowering), run it, compile with an engine, run the model.

use crate::guarded::{Edge, GuardedBuffer};
use crate::{
    Error,
    llvm_object::{ObjectSpec, llvm_objects},
    runner::{
        ACCELERATORS, CompilePipeline, ENTRY, EntrySteps, LLVM, LOOPS, Lowering, OPERATORS, Observe, PRE_PARTITION,
        Runner, dump,
    },
    signature::{EntrySignature, TensorSig, dtype_of, entry_function, entry_signature, sign_extend_odd_widths},
};
use melior::{
    Context,
    ir::{Module, operation::OperationLike},
};
use umac_backend::{
    Kernel, TargetSet,
    cpu::HOST,
    flow::{extern_functions, kernels_for},
    partition::Placement,
};
use umac_codegen_cranelift::{EntryPoint, JitProgram, compile_jit};
use umac_dialects::{
    ir::{has_body, integer_value, symbol_name, top_level_ops},
    umac::WORKSPACE_SIZE_ATTR,
};
use umac_lowering::entry::{Intermediate, intermediates};
use umac_runtime::Tensor;

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

/// Checks `inputs` against the signature: count, element type and every static dimension.
/// Returns the concrete shapes.
pub fn check_inputs(signature: &EntrySignature, inputs: &[Tensor]) -> Result<Vec<Vec<i64>>, Error> {
    if inputs.len() != signature.inputs.len() {
        let expected: Vec<String> = signature.inputs.iter().map(|t| format!("{} ({})", t.name, t.describe())).collect();
        return Err(Error::Usage(format!(
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
                .ok_or_else(|| Error::Usage(format!("{at}: element type {} cannot be fed", sig.describe())))?;
            if tensor.dtype != expected {
                return Err(Error::Usage(format!(
                    "{at}: expected {expected} ({}), given {}",
                    sig.describe(),
                    tensor.dtype
                )));
            }
            let fits = tensor.shape.len() == sig.shape.len()
                && sig.shape.iter().zip(&tensor.shape).all(|(want, got)| want.is_none_or(|w| w == *got as i64));
            if !fits {
                return Err(Error::Usage(format!(
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
    /// What to show of the compile (`--mlir-print-ir-after-all`, `--emit-mlir`).
    pub observe: Observe,
    /// The LLVM engine's code generation threads (0: one per core). Each compiles a part of the
    /// program's functions into an object of its own.
    pub threads: usize,
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
    pub fn run(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>, Error> {
        let shapes = check_inputs(&self.signature, inputs)?;
        let specialized: Vec<Vec<i64>> =
            self.signature.inputs.iter().map(|t| t.shape.iter().map(|d| d.unwrap_or(-1)).collect()).collect();
        if shapes != specialized {
            return Err(Error::Usage("the inputs' shapes differ from those the program was compiled for".into()));
        }
        let mut outputs: Vec<Tensor> = self.signature.outputs.iter().map(output_tensor).collect::<Result<_, _>>()?;
        let input_ptrs: Vec<*const u8> = inputs.iter().map(|t| t.data.as_ptr()).collect();
        let output_ptrs: Vec<*mut u8> = outputs.iter_mut().map(|t| t.data.as_mut_ptr()).collect();
        // 16-byte aligned, as the plan assumes.
        let mut workspace = vec![0u128; (self.workspace_size as usize).div_ceil(16).max(1)];
        // SAFETY: every pointer points at a buffer of exactly the size and element type of the
        // corresponding (static) argument, checked above, and the workspace has the planned size.
        unsafe { self.call(&input_ptrs, &output_ptrs, workspace.as_mut_ptr().cast())? };
        for (tensor, sig) in outputs.iter_mut().zip(&self.signature.outputs) {
            sign_extend_odd_widths(tensor, sig.element);
        }
        Ok(outputs)
    }

    /// Runs the model as [`HostProgram::run`] does, with every input, output and the workspace
    /// in a buffer of its own between guard pages (`guarded.rs`), placed against the `edge`
    /// given; inputs read-only, outputs and workspace filled with garbage first. An access
    /// outside them, or a write to an input, is a segmentation fault of the process.
    pub fn run_guarded(&self, inputs: &[Tensor], edge: Edge) -> Result<Vec<Tensor>, Error> {
        let shapes = check_inputs(&self.signature, inputs)?;
        let specialized: Vec<Vec<i64>> =
            self.signature.inputs.iter().map(|t| t.shape.iter().map(|d| d.unwrap_or(-1)).collect()).collect();
        if shapes != specialized {
            return Err(Error::Usage("the inputs' shapes differ from those the program was compiled for".into()));
        }
        let guard = |e: std::io::Error| Error::Run(format!("cannot map a guarded buffer: {e}"));
        let guarded_inputs: Vec<GuardedBuffer> = inputs
            .iter()
            .map(|t| GuardedBuffer::new(t.data.len(), Some(&t.data), 0, 1, edge, true))
            .collect::<Result<_, _>>()
            .map_err(guard)?;
        let mut outputs: Vec<Tensor> = self.signature.outputs.iter().map(output_tensor).collect::<Result<_, _>>()?;
        let mut guarded_outputs: Vec<GuardedBuffer> = outputs
            .iter()
            .map(|t| GuardedBuffer::new(t.data.len(), None, 0x5a, 1, edge, false))
            .collect::<Result<_, _>>()
            .map_err(guard)?;
        let mut workspace =
            GuardedBuffer::new(self.workspace_size as usize, None, 0xa5, 16, edge, false).map_err(guard)?;
        let input_ptrs: Vec<*const u8> = guarded_inputs.iter().map(GuardedBuffer::as_ptr).collect();
        let output_ptrs: Vec<*mut u8> = guarded_outputs.iter_mut().map(GuardedBuffer::as_mut_ptr).collect();
        // SAFETY: as in `run`: the buffers have exactly the arguments' sizes, the workspace the
        // planned size at a 16-byte boundary.
        unsafe { self.call(&input_ptrs, &output_ptrs, workspace.as_mut_ptr())? };
        for ((tensor, buffer), sig) in outputs.iter_mut().zip(&guarded_outputs).zip(&self.signature.outputs) {
            tensor.data.copy_from_slice(buffer.bytes());
            sign_extend_odd_widths(tensor, sig.element);
        }
        Ok(outputs)
    }

    /// Calls the program's entry.
    ///
    /// # Safety
    /// Each pointer must point at a buffer of its argument's size and element type, the workspace
    /// at the planned size, 16-byte aligned.
    unsafe fn call(&self, inputs: &[*const u8], outputs: &[*mut u8], workspace: *mut u8) -> Result<(), Error> {
        // SAFETY: the caller's contract; the program outlives the call.
        let status = unsafe {
            let entry = match &self.program {
                Program::Cranelift(p) => p.entry(),
                Program::Llvm(p) => p.entry(),
            };
            entry(inputs.as_ptr(), outputs.as_ptr(), workspace.cast())
        };
        if status != 0 {
            return Err(Error::Compile(format!("the model returned status {status}")));
        }
        Ok(())
    }
}

fn output_tensor(sig: &TensorSig) -> Result<Tensor, Error> {
    let dtype = dtype_of(sig.element)
        .ok_or_else(|| Error::Compile(format!("output {} has an unsupported element type", sig.name)))?;
    let shape: Vec<usize> = sig.shape.iter().map(|d| d.unwrap_or(0) as usize).collect();
    Ok(Tensor::zeros(dtype, &shape))
}

/// The compile pipeline `compile` runs for `module`'s `entry`, inputs shaped like `inputs`, and
/// `engine` (for `--print-pipeline`; it is checked against the signature first).
pub fn pipeline(
    module: &Module,
    entry: &str,
    inputs: &[Tensor],
    engine: Engine,
    options: &CompileOptions,
) -> Result<CompilePipeline, Error> {
    plan(module, entry, inputs, engine, options).map(|(_, pipeline)| pipeline)
}

/// The entry's signature, checked against the inputs, and the pipeline that compiles it.
fn plan(
    module: &Module,
    entry: &str,
    inputs: &[Tensor],
    engine: Engine,
    options: &CompileOptions,
) -> Result<(EntrySignature, CompilePipeline), Error> {
    let original = entry_signature(module, entry)?;
    let shapes = check_inputs(&original, inputs)?;
    let steps =
        EntrySteps { expose_intermediates: options.intermediates, ..EntrySteps::new(entry, &original, &shapes) };
    let lowering = match engine {
        // Cranelift, the reference, gets the plain loop nests; LLVM the fused per-element loop
        // nests on a planned workspace (the firmware lowering without its border split, which
        // would cost compile time), which it vectorizes for the host CPU.
        Engine::Cranelift => Lowering::HostLoops,
        Engine::Llvm => Lowering::HostLlvm,
    };
    let pipeline = CompilePipeline::new(&steps, &options.targets, lowering);
    Ok((original, pipeline))
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
) -> Result<HostProgram, Error> {
    let lowered = lower(context, module, entry, inputs, engine, &options)?;
    let outputs = lowered.signature.outputs.len();
    let symbols: Vec<(&str, usize)> = lowered.kernels.iter().map(|k| (k.symbol, k.address)).collect();
    let program = match engine {
        Engine::Cranelift => {
            let point =
                EntryPoint { function: entry.to_string(), symbol: ENTRY_SYMBOL.into(), inputs: inputs.len(), outputs };
            Program::Cranelift(Box::new(compile_jit(module, &point, &symbols)?))
        }
        Engine::Llvm => Program::Llvm(umac_codegen_llvm::JitProgram::load(
            &host_objects(module, entry, inputs.len(), outputs, options.threads)?,
            ENTRY_SYMBOL,
            &symbols,
        )?),
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
) -> Result<HostObject, Error> {
    let lowered = lower(context, module, entry, inputs, engine, &CompileOptions::default())?;
    let (signature, workspace_size) = (lowered.signature, lowered.workspace_size);
    let outputs = signature.outputs.len();
    let object = match engine {
        Engine::Cranelift => {
            let point =
                EntryPoint { function: entry.to_string(), symbol: ENTRY_SYMBOL.into(), inputs: inputs.len(), outputs };
            umac_codegen_cranelift::compile_object(module, &point)?
        }
        Engine::Llvm => host_objects(module, entry, inputs.len(), outputs, 1)?.remove(0),
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
    kernels: Vec<Kernel>,
}

/// Checks the inputs, then runs the compile pipeline part by part, reading what the program
/// needs from the module between parts.
fn lower(
    context: &Context,
    module: &mut Module,
    entry: &str,
    inputs: &[Tensor],
    engine: Engine,
    options: &CompileOptions,
) -> Result<Lowered, Error> {
    let (original, pipeline) = plan(module, entry, inputs, engine, options)?;
    let runner = Runner::new(context, &pipeline, &options.observe);
    runner.run(module, ENTRY)?;
    let intermediates: Vec<Intermediate> = if options.intermediates {
        let function = entry_function(module, entry)?;
        let all = intermediates(function);
        // The exposed results are the entry's last results, in this order.
        all.into_iter().map(|(_, i)| i).collect()
    } else {
        vec![]
    };
    let mut signature = entry_signature(module, entry)?;
    for (output, named) in signature.outputs.iter_mut().zip(&original.outputs) {
        output.name.clone_from(&named.name);
    }
    for (output, intermediate) in signature.outputs.iter_mut().skip(original.outputs.len()).zip(&intermediates) {
        output.name = format!("{} at {}", intermediate.op, intermediate.location);
    }
    let targets = &options.targets;
    runner.run(module, PRE_PARTITION)?;
    let placements = crate::placements(module, targets)?;
    runner.run(module, ACCELERATORS)?;
    let kernels = kernels_for(targets, &extern_functions(module))?;
    let mut workspace_size = 0;
    match engine {
        Engine::Cranelift => runner.run(module, LOOPS)?,
        Engine::Llvm => {
            runner.run(module, OPERATORS)?;
            let function = entry_function(module, entry)?;
            workspace_size = function.attribute(WORKSPACE_SIZE_ATTR).ok().and_then(integer_value).unwrap_or(0) as u64;
            runner.run(module, LLVM)?;
        }
    }
    Ok(Lowered { signature, intermediates, workspace_size, placements, kernels })
}

/// The LLVM engine's objects: O2 for the host CPU (see [`umac_codegen_llvm::OptLevel::Standard`]),
/// position independent, with the entry wrapper as the only exported symbol, compiled on
/// `threads` threads (0: one per core) into as many objects.
fn host_objects(
    module: &Module,
    entry: &str,
    inputs: usize,
    outputs: usize,
    threads: usize,
) -> Result<Vec<Vec<u8>>, Error> {
    // Operator functions stay functions, as in firmware: inlined into the executor they made
    // one large function, which LLVM optimized in more time than the parts (VWW 375 -> 275 ms
    // in LLVM), for no faster code.
    let operators: Vec<String> = top_level_ops(module.as_operation())
        .iter()
        .filter(|op| has_body(op))
        .filter_map(symbol_name)
        .filter(|name| name != entry)
        .collect();
    let operators: Vec<&str> = operators.iter().map(String::as_str).collect();
    let spec = ObjectSpec {
        exports: &[],
        cpu: HOST,
        opt: umac_codegen_llvm::OptLevel::Standard,
        entry,
        run_symbol: ENTRY_SYMBOL,
        inputs,
        outputs,
        keep: &operators,
        float_abi_neutral: false,
        dump_as: "llvm-optimized.ll",
        constants_section: None,
        state_reset: None,
    };
    let threads = match threads {
        0 => std::thread::available_parallelism().map_or(1, usize::from),
        n => n,
    };
    let objects = llvm_objects(module, &spec, threads)?;
    for (k, object) in objects.iter().enumerate() {
        dump(&if objects.len() == 1 { "llvm.o".to_string() } else { format!("llvm.{k}.o") }, object);
    }
    Ok(objects)
}

//! umac's LLVM back end.
//!
//! - [`translate`]: an llvm-dialect MLIR module to an inkwell (LLVM IR) module, in process;
//! - [`Target`] and [`target_machine`]: a triple, CPU and feature string, for the host or any
//!   board (Cortex-M, RISC-V);
//! - [`optimize`] runs the LLVM middle end (`default<O3>`, `<O2>` or `<Os>`) for that machine and
//!   [`emit_object`] writes the object;
//! - [`add_executor_wrapper`] adds `int32_t SYMBOL(const void *const in[], void *const out[], void *workspace)`;
//! - [`compile_in_parts`] does both on several threads, the module split into parts;
//! - [`JitProgram`] loads host objects into the process with ORC's LLJIT.

mod jit;
mod parts;

pub use inkwell::context::Context as LlvmContext;
pub use jit::JitProgram;
pub use parts::{Part, compile_in_parts};

use inkwell::{
    AddressSpace, OptimizationLevel,
    attributes::{Attribute, AttributeLoc},
    module::Module as LlvmModule,
    passes::PassBuilderOptions,
    targets::{
        CodeModel, FileType, InitializationConfig, RelocMode, Target as LlvmTarget, TargetMachine, TargetTriple,
    },
};

/// What can go wrong.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// MLIR could not translate the module (its diagnostics say where).
    #[error("translation to LLVM IR failed")]
    Translate,
    /// LLVM rejected a request (bad triple, CPU, verification, JIT).
    #[error("LLVM: {0}")]
    Llvm(String),
}

/// Shorthand.
pub type Result<T> = std::result::Result<T, Error>;

/// A code generation target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// LLVM triple, e.g. `thumbv8.1m.main-none-eabihf`.
    pub triple: String,
    /// CPU, e.g. `cortex-m55`.
    pub cpu: String,
    /// Feature string, e.g. `+mve.fp` (may be empty).
    pub features: String,
    /// Position-independent code: the host JIT places code and data anywhere in a 64-bit
    /// address space; firmware is linked at fixed addresses and wants static code.
    pub pic: bool,
}

impl Target {
    /// The machine umac runs on.
    pub fn host() -> Self {
        Self {
            triple: TargetMachine::get_default_triple().as_str().to_string_lossy().into_owned(),
            cpu: TargetMachine::get_host_cpu_name().to_string(),
            features: TargetMachine::get_host_cpu_features().to_string(),
            pic: true,
        }
    }

    /// The width of the widest vector registers its features name: 512 with AVX-512, 256 with
    /// AVX, 128 otherwise (every vector CPU umac targets has 128-bit vectors: SSE2, NEON,
    /// Helium).
    pub fn vector_bits(&self) -> u32 {
        let has = |feature: &str| self.features.split(',').any(|f| f == feature);
        if has("+avx512f") {
            512
        } else if has("+avx") || has("+avx2") {
            256
        } else {
            128
        }
    }
}

/// How to optimize.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptLevel {
    /// `default<O3>`.
    Speed,
    /// `default<O2>`: O3 without its more aggressive loop transformations and inlining, for
    /// code whose loops umac's own schedules already vectorized (the host engine: the same run
    /// time as O3 on the MLPerf Tiny models, 5-15% less compile time).
    Standard,
    /// `default<Os>`.
    Size,
}

/// Creates a target machine.
pub fn target_machine(target: &Target, opt: OptLevel) -> Result<TargetMachine> {
    initialize_targets();
    // Normalized: LLVM reads `thumbv6m-none-eabi` as OS `eabi` and no environment, and then
    // names no run-time helper by Arm's EABI (`__addsf3`, not `__aeabi_fadd`), which libgcc for
    // Armv6-M does not provide; `thumbv6m-none-unknown-eabi` is the EABI.
    let triple = TargetMachine::normalize_triple(&TargetTriple::create(&target.triple));
    let llvm_target = LlvmTarget::from_triple(&triple)
        .map_err(|e| Error::Llvm(format!("unknown triple '{}': {e}", target.triple)))?;
    let level = match opt {
        OptLevel::Speed | OptLevel::Standard => OptimizationLevel::Aggressive,
        OptLevel::Size => OptimizationLevel::Default,
    };
    llvm_target
        .create_target_machine(
            &triple,
            &target.cpu,
            &target.features,
            level,
            if target.pic { RelocMode::PIC } else { RelocMode::Static },
            CodeModel::Default,
        )
        .ok_or_else(|| {
            Error::Llvm(format!(
                "cannot create a target machine for {} / {} / '{}'",
                target.triple, target.cpu, target.features
            ))
        })
}

fn initialize_targets() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let config = InitializationConfig::default();
        let _ = LlvmTarget::initialize_native(&config);
        LlvmTarget::initialize_arm(&config);
        LlvmTarget::initialize_x86(&config);
        LlvmTarget::initialize_riscv(&config);
        LlvmTarget::initialize_aarch64(&config);
    });
}

/// Translates an llvm-dialect MLIR module to LLVM IR in `llvm` (no text round trip). On failure
/// MLIR has emitted diagnostics at the offending ops.
pub fn translate<'ctx>(mlir: &melior::ir::Module, llvm: &'ctx LlvmContext) -> Result<LlvmModule<'ctx>> {
    // SAFETY: both contexts outlive the call; the result is a module owned by `llvm`'s context,
    // which inkwell's Module takes over (and disposes).
    unsafe {
        let raw = mlir_sys::mlirTranslateModuleToLLVMIR(mlir.as_operation().to_raw(), llvm.raw().cast());
        if raw.is_null() {
            return Err(Error::Translate);
        }
        Ok(LlvmModule::new(raw.cast()))
    }
}

/// Marks every defined function `nounwind` (no unwind tables, no unwinder pulled into
/// firmware) and sets the machine's triple and data layout.
pub fn prepare(module: &LlvmModule, machine: &TargetMachine) {
    module.set_triple(&machine.get_triple());
    module.set_data_layout(&machine.get_target_data().get_data_layout());
    let context = module.get_context();
    let nounwind = context.create_enum_attribute(Attribute::get_named_enum_kind_id("nounwind"), 0);
    for function in module.get_functions() {
        if function.count_basic_blocks() > 0 {
            function.add_attribute(AttributeLoc::Function, nounwind);
        }
    }
}

/// Declares, in the object's Arm build attributes, that its code passes no floating-point value
/// in registers (`Tag_ABI_VFP_args` = 3, compatible with the base and the VFP procedure call
/// standards), so it links into soft-float and hard-float firmware alike. True for umac's
/// objects: every exported function takes pointers and returns an integer. (LLVM's C API
/// cannot set the float ABI of a target machine, and without this the tag says "base only",
/// which hard-float linkers reject.)
pub fn mark_float_abi_neutral(module: &LlvmModule) {
    let triple = module.get_triple();
    let triple = triple.as_str().to_string_lossy();
    if triple.starts_with("thumb") || triple.starts_with("arm") {
        module.set_inline_assembly(".eabi_attribute 28, 3");
    }
}

/// Puts every constant global with an initializer (the model's weights, biases, tables) into the
/// ELF section `section` instead of `.rodata`, for the firmware's linker script to place (external
/// flash for weights larger than the on-chip one). Constants LLVM makes later (literal pools,
/// merged constants) stay with the code.
pub fn place_constants(module: &LlvmModule, section: &str) {
    let mut global = module.get_first_global();
    while let Some(g) = global {
        if g.is_constant() && g.get_initializer().is_some() {
            g.set_section(Some(section));
        }
        global = g.get_next_global();
    }
}

/// Runs LLVM's middle end for `machine`.
pub fn optimize(module: &LlvmModule, machine: &TargetMachine, opt: OptLevel) -> Result<()> {
    let passes = match opt {
        OptLevel::Speed => "default<O3>",
        OptLevel::Standard => "default<O2>",
        OptLevel::Size => "default<Os>",
    };
    module.verify().map_err(|e| Error::Llvm(format!("invalid LLVM IR: {e}")))?;
    module.run_passes(passes, machine, PassBuilderOptions::create()).map_err(|e| Error::Llvm(e.to_string()))
}

/// Writes an object file for `machine`.
pub fn emit_object(module: &LlvmModule, machine: &TargetMachine) -> Result<Vec<u8>> {
    machine
        .write_to_memory_buffer(module, FileType::Object)
        .map(|buffer| buffer.as_slice().to_vec())
        .map_err(|e| Error::Llvm(e.to_string()))
}

/// Parses LLVM IR text into a module of `context`. (inkwell's `create_module_from_ir` leaks its
/// buffer on LLVM 22: it calls `LLVMParseIRInContext2`, which does not take the buffer over, and
/// forgets it.)
pub fn parse_ir<'ctx>(context: &'ctx LlvmContext, ir: &str, name: &str) -> Result<LlvmModule<'ctx>> {
    // A copy: LLVM's IR parser reads up to a terminating NUL, which the copy has.
    let buffer = inkwell::memory_buffer::MemoryBuffer::create_from_memory_range_copy(ir.as_bytes(), name);
    let mut module = std::ptr::null_mut();
    let mut message = std::ptr::null_mut();
    // SAFETY: the buffer outlives the call, which reads it and leaves it to us (dropped at the
    // end); on success the module belongs to `context`, and inkwell's
    // Module takes it over; on failure the message is LLVM's to free, which LLVMString does.
    unsafe {
        let failed = inkwell::llvm_sys::ir_reader::LLVMParseIRInContext2(
            context.raw(),
            buffer.as_mut_ptr(),
            &mut module,
            &mut message,
        );
        if failed != 0 {
            let text = std::ffi::CStr::from_ptr(message).to_string_lossy().into_owned();
            inkwell::llvm_sys::core::LLVMDisposeMessage(message);
            return Err(Error::Llvm(format!("{name}: {text}")));
        }
        Ok(LlvmModule::new(module))
    }
}

/// Compiles LLVM IR text (a support library, say) into an object for `target`.
pub fn object_from_ir(ir: &str, name: &str, target: &Target, opt: OptLevel) -> Result<Vec<u8>> {
    let machine = target_machine(target, opt)?;
    let context = LlvmContext::create();
    let module = parse_ir(&context, ir, name)?;
    prepare(&module, &machine);
    optimize(&module, &machine, opt)?;
    emit_object(&module, &machine)
}

/// Adds the entry a runtime calls, `int32_t symbol(const void *const inputs[], void *const
/// outputs[], void *workspace)`, returning 0: it calls `function` (one pointer per argument:
/// bare-pointer memrefs) with the inputs, the outputs and, when it has one more parameter, the
/// workspace. A function with several more (a workspace split over memory pools) takes one
/// workspace parameter each: `symbol(inputs, outputs, void *pool0, void *pool1, ...)`.
pub fn add_executor_wrapper(
    module: &LlvmModule,
    function: &str,
    symbol: &str,
    inputs: usize,
    outputs: usize,
) -> Result<()> {
    let context = module.get_context();
    let callee = module
        .get_function(function)
        .ok_or_else(|| Error::Llvm(format!("no function @{function} in the LLVM module")))?;
    let ptr = context.ptr_type(AddressSpace::default());
    let i32t = context.i32_type();
    let count = callee.count_params() as usize;
    // The arrays of inputs and outputs, then a workspace per memory pool (one by default).
    let workspaces = count.saturating_sub(inputs + outputs).max(1);
    let parameters: Vec<_> = (0..2 + workspaces).map(|_| ptr.into()).collect();
    let wrapper = module.add_function(symbol, i32t.fn_type(&parameters, false), None);
    wrapper.add_attribute(
        AttributeLoc::Function,
        context.create_enum_attribute(Attribute::get_named_enum_kind_id("nounwind"), 0),
    );
    let builder = context.create_builder();
    builder.position_at_end(context.append_basic_block(wrapper, "entry"));
    let (Some(input_array), Some(output_array)) = (wrapper.get_nth_param(0), wrapper.get_nth_param(1)) else {
        return Err(Error::Llvm("wrapper without parameters".into()));
    };
    let llvm = |e: inkwell::builder::BuilderError| Error::Llvm(e.to_string());
    let mut args = Vec::new();
    for i in 0..count {
        if i >= inputs + outputs
            && let Some(workspace) = wrapper.get_nth_param((2 + i - inputs - outputs) as u32)
        {
            args.push(workspace.into());
            continue;
        }
        let (array, slot) = if i < inputs { (input_array, i) } else { (output_array, i - inputs) };
        let index = context.i32_type().const_int(slot as u64, false);
        // SAFETY (inkwell's contract for GEP): the index stays within the caller's array of
        // one pointer per argument, which the wrapper's signature documents.
        let address =
            unsafe { builder.build_in_bounds_gep(ptr, array.into_pointer_value(), &[index], "") }.map_err(llvm)?;
        args.push(builder.build_load(ptr, address, "").map_err(llvm)?.into());
    }
    builder.build_call(callee, &args, "").map_err(llvm)?;
    builder.build_return(Some(&i32t.const_zero())).map_err(llvm)?;
    Ok(())
}

/// The bytes of the model's state: its mutable globals with an initial value (an LSTM's hidden
/// and cell state, TFLite's variable tensors), which persist from one call of the executor to
/// the next. When there are any, adds `void symbol(void)`, which gives each its initial value
/// again (TFLite Micro's `ResetVariableTensors`), and returns their bytes; 0 adds nothing.
pub fn add_state_reset(module: &LlvmModule, symbol: &str) -> Result<u64> {
    let context = module.get_context();
    let mut state = Vec::new();
    let mut global = module.get_first_global();
    while let Some(g) = global {
        if !g.is_constant()
            && let Some(initial) = g.get_initializer()
        {
            state.push((g, initial));
        }
        global = g.get_next_global();
    }
    if state.is_empty() {
        return Ok(0);
    }
    let layout = module.get_data_layout();
    let target_data = inkwell::targets::TargetData::create(layout.as_str().to_str().unwrap_or_default());
    let bytes = state.iter().map(|(_, initial)| target_data.get_store_size(&initial.get_type())).sum();
    let reset = module.add_function(symbol, context.void_type().fn_type(&[], false), None);
    reset.add_attribute(
        AttributeLoc::Function,
        context.create_enum_attribute(Attribute::get_named_enum_kind_id("nounwind"), 0),
    );
    let builder = context.create_builder();
    builder.position_at_end(context.append_basic_block(reset, "entry"));
    let llvm = |e: inkwell::builder::BuilderError| Error::Llvm(e.to_string());
    for (g, initial) in state {
        builder.build_store(g.as_pointer_value(), initial).map_err(llvm)?;
    }
    builder.build_return(None).map_err(llvm)?;
    Ok(bytes)
}

/// Gives every defined function and global but `exported` internal linkage (so the optimizer
/// may specialize them and the object exports one symbol), and marks `kept` functions
/// `noinline` so they stay distinct symbols (for profilers and map files).
pub fn internalize(module: &LlvmModule, exported: &[&str], kept: &[&str]) {
    use inkwell::module::Linkage;
    let context = module.get_context();
    let noinline = context.create_enum_attribute(Attribute::get_named_enum_kind_id("noinline"), 0);
    for function in module.get_functions() {
        let name = function.get_name().to_string_lossy().into_owned();
        if function.count_basic_blocks() == 0 || exported.contains(&name.as_str()) {
            continue;
        }
        function.set_linkage(Linkage::Internal);
        if kept.contains(&name.as_str()) {
            function.add_attribute(AttributeLoc::Function, noinline);
        }
    }
    let mut global = module.get_first_global();
    while let Some(g) = global {
        if g.get_initializer().is_some() && !exported.contains(&g.get_name().to_string_lossy().as_ref()) {
            g.set_linkage(Linkage::Internal);
        }
        global = g.get_next_global();
    }
}

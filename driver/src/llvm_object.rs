//! The llvm-dialect module of a compile to an object file: translation to LLVM IR, the executor
//! wrapper, symbol visibility, LLVM's middle end and code generation — one path for firmware and
//! the LLVM host engine.

use crate::{
    Error,
    runner::{dump, dumping},
};
use melior::ir::Module;
use umac_backend::{Cpu, Machine};
use umac_codegen_llvm as llvm;

/// What the object exports and keeps.
pub struct ObjectSpec<'a> {
    /// The CPU to generate code for.
    pub cpu: Cpu,
    /// `O3` or `Os`.
    pub opt: llvm::OptLevel,
    /// The lowered entry function.
    pub entry: &'a str,
    /// The exported wrapper `int32_t SYMBOL(const void *const in[], void *const out[], void *ws)`.
    pub run_symbol: &'a str,
    /// Inputs and outputs of the entry.
    pub inputs: usize,
    /// Outputs of the entry.
    pub outputs: usize,
    /// Functions kept as (local) symbols, for profilers.
    pub keep: &'a [&'a str],
    /// Further functions exported with the linkage they have (the weak profiling hooks).
    pub exports: &'a [&'a str],
    /// Mark functions float-ABI neutral (firmware: no floating-point value crosses its ABI, so
    /// it links with either float ABI of the board).
    pub float_abi_neutral: bool,
    /// The name of the optimized LLVM IR written with `UMAC_DUMP_IR`.
    pub dump_as: &'a str,
    /// The ELF section of the model's constants (`--constants-section`; `None`: `.rodata`).
    pub constants_section: Option<&'a str>,
    /// For a model with state (an LSTM's), the exported `void SYMBOL(void)` that resets it
    /// ([`llvm::add_state_reset`]).
    pub state_reset: Option<&'a str>,
}

/// The LLVM target of a CPU of the table.
pub fn llvm_target(cpu: &Cpu) -> llvm::Target {
    match cpu.machine {
        Machine::Host => llvm::Target::host(),
        Machine::Llvm { triple, cpu, features } => {
            llvm::Target { triple: triple.into(), cpu: cpu.into(), features: features.into(), pic: false }
        }
    }
}

/// Compiles `module` (the llvm dialect) into an object for `spec.cpu`.
pub fn llvm_object(module: &Module, spec: &ObjectSpec) -> Result<Vec<u8>, Error> {
    let mut objects = llvm_objects(module, spec, 1)?;
    Ok(objects.remove(0))
}

/// Compiles `module` (the llvm dialect) for `spec.cpu` into at most `threads` objects, compiled
/// at once (`umac_codegen_llvm::compile_in_parts`), which together are the program.
pub fn llvm_objects(module: &Module, spec: &ObjectSpec, threads: usize) -> Result<Vec<Vec<u8>>, Error> {
    let target = llvm_target(&spec.cpu);
    let machine = llvm::target_machine(&target, spec.opt)?;
    let context = llvm::LlvmContext::create();
    let ir = llvm::translate(module, &context)?;
    llvm::prepare(&ir, &machine);
    if let Some(section) = spec.constants_section {
        llvm::place_constants(&ir, section);
    }
    if spec.float_abi_neutral {
        llvm::mark_float_abi_neutral(&ir);
    }
    llvm::add_executor_wrapper(&ir, spec.entry, spec.run_symbol, spec.inputs, spec.outputs)?;
    let mut exported: Vec<&str> = std::iter::once(spec.run_symbol).chain(spec.exports.iter().copied()).collect();
    if let Some(symbol) = spec.state_reset
        && llvm::add_state_reset(&ir, symbol)? > 0
    {
        exported.push(symbol);
    }
    llvm::internalize(&ir, &exported, spec.keep);
    let parts = llvm::compile_in_parts(&ir, &target, spec.opt, threads, dumping())?;
    let single = parts.len() == 1;
    Ok(parts
        .into_iter()
        .enumerate()
        .map(|(k, part)| {
            if let Some(text) = part.ir {
                let name =
                    if single { spec.dump_as.to_string() } else { spec.dump_as.replace(".ll", &format!(".{k}.ll")) };
                dump(&name, text);
            }
            part.object
        })
        .collect())
}

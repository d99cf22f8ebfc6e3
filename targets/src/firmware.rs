//! Firmware output: a model compiled ahead of time into one object file for a CPU, with a C
//! header and a metadata record, for linking into bare-metal firmware.
//!
//! The object exports one function, `int32_t N_run(const void *const inputs[],
//! void *const outputs[], void *workspace)`, the AOT executor: it calls the model's operator
//! functions (`N_op<k>_<kind>`, kept as separate local symbols for profiling) in order on
//! buffers at fixed offsets of the caller's workspace. Nothing is allocated at run time;
//! constants are in `.rodata`; the only external symbols code may reference are
//! `memcpy`/`memset`/`memmove` (and their AEABI spellings on Arm) and the C kernels of the
//! accelerators named in the target string (listed in the metadata), which [`compile`] checks.

use crate::{
    backend::{
        TargetSet,
        flow::{extern_functions, kernels_for, lower_operators_to_llvm, lower_to_operators, partition_and_legalize},
        partition::{CPU, Placement},
    },
    host::dtype_of,
};
use melior::{
    Context,
    ir::{
        BlockLike, Module, OperationRef,
        operation::{OperationLike, WalkOrder, WalkResult},
    },
};
use object::{Object, ObjectSection, ObjectSymbol, SectionKind};
use std::collections::BTreeMap;
use umac_codegen_llvm as llvm;
use umac_dialects::{
    location::{file_line_col, file_line_cols},
    text::{op_name, str_ref},
    umac::{COMPOSITE_ATTR, TARGET_ATTR, WORKSPACE_LOWER_BOUND_ATTR, WORKSPACE_SIZE_ATTR, integer_value},
};
use umac_lowering::entry::{EntrySignature, entry_signature, find_entry, specialize_entry, strip_argument_attributes};
use umac_runtime::kernels::Kernel;

/// A CPU umac compiles firmware for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cpu {
    /// Arm Cortex-M55 with MVE (Helium) and the FPU.
    CortexM55,
    /// Arm Cortex-M7 with the DSP extension and the FPU.
    CortexM7,
    /// Arm Cortex-M4 with the DSP extension and the FPU.
    CortexM4,
    /// The machine umac runs on (objects to link into host programs and tests).
    Host,
}

/// Every CPU, in the order errors list them.
pub const CPUS: &[Cpu] = &[Cpu::CortexM55, Cpu::CortexM7, Cpu::CortexM4, Cpu::Host];

impl Cpu {
    /// The name users write in `--target`.
    pub fn name(self) -> &'static str {
        match self {
            Cpu::CortexM55 => "cortex-m55",
            Cpu::CortexM7 => "cortex-m7",
            Cpu::CortexM4 => "cortex-m4",
            Cpu::Host => "host",
        }
    }

    /// Looks a CPU up by its `--target` name.
    pub fn parse(name: &str) -> Result<Cpu, FirmwareError> {
        CPUS.iter().copied().find(|cpu| cpu.name() == name).ok_or_else(|| {
            FirmwareError::Usage(format!(
                "unknown target '{name}' (known: {})",
                CPUS.iter().map(|c| c.name()).collect::<Vec<_>>().join(", ")
            ))
        })
    }

    /// The LLVM target: triple, CPU and features. Arm code is static (firmware is linked at
    /// fixed addresses); host code is position independent.
    pub fn llvm_target(self) -> llvm::Target {
        let arm = |triple: &str, cpu: &str| llvm::Target {
            triple: triple.into(),
            cpu: cpu.into(),
            features: String::new(),
            pic: false,
        };
        match self {
            Cpu::CortexM55 => arm("thumbv8.1m.main-none-eabihf", "cortex-m55"),
            Cpu::CortexM7 => arm("thumbv7em-none-eabihf", "cortex-m7"),
            Cpu::CortexM4 => arm("thumbv7em-none-eabihf", "cortex-m4"),
            Cpu::Host => llvm::Target::host(),
        }
    }

    /// Pointer and index width in bits.
    pub fn pointer_bits(self) -> u32 {
        match self {
            Cpu::Host => usize::BITS,
            _ => 32,
        }
    }
}

/// What the user asked for.
#[derive(Clone, Debug)]
pub struct FirmwareOptions {
    /// The C identifier prefixing every symbol and macro.
    pub name: String,
    /// `--opt=size`: LLVM's `Os` instead of `O3`.
    pub optimize_for_size: bool,
    /// Input shapes replacing dynamic dimensions (`--shape`); `None`: dynamic dimensions are 1.
    pub shapes: Option<Vec<Vec<i64>>>,
    /// `--max-workspace`: the most RAM the workspace may take.
    pub max_workspace: Option<u64>,
    /// `--max-flash`: the most bytes code and constants may take.
    pub max_flash: Option<u64>,
    /// The model's file name, recorded in the header and metadata.
    pub source: String,
    /// Accelerators the model is partitioned for first (from the target string).
    pub accelerators: TargetSet,
}

/// What can go wrong.
#[derive(Debug, thiserror::Error)]
pub enum FirmwareError {
    /// Bad options (unknown target, bad name, bad shapes).
    #[error("{0}")]
    Usage(String),
    /// Lowering or code generation failed; diagnostics at the offending ops were emitted.
    #[error("{0}")]
    Compile(String),
    /// The model does not fit a limit the user gave.
    #[error("{0}")]
    Limit(String),
}

/// One operator function of the executor.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Operator {
    /// Its symbol in the object.
    pub function: String,
    /// The accelerator it was partitioned to (`None`: the CPU).
    pub target: Option<String>,
    /// The composite pattern it computes, for an accelerator's function.
    pub composite: Option<String>,
    /// The source ops it computes, as `op at file:line:col`, in source order.
    pub source_ops: Vec<String>,
}

/// A compiled model.
#[derive(Clone, Debug)]
pub struct Firmware {
    /// The object file.
    pub object: Vec<u8>,
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
    /// The specialized signature.
    pub signature: EntrySignature,
    /// The operator functions in execution order.
    pub operators: Vec<Operator>,
    /// Where each op of the model runs (empty without accelerators).
    pub placements: Vec<Placement>,
    /// The C kernels the object calls, to link into the firmware.
    pub kernels: Vec<Kernel>,
}

/// Symbols generated code may call: the C library's memory functions, which LLVM emits for
/// block copies and fills, and their Arm EABI spellings.
const ALLOWED_UNDEFINED: &[&str] = &[
    "memcpy",
    "memset",
    "memmove",
    "__aeabi_memcpy",
    "__aeabi_memcpy4",
    "__aeabi_memcpy8",
    "__aeabi_memset",
    "__aeabi_memset4",
    "__aeabi_memset8",
    "__aeabi_memmove",
    "__aeabi_memmove4",
    "__aeabi_memmove8",
    "__aeabi_memclr",
    "__aeabi_memclr4",
    "__aeabi_memclr8",
];

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

fn is_c_identifier(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Compiles `module`'s `entry` for `cpu`. The module is lowered in place; MLIR's diagnostics
/// (unsupported ops, with their locations) go to `context`'s handlers.
pub fn compile(
    context: &Context,
    module: &mut Module,
    entry: &str,
    cpu: Cpu,
    options: &FirmwareOptions,
) -> Result<Firmware, FirmwareError> {
    let name = options.name.as_str();
    if !is_c_identifier(name) {
        return Err(FirmwareError::Usage(format!("--name '{name}' is not a C identifier")));
    }
    let compile_err = FirmwareError::Compile;
    let original = entry_signature(module, entry).map_err(FirmwareError::Usage)?;
    let shapes = input_shapes(&original, options.shapes.as_deref())?;
    let fixed_batch = original.inputs.iter().any(|t| t.shape.iter().any(Option::is_none)) && options.shapes.is_none();
    specialize_entry(context, module, entry, &shapes).map_err(compile_err)?;
    strip_argument_attributes(module, entry).map_err(compile_err)?;
    let mut signature = entry_signature(module, entry).map_err(compile_err)?;
    for (new, old) in signature.inputs.iter_mut().zip(&original.inputs) {
        new.name.clone_from(&old.name);
    }
    for (new, old) in signature.outputs.iter_mut().zip(&original.outputs) {
        new.name.clone_from(&old.name);
    }
    for tensor in signature.inputs.iter().chain(&signature.outputs) {
        if dtype_of(tensor.element).is_none() {
            return Err(FirmwareError::Usage(format!(
                "tensor '{}' has an element type firmware output does not support ({})",
                tensor.name,
                tensor.describe()
            )));
        }
    }
    let source_ops = source_op_names(module, entry)?;
    rename_entry(module, entry, name)?;

    let targets = &options.accelerators;
    let mut placements = Vec::new();
    let mut kernels = Vec::new();
    if !targets.accelerators.is_empty() {
        placements = partition_and_legalize(context, module, targets).map_err(compile_err)?;
        for placement in &mut placements {
            if placement.target == CPU {
                placement.target = cpu.name().to_string();
            }
        }
        kernels = kernels_for(targets, &extern_functions(module)).map_err(compile_err)?;
    }
    lower_to_operators(context, module, targets, true).map_err(compile_err)?;
    let (workspace_size, workspace_lower_bound) = workspace_attributes(module, name)?;
    let operators = operator_functions(module, name, &source_ops);
    lower_operators_to_llvm(context, module, targets, cpu.pointer_bits()).map_err(compile_err)?;

    let opt = if options.optimize_for_size { llvm::OptLevel::Size } else { llvm::OptLevel::Speed };
    let object = llvm_object(module, name, cpu, opt, &signature, &operators)?;
    let sizes = inspect_object(&object, &kernels)?;
    let flash = sizes.text + sizes.rodata;
    if let Some(limit) = options.max_workspace
        && workspace_size > limit
    {
        return Err(FirmwareError::Limit(format!(
            "the model needs a {workspace_size}-byte workspace, more than --max-workspace={limit} \
             (the buffers alive at the busiest point alone take {workspace_lower_bound} bytes)"
        )));
    }
    if let Some(limit) = options.max_flash
        && flash > limit
    {
        return Err(FirmwareError::Limit(format!(
            "the model needs {flash} bytes of flash ({} of code, {} of constants), more than --max-flash={limit}",
            sizes.text, sizes.rodata
        )));
    }
    let mut firmware = Firmware {
        object,
        header: String::new(),
        metadata: serde_json::Value::Null,
        workspace_size,
        workspace_lower_bound,
        text_bytes: sizes.text,
        rodata_bytes: sizes.rodata,
        signature,
        operators,
        placements,
        kernels,
    };
    firmware.header = header(&firmware, name, cpu, options, fixed_batch);
    firmware.metadata = metadata(&firmware, name, cpu, options, fixed_batch);
    Ok(firmware)
}

fn input_shapes(signature: &EntrySignature, given: Option<&[Vec<i64>]>) -> Result<Vec<Vec<i64>>, FirmwareError> {
    match given {
        None => Ok(signature.inputs.iter().map(|t| t.shape.iter().map(|d| d.unwrap_or(1)).collect()).collect()),
        Some(shapes) => {
            if shapes.len() != signature.inputs.len() {
                return Err(FirmwareError::Usage(format!(
                    "--shape given for {} inputs, the model has {}",
                    shapes.len(),
                    signature.inputs.len()
                )));
            }
            for (shape, input) in shapes.iter().zip(&signature.inputs) {
                let fits = shape.len() == input.shape.len()
                    && shape.iter().zip(&input.shape).all(|(s, d)| *s > 0 && d.is_none_or(|d| d == *s));
                if !fits {
                    return Err(FirmwareError::Usage(format!(
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

/// `file:line:col` → op name, for the entry's ops, to name what each operator computes.
fn source_op_names(module: &Module, entry: &str) -> Result<BTreeMap<(String, usize, usize), String>, FirmwareError> {
    let function = find_entry(module, entry).map_err(FirmwareError::Usage)?;
    let mut names = BTreeMap::new();
    function.walk(WalkOrder::PreOrder, |op| {
        let name = op_name(&op);
        // Constants become data, not work of an operator.
        let computes = !name.starts_with("tosa.const") && name != "arith.constant" && name != "func.return";
        if computes && let Some(at) = file_line_col(op.location()) {
            names.entry((at.file, at.line, at.column)).or_insert(name);
        }
        WalkResult::Advance
    });
    Ok(names)
}

fn rename_entry(module: &Module, entry: &str, name: &str) -> Result<(), FirmwareError> {
    let function = find_entry(module, entry).map_err(FirmwareError::Usage)?;
    let mut next = module.body().first_operation();
    while let Some(op) = next {
        next = op.next_in_block();
        let symbol = op.attribute("sym_name").ok().and_then(umac_dialects::umac::string_value);
        if symbol.as_deref() == Some(name) && op != function {
            return Err(FirmwareError::Usage(format!(
                "--name '{name}' clashes with function @{name} of the model; choose another name"
            )));
        }
    }
    // SAFETY: the function and its context are alive; the new name is a string attribute of
    // the same context.
    unsafe {
        let raw = function.to_raw();
        let context = mlir_sys::mlirOperationGetContext(raw);
        mlir_sys::mlirOperationSetAttributeByName(
            raw,
            str_ref("sym_name"),
            mlir_sys::mlirStringAttrGet(context, str_ref(name)),
        );
    }
    Ok(())
}

fn workspace_attributes(module: &Module, name: &str) -> Result<(u64, u64), FirmwareError> {
    let function = find_entry(module, name).map_err(FirmwareError::Compile)?;
    let get = |attr: &str| function.attribute(attr).ok().and_then(integer_value).map(|v| v as u64);
    Ok((get(WORKSPACE_SIZE_ATTR).unwrap_or(0), get(WORKSPACE_LOWER_BOUND_ATTR).unwrap_or(0)))
}

/// The executor's calls, in order, with the source ops each operator function computes.
fn operator_functions(
    module: &Module,
    name: &str,
    source_ops: &BTreeMap<(String, usize, usize), String>,
) -> Vec<Operator> {
    let mut functions: BTreeMap<String, OperationRef> = BTreeMap::new();
    let mut next = module.body().first_operation();
    while let Some(op) = next {
        next = op.next_in_block();
        if let Some(symbol) = op.attribute("sym_name").ok().and_then(umac_dialects::umac::string_value) {
            functions.insert(symbol, op);
        }
    }
    let Some(executor) = functions.get(name) else {
        return vec![];
    };
    let mut calls = Vec::new();
    executor.walk(WalkOrder::PreOrder, |op| {
        if op_name(&op) == "func.call"
            && let Some(callee) = op.attribute("callee").ok().map(|a| umac_dialects::text::attribute_text(a))
        {
            calls.push(callee.trim_start_matches('@').to_string());
        }
        WalkResult::Advance
    });
    calls
        .into_iter()
        .map(|function| {
            let mut at: Vec<(String, usize, usize)> = Vec::new();
            let (mut target, mut composite) = (None, None);
            if let Some(op) = functions.get(&function) {
                let text = |attr: &str| op.attribute(attr).ok().and_then(umac_dialects::umac::string_value);
                (target, composite) = (text(TARGET_ATTR), text(COMPOSITE_ATTR));
                op.walk(WalkOrder::PreOrder, |nested| {
                    for l in file_line_cols(nested.location()) {
                        let key = (l.file, l.line, l.column);
                        if source_ops.contains_key(&key) && !at.contains(&key) {
                            at.push(key);
                        }
                    }
                    WalkResult::Advance
                });
            }
            at.sort();
            let source_ops =
                at.into_iter().map(|key| format!("{} at {}:{}:{}", source_ops[&key], key.0, key.1, key.2)).collect();
            Operator { function, target, composite, source_ops }
        })
        .collect()
}

fn llvm_object(
    module: &Module,
    name: &str,
    cpu: Cpu,
    opt: llvm::OptLevel,
    signature: &EntrySignature,
    operators: &[Operator],
) -> Result<Vec<u8>, FirmwareError> {
    let err = |e: llvm::Error| FirmwareError::Compile(e.to_string());
    let machine = llvm::target_machine(&cpu.llvm_target(), opt).map_err(err)?;
    let context = llvm::LlvmContext::create();
    let ir = llvm::translate(module, &context).map_err(err)?;
    llvm::prepare(&ir, &machine);
    llvm::mark_float_abi_neutral(&ir);
    let run_symbol = format!("{name}_run");
    llvm::add_executor_wrapper(&ir, name, &run_symbol, signature.inputs.len(), signature.outputs.len()).map_err(err)?;
    let operator_symbols: Vec<&str> = operators.iter().map(|o| o.function.as_str()).collect();
    llvm::internalize(&ir, &[&run_symbol], &operator_symbols);
    llvm::optimize(&ir, &machine, opt).map_err(err)?;
    if let Some(dir) = std::env::var_os("UMAC_DUMP_IR") {
        let _ =
            std::fs::write(std::path::Path::new(&dir).join("firmware-optimized.ll"), ir.print_to_string().to_string());
    }
    llvm::emit_object(&ir, &machine).map_err(err)
}

struct ObjectSizes {
    text: u64,
    rodata: u64,
}

/// Measures code and constants and checks the object references nothing but the memory
/// functions and the accelerators' kernels.
fn inspect_object(bytes: &[u8], kernels: &[Kernel]) -> Result<ObjectSizes, FirmwareError> {
    let file = object::File::parse(bytes)
        .map_err(|e| FirmwareError::Compile(format!("cannot read the generated object: {e}")))?;
    let mut sizes = ObjectSizes { text: 0, rodata: 0 };
    for section in file.sections() {
        // Arm's index table for nounwind code holds only "cannot unwind" entries (no unwinder
        // is referenced); it is accounted with the code, not the constants.
        if section.name().is_ok_and(|n| n.starts_with(".ARM.exidx")) {
            sizes.text += section.size();
            continue;
        }
        match section.kind() {
            SectionKind::Text => sizes.text += section.size(),
            SectionKind::ReadOnlyData | SectionKind::ReadOnlyString | SectionKind::ReadOnlyDataWithRel => {
                sizes.rodata += section.size()
            }
            SectionKind::Data | SectionKind::UninitializedData if section.size() > 0 => {
                return Err(FirmwareError::Compile(format!(
                    "internal error: the object has writable data ({} bytes in {})",
                    section.size(),
                    section.name().unwrap_or("?")
                )));
            }
            _ => {}
        }
    }
    let undefined: Vec<String> = file
        .symbols()
        .filter(|s| s.is_undefined() && !s.name().unwrap_or("").is_empty())
        .map(|s| s.name().unwrap_or("").to_string())
        .filter(|s| !ALLOWED_UNDEFINED.contains(&s.as_str()) && !kernels.iter().any(|k| k.symbol == s))
        .collect();
    if !undefined.is_empty() {
        return Err(FirmwareError::Compile(format!(
            "the generated code calls {}, which firmware output does not provide (it links against nothing but \
             memcpy/memset/memmove): floating-point transcendental ops (exp, tanh, sigmoid, ...) are not supported \
             in firmware yet",
            undefined.join(", ")
        )));
    }
    Ok(sizes)
}

fn c_type(tensor: &umac_lowering::entry::TensorSig) -> &'static str {
    use umac_lowering::entry::Element;
    match tensor.element {
        Element::Int { bits: 1..=8, unsigned: false } => "int8_t",
        Element::Int { bits: 1..=8, unsigned: true } => "uint8_t",
        Element::Int { bits: 9..=16, unsigned: false } => "int16_t",
        Element::Int { bits: 9..=16, unsigned: true } => "uint16_t",
        Element::Int { bits: 17..=32, unsigned: false } => "int32_t",
        Element::Int { bits: 17..=32, unsigned: true } => "uint32_t",
        Element::Int { unsigned: false, .. } => "int64_t",
        Element::Int { unsigned: true, .. } => "uint64_t",
        Element::F32 => "float",
        Element::F64 => "double",
    }
}

fn byte_size(tensor: &umac_lowering::entry::TensorSig) -> u64 {
    let elements: i64 = tensor.shape.iter().map(|d| d.unwrap_or(1)).product();
    elements as u64 * dtype_of(tensor.element).map_or(1, |d| d.size() as u64)
}

fn dims(tensor: &umac_lowering::entry::TensorSig) -> Vec<i64> {
    tensor.shape.iter().map(|d| d.unwrap_or(1)).collect()
}

fn header(firmware: &Firmware, name: &str, cpu: Cpu, options: &FirmwareOptions, fixed_batch: bool) -> String {
    let upper = name.to_ascii_uppercase();
    let mut h = String::new();
    h.push_str(&format!(
        "/* {name}.h: generated by umac {} from {} for {}. Do not edit.\n *\n",
        env!("CARGO_PKG_VERSION"),
        options.source,
        cpu.name()
    ));
    h.push_str(&format!(
        " * Call {name}_run() with one pointer per input and per output (in the order below) and a\n \
         * workspace of {upper}_WORKSPACE_SIZE bytes aligned to {upper}_WORKSPACE_ALIGNMENT. It returns 0.\n \
         * The workspace holds every intermediate tensor; nothing is allocated. It may be reused\n \
         * between calls and for other work in between. Inputs are read only.\n"
    ));
    if fixed_batch {
        h.push_str(
            " *\n * The model's batch (dynamic dimensions) is fixed to 1 here; `umac compile --shape` sets it.\n",
        );
    }
    h.push_str(" */\n");
    h.push_str(&format!("#ifndef UMAC_{upper}_H\n#define UMAC_{upper}_H\n\n#include <stdint.h>\n"));
    // The accelerators' codegen hook: what their C functions need in every source that links them.
    for configured in &options.accelerators.accelerators {
        let includes = configured.backend.includes();
        if !includes.is_empty() {
            h.push_str(&format!(
                "\n/* {}: link with {} */\n{includes}",
                configured.backend.name(),
                kernel_sources(firmware)
            ));
        }
    }
    h.push('\n');
    h.push_str("#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n");
    h.push_str(&format!("#define {upper}_WORKSPACE_SIZE {}\n", firmware.workspace_size));
    h.push_str(&format!("#define {upper}_WORKSPACE_ALIGNMENT {WORKSPACE_ALIGNMENT}\n"));
    h.push_str(&format!("#define {upper}_NUM_INPUTS {}\n", firmware.signature.inputs.len()));
    h.push_str(&format!("#define {upper}_NUM_OUTPUTS {}\n\n", firmware.signature.outputs.len()));
    for (kind, tensors) in [("INPUT", &firmware.signature.inputs), ("OUTPUT", &firmware.signature.outputs)] {
        for (i, t) in tensors.iter().enumerate() {
            let shape = dims(t).iter().map(i64::to_string).collect::<Vec<_>>().join(", ");
            h.push_str(&format!(
                "/* {kind_lower} {i} '{}': {} [{shape}] */\n#define {upper}_{kind}_{i}_SIZE {}\n",
                t.name.replace("*/", "* /"),
                c_type(t),
                byte_size(t),
                kind_lower = kind.to_ascii_lowercase(),
            ));
        }
    }
    h.push('\n');
    h.push_str(&format!("int32_t {name}_run(const void *const inputs[], void *const outputs[], void *workspace);\n\n"));
    h.push_str(&format!("#ifdef __cplusplus\n}}\n#endif\n\n#endif /* UMAC_{upper}_H */\n"));
    h
}

fn metadata(
    firmware: &Firmware,
    name: &str,
    cpu: Cpu,
    options: &FirmwareOptions,
    fixed_batch: bool,
) -> serde_json::Value {
    let tensor = |t: &umac_lowering::entry::TensorSig| {
        serde_json::json!({
            "name": t.name,
            "shape": dims(t),
            "dtype": dtype_of(t.element).map(|d| d.name()),
            "bytes": byte_size(t),
            "scale": serde_json::Value::Null,
            "zero_point": serde_json::Value::Null,
        })
    };
    let llvm_target = cpu.llvm_target();
    serde_json::json!({
        "name": name,
        "source": options.source,
        "umac_version": env!("CARGO_PKG_VERSION"),
        "target": {
            "name": cpu.name(),
            "triple": llvm_target.triple,
            "cpu": llvm_target.cpu,
            "opt": if options.optimize_for_size { "size" } else { "speed" },
        },
        "entry": format!("{name}_run"),
        "batch_fixed_to_1": fixed_batch,
        "inputs": firmware.signature.inputs.iter().map(tensor).collect::<Vec<_>>(),
        "outputs": firmware.signature.outputs.iter().map(tensor).collect::<Vec<_>>(),
        "workspace": {
            "bytes": firmware.workspace_size,
            "alignment": WORKSPACE_ALIGNMENT,
            "liveness_lower_bound": firmware.workspace_lower_bound,
        },
        "constants_bytes": firmware.rodata_bytes,
        "text_bytes": firmware.text_bytes,
        "operators": firmware.operators.iter().map(|o| serde_json::json!({
            "function": o.function,
            "target": o.target.as_deref().unwrap_or(cpu.name()),
            "composite": o.composite,
            "source_ops": o.source_ops,
        })).collect::<Vec<_>>(),
        "accelerators": options.accelerators.accelerators.iter().map(|c| serde_json::json!({
            "name": c.backend.name(),
            "attributes": c.attributes.values().iter().map(|(k, v)| (k.clone(), serde_json::json!(v.to_string()))).collect::<serde_json::Map<_, _>>(),
        })).collect::<Vec<_>>(),
        "placement": firmware.placements,
        "extern_functions": firmware.kernels.iter().map(|k| serde_json::json!({
            "symbol": k.symbol,
            "source": format!("runtime/{}", k.source),
        })).collect::<Vec<_>>(),
    })
}

/// The C sources of the kernels the object calls, for the header's note.
fn kernel_sources(firmware: &Firmware) -> String {
    let sources: Vec<String> = firmware.kernels.iter().map(|k| format!("umac's runtime/{}", k.source)).collect();
    if sources.is_empty() { "nothing (no call in this model)".into() } else { sources.join(", ") }
}

/// Sets quantization parameters of inputs (`kind` = "inputs") or outputs in `metadata`.
pub fn set_quantization(metadata: &mut serde_json::Value, kind: &str, index: usize, scale: &[f32], zero_point: &[i64]) {
    if let Some(entry) = metadata.get_mut(kind).and_then(|v| v.get_mut(index)) {
        entry["scale"] = serde_json::json!(scale);
        entry["zero_point"] = serde_json::json!(zero_point);
    }
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

    #[test]
    fn cpus_parse() {
        assert_eq!(Cpu::parse("cortex-m55").unwrap(), Cpu::CortexM55);
        let err = Cpu::parse("cortex-m85").unwrap_err().to_string();
        assert_eq!(err, "unknown target 'cortex-m85' (known: cortex-m55, cortex-m7, cortex-m4, host)");
    }
}

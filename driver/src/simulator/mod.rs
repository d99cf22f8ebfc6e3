//! Running a firmware compile on umac's simulator (umac-sim, targets/tynnp/docs/isa.md): the object is
//! linked in the simulated machine, hosting the devices the target's accelerators supply
//! (`Backend::device`), (code in the CU's instruction memory, constants in DDR) with
//! the C library functions it imports, inputs, outputs and workspace are placed in DDR (a pool
//! only the CPU reaches, `--pool NAME:SIZE:cpu`, in the control unit's DMEM below the stack), and
//! `N_run` is called on the RV32 control unit, cycle by cycle.

use crate::{
    Error,
    firmware::Firmware,
    llvm_object::llvm_target,
    signature::{dtype_of, sign_extend_odd_widths},
};
use umac_codegen_llvm as llvm;
use umac_runtime::Tensor;
use umac_sim::{
    Device, Machine,
    elf::{Layout, link},
    memory::{DMEM_BASE, DMEM_BYTES},
    report::{Report, report},
};

mod libgcc;

pub use libgcc::LIBGCC_VARIABLE;

/// The C library functions a model may import (`memcpy`, `memmove`, `memset`), as LLVM IR.
const SUPPORT: &str = include_str!("support.ll");

/// The top of DMEM the stack keeps, below which CPU-only pools go.
const STACK_BYTES: u32 = 64 << 10;

/// Instructions after which a run is taken to hang.
const LIMIT: u64 = 20_000_000_000;

/// What a simulated run produced.
pub struct SimulatedRun {
    /// The outputs, in order.
    pub outputs: Vec<Tensor>,
    /// Cycles, instructions, per function and per unit.
    pub report: Report,
}

fn run_error(message: String) -> Error {
    Error::Run(message)
}

/// The devices the simulator hosts for `targets`: each accelerator's, built for its attributes
/// (`Backend::device`).
pub fn devices(targets: &umac_backend::TargetSet) -> Result<Vec<Box<dyn Device>>, Error> {
    let mut devices = Vec::new();
    for accelerator in &targets.accelerators {
        let device = accelerator.backend.device(&accelerator.attributes).map_err(|e| Error::Usage(e.to_string()))?;
        devices.extend(device);
    }
    Ok(devices)
}

/// Runs `firmware` (compiled for an RV32 CPU) on the simulator, hosting `devices`.
pub fn simulate(firmware: &Firmware, inputs: &[Tensor], devices: Vec<Box<dyn Device>>) -> Result<SimulatedRun, Error> {
    let mut run = simulate_sequence(firmware, std::slice::from_ref(&inputs.to_vec()), devices)?;
    Ok(SimulatedRun { outputs: run.outputs.remove(0), report: run.report })
}

/// A sequence of inferences on the simulator.
pub struct SimulatedSequence {
    /// Each inference's outputs, in order.
    pub outputs: Vec<Vec<Tensor>>,
    /// Cycles, instructions, per function and per unit, of the whole sequence.
    pub report: Report,
}

/// Runs `firmware` on each of `inferences` (the inputs of one call each) in order on one
/// simulated machine, as firmware calls `N_run` again and again: a model's state (an LSTM's)
/// carries from one call to the next; the workspace and the outputs keep what the call before
/// left there.
pub fn simulate_sequence(
    firmware: &Firmware,
    inferences: &[Vec<Tensor>],
    devices: Vec<Box<dyn Device>>,
) -> Result<SimulatedSequence, Error> {
    let signature = &firmware.signature;
    let Some(inputs) = inferences.first() else {
        return Err(Error::Usage("no inference to run".into()));
    };
    for inputs in inferences {
        if inputs.len() != signature.inputs.len() {
            return Err(Error::Usage(format!(
                "the model takes {} inputs, {} were given",
                signature.inputs.len(),
                inputs.len()
            )));
        }
        for (i, (tensor, sig)) in inputs.iter().zip(&signature.inputs).enumerate() {
            if tensor.data.len() as u64 != sig.byte_size() {
                return Err(Error::Usage(format!(
                    "input {i} ({}) has {} bytes, the compiled model takes {}",
                    sig.describe(),
                    tensor.data.len(),
                    sig.byte_size()
                )));
            }
        }
    }
    let support = llvm::object_from_ir(SUPPORT, "support.ll", &llvm_target(&firmware.cpu), llvm::OptLevel::Speed)?;
    let mut m = Machine::with(devices).map_err(|e| run_error(e.to_string()))?;
    let mut objects = vec![("the model's object".to_string(), firmware.object.clone()), ("support.ll".into(), support)];
    // libgcc's helpers (64-bit division, floats without an FPU), as a firmware link takes them.
    let helpers = crate::firmware::checks::libgcc_imports(&firmware.imports);
    if !helpers.is_empty() {
        let defined = ["memcpy", "memmove", "memset"].map(String::from).into_iter().collect();
        objects.extend(libgcc::helpers(&helpers, &defined)?);
    }
    let objects: Vec<(&str, &[u8])> = objects.iter().map(|(name, bytes)| (name.as_str(), bytes.as_slice())).collect();
    // The program's static buffers of the CPU (`.dmem`) from DMEM's start, below the stack.
    let layout = Layout { local: (DMEM_BASE, DMEM_BASE + DMEM_BYTES - STACK_BYTES), ..Layout::default() };
    let program = link(&mut m, &objects, layout).map_err(|e| run_error(e.to_string()))?;
    let entry = firmware.metadata["entry"].as_str().ok_or_else(|| Error::Compile("metadata names no entry".into()))?;
    let entry = program.symbol(entry).map_err(|e| run_error(e.to_string()))?;

    // DDR after the program: inputs, outputs, workspace, then the two pointer arrays.
    let mut cursor = program.ddr_end.next_multiple_of(64);
    let mut place = |m: &mut Machine, bytes: &[u8]| -> Result<u32, Error> {
        let at = cursor;
        m.memory
            .write_bytes(at, bytes)
            .map_err(|_| run_error(format!("{} bytes do not fit the DDR window", bytes.len())))?;
        cursor = (at + bytes.len() as u32).next_multiple_of(64);
        Ok(at)
    };
    let mut input_addresses = Vec::new();
    for tensor in inputs {
        input_addresses.push(place(&mut m, &tensor.data)?);
    }
    // Outputs and workspace start as garbage: the model may not rely on their contents.
    let mut output_addresses = Vec::new();
    for sig in &signature.outputs {
        output_addresses.push(place(&mut m, &vec![0x5a; sig.byte_size() as usize])?);
    }
    // The workspace, or with pools one per pool: a CPU-only pool in DMEM, after the program's
    // static buffers there (the stack grows down from its end), the others in DDR.
    let mut workspaces = Vec::new();
    if firmware.pool_sizes.is_empty() {
        workspaces.push(place(&mut m, &vec![0xa5; firmware.workspace_size as usize])?);
    } else {
        if firmware.pool_sizes.len() > 6 {
            return Err(Error::Usage(format!("{} pools; the simulator passes at most 6", firmware.pool_sizes.len())));
        }
        // Every CPU-only pool, at its capacity, in DMEM below the stack.
        let capacities: u64 =
            firmware.pools.iter().filter(|p| p.cpu_only).map(|p| p.capacity.next_multiple_of(64)).sum();
        let mut dmem = program.local_end.next_multiple_of(64);
        let room = DMEM_BASE + DMEM_BYTES - STACK_BYTES - dmem;
        if capacities > u64::from(room) {
            return Err(Error::Usage(format!(
                "the CPU-only pools hold {capacities} bytes; the simulator puts them in DMEM, which has {room} \
                 bytes beside the stack's {STACK_BYTES} and the program's static buffers"
            )));
        }
        for (pool, &bytes) in firmware.pools.iter().zip(&firmware.pool_sizes) {
            if pool.cpu_only {
                m.memory
                    .write_bytes(dmem, &vec![0xa5; bytes as usize])
                    .map_err(|_| run_error(format!("pool {} does not fit DMEM", pool.name)))?;
                workspaces.push(dmem);
                dmem += pool.capacity.next_multiple_of(64) as u32;
            } else {
                workspaces.push(place(&mut m, &vec![0xa5; bytes as usize])?);
            }
        }
    }
    let words = |addresses: &[u32]| addresses.iter().flat_map(|a| a.to_le_bytes()).collect::<Vec<u8>>();
    let input_array = place(&mut m, &words(&input_addresses))?;
    let output_array = place(&mut m, &words(&output_addresses))?;

    let arguments: Vec<u32> = [input_array, output_array].into_iter().chain(workspaces).collect();
    let mut sequence = Vec::new();
    for (step, inputs) in inferences.iter().enumerate() {
        if step > 0 {
            for (tensor, &at) in inputs.iter().zip(&input_addresses) {
                m.memory.write_bytes(at, &tensor.data).map_err(|_| run_error("input outside memory".into()))?;
            }
        }
        let at_step = if inferences.len() > 1 { format!(" (inference {step})") } else { String::new() };
        let status = m
            .call(entry, &arguments, DMEM_BASE + DMEM_BYTES, LIMIT)
            .map_err(|stop| run_error(format!("the simulator stopped at {stop}{at_step}")))?;
        if status != 0 {
            return Err(run_error(format!("the model returned {}{at_step}", status as i32)));
        }
        let mut outputs = Vec::new();
        for (sig, &at) in signature.outputs.iter().zip(&output_addresses) {
            let dtype = dtype_of(sig.element).ok_or_else(|| {
                Error::Usage(format!("output {} has an element type .npy cannot hold", sig.describe()))
            })?;
            let shape: Vec<usize> = sig.dims().iter().map(|&d| d as usize).collect();
            let data =
                m.memory.bytes(at, sig.byte_size() as u32).map_err(|_| run_error("output outside memory".into()))?;
            let mut tensor = Tensor { dtype, shape, data: data.to_vec() };
            sign_extend_odd_widths(&mut tensor, sig.element);
            outputs.push(tensor);
        }
        sequence.push(outputs);
    }
    let report = report(&m, (0, 0), &kernel_labels(firmware), Some(accelerated_macs(firmware)));
    Ok(SimulatedSequence { outputs: sequence, report })
}

/// The multiply-accumulates of the model's ops that accelerators run (the source ops of their
/// operators), which bound the run whatever layout the jobs' constants take.
fn accelerated_macs(firmware: &Firmware) -> u64 {
    firmware.operators.iter().filter(|o| o.target.is_some()).map(|o| o.macs).sum()
}

/// A label for each accelerator composite in program order (the order its kernel is called
/// in): the composite and the location of its root op, which accelerators name their
/// composites after (`tynnp.conv2d` for a `tosa.conv2d`).
fn kernel_labels(firmware: &Firmware) -> Vec<String> {
    firmware
        .placements
        .iter()
        .filter_map(|p| {
            let composite = p.composite.as_deref()?;
            let (_, kind) = composite.split_once('.')?;
            (p.op == format!("tosa.{kind}")).then(|| {
                let file = p.location.rsplit('/').next().unwrap_or(&p.location);
                format!("{composite} at {file}")
            })
        })
        .collect()
}

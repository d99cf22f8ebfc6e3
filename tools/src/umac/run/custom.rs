//! `umac run` of a `.tflite` model holding custom operators a registered device runs: another
//! compiler's NPU program carried in the model (Arm Vela's `ethos-u` operator), with whatever that
//! compiler left to the CPU around it (a QUANTIZE of a float input, a DEQUANTIZE of the output, an
//! operator the NPU cannot do). Each custom operator runs on its device's functional model; the
//! operators the CPU runs before, between and after them run as `umac run` runs any model, on the
//! host engine: one function for each stretch, the part of the graph that computes what comes next
//! from what is known so far (`umac_frontend::tflite::to_tosa_between`). `--report` prints each
//! device's report of its program: its cycles by the device's timing model, first, and its rule
//! findings. `--sequence` runs the inferences stacked along the inputs' first axis one after
//! another, each device on one machine for all of them, which keeps an operator's variable tensors
//! (an LSTM's state) between them.

use super::{EngineArg, Loaded, RunArgs, write_outputs};
use std::collections::BTreeMap;
use umac_backend::TargetSet;
use umac_driver::{Error, host::Engine};
use umac_frontend::tflite::{Listed, ListedTensor};
use umac_runtime::{DType, Tensor, read_npy};

/// The element type TFLite names `name`, as a tensor file holds it.
fn dtype(name: &str) -> Option<DType> {
    Some(match name {
        "INT8" => DType::I8,
        "UINT8" => DType::U8,
        "INT16" => DType::I16,
        "INT32" => DType::I32,
        "INT64" => DType::I64,
        "FLOAT32" => DType::F32,
        "FLOAT64" => DType::F64,
        "BOOL" => DType::Bool,
        _ => return None,
    })
}

/// The model being run: its file, tensors and the values known so far, per inference.
struct Staged<'a> {
    args: &'a RunArgs,
    display: String,
    raw: Vec<u8>,
    tensors: Vec<ListedTensor>,
    /// Each known tensor's value in each inference.
    known: BTreeMap<usize, Vec<Tensor>>,
}

impl Staged<'_> {
    /// Computes `results` (tensors not known yet) on the host from what is known, for each
    /// inference: the part of the graph between them, compiled as one function.
    fn run_on_host(&mut self, results: &[usize]) -> Result<(), String> {
        let arguments: Vec<usize> = self.known.keys().copied().collect();
        let text = umac_frontend::tflite::to_tosa_between(&self.raw, &self.display, &arguments, results)
            .map_err(|e| format!("{}: {e}", self.display))?;
        let loaded = Loaded { name: self.display.clone(), bytes: text.into_bytes(), targets: TargetSet::default() };
        let engine = if self.args.engine == EngineArg::Llvm { Engine::Llvm } else { Engine::Cranelift };
        let steps = self.known.values().next().map_or(0, Vec::len);
        let inputs = |k: usize| -> Vec<Tensor> { self.known.values().map(|v| v[k].clone()).collect() };
        let program = loaded.compile(self.args, &inputs(0), engine, false)?;
        let mut computed: Vec<Vec<Tensor>> = vec![Vec::new(); results.len()];
        for k in 0..steps {
            let outputs = program.run(&inputs(k)).map_err(|e| e.to_string())?;
            for (column, tensor) in computed.iter_mut().zip(outputs) {
                column.push(tensor);
            }
        }
        self.known.extend(results.iter().copied().zip(computed));
        Ok(())
    }

    /// The value of output tensor `t` from a device's bytes.
    fn tensor(&self, t: usize, data: Vec<u8>) -> Result<Tensor, String> {
        let tensor = &self.tensors[t];
        let dtype = dtype(tensor.type_name)
            .ok_or_else(|| format!("{}: tensor '{}' is {}", self.display, tensor.name, tensor.type_name))?;
        let shape = tensor.shape.iter().map(|&d| usize::try_from(d).unwrap_or(0)).collect();
        Ok(Tensor { dtype, shape, data })
    }
}

/// Runs the model when it holds custom operators devices run; `Ok(false)` when it has none.
pub(super) fn run(args: &RunArgs) -> Result<bool, String> {
    if !args.model.extension().is_some_and(|e| e.eq_ignore_ascii_case("tflite")) {
        return Ok(false);
    }
    let display = args.model.display().to_string();
    let raw = std::fs::read(&args.model).map_err(|e| format!("could not open model '{display}': {e}"))?;
    // A file the listing cannot read goes the usual way, which reports it.
    let Ok(listed) = umac_frontend::tflite::operators(&raw) else { return Ok(false) };
    let devices: Vec<(&Listed, &dyn umac_sim::CustomOperator)> =
        listed.iter().filter_map(|op| umac_driver::custom_operator(&op.kind).map(|d| (op, d))).collect();
    let Some(&(_, first)) = devices.first() else { return Ok(false) };
    let code = first.custom_code();
    let flags = [
        (args.benchmark.is_some(), "--benchmark"),
        (args.dump_intermediates.is_some(), "--dump-intermediates"),
        (args.compare_unpartitioned, "--compare-unpartitioned"),
        (!args.pools.is_empty(), "--pool"),
        (args.engine == EngineArg::Both, "--engine both"),
    ];
    if let Some((_, flag)) = flags.iter().find(|(set, _)| *set) {
        return Err(format!(
            "{flag} does not apply yet to {display}, whose {code} operators run on their device's functional model"
        ));
    }
    let at = |op: &Listed, e: umac_sim::device::DeviceError| format!("{display}: {}: {}", op.label(), e.0);
    if let Some(target) = &args.target {
        for &(op, device) in &devices {
            let configuration = device.configuration(&raw, op.index).map_err(|e| at(op, e))?;
            if target.trim() != configuration {
                return Err(format!(
                    "{display}: its {code} operator was compiled for {configuration}, not {}",
                    target.trim()
                ));
            }
        }
    }
    let (model_inputs, model_outputs) =
        umac_frontend::tflite::io_tensors(&raw).map_err(|e| format!("{display}: {e}"))?;
    let tensors = umac_frontend::tflite::tensors(&raw).map_err(|e| format!("{display}: {e}"))?;
    // The CPU's operators run one inference at a time in stretches between the devices', so
    // state they keep between inferences would not see the devices' order.
    if devices.len() < listed.len() {
        let device_inputs: Vec<usize> =
            devices.iter().flat_map(|(op, _)| op.input_tensors.iter().flatten()).copied().collect();
        let stateful = listed.iter().find(|op| {
            matches!(op.kind.as_str(), "VAR_HANDLE" | "ASSIGN_VARIABLE" | "READ_VARIABLE" | "CALL_ONCE")
                || op.input_tensors.iter().flatten().any(|&t| tensors[t].is_variable && !device_inputs.contains(&t))
        });
        if let Some(op) = stateful {
            return Err(format!(
                "{display}: {} keeps state on the CPU beside its {code} operators, which umac run does not support yet",
                op.label()
            ));
        }
    }
    if args.inputs.len() != model_inputs.len() {
        return Err(format!("the model takes {} inputs, {} were given", model_inputs.len(), args.inputs.len()));
    }
    let files: Vec<Tensor> =
        args.inputs.iter().map(|p| read_npy(p).map_err(|e| e.to_string())).collect::<Result<_, _>>()?;
    // One inference, or with `--sequence` one per index of the inputs' first axis.
    let message = |e: Error| match e {
        Error::Usage(m) | Error::Limit(m) | Error::Run(m) | Error::Compile(m) => m,
        Error::Reported => "the inputs are not a sequence".into(),
    };
    let steps = if args.sequence { super::inferences(args, &files).map_err(message)? } else { vec![files] };
    for step in &steps {
        for ((file, path), &t) in step.iter().zip(&args.inputs).zip(&model_inputs) {
            let tensor = &tensors[t];
            if Some(file.dtype) != dtype(tensor.type_name) || Some(file.data.len() as u64) != tensor.bytes {
                return Err(format!(
                    "{} holds {} {}{}, the model's input '{}' is {} {:?}",
                    path.display(),
                    file.dtype,
                    file.shape_text(),
                    if args.sequence { " an inference" } else { "" },
                    tensor.name,
                    tensor.type_name,
                    tensor.shape
                ));
            }
        }
    }
    let mut known = BTreeMap::new();
    for (i, &t) in model_inputs.iter().enumerate() {
        known.insert(t, steps.iter().map(|step| step[i].clone()).collect());
    }
    let mut staged = Staged { args, display: display.clone(), raw, tensors, known };
    for &(op, device) in &devices {
        // The tensors the device reads in each inference (its feature maps, not its program,
        // memories or state).
        let given = device.inputs(&staged.raw, op.index).map_err(|e| at(op, e))?;
        let missing: Vec<usize> = given.iter().copied().filter(|t| !staged.known.contains_key(t)).collect();
        if !missing.is_empty() {
            staged.run_on_host(&missing)?;
        }
        let inferences: Vec<Vec<&[u8]>> =
            (0..steps.len()).map(|k| given.iter().map(|t| staged.known[t][k].data.as_slice()).collect()).collect();
        let outputs = device.run(&staged.raw, op.index, &inferences).map_err(|e| at(op, e))?;
        if args.report {
            eprint!("{}", device.report(&staged.raw, op.index).map_err(|e| at(op, e))?);
        }
        for (j, &t) in op.output_tensors.iter().enumerate() {
            let column = outputs
                .iter()
                .map(|o| {
                    let data = o.get(j).ok_or_else(|| format!("{display}: {} gave no output #{j}", op.label()))?;
                    staged.tensor(t, data.clone())
                })
                .collect::<Result<Vec<_>, _>>()?;
            staged.known.insert(t, column);
        }
    }
    let missing: Vec<usize> = model_outputs.iter().copied().filter(|t| !staged.known.contains_key(t)).collect();
    if !missing.is_empty() {
        staged.run_on_host(&missing)?;
    }
    let per_step: Vec<Vec<Tensor>> =
        (0..steps.len()).map(|k| model_outputs.iter().map(|t| staged.known[t][k].clone()).collect()).collect();
    let results = super::joined(args, &per_step, model_outputs.len()).map_err(message)?;
    write_outputs(args, &results, |i| staged.tensors[model_outputs[i]].name.clone())?;
    Ok(true)
}

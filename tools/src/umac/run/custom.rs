//! `umac run` of a model that is one custom operator a registered device runs whole: another
//! compiler's NPU program carried in the `.tflite` (Arm Vela's `ethos-u` operator). The inputs go
//! into the device's memories where the model places them, the program runs on the device's
//! functional model, and the outputs come out as any model's do. `--report` prints the device's
//! report of the program: its cycles by the device's timing model, first, and its rule findings.
//! `--sequence` runs the inferences stacked along the inputs' first axis one after another on one
//! device, which keeps the operator's variable tensors (an LSTM's state) between them.

use super::{EngineArg, RunArgs, write_outputs};
use umac_driver::Error;
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

/// Runs the model when it is one custom operator a device runs; `Ok(false)` when it is not.
pub(super) fn run(args: &RunArgs) -> Result<bool, String> {
    if !args.model.extension().is_some_and(|e| e.eq_ignore_ascii_case("tflite")) {
        return Ok(false);
    }
    let display = args.model.display().to_string();
    let raw = std::fs::read(&args.model).map_err(|e| format!("could not open model '{display}': {e}"))?;
    // A file the listing cannot read goes the usual way, which reports it.
    let Ok(listed) = umac_frontend::tflite::operators(&raw) else { return Ok(false) };
    let Some((op, device)) = listed.iter().find_map(|op| umac_driver::custom_operator(&op.kind).map(|d| (op, d)))
    else {
        return Ok(false);
    };
    let code = device.custom_code();
    if listed.len() != 1 {
        return Err(format!(
            "{display}: {} runs on its device only in a model of that one operator; this one has {} \
             (CPU operators beside it are not supported yet)",
            op.label(),
            listed.len()
        ));
    }
    let flags = [
        (args.benchmark.is_some(), "--benchmark"),
        (args.dump_intermediates.is_some(), "--dump-intermediates"),
        (args.compare_unpartitioned, "--compare-unpartitioned"),
        (!args.pools.is_empty(), "--pool"),
        (args.engine != EngineArg::Cranelift, "--engine"),
    ];
    if let Some((_, flag)) = flags.iter().find(|(set, _)| *set) {
        return Err(format!(
            "{flag} does not apply yet to {display}, a model of one {code} operator, which runs whole on \
             its device's functional model"
        ));
    }
    let at = |e: umac_sim::device::DeviceError| format!("{display}: {}: {}", op.label(), e.0);
    if let Some(target) = &args.target {
        let configuration = device.configuration(&raw, op.index).map_err(at)?;
        if target.trim() != configuration {
            return Err(format!(
                "{display}: its {code} operator was compiled for {configuration}, not {}",
                target.trim()
            ));
        }
    }
    let (model_inputs, model_outputs) =
        umac_frontend::tflite::io_tensors(&raw).map_err(|e| format!("{display}: {e}"))?;
    let tensors = umac_frontend::tflite::tensors(&raw).map_err(|e| format!("{display}: {e}"))?;
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
    // The operator's inputs past its program and memories (the read-only tensor, the scratch
    // tensors), in its order, from the model's inputs; its variable tensors (an LSTM's state)
    // the device keeps from one inference to the next.
    let mut given = Vec::new();
    for &t in op.input_tensors.iter().skip(4).flatten() {
        match model_inputs.iter().position(|&m| m == t) {
            Some(k) => given.push(k),
            None if tensors[t].is_variable => {}
            None => {
                return Err(format!(
                    "{display}: {} reads tensor {t}, which is neither a model input nor a variable",
                    op.label()
                ));
            }
        }
    }
    let inferences: Vec<Vec<&[u8]>> =
        steps.iter().map(|step| given.iter().map(|&k| step[k].data.as_slice()).collect()).collect();
    let outputs = device.run(&raw, op.index, &inferences).map_err(at)?;
    if args.report {
        eprint!("{}", device.report(&raw, op.index).map_err(at)?);
    }
    let mut per_step = Vec::new();
    for outputs in &outputs {
        let mut results = Vec::new();
        for &t in &model_outputs {
            let k = op
                .output_tensors
                .iter()
                .position(|&o| o == t)
                .ok_or_else(|| format!("{display}: output tensor {t} is not {}'s", op.label()))?;
            let tensor = &tensors[t];
            let dtype = dtype(tensor.type_name)
                .ok_or_else(|| format!("{display}: output '{}' is {}", tensor.name, tensor.type_name))?;
            let shape = tensor.shape.iter().map(|&d| usize::try_from(d).unwrap_or(0)).collect();
            results.push(Tensor { dtype, shape, data: outputs[k].clone() });
        }
        per_step.push(results);
    }
    let results = super::joined(args, &per_step, model_outputs.len()).map_err(message)?;
    write_outputs(args, &results, |i| tensors[model_outputs[i]].name.clone())?;
    Ok(true)
}

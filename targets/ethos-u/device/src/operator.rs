//! An `ethos-u` operator of a Vela-compiled `.tflite`, ready to run on the functional model.
//!
//! The operator's first input is the driver payload; its other inputs, then its outputs, are the
//! regions in order (`BASEP0`, `BASEP1`, ...), as TFLite Micro's ethos-u kernel passes them to
//! the driver: the read-only tensor, the scratch and fast scratch tensors, then the feature maps
//! the NPU reads and writes. Vela's offline memory plan (the model's `OfflineMemoryAllocation`
//! metadata: three header words, then one arena offset per tensor, -1 for none) places the
//! scratch tensor and the feature maps in one arena, so their regions overlap where Vela put
//! them; a tensor outside the plan is a memory of its own. A fast scratch tensor other than the
//! scratch tensor (Vela's Dedicated_Sram mode, the U65's default) is the driver's fast memory,
//! which replaces the region's base (Arm's core driver), so it is a memory of its own too.

use umac_frontend::tflite::model::MAX_TENSOR_BYTES;

use crate::{
    coverage,
    error::EthosUError,
    machine::Machine,
    payload::{self, Payload},
    registers::operations,
    rules,
    stream::decode,
    timing::{self, System},
};

/// The name TFLite gives the operator.
pub const CUSTOM_CODE: &str = "ethos-u";

/// Where a tensor lies: its memory, its offset there and its bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Place {
    pub memory: usize,
    pub offset: u64,
    pub bytes: u64,
}

/// The operator, read from its model.
#[derive(Clone, Debug)]
pub struct EthosUOperator {
    /// Its index among the model's operators.
    pub index: usize,
    pub payload: Payload,
    /// Each memory's initial bytes (constant data, or zeros).
    memories: Vec<Vec<u8>>,
    /// What holds nothing written when the machine starts: the arena, and the memories of
    /// tensors outside it that are not constant.
    unwritten: Vec<Place>,
    /// Each variable tensor and the byte TFLite Micro sets it to at first
    /// (`ResetVariableTensors`: an int8 tensor's zero point, or zero).
    resets: Vec<(Place, u8)>,
    /// Each region's place.
    regions: Vec<Place>,
    /// The feature maps the NPU reads (the operator's inputs after the scratch tensors) and
    /// writes (its outputs).
    pub inputs: Vec<Place>,
    pub outputs: Vec<Place>,
    /// Which of `inputs` are variable tensors: state the operator keeps from one inference to the
    /// next (an LSTM's), which the caller does not give.
    pub variables: Vec<bool>,
    /// The tensors the caller gives (`inputs` but the variables), by their index in the model.
    pub given: Vec<usize>,
}

fn model_error(message: String) -> EthosUError {
    EthosUError::Model { message }
}

/// The `OfflineMemoryAllocation` offsets of a model's tensors (`None`: not planned offline).
fn offline_plan(model: &[u8]) -> Result<Vec<Option<u64>>, EthosUError> {
    let metadata =
        umac_frontend::tflite::metadata(model, "OfflineMemoryAllocation").map_err(|e| model_error(e.to_string()))?;
    let Some(bytes) = metadata else { return Ok(Vec::new()) };
    let words: Vec<i32> = bytes.chunks_exact(4).map(|w| i32::from_le_bytes([w[0], w[1], w[2], w[3]])).collect();
    let count = words.get(2).and_then(|&n| usize::try_from(n).ok()).filter(|&n| words.len() >= 3 + n);
    let count = count.ok_or_else(|| model_error("its OfflineMemoryAllocation metadata is malformed".into()))?;
    Ok(words[3..3 + count].iter().map(|&o| u64::try_from(o).ok()).collect())
}

impl EthosUOperator {
    /// Reads operator `index` of `model` (a `.tflite` file's bytes).
    pub fn read(model: &[u8], index: usize) -> Result<EthosUOperator, EthosUError> {
        let fail = |e: umac_frontend::Error| model_error(e.to_string());
        let listed = umac_frontend::tflite::operators(model).map_err(fail)?;
        let op = listed
            .get(index)
            .filter(|op| op.kind == CUSTOM_CODE)
            .ok_or_else(|| model_error(format!("operator #{index} is not an {CUSTOM_CODE} operator")))?;
        let at = |e: EthosUError| model_error(format!("operator #{index}: {e}"));
        let data = umac_frontend::tflite::operand_data(model, index).map_err(fail)?;
        let payload = payload::read(data.first().copied().flatten().ok_or_else(|| {
            model_error(format!("operator #{index}: its first input is not a constant command stream"))
        })?)
        .map_err(at)?;
        let listed_tensors = umac_frontend::tflite::tensors(model).map_err(fail)?;
        let sizes: Vec<Option<u64>> = listed_tensors.iter().map(|t| t.bytes).collect();
        let plan = offline_plan(model)?;
        // The regions' tensors: the inputs after the payload, then the outputs.
        let tensors: Vec<Option<usize>> =
            op.input_tensors.iter().skip(1).copied().chain(op.output_tensors.iter().map(|&t| Some(t))).collect();
        let offset_of = |t: usize| plan.get(t).copied().flatten();
        let bytes_of = |t: usize| {
            sizes.get(t).copied().flatten().ok_or_else(|| model_error(format!("tensor {t}'s size is unknown")))
        };
        // The arena holds every planned tensor; memory 0 is the arena, then one per other tensor.
        let mut arena = 0;
        for t in tensors.iter().flatten() {
            if let Some(offset) = offset_of(*t) {
                arena = arena.max(offset.saturating_add(bytes_of(*t)?));
            }
        }
        // What the regions take in all, the arena and each memory of its own: no more than the
        // largest tensor the reader accepts (no system of the NPU holds more).
        let mut total = 0u64;
        let mut take = |bytes: u64| {
            total = total.saturating_add(bytes);
            if total > MAX_TENSOR_BYTES {
                return Err(model_error(format!(
                    "operator #{index}: its regions take more than the {MAX_TENSOR_BYTES} bytes umac simulates"
                )));
            }
            Ok(())
        };
        take(arena)?;
        let mut memories = vec![vec![0u8; arena as usize]];
        let mut unwritten = vec![Place { memory: 0, offset: 0, bytes: arena }];
        let mut places = Vec::new();
        for (k, t) in tensors.iter().enumerate() {
            let Some(t) = *t else {
                return Err(model_error(format!("operator #{index}: region {k} has no tensor")));
            };
            let bytes = bytes_of(t)?;
            let constant = data.get(k + 1).copied().flatten().filter(|_| k + 1 < data.len());
            // Region 2, the fast scratch: the driver's own memory unless it is the scratch tensor.
            let fast = k == 2 && tensors.get(1).copied().flatten() != Some(t);
            let planned = offset_of(t).filter(|_| !fast);
            let place = match (planned, constant) {
                (Some(offset), None) => Place { memory: 0, offset, bytes },
                (_, Some(constant)) => {
                    take(bytes)?;
                    memories.push(constant.to_vec());
                    Place { memory: memories.len() - 1, offset: 0, bytes }
                }
                (None, None) => {
                    take(bytes)?;
                    memories.push(vec![0; bytes as usize]);
                    unwritten.push(Place { memory: memories.len() - 1, offset: 0, bytes });
                    Place { memory: memories.len() - 1, offset: 0, bytes }
                }
            };
            places.push(place);
        }
        // The feature maps: the inputs after the read-only and the two scratch tensors.
        let inputs = places.get(3..op.input_tensors.len().saturating_sub(1)).unwrap_or_default().to_vec();
        let outputs = places[op.input_tensors.len().saturating_sub(1)..].to_vec();
        let feature_maps: Vec<Option<usize>> = op.input_tensors.iter().skip(4).copied().collect();
        let variable = |t: Option<usize>| t.and_then(|t| listed_tensors.get(t)).is_some_and(|t| t.is_variable);
        let variables: Vec<bool> =
            (0..inputs.len()).map(|k| variable(feature_maps.get(k).copied().flatten())).collect();
        let given = feature_maps.iter().flatten().copied().filter(|&t| !variable(Some(t))).collect();
        let reset = |t: usize| match &listed_tensors[t] {
            tensor if tensor.type_name == "INT8" => tensor.zero_point.unwrap_or(0) as u8,
            _ => 0,
        };
        let resets = inputs
            .iter()
            .zip(&feature_maps)
            .filter_map(|(place, t)| t.filter(|&t| variable(Some(t))).map(|t| (*place, reset(t))))
            .collect();
        Ok(EthosUOperator {
            index,
            payload,
            memories,
            unwritten,
            resets,
            regions: places,
            inputs,
            outputs,
            variables,
            given,
        })
    }

    /// Each region's memory and where in it the region starts.
    pub fn regions(&self) -> Vec<(usize, u64)> {
        self.regions.iter().map(|p| (p.memory, p.offset)).collect()
    }

    /// The timing model's estimate of the operator's stream in the system Vela compiles for by
    /// default, the rule checker's findings, and the commands and field values no tested Vela
    /// stream used, as `umac run --report` prints them.
    pub fn report(&self) -> Result<String, EthosUError> {
        let config = &self.payload.config;
        let instructions = decode(&self.payload.stream)?;
        let ops = operations(&instructions);
        let system = System::default_for(config);
        let timing = timing::estimate(config, &system, &ops)?;
        let findings = rules::check(config, &ops, &self.regions())?;
        Ok(timing::report::text(config, &system, &timing, &findings, &coverage::unseen(&instructions)))
    }

    /// A machine with the operator's memories as they start: the constant data, the variable
    /// tensors set as TFLite Micro sets them, and nothing written elsewhere.
    pub fn machine(&self) -> Machine {
        let mut machine = Machine::new(self.payload.config, self.memories.clone(), self.regions());
        for p in &self.unwritten {
            machine.forget(p.memory, p.offset as usize..(p.offset + p.bytes) as usize);
        }
        for (p, byte) in &self.resets {
            machine.store(p.memory, p.offset as usize, &vec![*byte; p.bytes as usize]);
        }
        machine
    }

    /// Runs the operator on `machine` with `inputs` (one per feature map it reads but its
    /// variable tensors, its bytes); returns its outputs' bytes. The variable tensors keep what
    /// the runs before on the machine left in them.
    pub fn run(&self, machine: &mut Machine, inputs: &[&[u8]]) -> Result<Vec<Vec<u8>>, EthosUError> {
        let given: Vec<&Place> =
            self.inputs.iter().zip(&self.variables).filter(|&(_, &variable)| !variable).map(|(p, _)| p).collect();
        if inputs.len() != given.len() {
            return Err(model_error(format!(
                "the operator reads {} feature maps, {} were given",
                given.len(),
                inputs.len()
            )));
        }
        for (k, (place, data)) in given.into_iter().zip(inputs).enumerate() {
            if data.len() as u64 != place.bytes {
                return Err(model_error(format!(
                    "input {k} has {} bytes, the operator reads {}",
                    data.len(),
                    place.bytes
                )));
            }
            machine.store(place.memory, place.offset as usize, data).ok_or_else(|| {
                model_error(format!("input {k} lies outside its memory (a constant shorter than its tensor)"))
            })?;
        }
        machine.run(&self.payload.stream, |_, _| {})?;
        let mut outputs = Vec::new();
        for (k, p) in self.outputs.iter().enumerate() {
            let range = p.offset as usize..(p.offset + p.bytes) as usize;
            if machine.memories[p.memory].get(range.clone()).is_none() {
                return Err(model_error(format!(
                    "output {k} lies outside its memory (a constant shorter than its tensor)"
                )));
            }
            if let Some(at) = machine.unwritten(p.memory, range.clone()) {
                let missing = range.clone().filter(|&b| machine.unwritten(p.memory, b..b + 1).is_some()).count();
                return Err(EthosUError::Output {
                    index: k,
                    message: format!(
                        "{missing} of its {} bytes, the first at byte {}, were never written by the command stream",
                        p.bytes,
                        at - range.start
                    ),
                });
            }
            outputs.push(machine.memories[p.memory][range].to_vec());
        }
        Ok(outputs)
    }
}

/// Runs `ethos-u` operators for `umac run` (`targets/registry` lists it).
pub struct Runner;

/// What the registry lists.
pub static CUSTOM_OPERATOR: Runner = Runner;

impl umac_sim::CustomOperator for Runner {
    fn custom_code(&self) -> &'static str {
        CUSTOM_CODE
    }

    fn configuration(&self, model: &[u8], index: usize) -> Result<String, umac_sim::device::DeviceError> {
        let operator = EthosUOperator::read(model, index).map_err(|e| e.to_string())?;
        Ok(operator.payload.config.name())
    }

    fn inputs(&self, model: &[u8], index: usize) -> Result<Vec<usize>, umac_sim::device::DeviceError> {
        Ok(EthosUOperator::read(model, index).map_err(|e| e.to_string())?.given)
    }

    fn run(
        &self,
        model: &[u8],
        index: usize,
        inferences: &[Vec<&[u8]>],
    ) -> Result<Vec<Vec<Vec<u8>>>, umac_sim::device::DeviceError> {
        let operator = EthosUOperator::read(model, index).map_err(|e| e.to_string())?;
        let mut machine = operator.machine();
        let mut outputs = Vec::new();
        for inputs in inferences {
            outputs.push(operator.run(&mut machine, inputs).map_err(|e| e.to_string())?);
        }
        Ok(outputs)
    }

    fn report(&self, model: &[u8], index: usize) -> Result<String, umac_sim::device::DeviceError> {
        Ok(EthosUOperator::read(model, index).and_then(|o| o.report()).map_err(|e| e.to_string())?)
    }
}

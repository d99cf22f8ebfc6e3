//! Vela's streams for the Ethos-U55-128 run on the functional model from the models' reference
//! inputs, against umac's own run of the original models (bit-exact with TFLite Micro;
//! `tests/reference/gen.sh`): KWS layer by layer, VWW's 27 convolution layers up to its pool.

mod common;

use common::{npy_data, operand_of, vela};
use std::path::Path;
use umac_ethos_u_device::{EthosUOperator, Machine, Operation, decode, feature_map::Which, operations, payload};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The machine with `model`'s Vela stream for the U55-128 loaded and its reference input in
/// place, and the stream's operations.
fn loaded(model: &str) -> (Machine, Vec<Operation>) {
    let (mut machine, ops) = empty(model);
    let input = npy_data(&root().join(format!("../../../test/models/mlperf-tiny/{model}/ref/input_0.npy"))).unwrap();
    place_input(&mut machine, &ops, &input);
    (machine, ops)
}

/// The machine with `model`'s Vela stream for the U55-128 loaded, and its operations.
fn empty(model: &str) -> (Machine, Vec<Operation>) {
    let file = root().join(format!("tests/vela/{model}-ethos-u55-128/model_vela.tflite"));
    let payload = payload::read(&operand_of(&file, 0).unwrap()).unwrap();
    // Region 0 is the read-only tensor; 1 and 2 are the scratch tensor (Shared_Sram).
    let flash = operand_of(&file, 1).unwrap();
    let machine = Machine::new(payload.config, vec![flash, vec![0; 1 << 20]], vec![(0, 0), (1, 0), (1, 0)]);
    (machine, operations(&decode(&payload.stream).unwrap()))
}

/// Puts `input` where the first convolution reads it (where Vela's offline plan put the model's
/// input).
fn place_input(machine: &mut Machine, ops: &[Operation], input: &[u8]) {
    let ifm = ops.iter().find(|op| op.command.name == "NPU_OP_CONV").unwrap().feature_map(Which::Ifm).unwrap();
    let at = ifm.bases[0] as usize;
    machine.memories[1][at..at + input.len()].copy_from_slice(input);
}

/// The `[h, w, c]` feature map `which` of `op` as it is in `machine`, in HWC order.
fn feature_map(machine: &Machine, op: &Operation, which: Which, [h, w, c]: [u64; 3]) -> Vec<u8> {
    let map = op.feature_map(which).unwrap();
    let bytes = machine.memory(map.region).unwrap();
    let mut got = Vec::new();
    for y in 0..h {
        for x in 0..w {
            for z in 0..c {
                got.push(bytes[map.address(y, x, z) as usize]);
            }
        }
    }
    got
}

#[test]
fn kws_convolutions_match_the_reference_layer_by_layer() {
    let layers = std::fs::read(root().join("tests/reference/kws_layers.bin")).unwrap();
    let (mut machine, ops) = loaded("kws");
    // Each layer's output is checked where the next layer reads it whole, before that runs: the
    // k-th depthwise convolution reads layer 2k (from 0), the convolutions from the third on
    // layers 1, 3, 5, 7 (the first two are the stripes of layer 0, 32 channels each), the
    // average pool layer 8.
    let mut checked = Vec::new();
    let (mut convolutions, mut depthwise) = (0, 0);
    for op in &ops {
        let layer = match op.command.name {
            "NPU_OP_CONV" => {
                convolutions += 1;
                (3..=6).contains(&convolutions).then(|| 2 * (convolutions - 3) + 1)
            }
            "NPU_OP_DEPTHWISE" => {
                depthwise += 1;
                Some(2 * (depthwise - 1))
            }
            "NPU_OP_POOL" => Some(8),
            _ => None,
        };
        if let Some(layer) = layer.filter(|l| !checked.contains(l)) {
            let got = feature_map(&machine, op, Which::Ifm, [25, 5, 64]);
            let expected = &layers[layer * 8000..(layer + 1) * 8000];
            let wrong = got.iter().zip(expected).filter(|(a, b)| a != b).count();
            assert_eq!(wrong, 0, "layer {layer} (read at {:#x}): {wrong} of 8000 bytes differ", op.offset);
            checked.push(layer);
            if layer == 8 {
                break;
            }
        }
        machine.execute(op).unwrap_or_else(|e| panic!("{e}"));
    }
    assert_eq!(checked, [0, 1, 2, 3, 4, 5, 6, 7, 8]);
}

#[test]
fn vww_convolutions_match_the_reference_up_to_the_pool() {
    let expected = std::fs::read(root().join("tests/reference/vww_pool_input.bin")).unwrap();
    let (mut machine, ops) = loaded("vww");
    let pool = ops.iter().position(|op| op.command.name == "NPU_OP_POOL").unwrap();
    for op in &ops[..pool] {
        machine.execute(op).unwrap_or_else(|e| panic!("{e}"));
    }
    // The average pool reads the last convolution layer's 3x3x256 output.
    let got = feature_map(&machine, &ops[pool], Which::Ifm, [3, 3, 256]);
    let wrong = got.iter().zip(&expected).filter(|(a, b)| a != b).count();
    assert_eq!(wrong, 0, "{wrong} of {} bytes differ", expected.len());
}

/// Runs `model`'s stream up to its first maximum pool (where the softmax begins), checking the
/// average pool's and the fully connected layer's outputs against `head` (their bytes, in order).
fn check_head(model: &str, [pooled, classes]: [u64; 2]) {
    let head = std::fs::read(root().join(format!("tests/reference/{model}_head.bin"))).unwrap();
    let (mut machine, ops) = loaded(model);
    let average = ops.iter().position(|op| op.command.name == "NPU_OP_POOL").unwrap();
    let fully_connected =
        average + 1 + ops[average + 1..].iter().position(|op| op.command.name == "NPU_OP_CONV").unwrap();
    for op in &ops[..=fully_connected] {
        machine.execute(op).unwrap_or_else(|e| panic!("{e}"));
    }
    assert_eq!(
        feature_map(&machine, &ops[average], Which::Ofm, [1, 1, pooled]),
        head[..pooled as usize],
        "{model}: the pool"
    );
    assert_eq!(
        feature_map(&machine, &ops[fully_connected], Which::Ofm, [1, 1, classes]),
        head[pooled as usize..],
        "{model}: the fully connected layer"
    );
}

#[test]
fn the_pools_and_fully_connected_layers_match_the_reference() {
    check_head("kws", [64, 12]);
    check_head("vww", [256, 2]);
    check_head("ic", [64, 10]);
}

#[test]
fn ad_runs_whole_five_times_on_one_machine_bit_exact_with_tflite_micro() {
    // The operator as the .tflite gives it: regions from its tensors, the input and output where
    // Vela's offline plan put them in the arena.
    let model = std::fs::read(root().join("tests/vela/ad-ethos-u55-128/model_vela.tflite")).unwrap();
    let index = umac_frontend::tflite::operators(&model).unwrap().iter().position(|op| op.kind == "ethos-u").unwrap();
    let operator = EthosUOperator::read(&model, index).unwrap();
    assert_eq!((operator.inputs.len(), operator.outputs.len()), (1, 1));
    // Vela computes the fully connected layers' multipliers in float32 as LiteRT does (layer 0:
    // 1638001653 >> 39, against TFLite Micro's 1638001719 >> 39). Run with double rounding, the
    // stream still gives TFLite Micro's outputs on all five inputs; LiteRT's own outputs
    // (`output_litert_*.npy`) differ from both by one in places, so LiteRT rounds otherwise.
    let mut machine = operator.machine();
    let first = &operations(&decode(&operator.payload.stream).unwrap())[0];
    let region = first.register("NPU_SET_SCALE_REGION", "region").unwrap();
    let scales = first.register("NPU_SET_SCALE_BASE", "addr").unwrap() as usize;
    let record = umac_ethos_u_device::scales::read(&machine.memory(region).unwrap()[scales..], 1).unwrap()[0];
    assert_eq!((record.multiplier, record.shift), (1_638_001_653, 39));
    let reference = root().join("../../../test/models/mlperf-tiny/ad/ref");
    for k in 0..5 {
        let input = npy_data(&reference.join(format!("input_{k}.npy"))).unwrap();
        let outputs = operator.run(&mut machine, &[&input]).unwrap_or_else(|e| panic!("{e}"));
        let expected = npy_data(&reference.join(format!("output_{k}.npy"))).unwrap();
        let wrong = outputs[0].iter().zip(&expected).filter(|(a, b)| a != b).count();
        assert_eq!((outputs[0].len(), wrong), (expected.len(), 0), "input {k}: {wrong} bytes differ");
    }
}

#[test]
fn the_offline_plan_puts_kws_input_where_its_first_convolution_reads() {
    let model = std::fs::read(root().join("tests/vela/kws-ethos-u55-128/model_vela.tflite")).unwrap();
    let operator = EthosUOperator::read(&model, 0).unwrap();
    let ops = operations(&decode(&operator.payload.stream).unwrap());
    let ifm = ops.iter().find(|op| op.command.name == "NPU_OP_CONV").unwrap().feature_map(Which::Ifm).unwrap();
    // Region 1 (the scratch tensor) starts at the arena's start, as the input (490 bytes).
    let machine = operator.machine();
    assert_eq!(machine.regions[ifm.region as usize], (0, 0));
    assert_eq!(
        (operator.inputs[0].memory, operator.inputs[0].offset, operator.inputs[0].bytes),
        (0, ifm.bases[0], 490)
    );
    // An operator index that is not an ethos-u operator is an error naming it, and feature maps
    // not as the operator reads them are errors naming the input.
    fn error<T>(result: Result<T, umac_ethos_u_device::EthosUError>) -> String {
        result.map(|_| ()).unwrap_err().to_string()
    }
    assert_eq!(error(EthosUOperator::read(&model, 1)), "operator #1 is not an ethos-u operator");
    let mut machine = operator.machine();
    assert_eq!(error(operator.run(&mut machine, &[])), "the operator reads 1 feature maps, 0 were given");
    assert_eq!(error(operator.run(&mut machine, &[&[0; 489]])), "input 0 has 489 bytes, the operator reads 490");
    // A plan that puts a tensor past 2 GiB is an error, not an arena of that size: the plan's
    // offset of the tensor at the input's offset (the first such word after the header) moved
    // to 0x7fff_fff0.
    let plan = umac_frontend::tflite::metadata(&model, "OfflineMemoryAllocation").unwrap().unwrap();
    let at = model.windows(plan.len()).position(|w| w == plan).unwrap();
    let word = (3..plan.len() / 4).find(|&k| plan[4 * k..4 * k + 4] == (ifm.bases[0] as i32).to_le_bytes()).unwrap();
    let mut far = model.clone();
    far[at + 4 * word..at + 4 * word + 4].copy_from_slice(&0x7fff_fff0i32.to_le_bytes());
    let message = EthosUOperator::read(&far, 0).unwrap_err().to_string();
    assert_eq!(message, "operator #0: its regions take more than the 2147483648 bytes umac simulates");
}

#[test]
fn ic_residual_additions_match_the_reference() {
    let adds = std::fs::read(root().join("tests/reference/ic_adds.bin")).unwrap();
    let (mut machine, ops) = loaded("ic");
    let pool = ops.iter().position(|op| op.command.name == "NPU_OP_POOL").unwrap();
    let (mut checked, mut at) = (0, 0);
    for op in &ops[..pool] {
        machine.execute(op).unwrap_or_else(|e| panic!("{e}"));
        if op.command.name == "NPU_OP_ELEMENTWISE" {
            let shape = [[32, 32, 16], [16, 16, 32], [8, 8, 64]][checked];
            let bytes = (shape[0] * shape[1] * shape[2]) as usize;
            let got = feature_map(&machine, op, Which::Ofm, shape);
            let wrong = got.iter().zip(&adds[at..at + bytes]).filter(|(a, b)| a != b).count();
            assert_eq!(wrong, 0, "addition {checked}: {wrong} of {bytes} bytes differ");
            (checked, at) = (checked + 1, at + bytes);
        }
    }
    assert_eq!(checked, 3);
}

#[test]
fn every_model_runs_whole_bit_exact_with_tflite_micro() {
    // Every model (the MLPerf Tiny four, conv_16x8's int16 activations, the LSTMs) on every
    // configuration (the U65-512's two cores each with a weight and scale stream of its own):
    // five reference inputs each, one after another on one machine, which keeps the LSTMs'
    // state from one to the next as TFLite Micro's interpreter did.
    for (model, configuration) in vela::MODELS.iter().flat_map(|m| vela::CONFIGURATIONS.map(|c| (*m, c))) {
        let file = std::fs::read(root().join(format!("tests/vela/{model}-{configuration}/model_vela.tflite"))).unwrap();
        let operator = EthosUOperator::read(&file, 0).unwrap();
        // The model's output among the operator's (an LSTM's also writes its state).
        let (_, model_outputs) = umac_frontend::tflite::io_tensors(&file).unwrap();
        let listed = umac_frontend::tflite::operators(&file).unwrap();
        let output = listed[0].output_tensors.iter().position(|&t| t == model_outputs[0]).unwrap();
        let mut machine = operator.machine();
        let reference = vela::reference_dir(model);
        for k in 0..5 {
            let input = npy_data(&reference.join(format!("input_{k}.npy"))).unwrap();
            let outputs =
                operator.run(&mut machine, &[&input]).unwrap_or_else(|e| panic!("{model} {configuration}: {e}"));
            let expected = npy_data(&reference.join(format!("output_{k}.npy"))).unwrap();
            assert_eq!(outputs[output], expected, "{model} on the {configuration}, input {k}");
        }
    }
}

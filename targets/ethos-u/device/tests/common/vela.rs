//! Vela's own cycle estimate of a compiled model (`tests/vela/*/vela_summary.csv` and
//! `vela_per-layer.csv`, which `tests/vela/gen.sh` keeps), and the timing model's beside it.

use std::path::{Path, PathBuf};
use umac_ethos_u_device::{
    EthosUOperator, decode, operations,
    timing::{self, OpTiming, System, Timing},
};

/// The models `tests/vela/` holds, each compiled for every configuration (`<model>-<configuration>`):
/// the MLPerf Tiny four, and the int8 models of `test/models/lstm-16x8`: conv_16x8 (int16
/// activations) and two LSTMs (their state kept from one inference to the next).
pub const MODELS: [&str; 7] = ["kws", "vww", "ic", "ad", "conv16x8", "lstmsmall", "lstmstack"];
pub const CONFIGURATIONS: [&str; 6] =
    ["ethos-u55-32", "ethos-u55-64", "ethos-u55-128", "ethos-u55-256", "ethos-u65-256", "ethos-u65-512"];

/// Every compiled model's folder name.
pub fn all() -> Vec<String> {
    MODELS.iter().flat_map(|m| CONFIGURATIONS.map(|c| format!("{m}-{c}"))).collect()
}

/// The folder of `model`'s reference inputs and TFLite Micro's outputs (`input_<k>.npy`,
/// `output_<k>.npy`, k = 0..4).
pub fn reference_dir(model: &str) -> PathBuf {
    let models = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../test/models");
    match model {
        "conv16x8" => models.join("lstm-16x8/ref/conv_16x8"),
        "lstmsmall" => models.join("lstm-16x8/ref/lstm_small_int8"),
        "lstmstack" => models.join("lstm-16x8/ref/lstm_stack_int8"),
        _ => models.join("mlperf-tiny").join(model).join("ref"),
    }
}

/// One of Vela's layers with its cycles and MACs.
#[derive(Clone, Debug, PartialEq)]
pub struct Layer {
    pub operator: String,
    pub cycles: u64,
    pub macs: u64,
}

/// The rows of a Vela CSV as name-to-value maps.
fn rows(path: &Path) -> Vec<Vec<(String, String)>> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text.lines();
    let header: Vec<String> = lines.next().unwrap().split(',').map(str::to_string).collect();
    lines.map(|l| header.iter().cloned().zip(l.split(',').map(str::to_string)).collect()).collect()
}

fn field(row: &[(String, String)], name: &str) -> String {
    row.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone()).unwrap_or_else(|| panic!("no column {name}"))
}

/// Vela's whole-network estimate (`cycles_total`) of the model in `dir`.
pub fn total(dir: &Path) -> u64 {
    field(&rows(&dir.join("vela_summary.csv"))[0], "cycles_total").parse().unwrap()
}

/// Vela's layers that take cycles, in order.
pub fn layers(dir: &Path) -> Vec<Layer> {
    rows(&dir.join("vela_per-layer.csv"))
        .iter()
        .map(|r| Layer {
            operator: field(r, "NNG Operator"),
            cycles: field(r, "Op Cycles").parse().unwrap(),
            macs: field(r, "MAC Count").parse().unwrap(),
        })
        .filter(|l| l.cycles > 0)
        .collect()
}

/// The timing model's estimate of the `model_vela.tflite` in `dir`, in Vela's default system.
pub fn timing(dir: &Path) -> Timing {
    let bytes = std::fs::read(dir.join("model_vela.tflite")).unwrap();
    let listed = umac_frontend::tflite::operators(&bytes).unwrap();
    let index = listed.iter().find(|op| op.kind == "ethos-u").unwrap().index;
    let operator = EthosUOperator::read(&bytes, index).unwrap();
    let ops = operations(&decode(&operator.payload.stream).unwrap());
    timing::estimate(&operator.payload.config, &System::default_for(&operator.payload.config), &ops).unwrap()
}

/// The kernels of `timing` grouped as Vela's `layers`: a layer with MACs takes kernels until
/// their MACs reach its own (Vela splits a layer into stripes), one without takes one kernel.
/// `None` when the kernels do not line up with the layers.
pub fn grouped<'a>(timing: &'a Timing, layers: &[Layer]) -> Option<Vec<Vec<&'a OpTiming>>> {
    let mut kernels = timing.ops.iter().filter(|o| o.command != "NPU_OP_DMA_START").peekable();
    let mut groups = Vec::new();
    for layer in layers {
        let mut group = vec![kernels.next()?];
        while layer.macs > 0 && group.iter().map(|o| o.macs).sum::<u64>() < layer.macs {
            group.push(kernels.next()?);
        }
        groups.push(group);
    }
    kernels.peek().is_none().then_some(groups)
}

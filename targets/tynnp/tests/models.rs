//! The tynnp NPU end to end: every MLPerf Tiny model compiled for `tynnp,rv32im` (convolutions
//! and fully connected layers as neural-unit jobs, depthwise convolutions, pooling and IC's three
//! residual adds as jobs of the vector units, the rest (the softmax's one lookup among it) on the
//! RV32 control unit) and run on the simulator, hazard checking
//! on: every output byte equals TFLite Micro's on all five reference inputs, run one after
//! another on one machine with nothing reset between them, and every one of
//! those ops ran as one NPU kernel (its jobs in tiles on the NU or the vector units). Single-
//! buffered (`-double-buffer=false`, the benchmark's baseline for what double buffering earns)
//! the first input gives the same bytes, in more cycles where a kernel has several tiles; and so
//! does every kernel's output sent back to DDR (`-fuse=false`), moving more DDR bytes, and every
//! kernel copying its own constants (`-prefetch=false`), and every kernel waiting for its jobs
//! instead of handing them on to the next (`-overlap=false`). Each kernel's plan in the metadata
//! expects no more cycles than its span, and no fewer than a quarter of its share of the run.

#[path = "../../../driver/tests/support/mod.rs"]
mod support;

use support::{cases, compile_for, models_dir};
use umac_backend::cpu::RV32IM;
use umac_driver::firmware::{Firmware, FirmwareOptions};
use umac_driver::simulator::{devices, simulate, simulate_sequence};
use umac_runtime::{DType, Tensor, read_npy};
use umac_sim::{Device, report::Report};
use umac_tynnp_device::{Params, params::DM_BASE};

#[test]
fn mlperf_tiny_on_the_npu_equals_tflite_micro() {
    let models = models_dir();
    for (model, residual_adds) in [("kws", 0), ("vww", 0), ("ic", 3), ("ad", 0)] {
        let dir = models.join(model);
        let firmware = compile_for(&dir, model, RV32IM, "tynnp");
        let count = |ops: &[&str]| firmware.placements.iter().filter(|p| ops.contains(&p.op.as_str())).count();
        let on_npu = |ops: &[&str]| {
            firmware.placements.iter().filter(|p| ops.contains(&p.op.as_str()) && p.target == "tynnp").count()
        };
        let nu_ops = ["tosa.conv2d"];
        let vu_ops = ["tosa.depthwise_conv2d", "tosa.avg_pool2d", "tosa.max_pool2d"];
        // The softmax's four int16 lookups and the shifts and adds joining them are one int32
        // lookup (umac-tabulate-lookups, before partitioning: a linalg.generic reading a table),
        // which the control unit does.
        assert_eq!(count(&["tosa.table"]), 0, "{model}: the table lookups left");
        let softmax = if model == "ad" { 0 } else { 1 };
        let lookups = count(&["linalg.generic"]);
        assert_eq!((lookups, on_npu(&["linalg.generic"])), (softmax, 0), "{model}: the softmax's lookup");
        let (convs, vector) = (count(&nu_ops), count(&vu_ops) + residual_adds);
        assert!(convs > 0 && on_npu(&nu_ops) == convs, "{model}: convolutions not all on tynnp");
        assert_eq!(
            on_npu(&vu_ops),
            vector - residual_adds,
            "{model}: depthwise convolutions and pooling not all on tynnp"
        );
        assert_eq!(on_npu(&["tosa.add"]), residual_adds, "{model}: the residual adds on tynnp");
        // No op runs on the control unit between AD's fully connected layers: TFLite's no-op
        // clamps and the reshapes around each layer are gone before partitioning (tynnp's
        // pre-partition canonicalize), so the ten layers are one function's kernels.
        if model == "ad" {
            let functions: std::collections::BTreeSet<_> =
                firmware.placements.iter().filter(|p| p.op == "tosa.conv2d").map(|p| p.function.clone()).collect();
            assert_eq!(functions.len(), 1, "{model}: the layers in {functions:?}");
        }
        // The five inputs one after another on one machine, nothing reset between them (the
        // memories keep what the inference before left, the NPU its jobs and their hazards).
        let input = read_npy(&dir.join("ref/input_0.npy")).unwrap();
        let cases = cases(&dir);
        let tensor = |case: &umac_runtime::firmware::Case| Tensor {
            dtype: DType::I8,
            shape: input.shape.clone(),
            data: case.inputs[0].clone(),
        };
        let steps: Vec<Vec<Tensor>> = cases.iter().map(|case| vec![tensor(case)]).collect();
        let run = simulate_sequence(&firmware, &steps, npu("tynnp")).unwrap_or_else(|e| panic!("{model}: {e}"));
        for (i, (outputs, case)) in run.outputs.iter().zip(&cases).enumerate() {
            assert_eq!(outputs[0].data, case.expected[0], "{model}: output of input {i}");
        }
        // A convolution runs in one or more tiles (at most one per output row) on the NU;
        // every vector-unit op issues the first band of each of its tiles on VU 0.
        let n = cases.len() as u64;
        let jobs = |unit: &str| run.report.units.iter().find(|u| u.0 == unit).map_or(0, |u| u.1);
        assert!(
            jobs("nu") >= n * convs as u64 && jobs("vu0") >= n * vector as u64,
            "{model}: tiles of {convs} convolutions and of {vector} depthwise convolutions, poolings or adds\n{}",
            run.report.text
        );
        assert_eq!(run.report.kernels.len(), cases.len() * (convs + vector), "{model}: one kernel per composite");
        let case = &cases[0];
        let tensor = Tensor { dtype: DType::I8, shape: input.shape.clone(), data: case.inputs[0].clone() };
        let run_with = |target: &str| run_at(&dir, model, target, &tensor, &case.expected[0]);
        let fast = simulate(&firmware, std::slice::from_ref(&tensor), npu("tynnp")).unwrap().report;
        expected_cycles_bound_the_kernels(model, &firmware, &fast);
        // AD's fully connected layers have one output row each: one tile, nothing to overlap.
        let slow = run_with("tynnp -double-buffer=false").cycles;
        assert!(
            if model == "ad" { slow == fast.cycles } else { slow > fast.cycles },
            "{model}: {slow} cycles single-buffered, {}",
            fast.cycles
        );
        // Outputs read by the next kernel alone stay in DM: KWS's chain of ten kernels never
        // sends its activations to DDR. AD's ten fully connected layers run in one function too
        // (their no-op clamps and reshapes are gone before partitioning): keeping them is faster.
        let unfused = run_with("tynnp -fuse=false");
        assert!(fast.ddr_bytes <= unfused.ddr_bytes, "{model}: fusion moved more DDR bytes");
        assert!(fast.cycles < unfused.cycles, "{model}: {} cycles fused, {} unfused", fast.cycles, unfused.cycles);
        if model == "kws" {
            assert!(fast.ddr_bytes + 70_000 < unfused.ddr_bytes, "{model}: {} DDR bytes fused", fast.ddr_bytes);
        }
        // Each kernel copying its own constants (no kernel copies the next one's) is slower,
        // but where the one DDR port bounds the run (AD streams 272 KB of weights for 264K MACs):
        // prefetching then orders the same transfers otherwise, within a percent.
        let (own, prefetched) = (run_with("tynnp -prefetch=false").cycles, fast.cycles);
        assert!(
            if model == "ad" { own.abs_diff(prefetched) * 100 < prefetched } else { own > prefetched },
            "{model}: {own} cycles without prefetching, {prefetched} with"
        );
        // Packing output pixels into the NU's columns (VWW's first layer: 8 output channels) is
        // faster and leaves the rest alike; the roofline counts the model's MACs either way, and
        // the packed filter's zeros are multiplied too.
        let unpacked = run_with("tynnp -pack-pixels=false");
        assert_eq!(unpacked.roofline_cycles, fast.roofline_cycles, "{model}: the roofline");
        assert_eq!(unpacked.macs, unpacked.model_macs, "{model}: MACs unpacked");
        if model == "vww" {
            assert!(
                unpacked.cycles > fast.cycles + 3000,
                "{model}: {} cycles unpacked, {}",
                unpacked.cycles,
                fast.cycles
            );
            assert!(
                fast.macs > fast.model_macs,
                "{model}: {} MACs packed, {} in the model",
                fast.macs,
                fast.model_macs
            );
        } else {
            assert_eq!((unpacked.cycles, fast.macs), (fast.cycles, fast.model_macs), "{model}: nothing to pack");
        }
        // Every kernel waiting for its jobs (none running while the next kernel's jobs start) is
        // slower where a kernel's output stays in DM for the next.
        let (waiting, overlapped) = (run_with("tynnp -overlap=false").cycles, fast.cycles);
        assert!(waiting > overlapped, "{model}: {waiting} cycles without overlap, {overlapped} with");
    }
}

/// `metadata.json`'s plan of every NPU kernel: its MACs, DDR bytes and roofline are the
/// simulator's, its DM regions lie in DM, and its expected cycles (the busiest unit's work under
/// the contract's costs) are at most the kernel's span in the simulator (its call to its last
/// job) and at least a quarter of its share of the run; the shares add up to at most the run.
/// The NPU a target string names.
fn npu(target: &str) -> Vec<Box<dyn Device>> {
    devices(&umac_backend::parse_target_string(target).unwrap()).unwrap()
}

/// `model` of `dir` compiled for `target` with the RV32IM control unit and run on `tensor` on the
/// simulator, hazard checking on: its output must be `expected`. Returns the run's report.
fn run_at(dir: &std::path::Path, model: &str, target: &str, tensor: &Tensor, expected: &[u8]) -> Report {
    let firmware = compile_for(dir, model, RV32IM, target);
    let run = simulate(&firmware, std::slice::from_ref(tensor), npu(target))
        .unwrap_or_else(|e| panic!("{model} ({target}): {e}"));
    assert_eq!(run.outputs[0].data, expected, "{model} ({target}): the output");
    run.report
}

fn expected_cycles_bound_the_kernels(model: &str, firmware: &Firmware, report: &Report) {
    let shares: u64 = report.kernels.iter().map(|k| k.kernel.cycles).sum();
    assert!(shares <= report.cycles, "{model}: the kernels' shares add up to {shares} cycles of {}", report.cycles);
    let dm = (i64::from(DM_BASE), i64::from(DM_BASE) + i64::from(Params::default().dm_bytes));
    for kernel in &report.kernels {
        let at = kernel.label.rsplit(' ').next().unwrap_or_default();
        let call = firmware.calls.iter().find(|c| c.locations.iter().any(|l| l.ends_with(&format!("/{at}"))));
        let call = call.unwrap_or_else(|| panic!("{model}: no call describes {}", kernel.label));
        let figure = |name: &str| call.plan[name].as_u64();
        // The plan counts what the simulator counts.
        assert_eq!(
            (figure("macs"), figure("ddr_bytes"), figure("roofline_cycles")),
            (Some(kernel.kernel.macs), Some(kernel.kernel.ddr_bytes), Some(kernel.roofline_cycles)),
            "{model}: {}",
            kernel.label
        );
        // Its jobs run within its span; its share of the run (after the kernel before's span)
        // is at most four times its work.
        let expected = figure("expected_cycles").unwrap_or(0);
        let (span, cycles) = (kernel.kernel.end - kernel.kernel.start, kernel.kernel.cycles);
        assert!(
            expected <= span && cycles <= span && cycles <= 4 * expected,
            "{model}: {} spans {span} cycles, {cycles} its own, expected {expected}",
            kernel.label
        );
        for region in call.plan["dm"].as_array().into_iter().flatten() {
            let (start, bytes) = (region["address"].as_i64().unwrap_or(0), region["bytes"].as_i64().unwrap_or(0));
            assert!(dm.0 <= start && start + bytes <= dm.1, "{model}: {region} outside DM");
        }
    }
}

/// An LSTM model on `tynnp,rv32im` (test/models/lstm/lstm_stack_int8): the two LSTMs' time loops
/// run on the RV32 control unit, the last fully connected layer, which has no bias of its own (the
/// converter gives a one-element zero bias, which TOSA broadcasts), on the NU. One inference from
/// the initial state on the simulator, hazard checking on, gives TFLite Micro's first output.
#[test]
fn an_lstm_model_runs_with_the_npu() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../test/models/lstm/lstm_stack_int8");
    let firmware = compile_for(&dir, "lstm", RV32IM, "tynnp");
    assert!(
        firmware.placements.iter().any(|p| p.op == "tosa.conv2d" && p.target == "tynnp"),
        "{:?}",
        firmware.placements
    );
    assert_eq!(firmware.state_bytes, 72);
    let case = &cases(&dir)[0];
    let input = read_npy(&dir.join("ref/input_0.npy")).unwrap();
    let tensor = Tensor { dtype: DType::I8, shape: input.shape, data: case.inputs[0].clone() };
    let run = simulate(&firmware, &[tensor], npu("tynnp")).unwrap();
    assert_eq!(run.outputs[0].data, case.expected[0]);
}

/// With 64 KiB of DM, AD's first and last fully connected layers (80 KB of weights each) and
/// VWW's last pointwise convolution (64 KB) do not fit whole: each runs as convolutions on slices of its
/// output channels (`umac-slice-filters-tynnp`), joined by a concat, and every output byte still
/// equals TFLite Micro's (AD on its five inputs, VWW on its first). AD's slices, of one pixel,
/// are each one run of bytes of the concat's buffer, which their kernels write in place
/// (`umac-elide-slice-copies`): the control unit copies nothing. VWW's, channels of 3x3 pixels,
/// are copied.
#[test]
fn models_whose_filters_exceed_dm_run_in_slices() {
    let models = models_dir();
    for (model, inputs, sliced, copied) in [("ad", 5, 2, false), ("vww", 1, 1, true)] {
        let dir = models.join(model);
        let target = "tynnp -dm-kib=64";
        let firmware = compile_for(&dir, model, RV32IM, target);
        let concats = firmware.placements.iter().filter(|p| p.op == "tosa.concat").count();
        assert_eq!(concats, sliced, "{model}: the sliced convolutions");
        let input = read_npy(&dir.join("ref/input_0.npy")).unwrap();
        for (i, case) in cases(&dir).iter().take(inputs).enumerate() {
            let tensor = Tensor { dtype: DType::I8, shape: input.shape.clone(), data: case.inputs[0].clone() };
            let run = simulate(&firmware, &[tensor], npu(target)).unwrap_or_else(|e| panic!("{model} #{i}: {e}"));
            assert_eq!(run.outputs[0].data, case.expected[0], "{model}: output of input {i}");
            // The report's table names each function the control unit ran.
            let copies = run.report.text.lines().any(|l| l.trim_start().starts_with("memcpy ") || l.contains("_copy "));
            assert_eq!(copies, copied, "{model}: copies on the control unit\n{}", run.report.text);
        }
    }
}

/// With less DM than the whole chain's activations need (VWW at 112 and 96 KiB), the function's
/// placement still keeps the activations that fit: kernels beside one that hands its jobs on
/// are tiled in what its regions leave them, and a placement that overflows gives back the
/// largest activation or record alive where it overflows, not the largest of the function. So
/// fewer bytes cross DDR than unfused, in fewer cycles, bit-exact.
#[test]
fn activations_stay_in_dm_when_dm_is_short() {
    let models = models_dir();
    let dir = models.join("vww");
    let case = &cases(&dir)[0];
    let input = read_npy(&dir.join("ref/input_0.npy")).unwrap();
    let tensor = Tensor { dtype: DType::I8, shape: input.shape, data: case.inputs[0].clone() };
    for dm in [112, 96] {
        let run = |target: &str| run_at(&dir, "vww", target, &tensor, &case.expected[0]);
        let (kept, unfused) = (run(&format!("tynnp -dm-kib={dm}")), run(&format!("tynnp -dm-kib={dm} -fuse=false")));
        assert!(
            kept.ddr_bytes < unfused.ddr_bytes,
            "{dm} KiB: {} DDR bytes, {} unfused",
            kept.ddr_bytes,
            unfused.ddr_bytes
        );
        assert!(kept.cycles < unfused.cycles, "{dm} KiB: {} cycles, {} unfused", kept.cycles, unfused.cycles);
    }
}

/// The control unit's own buffers in its DMEM (`--pool dmem:64K:fast:cpu --pool ddr:1M`): every
/// buffer an NPU kernel reads or writes stays in DDR, where its DMA reaches, the softmax's
/// scratch the control unit alone touches goes to DMEM (1 cycle a load, not 16): KWS bit-exact
/// on its five inputs, in fewer cycles.
#[test]
fn the_control_units_buffers_go_to_its_dmem() {
    let models = models_dir();
    let dir = models.join("kws");
    let pools = umac_lowering::memory_pools::parse_pools("dmem:64K:fast:cpu,ddr:1M").unwrap();
    let firmware =
        support::compile_with(&dir, RV32IM, &FirmwareOptions { pools, ..support::options("kws", "tynnp", false) });
    let (dmem, ddr) = (firmware.pool_sizes[0], firmware.pool_sizes[1]);
    assert!(dmem > 0 && ddr > 0, "{dmem} bytes in DMEM, {ddr} in DDR");
    let whole = compile_for(&dir, "kws", RV32IM, "tynnp");
    let input = read_npy(&dir.join("ref/input_0.npy")).unwrap();
    for (i, case) in cases(&dir).iter().enumerate() {
        let tensor = Tensor { dtype: DType::I8, shape: input.shape.clone(), data: case.inputs[0].clone() };
        let split = simulate(&firmware, std::slice::from_ref(&tensor), npu("tynnp")).unwrap();
        assert_eq!(split.outputs[0].data, case.expected[0], "output of input {i}");
        if i == 0 {
            let one = simulate(&whole, &[tensor], npu("tynnp")).unwrap();
            assert!(
                split.report.cycles < one.report.cycles,
                "{} cycles, {} with one workspace",
                split.report.cycles,
                one.report.cycles
            );
        }
    }
}

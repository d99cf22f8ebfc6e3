//! The tynnp NPU end to end: every MLPerf Tiny model compiled for `tynnp,rv32im` (convolutions
//! and fully connected layers as neural-unit jobs, the rest on the RV32 control unit) and run on
//! the simulator, hazard checking on: every output byte equals TFLite Micro's on all five
//! reference inputs, and each convolution ran as exactly one NU job.

mod support;

use support::{cases, compile_for, models_dir};
use umac_backend::cpu::RV32IM;
use umac_driver::simulator::simulate;
use umac_runtime::{DType, Tensor, read_npy};
use umac_sim::npu::Params;

#[test]
fn mlperf_tiny_on_the_npu_equals_tflite_micro() {
    let Some(models) = models_dir() else { return };
    for model in ["kws", "vww", "ic", "ad"] {
        let dir = models.join(model);
        let firmware = compile_for(&dir, model, RV32IM, "tynnp");
        let convs = firmware.placements.iter().filter(|p| p.op == "tosa.conv2d").count();
        let on_npu = firmware.placements.iter().filter(|p| p.op == "tosa.conv2d" && p.target == "tynnp").count();
        assert!(convs > 0 && on_npu == convs, "{model}: {on_npu} of {convs} convolutions on tynnp");
        let input = read_npy(&dir.join("ref/input_0.npy")).unwrap();
        for (i, case) in cases(&dir).iter().enumerate() {
            let tensor = Tensor { dtype: DType::I8, shape: input.shape.clone(), data: case.inputs[0].clone() };
            let run = simulate(&firmware, &[tensor], Params::default()).unwrap_or_else(|e| panic!("{model} #{i}: {e}"));
            assert_eq!(run.outputs[0].data, case.expected[0], "{model}: output of input {i}");
            assert!(
                run.report.text.contains(&format!("  nu     {convs:>6} jobs")),
                "{model}: one NU job per convolution\n{}",
                run.report.text
            );
        }
    }
}

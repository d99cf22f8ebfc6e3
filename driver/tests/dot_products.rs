//! Convolutions whose reductions `umac-vectorize-dot-products` rewrites into Helium dot products
//! (Cortex-M55: input channels 8 to 64, whole vectors and channels left over, padded windows
//! read in two branches) or into the DSP extension's pairs of products (Cortex-M4: four at a
//! time, `sxtb16` and `smlad`) compute on the boards under QEMU exactly what the host's Cranelift
//! engine (plain scalar loops) computes, on random int8 data, byte for byte; so do convolutions
//! over one to three input channels, whose windows `umac-im2col` gathers per pixel so that the
//! dot products run over the whole window.

mod support;

use support::{host_reference, lcg, run_text};
use umac_backend::cpu::{CORTEX_M4, CORTEX_M55};
use umac_runtime::{
    DType, Tensor,
    firmware::{MPS2_AN386, MPS3_AN547},
};

fn list(values: &[i64]) -> String {
    values.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")
}

/// One int8 convolution as the TFLite converter emits it (input zero point -128, per-channel
/// rescale to int8 with a clamp), over a 6x6 or 7x7 input of `ic` channels into `oc`, `k`x`k`,
/// `pad` on every side, `stride`; weights, bias and input from `seed`.
fn model(ic: usize, oc: usize, k: usize, pad: usize, stride: usize, seed: u64) -> (String, Tensor) {
    // 6x6, or 7x7 where TOSA needs the strided window to end at the input's end.
    let h = if (6 + 2 * pad - k).is_multiple_of(stride) { 6 } else { 7 };
    let out = (h + 2 * pad - k) / stride + 1;
    let weights: Vec<i64> = lcg(seed, oc * k * k * ic).iter().map(|v| v % 255 - 127).collect();
    let bias: Vec<i64> = lcg(seed + 1, oc).iter().map(|v| v % 20001 - 10000).collect();
    let multipliers: Vec<i64> = lcg(seed + 2, oc).iter().map(|v| (1 << 30) + v % (1 << 30)).collect();
    let shifts: Vec<i64> = lcg(seed + 3, oc).iter().map(|v| 38 + v % 4).collect();
    let input: Vec<u8> = lcg(seed + 4, h * h * ic).iter().map(|v| (v % 256) as u8).collect();
    let x = format!("tensor<1x{h}x{h}x{ic}xi8>");
    let w = format!("tensor<{oc}x{k}x{k}x{ic}xi8>");
    let acc = format!("tensor<1x{out}x{out}x{oc}xi32>");
    let y = format!("tensor<1x{out}x{out}x{oc}xi8>");
    let text = format!(
        r#"func.func @main(%x: {x}) -> {y} {{
  %w = "tosa.const"() <{{values = dense<[{weights}]> : tensor<{n}xi8>}}> : () -> tensor<{n}xi8>
  %ws = tosa.const_shape {{values = dense<[{oc}, {k}, {k}, {ic}]> : tensor<4xindex>}} : () -> !tosa.shape<4>
  %wr = tosa.reshape %w, %ws : (tensor<{n}xi8>, !tosa.shape<4>) -> {w}
  %b = "tosa.const"() <{{values = dense<[{bias}]> : tensor<{oc}xi32>}}> : () -> tensor<{oc}xi32>
  %zp = "tosa.const"() <{{values = dense<-128> : tensor<1xi8>}}> : () -> tensor<1xi8>
  %wzp = "tosa.const"() <{{values = dense<0> : tensor<1xi8>}}> : () -> tensor<1xi8>
  %m = "tosa.const"() <{{values = dense<[{multipliers}]> : tensor<{oc}xi32>}}> : () -> tensor<{oc}xi32>
  %s = "tosa.const"() <{{values = dense<[{shifts}]> : tensor<{oc}xi8>}}> : () -> tensor<{oc}xi8>
  %izp = "tosa.const"() <{{values = dense<0> : tensor<1xi32>}}> : () -> tensor<1xi32>
  %ozp = "tosa.const"() <{{values = dense<-5> : tensor<1xi8>}}> : () -> tensor<1xi8>
  %c = tosa.conv2d %x, %wr, %b, %zp, %wzp {{acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: {pad}, {pad}, {pad}, {pad}>, stride = array<i64: {stride}, {stride}>}} : ({x}, {w}, tensor<{oc}xi32>, tensor<1xi8>, tensor<1xi8>) -> {acc}
  %r = tosa.rescale %c, %m, %s, %izp, %ozp {{input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = DOUBLE_ROUND, scale32 = true}} : ({acc}, tensor<{oc}xi32>, tensor<{oc}xi8>, tensor<1xi32>, tensor<1xi8>) -> {y}
  %k = tosa.clamp %r {{max_val = 127 : i8, min_val = -128 : i8}} : ({y}) -> {y}
  return %k : {y}
}}
"#,
        n = weights.len(),
        weights = list(&weights),
        bias = list(&bias),
        multipliers = list(&multipliers),
        shifts = list(&shifts),
    );
    (text, Tensor { dtype: DType::I8, shape: vec![1, h, h, ic], data: input })
}

#[test]
fn vector_and_dsp_dot_products_equal_scalar_loops() {
    umac_driver::register_targets();
    // Channels: one vector of 8, of 16, vectors and channels left over, the longest rewritten for
    // Helium, and 130 (Helium leaves it to LLVM; the DSP path has no limit); 1x1 and 3x3 windows,
    // padded or not, strided. Then windows gathered per pixel (`umac-im2col`): one input channel
    // into 8 (3x3, padded, strided: 9 products), three into 16 (27: vectors and products left
    // over), one into 64 (5x5: 25), three unpadded into 8.
    let configs = [
        (8, 4, 3, 1, 1),
        (12, 4, 3, 1, 2),
        (16, 4, 1, 0, 1),
        (24, 4, 3, 1, 1),
        (40, 4, 3, 0, 1),
        (64, 4, 3, 1, 2),
        (130, 4, 1, 0, 1),
        (1, 8, 3, 1, 2),
        (3, 16, 3, 1, 1),
        (1, 64, 5, 2, 1),
        (3, 8, 3, 0, 1),
    ];
    let work = std::env::temp_dir().join(format!("umac-dot-products-{}", std::process::id()));
    for (i, &(ic, oc, k, pad, stride)) in configs.iter().enumerate() {
        let (text, input) = model(ic, oc, k, pad, stride, 100 + i as u64);
        let what = format!("{ic} channels into {oc}, {k}x{k}, pad {pad}, stride {stride}");
        let reference = host_reference(&text, &input, &what);
        for (cpu, platform) in [(CORTEX_M55, MPS3_AN547), (CORTEX_M4, MPS2_AN386)] {
            let dir = work.join(format!("case{i}-{}", cpu.name));
            let outcome = run_text(&text, cpu, platform, &dir, &input.data, &reference.data, &what);
            assert_eq!(outcome.status, Some(0), "{what} on {}: {}", cpu.name, outcome.output);
        }
    }
    let _ = std::fs::remove_dir_all(&work);
}

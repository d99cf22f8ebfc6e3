//! Every job tynnp runs, on random shapes within the hardware's limits: a one-op model (a
//! convolution with bias, per-channel rescale and clamp; a depthwise convolution with depth
//! multiplier; an average or a max pooling; TFLite's quantized add or sub with its input and
//! output rescales; an int8 or int16 table lookup) with random weights, tables, zero points, scales, strides,
//! dilations and padding, compiled for `tynnp,rv32im` and run on the simulator (hazard checking
//! on), must give the bytes the host's reference engine gives for the same model, and the op must
//! have run on the NPU. The rounds take turns with the default NPU, single-buffered tiles
//! (`-double-buffer=false`) and one DMA channel (`-dma=1`: copies in and out share it). Chains of
//! such ops check what passes between kernels: activations kept in DM, constants prefetched.
//! Edited schedules (`umac-schedule-tynnp`'s, re-tiled and moved at random) must run the same.
//! Each model also runs on the host as its tynnp primitive ops' TOSA reference
//! (`umac-primitives-tynnp`, `umac-reference-tynnp`), which must give the same bytes.

use umac_backend::{cpu::RV32IM, parse_target_string};
use umac_dialects::{ContextOptions, source::parse_module};
use umac_driver::create_context;
use umac_driver::{
    firmware::{Firmware, FirmwareOptions, compile},
    host::{self, CompileOptions, Engine},
    simulator::{devices, simulate},
};
use umac_runtime::{DType, Tensor, testdata::Rng};

/// `dense<"0x..">` of little-endian values of `bytes` bytes each.
fn hex(values: &[i64], bytes: usize) -> String {
    let text: String =
        values.iter().flat_map(|v| v.to_le_bytes()[..bytes].to_vec()).map(|b| format!("{b:02X}")).collect();
    format!("dense<\"0x{text}\">")
}

fn shape(dims: &[i64], element: &str) -> String {
    let d: Vec<String> = dims.iter().map(|d| format!("{d}x")).collect();
    format!("tensor<{}{element}>", d.concat())
}

/// A window along one axis: (kernel, stride, dilation, pad before, pad after, output) with
/// TOSA's exact division, padding below the kernel's extent.
fn window(rng: &mut Rng, input: i64, max_kernel: i64, dilate: bool) -> (i64, i64, i64, i64, i64, i64) {
    loop {
        let kernel = rng.range(1, max_kernel);
        let stride = rng.range(1, 2);
        let dilation = if dilate { rng.range(1, 2) } else { 1 };
        let extent = (kernel - 1) * dilation;
        let before = rng.range(0, kernel - 1);
        for after in 0..kernel {
            let span = input - 1 + before + after - extent;
            if span >= 0 && span % stride == 0 {
                return (kernel, stride, dilation, before, after, span / stride + 1);
            }
        }
    }
}

/// The kinds of op, by the name of the TOSA op the NPU must run (kind 7: the int16 table).
const KINDS: [&str; 8] = [
    "tosa.conv2d",
    "tosa.depthwise_conv2d",
    "tosa.avg_pool2d",
    "tosa.max_pool2d",
    "tosa.add",
    "tosa.sub",
    "tosa.table",
    "tosa.table",
];

/// A one-op model and its input: `(mlir, input shape)`; the input is int16 for kind 7, else int8.
fn model(rng: &mut Rng, kind: usize) -> (String, Vec<i64>) {
    model_on(rng, kind, None)
}

/// The sizes of a random model: kernels up to this size, convolutions' output channels up to
/// this many, inputs of these heights, widths and channels.
struct Sizes {
    kernel: i64,
    channels: (i64, i64),
    input: [(i64, i64); 3],
}

/// Small models: every kind of job at every edge.
const SMALL: Sizes = Sizes { kernel: 3, channels: (1, 24), input: [(1, 12), (1, 12), (1, 24)] };

/// Convolutions like KWS's first layer: tall kernels over one or two channels, many outputs.
const TALL: Sizes = Sizes { kernel: 10, channels: (32, 64), input: [(12, 49), (4, 10), (1, 2)] };

/// Convolutions whose filters an 8 KiB DM cannot hold: many output channels of many inputs.
const WIDE: Sizes = Sizes { kernel: 3, channels: (40, 96), input: [(1, 5), (1, 5), (32, 64)] };

/// A one-op model on an int8 input of shape `on` (`[1, h, w, c]`; random when `None`).
fn model_on(rng: &mut Rng, kind: usize, on: Option<&[i64]>) -> (String, Vec<i64>) {
    model_sized(rng, kind, on, &SMALL)
}

/// A one-op model of `sizes` (on an int8 input of shape `on`, when given).
fn model_sized(rng: &mut Rng, kind: usize, on: Option<&[i64]>, sizes: &Sizes) -> (String, Vec<i64>) {
    let [h, w, ch] = sizes.input;
    let (ih, iw, c) = (rng.range(h.0, h.1), rng.range(w.0, w.1), rng.range(ch.0, ch.1));
    let (ih, iw, c) = on.map_or((ih, iw, c), |d| (d[1], d[2], d[3]));
    let input = vec![1, ih, iw, c];
    let izp = rng.range(-128, 127);
    let (kh, sy, dy, pt, pb, oh) = window(rng, ih, sizes.kernel.min(ih + 2), kind < 2);
    let (kw, sx, dx, pl, pr, ow) = window(rng, iw, sizes.kernel.min(iw + 2), kind < 2);
    if kind >= 6 {
        // A table lookup on a tensor of rank 1 to 4 (the given shape, in a chain) of at least 16
        // elements, which pays for an NPU kernel (`tiny_lookups_run_on_the_control_unit` has
        // fewer).
        let rank = rng.range(1, 4) as usize;
        let dims: Vec<i64> = if on.is_some() {
            input.clone()
        } else {
            input[..rank].iter().enumerate().map(|(k, &d)| if k + 1 == rank { d.max(16) } else { d.max(2) }).collect()
        };
        let (element, result, entries, width) = if kind == 7 { ("i16", "i32", 513, 2) } else { ("i8", "i8", 256, 1) };
        let values: Vec<i64> =
            (0..entries).map(|_| rng.range(-(1 << (8 * width - 1)), (1 << (8 * width - 1)) - 1)).collect();
        let (x, y) = (shape(&dims, element), shape(&dims, result));
        let table = format!("tensor<{entries}x{element}>");
        let text = format!(
            "func.func @main(%x: {x}) -> {y} {{\n  %t = \"tosa.const\"() <{{values = {} : {table}}}> : () -> {table}\n  \
             %y = tosa.table %x, %t : ({x}, {table}) -> {y}\n  return %y : {y}\n}}\n",
            hex(&values, width)
        );
        return (text, dims);
    }
    let x = shape(&input, "i8");
    let consts = |rng: &mut Rng, n: i64, low: i64, high: i64| (0..n).map(|_| rng.range(low, high)).collect::<Vec<_>>();
    let mut body =
        format!("  %izp = \"tosa.const\"() <{{values = dense<{izp}> : tensor<1xi8>}}> : () -> tensor<1xi8>\n");
    let result = match kind {
        0 | 1 => {
            // Convolution (kind 0) or depthwise convolution (kind 1), then rescale and clamp.
            let (filter, channels, op) = if kind == 0 {
                let oc = rng.range(sizes.channels.0, sizes.channels.1);
                (vec![oc, kh, kw, c], oc, "tosa.conv2d")
            } else {
                let m = rng.range(1, 2);
                (vec![kh, kw, c, m], c * m, "tosa.depthwise_conv2d")
            };
            let weights = consts(rng, filter.iter().product(), -128, 127);
            let bias = consts(rng, channels, -5000, 5000);
            let multipliers = consts(rng, channels, 1 << 30, (1 << 31) - 1);
            let shifts = consts(rng, channels, 36, 44);
            let (ozp, low) = (rng.range(-20, 20), rng.range(-128, -60));
            let acc = shape(&[1, oh, ow, channels], "i32");
            let out = shape(&[1, oh, ow, channels], "i8");
            body += &format!(
                "  %w = \"tosa.const\"() <{{values = {} : {f}}}> : () -> {f}\n  \
                 %b = \"tosa.const\"() <{{values = {} : {b}}}> : () -> {b}\n  \
                 %wzp = \"tosa.const\"() <{{values = dense<0> : tensor<1xi8>}}> : () -> tensor<1xi8>\n  \
                 %c = {op} %x, %w, %b, %izp, %wzp {{acc_type = i32, dilation = array<i64: {dy}, {dx}>, \
                 pad = array<i64: {pt}, {pb}, {pl}, {pr}>, stride = array<i64: {sy}, {sx}>}} : ({x}, {f}, {b}, \
                 tensor<1xi8>, tensor<1xi8>) -> {acc}\n  \
                 %m = \"tosa.const\"() <{{values = {} : tensor<{channels}xi32>}}> : () -> tensor<{channels}xi32>\n  \
                 %s = \"tosa.const\"() <{{values = {} : tensor<{channels}xi8>}}> : () -> tensor<{channels}xi8>\n  \
                 %rzp = \"tosa.const\"() <{{values = dense<0> : tensor<1xi32>}}> : () -> tensor<1xi32>\n  \
                 %ozp = \"tosa.const\"() <{{values = dense<{ozp}> : tensor<1xi8>}}> : () -> tensor<1xi8>\n  \
                 %r = tosa.rescale %c, %m, %s, %rzp, %ozp {{input_unsigned = false, output_unsigned = false, \
                 per_channel = true, rounding_mode = {}, scale32 = true}} : ({acc}, tensor<{channels}xi32>, \
                 tensor<{channels}xi8>, tensor<1xi32>, tensor<1xi8>) -> {out}\n  \
                 %k = tosa.clamp %r {{max_val = 127 : i8, min_val = {low} : i8}} : ({out}) -> {out}\n",
                hex(&weights, 1),
                hex(&bias, 4),
                hex(&multipliers, 4),
                hex(&shifts, 1),
                if rng.range(0, 1) == 0 { "SINGLE_ROUND" } else { "DOUBLE_ROUND" },
                f = shape(&filter, "i8"),
                b = shape(&[channels], "i32"),
            );
            ("%k", out)
        }
        4 | 5 => {
            // TFLite's ADD/SUB as the converter writes it: each input rescaled to int32 by
            // 2^left_shift (as `2^30 >> (30 - left_shift)`), then optionally by its multiplier; the
            // int32 op; the rescale to int8; a clamp. One operand is `x`, the other `x` itself or a
            // constant.
            let ls = rng.range(0, 22);
            let i32s = shape(&input, "i32");
            let const_i8 = |name: &str, v: i64| {
                format!("  %{name} = \"tosa.const\"() <{{values = dense<{v}> : tensor<1xi8>}}> : () -> tensor<1xi8>\n")
            };
            let const_i32 = |name: &str, v: i64| {
                format!(
                    "  %{name} = \"tosa.const\"() <{{values = dense<{v}> : tensor<1xi32>}}> : () -> tensor<1xi32>\n"
                )
            };
            let rescale = |out: &str, input: &str, from: &str, to: &str, m: &str, s: &str, izp: &str, ozp: &str| {
                let (zi, zo) = (
                    if from == x { "tensor<1xi8>" } else { "tensor<1xi32>" },
                    if to == x { "tensor<1xi8>" } else { "tensor<1xi32>" },
                );
                format!(
                    "  %{out} = tosa.rescale %{input}, %{m}, %{s}, %{izp}, %{ozp} {{input_unsigned = false, \
                     output_unsigned = false, per_channel = false, rounding_mode = DOUBLE_ROUND, scale32 = true}} \
                     : ({from}, tensor<1xi32>, tensor<1xi8>, {zi}, {zo}) -> {to}\n"
                )
            };
            body += &const_i32("z32", 0);
            body += &const_i32("pow", 1 << 30);
            body += &const_i8("pre", 30 - ls);
            let y = if rng.coin() {
                "x".to_string()
            } else {
                let values = consts(rng, input.iter().product(), -128, 127);
                body += &format!("  %y = \"tosa.const\"() <{{values = {} : {x}}}> : () -> {x}\n", hex(&values, 1));
                "y".to_string()
            };
            // With a constant, `x` (in a chain the kernel before's output, which may stay in DM)
            // is either operand.
            let mut inputs = [("a", "x".to_string()), ("b", y)];
            if inputs[1].1 == "y" && rng.coin() {
                (inputs[0].1, inputs[1].1) = (inputs[1].1.clone(), inputs[0].1.clone());
            }
            let mut operands = Vec::new();
            for (name, value) in inputs {
                body += &const_i8(&format!("{name}zp"), rng.range(-128, 127));
                body += &rescale(&format!("{name}0"), &value, &x, &i32s, "pow", "pre", &format!("{name}zp"), "z32");
                if rng.coin() {
                    body += &const_i32(&format!("{name}m"), rng.range(1 << 30, (1 << 31) - 1));
                    body += &const_i8(&format!("{name}s"), rng.range(31, 40));
                    body += &rescale(
                        &format!("{name}1"),
                        &format!("{name}0"),
                        &i32s,
                        &i32s,
                        &format!("{name}m"),
                        &format!("{name}s"),
                        "z32",
                        "z32",
                    );
                    operands.push(format!("%{name}1"));
                } else {
                    operands.push(format!("%{name}0"));
                }
            }
            let op = if kind == 4 { "tosa.add" } else { "tosa.sub" };
            body += &format!("  %sum = {op} {}, {} : ({i32s}, {i32s}) -> {i32s}\n", operands[0], operands[1]);
            body += &const_i32("om", rng.range(1 << 30, (1 << 31) - 1));
            body += &const_i8("os", (ls + rng.range(28, 34)).min(62));
            body += &const_i8("ozp", rng.range(-20, 20));
            body += &rescale("r", "sum", &i32s, &x, "om", "os", "z32", "ozp");
            let low = rng.range(-128, -60);
            body += &format!("  %k = tosa.clamp %r {{max_val = 127 : i8, min_val = {low} : i8}} : ({x}) -> {x}\n");
            ("%k", x.clone())
        }
        _ => {
            let out = shape(&[1, oh, ow, c], "i8");
            let attributes = format!(
                "kernel = array<i64: {kh}, {kw}>, pad = array<i64: {pt}, {pb}, {pl}, {pr}>, stride = array<i64: {sy}, {sx}>"
            );
            if kind == 2 {
                let ozp = rng.range(-128, 127);
                body += &format!(
                    "  %ozp = \"tosa.const\"() <{{values = dense<{ozp}> : tensor<1xi8>}}> : () -> tensor<1xi8>\n  \
                     %p = tosa.avg_pool2d %x, %izp, %ozp {{acc_type = i32, {attributes}}} : ({x}, tensor<1xi8>, \
                     tensor<1xi8>) -> {out}\n"
                );
            } else {
                body += &format!("  %p = tosa.max_pool2d %x {{{attributes}}} : ({x}) -> {out}\n");
            }
            ("%p", out)
        }
    };
    let (value, out) = result;
    (format!("func.func @main(%x: {x}) -> {out} {{\n{body}  return {value} : {out}\n}}\n"), input)
}

#[test]
fn every_job_equals_the_reference_on_random_shapes() {
    umac_driver::register_targets();
    let mut rng = Rng(0x7f4a_7c15_9e37_79b9);
    let targets = ["tynnp", "tynnp -double-buffer=false", "tynnp -dma=1"];
    let (mut folded, mut packed) = (0, 0);
    let rounds = 200;
    for round in 0..rounds {
        let kind = round % KINDS.len();
        let target = targets[round / KINDS.len() % targets.len()];
        let accelerators = parse_target_string(target).unwrap();
        let npu = devices(&accelerators).unwrap();
        let (text, input_shape) = model(&mut rng, kind);
        let (dtype, width) = if kind == 7 { (DType::I16, 2) } else { (DType::I8, 1) };
        let len = input_shape.iter().product::<i64>() * width;
        let data: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        let input = Tensor { dtype, shape: input_shape.iter().map(|&d| d as usize).collect(), data };
        let (firmware, expected) = compile_both(&text, &input, accelerators);
        let contains = |needle: &[u8]| firmware.object.windows(needle.len()).any(|w| w == needle);
        folded += usize::from(contains(b"tynnp_conv2d_folded"));
        let placed = firmware.placements.iter().find(|p| p.op == KINDS[kind]).map(|p| p.target.clone());
        assert_eq!(placed.as_deref(), Some("tynnp"), "round {round} ({target}): not on the NPU\n{text}");
        let report = assert_runs_to(&firmware, &input, npu, &expected, &format!("round {round} ({target})\n{text}"));
        // A convolution whose output pixels are packed into the NU's columns multiplies zeros too.
        packed += usize::from(report.macs > report.model_macs);
    }
    // Convolutions with few input channels and kernel columns to fold into them run folded;
    // those with few output channels and rows of whole groups pack their output pixels.
    let convolutions = rounds / KINDS.len();
    assert!(folded >= 3, "only {folded} of {convolutions} convolutions were folded");
    assert!(packed >= 3, "only {packed} of {convolutions} convolutions packed their output pixels");
}

/// Convolutions like KWS's first layer (tall kernels over one or two channels) fold their kernel
/// rows into channels too (im2col: the input staged in DM, each tile gathered a kernel row at a
/// time) and give the reference's bytes on the simulator, hazard checking on.
#[test]
fn tall_kernels_fold_into_channels_and_equal_the_reference() {
    umac_driver::register_targets();
    let mut rng = Rng(0x51af_d7ed_558c_cd1d);
    let mut folded = 0;
    let rounds = 12;
    for round in 0..rounds {
        let (text, input_shape) = model_sized(&mut rng, 0, None, &TALL);
        let len = input_shape.iter().product::<i64>();
        let data: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        let input = Tensor { dtype: DType::I8, shape: input_shape.iter().map(|&d| d as usize).collect(), data };
        let accelerators = parse_target_string("tynnp").unwrap();
        let npu = devices(&accelerators).unwrap();
        let (firmware, expected) = compile_both(&text, &input, accelerators);
        folded += usize::from(firmware.object.windows(19).any(|w| w == b"tynnp_conv2d_im2col"));
        assert_runs_to(&firmware, &input, npu, &expected, &format!("round {round}\n{text}"));
    }
    // Short kernels, or few output rows, do not pay for the gather.
    assert!(folded * 4 >= rounds, "only {folded} of {rounds} tall convolutions folded their kernel rows");
}

/// A convolution with 4 output channels over rows of 6 packs 3 output pixels into the NU's 16
/// columns (4 would not divide the row), its filter padded with a filter zero point of 3, not 0:
/// the padding's products are zero all the same. On the simulator it gives the reference's
/// bytes, with and without its kernel columns folded (16 and 3 input channels), and multiplies
/// the padding too.
#[test]
fn packed_pixels_with_a_filter_zero_point_equal_the_reference() {
    umac_driver::register_targets();
    for ic in [3, 16] {
        let (oc, k) = (4, 3);
        let weights: Vec<i64> = (0..oc * k * k * ic).map(|i| (i * 37 % 201) - 100).collect();
        let bias: Vec<i64> = (0..oc).map(|o| o * 911 - 1500).collect();
        let multipliers: Vec<i64> = (0..oc).map(|o| (1 << 30) + o * 98_765_431).collect();
        let shifts: Vec<i64> = (0..oc).map(|o| 37 + o).collect();
        let (x, acc, out) = (shape(&[1, 10, 12, ic], "i8"), shape(&[1, 5, 6, oc], "i32"), shape(&[1, 5, 6, oc], "i8"));
        let text = format!(
            "func.func @main(%x: {x}) -> {out} {{\n  \
             %w = \"tosa.const\"() <{{values = {} : tensor<{oc}x{k}x{k}x{ic}xi8>}}> : () -> tensor<{oc}x{k}x{k}x{ic}xi8>\n  \
             %b = \"tosa.const\"() <{{values = {} : tensor<{oc}xi32>}}> : () -> tensor<{oc}xi32>\n  \
             %izp = \"tosa.const\"() <{{values = dense<-7> : tensor<1xi8>}}> : () -> tensor<1xi8>\n  \
             %wzp = \"tosa.const\"() <{{values = dense<3> : tensor<1xi8>}}> : () -> tensor<1xi8>\n  \
             %c = tosa.conv2d %x, %w, %b, %izp, %wzp {{acc_type = i32, dilation = array<i64: 1, 1>, \
             pad = array<i64: 0, 1, 0, 1>, stride = array<i64: 2, 2>}} : ({x}, tensor<{oc}x{k}x{k}x{ic}xi8>, \
             tensor<{oc}xi32>, tensor<1xi8>, tensor<1xi8>) -> {acc}\n  \
             %m = \"tosa.const\"() <{{values = {} : tensor<{oc}xi32>}}> : () -> tensor<{oc}xi32>\n  \
             %s = \"tosa.const\"() <{{values = {} : tensor<{oc}xi8>}}> : () -> tensor<{oc}xi8>\n  \
             %rzp = \"tosa.const\"() <{{values = dense<0> : tensor<1xi32>}}> : () -> tensor<1xi32>\n  \
             %ozp = \"tosa.const\"() <{{values = dense<5> : tensor<1xi8>}}> : () -> tensor<1xi8>\n  \
             %r = tosa.rescale %c, %m, %s, %rzp, %ozp {{input_unsigned = false, output_unsigned = false, \
             per_channel = true, rounding_mode = DOUBLE_ROUND, scale32 = true}} : ({acc}, tensor<{oc}xi32>, \
             tensor<{oc}xi8>, tensor<1xi32>, tensor<1xi8>) -> {out}\n  \
             return %r : {out}\n}}\n",
            hex(&weights, 1),
            hex(&bias, 4),
            hex(&multipliers, 4),
            hex(&shifts, 1)
        );
        let mut rng = Rng(0x3c6e_f372_fe94_f82b);
        let data: Vec<u8> = (0..10 * 12 * ic).map(|_| rng.next() as u8).collect();
        let input = Tensor { dtype: DType::I8, shape: vec![1, 10, 12, ic as usize], data };
        let accelerators = parse_target_string("tynnp").unwrap();
        let npu = devices(&accelerators).unwrap();
        let (firmware, expected) = compile_both(&text, &input, accelerators);
        let report = assert_runs_to(&firmware, &input, npu, &expected, &format!("{ic} input channels\n{text}"));
        // 3 pixels of 4 channels a job's pixel: a 7-column window (stride 6) for 3 of 3 columns.
        assert_eq!(report.model_macs, 5 * 6 * 9 * ic as u64 * 4, "{ic} input channels");
        assert_eq!(report.macs, 5 * 2 * 21 * ic as u64 * 12, "{ic} input channels");
    }
}

/// A convolution whose filter DM cannot hold runs as convolutions on slices of its output
/// channels (`umac-slice-filters-tynnp`), one NPU kernel each, their results joined on the
/// control unit: equal to the reference.
#[test]
fn filters_larger_than_dm_run_in_slices_of_output_channels() {
    umac_driver::register_targets();
    let mut rng = Rng(0x1f83_d9ab_fb41_bd6b);
    let mut sliced = 0;
    for round in 0..8 {
        let (text, input_shape) = model_sized(&mut rng, 0, None, &WIDE);
        let len: i64 = input_shape.iter().product();
        let data: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        let input = Tensor { dtype: DType::I8, shape: input_shape.iter().map(|&d| d as usize).collect(), data };
        let accelerators = parse_target_string("tynnp -dm-kib=8").unwrap();
        let npu = devices(&accelerators).unwrap();
        let (firmware, expected) = compile_both(&text, &input, accelerators);
        let slices = firmware.placements.iter().filter(|p| p.op == "tosa.conv2d" && p.target == "tynnp").count();
        let report = assert_runs_to(&firmware, &input, npu, &expected, &format!("round {round}\n{text}"));
        assert_eq!(report.kernels.len(), slices, "round {round}: one kernel a slice");
        sliced += usize::from(slices > 1);
    }
    assert!(sliced >= 6, "only {sliced} of 8 convolutions were sliced");
}

/// `text` compiled for the host's reference engine and run on `input` (the expected output),
/// and compiled for `accelerators` with the RV32IM control unit. On the host partitioned for
/// tynnp (its primitive ops lowered to their TOSA reference) it must give the expected output.
/// A lookup of few elements costs the control unit less than an NPU kernel (its table and
/// input copied in over DDR, the result out): at the default parameters an int16 lookup of 4
/// elements or fewer, or an int8 one of 5 or fewer, stays on the control unit, one element more
/// goes to the NPU; either way the result equals the reference.
#[test]
fn tiny_lookups_run_on_the_control_unit() {
    umac_driver::register_targets();
    let mut rng = Rng(0x5be0_cd19_137e_2179);
    for (elements, wide, on) in [(4, true, "rv32im"), (5, true, "tynnp"), (5, false, "rv32im"), (6, false, "tynnp")] {
        let (element, result, entries, width) = if wide { ("i16", "i32", 513, 2) } else { ("i8", "i8", 256, 1) };
        let values: Vec<i64> =
            (0..entries).map(|_| rng.range(-(1 << (8 * width - 1)), (1 << (8 * width - 1)) - 1)).collect();
        let (x, y, table) =
            (shape(&[elements], element), shape(&[elements], result), format!("tensor<{entries}x{element}>"));
        let text = format!(
            "func.func @main(%x: {x}) -> {y} {{\n  %t = \"tosa.const\"() <{{values = {} : {table}}}> : () -> {table}\n  \
             %y = tosa.table %x, %t : ({x}, {table}) -> {y}\n  return %y : {y}\n}}\n",
            hex(&values, width)
        );
        let data: Vec<u8> = (0..elements * width as i64).map(|_| rng.next() as u8).collect();
        let dtype = if wide { DType::I16 } else { DType::I8 };
        let input = Tensor { dtype, shape: vec![elements as usize], data };
        let accelerators = parse_target_string("tynnp").unwrap();
        let npu = devices(&accelerators).unwrap();
        let (firmware, expected) = compile_both(&text, &input, accelerators);
        let placed = firmware.placements.iter().find(|p| p.op == "tosa.table").map(|p| p.target.as_str());
        assert_eq!(placed, Some(on), "{elements} elements of {element}");
        let report = assert_runs_to(&firmware, &input, npu, &expected, &format!("{elements} of {element}\n{text}"));
        assert_eq!(report.kernels.len(), usize::from(on == "tynnp"), "{elements} elements of {element}");
    }
}

fn compile_both(text: &str, input: &Tensor, accelerators: umac_backend::TargetSet) -> (Firmware, Tensor) {
    let context = create_context(ContextOptions::default());
    let mut module = parse_module(&context, "op.mlir", text.as_bytes()).unwrap_or_else(|| panic!("{text}"));
    let inputs = std::slice::from_ref(input);
    let reference = host::compile(&context, &mut module, "main", inputs, Engine::Cranelift, CompileOptions::default())
        .unwrap_or_else(|e| panic!("{e}\n{text}"));
    let expected = reference.run(inputs).unwrap().remove(0);
    let mut module = parse_module(&context, "op.mlir", text.as_bytes()).unwrap();
    let on_host = CompileOptions { targets: parse_target_string("tynnp,host").unwrap(), ..Default::default() };
    let primitives = host::compile(&context, &mut module, "main", inputs, Engine::Cranelift, on_host)
        .unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(
        primitives.run(inputs).unwrap().remove(0).data,
        expected.data,
        "tynnp's primitive ops on the host\n{text}"
    );
    (firmware_of(&context, text, "op.mlir", accelerators), expected)
}

/// `text` (named `source`) compiled for `accelerators` with the RV32IM control unit.
fn firmware_of(context: &melior::Context, text: &str, source: &str, accelerators: umac_backend::TargetSet) -> Firmware {
    let mut module = parse_module(context, source, text.as_bytes()).unwrap_or_else(|| panic!("{text}"));
    let options = FirmwareOptions {
        constants_section: None,
        name: "op".into(),
        optimize_for_size: false,
        shapes: None,
        max_workspace: None,
        max_flash: None,
        source: source.into(),
        source_sha256: None,
        profile_hooks: false,
        pools: vec![],
        emit_c: false,
        shared_with: vec![],
        accelerators,
        observe: Default::default(),
    };
    compile(context, &mut module, "main", RV32IM, &options).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// Runs `firmware` on the simulator, hazard checking on, and checks its output; returns the
/// run's report.
fn assert_runs_to(
    firmware: &Firmware,
    input: &Tensor,
    npu: Vec<Box<dyn umac_sim::Device>>,
    expected: &Tensor,
    what: &str,
) -> umac_sim::report::Report {
    let run = simulate(firmware, std::slice::from_ref(input), npu).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(run.outputs[0].data, expected.data, "{what}: the NPU differs from the reference");
    run.report
}

/// The dimensions of `text`'s result (`return %v : tensor<AxBx..xi8>`).
fn result_dims(text: &str) -> Vec<i64> {
    let line = text.lines().find(|l| l.trim_start().starts_with("return")).unwrap_or_default();
    let ty = line.rsplit_once("tensor<").map_or("", |(_, t)| t);
    ty.split('x').filter_map(|d| d.parse().ok()).collect()
}

/// The body of `text`'s function, its values renamed `%s<step>_<name>` and its input `%x` read
/// as `from`; returns the body and the value it returns.
fn step_body(text: &str, step: usize, from: &str) -> (String, String) {
    let rename = |line: &str| {
        let mut out = String::new();
        let mut rest = line;
        while let Some(at) = rest.find('%') {
            out.push_str(&rest[..at]);
            let name: String = rest[at + 1..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            if name == "x" {
                out.push_str(from)
            } else {
                out.push_str(&format!("%s{step}_{name}"))
            }
            rest = &rest[at + 1 + name.len()..];
        }
        out + rest
    };
    let lines: Vec<&str> = text.lines().collect();
    let body: Vec<String> = lines[1..lines.len() - 2].iter().map(|l| rename(l)).collect();
    let value = lines[lines.len() - 2].trim_start().trim_start_matches("return ").split(' ').next().unwrap_or_default();
    (body.join("\n") + "\n", rename(value))
}

/// Chains of two to four ops (convolutions, depthwise convolutions, poolings, adds, int8 table
/// lookups), each reading the one before (an add maybe an earlier one's output too, as a
/// residual block's does), compiled for tynnp as one function of kernels: with
/// activations kept in DM between them and the next kernel's constants copied during the one
/// before where they fit (default DM, and a 24 KiB DM where fewer fit), and with both off on
/// one DMA channel; the simulator (hazard checking on) must give the host reference's bytes.
#[test]
fn chains_of_kernels_equal_the_reference() {
    umac_driver::register_targets();
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let targets = ["tynnp", "tynnp -dm-kib=24", "tynnp -prefetch=false -fuse=false -dma=1"];
    let kinds = [0, 1, 2, 3, 4, 6];
    let (mut prefetched, mut residuals) = (0, 0);
    for round in 0..36 {
        let target = targets[round % targets.len()];
        let steps = rng.range(2, 4) as usize;
        let (first, input_shape) = model(&mut rng, 0);
        let mut dims = result_dims(&first);
        let (mut body, mut value) = step_body(&first, 0, "%x");
        let mut earlier: Vec<(String, Vec<i64>)> = Vec::new();
        let mut residual = false;
        for step in 1..steps {
            let kind = kinds[rng.range(0, kinds.len() as i64 - 1) as usize];
            let (text, _) = model_on(&mut rng, kind, Some(&dims));
            let (mut more, last) = step_body(&text, step, &value);
            // A residual: an add whose other operand is a constant takes an earlier kernel's
            // output of its shape instead, which two kernels then read (the one after it too).
            let y = format!("%s{step}_y");
            let skip = |earlier: &(String, Vec<i64>)| earlier.1 != dims;
            if more.contains(&format!("{y} = \"tosa.const\""))
                && let Some((from, _)) = earlier.iter().rev().find(|e| !skip(e))
            {
                let renamed: Vec<String> = more
                    .lines()
                    .filter(|l| !l.trim_start().starts_with(&format!("{y} =")))
                    .map(|l| {
                        l.replace(&format!("{y},"), &format!("{from},")).replace(&format!("{y} "), &format!("{from} "))
                    })
                    .collect();
                more = renamed.join("\n") + "\n";
                residual = true;
            }
            body += &more;
            earlier.push((value.clone(), dims.clone()));
            (value, dims) = (last, result_dims(&text));
        }
        let (x, out) = (shape(&input_shape, "i8"), shape(&dims, "i8"));
        let text = format!("func.func @main(%x: {x}) -> {out} {{\n{body}  return {value} : {out}\n}}\n");
        let len: i64 = input_shape.iter().product();
        let data: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        let input = Tensor { dtype: DType::I8, shape: input_shape.iter().map(|&d| d as usize).collect(), data };
        let accelerators = parse_target_string(target).unwrap();
        let npu = devices(&accelerators).unwrap();
        let (firmware, expected) = compile_both(&text, &input, accelerators);
        prefetched += usize::from(firmware.object.windows(3).any(|w| w == b"_pf"));
        // The earlier output kept in DM for both its readers: the add reads both operands there.
        residuals += usize::from(residual && firmware.object.windows(6).any(|w| w == b"_rx_ry"));
        assert_runs_to(&firmware, &input, npu, &expected, &format!("round {round} ({target})\n{text}"));
    }
    assert!(prefetched >= 10, "only {prefetched} chains prefetched a kernel's constants");
    assert!(residuals >= 1, "only {residuals} chains read an earlier kernel's output again from DM");
}

/// The dimensions and the bytes of an element of each `tensor<...>` in `types`, in order.
fn tensors(types: &str) -> Vec<(Vec<i64>, i64)> {
    types
        .split("tensor<")
        .skip(1)
        .map(|t| {
            let inner = t.split('>').next().unwrap_or_default();
            let parts: Vec<&str> = inner.split('x').collect();
            let width = match parts[parts.len() - 1] {
                "i16" => 2,
                "i32" => 4,
                _ => 1,
            };
            (parts[..parts.len() - 1].iter().filter_map(|d| d.parse().ok()).collect(), width)
        })
        .collect()
}

/// The entries of a schedule's text (`{a = .., b = {..}}`), split at its top level.
fn entries(text: &str) -> Vec<(String, String)> {
    let inner = &text[1..text.len() - 1];
    let (mut out, mut depth, mut start) = (Vec::new(), 0, 0);
    for (i, c) in inner.char_indices().chain([(inner.len(), ',')]) {
        match c {
            '{' | '<' => depth += 1,
            '}' | '>' => depth -= 1,
            ',' if depth == 0 => {
                let (key, value) = inner[start..i].split_once(" = ").unwrap();
                out.push((key.trim().to_string(), value.trim().to_string()));
                start = i + 1;
            }
            _ => {}
        }
    }
    out
}

/// A random schedule of the primitive op on `line` in place of `schedule` (its text): other tile
/// bounds (imperfect tiles of any rows, or of whole vectors of 16), one or two buffers, as many
/// bands as the smallest tile allows or fewer, and its own regions (tile buffers large enough for
/// any tile, its constant record) moved to random unaligned places in the upper half of DM,
/// above what it shares with its neighbours (kept activations, records), which stays where it is.
fn reschedule(rng: &mut Rng, line: &str, schedule: &str) -> String {
    let old = entries(schedule);
    let get = |key: &str| old.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone());
    let types = tensors(line.rsplit_once("} : (").map_or("", |(_, t)| t));
    let (result, width) = types[types.len() - 1].clone();
    let elementwise = line.contains("tynnp.add") || line.contains("tynnp.sub") || line.contains("tynnp.table");
    let (input, in_width) = types[0].clone();
    let end = if elementwise { result.iter().product::<i64>() } else { result[1] };
    // Bounds: 0, then distinct random cuts (whole vectors for elementwise jobs), then the end.
    let step = if elementwise { 16 } else { 1 };
    let cuts = (end - 1) / step;
    let mut bounds: Vec<i64> =
        (0..rng.range(0, cuts.min(5))).map(|_| rng.range(1, cuts.max(1)) * step).filter(|&b| b < end).collect();
    bounds.extend([0, end]);
    bounds.sort_unstable();
    bounds.dedup();
    // An im2col convolution keeps its tiles (each of its kernel rows must read some input row).
    let im2col = get("im2col").as_deref() == Some("true");
    if im2col {
        let old_tiles = get("tiles").unwrap();
        let inner = old_tiles.trim_start_matches("array<i64: ").trim_end_matches('>');
        bounds = inner.split(", ").map(|b| b.parse().unwrap()).collect();
    }
    let tiles = bounds.len() - 1;
    let two = rng.range(0, 1) == 1;
    let mut entries_out = Vec::new();
    if get("bands").is_some() {
        let fewest = bounds.windows(2).map(|w| (w[1] - w[0] + step - 1) / step).min().unwrap();
        entries_out.push(format!("bands = {} : i64", rng.range(1, fewest.min(4))));
    }
    entries_out.push(format!("buffers = {} : i64", if two { 2 } else { 1 }));
    // Tile buffers that hold any tile: the whole input (gathered rows when folded) and output.
    let folded = get("fold").as_deref() == Some("true");
    let in_bytes = if elementwise {
        input.iter().product::<i64>() * in_width
    } else if im2col {
        let (kh, kw) = (types[1].0[1], types[1].0[2]);
        result[1] * result[2] * kh * kw * input[3]
    } else if folded {
        let kw = types[1].0[2];
        input[1] * result[2] * kw * input[3]
    } else {
        input.iter().product::<i64>()
    };
    let out_bytes = result.iter().product::<i64>() * width;
    let names: Vec<&str> =
        if line.contains("tynnp.add") || line.contains("tynnp.sub") { vec!["x", "y"] } else { vec!["input"] };
    // What is kept in DM is read (unless gathered for a fold) or written there in place: no tile
    // buffers for it.
    let kept: Vec<String> = get("kept").map_or(Vec::new(), |k| entries(&k).into_iter().map(|(name, _)| name).collect());
    let in_place = |name: &str| kept.iter().any(|k| k == name) && !((folded || im2col) && name == "input");
    let mut regions: Vec<(String, i64)> = Vec::new();
    for name in names.iter().copied().chain(["output"]).filter(|name| !in_place(name)) {
        let bytes = if name == "output" { out_bytes } else { in_bytes };
        regions.push((name.to_string(), bytes));
        if two && tiles > 1 {
            regions.push((format!("{name}1"), bytes));
        }
    }
    let old_dm = get("dm").unwrap();
    if im2col {
        regions.push(("stage".into(), input.iter().product::<i64>()));
    }
    if let Some((_, record)) = entries(&old_dm).into_iter().find(|(k, _)| k == "constants") {
        let bytes: i64 = record.trim_end_matches('>').rsplit(' ').next().unwrap().parse().unwrap();
        regions.push(("constants".into(), bytes));
    }
    // In random order from a random start, with random gaps.
    for i in (1..regions.len()).rev() {
        regions.swap(i, rng.range(0, i as i64) as usize);
    }
    // Above what the kernels share (placed low in DM with these small tensors).
    let shared: Vec<i64> = ["kept", "preloaded", "prefetch", "prefetch_far"]
        .iter()
        .filter_map(|key| get(key))
        .flat_map(|v| v.split(|c: char| !c.is_ascii_digit()).filter_map(|d| d.parse().ok()).collect::<Vec<i64>>())
        .collect();
    assert!(shared.iter().all(|&at| at < 96 * 1024), "{shared:?}: shared ranges where the test moves regions to");
    // A kernel that handed its jobs on to the next may go on doing so (its token table: a row of
    // a token per band for each tile, then the next two records' copies'), its regions then above the next kernel's, which runs
    // while its jobs do.
    let hands = entries(&old_dm).iter().any(|(k, _)| k == "tokens") && rng.range(0, 1) == 1;
    if hands {
        let bands = entries_out.first().and_then(|b| b.strip_prefix("bands = ")).map_or(1, |b| b[..1].parse().unwrap());
        // And the tokens of the copies of the next two kernels' records.
        regions.push(("tokens".into(), 4 * (tiles as i64 * bands + 2)));
    }
    let (mut at, top) = if hands { (200 * 1024, 256 * 1024) } else { (128 * 1024, 200 * 1024) };
    at += rng.range(0, 100);
    let mut dm = Vec::new();
    for (name, bytes) in regions {
        dm.push(format!("{name} = array<i64: {at}, {bytes}>"));
        at += bytes + rng.range(0, 40);
    }
    assert!(at <= top, "the regions reach {at}, past {top}");
    entries_out.push(format!("dm = {{{}}}", dm.join(", ")));
    for key in ["fold", "im2col", "kept", "preloaded", "prefetch", "prefetch_far"] {
        if let Some(value) = get(key) {
            entries_out.push(format!("{key} = {value}"));
        }
    }
    let bounds: Vec<String> = bounds.iter().map(i64::to_string).collect();
    entries_out.push(format!("tiles = array<i64: {}>", bounds.join(", ")));
    format!("{{{}}}", entries_out.join(", "))
}

/// Any sound schedule runs a job right: one-op models and chains of kernels, scheduled by
/// `umac-schedule-tynnp` and then re-scheduled at random (`reschedule`: other tiles, imperfect
/// ones included, buffers, bands and DM places, a kernel handing its jobs on to the next or
/// not), compile and run on the simulator (hazard checking on) to the host reference's bytes.
#[test]
fn edited_schedules_equal_the_reference() {
    umac_driver::register_targets();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let kinds = [0, 1, 2, 3, 4, 5, 6, 7];
    let (mut edited, mut handed) = (0, 0);
    for round in 0..48 {
        let (text, input_shape) = if round % 4 == 3 {
            // A chain of two kernels: what one keeps in DM or prefetches stays put.
            let (first, input_shape) = model(&mut rng, 0);
            let (body0, value0) = step_body(&first, 0, "%x");
            let next = [1, 2, 3, 6][rng.range(0, 3) as usize];
            let (second, _) = model_on(&mut rng, next, Some(&result_dims(&first)));
            let (body1, value1) = step_body(&second, 1, &value0);
            let dims = result_dims(&second);
            let (x, out) = (shape(&input_shape, "i8"), shape(&dims, "i8"));
            (
                format!("func.func @main(%x: {x}) -> {out} {{\n{body0}{body1}  return {value1} : {out}\n}}\n"),
                input_shape,
            )
        } else {
            model(&mut rng, kinds[round % kinds.len()])
        };
        let kind = if round % 4 == 3 { 0 } else { kinds[round % kinds.len()] };
        let (dtype, width) = if kind == 7 { (DType::I16, 2) } else { (DType::I8, 1) };
        let len = input_shape.iter().product::<i64>() * width;
        let data: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        let input = Tensor { dtype, shape: input_shape.iter().map(|&d| d as usize).collect(), data };
        let accelerators = parse_target_string("tynnp").unwrap();
        let npu = devices(&accelerators).unwrap();
        let (_, expected) = compile_both(&text, &input, accelerators.clone());
        // Scheduled, then each schedule replaced.
        let context = create_context(ContextOptions::default());
        let mut module = parse_module(&context, "op.mlir", text.as_bytes()).unwrap();
        let pipeline = "builtin.module(umac-partition{targets=tynnp},umac-primitives-tynnp,umac-schedule-tynnp)";
        let manager = umac_lowering::build_pass_manager(&context, pipeline, "builtin.module").unwrap();
        manager.run(&mut module).unwrap_or_else(|e| panic!("round {round}: {e}\n{text}"));
        let scheduled = module.as_operation().to_string();
        let mut lines = Vec::new();
        for line in scheduled.lines() {
            let Some(at) = line.find("tynnp.schedule = {") else {
                lines.push(line.to_string());
                continue;
            };
            let start = at + "tynnp.schedule = ".len();
            let mut depth = 0;
            let stop = line[start..]
                .char_indices()
                .find(|&(_, c)| {
                    depth += i32::from(c == '{') - i32::from(c == '}');
                    depth == 0
                })
                .map(|(i, _)| start + i + 1)
                .unwrap();
            let schedule = reschedule(&mut rng, line, &line[start..stop]);
            handed += usize::from(schedule.contains("tokens = "));
            lines.push(format!("{}{schedule}{}", &line[..start], &line[stop..]));
            edited += 1;
        }
        let rescheduled = lines.join("\n");
        let firmware = firmware_of(&context, &rescheduled, "scheduled.mlir", accelerators);
        assert_runs_to(&firmware, &input, npu, &expected, &format!("round {round}\n{rescheduled}"));
    }
    assert!(edited >= 60, "only {edited} schedules edited");
    assert!(handed >= 3, "only {handed} edited schedules hand their jobs on");
}

/// A pooling whose tiles have fewer output rows than there are vector units (a global pooling's
/// one pixel) is banded by its channels, as many bands as its channels have vectors of 16 lanes
/// (at most one a unit): each band pools its channels over all the rows, its pixels the tensor's
/// channels apart. Each case: the input, the window (its stride equal to it), average or max,
/// the target and the units that must have run a job; the result equals the reference.
#[test]
fn poolings_with_few_output_rows_are_banded_by_channels() {
    umac_driver::register_targets();
    let mut rng = Rng(0x1f83_d9ab_fb41_bd6b);
    type Case = ([i64; 3], [i64; 2], bool, &'static str, usize);
    let cases: [Case; 7] = [
        ([5, 5, 64], [5, 5], true, "tynnp", 4),
        ([3, 3, 40], [3, 3], false, "tynnp", 3),
        ([7, 2, 20], [7, 2], true, "tynnp", 2),
        ([4, 4, 16], [4, 4], true, "tynnp", 1),
        ([5, 5, 64], [5, 5], true, "tynnp -vu=3", 3),
        ([6, 6, 48], [3, 6], true, "tynnp", 3),
        ([6, 6, 48], [3, 6], false, "tynnp -double-buffer=false", 3),
    ];
    for ([ih, iw, c], [kh, kw], average, target, units) in cases {
        let (x, out) = (shape(&[1, ih, iw, c], "i8"), shape(&[1, ih / kh, iw / kw, c], "i8"));
        let attributes =
            format!("kernel = array<i64: {kh}, {kw}>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: {kh}, {kw}>");
        let body = if average {
            let (izp, ozp) = (rng.range(-128, 127), rng.range(-128, 127));
            format!(
                "  %izp = \"tosa.const\"() <{{values = dense<{izp}> : tensor<1xi8>}}> : () -> tensor<1xi8>\n  \
                 %ozp = \"tosa.const\"() <{{values = dense<{ozp}> : tensor<1xi8>}}> : () -> tensor<1xi8>\n  \
                 %p = tosa.avg_pool2d %x, %izp, %ozp {{acc_type = i32, {attributes}}} : ({x}, tensor<1xi8>, tensor<1xi8>) -> {out}\n"
            )
        } else {
            format!("  %p = tosa.max_pool2d %x {{{attributes}}} : ({x}) -> {out}\n")
        };
        let text = format!("func.func @main(%x: {x}) -> {out} {{\n{body}  return %p : {out}\n}}\n");
        let data: Vec<u8> = (0..ih * iw * c).map(|_| rng.next() as u8).collect();
        let input = Tensor { dtype: DType::I8, shape: vec![1, ih as usize, iw as usize, c as usize], data };
        let accelerators = parse_target_string(target).unwrap();
        let npu = devices(&accelerators).unwrap();
        let (firmware, expected) = compile_both(&text, &input, accelerators);
        let what = format!("{target}\n{text}");
        let report = assert_runs_to(&firmware, &input, npu, &expected, &what);
        let busy: Vec<&str> = report
            .units
            .iter()
            .filter(|(unit, jobs, _)| unit.starts_with("vu") && *jobs > 0)
            .map(|u| u.0.as_str())
            .collect();
        assert_eq!(busy.len(), units, "{what}: units {busy:?}");
    }
}

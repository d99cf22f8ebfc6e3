//! Randomized graphs at the front door. Small float32 and int8 TOSA graphs, an elementwise
//! producer (clamp, maximum, add) feeding a convolution, depthwise convolution, average or max
//! pooling with a random kernel, stride and padding (every side on its own, asymmetric ones
//! included), compiled for every target: each CPU, and with the vanilla and tynnp accelerators.
//! A float residual network's stride-2 convolution with asymmetric padding behind a ReLU once
//! failed on every target (its padding was left unfolded, and the fused ReLU computed a window of
//! dynamic size no static plan could place); the graphs here are the shapes of that hole.
//!
//! Checked: the LLVM engine (firmware's lowering: padding read in place, tiles, a planned
//! workspace) equals the Cranelift engine (plain loops, the reference) bit for bit, floats
//! included (the same operations in the same order); every target compiles every graph (floats
//! without a floating-point unit as calls of libgcc's soft-float helpers); every graph runs on the
//! RV32IM simulator with those helpers linked, and a third under QEMU on Cortex-M55 and M4, all
//! byte for byte equal to the reference (IEEE arithmetic is exact in software too).

mod support;

use std::path::PathBuf;
use support::{host_reference, options, run_text};
use umac_backend::Cpu;
use umac_backend::cpu::{CORTEX_M4, CORTEX_M55, CPUS, RV32IM};
use umac_dialects::{ContextOptions, source::parse_module};
use umac_driver::create_context;
use umac_driver::firmware::compile;
use umac_driver::host::{Engine, compile as host_compile};
use umac_driver::simulator::simulate;
use umac_runtime::{
    DType, Tensor,
    firmware::{MPS2_AN386, MPS3_AN547},
    testdata::Rng,
};

/// How many graphs of each element type.
const GRAPHS: u64 = 10;

/// The operator a graph's producer feeds.
#[derive(Clone, Copy, Debug)]
enum Kind {
    Conv,
    Depthwise,
    AvgPool,
    MaxPool,
}

/// One random graph: its MLIR and its input.
struct Graph {
    what: String,
    text: String,
    input: Tensor,
    float: bool,
}

/// Kernel, stride and padding `[before, after]` of one spatial axis of size `size` whose output
/// is exact (TOSA requires the strided windows to end on the padded input's last element), the
/// padding below the kernel as pooling requires.
fn axis(rng: &mut Rng, size: i64) -> (i64, i64, [i64; 2], i64) {
    loop {
        let kernel = rng.range(1, 3.min(size));
        let stride = rng.range(1, 2);
        let pad = [rng.range(0, kernel - 1), rng.range(0, kernel - 1)];
        let span = size + pad[0] + pad[1] - kernel;
        if span >= 0 && span % stride == 0 {
            return (kernel, stride, pad, span / stride + 1);
        }
    }
}

fn values(rng: &mut Rng, n: usize, low: i64, high: i64) -> String {
    (0..n).map(|_| rng.range(low, high).to_string()).collect::<Vec<_>>().join(", ")
}

/// Floats that are multiples of 1/8 in [-2, 2]: exact in binary, varied in their products.
fn floats(rng: &mut Rng, n: usize) -> String {
    (0..n).map(|_| format!("{:.3}", rng.range(-16, 16) as f64 / 8.0)).collect::<Vec<_>>().join(", ")
}

fn graph(seed: u64, float: bool) -> Graph {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ (seed * 2 + u64::from(float) + 1));
    let kind = [Kind::Conv, Kind::Depthwise, Kind::AvgPool, Kind::MaxPool][rng.below(4)];
    let (h, w, c) = (rng.range(3, 9), rng.range(3, 9), rng.range(1, 5));
    let (kh, sh, ph, oh) = axis(&mut rng, h);
    let (kw, sw, pw, ow) = axis(&mut rng, w);
    let et = if float { "f32" } else { "i8" };
    let x_type = format!("tensor<1x{h}x{w}x{c}x{et}>");
    let one = format!("tensor<1x1x1x1x{et}>");
    let mut body = String::new();
    // The producer.
    let producer = rng.below(3);
    let bound = |rng: &mut Rng| if float { floats(rng, 1) } else { values(rng, 1, -100, 100) };
    match producer {
        0 if float => {
            body += &format!(
                "    %p = tosa.clamp %x {{max_val = 3.40282347E+38 : f32, min_val = 0.000000e+00 : f32}} : ({x_type}) -> {x_type}\n"
            )
        }
        0 => {
            let low = rng.range(-128, 0);
            let high = rng.range(low, 127);
            body += &format!(
                "    %p = tosa.clamp %x {{max_val = {high} : i8, min_val = {low} : i8}} : ({x_type}) -> {x_type}\n"
            );
        }
        1 => {
            body += &format!(
                "    %k = \"tosa.const\"() <{{values = dense<{}> : {one}}}> : () -> {one}\n    \
             %p = tosa.maximum %x, %k : ({x_type}, {one}) -> {x_type}\n",
                bound(&mut rng)
            )
        }
        _ if float => {
            body += &format!(
                "    %k = \"tosa.const\"() <{{values = dense<{}> : {one}}}> : () -> {one}\n    \
             %p = tosa.add %x, %k : ({x_type}, {one}) -> {x_type}\n",
                bound(&mut rng)
            )
        }
        _ => {
            body += &format!(
                "    %k = \"tosa.const\"() <{{values = dense<{}> : {one}}}> : () -> {one}\n    \
             %p = tosa.minimum %x, %k : ({x_type}, {one}) -> {x_type}\n",
                bound(&mut rng)
            )
        }
    }
    let pad = format!("pad = array<i64: {}, {}, {}, {}>", ph[0], ph[1], pw[0], pw[1]);
    let stride = format!("stride = array<i64: {sh}, {sw}>");
    let (oc, acc) = match kind {
        Kind::Conv => (rng.range(1, 5), if float { "f32" } else { "i32" }),
        _ => (c, if float { "f32" } else { "i32" }),
    };
    let y_type = format!("tensor<1x{oh}x{ow}x{oc}x{et}>");
    let acc_type = format!("tensor<1x{oh}x{ow}x{oc}x{acc}>");
    let scalar = |name: &str, ty: &str, value: &str| {
        format!(
            "    %{name} = \"tosa.const\"() <{{values = dense<{value}> : tensor<1x{ty}>}}> : () -> tensor<1x{ty}>\n"
        )
    };
    let izp = if float { "0.0".to_string() } else { rng.range(-128, 127).to_string() };
    body += &scalar("izp", et, &izp);
    body += &scalar("wzp", et, if float { "0.0" } else { "0" });
    let result = match kind {
        Kind::Conv | Kind::Depthwise => {
            let (w_shape, n) = match kind {
                Kind::Conv => (format!("{oc}x{kh}x{kw}x{c}"), oc * kh * kw * c),
                _ => (format!("{kh}x{kw}x{c}x1"), kh * kw * c),
            };
            let weights = if float { floats(&mut rng, n as usize) } else { values(&mut rng, n as usize, -127, 127) };
            let bias = if float { floats(&mut rng, oc as usize) } else { values(&mut rng, oc as usize, -500, 500) };
            body += &format!(
                "    %w = \"tosa.const\"() <{{values = dense<[{weights}]> : tensor<{n}x{et}>}}> : () -> tensor<{n}x{et}>\n    \
                 %ws = tosa.const_shape {{values = dense<[{}]> : tensor<4xindex>}} : () -> !tosa.shape<4>\n    \
                 %wr = tosa.reshape %w, %ws : (tensor<{n}x{et}>, !tosa.shape<4>) -> tensor<{w_shape}x{et}>\n    \
                 %b = \"tosa.const\"() <{{values = dense<[{bias}]> : tensor<{oc}x{acc}>}}> : () -> tensor<{oc}x{acc}>\n",
                w_shape.replace('x', ", ")
            );
            let op = if matches!(kind, Kind::Conv) { "conv2d" } else { "depthwise_conv2d" };
            body += &format!(
                "    %acc = tosa.{op} %p, %wr, %b, %izp, %wzp {{acc_type = {acc}, dilation = array<i64: 1, 1>, {pad}, {stride}}} \
                 : ({x_type}, tensor<{w_shape}x{et}>, tensor<{oc}x{acc}>, tensor<1x{et}>, tensor<1x{et}>) -> {acc_type}\n"
            );
            if float {
                "%acc".to_string()
            } else {
                // Requantized to int8 as TFLite does: a multiplier near 2^30 and a shift near 38.
                let (multiplier, shift) = (rng.range(1 << 29, (1 << 31) - 1), rng.range(36, 42));
                body += &scalar("m", "i32", &multiplier.to_string());
                body += &scalar("s", "i8", &shift.to_string());
                body += &scalar("azp", "i32", "0");
                body += &scalar("ozp", "i8", &rng.range(-128, 127).to_string());
                body += &format!(
                    "    %y = tosa.rescale %acc, %m, %s, %azp, %ozp {{input_unsigned = false, output_unsigned = false, \
                     per_channel = false, rounding_mode = DOUBLE_ROUND, scale32 = true}} : ({acc_type}, tensor<1xi32>, \
                     tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> {y_type}\n"
                );
                "%y".to_string()
            }
        }
        Kind::AvgPool => {
            body += &format!(
                "    %y = tosa.avg_pool2d %p, %izp, %izp {{acc_type = {acc}, kernel = array<i64: {kh}, {kw}>, {pad}, {stride}}} \
                 : ({x_type}, tensor<1x{et}>, tensor<1x{et}>) -> {y_type}\n"
            );
            "%y".to_string()
        }
        Kind::MaxPool => {
            body += &format!(
                "    %y = tosa.max_pool2d %p {{kernel = array<i64: {kh}, {kw}>, {pad}, {stride}}} : ({x_type}) -> {y_type}\n"
            );
            "%y".to_string()
        }
    };
    let text = format!("func.func @main(%x: {x_type}) -> {y_type} {{\n{body}    return {result} : {y_type}\n}}\n");
    let elements = (h * w * c) as usize;
    let input = if float {
        let data = (0..elements).flat_map(|_| (rng.range(-64, 64) as f32 / 16.0).to_le_bytes()).collect();
        Tensor { dtype: DType::F32, shape: vec![1, h as usize, w as usize, c as usize], data }
    } else {
        Tensor { dtype: DType::I8, shape: vec![1, h as usize, w as usize, c as usize], data: rng.bytes(elements) }
    };
    let what = format!(
        "graph {seed} ({et}, producer {producer}, {kind:?} {kh}x{kw} stride {sh}x{sw} pad {ph:?} {pw:?} over {h}x{w}x{c})"
    );
    Graph { what, text, input, float }
}

fn graphs() -> Vec<Graph> {
    (0..GRAPHS).flat_map(|seed| [graph(seed, true), graph(seed, false)]).collect()
}

#[test]
fn the_llvm_engine_equals_the_reference_bit_for_bit() {
    umac_driver::register_targets();
    for graph in graphs() {
        let expected = host_reference(&graph.text, &graph.input, &graph.what);
        let context = create_context(ContextOptions::default());
        let mut module = parse_module(&context, "model.mlir", graph.text.as_bytes()).unwrap();
        let inputs = std::slice::from_ref(&graph.input);
        let program = host_compile(&context, &mut module, "main", inputs, Engine::Llvm, Default::default())
            .unwrap_or_else(|e| panic!("{} on the LLVM engine: {e}\n{}", graph.what, graph.text));
        let actual = program.run(inputs).unwrap().remove(0);
        assert_eq!(actual.data, expected.data, "{}:\n{}", graph.what, graph.text);
    }
}

#[test]
fn every_target_compiles_every_graph() {
    umac_driver::register_targets();
    let mut compiled = 0;
    for graph in graphs() {
        let mut targets: Vec<(Cpu, &str)> = CPUS.iter().map(|&cpu| (cpu, "")).collect();
        // Every accelerator, with the CPU it comes with (else a Cortex-M55).
        for backend in umac_backend::backends() {
            let cpu = backend.cpu().and_then(Cpu::find).unwrap_or(CORTEX_M55);
            targets.push((cpu, backend.name()));
        }
        for (cpu, accelerators) in targets {
            let context = create_context(ContextOptions::default());
            let mut module = parse_module(&context, "model.mlir", graph.text.as_bytes()).unwrap();
            let outcome = compile(&context, &mut module, "main", cpu, &options("model", accelerators, false));
            let what = format!(
                "{} for {accelerators}{}{}",
                graph.what,
                if accelerators.is_empty() { "" } else { "," },
                cpu.name
            );
            match outcome {
                // Without an FPU, floats are libgcc's soft-float helpers, and nothing else.
                Ok(firmware) if graph.float && !cpu.has_fpu() => {
                    let soft_float = umac_driver::firmware::checks::soft_float_imports(&firmware.imports);
                    assert!(!soft_float.is_empty(), "{what}: {:?}", firmware.imports);
                    compiled += 1;
                }
                Ok(_) => compiled += 1,
                Err(e) => panic!("{what}: {e}\n{}", graph.text),
            }
        }
    }
    assert_eq!(compiled, GRAPHS as usize * 2 * 12);
}

#[test]
fn graphs_run_on_cortex_m_under_qemu() {
    let work = std::env::temp_dir().join(format!("umac-random-graphs-{}", std::process::id()));
    for (i, graph) in graphs().into_iter().enumerate().filter(|(i, _)| i % 3 == 0) {
        let expected = host_reference(&graph.text, &graph.input, &graph.what);
        for (cpu, platform) in [(CORTEX_M55, MPS3_AN547), (CORTEX_M4, MPS2_AN386)] {
            let dir: PathBuf = work.join(format!("{i}-{}", cpu.name));
            let outcome = run_text(&graph.text, cpu, platform, &dir, &graph.input.data, &expected.data, &graph.what);
            assert_eq!(outcome.status, Some(0), "{} on {}: {}\n{}", graph.what, cpu.name, outcome.output, graph.text);
        }
    }
    let _ = std::fs::remove_dir_all(&work);
}

#[test]
fn graphs_run_on_the_rv32_simulator() {
    umac_driver::register_targets();
    for graph in graphs() {
        let expected = host_reference(&graph.text, &graph.input, &graph.what);
        let context = create_context(ContextOptions::default());
        let mut module = parse_module(&context, "model.mlir", graph.text.as_bytes()).unwrap();
        let firmware = compile(&context, &mut module, "main", RV32IM, &options("model", "", false))
            .unwrap_or_else(|e| panic!("{} for rv32im: {e}", graph.what));
        let run = simulate(&firmware, std::slice::from_ref(&graph.input), Vec::new())
            .unwrap_or_else(|e| panic!("{} on the simulator: {e}", graph.what));
        assert_eq!(run.outputs[0].data, expected.data, "{} on the simulator:\n{}", graph.what, graph.text);
    }
}

//! Firmware as firmware engineers integrate it: several models in one image, profiling hooks,
//! a workspace split over memory pools in different memories, a model with state and its reset.

mod support;

use std::{
    fmt::Write as _,
    path::{Path, PathBuf},
    time::Duration,
};
use support::{assert_close, cases, compile_with, floats, models_dir, options};
use umac_backend::Cpu;
use umac_backend::cpu::{CORTEX_M0PLUS, CORTEX_M4, CORTEX_M55, RV32IM};
use umac_driver::firmware::{Firmware, FirmwareOptions, output};
use umac_runtime::firmware::{
    CORTEX_M0PLUS_ON_AN385, Case, MPS2_AN386, MPS3_AN547, Platform, RISCV_VIRT_RV32IM, build_program, run,
};

/// `<name>_inputs` and `<name>_expected`: the five reference cases of a model with one input and
/// one output, as C arrays (in the large memory's `.testdata`, as the harness puts them).
fn cases_c(name: &str, dir: &std::path::Path) -> String {
    cases_array_c(name, &cases(dir))
}

/// [`cases_c`] for the cases `cases`.
fn cases_array_c(name: &str, cases: &[Case]) -> String {
    let mut c = format!("#include <stdint.h>\n#include \"{name}.h\"\n");
    let upper = name.to_ascii_uppercase();
    let bytes = |data: &[u8]| data.iter().map(u8::to_string).collect::<Vec<_>>().join(",");
    for (array, size, pick) in [("inputs", "INPUT", 0), ("expected", "OUTPUT", 1)] {
        let rows: Vec<String> = cases
            .iter()
            .map(|case| format!("{{{}}}", bytes(if pick == 0 { &case.inputs[0] } else { &case.expected[0] })))
            .collect();
        let _ = writeln!(
            c,
            "__attribute__((section(\".testdata\"))) const uint8_t {name}_{array}[{}][{upper}_{size}_0_SIZE] = {{{}}};",
            rows.len(),
            rows.join(",\n")
        );
    }
    c
}

/// KWS and AD, compiled as `kws` and `ad`, in one image sharing one workspace
/// (`driver/tests/firmware_programs/two_models.c`): both bit-exact with TFLite Micro on their
/// five cases, run alternately. AD, compiled to share KWS's workspace, defines its size; it also
/// has profiling hooks that nothing defines.
fn two_models(cpu: Cpu, platform: Platform) {
    let models = models_dir();
    let work = std::env::temp_dir().join(format!("umac-two-models-{}-{}", std::process::id(), cpu.name));
    let mut objects = Vec::new();
    let mut includes = Vec::new();
    let mut sources = vec![("main.c", include_str!("firmware_programs/two_models.c").to_string())];
    let mut workspaces = Vec::new();
    for name in ["kws", "ad"] {
        // AD with profiling hooks the firmware does not define: the object's weak, empty ones run.
        // AD shares KWS's workspace (--share-workspace-with): its header says the larger size.
        let hooks = name == "ad";
        let shared_with = if hooks { vec![("kws".to_string(), workspaces[0])] } else { vec![] };
        let options =
            umac_driver::firmware::FirmwareOptions { profile_hooks: hooks, shared_with, ..options(name, "", false) };
        let firmware = compile_with(&models.join(name), cpu, &options);
        workspaces.push(firmware.workspace_size);
        let written = output::write(&work.join(name), name, &firmware).unwrap();
        objects.push(written.object.clone());
        includes.push(written.header.parent().unwrap().to_path_buf());
        sources.push((if name == "kws" { "cases_kws.c" } else { "cases_ad.c" }, cases_c(name, &models.join(name))));
    }
    let objects: Vec<&std::path::Path> = objects.iter().map(PathBuf::as_path).collect();
    let program = build_program(platform, &work, "two_models", &sources, &[], &objects, &includes).unwrap();
    let outcome = run(platform, &program, Duration::from_secs(300)).unwrap();
    assert_eq!(outcome.status, Some(0), "{}", outcome.output);
    let shared = workspaces.iter().max().unwrap();
    let ad_header = std::fs::read_to_string(work.join("ad/ad.h")).unwrap();
    assert!(ad_header.contains(&format!("#define AD_SHARED_WORKSPACE_SIZE {shared}\n")), "{ad_header}");
    assert!(
        outcome.output.contains(&format!("ok: 5 cases of each model in a {shared}-byte workspace")),
        "{}",
        outcome.output
    );
    let _ = std::fs::remove_dir_all(&work);
}

#[test]
fn two_models_in_one_image_cortex_m55() {
    two_models(CORTEX_M55, MPS3_AN547);
}

#[test]
fn two_models_in_one_image_cortex_m4() {
    two_models(CORTEX_M4, MPS2_AN386);
}

/// Links the model of `dir`, compiled as `firmware` and named `name`, into the program `main_c`
/// (with the model's five cases in `cases_<name>.c`) under `work`, runs it on `platform` and
/// returns what it printed; it must exit 0.
fn run_program(
    platform: Platform,
    work: &Path,
    (name, dir): (&str, &Path),
    firmware: &Firmware,
    main_c: &str,
) -> String {
    run_program_on(platform, work, (name, &cases(dir)), firmware, main_c)
}

/// [`run_program`] for the cases `cases`.
fn run_program_on(
    platform: Platform,
    work: &Path,
    (name, cases): (&str, &[Case]),
    firmware: &Firmware,
    main_c: &str,
) -> String {
    let written = output::write(&work.join(name), name, firmware).unwrap();
    let cases_file = format!("cases_{name}.c");
    let sources = [("main.c", main_c.to_string()), (cases_file.as_str(), cases_array_c(name, cases))];
    let include = written.header.parent().unwrap().to_path_buf();
    let program = build_program(platform, work, "program", &sources, &[], &[&written.object], &[include]).unwrap();
    let outcome = run(platform, &program, Duration::from_secs(300)).unwrap();
    assert_eq!(outcome.status, Some(0), "{}", outcome.output);
    outcome.output
}

/// [`run_program`] for KWS, compiled as `kws`.
fn run_kws_program(platform: Platform, work: &Path, firmware: &Firmware, main_c: &str) -> String {
    run_program(platform, work, ("kws", &models_dir().join("kws")), firmware, main_c)
}

/// KWS compiled with profiling hooks (`--profile-hooks`), as an object or as C, the hooks defined by the firmware
/// (`driver/tests/firmware_programs/profile_hooks.c`): each inference calls begin(k), end(k) for
/// every operator in order, once, and the outputs stay bit-exact. metadata.json's operators carry
/// the ids and, together, the model's multiply-accumulates.
fn profile_hooks(cpu: Cpu, platform: Platform, emit_c: bool) {
    let models = models_dir();
    let code = if emit_c { "c" } else { "object" };
    let work = std::env::temp_dir().join(format!("umac-profile-hooks-{}-{}-{code}", std::process::id(), cpu.name));
    let dir = models.join("kws");
    let firmware = compile_with(
        &dir,
        cpu,
        &umac_driver::firmware::FirmwareOptions { profile_hooks: true, emit_c, ..options("kws", "", false) },
    );
    let ops = firmware.operators.len();
    assert!(ops > 10, "{ops}");
    assert_eq!(firmware.operators.iter().map(|o| o.id).collect::<Vec<_>>(), (0..ops).collect::<Vec<_>>());
    // KWS: 2,656,768 multiply-accumulates (its convolutions, depthwise ones and the fully connected layer).
    assert_eq!(firmware.operators.iter().map(|o| o.macs).sum::<u64>(), 2_656_768);
    assert!(firmware.header.contains(&format!("#define KWS_NUM_OPS {ops}\n")), "{}", firmware.header);
    let output = run_kws_program(platform, &work, &firmware, include_str!("firmware_programs/profile_hooks.c"));
    let expected = format!("hook calls: {} for {ops} operators, 0 wrong", 2 * ops * 5);
    assert!(output.contains(&expected), "{output}");
    let _ = std::fs::remove_dir_all(&work);
}

#[test]
fn profile_hooks_cortex_m55() {
    profile_hooks(CORTEX_M55, MPS3_AN547, false);
}

#[test]
fn profile_hooks_cortex_m4() {
    profile_hooks(CORTEX_M4, MPS2_AN386, false);
}

/// The same with the model as C (`--emit=c`): the hooks are weak C functions.
#[test]
fn profile_hooks_in_c_cortex_m4() {
    profile_hooks(CORTEX_M4, MPS2_AN386, true);
}

/// KWS with its workspace split over two pools (`driver/tests/firmware_programs/pools.c`): a fast
/// one of 8 KiB, which the firmware puts in the board's RAM, and a slow one of 64 KiB in its large
/// memory. Both hold buffers, neither past its capacity, and the outputs are bit-exact.
fn pools(cpu: Cpu, platform: Platform) {
    let models = models_dir();
    let work = std::env::temp_dir().join(format!("umac-pools-{}-{}", std::process::id(), cpu.name));
    let dir = models.join("kws");
    let pools = umac_lowering::memory_pools::parse_pools("fast:8K:fast,slow:64K").unwrap();
    let firmware =
        compile_with(&dir, cpu, &umac_driver::firmware::FirmwareOptions { pools, ..options("kws", "", false) });
    assert_eq!(firmware.pool_sizes.len(), 2);
    assert!(firmware.pool_sizes[0] <= 8192 && firmware.pool_sizes[1] <= 65536, "{:?}", firmware.pool_sizes);
    for pool in 0..2 {
        assert!(firmware.memory_plan.iter().any(|b| b.pool == pool), "pool {pool} holds buffers");
    }
    // The largest buffers (8000-byte activations) are split: one in each pool.
    let large: Vec<usize> = firmware.memory_plan.iter().filter(|b| b.bytes == 8000).map(|b| b.pool).collect();
    assert!(large.contains(&0) && large.contains(&1), "{large:?}");
    assert!(firmware.header.contains("void *pool_fast, void *pool_slow);"), "{}", firmware.header);
    let output = run_kws_program(platform, &work, &firmware, include_str!("firmware_programs/pools.c"));
    // RAM from 0x20000000, the large memory from 0x21000000 on both boards.
    let (fast, slow) = (firmware.pool_sizes[0], firmware.pool_sizes[1]);
    assert!(output.contains("fast pool at 0x200"), "{output}");
    assert!(output.contains(&format!("({fast} bytes), slow pool at 0x210")), "{output}");
    assert!(output.contains(&format!("({slow} bytes)\nok: 5 cases")), "{output}");
    let _ = std::fs::remove_dir_all(&work);
}

#[test]
fn pools_in_two_memories_cortex_m55() {
    pools(CORTEX_M55, MPS3_AN547);
}

#[test]
fn pools_in_two_memories_cortex_m4() {
    pools(CORTEX_M4, MPS2_AN386);
}

/// The stacked int8 LSTM (test/models/lstm/lstm_stack_int8) as a firmware engineer uses a model
/// with state (`driver/tests/firmware_programs/reset_state.c`): its five cases in order give
/// TFLite Micro's outputs, and after `lstm_reset_state()` the first two cases give the first two
/// outputs again. The header declares the reset and the state's size (two LSTMs: 16 + 8 int8
/// hidden and 16 + 8 int16 cell values, 72 bytes); metadata.json records it.
fn reset_state(cpu: Cpu, platform: Platform) {
    let work = std::env::temp_dir().join(format!("umac-reset-state-{}-{}", std::process::id(), cpu.name));
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../test/models/lstm/lstm_stack_int8");
    let firmware = compile_with(&dir, cpu, &options("lstm", "", false));
    assert_eq!(firmware.state_bytes, 72);
    assert!(
        firmware.header.contains("#define LSTM_STATE_SIZE 72\nvoid lstm_reset_state(void);\n"),
        "{}",
        firmware.header
    );
    assert_eq!(firmware.metadata["state_bytes"], 72);
    let output =
        run_program(platform, &work, ("lstm", &dir), &firmware, include_str!("firmware_programs/reset_state.c"));
    assert!(output.contains("ok: 5 cases, reset, 2 cases; state 72 bytes"), "{output}");
    let _ = std::fs::remove_dir_all(&work);
}

#[test]
fn reset_state_cortex_m55() {
    reset_state(CORTEX_M55, MPS3_AN547);
}

#[test]
fn reset_state_cortex_m4() {
    reset_state(CORTEX_M4, MPS2_AN386);
}

/// The floats `float_outputs.c` printed for case `c` (`case c: N bits bits ...`, hex bit patterns).
fn printed_floats(output: &str, c: usize) -> Vec<f32> {
    let line = output.lines().find(|l| l.starts_with(&format!("case {c}:"))).expect("the case ran");
    line.split_whitespace().skip(2).map(|bits| f32::from_bits(u32::from_str_radix(bits, 16).unwrap())).collect()
}

/// A float model's object imports nothing but the memory functions and, without an FPU,
/// libgcc's soft-float helpers (returned), which an FPU makes unnecessary.
fn assert_float_imports(firmware: &umac_driver::firmware::Firmware, cpu: Cpu) -> Vec<&str> {
    let soft_float = umac_driver::firmware::checks::soft_float_imports(&firmware.imports);
    assert!(
        firmware
            .imports
            .iter()
            .all(|i| i.starts_with("mem") || i.starts_with("__aeabi_mem") || soft_float.contains(&i.as_str())),
        "{:?}",
        firmware.imports
    );
    assert_eq!(soft_float.is_empty(), cpu.has_fpu(), "{:?}", firmware.imports);
    soft_float
}

/// Float models on firmware, whose sigmoids, tanhs and softmaxes are float arithmetic
/// (`umac-expand-exp-tanh`: firmware links no libm; the object imports nothing but memcpy and
/// memset): the five cases of each of `dirs` (under `test/models`) in order
/// (`driver/tests/firmware_programs/float_outputs.c`), every output within 1e-5 of TFLite Micro's
/// (relative to it, absolute below 1).
fn float_models(dirs: &[&str], cpu: Cpu, platform: Platform) {
    for dir in dirs {
        let work = std::env::temp_dir().join(format!(
            "umac-float-{}-{}-{}",
            std::process::id(),
            cpu.name,
            dir.replace('/', "-")
        ));
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../test/models").join(dir);
        // Float weights are four times int8's: VWW's 0.9 MB go to the board's large memory.
        let options =
            FirmwareOptions { constants_section: Some(".external.weights".into()), ..options("model", "", false) };
        let firmware = compile_with(&dir, cpu, &options);
        let soft_float = assert_float_imports(&firmware, cpu);
        let output =
            run_program(platform, &work, ("model", &dir), &firmware, include_str!("firmware_programs/float_outputs.c"));
        // The header names the soft-float helpers the object needs.
        let header = std::fs::read_to_string(work.join("model/model.h")).unwrap();
        assert_eq!(header.contains("soft-float helpers"), !soft_float.is_empty(), "{header}");
        assert!(soft_float.iter().all(|h| header.contains(h)), "{header}");
        for (c, case) in cases(&dir).iter().enumerate() {
            let got = printed_floats(&output, c);
            assert_close(&got, &floats(&case.expected[0]), &format!("{} case {c} on {}", dir.display(), cpu.name));
        }
        let _ = std::fs::remove_dir_all(&work);
    }
}

/// The float LSTMs (test/models/lstm: the small one and TFLite Micro's trained MNIST example).
const FLOAT_LSTMS: &[&str] = &["lstm/lstm_small_f32", "lstm/mnist/f32"];

/// The float32 twins of the MLPerf Tiny models (test/models/float; IC a float residual network).
const FLOAT_TWINS: &[&str] = &["float/kws", "float/vww", "float/ic", "float/ad"];

#[test]
fn float_lstms_cortex_m55() {
    float_models(FLOAT_LSTMS, CORTEX_M55, MPS3_AN547);
}

#[test]
fn float_lstms_cortex_m4() {
    float_models(FLOAT_LSTMS, CORTEX_M4, MPS2_AN386);
}

#[test]
fn float_twins_cortex_m55() {
    float_models(FLOAT_TWINS, CORTEX_M55, MPS3_AN547);
}

#[test]
fn float_twins_cortex_m4() {
    float_models(FLOAT_TWINS, CORTEX_M4, MPS2_AN386);
}

/// Without a floating-point unit, floats are libgcc's soft-float helpers, which the toolchain
/// links (the header and metadata.json name them).
#[test]
fn float_twins_cortex_m0plus() {
    float_models(FLOAT_TWINS, CORTEX_M0PLUS, CORTEX_M0PLUS_ON_AN385);
}

#[test]
fn float_twins_rv32im() {
    float_models(FLOAT_TWINS, RV32IM, RISCV_VIRT_RV32IM);
}

/// The float twins on umac's RV32IM simulator (`umac run --target=rv32im`), which links the same
/// soft-float helpers from the RISC-V toolchain's libgcc: every output within 1e-5 of TFLite
/// Micro's. KWS and AD (IC and VWW take billions of simulated instructions in software float).
#[test]
fn float_twins_on_the_simulator() {
    for dir in ["float/kws", "float/ad"] {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../test/models").join(dir);
        let firmware = compile_with(&dir, RV32IM, &options("model", "", false));
        for (c, case) in cases(&dir).iter().enumerate() {
            let input = umac_runtime::read_npy(&dir.join(format!("ref/input_{c}.npy"))).unwrap();
            let run = umac_driver::simulator::simulate(&firmware, &[input], Vec::new()).unwrap();
            let what = format!("{} case {c} on the simulator", dir.display());
            assert_close(&floats(&run.outputs[0].data), &floats(&case.expected[0]), &what);
        }
    }
}

/// Float LOG, SIN and COS as a model (66 values: Helium's vectors of 4 and a scalar tail).
const FLOAT_MATH: &str = "func.func @main(%x: tensor<1x66xf32>) -> tensor<3x66xf32> {
  %l = tosa.log %x : (tensor<1x66xf32>) -> tensor<1x66xf32>
  %s = tosa.sin %x : (tensor<1x66xf32>) -> tensor<1x66xf32>
  %c = tosa.cos %x : (tensor<1x66xf32>) -> tensor<1x66xf32>
  %y = tosa.concat %l, %s, %c {axis = 0 : i32} : (tensor<1x66xf32>, tensor<1x66xf32>, tensor<1x66xf32>) -> tensor<3x66xf32>
  return %y : tensor<3x66xf32>
}
";

/// The five inputs of [`FLOAT_MATH`]: special values, subnormals, the octants' edges and values
/// past 8192 first; then, alternately, floats of every magnitude (by their bits) and values in
/// [-8192, 8192].
fn float_math_inputs() -> Vec<Vec<f32>> {
    let pi_4 = std::f64::consts::FRAC_PI_4;
    let mut first = vec![0.0, -0.0, -1.0, 1.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, f32::MAX];
    first.extend([f32::from_bits(1), f32::from_bits(0x0000_0FFF), f32::from_bits(0x007F_FFFF), f32::MIN_POSITIVE]);
    first.extend([std::f32::consts::E, std::f32::consts::FRAC_1_SQRT_2, std::f32::consts::SQRT_2, 1e-30, 1e30, 3e38]);
    first.extend((1..=24).map(|k| (f64::from(k * 427 - 5000) * pi_4) as f32));
    first.extend([8192.0, -8191.9, 8200.5, 65536.0, -1e5, 1e6, 16_777_215.0, 16_777_216.0, 1e10, -1e20]);
    first.resize(66, 0.5);
    let mut inputs = vec![first];
    for case in 1..5 {
        let random = support::lcg(case, 66);
        let values = random.iter().enumerate().map(|(i, &r)| {
            if i % 2 == 0 {
                f32::from_bits((r as u32) % 0x7F80_0000)
            } else {
                (r % 16_385 - 8192) as f32 + 0.125 * (r % 7) as f32
            }
        });
        inputs.push(values.collect());
    }
    inputs
}

/// Whether `got` is within the bounds of `umac-expand-log-sin-cos` of `exact` (f64) at `x`: NaN
/// and infinities exactly; log within 1 ulp; sin and cos within 2^-23 for |x| ≤ 8192, 1e-6 to
/// 65536, (1/2 + 2^-10) ulp of `x` to 2^24 - 1, and 0 above.
fn float_math_close(x: f32, got: f32, exact: f64, log: bool) -> bool {
    let want = exact as f32;
    if !want.is_finite() {
        return got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan());
    }
    let ulp = |v: f32| f64::from(f32::from_bits(v.abs().to_bits() + 1) - v.abs());
    let error = (f64::from(got) - exact).abs();
    let a = x.abs();
    if log {
        (got.to_bits() as i64 - want.to_bits() as i64).abs() <= 1
    } else if a <= 8192.0 {
        error <= 2f64.powi(-23)
    } else if a <= 65536.0 {
        error <= 1e-6
    } else if a <= 16_777_215.0 {
        error <= (0.5 + 2f64.powi(-10)) * ulp(x)
    } else {
        got == 0.0
    }
}

/// Float LOG, SIN and COS on firmware (`umac-expand-log-sin-cos`: firmware imports no `logf`,
/// `sinf` or `cosf`, nothing but the memory functions and, without an FPU, libgcc's soft-float
/// helpers): the five cases of [`float_math_inputs`], every output within the pass's bounds of
/// the exact function (see [`float_math_close`]).
fn float_math(cpu: Cpu, platform: Platform) {
    let work = std::env::temp_dir().join(format!("umac-float-math-{}-{}", std::process::id(), cpu.name));
    let context = umac_driver::create_context(Default::default());
    let mut module = umac_dialects::source::parse_module(&context, "model.mlir", FLOAT_MATH.as_bytes()).unwrap();
    let firmware = umac_driver::firmware::compile(&context, &mut module, "main", cpu, &options("model", "", false))
        .unwrap_or_else(|e| panic!("float math for {}: {e}", cpu.name));
    let libm = ["logf", "sinf", "cosf", "expf", "log", "sin", "cos"];
    assert!(firmware.imports.iter().all(|i| !libm.contains(&i.as_str())), "{:?}", firmware.imports);
    assert_float_imports(&firmware, cpu);
    let inputs = float_math_inputs();
    let exact = |x: f32, row: usize| match row {
        0 => f64::from(x).ln(),
        1 => f64::from(x).sin(),
        _ => f64::from(x).cos(),
    };
    let bytes = |v: &[f32]| v.iter().flat_map(|f| f.to_le_bytes()).collect::<Vec<u8>>();
    let cases: Vec<Case> = inputs
        .iter()
        .map(|xs| {
            let expected: Vec<f32> = (0..3).flat_map(|row| xs.iter().map(move |&x| exact(x, row) as f32)).collect();
            Case { inputs: vec![bytes(xs)], expected: vec![bytes(&expected)] }
        })
        .collect();
    let main_c = include_str!("firmware_programs/float_outputs.c");
    let output = run_program_on(platform, &work, ("model", &cases), &firmware, main_c);
    let mut wrong = Vec::new();
    for (c, xs) in inputs.iter().enumerate() {
        let got = printed_floats(&output, c);
        assert_eq!(got.len(), 3 * xs.len());
        for (row, name) in ["log", "sin", "cos"].iter().enumerate() {
            for (i, &x) in xs.iter().enumerate() {
                let (got, exact) = (got[row * xs.len() + i], exact(x, row));
                if !float_math_close(x, got, exact, row == 0) {
                    wrong.push(format!("case {c}: {name}({x:e}) = {got:e}, exactly {exact:e}"));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "on {}:\n{}", cpu.name, wrong.join("\n"));
    let _ = std::fs::remove_dir_all(&work);
}

#[test]
fn float_math_cortex_m55() {
    float_math(CORTEX_M55, MPS3_AN547);
}

#[test]
fn float_math_cortex_m4() {
    float_math(CORTEX_M4, MPS2_AN386);
}

/// Without an FPU: the same arithmetic in libgcc's soft-float helpers.
#[test]
fn float_math_cortex_m0plus() {
    float_math(CORTEX_M0PLUS, CORTEX_M0PLUS_ON_AN385);
}

#[test]
fn float_math_rv32im() {
    float_math(RV32IM, RISCV_VIRT_RV32IM);
}

//! The accelerator API end to end on the host: with `vanilla` named, every MLPerf Tiny model's
//! convolutions run as calls of the vanilla C kernel (linked into both JITs), the rest on the
//! CPU path, and every output byte equals TFLite Micro's; on random inputs the partitioned and
//! the unpartitioned model agree byte for byte. (QEMU runs are in `firmware.rs`.)

use std::path::{Path, PathBuf};
use umac_backend::{TargetSet, parse_target_string, partition::Placement};
use umac_dialects::{ContextOptions, source::parse_module};
use umac_driver::create_context;
use umac_driver::host::{CompileOptions, ENGINES, Engine, HostProgram, compile};
use umac_runtime::{Tensor, read_npy, testdata};

fn models_dir() -> PathBuf {
    testdata::dir("models/mlperf-tiny")
}

/// Compiles `dir/model.mlir` for inputs like `example` and runs `inputs` through it.
fn run_model(dir: &Path, engine: Engine, targets: TargetSet, inputs: &[Tensor]) -> (Vec<Vec<u8>>, Vec<Placement>) {
    let path = dir.join("model.mlir");
    let bytes = std::fs::read(&path).unwrap();
    let context = create_context(ContextOptions { allow_unregistered_dialects: false, threading: true });
    let shown = path.display().to_string();
    let mut module = parse_module(&context, &shown, &bytes).unwrap();
    let options = CompileOptions { targets, ..Default::default() };
    let program: HostProgram = compile(&context, &mut module, "main", &inputs[..1], engine, options)
        .unwrap_or_else(|e| panic!("{} on {}: {e}", dir.display(), engine.name()));
    let outputs = inputs.iter().map(|i| program.run(std::slice::from_ref(i)).unwrap().remove(0).data).collect();
    (outputs, program.placements().to_vec())
}

fn vanilla() -> TargetSet {
    targets("vanilla")
}

fn targets(text: &str) -> TargetSet {
    umac_driver::register_targets();
    parse_target_string(text).unwrap()
}

fn bit_exact_with_vanilla(model: &str) {
    let models = models_dir();
    let dir = models.join(model);
    let inputs: Vec<Tensor> = (0..5).map(|i| read_npy(&dir.join(format!("ref/input_{i}.npy"))).unwrap()).collect();
    for engine in ENGINES {
        let (outputs, placements) = run_model(&dir, *engine, vanilla(), &inputs);
        for (i, output) in outputs.iter().enumerate() {
            let expected = read_npy(&dir.join(format!("ref/output_{i}.npy"))).unwrap();
            assert!(*output == expected.data, "{model} with vanilla on {}, input {i}", engine.name());
        }
        // Every convolution is vanilla's; every other op that is not part of a composite stays
        // on the CPU.
        let convs = placements.iter().filter(|p| p.op == "tosa.conv2d").count();
        assert!(convs > 0);
        for p in &placements {
            match p.op.as_str() {
                "tosa.conv2d" => assert_eq!(p.target, "vanilla", "{p:?}"),
                "tosa.rescale" | "tosa.clamp" | "tosa.add" => {}
                _ => assert_eq!(p.target, "cpu", "{p:?}"),
            }
            assert_eq!(p.function.is_some(), p.target == "vanilla", "{p:?}");
        }
    }
}

#[test]
fn kws_with_vanilla_is_bit_exact() {
    bit_exact_with_vanilla("kws");
}
#[test]
fn vww_with_vanilla_is_bit_exact() {
    bit_exact_with_vanilla("vww");
}
#[test]
fn ic_with_vanilla_is_bit_exact() {
    bit_exact_with_vanilla("ic");
}
#[test]
fn ad_with_vanilla_is_bit_exact() {
    bit_exact_with_vanilla("ad");
}

/// Random int8 tensors shaped like `like` (xorshift, fixed seed).
fn random_inputs(like: &Tensor, count: usize, mut seed: u64) -> Vec<Tensor> {
    (0..count)
        .map(|_| {
            let mut t = like.clone();
            for b in &mut t.data {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                *b = (seed >> 24) as u8;
            }
            t
        })
        .collect()
}

/// The vanilla kernel and umac's own lowering compute the same bytes, also on inputs the
/// references do not cover (saturation, extreme zero-point offsets).
#[test]
fn partitioned_and_unpartitioned_models_agree() {
    let models = models_dir();
    for (k, model) in ["kws", "vww", "ic", "ad"].iter().enumerate() {
        let dir = models.join(model);
        let like = read_npy(&dir.join("ref/input_0.npy")).unwrap();
        let inputs = random_inputs(&like, 3, 0x9E37_79B9_7F4A_7C15 ^ k as u64);
        let (plain, _) = run_model(&dir, Engine::Cranelift, TargetSet::default(), &inputs);
        let (partitioned, _) = run_model(&dir, Engine::Cranelift, vanilla(), &inputs);
        assert_eq!(plain, partitioned, "{model}");
    }
}

/// On the host, tynnp's composites become its primitive ops (`umac-primitives-tynnp`) and those
/// their TOSA reference (`umac-reference-tynnp`): every MLPerf Tiny model so partitioned equals
/// TFLite Micro on its five reference inputs and the unpartitioned model on random ones, byte
/// for byte, so what each primitive op says it computes is what the model computed.
#[test]
fn tynnp_primitive_ops_on_the_host_compute_the_model() {
    let models = models_dir();
    for (k, model) in ["kws", "vww", "ic", "ad"].iter().enumerate() {
        let dir = models.join(model);
        let mut inputs: Vec<Tensor> =
            (0..5).map(|i| read_npy(&dir.join(format!("ref/input_{i}.npy"))).unwrap()).collect();
        inputs.extend(random_inputs(&inputs[0], 2, 0x2545_F491_4F6C_DD1D ^ k as u64));
        let (outputs, placements) = run_model(&dir, Engine::Cranelift, targets("tynnp,host"), &inputs);
        for (i, output) in outputs.iter().take(5).enumerate() {
            let expected = read_npy(&dir.join(format!("ref/output_{i}.npy"))).unwrap();
            assert!(*output == expected.data, "{model} with tynnp's reference on the host, input {i}");
        }
        let (plain, _) = run_model(&dir, Engine::Cranelift, TargetSet::default(), &inputs[5..]);
        assert_eq!(plain, outputs[5..], "{model}: random inputs");
        assert!(placements.iter().any(|p| p.op == "tosa.conv2d" && p.target == "tynnp"), "{model}");
    }
}

/// `-dimension` reaches the patterns: KWS's first convolution (10x4 kernel) does not fit a 4x4
/// array, stays on the CPU with the failed predicate as the reason, and the model is still exact.
#[test]
fn attributes_change_the_placement() {
    let models = models_dir();
    let dir = models.join("kws");
    let inputs = vec![read_npy(&dir.join("ref/input_2.npy")).unwrap()];
    let targets = targets("vanilla -dimension=4");
    let (outputs, placements) = run_model(&dir, Engine::Llvm, targets, &inputs);
    assert_eq!(outputs[0], read_npy(&dir.join("ref/output_2.npy")).unwrap().data);
    let convs: Vec<&Placement> = placements.iter().filter(|p| p.op == "tosa.conv2d").collect();
    assert_eq!(convs[0].target, "cpu");
    assert_eq!(convs[0].reason.as_deref(), Some("vanilla.conv2d: the kernel fits the 4x4 array failed"));
    assert!(convs[0].location.ends_with("model.mlir:70:11"), "{}", convs[0].location);
    assert!(convs[1..].iter().all(|p| p.target == "vanilla" && p.reason.is_none()));
}

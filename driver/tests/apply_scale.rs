//! `umac-apply-scale-32` computes `tosa.apply_scale` (double rounding) exactly as its 64-bit
//! definition, `(v * m + 2^(s-1) ± 2^30) >> s`, evaluated here in 128-bit integers: on the edge
//! values of value and multiplier, on every exact tie (products at odd multiples of `2^(s-1)`)
//! and their neighbours, and on random operands; for shifts from 33 (its short form) and from 32
//! (its general form), and in its Helium form (`{helium}`: shifts from 33, multipliers other than
//! `i32::MIN`; `vqrdmulh` and `vrshl` once vectorized). The scalar forms run on both host engines;
//! the vector forms (through `umac-vectorize-elementwise-loops`) on the Cortex-M55 board under
//! QEMU.

mod support;

use support::{lcg, run_text};
use umac_backend::cpu::CORTEX_M55;
use umac_dialects::{ContextOptions, source::parse_module};
use umac_driver::{
    create_context,
    host::{ENGINES, compile},
};
use umac_lowering::pass_manager::build_pass_manager;
use umac_runtime::{DType, Tensor, firmware::MPS3_AN547};

/// A value, its multiplier and its shift.
type Operands = (i32, i32, u32);

/// The 64-bit definition (TOSA `apply_scale` with double rounding, truncated to 32 bits).
fn reference(v: i32, m: i32, s: u32) -> i32 {
    let mut round = 1i128 << (s - 1);
    if s > 31 {
        round += if v >= 0 { 1 << 30 } else { -(1 << 30) };
    }
    ((i128::from(v) * i128::from(m) + round) >> s) as i32
}

/// Operands `(v, m, s)` with shifts from `shifts`: edges, ties and their neighbours, random.
fn operands(shifts: &[u32], random: usize, seed: u64) -> Vec<Operands> {
    let values = [i32::MIN, i32::MIN + 1, -(1 << 30), -2, -1, 0, 1, 2, 1 << 30, i32::MAX - 1, i32::MAX];
    let multipliers = [i32::MIN, i32::MIN + 1, -1, 0, 1, 1 << 30, 1_518_500_250, i32::MAX];
    let mut all = Vec::new();
    for &s in shifts {
        for v in values {
            for m in multipliers {
                all.push((v, m, s));
            }
        }
        // v * m = ±(2j + 1) * 2^(s-1): exactly half-way between two results, and one either side.
        for k in 0..=30u32.min(s - 1) {
            let Some(scale) = 1i64.checked_shl(s - 1 - k).filter(|_| s - 1 - k <= 30) else { continue };
            for odd in [1i64, 3, 5, 7] {
                for sign in [1i64, -1] {
                    for delta in [-1i64, 0, 1] {
                        let v = sign * odd * scale + delta;
                        if let Ok(v) = i32::try_from(v) {
                            all.push((v, 1 << k, s));
                        }
                    }
                }
            }
        }
    }
    let r = lcg(seed, 4 * random);
    for i in 0..random {
        let full = |a: i64, b: i64| ((a << 16) ^ b) as i32;
        let v = if i % 2 == 0 { full(r[4 * i], r[4 * i + 1]) } else { (r[4 * i] % (1 << 24)) as i32 - (1 << 23) };
        // TFLite's multipliers are in [2^30, 2^31); any other is exact too.
        let m =
            if i % 3 == 0 { full(r[4 * i + 2], r[4 * i + 1]) } else { (1 << 30) + (r[4 * i + 2] % (1 << 30)) as i32 };
        all.push((v, m, shifts[r[4 * i + 3] as usize % shifts.len()]));
    }
    all
}

/// `out[i] = apply_scale(v[i], m[i], s[i])` with the multipliers and shifts as constants, the
/// values passed through a 1x1 sum pooling first: the rescale of a pooling, whose channel loops
/// are vectorized (what `umac-apply-scale-32{helium}` takes).
fn module(cases: &[Operands]) -> String {
    let list = |f: &dyn Fn(&Operands) -> String| cases.iter().map(f).collect::<Vec<_>>().join(", ");
    let n = cases.len();
    format!(
        "#id = affine_map<(d0) -> (d0)>
func.func @main(%v: tensor<{n}xi32>) -> tensor<{n}xi32> {{
  %zero = arith.constant 0 : i32
  %pixel = tensor.expand_shape %v [[0, 1, 2, 3]] output_shape [1, 1, 1, {n}] : tensor<{n}xi32> into tensor<1x1x1x{n}xi32>
  %window = tensor.empty() : tensor<1x1xi32>
  %sums = tensor.empty() : tensor<1x1x1x{n}xi32>
  %zeros = linalg.fill ins(%zero : i32) outs(%sums : tensor<1x1x1x{n}xi32>) -> tensor<1x1x1x{n}xi32>
  %pooled = linalg.pooling_nhwc_sum {{dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}}
      ins(%pixel, %window : tensor<1x1x1x{n}xi32>, tensor<1x1xi32>) outs(%zeros : tensor<1x1x1x{n}xi32>) -> tensor<1x1x1x{n}xi32>
  %values = tensor.collapse_shape %pooled [[0, 1, 2, 3]] : tensor<1x1x1x{n}xi32> into tensor<{n}xi32>
  %m = arith.constant dense<[{multipliers}]> : tensor<{n}xi32>
  %s = arith.constant dense<[{shifts}]> : tensor<{n}xi8>
  %e = tensor.empty() : tensor<{n}xi32>
  %r = linalg.generic {{indexing_maps = [#id, #id, #id, #id], iterator_types = [\"parallel\"]}}
      ins(%values, %m, %s : tensor<{n}xi32>, tensor<{n}xi32>, tensor<{n}xi8>) outs(%e : tensor<{n}xi32>) {{
  ^bb0(%x: i32, %mm: i32, %ss: i8, %o: i32):
    %y = tosa.apply_scale %x, %mm, %ss {{rounding_mode = DOUBLE_ROUND}} : (i32, i32, i8) -> i32
    linalg.yield %y : i32
  }} -> tensor<{n}xi32>
  return %r : tensor<{n}xi32>
}}",
        multipliers = list(&|c| c.1.to_string()),
        shifts = list(&|c| c.2.to_string()),
    )
}

fn tensor(values: impl Iterator<Item = i32>) -> Tensor {
    let data: Vec<u8> = values.flat_map(i32::to_le_bytes).collect();
    Tensor { dtype: DType::I32, shape: vec![data.len() / 4], data }
}

/// The batches: shifts from 33 (the short form) and with 32 (the general form).
fn batches(random: usize) -> Vec<(&'static str, Vec<Operands>)> {
    vec![
        ("shifts 33..62", operands(&[33, 34, 36, 39, 40, 47, 55, 62], random, 7)),
        ("shifts 32..62", operands(&[32, 33, 38, 62], random, 11)),
        (HELIUM_BATCH, helium_operands(random)),
    ]
}

/// The batch in the Helium form's range: shifts from 33, multipliers other than `i32::MIN` (an
/// odd count, so that a scalar loop follows the vector one).
const HELIUM_BATCH: &str = "shifts 33..62, multipliers but i32::MIN";

fn helium_operands(random: usize) -> Vec<Operands> {
    let mut cases: Vec<Operands> = operands(&[33, 34, 35, 40, 47, 55, 61, 62], random, 13)
        .into_iter()
        .filter(|&(_, m, _)| m != i32::MIN)
        .collect();
    if cases.len().is_multiple_of(2) {
        cases.pop();
    }
    cases
}

#[test]
fn scalar_form_equals_64_bit_definition() {
    for (what, cases) in batches(50_000) {
        let input = tensor(cases.iter().map(|c| c.0));
        let expected = tensor(cases.iter().map(|&(v, m, s)| reference(v, m, s)));
        let pass = if what == HELIUM_BATCH { "umac-apply-scale-32{helium=true}" } else { "umac-apply-scale-32" };
        for engine in ENGINES {
            let context = create_context(ContextOptions::default());
            let mut module = parse_module(&context, what, module(&cases).as_bytes()).unwrap();
            let manager =
                build_pass_manager(&context, &format!("builtin.module(func.func({pass}))"), "builtin.module").unwrap();
            manager.run(&mut module).unwrap();
            let text = module.as_operation().to_string();
            assert!(!text.contains("tosa.apply_scale"), "{what}: umac-apply-scale-32 left the rescale");
            assert_eq!(text.contains("umac.doubling_high"), what == HELIUM_BATCH, "{what}: the form taken");
            let program =
                compile(&context, &mut module, "main", std::slice::from_ref(&input), *engine, Default::default())
                    .unwrap_or_else(|e| panic!("{what} on {}: {e}", engine.name()));
            let out = program.run(std::slice::from_ref(&input)).unwrap();
            assert_eq!(out[0].data.len(), expected.data.len());
            for (i, (got, want)) in out[0].data.chunks(4).zip(expected.data.chunks(4)).enumerate() {
                assert_eq!(got, want, "{what} on {}: case {i} {:?}", engine.name(), cases[i]);
            }
        }
    }
}

#[test]
fn helium_form_equals_64_bit_definition() {
    let work = std::env::temp_dir().join(format!("umac-apply-scale-{}", std::process::id()));
    for (i, (what, cases)) in batches(3_000).into_iter().enumerate() {
        let input = tensor(cases.iter().map(|c| c.0));
        let expected = tensor(cases.iter().map(|&(v, m, s)| reference(v, m, s)));
        if what == HELIUM_BATCH {
            // The same lowering as the firmware's: the rescale is vqrdmulh and vrshl.
            let context = create_context(ContextOptions::default());
            let mut lowered = parse_module(&context, what, module(&cases).as_bytes()).unwrap();
            let pipeline =
                "builtin.module(umac-lower-to-firmware-llvm{index-bitwidth=32 vectors=true rescale-32=true})";
            build_pass_manager(&context, pipeline, "builtin.module").unwrap().run(&mut lowered).unwrap();
            let text = lowered.as_operation().to_string();
            for intrinsic in ["llvm.arm.mve.vqrdmulh.v4i32", "llvm.arm.mve.vshl.vector.v4i32.v4i32"] {
                assert!(text.contains(intrinsic), "{what}: no {intrinsic}");
            }
        }
        let dir = work.join(format!("batch{i}"));
        let outcome = run_text(&module(&cases), CORTEX_M55, MPS3_AN547, &dir, &input.data, &expected.data, what);
        assert_eq!(outcome.status, Some(0), "{what}: {}", outcome.output);
    }
    let _ = std::fs::remove_dir_all(&work);
}

//! Integer semantics at odd widths (i1, i3, i7, i33, i48) and the edge cases of division and
//! shifts, on both engines, against wrapping arithmetic computed here. The Cranelift engine keeps
//! such integers in wider registers, so this is where it could silently differ from MLIR.

use umac_dialects::{ContextOptions, source::parse_module};
use umac_driver::create_context;
use umac_driver::host::{ENGINES, compile};
use umac_runtime::{DType, Tensor};

/// `value` wrapped to `bits` and sign-extended (MLIR's signless integer read as signed).
fn wrap(value: i128, bits: u32) -> i64 {
    let m = value & ((1i128 << bits) - 1);
    (if m >= (1i128 << (bits - 1)) { m - (1i128 << bits) } else { m }) as i64
}

fn unsigned(value: i64, bits: u32) -> u128 {
    (value as i128 & ((1i128 << bits) - 1)) as u128
}

/// The reference semantics of one binary op; `None` where MLIR leaves the result undefined.
fn reference(op: &str, a: i64, b: i64, bits: u32) -> Option<i64> {
    let (ua, ub) = (unsigned(a, bits), unsigned(b, bits));
    let (sa, sb) = (i128::from(a), i128::from(b));
    let min = -(1i128 << (bits - 1));
    Some(match op {
        "addi" => wrap(sa + sb, bits),
        "subi" => wrap(sa - sb, bits),
        "muli" => wrap(sa * sb, bits),
        "andi" => wrap(sa & sb, bits),
        "ori" => wrap(sa | sb, bits),
        "xori" => wrap(sa ^ sb, bits),
        "maxsi" => a.max(b),
        "minsi" => a.min(b),
        "maxui" => wrap(ua.max(ub) as i128, bits),
        "minui" => wrap(ua.min(ub) as i128, bits),
        "divsi" | "remsi" | "ceildivsi" | "floordivsi" => {
            if sb == 0 || (sa == min && sb == -1) {
                return None;
            }
            let (q, r) = (sa / sb, sa % sb);
            wrap(
                match op {
                    "divsi" => q,
                    "remsi" => r,
                    "ceildivsi" => q + i128::from(r != 0 && (r < 0) == (sb < 0)),
                    _ => q - i128::from(r != 0 && (r < 0) != (sb < 0)),
                },
                bits,
            )
        }
        "divui" | "remui" | "ceildivui" => {
            if ub == 0 {
                return None;
            }
            wrap(
                match op {
                    "divui" => (ua / ub) as i128,
                    "remui" => (ua % ub) as i128,
                    _ => ua.div_ceil(ub) as i128,
                },
                bits,
            )
        }
        "shli" | "shrsi" | "shrui" => {
            if ub >= u128::from(bits) {
                return None;
            }
            match op {
                "shli" => wrap(sa << ub, bits),
                "shrsi" => wrap(sa >> ub, bits),
                _ => wrap((ua >> ub) as i128, bits),
            }
        }
        _ => unreachable!("{op}"),
    })
}

fn tensor_i64(values: &[i64]) -> Tensor {
    Tensor { dtype: DType::I64, shape: vec![values.len()], data: values.iter().flat_map(|v| v.to_le_bytes()).collect() }
}

#[test]
fn odd_width_integer_ops_match_mlir_semantics() {
    let ops = [
        "addi",
        "subi",
        "muli",
        "andi",
        "ori",
        "xori",
        "maxsi",
        "minsi",
        "maxui",
        "minui",
        "divsi",
        "remsi",
        "ceildivsi",
        "floordivsi",
        "divui",
        "remui",
        "ceildivui",
        "shli",
        "shrsi",
        "shrui",
    ];
    for bits in [1u32, 3, 7, 33, 48] {
        // Every pair of interesting values: extremes, ±1, 0, and a few in between.
        let max = (1i64 << (bits - 1)) - 1;
        let min = -max - 1;
        let mut values = vec![min, max, 0, -1, 1, 2, max / 3, min / 5 + 1];
        values.retain(|v| wrap(i128::from(*v), bits) == *v);
        values.sort();
        values.dedup();
        let pairs: Vec<(i64, i64)> = values.iter().flat_map(|&a| values.iter().map(move |&b| (a, b))).collect();
        let n = pairs.len();
        for op in ops {
            let kept: Vec<(i64, i64)> =
                pairs.iter().copied().filter(|&(a, b)| reference(op, a, b, bits).is_some()).collect();
            if kept.is_empty() {
                continue;
            }
            let k = kept.len();
            let source = format!(
                "#map = affine_map<(d0) -> (d0)>
func.func @main(%a: tensor<{k}xi64>, %b: tensor<{k}xi64>) -> tensor<{k}xi64> {{
  %init = tensor.empty() : tensor<{k}xi64>
  %r = linalg.generic {{indexing_maps = [#map, #map, #map], iterator_types = [\"parallel\"]}} ins(%a, %b : tensor<{k}xi64>, tensor<{k}xi64>) outs(%init : tensor<{k}xi64>) {{
  ^bb0(%x: i64, %y: i64, %o: i64):
    %xt = arith.trunci %x : i64 to i{bits}
    %yt = arith.trunci %y : i64 to i{bits}
    %z = arith.{op} %xt, %yt : i{bits}
    %e = arith.extsi %z : i{bits} to i64
    linalg.yield %e : i64
  }} -> tensor<{k}xi64>
  return %r : tensor<{k}xi64>
}}"
            );
            let a: Vec<i64> = kept.iter().map(|p| p.0).collect();
            let b: Vec<i64> = kept.iter().map(|p| p.1).collect();
            let expected: Vec<i64> = kept.iter().map(|&(x, y)| reference(op, x, y, bits).unwrap_or(0)).collect();
            for engine in ENGINES {
                let context = create_context(ContextOptions::default());
                let mut module = parse_module(&context, op, source.as_bytes()).unwrap();
                let inputs = [tensor_i64(&a), tensor_i64(&b)];
                let program = compile(&context, &mut module, "main", &inputs, *engine, Default::default())
                    .unwrap_or_else(|e| panic!("{op} i{bits} on {}: {e}", engine.name()));
                let out = program.run(&inputs).unwrap();
                assert_eq!(
                    out[0],
                    tensor_i64(&expected),
                    "arith.{op} on i{bits} ({n} pairs, {k} defined) with {}: a={a:?} b={b:?}",
                    engine.name()
                );
            }
        }
    }
}

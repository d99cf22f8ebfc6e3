//! Op tests where the official conformance set is thin (int16 TABLE, per-channel RESCALE on int16
//! and int32, shape operands, dynamic dimensions). Expectations come from a direct Rust transcription
//! of the TOSA specification's pseudo-code, not from either engine; every case runs on both.

mod support;

use support::lcg;
use umac_dialects::{ContextOptions, source::parse_module};
use umac_driver::create_context;
use umac_driver::host::{ENGINES, Engine, compile};
use umac_runtime::{DType, Tensor};

fn run(source: &str, inputs: &[Tensor], engine: Engine) -> Vec<Tensor> {
    let context = create_context(ContextOptions::default());
    let mut module = parse_module(&context, "test", source.as_bytes()).expect("parses");
    let program =
        compile(&context, &mut module, "main", inputs, engine, Default::default()).unwrap_or_else(|e| panic!("{e}"));
    program.run(inputs).unwrap()
}

fn tensor<T: Copy>(dtype: DType, shape: &[usize], values: &[T], bytes: impl Fn(T) -> Vec<u8>) -> Tensor {
    Tensor { dtype, shape: shape.to_vec(), data: values.iter().flat_map(|&v| bytes(v)).collect() }
}

fn i16s(shape: &[usize], v: &[i16]) -> Tensor {
    tensor(DType::I16, shape, v, |x| x.to_le_bytes().to_vec())
}

fn i32s(shape: &[usize], v: &[i32]) -> Tensor {
    tensor(DType::I32, shape, v, |x| x.to_le_bytes().to_vec())
}

fn i8s(shape: &[usize], v: &[i8]) -> Tensor {
    tensor(DType::I8, shape, v, |x| vec![x as u8])
}

fn dense<T: ToString>(values: &[T]) -> String {
    values.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
}

#[test]
fn table_int16_interpolates() {
    // The spec's 513-entry int16 table with linear interpolation between entries.
    let table: Vec<i16> = lcg(7, 513).iter().map(|v| (v % 65536 - 32768) as i16).collect();
    let mut inputs: Vec<i16> = vec![i16::MIN, -32641, -1, 0, 1, 127, 128, 32639, i16::MAX];
    inputs.extend(lcg(11, 55).iter().map(|v| (v % 65536 - 32768) as i16));
    let expected: Vec<i32> = inputs
        .iter()
        .map(|&v| {
            let v = i32::from(v) + 32768;
            let (index, fraction) = ((v >> 7) as usize, v & 0x7f);
            let (base, next) = (i32::from(table[index]), i32::from(table[index + 1]));
            (base << 7) + (next - base) * fraction
        })
        .collect();
    let n = inputs.len();
    let source = format!(
        "func.func @main(%x: tensor<{n}xi16>) -> tensor<{n}xi32> {{
  %t = \"tosa.const\"() <{{values = dense<[{}]> : tensor<513xi16>}}> : () -> tensor<513xi16>
  %y = tosa.table %x, %t : (tensor<{n}xi16>, tensor<513xi16>) -> tensor<{n}xi32>
  return %y : tensor<{n}xi32>
}}",
        dense(&table)
    );
    for engine in ENGINES {
        let out = run(&source, &[i16s(&[n], &inputs)], *engine);
        assert_eq!(out[0], i32s(&[n], &expected), "{}", engine.name());
    }
}

/// TOSA's apply_scale_32 and apply_scale_16.
fn apply_scale(value: i64, multiplier: i64, shift: i64, scale32: bool, double_round: bool) -> i64 {
    let mut round = 1i64 << (shift - 1);
    if scale32 && double_round && shift > 31 {
        round += if value >= 0 { 1 << 30 } else { -(1 << 30) };
    }
    (value * multiplier + round) >> shift
}

fn rescale_case(in_bits: u32, out_bits: u32, scale32: bool, rounding: &str, channels: usize) {
    let rows = 6;
    let n = rows * channels;
    let (in_ty, out_ty) = (format!("i{in_bits}"), format!("i{out_bits}"));
    let in_max = (1i64 << (in_bits - 1)) - 1;
    let input: Vec<i64> = lcg(u64::from(in_bits) * 31 + channels as u64, n)
        .iter()
        .enumerate()
        .map(|(i, v)| match i {
            0 => -in_max - 1,
            1 => in_max,
            _ => v % (2 * in_max + 2) - in_max - 1,
        })
        .collect();
    let mult_max = if scale32 { i64::from(i32::MAX) } else { i64::from(i16::MAX) };
    let multipliers: Vec<i64> =
        lcg(3 + channels as u64, channels).iter().map(|v| (v % mult_max).max(1 << 14)).collect();
    // Shifts large enough that the spec's input-range REQUIRE holds (|value| < 2^(shift-1)).
    let shifts: Vec<i64> = (0..channels as i64).map(|c| i64::from(in_bits) + 8 + (c % 6)).collect();
    // TOSA requires a zero input zero point for int16/int32 inputs.
    let (input_zp, output_zp) = (0, if out_bits == 8 { -3 } else { 0 });
    let out_min = -(1i64 << (out_bits - 1));
    let out_max = (1i64 << (out_bits - 1)) - 1;
    let expected: Vec<i64> = input
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            let c = i % channels;
            let scaled = apply_scale(v - input_zp, multipliers[c], shifts[c], scale32, rounding == "DOUBLE_ROUND");
            (scaled + output_zp).clamp(out_min, out_max)
        })
        .collect();
    let mult_ty = if scale32 { "i32" } else { "i16" };
    let source = format!(
        "func.func @main(%x: tensor<{rows}x{channels}x{in_ty}>) -> tensor<{rows}x{channels}x{out_ty}> {{
  %m = \"tosa.const\"() <{{values = dense<[{}]> : tensor<{channels}x{mult_ty}>}}> : () -> tensor<{channels}x{mult_ty}>
  %s = \"tosa.const\"() <{{values = dense<[{}]> : tensor<{channels}xi8>}}> : () -> tensor<{channels}xi8>
  %izp = \"tosa.const\"() <{{values = dense<{input_zp}> : tensor<1x{in_ty}>}}> : () -> tensor<1x{in_ty}>
  %ozp = \"tosa.const\"() <{{values = dense<{output_zp}> : tensor<1x{out_ty}>}}> : () -> tensor<1x{out_ty}>
  %y = tosa.rescale %x, %m, %s, %izp, %ozp {{input_unsigned = false, output_unsigned = false, per_channel = {}, rounding_mode = {rounding}, scale32 = {scale32}}} : (tensor<{rows}x{channels}x{in_ty}>, tensor<{channels}x{mult_ty}>, tensor<{channels}xi8>, tensor<1x{in_ty}>, tensor<1x{out_ty}>) -> tensor<{rows}x{channels}x{out_ty}>
  return %y : tensor<{rows}x{channels}x{out_ty}>
}}",
        dense(&multipliers),
        dense(&shifts),
        channels > 1
    );
    let as_tensor = |bits: u32, values: &[i64]| match bits {
        8 => i8s(&[rows, channels], &values.iter().map(|&v| v as i8).collect::<Vec<_>>()),
        16 => i16s(&[rows, channels], &values.iter().map(|&v| v as i16).collect::<Vec<_>>()),
        _ => i32s(&[rows, channels], &values.iter().map(|&v| v as i32).collect::<Vec<_>>()),
    };
    for engine in ENGINES {
        let out = run(&source, &[as_tensor(in_bits, &input)], *engine);
        assert_eq!(
            out[0],
            as_tensor(out_bits, &expected),
            "rescale i{in_bits}->i{out_bits} scale32={scale32} {rounding} channels={channels} on {}",
            engine.name()
        );
    }
}

#[test]
fn rescale_per_channel_int16_and_int32() {
    for (in_bits, out_bits) in [(16, 8), (16, 16), (32, 16), (32, 8), (16, 32), (32, 32)] {
        for scale32 in [true, false] {
            for rounding in ["SINGLE_ROUND", "DOUBLE_ROUND"] {
                if rounding == "DOUBLE_ROUND" && !scale32 {
                    continue; // the spec allows DOUBLE_ROUND only with scale32
                }
                rescale_case(in_bits, out_bits, scale32, rounding, 5);
                rescale_case(in_bits, out_bits, scale32, rounding, 1);
            }
        }
    }
}

#[test]
fn shape_operands_drive_reshape_slice_and_tile() {
    // reshape [2,3,4] -> [-1,4] (inferred 6), slice rows 1..4 and columns 1..3, tile x2 on rows.
    let values: Vec<i32> = (0..24).map(|v| v * 7 - 50).collect();
    let source = "func.func @main(%x: tensor<2x3x4xi32>) -> tensor<6x2xi32> {
  %s = tosa.const_shape {values = dense<[-1, 4]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %r = tosa.reshape %x, %s : (tensor<2x3x4xi32>, !tosa.shape<2>) -> tensor<6x4xi32>
  %start = tosa.const_shape {values = dense<[1, 1]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %size = tosa.const_shape {values = dense<[3, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %c = tosa.slice %r, %start, %size : (tensor<6x4xi32>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<3x2xi32>
  %m = tosa.const_shape {values = dense<[2, 1]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %t = tosa.tile %c, %m : (tensor<3x2xi32>, !tosa.shape<2>) -> tensor<6x2xi32>
  return %t : tensor<6x2xi32>
}";
    let mut expected = Vec::new();
    for _ in 0..2 {
        for row in 1..4 {
            for col in 1..3 {
                expected.push(values[row * 4 + col]);
            }
        }
    }
    for engine in ENGINES {
        let out = run(source, &[i32s(&[2, 3, 4], &values)], *engine);
        assert_eq!(out[0], i32s(&[6, 2], &expected), "{}", engine.name());
    }
}

#[test]
fn dynamic_dimensions_take_their_size_from_the_inputs() {
    // A dynamic batch and a dynamic reshape: add with broadcast, clamp, then flatten.
    let source = "func.func @main(%x: tensor<?x4xi8>, %y: tensor<1x4xi8>) -> tensor<?xi8> {
  %s = tosa.add %x, %y : (tensor<?x4xi8>, tensor<1x4xi8>) -> tensor<?x4xi8>
  %c = tosa.clamp %s {max_val = 50 : i8, min_val = -20 : i8} : (tensor<?x4xi8>) -> tensor<?x4xi8>
  %shape = tosa.const_shape {values = dense<[-1]> : tensor<1xindex>} : () -> !tosa.shape<1>
  %f = tosa.reshape %c, %shape : (tensor<?x4xi8>, !tosa.shape<1>) -> tensor<?xi8>
  return %f : tensor<?xi8>
}";
    let bias = [3i8, -4, 100, -100];
    for batch in [1usize, 3, 7] {
        let x: Vec<i8> = lcg(batch as u64, batch * 4).iter().map(|v| (v % 256 - 128) as i8).collect();
        let expected: Vec<i8> =
            x.iter().enumerate().map(|(i, &v)| v.wrapping_add(bias[i % 4]).clamp(-20, 50)).collect();
        for engine in ENGINES {
            let out = run(source, &[i8s(&[batch, 4], &x), i8s(&[1, 4], &bias)], *engine);
            assert_eq!(out[0], i8s(&[batch * 4], &expected), "batch {batch} on {}", engine.name());
        }
    }
}

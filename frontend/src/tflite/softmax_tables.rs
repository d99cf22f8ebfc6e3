//! Constants of the converter's quantized SOFTMAX legalization (TensorFlow's `convertSoftmaxOp` in
//! `legalize_common.cc`, tables from `legalize_utils.cc`), computed bit for bit as
//! `tosa-converter-for-tflite` writes them.
//!
//! The converter legalizes SOFTMAX only for `beta == 1.0`; umac takes any beta as TFLite Micro
//! does: the int8 exp tables are computed from `beta · s_in`, the int16 rescale of `x - max(x)`
//! is `s_in · beta / (10 / 65535)`. (The hashes below were checked against the converter at
//! beta 1; beta 0.5 against TFLite Micro in test/models/tflite-ops.)
//!
//! int8 input (`s_in`, `zp_in`), int8 output (`zp_out`):
//! - fixed: rescale i8->i32 multiplier 1073741824 shift 30 (scale 1.0; its input zero point is
//!   `zp_in`); rescale of x - max(x) to i16 multiplier 1073741824 shift 23 (scale 128.0, i.e.
//!   9.7 fixed point, so the table index is `diff + 256` with no interpolation); table shifts
//!   << 17, << 9, << 1 and >> 7 (rounded); >> 12 before the sum; clz - 1; Newton-Raphson
//!   constants 1515870810 (48/17 in Q2.29), -1010580540 (-32/17), 536870912 (1.0 in Q2.29),
//!   4, and mul shift 31 / 30; final shift `35 - clz`; output rescale multiplier 1073741824
//!   shift 30 (scale 1.0) to `zp_out`.
//! - from the input scale and beta: only the four exp tables, see [`int8_exp_tables`].
//!
//! int16 input (`s_in`, zp 0), int16 output (`s_out`, `zp_out`):
//! - fixed: rescale i16->i32 1073741824/30; the exp table ([`int16_exp_table`]) and the
//!   1/(1+x) table ([`int16_reciprocal_table`]); + 32767, >> 7, clz - 1, - 2^30, >> 14,
//!   - 32768, >> 7, 31 - clz.
//! - from the input scale: the DOUBLE_ROUND rescale of x - max(x) onto the exp table's input,
//!   see [`int16_diff_rescale`] (scale `s_in · beta / (10 / 65535)`).
//! - from the output scale: the final rescale, scale `(1 / s_out) / 32768` (1073741824/30 for
//!   the usual `s_out = 2^-15`), to `zp_out`.

use crate::tflite::fixed_point::{doubling_high_mul, exp_on_negative_values, quantize_multiplier};

/// The four 513-entry tables of the converter's int8 softmax (`getTosaConst32bitSoftmaxExpTable`),
/// in the order its `tosa.table` ops use them: bits 31..24, 23..16, 15..8 and 7..0 of the Q0.31
/// exp value (shifted by << 17, << 9, << 1 and >> 7 after the lookup). Each entry is a byte,
/// 0..=255.
///
/// Entry `i` is for the quantized difference `d = i - 256` from the row maximum (only `d <= 0`
/// is reached at run time, but all 513 entries are written as upstream does). It is TFLite's
/// int8 reference softmax exp step: `PreprocessSoftmaxScaling(beta, s_in, 5)` quantizes
/// `min(beta * s_in * 2^26, 2^31 - 1)` with `QuantizeMultiplier` into `(m, left_shift)`;
/// `diff_min = -floor(31 * 2^26 / 2^left_shift)` (`CalculateInputRadius(5, left_shift)`); for
/// `d >= diff_min` the value is gemmlowp's `exp_on_negative_values` (Q5.26 in, Q0.31 out) of
/// `SaturatingRoundingDoublingHighMul(d * 2^left_shift, m)` (wrapping like the C++), else 0.
///
/// `beta` and `input_scale` are the flatbuffer's f32 values; they are widened to f64 as the
/// converter's MLIR quantized type does. The converter only legalizes `beta == 1.0`.
/// `beta * input_scale` below 2^-27 (a negative left shift, which TFLite rejects) is outside
/// the algorithm's domain; the result is then unspecified.
pub fn int8_exp_tables(beta: f32, input_scale: f32) -> [Vec<i16>; 4] {
    const SCALED_DIFF_INTEGER_BITS: u32 = 5;
    let max_real_multiplier = (1i64 << 31) as f64 - 1.0;
    let real = (f64::from(beta) * f64::from(input_scale) * (1i64 << (31 - SCALED_DIFF_INTEGER_BITS)) as f64)
        .min(max_real_multiplier);
    let (multiplier, left_shift) = quantize_multiplier(real);
    let max_input_rescaled = ((1i64 << SCALED_DIFF_INTEGER_BITS) - 1) as f64
        * (1i64 << (31 - SCALED_DIFF_INTEGER_BITS)) as f64
        / 2f64.powi(left_shift);
    let diff_min = -(max_input_rescaled.floor() as i32);

    let mut tables: [Vec<i16>; 4] = Default::default();
    for d in -256i32..=256 {
        let exp = if d >= diff_min {
            let rescaled = doubling_high_mul(d.wrapping_mul(1i32.wrapping_shl(left_shift as u32)), multiplier);
            exp_on_negative_values(rescaled, 5)
        } else {
            0
        };
        for (byte, table) in tables.iter_mut().enumerate() {
            table.push(((exp >> (24 - 8 * byte)) & 0xff) as i16);
        }
    }
    tables
}

/// TFLite Micro's `LUTPopulateInt16<float>` (`gen_lut`): 512 samples of `f` over the int16 input
/// range `[s_in · (-32768 - zp_in), s_in · (32767 - zp_in)]` scaled by `65536 / (output range)`,
/// each biased by half the error of linear interpolation at the segment midpoint, plus the value
/// at the top end; all in f32 as TFLite Micro computes it (the converter's `<double>` tables
/// differ in a few entries, which made rare outputs one step off), saturated to i16.
fn lut_populate_int16(in_scale: f32, in_zp: i32, out_scale: f32, out_zp: i32, f: impl Fn(f32) -> f32) -> Vec<i16> {
    let input_min = in_scale * (-32768 - in_zp) as f32;
    let input_max = in_scale * (32767 - in_zp) as f32;
    let output_min = out_scale * (-32768 - out_zp) as f32;
    let output_max = out_scale * (32767 - out_zp) as f32;
    let step = (input_max - input_min) / 512.0;
    let half_step = step / 2.0;
    let inv = 65536.0 / (output_max - output_min);
    let saturate = |v: f32| v.clamp(-32768.0, 32767.0) as i16;
    let mut table: Vec<i16> = (0..512)
        .map(|i| {
            let val = f(input_min + i as f32 * step);
            let val_midpoint = f(input_min + i as f32 * step + half_step);
            let val_next = f(input_min + (i + 1) as f32 * step);
            let sample = (val * inv).round();
            let interpolated = ((val_next * inv + (val * inv).round()) / 2.0).round();
            let midpoint = (val_midpoint * inv).round();
            let bias = ((interpolated - midpoint) / 2.0).round();
            saturate(sample - bias)
        })
        .collect();
    table.push(saturate((f(input_max) * inv).round()));
    table
}

/// The int16 softmax exp table: `exp(x)` over x in [-10, 0] (input scale 10/65535, zero point
/// 32767) to Q0.15 (output scale 2/65535, zero point 0), as TFLite Micro's `SoftmaxPrepare`
/// populates it. Independent of the model.
pub fn int16_exp_table() -> Vec<i16> {
    lut_populate_int16(10.0 / 65535.0, 32767, 2.0 / 65535.0, 0, f32::exp)
}

/// The int16 softmax reciprocal table: `1 / (1 + x)` over x in [0, 1] (input scale 1/65535, zero
/// point -32768) to Q0.15 (output scale 2/65535, zero point 0), as TFLite Micro populates it.
pub fn int16_reciprocal_table() -> Vec<i16> {
    lut_populate_int16(1.0 / 65535.0, -32768, 2.0 / 65535.0, 0, |x| 1.0 / (1.0 + x))
}

/// Multiplier and shift of the int16 softmax's DOUBLE_ROUND, scale32 rescale of `x - max(x)`
/// onto the exp table's input grid: scale `s_in · beta / (10 / 65535)` (in f64 from the
/// flatbuffer's f32 values, as TFLite Micro's `SoftmaxPrepare` computes it), split as MLIR's
/// `computeMultiplierAndShiftTosaScale32` does ([`crate::tflite::quant::multiplier32`]).
pub fn int16_diff_rescale(input_scale: f32, beta: f32) -> (i32, i8) {
    crate::tflite::quant::multiplier32(f64::from(input_scale) * f64::from(beta) / (10.0 / 65535.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 64-bit FNV-1a over the values' little-endian bytes (as the converter's hex constants).
    fn fnv1a(values: &[i16]) -> u64 {
        values
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3))
    }

    // Expected values extracted from `tosa-converter-for-tflite --text` output (the `tosa.table`
    // constants in use order). Models: test/models/{mlperf-tiny/{kws,vww},kws-mean}/model.tflite
    // and copies of the kws model with only the softmax input scale patched (all beta 1.0).
    // (model, softmax input scale as f32 bits, FNV-1a of the four tables)
    const INT8_CASES: [(&str, u32, [u64; 4]); 14] = [
        (
            "kws (kws-mean identical)",
            0x3e142a46,
            [0x111e91d524e8cc8d, 0xbe5befd17c56556d, 0x4c5033d513a2de60, 0xa3a75b9300844d52],
        ),
        ("vww", 0x3c6fccc0, [0xe86bc4c69a382244, 0x14191fc450ba56f0, 0xfa4dd2b5d94b05fe, 0xcf240c6a7dfff53a]),
        ("kws @ 0.001", 0x3a83126f, [0xca993f1b55c23b90, 0x81713ea427a4d892, 0x425b01573e3f25c7, 0x8df5236cfbf768cf]),
        (
            "kws @ 0.00390625",
            0x3b800000,
            [0x01d987ca415ef943, 0xed93f26ae943fafc, 0x179a5edc835428cd, 0xb48dcdc2ee00be64],
        ),
        ("kws @ 0.01", 0x3c23d70a, [0xd9e59e1d1827b8c3, 0xe3977afe1b4e0332, 0xae837773f6ad034a, 0xc4c6b8c43be15aec]),
        ("kws @ 0.05", 0x3d4ccccd, [0xa12397ea4a2d4c02, 0x9092df30279428e9, 0x823462b6e7c5ee6c, 0xdead2d451eb6df6b]),
        ("kws @ 0.0769", 0x3d9d7dbf, [0xb22632d505315d8d, 0x1b5369f18a796986, 0x5096b1af17034916, 0xd47138e09bf46ef9]),
        ("kws @ 0.125", 0x3e000000, [0x617a3d94cdf48c2d, 0x2fe905af5ae4c8ad, 0x16db75abfbd989f4, 0xfa47f98be29258ae]),
        ("kws @ 0.2", 0x3e4ccccd, [0xcfe930d4a56f1e9d, 0x22a8d56e2f849d70, 0xb30f2f9888146287, 0x5a599e8ad9357a42]),
        ("kws @ 0.3", 0x3e99999a, [0xbf9acbd08234a9af, 0x159a205502498e60, 0x2385ae6db5b8c159, 0x3a12bdd7216cb24a]),
        ("kws @ 0.5", 0x3f000000, [0x7f1c38f8f6620c29, 0xfd1057df97972e29, 0xf7e5f92e62bf30e3, 0x5dfea915d56f76c9]),
        ("kws @ 1.0", 0x3f800000, [0xa5f610d6265b8ce8, 0xbe08150c53b08876, 0x80328f25edd59fb9, 0x857c63bf1bdd9cc7]),
        ("kws @ 2.5", 0x40200000, [0x81e44d5c440f0150, 0x92fc99d4a7b59c9c, 0xc3620aabb344c18d, 0xd16b82d3e267fdbb]),
        // beta * scale * 2^26 above 2^31 - 1: the multiplier saturates, left shift 31.
        ("kws @ 50.0", 0x42480000, [0x5833e31945191b6a, 0xdfd24bad6612afea, 0xdfd24bad6612afea, 0xdfd24bad6612afea]),
    ];

    #[test]
    fn int8_tables_match_the_converter() {
        for (model, scale, hashes) in INT8_CASES {
            let tables = int8_exp_tables(1.0, f32::from_bits(scale));
            for (byte, table) in tables.iter().enumerate() {
                assert_eq!(table.len(), 513);
                assert_eq!(fnv1a(table), hashes[byte], "{model}, table {byte}");
            }
        }
    }

    #[test]
    fn int8_table_values() {
        // (first 8, entries 250..257 = d -6..=0, last 8) per table, in use order.
        type Spots = [([i16; 8], [i16; 7], [i16; 8]); 4];
        let kws: Spots = [
            ([0; 8], [53, 62, 71, 82, 95, 110, 127], [46, 53, 62, 71, 82, 95, 110, 127]),
            ([0; 8], [185, 22, 193, 237, 214, 193, 255], [124, 185, 22, 193, 237, 214, 193, 255]),
            ([0; 8], [142, 196, 84, 36, 46, 196, 255], [202, 142, 196, 84, 36, 46, 196, 255]),
            ([0; 8], [49, 117, 75, 152, 223, 133, 255], [13, 49, 117, 75, 152, 223, 133, 255]),
        ];
        let vww: Spots = [
            ([3; 8], [117, 118, 120, 122, 124, 126, 127], [0; 8]),
            ([5, 16, 28, 39, 51, 63, 76, 88], [61, 247, 184, 128, 78, 35, 255], [0; 8]),
            ([11, 113, 1, 190, 167, 188, 0, 113], [34, 164, 173, 84, 179, 227, 255], [0; 8]),
            ([70, 12, 217, 80, 20, 203, 32, 190], [141, 229, 107, 181, 174, 155, 255], [0; 8]),
        ];
        for (scale, spots) in [(0.144_692_51_f32, kws), (0.014_636_219_f32, vww)] {
            let tables = int8_exp_tables(1.0, scale);
            for (table, (first, middle, last)) in tables.iter().zip(spots) {
                assert_eq!(table[..8], first);
                assert_eq!(table[250..257], middle);
                assert_eq!(table[505..], last);
            }
            // d = 0 is exp(0) = 0x7fffffff; d = -1 is exp(-scale) in Q0.31 (gemmlowp is good to ~1e-7).
            assert_eq!(tables.iter().map(|t| t[256]).collect::<Vec<_>>(), [127, 255, 255, 255]);
            let exp = tables.iter().fold(0i64, |acc, t| (acc << 8) | i64::from(t[255]));
            assert!((exp as f64 / 2f64.powi(31) - (-f64::from(scale)).exp()).abs() < 1e-6);
        }
        assert_eq!(0.144_692_51_f32.to_bits(), INT8_CASES[0].1);
        assert_eq!(0.014_636_219_f32.to_bits(), INT8_CASES[1].1);
    }

    #[test]
    fn int16_tables_are_tflite_micros() {
        // The converter's tables (test/models/ops-16x8/softmax.tflite, identical for every input
        // scale tried), computed in f64; TFLite Micro's are f32, which moves two entries of the
        // reciprocal table by one (the exp table is the same).
        let exp = int16_exp_table();
        assert_eq!(exp.len(), 513);
        assert_eq!(fnv1a(&exp), 0x9bfe1d2e58c8973c);
        assert_eq!(exp[..8], [2; 8]);
        assert_eq!(exp[254..259], [212, 217, 221, 225, 230]);
        assert_eq!(exp[505..], [28580, 29143, 29718, 30304, 30902, 31512, 32133, 32767]);

        let reciprocal = int16_reciprocal_table();
        assert_eq!(reciprocal.len(), 513);
        assert_eq!((reciprocal[160], reciprocal[294]), (24966, 20816));
        let mut converters = reciprocal.clone();
        (converters[160], converters[294]) = (24967, 20815);
        assert_eq!(fnv1a(&converters), 0x36a151aaadbcd5e2);
        assert_eq!(reciprocal[..8], [32767, 32704, 32640, 32578, 32514, 32451, 32388, 32326]);
        // 1 / 1.5 = 21845.33 / 32768.
        assert_eq!(reciprocal[254..259], [21902, 21874, 21845, 21817, 21788]);
        assert_eq!(reciprocal[505..], [16497, 16480, 16464, 16448, 16432, 16416, 16400, 16384]);
    }

    #[test]
    fn int16_rescale_matches_the_converter() {
        // (softmax input scale as f32 bits, multiplier, shift); the first is the model's own
        // (0.00011435786), the others are copies of it with the input scale patched.
        let cases = [
            (0x38efd368, 1609419179, 31),
            (0x38d1b717, 1407353373, 31),
            (0x3a83126f, 1759191844, 28),
            (0x3c23d70a, 1099494826, 24),
            (0x3f000000, 1717960704, 19),
            (0x358637bd, 1801412359, 38),
            (0x38000000, 1717960704, 33),
        ];
        for (scale, multiplier, shift) in cases {
            assert_eq!(
                int16_diff_rescale(f32::from_bits(scale), 1.0),
                (multiplier, shift),
                "{}",
                f32::from_bits(scale)
            );
        }
    }
}

//! Output pixels packed into the NU's columns: a layout rewrite of a convolution's constants at
//! compile time.
//!
//! A convolution with few output channels (at most half of `nu-cols`) leaves NU columns idle on
//! every pass: VWW's first layer (3 -> 8 channels, 3x3, stride 2) uses 8 of 16. Packing `P`
//! horizontally adjacent output pixels into one fills them. The job becomes a convolution over
//! the same input whose output pixels are groups of `P`:
//!
//! - stride `P·stride_x` along the row, and a window of `W = (P − 1)·stride_x + kw` columns
//!   holding every tap of the group;
//! - a filter `[P·oc][kh][W][ic]` whose output channel `q·oc + o` holds channel `o`'s taps at
//!   columns `q·stride_x + j` (pixel `q` of the group) and the filter zero point elsewhere, so
//!   those products are zero;
//! - the bias and the per-channel scales repeated `P` times.
//!
//! Its output `[oh][ow/P][P·oc]` is byte for byte `[oh][ow][oc]`, and its input is the same, so
//! tiles, gathers, copies, and what the kernels around read are unchanged. Every kernel row of a
//! group then takes `ceil(W·ic / nu-rows)` passes (folded) for `P` pixels instead of `P` passes,
//! and the output pass serves `P` pixels: VWW's first layer, 4 passes a pixel -> 2.
//!
//! A primitive `tynnp.conv2d` so packed carries `pixels = P` and the packed constants: it is the
//! job the NPU runs, its result the model's tensor.

use crate::kernel::jobs::{CONV, Job};
use umac_backend::Error;
use umac_tynnp_device::Params;

/// The attribute of a primitive `tynnp.conv2d` whose output pixels are packed: how many.
pub const PIXELS: &str = "pixels";

/// The target attribute switching packing off (the benchmark's baseline).
pub const PACK: &str = "pack-pixels";

/// The NU cycles of a convolution, as `isa.md` costs `nu.conv`, with its kernel columns folded
/// into its channels when that takes fewer passes (the jobs' setup aside).
fn nu_cycles([oh, ow, kh, kw, ic, oc]: [i64; 6], (nu_rows, nu_cols): (i64, i64)) -> i64 {
    let passes = |c: i64| (c + nu_rows - 1) / nu_rows;
    let row = (kw * passes(ic)).min(passes(kw * ic));
    oh * ow * (kh * row + 1) * ((oc + nu_cols - 1) / nu_cols)
}

/// How many output pixels to pack into a pass of the NU `params` describe: the most that fit
/// the columns and divide the output row, when that takes fewer NU cycles, keeps the int32
/// accumulation exact and leaves the packed constants at most a quarter of DM (the tiles keep
/// their room); 1 otherwise (also for any job but an undilated `nu.conv`).
pub fn pixels(job: &Job, params: &Params) -> Result<i64, Error> {
    if !std::ptr::eq(job.code, &CONV) {
        return Ok(1);
    }
    let nu = (i64::from(params.nu_rows), i64::from(params.nu_cols));
    let [oh, ow, kh, kw, ic, oc, sx, dx] =
        ["oh", "ow", "kh", "kw", "ic", "oc", "stride_x", "dilation_x"].map(|n| job.scalar(n).unwrap_or(0));
    if dx != 1 || oc < 1 || ow < 2 {
        return Ok(1);
    }
    let before = nu_cycles([oh, ow, kh, kw, ic, oc], nu);
    let mut p = (nu.1 / oc).min(ow);
    while p >= 2 {
        let window = (p - 1) * sx + kw;
        // The contract's bound on the products an output sums (section 5.2).
        let exact = kh * window * ic * 255 * 255 < 1 << 31;
        // The filter, the bias and per-channel scales (9 bytes a channel), each from 16 bytes.
        let constants = (p * oc * kh * window * ic + 15) / 16 * 16 + p * oc * 9 + 48;
        let room = constants <= i64::from(params.dm_bytes) / 4;
        if ow % p == 0 && exact && room && nu_cycles([oh, ow / p, kh, window, ic, p * oc], nu) < before {
            return Ok(p);
        }
        p -= 1;
    }
    Ok(1)
}

/// `job` with its output pixels packed as [`pixels`] chooses on the NU of `params` (when
/// `enabled`).
pub fn pack(mut job: Job, params: &Params, enabled: bool) -> Result<Job, Error> {
    let p = if enabled && job.pixels == 1 { pixels(&job, params)? } else { 1 };
    if p == 1 {
        return Ok(job);
    }
    job.pixels = p;
    let [kh, kw, ic, oc, ow, sx, filter_zp, flags] =
        ["kh", "kw", "ic", "oc", "ow", "stride_x", "filter_zp", "out_flags"].map(|n| job.scalar(n).unwrap_or(0));
    let window = (p - 1) * sx + kw;
    let filter = &job.constants[0];
    if filter.len() as i64 != oc * kh * kw * ic {
        return Err(Error::Invalid(format!("a filter of {} bytes for [{oc}, {kh}, {kw}, {ic}]", filter.len())));
    }
    // [P·oc][kh][W][ic], OHWI: pixel q's taps at columns q·stride_x + j.
    let mut packed = vec![filter_zp as i8 as u8; (p * oc * kh * window * ic) as usize];
    for (q, o, i, j) in positions(p, oc, kh, kw) {
        let from = ((o * kh + i) * kw + j) * ic;
        let to = ((((q * oc + o) * kh + i) * window) + q * sx + j) * ic;
        packed[to as usize..(to + ic) as usize].copy_from_slice(&filter[from as usize..(from + ic) as usize]);
    }
    let repeat = |bytes: &[u8]| bytes.repeat(p as usize);
    let mut constants = vec![packed, repeat(&job.constants[1])];
    // Per-channel scales follow their channels; one scale serves them all.
    let per_channel = flags & 1 != 0;
    constants.extend(job.constants[2..].iter().map(|c| if per_channel { repeat(c) } else { c.clone() }));
    job.constants = constants;
    for (name, value) in job.scalars.iter_mut() {
        *value = match *name {
            "oc" => p * oc,
            "kw" => window,
            "ow" => ow / p,
            "stride_x" => p * sx,
            _ => *value,
        };
    }
    Ok(job)
}

/// Every (pixel, output channel, kernel row, kernel column).
fn positions(p: i64, oc: i64, kh: i64, kw: i64) -> impl Iterator<Item = (i64, i64, i64, i64)> {
    (0..p).flat_map(move |q| (0..oc).flat_map(move |o| (0..kh).flat_map(move |i| (0..kw).map(move |j| (q, o, i, j)))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::jobs::bytes_of;

    /// The default NPU: 16x16, 256 KiB of DM.
    fn npu() -> Params {
        Params::default()
    }

    fn words(values: &[i64]) -> Vec<u8> {
        bytes_of(values, 4)
    }

    /// A `nu.conv` job of `[oh, ow, kh, kw, ic, oc, stride_x]`, its filter bytes numbered.
    fn conv([oh, ow, kh, kw, ic, oc, sx]: [i64; 7], per_channel: bool) -> Job {
        let scales = if per_channel { oc } else { 1 };
        let scalars = vec![
            ("ih", oh * 2),
            ("iw", ow * sx),
            ("ic", ic),
            ("input_zp", -128),
            ("oc", oc),
            ("kh", kh),
            ("kw", kw),
            ("filter_zp", 0),
            ("oh", oh),
            ("ow", ow),
            ("stride_y", 2),
            ("stride_x", sx),
            ("dilation_y", 1),
            ("dilation_x", 1),
            ("pad_top", 0),
            ("pad_left", 0),
            ("out_flags", i64::from(per_channel)),
        ];
        let filter: Vec<u8> = (0..oc * kh * kw * ic).map(|v| (v + 1) as u8).collect();
        let constants = vec![
            filter,
            words(&(0..oc).map(|o| 100 + o).collect::<Vec<_>>()),
            words(&(0..scales).map(|o| 1 << 30 | o).collect::<Vec<_>>()),
            (0..scales).map(|o| 30 + o as u8).collect(),
        ];
        Job { code: &CONV, operands: vec![], constants, scalars, bytes: vec![0, oh * ow * oc], pixels: 1 }
    }

    #[test]
    fn vww_first_layer_packs_two_pixels() {
        // 48x48 outputs of 8 channels, 3x3 over 3 channels, stride 2: folded, 4 passes a pixel
        // (3 kernel rows of 9 channels, the output pass); two pixels read 5 columns, 15 channels.
        let job = conv([48, 48, 3, 3, 3, 8, 2], true);
        assert_eq!(nu_cycles([48, 48, 3, 3, 3, 8], (16, 16)), 48 * 48 * 4);
        assert_eq!(pixels(&job, &npu()).unwrap(), 2);
        assert_eq!(nu_cycles([48, 24, 3, 5, 3, 16], (16, 16)), 48 * 24 * 4);
        let packed = pack(job, &npu(), true).unwrap();
        let value = |n: &str| packed.scalar(n).unwrap();
        assert_eq!(["oc", "kw", "ow", "stride_x", "ic", "iw"].map(value), [16, 5, 24, 4, 3, 96]);
        assert_eq!(packed.pixels, 2);
        let filter = &packed.constants[0];
        assert_eq!(filter.len(), 16 * 3 * 5 * 3);
        // Output channel 2, kernel row 1: pixel 0's taps in columns 0..3, zeros in 3..5.
        let row = |o: usize, i: usize| &filter[(o * 3 + i) * 15..(o * 3 + i + 1) * 15];
        let original = |o: u8, i: u8, j: u8, c: u8| ((o * 3 + i) * 3 + j) * 3 + c + 1;
        assert_eq!(
            row(2, 1),
            [
                original(2, 1, 0, 0),
                original(2, 1, 0, 1),
                original(2, 1, 0, 2),
                original(2, 1, 1, 0),
                original(2, 1, 1, 1),
                original(2, 1, 1, 2),
                original(2, 1, 2, 0),
                original(2, 1, 2, 1),
                original(2, 1, 2, 2),
                0,
                0,
                0,
                0,
                0,
                0
            ]
        );
        // Output channel 10 (pixel 1, channel 2): the same taps two columns on.
        assert_eq!(row(10, 1)[..6], [0; 6]);
        assert_eq!(row(10, 1)[6..], row(2, 1)[..9]);
        // Bias and per-channel scales repeated.
        assert_eq!(
            packed.constants[1],
            [words(&(100..108).collect::<Vec<_>>()), words(&(100..108).collect::<Vec<_>>())].concat()
        );
        assert_eq!(packed.constants[3], [30, 31, 32, 33, 34, 35, 36, 37, 30, 31, 32, 33, 34, 35, 36, 37]);
    }

    #[test]
    fn packing_fills_the_columns_and_divides_the_row() {
        // 4 channels: four pixels fill 16 columns (1x1, 12 of 16 rows).
        assert_eq!(pixels(&conv([8, 8, 1, 1, 3, 4, 1], false), &npu()).unwrap(), 4);
        // A row of 6: three pixels, not four.
        assert_eq!(pixels(&conv([8, 6, 1, 1, 3, 4, 1], false), &npu()).unwrap(), 3);
        // An odd row of 8-channel pixels: none.
        assert_eq!(pixels(&conv([8, 7, 3, 3, 3, 8, 2], false), &npu()).unwrap(), 1);
        // Half the columns or more used: none.
        assert_eq!(pixels(&conv([8, 8, 3, 3, 3, 9, 1], false), &npu()).unwrap(), 1);
        // 16 input channels a pixel fill the rows: two pixels take two passes, but share the
        // output pass (3 cycles for two pixels, not 4).
        assert_eq!(pixels(&conv([8, 8, 1, 1, 16, 8, 1], false), &npu()).unwrap(), 2);
        // Packed constants over a quarter of DM (here 1 KiB: a 16x16x1 filter of 8 channels
        // packs into 16 channels of 17 columns, 4,352 bytes): none.
        let small = Params { dm_bytes: 1024, ..npu() };
        assert_eq!(pixels(&conv([8, 8, 16, 16, 1, 8, 1], false), &small).unwrap(), 1);
        assert_eq!(pixels(&conv([8, 8, 16, 16, 1, 8, 1], false), &npu()).unwrap(), 2);
        // Dilated: none.
        let mut dilated = conv([8, 8, 3, 3, 3, 8, 1], false);
        dilated.scalars.iter_mut().filter(|(n, _)| *n == "dilation_x").for_each(|v| v.1 = 2);
        assert_eq!(pixels(&dilated, &npu()).unwrap(), 1);
        // A per-tensor scale stays one; switched off, nothing is packed, and it is decided.
        let packed = pack(conv([8, 8, 1, 1, 3, 4, 1], false), &npu(), true).unwrap();
        assert_eq!((packed.constants[2].len(), packed.constants[3].len()), (4, 1));
        let off = pack(conv([8, 8, 1, 1, 3, 4, 1], false), &npu(), false).unwrap();
        assert_eq!((off.pixels, off.scalar("oc").unwrap()), (1, 4));
    }
}

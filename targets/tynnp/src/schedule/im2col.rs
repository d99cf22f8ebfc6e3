//! A convolution's kernel rows and columns folded into its input channels (im2col), for the few
//! convolutions whose kernel rows would each take an NU pass of mostly empty array rows (KWS's
//! first layer: one input channel, a 10x4 kernel). The input is staged in DM once; each tile's
//! `[rows][ow][kh·kw·ic]` is gathered from there by the column fold's copies (`tiling::gather`),
//! once per kernel row over the tile's output rows whose kernel row reads inside the input, over
//! a fill with the input zero point; the job is a `1 x 1` convolution with `kh·kw·ic` input
//! channels, the filter's OHWI bytes as they are.

use crate::{
    kernel::code::{COL_DST, FOLD_PITCHES, IM2COL_PITCHES, KERNEL_ROW_FIELDS, TAP_FIELDS, kernel_row_name},
    schedule::tiling::{gather, lookup, refolded},
};
use umac_backend::Error;

/// A convolution folded so.
#[derive(Debug, PartialEq, Eq)]
pub struct Im2col {
    /// [`FOLD_PITCHES`], per copy [`TAP_FIELDS`], [`IM2COL_PITCHES`] but `dm_stage`, per copy its
    /// [`COL_DST`].
    pub arguments: Vec<(String, i64)>,
    /// The scalars of the `1 x 1` convolution it becomes.
    pub scalars: Vec<(&'static str, i64)>,
    /// The column fold's copies, and the kernel rows.
    pub taps: usize,
    pub rows: usize,
    /// The bytes of a gathered row (`ow·kh·kw·ic`) and of the staged input.
    pub row_bytes: i64,
    pub stage_bytes: i64,
    /// `ih`, `stride_y`, `dilation_y`, `pad_top`, an input row's bytes and a kernel row's in a
    /// gathered pixel.
    geometry: [i64; 6],
}

/// `values`' convolution folded into `1 x 1` when that is clearly faster on `nu_rows` x
/// `nu_cols` with `channels` DMA channels: its NU time (a pass a pixel per block of `nu_rows`
/// channels and of `nu_cols` outputs, and the output pass) beats by half the most of the new NU
/// time, the gather's lines and staging on the DMA (the copies split over `channels`, at most
/// two) and the control unit's descriptors (about four tiles' worth). (By a fifth would take it
/// for VWW's and IC's first layers, which it makes slower: 54,666 -> 57,756 and 69,059 ->
/// 70,384 cycles.)
pub fn im2col(
    values: &[(String, i64)],
    (nu_rows, nu_cols): (i64, i64),
    channels: i64,
) -> Result<Option<Im2col>, Error> {
    let get = |name: &str| lookup(values, name);
    let (ih, iw, ic, oc) = (get("ih")?, get("iw")?, get("ic")?, get("oc")?);
    let (kh, kw, oh, ow) = (get("kh")?, get("kw")?, get("oh")?, get("ow")?);
    let (sy, sx, dy, dx) = (get("stride_y")?, get("stride_x")?, get("dilation_y")?, get("dilation_x")?);
    let (pt, pl) = (get("pad_top")?, get("pad_left")?);
    if sy < 1 || sx < 1 || dy < 1 || dx < 1 {
        return Ok(None);
    }
    let Some(copies) = gather(iw, ic, ow, kw, (sx, dx, pl)) else { return Ok(None) };
    let passes = |c: i64| (c + nu_rows - 1) / nu_rows;
    let blocks = (oc + nu_cols - 1) / nu_cols;
    let k = kh * kw * ic;
    let before = (kh * kw * passes(ic)).min(kh * passes(kw * ic));
    let nu_before = oh * ow * (before + 1) * blocks;
    let nu_after = oh * ow * (passes(k) + 1) * blocks;
    let pixels: i64 = copies.iter().map(|c| c[2]).sum();
    let descriptors = 4 * kh * copies.len() as i64;
    let dma = (oh * kh * pixels + 5 * descriptors) / channels.clamp(1, 2) + ih * iw * ic / 16;
    let after = nu_after.max(dma).max(20 * descriptors);
    if kh == 1 || 2 * nu_before <= 3 * after {
        return Ok(None);
    }
    let row_bytes = ow * k;
    let mut arguments: Vec<(String, i64)> =
        FOLD_PITCHES.iter().map(|p| p.to_string()).zip([iw * ic, sx * ic, row_bytes, kw * ic]).collect();
    for (j, copy) in copies.iter().enumerate() {
        arguments.extend(TAP_FIELDS.iter().map(|f| format!("{f}_k{j}")).zip(*copy));
    }
    let stage_bytes = ih * iw * ic;
    arguments.extend(IM2COL_PITCHES[1..].iter().map(|p| p.to_string()).zip([stage_bytes, k, sy * iw * ic, row_bytes]));
    // A copy's taps go to the same place of a pixel's kernel row as in the column fold, pixels
    // `k` bytes apart instead of `kw·ic`.
    for (c, copy) in copies.iter().enumerate() {
        let (pixel, tap) = (copy[1] / (kw * ic), copy[1] % (kw * ic));
        arguments.push((format!("{COL_DST}_k{c}"), pixel * k + tap));
    }
    let scalars = vec![
        ("ih", oh),
        ("iw", ow),
        ("ic", k),
        ("kh", 1),
        ("kw", 1),
        ("stride_y", 1),
        ("stride_x", 1),
        ("dilation_y", 1),
        ("dilation_x", 1),
        ("pad_top", 0),
        ("pad_left", 0),
    ];
    let geometry = [ih, sy, dy, pt, iw * ic, kw * ic];
    Ok(Some(Im2col { arguments, scalars, taps: copies.len(), rows: kh as usize, row_bytes, stage_bytes, geometry }))
}

impl Im2col {
    /// `values` with the `1 x 1` convolution's scalars and the gather's arguments.
    pub fn apply(&self, values: &[(String, i64)]) -> Vec<(String, i64)> {
        refolded(values, &self.scalars, &self.arguments)
    }

    /// The arguments of each tile between `bounds` (output rows) and kernel row (see
    /// [`KERNEL_ROW_FIELDS`]); `None` when a kernel row of a tile reads padding only (its copies
    /// would copy nothing).
    pub fn row_arguments(&self, bounds: &[i64]) -> Option<Vec<(String, i64)>> {
        let [ih, sy, dy, pt, in_row, kernel_row] = self.geometry;
        let mut out = Vec::new();
        for (t, w) in bounds.windows(2).enumerate() {
            let (first, last) = (w[0], w[1]);
            for j in 0..self.rows as i64 {
                // The output rows y with 0 <= y·sy + j·dy − pt < ih.
                let low = first.max(-(-(pt - j * dy)).div_euclid(sy));
                let high = (last - 1).min((ih - 1 + pt - j * dy).div_euclid(sy));
                if high < low {
                    return None;
                }
                let values = [
                    (low * sy + j * dy - pt) * in_row,
                    (low - first) * self.row_bytes + j * kernel_row,
                    high - low + 1,
                ];
                out.extend(KERNEL_ROW_FIELDS.iter().zip(values).map(|(f, v)| (kernel_row_name(f, t, j as usize), v)));
            }
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(values: &[(&str, i64)]) -> Vec<(String, i64)> {
        values.iter().map(|(n, v)| (n.to_string(), *v)).collect()
    }

    /// KWS's first layer: 49x10x1 input, 64 10x4 filters, stride 2, pad top 4 and left 1 -> 25x5.
    fn kws() -> Vec<(String, i64)> {
        named(&[
            ("ih", 49),
            ("iw", 10),
            ("ic", 1),
            ("oc", 64),
            ("kh", 10),
            ("kw", 4),
            ("oh", 25),
            ("ow", 5),
            ("stride_y", 2),
            ("stride_x", 2),
            ("dilation_y", 1),
            ("dilation_x", 1),
            ("pad_top", 4),
            ("pad_left", 1),
        ])
    }

    #[test]
    fn kernel_rows_fold_when_they_waste_the_array() {
        // Folded by columns, ten passes a pixel of 4 channels; by rows too, three of 40: the NU
        // time drops from 25·5·11·4 to 25·5·4·4 cycles.
        let folded = im2col(&kws(), (16, 16), 2).unwrap().unwrap();
        assert_eq!((folded.taps, folded.rows, folded.row_bytes, folded.stage_bytes), (3, 10, 200, 490));
        // The column fold's copies (inner columns 1 to 3 with all four taps, columns 0 and 4 with
        // three) land in 40-byte pixels: at 40, at 1 (taps 1 to 3 of pixel 0), at 160.
        let col_dst: Vec<i64> =
            folded.arguments.iter().filter(|(n, _)| n.starts_with(COL_DST)).map(|(_, v)| *v).collect();
        assert_eq!(col_dst, [40, 1, 160]);
        // Tiles [0, 6) and [6, 25): kernel row 0 reads input row 2y − 4, inside from y = 2 (input
        // row 0); kernel row 9 reads 2y + 5, inside up to y = 21 (row 47).
        let rows = folded.row_arguments(&[0, 6, 25]).unwrap();
        let row = |t: usize, j: usize| -> Vec<i64> {
            KERNEL_ROW_FIELDS
                .iter()
                .map(|f| rows.iter().find(|(n, _)| *n == kernel_row_name(f, t, j)).unwrap().1)
                .collect()
        };
        assert_eq!(row(0, 0), [0, 2 * 200, 4]);
        assert_eq!(row(0, 9), [5 * 10, 9 * 4, 6]);
        assert_eq!(row(1, 0), [8 * 10, 0, 19]);
        assert_eq!(row(1, 9), [17 * 10, 9 * 4, 16]);
        // A tile of output row 0 alone: kernel row 0 reads padding only.
        assert_eq!(folded.row_arguments(&[0, 1, 25]), None);
        // One kernel row, or channels that fill the array: nothing to gain.
        let mut one_row = kws();
        one_row[4].1 = 1;
        assert_eq!(im2col(&one_row, (16, 16), 2).unwrap(), None);
        let mut wide = kws();
        wide[2].1 = 16;
        assert_eq!(im2col(&wide, (16, 16), 2).unwrap(), None);
    }
}

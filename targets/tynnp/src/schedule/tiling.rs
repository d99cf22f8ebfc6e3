//! How a job is split (targets/tynnp/docs/compiler.md): a convolution into tiles of output rows on the
//! NU (with its kernel columns folded into its input channels when that saves NU passes); a
//! depthwise convolution or pooling into tiles of output rows, an elementwise job into tiles of
//! whole vectors, each tile in bands over the vector units; the arguments each tile and band
//! takes, planned at compile time from the job's scalars and DM layout.

use crate::{
    kernel::code::{FOLD_PITCHES, Field, TAP_FIELDS, TILE_COPIES, band_name},
    kernel::jobs::{CHANNELS, ROWS},
};
use umac_backend::Error;

/// Where a tiled tensor's tiles are in DM: in two tile buffers (tile t in `buffers[t % 2]`), or,
/// for a tensor kept in DM between kernels and read or written there in place, at `kept` plus
/// the tile's offset in the tensor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Place {
    pub buffers: [i64; 2],
    pub kept: Option<i64>,
}

impl Place {
    /// Two tile buffers (the same one twice for a single buffer).
    pub fn buffers(buffers: [i64; 2]) -> Place {
        Place { buffers, kept: None }
    }

    /// The DM address of tile `t`, whose first byte is `offset` bytes into the tensor.
    pub fn tile(&self, t: usize, offset: i64) -> i64 {
        self.kept.map_or(self.buffers[t % 2], |at| at + offset)
    }
}

/// `count` elements in `tiles` tiles of whole vectors of `lanes` (the last may be shorter):
/// `(first, length)` each.
pub fn element_tiles(count: i64, tiles: i64, lanes: i64) -> Vec<(i64, i64)> {
    let vectors = (count + lanes - 1) / lanes;
    let per_tile = (vectors + tiles - 1) / tiles * lanes;
    (0..count).step_by(per_tile.max(1) as usize).map(|first| (first, per_tile.min(count - first))).collect()
}

/// The arguments of a tiled elementwise job: tile t's elements split into `units` bands of
/// whole vectors (band u's banded `fields` numbered `t · units + u`: its place in the tile of
/// each input (`inputs`, in the order of `fields`) and of the output (a tile buffer, or the
/// tile's elements in a tensor kept in DM), and its
/// elements), then each tile's copies (the same elements of every input in, of the output
/// out); an element takes `bytes.0` bytes in each input and `bytes.1` in the output.
pub fn element_tile_values(
    tiles: &[(i64, i64)],
    (units, lanes): (usize, i64),
    fields: &[Field],
    (inputs, outputs): (&[Place], Place),
    (in_bytes, out_bytes): (i64, i64),
) -> Vec<(String, i64)> {
    let mut out = Vec::new();
    for (t, &(start, length)) in tiles.iter().enumerate() {
        let (vectors, n) = ((length + lanes - 1) / lanes, units as i64);
        for u in 0..n {
            let first = (vectors * u / n * lanes).min(length);
            let last = (vectors * (u + 1) / n * lanes).min(length);
            let mut input = inputs.iter();
            for field in fields {
                let value = match field {
                    Field::Dm("output") => outputs.tile(t, start * out_bytes) + first * out_bytes,
                    Field::Dm(_) => input.next().map_or(0, |place| place.tile(t, start * in_bytes) + first * in_bytes),
                    _ => last - first,
                };
                out.push((band_name(field, t * units + u as usize), value));
            }
        }
    }
    for (t, &(first, length)) in tiles.iter().enumerate() {
        let copies = [first * in_bytes, length * in_bytes, first * out_bytes, length * out_bytes];
        out.extend(TILE_COPIES.iter().zip(copies).map(|(f, v)| (band_name(f, t), v)));
    }
    out
}

/// One tile of a tiled job: output rows `first..last`, read from `rows` input rows starting at
/// `start`, with `pad_top` rows of padding above them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tile {
    pub first: i64,
    pub last: i64,
    pub start: i64,
    pub rows: i64,
    pub pad_top: i64,
}

/// `count` tiles of a convolution's output rows, as even as can be in whole groups of `granule`
/// rows (the last tile takes the rows left over), each reading the input rows its window needs
/// (rows past the input are its bottom padding); `None` when a tile would read padding only.
/// Tiles split into bands over `granule` vector units so take `ceil(oh / granule)` band rows in
/// all, the fewest there can be.
pub fn row_tiles(values: &[(String, i64)], count: i64, granule: i64) -> Result<Option<Vec<Tile>>, Error> {
    let oh = lookup(values, "oh")?;
    let groups = (oh / granule.max(1)).max(1);
    let n = count.min(groups);
    let bounds: Vec<i64> = (0..=n).map(|k| if k == n { oh } else { granule.max(1) * (groups * k / n) }).collect();
    tiles_at(values, &bounds)
}

/// The tiles of a convolution's output rows between `bounds` (tile t: rows `bounds[t]` to
/// `bounds[t + 1]`), each reading the input rows its window needs (rows past the input are its
/// bottom padding); `None` when a tile would read padding only.
pub fn tiles_at(values: &[(String, i64)], bounds: &[i64]) -> Result<Option<Vec<Tile>>, Error> {
    let get = |name: &str| lookup(values, name);
    let (ih, stride, kh, pad) = (get("ih")?, get("stride_y")?, get("kh")?, get("pad_top")?);
    // Pooling has no dilation.
    let dilation = get("dilation_y").unwrap_or(1);
    let mut tiles = Vec::new();
    for w in bounds.windows(2) {
        let (first, last) = (w[0], w[1]);
        let top = first * stride - pad;
        let bottom = ((last - 1) * stride + (kh - 1) * dilation - pad).min(ih - 1);
        let start = top.max(0);
        if bottom < start {
            return Ok(None);
        }
        tiles.push(Tile { first, last, start, rows: bottom - start + 1, pad_top: (-top).max(0) });
    }
    Ok(Some(tiles))
}

/// The arguments of tiled job's tiles (its banded fields and [`TILE_COPIES`]), tile t where
/// `inputs` and `outputs` place it (its tile buffer, or its rows in a tensor kept in DM); an input
/// row is `src_row` bytes in DDR (and where kept) and `in_row` in its buffer (more when the
/// convolution is folded).
pub fn tile_values(
    tiles: &[Tile],
    (src_row, in_row): (i64, i64),
    out_row: i64,
    inputs: Place,
    outputs: Place,
) -> Vec<(String, i64)> {
    let mut out = Vec::new();
    for (t, tile) in tiles.iter().enumerate() {
        let rows = tile.last - tile.first;
        let values = [
            inputs.tile(t, tile.start * src_row),
            tile.rows,
            tile.pad_top,
            rows,
            outputs.tile(t, tile.first * out_row),
            tile.start * src_row,
            tile.rows * in_row,
            tile.first * out_row,
            rows * out_row,
        ];
        let fields = ROWS.iter().chain(&TILE_COPIES);
        out.extend(fields.zip(values).map(|(f, v)| (band_name(f, t), v)));
    }
    out
}

/// A convolution's kernel columns folded into its input channels (see
/// [`crate::kernel::code::JobCode::folded`]): the arguments of the gather and the descriptor's
/// scalars that change.
#[derive(Debug, PartialEq, Eq)]
pub struct Fold {
    /// [`FOLD_PITCHES`], then per tap [`TAP_FIELDS`].
    pub arguments: Vec<(String, i64)>,
    /// `iw`, `ic`, `kw`, `stride_x`, `dilation_x`, `pad_left` of the folded convolution.
    pub scalars: Vec<(&'static str, i64)>,
    pub taps: usize,
    /// The bytes of a row of the gathered input.
    pub row_bytes: i64,
}

impl Fold {
    /// The job's `values` with the folded convolution's scalars and the gather's arguments.
    pub fn apply(&self, values: &[(String, i64)]) -> Vec<(String, i64)> {
        refolded(values, &self.scalars, &self.arguments)
    }
}

/// A convolution's `values` with `scalars` in place of its own and `arguments` after them: the
/// convolution a fold turns it into.
pub fn refolded(values: &[(String, i64)], scalars: &[(&str, i64)], arguments: &[(String, i64)]) -> Vec<(String, i64)> {
    let mut folded = values.to_vec();
    for (name, value) in scalars {
        if let Some(v) = folded.iter_mut().find(|(n, _)| n == name) {
            v.1 = *value;
        }
    }
    folded.extend(arguments.iter().cloned());
    folded
}

/// Folds a convolution's `kw` kernel columns into its input channels when the NU then does
/// fewer passes (`ceil(kw·ic / nu-rows) < kw·ceil(ic / nu-rows)`), the cycles saved exceed the
/// lines the gathers copy (one per input row, output column and copy), and every tap reads at
/// least one input column. Each tile is gathered by copies of runs of output pixels ([`gather`]);
/// on `two` channels (`body::Gather` alternates them), the inner pixels' copy is split in two,
/// so that each channel copies half of the lines.
pub fn fold(values: &[(String, i64)], nu_rows: i64, nu_cols: i64, two: bool) -> Result<Option<Fold>, Error> {
    let get = |name: &str| lookup(values, name);
    let (ih, iw, ic, oc) = (get("ih")?, get("iw")?, get("ic")?, get("oc")?);
    let (kh, kw, oh, ow) = (get("kh")?, get("kw")?, get("oh")?, get("ow")?);
    let (stride, dilation, pad) = (get("stride_x")?, get("dilation_x")?, get("pad_left")?);
    let passes = |c: i64| (c + nu_rows - 1) / nu_rows;
    let saved = oh * ow * kh * (kw * passes(ic) - passes(kw * ic)) * ((oc + nu_cols - 1) / nu_cols);
    let Some(mut copies) = gather(iw, ic, ow, kw, (stride, dilation, pad)) else { return Ok(None) };
    let lines: i64 = ih * copies.iter().map(|c| c[2]).sum::<i64>();
    if kw == 1 || saved <= lines {
        return Ok(None);
    }
    if two {
        copies = halved(copies, stride * ic, kw * ic);
    }
    let row_bytes = ow * kw * ic;
    let mut arguments: Vec<(String, i64)> =
        FOLD_PITCHES.iter().map(|p| p.to_string()).zip([iw * ic, stride * ic, row_bytes, kw * ic]).collect();
    for (j, copy) in copies.iter().enumerate() {
        arguments.extend(TAP_FIELDS.iter().map(|f| format!("{f}_k{j}")).zip(*copy));
    }
    let scalars = vec![("iw", ow), ("ic", kw * ic), ("kw", 1), ("stride_x", 1), ("dilation_x", 1), ("pad_left", 0)];
    Ok(Some(Fold { arguments, scalars, taps: copies.len(), row_bytes }))
}

/// `copies` (of [`gather`]) with the first, the inner pixels', split into two of half its pixels
/// each (the second `source` and `buffer` bytes a pixel further on), when it has two or more.
fn halved(mut copies: Vec<[i64; 4]>, source: i64, buffer: i64) -> Vec<[i64; 4]> {
    let Some(&[src, dst, pixels, bytes]) = copies.first() else { return copies };
    if pixels >= 2 {
        let first = pixels / 2;
        copies[0] = [src, dst, first, bytes];
        copies.insert(1, [src + first * source, dst + first * buffer, pixels - first, bytes]);
    }
    copies
}

/// The copies gathering an input row of `iw` pixels of `ic` bytes into `ow` output pixels of
/// `kw` taps each, for a window (stride, dilation, left padding) along the row: each
/// `[source offset, buffer offset, pixels, bytes a pixel]`. Tap `j` of output pixel `x` reads
/// input column `x·stride + j·dilation − pad`. Undilated, a pixel's taps inside the row are
/// adjacent columns: the pixels whose taps all lie inside the row take one copy of `kw·ic` bytes
/// each, and each pixel at a border one copy of its taps inside the row; dilated, each tap takes
/// one copy over its pixels. `None` when a tap reads no input column.
pub fn gather(iw: i64, ic: i64, ow: i64, kw: i64, (stride, dilation, pad): (i64, i64, i64)) -> Option<Vec<[i64; 4]>> {
    // Per tap, the output pixels whose tap reads inside the row.
    let mut ranges = Vec::new();
    for j in 0..kw {
        let offset = j * dilation - pad;
        let first = ((-offset).max(0) + stride - 1) / stride;
        let last = ((iw - 1 - offset).div_euclid(stride)).min(ow - 1);
        if last < first {
            return None;
        }
        ranges.push((first, last));
    }
    let copy = |x: i64, j: i64, count: i64, taps: i64| {
        [(x * stride + j * dilation - pad) * ic, (x * kw + j) * ic, count, taps * ic]
    };
    // The pixels all of whose taps read inside the row.
    let (inner_first, inner_last) = (ranges.iter().map(|r| r.0).max()?, ranges.iter().map(|r| r.1).min()?);
    if dilation != 1 || inner_first > inner_last {
        return Some(ranges.iter().zip(0..).map(|(&(first, last), j)| copy(first, j, last - first + 1, 1)).collect());
    }
    let mut copies = vec![copy(inner_first, 0, inner_last - inner_first + 1, kw)];
    let (first, last) = (ranges.iter().map(|r| r.0).min()?, ranges.iter().map(|r| r.1).max()?);
    for x in (first..inner_first).chain(inner_last + 1..=last) {
        let inside: Vec<i64> = (0..kw).filter(|&j| ranges[j as usize].0 <= x && x <= ranges[j as usize].1).collect();
        if let (Some(&j), Some(&end)) = (inside.first(), inside.last()) {
            copies.push(copy(x, j, 1, end - j + 1));
        }
    }
    Some(copies)
}

/// How the tiles of a job on the vector units split into bands: `count` a tile, of its output
/// rows; for a pooling (`channels`: its channels and the units' lanes), a tile with fewer output
/// rows than bands is split into bands of whole vectors of its channels instead, each over all
/// its rows (its pixels `channels` bytes apart).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bands {
    pub count: usize,
    pub channels: Option<(i64, i64)>,
}

impl Bands {
    /// The most bands a plan of tiles with at least `fewest_rows` output rows each can have on
    /// `units` vector units (at least 1).
    pub fn most(units: i64, fewest_rows: i64, channels: Option<(i64, i64)>) -> usize {
        let vectors = channels.map_or(0, |(c, lanes)| (c + lanes - 1) / lanes.max(1));
        units.min(fewest_rows.max(vectors)).max(1) as usize
    }

    /// Band `u` of `n` of a tile's channels: its first channel and its channels, whole vectors
    /// each (the last band takes the rest).
    fn channels_of(c: i64, lanes: i64, u: i64, n: i64) -> (i64, i64) {
        let vectors = (c + lanes - 1) / lanes;
        let (first, last) = (lanes * (vectors * u / n), (lanes * (vectors * (u + 1) / n)).min(c));
        (first, last - first)
    }
}

/// The banded fields of a job on the vector units: [`ROWS`], and a pooling's band of channels.
pub fn unit_fields(bands: Bands) -> Vec<Field> {
    ROWS.iter().copied().chain(bands.channels.map(|_| Field::Scalar(CHANNELS))).collect()
}

/// The arguments of a tiled job on the vector units: tile t split into `bands.count` bands
/// (band u's banded fields numbered `t · units + u`: where its first input row is in the tile's
/// input (its buffer, or its rows in a tensor kept in DM: `inputs`), the rows from there to the
/// tile's end, its top padding, its output rows and where they go (`outputs` likewise), and a
/// pooling's channels), then each tile's copies. Bands of output rows, or of channels over a
/// tile with fewer output rows than bands ([`Bands`]).
pub fn unit_tile_values(
    tiles: &[Tile],
    bands: Bands,
    (stride, pad): (i64, i64),
    (in_row, out_row): (i64, i64),
    inputs: Place,
    outputs: Place,
) -> Vec<(String, i64)> {
    let mut out = Vec::new();
    let (units, fields) = (bands.count, unit_fields(bands));
    for (t, tile) in tiles.iter().enumerate() {
        let (rows, n) = (tile.last - tile.first, units as i64);
        let (input, output) = (inputs.tile(t, tile.start * in_row), outputs.tile(t, tile.first * out_row));
        let by_channels = bands.channels.filter(|_| rows < n);
        for u in 0..n {
            let (first, last, channel, channels) = match (by_channels, bands.channels) {
                (Some((c, lanes)), _) => {
                    let (channel, channels) = Bands::channels_of(c, lanes, u, n);
                    (tile.first, tile.last, channel, Some(channels))
                }
                (None, c) => (tile.first + rows * u / n, tile.first + rows * (u + 1) / n, 0, c.map(|c| c.0)),
            };
            let top = first * stride - pad;
            let start = top.max(tile.start);
            let band = [
                input + (start - tile.start) * in_row + channel,
                tile.start + tile.rows - start,
                (-top).max(0),
                last - first,
                output + (first - tile.first) * out_row + channel,
            ];
            let values = band.into_iter().chain(channels);
            out.extend(fields.iter().zip(values).map(|(f, v)| (band_name(f, t * units + u as usize), v)));
        }
    }
    for (t, tile) in tiles.iter().enumerate() {
        let rows = tile.last - tile.first;
        let copies = [tile.start * in_row, tile.rows * in_row, tile.first * out_row, rows * out_row];
        out.extend(TILE_COPIES.iter().zip(copies).map(|(f, v)| (band_name(f, t), v)));
    }
    out
}

pub(crate) fn lookup(values: &[(String, i64)], name: &str) -> Result<i64, Error> {
    values
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| *v)
        .ok_or_else(|| Error::Invalid(format!("no value for {name}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::jobs::{ELEMENTS, LOOKUPS};

    fn named(values: &[(&str, i64)]) -> Vec<(String, i64)> {
        values.iter().map(|(n, v)| (n.to_string(), *v)).collect()
    }

    fn by_band(bands: &[(String, i64)], fields: usize) -> Vec<Vec<i64>> {
        bands.chunks(fields).map(|band| band.iter().map(|(_, v)| *v).collect()).collect()
    }

    fn rows(count: usize) -> Bands {
        Bands { count, channels: None }
    }

    #[test]
    fn a_pooling_tile_with_fewer_rows_than_bands_is_banded_by_channels() {
        // A 1x1 window over 3-pixel rows of 40 channels (16 lanes: 3 vectors), 4 units: at most
        // 3 bands, even for a tile of one row.
        assert_eq!(Bands::most(4, 1, Some((40, 16))), 3);
        assert_eq!(Bands::most(4, 1, None), 1);
        assert_eq!(Bands::most(4, 5, Some((8, 16))), 4);
        let bands = Bands { count: 3, channels: Some((40, 16)) };
        let t = |first, last, start, rows| Tile { first, last, start, rows, pad_top: 0 };
        // Tile 0 (row [0,1)) by channels: 16, 16 and 8, each over the whole tile, its pixels
        // 40 bytes apart. Tile 1 (rows [1,4)) by rows, each band all 40 channels.
        let tiles = [t(0, 1, 0, 1), t(1, 4, 1, 3)];
        let args = unit_tile_values(
            &tiles,
            bands,
            (1, 0),
            (120, 120),
            Place::buffers([1000, 2000]),
            Place::buffers([3000, 4000]),
        );
        assert_eq!(args[5].0, "channels_b0");
        assert_eq!(
            by_band(&args[..36], 6),
            [
                vec![1000, 1, 0, 1, 3000, 16],
                vec![1016, 1, 0, 1, 3016, 16],
                vec![1032, 1, 0, 1, 3032, 8],
                vec![2000, 3, 0, 1, 4000, 40],
                vec![2120, 2, 0, 1, 4120, 40],
                vec![2240, 1, 0, 1, 4240, 40],
            ]
        );
        assert_eq!(by_band(&args[36..], 4), [vec![0, 120, 0, 120], vec![120, 360, 120, 360]]);
    }

    #[test]
    fn tiles_on_the_vector_units_split_into_bands() {
        // 3x3 stride 2, pad 1 over 9 rows of 10 bytes -> 5 output rows of 4 bytes in two tiles,
        // [0,2) from input rows 0..2 and [2,5) from rows 3..8, two bands each.
        let t = |first, last, start, rows, pad_top| Tile { first, last, start, rows, pad_top };
        let tiles = [t(0, 2, 0, 3, 1), t(2, 5, 3, 6, 0)];
        let args = unit_tile_values(
            &tiles,
            rows(2),
            (2, 1),
            (10, 4),
            Place::buffers([1000, 2000]),
            Place::buffers([3000, 4000]),
        );
        assert_eq!(args[0].0, "dm_input_b0");
        assert_eq!(args[5].0, "dm_input_b1");
        assert_eq!(args[20].0, "in_offset_b0");
        // Tile 0: band [0,1) from buffer row 0 under 1 padding row, 3 rows to the buffer's end;
        // band [1,2) from input row 1 (buffer row 1). Tile 1 (buffer 1): band [2,3) from input
        // row 3 (buffer row 0), band [3,5) from row 5 (buffer row 2), 4 rows to its end.
        assert_eq!(
            by_band(&args[..20], 5),
            [
                vec![1000, 3, 1, 1, 3000],
                vec![1010, 2, 0, 1, 3004],
                vec![2000, 6, 0, 1, 4000],
                vec![2020, 4, 0, 2, 4004],
            ]
        );
        // The tiles' copies: input offset and bytes, output offset and bytes.
        assert_eq!(by_band(&args[20..], 4), [vec![0, 30, 0, 8], vec![30, 60, 8, 12]]);
        // Read and written in place (the input kept at 5000, the output at 9000): band u reads
        // from its first input row's place in the tensor and writes its first output row's.
        let kept = |at| Place { buffers: [0, 0], kept: Some(at) };
        let args = unit_tile_values(&tiles, rows(2), (2, 1), (10, 4), kept(5000), kept(9000));
        let first_and_last = |band: &[i64]| (band[0], band[4]);
        let bands: Vec<(i64, i64)> = by_band(&args[..20], 5).iter().map(|b| first_and_last(b)).collect();
        assert_eq!(bands, [(5000, 9000), (5010, 9004), (5030, 9008), (5050, 9012)]);
    }

    #[test]
    fn row_tiles_read_the_rows_their_windows_need() {
        // 3x3 stride 2, pad 1 over 9 rows -> 5 output rows in 4 tiles: [0,1) [1,2) [2,3) [3,5).
        let values = named(&[("ih", 9), ("oh", 5), ("stride_y", 2), ("dilation_y", 1), ("kh", 3), ("pad_top", 1)]);
        let tiles = row_tiles(&values, 4, 1).unwrap().unwrap();
        let t = |first, last, start, rows, pad_top| Tile { first, last, start, rows, pad_top };
        assert_eq!(tiles, [t(0, 1, 0, 2, 1), t(1, 2, 1, 3, 0), t(2, 3, 3, 3, 0), t(3, 5, 5, 4, 0)]);
        // Tile t in buffers t % 2; 10-byte input rows, 4-byte output rows.
        let args = tile_values(&tiles[..2], (10, 10), 4, Place::buffers([100, 200]), Place::buffers([300, 400]));
        let names: Vec<&str> = args.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names[..9],
            [
                "dm_input_b0",
                "ih_b0",
                "pad_top_b0",
                "oh_b0",
                "dm_output_b0",
                "in_offset_b0",
                "in_bytes_b0",
                "out_offset_b0",
                "out_bytes_b0"
            ]
        );
        assert_eq!(by_band(&args, 9), [vec![100, 2, 1, 1, 300, 0, 20, 0, 4], vec![200, 3, 0, 1, 400, 10, 30, 4, 4]]);
        // A 1x1 kernel with a padding row above 2 input rows: the first of 4 tiles would read
        // padding only; one tile reads both rows.
        let values = named(&[("ih", 2), ("oh", 4), ("stride_y", 1), ("dilation_y", 1), ("kh", 1), ("pad_top", 1)]);
        assert_eq!(row_tiles(&values, 4, 1).unwrap(), None);
        assert_eq!(row_tiles(&values, 1, 1).unwrap().unwrap(), [t(0, 4, 0, 2, 1)]);
        // KWS's depthwise convolutions: 25 output rows (3x3, stride 1, pad 1) in 4 tiles over 4
        // vector units: whole groups of 4 rows, the last tile the 9 left over ([0,4) [4,12)
        // [12,16) [16,25)): 1 + 2 + 1 + 3 = 7 band rows, where 6 + 6 + 6 + 7 rows take 8.
        let values = named(&[("ih", 25), ("oh", 25), ("stride_y", 1), ("dilation_y", 1), ("kh", 3), ("pad_top", 1)]);
        let tiles = row_tiles(&values, 4, 4).unwrap().unwrap();
        assert_eq!(tiles, [t(0, 4, 0, 5, 1), t(4, 12, 3, 10, 0), t(12, 16, 11, 6, 0), t(16, 25, 15, 10, 0)]);
        // Fewer rows than units: one tile.
        let values = named(&[("ih", 3), ("oh", 3), ("stride_y", 1), ("dilation_y", 1), ("kh", 1), ("pad_top", 0)]);
        assert_eq!(row_tiles(&values, 4, 4).unwrap().unwrap(), [t(0, 3, 0, 3, 0)]);
    }

    #[test]
    fn few_input_channels_fold_the_kernel_columns() {
        // KWS's first layer: 49x10x1 input, 64 10x4 filters, stride 2 across, pad left 1 -> 25x5.
        let kws = |ic: i64, kw: i64| {
            named(&[
                ("ih", 49),
                ("iw", 10),
                ("ic", ic),
                ("oc", 64),
                ("kh", 10),
                ("kw", kw),
                ("oh", 25),
                ("ow", 5),
                ("stride_x", 2),
                ("dilation_x", 1),
                ("pad_left", 1),
            ])
        };
        let fold = super::fold(&kws(1, 4), 16, 16, false).unwrap().unwrap();
        // Tap j of output column x reads input column 2x + j - 1: output columns 1 to 3 read
        // all four taps inside the row (columns 1 to 8), one copy of 4 bytes each from column 1
        // to buffer byte 4; column 0 its taps 1 to 3 (columns 0 to 2, to buffer byte 1), column
        // 4 its taps 0 to 2 (columns 7 to 9, to byte 16), 3 bytes each.
        let copies: Vec<i64> = fold.arguments[4..].iter().map(|(_, v)| *v).collect();
        assert_eq!(copies, [1, 4, 3, 4, 0, 1, 1, 3, 7, 16, 1, 3]);
        assert_eq!(fold.arguments[4].0, "tap_src_k0");
        // On two channels the inner columns' copy splits: column 1 from input column 1 to byte 4,
        // columns 2 and 3 from input column 3 (two a pixel further) to byte 8.
        let two = super::fold(&kws(1, 4), 16, 16, true).unwrap().unwrap();
        let copies: Vec<i64> = two.arguments[4..].iter().map(|(_, v)| *v).collect();
        assert_eq!(copies, [1, 4, 1, 4, 3, 8, 2, 4, 0, 1, 1, 3, 7, 16, 1, 3]);
        assert_eq!(two.taps, 4);
        // Pitches: an input row 10 bytes, two bytes between the columns of adjacent output
        // pixels, 5 x 4 bytes a gathered row, four taps a pixel.
        let pitches: Vec<i64> = fold.arguments[..4].iter().map(|(_, v)| *v).collect();
        assert_eq!(pitches, [10, 2, 20, 4]);
        assert_eq!(
            fold.scalars,
            [("iw", 5), ("ic", 4), ("kw", 1), ("stride_x", 1), ("dilation_x", 1), ("pad_left", 0)]
        );
        assert_eq!((fold.taps, fold.row_bytes), (3, 20));
        // Dilated taps are not adjacent: one copy per tap over its pixels (dilation 2, pad 3:
        // tap j reads 2x + 2j - 3; tap 0 from pixel 2 (columns 1, 3, 5), tap 2 all five pixels, tap 3 up to pixel 3).
        let dilated = gather(10, 1, 5, 4, (2, 2, 3)).unwrap();
        assert_eq!(dilated, [[1, 8, 3, 1], [1, 5, 4, 1], [1, 2, 5, 1], [3, 3, 4, 1]]);
        // 16 channels fill the array's rows already; one column has nothing to fold.
        assert_eq!(fold_of(&kws(16, 4)), None);
        assert_eq!(fold_of(&kws(1, 1)), None);
    }

    fn fold_of(values: &[(String, i64)]) -> Option<Fold> {
        fold(values, 16, 16, false).unwrap()
    }

    #[test]
    fn element_tiles_and_bands_are_whole_vectors() {
        // 130 elements, vectors of 16, two tiles: 9 vectors, 5 and 4 of them.
        assert_eq!(element_tiles(130, 2, 16), [(0, 80), (80, 50)]);
        // 40 elements in one tile, three bands on three units: 16, 16, 8.
        let tiles = element_tiles(40, 1, 16);
        assert_eq!(tiles, [(0, 40)]);
        let args = element_tile_values(
            &tiles,
            (3, 16),
            &ELEMENTS,
            (&[Place::buffers([0, 0]), Place::buffers([100, 0])], Place::buffers([200, 0])),
            (1, 1),
        );
        assert_eq!(args[4].0, "dm_x_b1");
        assert_eq!(by_band(&args[..12], 4), [vec![0, 100, 200, 16], vec![16, 116, 216, 16], vec![32, 132, 232, 8]]);
        // The tile's copies: elements 0..40 of x and y in, of the output out.
        assert_eq!(by_band(&args[12..], 4), [vec![0, 40, 0, 40]]);
        // Tile 1 in the second buffers.
        let tiles = element_tiles(130, 2, 16);
        let args = element_tile_values(
            &tiles,
            (2, 16),
            &ELEMENTS,
            (&[Place::buffers([0, 1000]), Place::buffers([500, 1500])], Place::buffers([700, 1700])),
            (1, 1),
        );
        assert_eq!(by_band(&args[8..16], 4), [vec![1000, 1500, 1700, 32], vec![1032, 1532, 1732, 18]]);
        // An int16 lookup (2 bytes in, 4 out): 40 elements (3 vectors), two bands of 16 and 24
        // elements, from input bytes 0 and 32 to output bytes 0 and 64; the copies 80 bytes in,
        // 160 out.
        let args = element_tile_values(
            &element_tiles(40, 1, 16),
            (2, 16),
            &LOOKUPS,
            (&[Place::buffers([100, 100])], Place::buffers([300, 300])),
            (2, 4),
        );
        assert_eq!(by_band(&args[..6], 3), [vec![100, 300, 16], vec![132, 364, 24]]);
        assert_eq!(by_band(&args[6..], 4), [vec![0, 80, 0, 160]]);
    }
}

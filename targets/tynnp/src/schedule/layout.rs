//! Where a job's regions go in DM: tiles of output rows (or of whole vectors) double-buffered,
//! as few as fit the room the kernels around it leave; the capacity error when none do.

use crate::{
    kernel::{code::JobCode, jobs},
    schedule::Schedule,
    schedule::tiling::{self, Bands, Place},
};
use umac_backend::Error;
use umac_tynnp_device::{Params, params::DM_BASE};

/// What a job's regions may take: `budget` bytes of DM (what the kernels around it leave), its
/// tiles double-buffered or not; `preloaded`: its constant record is in DM already (copied by
/// the kernel before), so its constants take no room of their own.
pub struct Room<'p> {
    pub params: &'p Params,
    pub double: bool,
    pub budget: i64,
    pub preloaded: bool,
    /// Its tiled inputs (the input, or `x` and `y`) read in place where the kernel before kept
    /// them, and its output written in place for the next kernel: no tile buffers of their own.
    pub reads_kept: [bool; 2],
    pub writes_kept: bool,
    /// Bytes it stages its whole input in (an im2col convolution), else 0.
    pub stage: i64,
    /// It runs at once with the kernel before or after (`resident.rs`): in tiles to pipeline
    /// with theirs even when it copies nothing in or out.
    pub overlap: bool,
}

impl Room<'_> {
    /// The tiled inputs that take tile buffers.
    fn buffered(&self, job: &jobs::Job) -> Vec<&'static str> {
        job.code.tile_inputs().into_iter().zip(self.reads_kept).filter(|(_, kept)| !kept).map(|(n, _)| n).collect()
    }

    /// Whether nothing is copied in or out: every tiled tensor is read or written in place.
    fn in_place(&self, job: &jobs::Job) -> bool {
        self.writes_kept && self.buffered(job).is_empty()
    }

    /// The job's regions besides its tile buffers that take room: its staged input, its
    /// constants (none when preloaded).
    fn constants(&self, job: &jobs::Job) -> Vec<(String, i64)> {
        let stage = (self.stage > 0).then(|| ("stage".to_string(), self.stage));
        stage.into_iter().chain(job.constant_regions().filter(|_| !self.preloaded)).collect()
    }
}

/// DM offsets for `regions` (name, bytes) in order, each from a 16-byte boundary: name, offset
/// and bytes each; `Err` with the bytes they need when they do not fit the room's budget.
fn place(regions: &[(String, i64)], room: &Room) -> Result<Vec<(String, i64, i64)>, i64> {
    let mut placed = Vec::new();
    let mut end = 0;
    for (name, bytes) in regions {
        placed.push((name.clone(), end, *bytes));
        end = (end + bytes + 15) / 16 * 16;
    }
    if end > room.budget { Err(end) } else { Ok(placed) }
}

/// A job's tiles and DM regions as its schedule gives them (`schedule::Schedule`).
#[derive(Debug, PartialEq, Eq)]
pub struct Plan {
    /// The regions: name, DM offset, bytes; the constants as one record (`constants`).
    pub dm: Vec<(String, i64, i64)>,
    /// The tiles' bounds.
    pub tiles: Vec<i64>,
    /// Bands a tile on the vector units (0 on the NU).
    pub bands: usize,
}

/// `placed` regions as a plan's: the constants' regions joined into their record, which one
/// copy brings in (laid out as `Job::packed` lays them out, as `place` placed them).
fn plan_regions(job: &jobs::Job, placed: Vec<(String, i64, i64)>) -> Vec<(String, i64, i64)> {
    let constant = |name: &str| job.code.packed.contains(&name);
    let mut record: Option<(i64, i64)> = None;
    let mut regions = Vec::new();
    for (name, at, bytes) in placed {
        if constant(&name) {
            let first = record.map_or(at, |(first, _)| first);
            record = Some((first, at + bytes));
        } else {
            regions.push((name, at, bytes));
        }
    }
    regions.extend(record.map(|(first, end)| ("constants".to_string(), first, end - first)));
    regions
}

/// The DM addresses of the constant regions of a record at DM offset `at`, laid out as
/// `Job::packed` lays them out: `dm_<name>` and `<name>_bytes` each.
pub fn constant_arguments(job: &jobs::Job, at: i64) -> Vec<(String, i64)> {
    let mut end = 0;
    let mut values = Vec::new();
    for (name, bytes) in job.constant_regions() {
        end = (end + 15) / 16 * 16;
        values.push((format!("dm_{name}"), i64::from(DM_BASE) + at + end));
        values.push((format!("{name}_bytes"), bytes));
        end += bytes;
    }
    values
}

/// The compile error for a job whose `regions` need `need` bytes of DM.
fn capacity(job: &jobs::Job, regions: &[(String, i64)], need: i64, room: &Room, how: &str) -> Error {
    let params = room.params;
    let kept = i64::from(params.dm_bytes) - room.budget;
    let kept = if kept > 0 { format!(", {kept} of them kept for activations between kernels") } else { String::new() };
    let plural = |n: &str| match n {
        "multiplier" => "multipliers".to_string(),
        "shift" => "shifts".to_string(),
        "input" | "output" | "x" | "y" => format!("{n} tile 1"),
        "input1" | "output1" | "x1" | "y1" => format!("{} tile 2", &n[..n.len() - 1]),
        other => other.to_string(),
    };
    let parts: Vec<String> = regions.iter().map(|(n, b)| format!("{} {b}", plural(n))).collect();
    Error::Unsupported(format!(
        "the {}'s tensors need {need} bytes of DM{how} ({}), DM has {} (-dm-kib={}){kept}",
        job.code.what,
        parts.join(", "),
        params.dm_bytes,
        params.dm_bytes >> 10,
    ))
}

/// Tiles of output rows in which a tiled job runs (`double`-buffered): at least [`TILES`] (or
/// one per output row, when there are fewer; when it copies nothing in or out, one, or
/// [`OVERLAP_TILES`] when it runs at once with a neighbour), more while
/// the constants and two input and two output tiles do not fit DM (fewer when a tile would read
/// padding only; a tensor read or written in place takes no tiles); an input row is `in_row`
/// bytes in its buffer. Returns the plan.
pub fn tiled_layout(job: &jobs::Job, values: &[(String, i64)], in_row: i64, room: &Room) -> Result<Plan, Error> {
    let (params, double) = (room.params, room.double);
    let oh = tiling::lookup(values, "oh")?;
    let out_row = job.bytes[job.bytes.len() - 1] / oh.max(1);
    let mut last: Option<(Vec<(String, i64)>, i64)> = None;
    // From TILES tiles (on the vector units, few enough that each unit has a row of each
    // tile) up, then down to one tile when tiles would read padding only.
    // Nothing to copy in or out: one tile, whose jobs have nothing to overlap, unless it runs at
    // once with a neighbour.
    let fewest = if room.in_place(job) && !room.overlap {
        1
    } else if room.in_place(job) {
        OVERLAP_TILES.min(oh)
    } else if room.stage > 0 {
        // An im2col convolution's tiles each cost the control unit kh·taps gather descriptors:
        // two tiles overlap the gather with the job (KWS's first layer: 2 tiles 3,280 cycles, 3
        // tiles 3,326, 4 tiles 4,122).
        IM2COL_TILES.min(oh)
    } else if job.code.units {
        (oh / i64::from(params.vu_count)).clamp(1, TILES)
    } else {
        TILES.min(oh)
    };
    // On the vector units, tiles of whole groups of as many rows as units first (the fewest band
    // rows in all), then of any rows (smaller tiles, when DM is short).
    // Running at once with a neighbour, tiles of any rows: the pipeline's tiles come first.
    let pipelined = room.in_place(job) && room.overlap;
    let granules = if job.code.units && !pipelined { vec![i64::from(params.vu_count), 1] } else { vec![1] };
    for granule in granules {
        for count in (fewest..=oh).chain((1..fewest).rev()) {
            let Some(tiles) = tiling::row_tiles(values, count, granule)? else { continue };
            let max_in = tiles.iter().map(|t| t.rows).max().unwrap_or(0) * in_row;
            let max_out = tiles.iter().map(|t| t.last - t.first).max().unwrap_or(0) * out_row;
            let tiled = (room.buffered(job), (!room.writes_kept).then_some(max_out));
            let regions = tile_regions(tiled, max_in, room.constants(job), double && tiles.len() > 1);
            match place(&regions, room) {
                Ok(placed) => {
                    // On the vector units, as many bands a tile as units, while every tile has an
                    // output row for each (or, pooling, a vector of channels).
                    let fewest = tiles.iter().map(|t| t.last - t.first).min().unwrap_or(1);
                    let channels = channels(job.code, values, i64::from(params.vu_lanes))?;
                    let units = i64::from(params.vu_count);
                    let bands = if job.code.units { Bands::most(units, fewest, channels) } else { 0 };
                    let bounds = tiles.iter().map(|t| t.first).chain([oh]).collect();
                    return Ok(Plan { dm: plan_regions(job, placed), tiles: bounds, bands });
                }
                // The error names the plan that needs the least.
                Err(need) if last.as_ref().is_none_or(|(_, least)| need < *least) => last = Some((regions, need)),
                Err(_) => {}
            }
        }
    }
    let (regions, need) =
        last.ok_or_else(|| Error::Invalid(format!("no tiling of the {}'s output rows", job.code.what)))?;
    Err(capacity(job, &regions, need, room, " even in tiles of one output row, double-buffered"))
}

/// Tiles of whole vectors in which an elementwise job runs (`double`-buffered), each in bands
/// over the vector units: [`ELEMENT_TILES`] tiles (one for a single vector, or when it copies
/// nothing in or out), more while two tiles of `x`, `y` and the output (those not read or
/// written in place) do not fit DM. Returns the plan.
pub fn element_layout(job: &jobs::Job, values: &[(String, i64)], room: &Room) -> Result<Plan, Error> {
    let (params, double) = (room.params, room.double);
    let count = tiling::lookup(values, "count")?;
    if count < 1 {
        return Err(Error::Unsupported(format!("the {} has no elements", job.code.what)));
    }
    let (in_bytes, out_bytes) = job.code.element_bytes;
    let (lanes, units) = (i64::from(params.vu_lanes), i64::from(params.vu_count));
    let vectors = (count + lanes - 1) / lanes;
    let mut least: Option<(Vec<(String, i64)>, i64)> = None;
    let fewest = if room.in_place(job) && !room.overlap { 1 } else { ELEMENT_TILES.min(vectors) };
    for tiles in fewest..=vectors {
        // The longest tile, without planning every tile of every count tried.
        let longest = ((vectors + tiles - 1) / tiles * lanes).min(count);
        let (tile_in, tile_out) = (longest * in_bytes, longest * out_bytes);
        let tiled = (room.buffered(job), (!room.writes_kept).then_some(tile_out));
        let regions = tile_regions(tiled, tile_in, room.constants(job), double && longest < count);
        match place(&regions, room) {
            Ok(placed) => {
                let plan = tiling::element_tiles(count, tiles, lanes);
                let fewest = plan.iter().map(|t| (t.1 + lanes - 1) / lanes).min().unwrap_or(1);
                let bands = units.min(fewest).max(1) as usize;
                let bounds = plan.iter().map(|t| t.0).chain([count]).collect();
                return Ok(Plan { dm: plan_regions(job, placed), tiles: bounds, bands });
            }
            Err(need) if least.as_ref().is_none_or(|(_, l)| need < *l) => least = Some((regions, need)),
            Err(_) => {}
        }
    }
    let (regions, need) = least.ok_or_else(|| Error::Invalid(format!("no tiling of the {}", job.code.what)))?;
    Err(capacity(job, &regions, need, room, " even in tiles of few vectors, double-buffered"))
}

/// The arguments of a job's tiles (and bands) as `schedule` runs them, from the job's `values`:
/// an input row is `src_row` bytes in DDR and `in_row` in its tile buffer (more when folded).
/// `Err` when the schedule's tiles do not cover the job, a tile reads padding only, a band has
/// no output row or vector, or a tile does not fit its buffer.
pub fn tile_arguments(
    job: &jobs::Job,
    values: &[(String, i64)],
    schedule: &Schedule,
    (src_row, in_row): (i64, i64),
    lanes: i64,
) -> Result<Vec<(String, i64)>, Error> {
    let code = job.code;
    let bounds = &schedule.tiles;
    let end = tiling::lookup(values, if code.elementwise() { "count" } else { "oh" })?;
    let increasing = bounds.windows(2).all(|w| w[0] < w[1]);
    if bounds.len() < 2 || bounds[0] != 0 || bounds[bounds.len() - 1] != end || !increasing {
        return Err(bad(format!("tiles {bounds:?} do not split [0, {end}) into tiles in order")));
    }
    if bounds.len() - 1 > crate::kernel::split::MAX_TILES {
        return Err(bad(format!(
            "{} tiles; a call runs at most {}",
            bounds.len() - 1,
            crate::kernel::split::MAX_TILES
        )));
    }
    // Where each tiled tensor's tiles go, and the bytes a tile may take there (a tensor read or
    // written in place is whole).
    let base = i64::from(DM_BASE);
    let (reads, writes) = schedule.in_place();
    let buffer = |name: &str| -> Result<(Place, i64), Error> {
        let kept = match code.tile_inputs().iter().position(|n| *n == name) {
            Some(k) => schedule.kept_inputs[k].filter(|_| reads[k]),
            None => schedule.kept_output.filter(|_| writes),
        };
        if let Some(at) = kept {
            return Ok((Place { buffers: [0, 0], kept: Some(base + at) }, i64::MAX));
        }
        let (first, bytes) = schedule.region(name).ok_or_else(|| bad(format!("no dm.{name}")))?;
        let (second, second_bytes) = schedule.region(&format!("{name}1")).unwrap_or((first, bytes));
        Ok((Place::buffers([base + first, base + second]), bytes.min(second_bytes)))
    };
    let fits = |name: &str, need: i64, room: i64| {
        if need <= room {
            Ok(())
        } else {
            Err(bad(format!("a tile needs {need} bytes of dm.{name}, which holds {room}")))
        }
    };
    let (outputs, out_room) = buffer("output")?;
    let bands = schedule.bands;
    if code.elementwise() {
        let (in_bytes, out_bytes) = code.element_bytes;
        if bounds[..bounds.len() - 1].iter().any(|b| b % lanes != 0) {
            return Err(bad(format!("tiles {bounds:?} are not whole vectors of {lanes} elements")));
        }
        let tiles: Vec<(i64, i64)> = bounds.windows(2).map(|w| (w[0], w[1] - w[0])).collect();
        let longest = tiles.iter().map(|t| t.1).max().unwrap_or(0);
        let fewest = tiles.iter().map(|t| (t.1 + lanes - 1) / lanes).min().unwrap_or(0);
        if bands as i64 > fewest {
            return Err(bad(format!("{bands} bands, but a tile has {fewest} vectors")));
        }
        let mut inputs = Vec::new();
        for name in code.tile_inputs() {
            let (pair, room) = buffer(name)?;
            fits(name, longest * in_bytes, room)?;
            inputs.push(pair);
        }
        fits("output", longest * out_bytes, out_room)?;
        let buffers = (inputs.as_slice(), outputs);
        return Ok(tiling::element_tile_values(&tiles, (bands, lanes), code.banded, buffers, code.element_bytes));
    }
    let tiles =
        tiling::tiles_at(values, bounds)?.ok_or_else(|| bad(format!("a tile of {bounds:?} reads padding only")))?;
    let out_row = job.bytes[job.bytes.len() - 1] / end.max(1);
    let (inputs, in_room) = buffer("input")?;
    fits("input", tiles.iter().map(|t| t.rows).max().unwrap_or(0) * in_row, in_room)?;
    fits("output", tiles.iter().map(|t| t.last - t.first).max().unwrap_or(0) * out_row, out_room)?;
    if !code.units {
        return Ok(tiling::tile_values(&tiles, (src_row, in_row), out_row, inputs, outputs));
    }
    let fewest = tiles.iter().map(|t| t.last - t.first).min().unwrap_or(0);
    let channels = channels(code, values, lanes)?;
    if bands > Bands::most(bands as i64, fewest, channels) {
        let vectors = if channels.is_some() { " and too few channels" } else { "" };
        return Err(bad(format!("{bands} bands, but a tile has {fewest} output rows{vectors}")));
    }
    let window = (tiling::lookup(values, "stride_y")?, tiling::lookup(values, "pad_top")?);
    let bands = Bands { count: bands, channels };
    Ok(tiling::unit_tile_values(&tiles, bands, window, (in_row, out_row), inputs, outputs))
}

/// A pooling's channels and the vector units' `lanes`, which its tiles may be banded by
/// ([`Bands`]); `None` for other jobs.
fn channels(code: &JobCode, values: &[(String, i64)], lanes: i64) -> Result<Option<(i64, i64)>, Error> {
    Ok(if code.channel_bands() { Some((tiling::lookup(values, "c")?, lanes)) } else { None })
}

/// An error of a schedule.
fn bad(message: String) -> Error {
    Error::Unsupported(format!("{}: {message}", crate::schedule::ATTRIBUTE))
}

/// The DM regions of a double-buffered job: each of `inputs` tiled (`in_bytes` a tile;
/// `<name>1`, its second buffer, when `double`), then `others`, then the output tiles (`output`:
/// their bytes, `None` when written in place) likewise.
fn tile_regions(
    (inputs, output): (Vec<&str>, Option<i64>),
    in_bytes: i64,
    others: impl IntoIterator<Item = (String, i64)>,
    double: bool,
) -> Vec<(String, i64)> {
    let tiled = |name: &str, bytes: i64| {
        let second = double.then(|| (format!("{name}1"), bytes));
        std::iter::once((name.to_string(), bytes)).chain(second)
    };
    let mut regions: Vec<(String, i64)> = inputs.iter().flat_map(|name| tiled(name, in_bytes)).collect();
    regions.extend(others);
    regions.extend(output.into_iter().flat_map(|bytes| tiled("output", bytes)));
    regions
}

/// The tiles an elementwise job runs in when they fit: two, so the copies of one overlap the
/// bands of the other; the job is bound by DDR, and more tiles only add their latencies (IC's
/// adds: 4 tiles 85,958 cycles, 2 tiles 85,331, 1 tile 85,717).
const ELEMENT_TILES: i64 = 2;

/// The fewest tiles an im2col convolution runs in (see `tiled_layout`).
const IM2COL_TILES: i64 = 2;

/// The tiles a job copying nothing in or out runs in when it runs at once with the kernel before
/// or after (`resident.rs`): each tile's jobs start when the kernel before has written the rows
/// they read, and each costs a start-up on its unit and the control unit's descriptors (2 tiles
/// 22,338 / 59,566 / 69,027 cycles on KWS / VWW / IC, 3 tiles 20,367 / 54,713 / 69,059, 4 tiles
/// 20,692 / 56,641 / 69,091, 6 tiles 21,548 / 57,145 / 69,155). On the vector units they take
/// any rows (as many bands a tile as units while each has a row), not whole groups of a row
/// per unit: VWW's 6-row depthwise convolutions would otherwise run in one tile.
const OVERLAP_TILES: i64 = 3;

/// The fewest tiles a tiled job runs in: enough for the copies of one tile to overlap the job
/// of another.
const TILES: i64 = 4;

#[cfg(test)]
mod tests {
    use super::*;

    /// All of DM, double-buffered.
    fn room(params: &Params) -> Room<'_> {
        Room {
            params,
            double: true,
            budget: i64::from(params.dm_bytes),
            preloaded: false,
            reads_kept: [false; 2],
            writes_kept: false,
            stage: 0,
            overlap: false,
        }
    }

    #[test]
    fn constants_pack_as_their_dm_regions_lie() {
        // A 20-byte filter, two int32 biases, one multiplier and one shift: in the record and in
        // DM from 16-byte boundaries, 0, 32, 48 and 64 apart, zeros between; 65 bytes.
        let bias = jobs::bytes_of(&[0x0102_0304, -2], 4);
        assert_eq!(bias, [4, 3, 2, 1, 254, 255, 255, 255]);
        let job = jobs::Job {
            code: &jobs::CONV,
            operands: Vec::new(),
            constants: vec![vec![7; 20], bias.clone(), jobs::bytes_of(&[1 << 30], 4), vec![33]],
            scalars: Vec::new(),
            bytes: Vec::new(),
            pixels: 1,
        };
        let record = job.packed().unwrap();
        let mut expected = vec![7; 20];
        expected.extend([0; 12]);
        expected.extend(&bias);
        expected.extend([0; 8]);
        expected.extend([0, 0, 0, 64]);
        expected.extend([0; 12]);
        expected.push(33);
        assert_eq!(record, expected);
        let regions: Vec<(String, i64)> = job.constant_regions().collect();
        let params = Params::default();
        let placed = place(&regions, &room(&params)).unwrap();
        let dm: Vec<i64> = placed.iter().map(|(_, at, _)| *at).collect();
        assert_eq!(dm, [0, 32, 48, 64]);
        // In a plan, one record of 65 bytes; its regions' addresses where it lies (at 4096).
        assert_eq!(plan_regions(&job, placed), [("constants".to_string(), 0, 65)]);
        let at: Vec<i64> =
            constant_arguments(&job, 4096).iter().step_by(2).map(|(_, v)| v - i64::from(DM_BASE)).collect();
        assert_eq!(at, [4096, 4128, 4144, 4160]);
        // A job without constants copies none.
        let pool = jobs::Job { code: &jobs::AVG_POOL, constants: Vec::new(), ..job };
        assert_eq!(pool.packed(), None);
    }

    #[test]
    fn elementwise_tiles_shrink_until_they_fit() {
        // 512 elements (32 vectors) on 4 units of 16 lanes. With 256 KiB: two tiles of 256,
        // four bands each. With 1 KiB: two tiles need 6 x 256 bytes; four tiles of 128 (6 x 128
        // + 32 bytes of scales) fit.
        let job = jobs::Job {
            code: &jobs::ADD,
            operands: Vec::new(),
            constants: vec![vec![0; 4], vec![0]],
            scalars: Vec::new(),
            bytes: vec![512, 512, 512],
            pixels: 1,
        };
        let values = vec![("count".to_string(), 512)];
        let plan = |dm: &str| element_layout(&job, &values, &room(&Params::parse(dm).unwrap())).unwrap();
        assert_eq!((plan("").tiles, plan("").bands), (vec![0, 256, 512], 4));
        let small = plan("-dm-kib=1");
        assert_eq!((small.tiles, small.bands), (vec![0, 128, 256, 384, 512], 4));
        let dm = |name: &str| small.dm.iter().find(|(n, _, _)| n == name).map(|(_, at, _)| *at);
        // x, x1, y, y1 of 128 bytes, the record (multiplier and shift), the two output tiles.
        let at: Vec<Option<i64>> = ["x", "x1", "y", "y1", "constants", "output", "output1"].map(dm).to_vec();
        let expected: Vec<Option<i64>> = [0, 128, 256, 384, 512, 544, 672].map(Some).to_vec();
        assert_eq!(at, expected);
    }
}

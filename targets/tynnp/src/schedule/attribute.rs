//! A kernel's schedule as IR: how one job runs, decided in steps (`steps.rs`: `umac-keep-tynnp`,
//! `umac-prefetch-tynnp`, `umac-tile-tynnp`, `umac-place-tynnp`, or all of them:
//! `umac-schedule-tynnp`) and attached to its primitive op as `tynnp.schedule`, then lowered by
//! `umac-legalize-tynnp`, which honours an edited schedule when it is sound and reports at the op
//! why not otherwise.
//!
//! ```mlir
//! tynnp.schedule = {buffers = 2 : i64, dm = {constants = array<i64: 256, 84>,
//!   input = array<i64: 0, 128>, input1 = array<i64: 128, 128>, output = array<i64: 352, 64>,
//!   output1 = array<i64: 416, 64>}, fold = false, tiles = array<i64: 0, 2, 4, 6, 8>}
//! ```
//! - `tiles`: the tiles' bounds, output rows of a window job or elements of an elementwise one
//!   (tile t is `[tiles[t], tiles[t + 1])`; an imperfect last tile is simply shorter);
//! - `bands`: each tile's bands over the vector units (jobs on the vector units only);
//! - `buffers`: tile buffers of each tiled tensor, 2 (double-buffered) or 1;
//! - `fold`: a convolution's kernel columns folded into its input channels;
//! - `dm`: the kernel's own DM regions, `[offset from DM's base, bytes]`: its tiled inputs'
//!   buffers (`input`, or `x` and `y`; `<name>1` the second), its constant record when it copies
//!   it (`constants`), its output's buffers; a tensor kept in DM is read or written there in
//!   place and has no buffers (but a folded convolution's input, which it gathers);
//! - `kept`: the DM offset of each tensor kept on chip between kernels (`input`, `x`, `y` left
//!   there by the kernel before, `output` for the kernel after);
//! - `preloaded`: the DM offset of its constant record, copied there by a kernel before;
//! - `prefetch`: the DM offset it copies the next kernel's record to;
//! - `prefetch_far`: the DM offset it copies the record of the kernel `ahead` kernels on to
//!   (`ahead`: 2, the kernel after next, unless the entry says more, up to [`MAX_AHEAD`]);
//! - `dm.tokens`: when present, the kernel hands its jobs on to the next kernel, which reads its
//!   kept output in place and starts while they run (`resident.rs`): their tokens go in this
//!   table, a row of one per band (one on the NU) for each tile.
//!
//! Before `umac-tile-tynnp`, a schedule has no `tiles` (nor `bands`, `buffers`, `fold`); before
//! `umac-place-tynnp`, what it shares is decided but not placed: a unit entry (`kept = {output}`,
//! `prefetch`, `dm = {tokens}`), and its own regions are from offset 0. Legalization takes
//! neither.
//!
//! A kernel's ranges in DM (its regions, the kept tensors it reads or writes, its record and the
//! next kernel's) must lie in DM and not overlap; a kept tensor or a prefetched record must be
//! handed on between kernels of a function that agree on its place, a kept tensor apart from the
//! ranges of every kernel it lives across; a kernel handing its jobs on keeps its ranges apart
//! from the next kernel's (`agree.rs`).

use crate::error::TynnpError;
use crate::kernel::jobs::Job;
use umac_backend::OpView;
use umac_tynnp_device::Params;

/// The attribute holding a primitive op's schedule.
pub const ATTRIBUTE: &str = "tynnp.schedule";

/// The DM region of a kernel that hands its jobs on to the next kernel: its token table.
pub const TOKENS: &str = "tokens";

/// The offset of what is decided but not placed yet (a unit entry in the attribute).
pub const UNPLACED: i64 = i64::MIN;

/// The words of the token table of a kernel of `tiles` tiles in `bands` bands each (0 on the NU):
/// a token per job, a row per tile.
pub fn token_words(tiles: usize, bands: usize) -> usize {
    tiles * bands.max(1)
}

/// How many kernels on the record a kernel's far copy (`prefetch_far`) is for, unless `ahead`
/// says otherwise: the kernel after next.
pub const FAR_AHEAD: usize = 2;

/// The most kernels ahead a record may be copied: a record copied earlier holds its DM longer,
/// which the kernels it lives across give up.
pub const MAX_AHEAD: usize = 4;

/// How one job runs (see the module documentation).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Schedule {
    pub tiles: Vec<i64>,
    pub bands: usize,
    pub buffers: i64,
    pub fold: bool,
    /// A convolution's kernel rows folded into its channels too, its input staged in DM.
    pub im2col: bool,
    /// Name, DM offset and bytes of each of the kernel's own regions.
    pub dm: Vec<(String, i64, i64)>,
    /// The DM offsets of the tiled inputs kept on chip (the input, or `x` and `y`).
    pub kept_inputs: [Option<i64>; 2],
    /// The DM offset the output is kept at.
    pub kept_output: Option<i64>,
    pub preloaded: Option<i64>,
    pub prefetch: Option<i64>,
    /// The DM offset it copies the record of the kernel [`Schedule::far_ahead`] kernels on to.
    pub prefetch_far: Option<i64>,
    /// How many kernels on that record's kernel is (0: [`FAR_AHEAD`]).
    pub ahead: usize,
}

impl Schedule {
    /// The DM the kernel's own regions take: up to the end of the last.
    pub fn own_bytes(&self) -> i64 {
        self.dm.iter().map(|(_, at, bytes)| at + bytes).max().unwrap_or(0)
    }

    /// How many kernels on the kernel whose record `prefetch_far` copies is.
    pub fn far_ahead(&self) -> usize {
        if self.ahead == 0 { FAR_AHEAD } else { self.ahead }
    }

    /// The DM region `name`: offset and bytes.
    pub fn region(&self, name: &str) -> Option<(i64, i64)> {
        self.dm.iter().find(|(n, _, _)| n == name).map(|(_, at, bytes)| (*at, *bytes))
    }

    /// Which tiled inputs the kernel reads in place where the kernel before kept them (all but
    /// a folded convolution's, which it gathers), and whether it writes its output in place for
    /// the next kernel (whenever it is kept).
    pub fn in_place(&self) -> ([bool; 2], bool) {
        (self.kept_inputs.map(|k| k.is_some() && !self.fold && !self.im2col), self.kept_output.is_some())
    }

    /// Where the kernel's constant record is in DM: its own region, or where the kernel before
    /// left it.
    pub fn constants_at(&self) -> Option<i64> {
        self.region("constants").map(|(at, _)| at).or(self.preloaded)
    }

    /// Whether it shares anything with the kernels around it: a kept tensor, a record copied by
    /// or for it, a token table.
    pub fn shares(&self) -> bool {
        self.kept_inputs.iter().any(Option::is_some)
            || self.kept_output.is_some()
            || self.preloaded.is_some()
            || self.prefetch.is_some()
            || self.prefetch_far.is_some()
            || self.region(TOKENS).is_some()
    }

    /// The first entry decided but not placed, if any.
    pub fn unplaced(&self) -> Option<String> {
        let kept = self.kept_inputs.iter().enumerate().map(|(k, at)| (format!("kept input {k}"), *at));
        let named = [
            ("kept.output", self.kept_output),
            ("preloaded", self.preloaded),
            ("prefetch", self.prefetch),
            ("prefetch_far", self.prefetch_far),
        ];
        let regions = self.dm.iter().map(|(name, at, _)| (format!("dm.{name}"), Some(*at)));
        kept.chain(named.map(|(name, at)| (name.to_string(), at)))
            .chain(regions)
            .find_map(|(name, at)| (at == Some(UNPLACED)).then_some(name))
    }

    /// The attribute text (`job` names the tiled inputs; `fold` is written for convolutions). An
    /// entry decided but not placed is a unit; a schedule not tiled has only what it shares.
    pub fn text(&self, job: &Job) -> String {
        let array = |values: &[i64]| {
            format!("array<i64: {}>", values.iter().map(i64::to_string).collect::<Vec<_>>().join(", "))
        };
        let at = |name: &str, at: i64| if at == UNPLACED { name.to_string() } else { format!("{name} = {at} : i64") };
        let tiled = !self.tiles.is_empty();
        let mut entries = Vec::new();
        if self.bands > 0 {
            entries.push(format!("bands = {} : i64", self.bands));
        }
        if tiled {
            entries.push(format!("buffers = {} : i64", self.buffers));
        }
        let dm: Vec<String> = self
            .dm
            .iter()
            .map(
                |(name, at, bytes)| {
                    if *at == UNPLACED { name.clone() } else { format!("{name} = {}", array(&[*at, *bytes])) }
                },
            )
            .collect();
        if tiled || !dm.is_empty() {
            entries.push(format!("dm = {{{}}}", dm.join(", ")));
        }
        if tiled && job.code.foldable() {
            entries.push(format!("fold = {}", self.fold));
        }
        if self.im2col {
            entries.push("im2col = true".to_string());
        }
        let inputs = job.code.tile_inputs();
        let kept: Vec<String> = inputs
            .iter()
            .zip(self.kept_inputs)
            .filter_map(|(name, offset)| offset.map(|offset| at(name, offset)))
            .chain(self.kept_output.map(|offset| at("output", offset)))
            .collect();
        if !kept.is_empty() {
            entries.push(format!("kept = {{{}}}", kept.join(", ")));
        }
        if self.prefetch_far.is_some() && self.far_ahead() != FAR_AHEAD {
            entries.push(format!("ahead = {} : i64", self.far_ahead()));
        }
        let records = [("preloaded", self.preloaded), ("prefetch", self.prefetch), ("prefetch_far", self.prefetch_far)];
        entries.extend(records.iter().filter_map(|(name, offset)| offset.map(|offset| at(name, offset))));
        if tiled {
            entries.push(format!("tiles = {}", array(&self.tiles)));
        }
        format!("{{{}}}", entries.join(", "))
    }

    /// The schedule attached to `op`, if any, read as `job` runs (every entry known, each of the
    /// right kind).
    pub fn attached(op: &OpView, job: &Job) -> Option<Result<Schedule, TynnpError>> {
        let entries = match op.int_dict(ATTRIBUTE)? {
            Ok(entries) => entries,
            Err(e) => return Some(Err(TynnpError::Schedule(format!("{ATTRIBUTE}: {e}")))),
        };
        Some(Self::read(&entries, job).map_err(|e| TynnpError::Schedule(format!("{ATTRIBUTE}: {e}"))))
    }

    fn read(entries: &[(String, Vec<i64>)], job: &Job) -> Result<Schedule, TynnpError> {
        let inputs = job.code.tile_inputs();
        let mut schedule = Schedule { buffers: 2, ..Schedule::default() };
        // A unit: decided, not placed.
        let one = |name: &str, values: &[i64]| match values {
            [value] => Ok(*value),
            [] => Ok(UNPLACED),
            _ => Err(TynnpError::Schedule(format!("'{name}' must be one integer"))),
        };
        for (name, values) in entries {
            match name.as_str() {
                "tiles" => schedule.tiles = values.clone(),
                "bands" => {
                    schedule.bands =
                        usize::try_from(one(name, values)?).map_err(|_| TynnpError::Schedule("'bands' < 0".into()))?
                }
                "buffers" => schedule.buffers = one(name, values)?,
                "fold" => schedule.fold = one(name, values)? != 0,
                "im2col" => schedule.im2col = one(name, values)? != 0,
                "preloaded" => schedule.preloaded = Some(one(name, values)?),
                "prefetch" => schedule.prefetch = Some(one(name, values)?),
                "prefetch_far" => schedule.prefetch_far = Some(one(name, values)?),
                "ahead" => match values[..] {
                    [ahead] if (FAR_AHEAD as i64..=MAX_AHEAD as i64).contains(&ahead) => {
                        schedule.ahead = ahead as usize
                    }
                    _ => {
                        let message = format!("'ahead' must be one integer from {FAR_AHEAD} to {MAX_AHEAD}");
                        return Err(TynnpError::Schedule(message));
                    }
                },
                "kept.output" => schedule.kept_output = Some(one(name, values)?),
                kept if kept.starts_with("kept.") => {
                    let k = inputs.iter().position(|i| kept == format!("kept.{i}")).ok_or_else(|| {
                        TynnpError::Schedule(format!(
                            "'{kept}' names no tensor the {} reads tile by tile",
                            job.code.what
                        ))
                    })?;
                    schedule.kept_inputs[k] = Some(one(name, values)?);
                }
                region if region.starts_with("dm.") => match values[..] {
                    [at, bytes] => schedule.dm.push((region[3..].to_string(), at, bytes)),
                    [] => schedule.dm.push((region[3..].to_string(), UNPLACED, 0)),
                    _ => return Err(TynnpError::Schedule(format!("'{region}' must be [offset, bytes]"))),
                },
                other => return Err(TynnpError::Schedule(format!("unknown entry '{other}'"))),
            }
        }
        Ok(schedule)
    }

    /// Checks what can be checked of one kernel alone: the regions its job needs, each in DM,
    /// and no two of its ranges in DM overlapping (`record`: its constant record's bytes,
    /// `next`: the next kernel's).
    pub fn check(&self, job: &Job, records: Records, params: &Params) -> Result<(), TynnpError> {
        let Records { own: record, next, far } = records;
        let code = job.code;
        if self.tiles.is_empty() {
            return Err(TynnpError::Schedule("the kernel is not tiled (umac-tile-tynnp tiles it)".into()));
        }
        if let Some(name) = self.unplaced() {
            return Err(TynnpError::Schedule(format!("{name} is not placed in DM (umac-place-tynnp places it)")));
        }
        if !(1..=2).contains(&self.buffers) {
            return Err(TynnpError::Schedule(format!("buffers is {}; it must be 1 or 2", self.buffers)));
        }
        if (self.fold || self.im2col) && !code.foldable() {
            return Err(TynnpError::Schedule(format!(
                "fold or im2col is set, but a {} has no kernel to fold",
                code.what
            )));
        }
        if self.fold && self.im2col {
            return Err(TynnpError::Schedule(
                "fold and im2col are both set; im2col folds the kernel columns too".into(),
            ));
        }
        let units = i64::from(params.vu_count);
        let on_units = code.units || code.elementwise();
        if on_units && !(1..=units).contains(&(self.bands as i64)) {
            return Err(TynnpError::Schedule(format!(
                "bands is {}; the {} needs 1 to {units} (-vu={units})",
                self.bands, code.what
            )));
        }
        if !on_units && self.bands != 0 {
            return Err(TynnpError::Schedule(format!(
                "bands is {}; the {} runs on the NU, in no bands",
                self.bands, code.what
            )));
        }
        let two = self.buffers == 2 && self.tiles.len() > 2;
        let mut expected: Vec<String> = Vec::new();
        // Tile buffers for what is not read or written in place.
        let (reads, writes) = self.in_place();
        let tiled = code.tile_inputs().into_iter().zip(reads).chain([("output", writes)]);
        for name in tiled.filter(|(_, in_place)| !in_place).map(|(name, _)| name) {
            expected.push(name.to_string());
            if two {
                expected.push(format!("{name}1"));
            }
        }
        if self.im2col {
            expected.push("stage".into());
        }
        if let Some((_, bytes)) = self.region(TOKENS) {
            if !writes {
                return Err(TynnpError::Schedule(
                    "dm.tokens hands the jobs on, but the output is not kept in DM for the next kernel".into(),
                ));
            }
            let tiles = self.tiles.len().saturating_sub(1);
            let need = 4 * token_words(tiles, self.bands) as i64;
            if bytes < need {
                let jobs = tiles * self.bands.max(1);
                return Err(TynnpError::Schedule(format!(
                    "dm.tokens has {bytes} bytes; the {jobs} jobs' tokens need {need}"
                )));
            }
            expected.push(TOKENS.into());
        }
        if self.ahead != 0 && self.prefetch_far.is_none() {
            return Err(TynnpError::Schedule("ahead is set, but prefetch_far is not".into()));
        }
        match (record, self.preloaded) {
            (None, Some(_)) => {
                return Err(TynnpError::Schedule(format!("preloaded is set, but the {} has no constants", code.what)));
            }
            (Some(_), None) => expected.push("constants".into()),
            _ => {}
        }
        let mut names: Vec<&str> = self.dm.iter().map(|(n, _, _)| n.as_str()).collect();
        names.sort_unstable();
        let mut wanted: Vec<&str> = expected.iter().map(String::as_str).collect();
        wanted.sort_unstable();
        if names != wanted {
            return Err(TynnpError::Schedule(format!(
                "dm has regions [{}]; this schedule needs [{}]",
                names.join(", "),
                wanted.join(", ")
            )));
        }
        if let (Some((_, bytes)), Some(record)) = (self.region("constants"), record)
            && bytes != record as i64
        {
            return Err(TynnpError::Schedule(format!(
                "dm.constants has {bytes} bytes; the {}'s record has {record}",
                code.what
            )));
        }
        if self.prefetch.is_some() && next.is_none() {
            return Err(TynnpError::Schedule(
                "prefetch is set, but no next kernel in the function has constants to copy".into(),
            ));
        }
        if self.prefetch_far.is_some() && far.is_none() {
            return Err(TynnpError::Schedule(format!(
                "prefetch_far is set, but no kernel {} on in the function has constants to copy",
                self.far_ahead()
            )));
        }
        let ranges = self.ranges(job, records)?;
        let dm = i64::from(params.dm_bytes);
        for (name, at, bytes) in &ranges {
            if *at < 0 || *bytes < 0 || at.checked_add(*bytes).is_none_or(|end| end > dm) {
                return Err(TynnpError::Schedule(format!(
                    "{name} at {at} ({bytes} bytes) lies outside DM's {dm} bytes"
                )));
            }
        }
        for (i, (a, a_at, a_bytes)) in ranges.iter().enumerate() {
            for (b, b_at, b_bytes) in &ranges[i + 1..] {
                if a_at < &(b_at + b_bytes) && b_at < &(a_at + a_bytes) {
                    return Err(TynnpError::Schedule(format!(
                        "{a} [{a_at}, {}) overlaps {b} [{b_at}, {})",
                        a_at + a_bytes,
                        b_at + b_bytes
                    )));
                }
            }
        }
        Ok(())
    }

    /// Every range the kernel touches in DM while it runs: name, offset, bytes.
    pub fn ranges(&self, job: &Job, Records { own: record, next, far }: Records) -> Result<Vec<Range>, TynnpError> {
        let mut ranges: Vec<Range> = self.dm.iter().map(|(n, at, b)| (format!("dm.{n}"), *at, *b)).collect();
        let tiled = job.code.tile_inputs();
        for (k, at) in self.kept_inputs.iter().enumerate() {
            if let Some(at) = at {
                let name = tiled
                    .get(k)
                    .ok_or_else(|| TynnpError::Schedule("kept names an input the job does not read".into()))?;
                ranges.push((format!("kept.{name}"), *at, job.bytes[k]));
            }
        }
        if let Some(at) = self.kept_output {
            ranges.push(("kept.output".into(), at, job.bytes[job.bytes.len() - 1]));
        }
        if let (Some(at), Some(record)) = (self.preloaded, record) {
            ranges.push(("preloaded".into(), at, record as i64));
        }
        if let (Some(at), Some(next)) = (self.prefetch, next) {
            ranges.push(("prefetch".into(), at, next as i64));
        }
        if let (Some(at), Some(far)) = (self.prefetch_far, far) {
            ranges.push(("prefetch_far".into(), at, far as i64));
        }
        Ok(ranges)
    }
}

/// A range of DM: its name, offset and bytes.
pub type Range = (String, i64, i64);

/// The bytes of a kernel's constant record, of the next kernel's and of the one its far copy is
/// for ([`Schedule::far_ahead`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct Records {
    pub own: Option<usize>,
    pub next: Option<usize>,
    pub far: Option<usize>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::jobs;

    /// A convolution of 8 rows of 32 bytes into 8 rows of 32 (an 84-byte record), its output
    /// kept in DM.
    fn conv() -> (Job, Schedule) {
        let job = Job {
            code: &jobs::CONV,
            operands: Vec::new(),
            constants: vec![vec![1; 48], vec![0; 16], vec![0; 16], vec![0; 4]],
            scalars: Vec::new(),
            bytes: vec![256, 256],
            pixels: 1,
        };
        let region = |name: &str, at, bytes| (name.to_string(), at, bytes);
        let schedule = Schedule {
            tiles: vec![0, 2, 4, 6, 8],
            buffers: 2,
            // No output buffers: the kept output is written in place.
            dm: vec![region("input", 0, 128), region("input1", 128, 128), region("constants", 256, 84)],
            kept_output: Some(196_608),
            ..Schedule::default()
        };
        (job, schedule)
    }

    #[test]
    fn the_text_reads_back_as_the_schedule() {
        let (job, schedule) = conv();
        let text = schedule.text(&job);
        assert_eq!(
            text,
            "{buffers = 2 : i64, dm = {input = array<i64: 0, 128>, input1 = array<i64: 128, 128>, \
             constants = array<i64: 256, 84>}, fold = false, kept = {output = 196608 : i64}, \
             tiles = array<i64: 0, 2, 4, 6, 8>}"
        );
        let entries: Vec<(String, Vec<i64>)> = vec![
            ("buffers".into(), vec![2]),
            ("dm.input".into(), vec![0, 128]),
            ("dm.input1".into(), vec![128, 128]),
            ("dm.constants".into(), vec![256, 84]),
            ("fold".into(), vec![0]),
            ("kept.output".into(), vec![196_608]),
            ("tiles".into(), vec![0, 2, 4, 6, 8]),
        ];
        assert_eq!(Schedule::read(&entries, &job), Ok(schedule));
        let wrong = [("kept.x".to_string(), vec![0])];
        assert_eq!(
            Schedule::read(&wrong, &job),
            Err(TynnpError::Schedule("'kept.x' names no tensor the convolution reads tile by tile".into()))
        );
    }

    #[test]
    fn a_far_copy_names_how_far_ahead() {
        let (job, schedule) = conv();
        let params = Params::default();
        let records = Records { own: Some(84), next: None, far: Some(100) };
        // Two kernels on unless `ahead` says more; written only then.
        let far = Schedule { prefetch_far: Some(98_304), ..schedule.clone() };
        assert_eq!(far.far_ahead(), FAR_AHEAD);
        assert!(!far.text(&job).contains("ahead"));
        let four = Schedule { ahead: 4, ..far.clone() };
        assert!(four.text(&job).contains("ahead = 4 : i64, prefetch_far = 98304 : i64"), "{}", four.text(&job));
        assert_eq!(four.check(&job, records, &params), Ok(()));
        let read = |values: Vec<i64>| Schedule::read(&[("ahead".to_string(), values)], &job).map(|s| s.ahead);
        assert_eq!(read(vec![3]), Ok(3));
        for wrong in [vec![1], vec![5], vec![], vec![2, 3]] {
            let message = "'ahead' must be one integer from 2 to 4";
            assert_eq!(read(wrong), Err(TynnpError::Schedule(message.into())));
        }
        // Without a far copy, `ahead` says nothing; nor is there a far record to copy.
        let alone = Schedule { ahead: 3, ..schedule.clone() };
        let message = "ahead is set, but prefetch_far is not";
        assert_eq!(alone.check(&job, records, &params), Err(TynnpError::Schedule(message.into())));
        let message = "prefetch_far is set, but no kernel 4 on in the function has constants to copy";
        let none = Records { far: None, ..records };
        assert_eq!(four.check(&job, none, &params), Err(TynnpError::Schedule(message.into())));
    }

    #[test]
    fn a_kernels_ranges_lie_in_dm_apart() {
        let params = Params::default();
        let (job, schedule) = conv();
        let own = Records { own: Some(84), ..Records::default() };
        assert_eq!(schedule.check(&job, own, &params), Ok(()));
        // The second input buffer ends one byte into the kept output (at 192 KiB).
        let mut dm = schedule.dm.clone();
        dm[1] = ("input1".into(), 196_481, 128);
        let touching = Schedule { dm, ..schedule.clone() };
        assert_eq!(
            touching.check(&job, own, &params),
            Err(TynnpError::Schedule("dm.input1 [196481, 196609) overlaps kept.output [196608, 196864)".into()))
        );
        // Ending where the kept output starts is fine.
        let mut dm = schedule.dm.clone();
        dm[1] = ("input1".into(), 196_480, 128);
        assert_eq!(Schedule { dm, ..schedule.clone() }.check(&job, own, &params), Ok(()));
        // A record of another length; one tile needs no second buffers, two tiles do.
        assert!(
            schedule
                .check(&job, Records { own: Some(85), ..Records::default() }, &params)
                .unwrap_err()
                .to_string()
                .contains("record has 85")
        );
        let one = Schedule { tiles: vec![0, 8], ..schedule.clone() };
        assert!(one.check(&job, own, &params).unwrap_err().to_string().contains("needs [constants, input]"));
        // Written to DDR, the output needs its tile buffers.
        let to_ddr = Schedule { kept_output: None, ..schedule.clone() };
        assert!(to_ddr.check(&job, own, &params).unwrap_err().to_string().contains("output, output1]"));
        let single = Schedule { buffers: 1, ..schedule.clone() };
        assert!(single.check(&job, own, &params).is_err());
        // Prefetching with no next record; a range past the end of i64.
        let prefetching = Schedule { prefetch: Some(98_304), ..schedule.clone() };
        assert!(prefetching.check(&job, own, &params).unwrap_err().to_string().starts_with("prefetch is set"));
        assert_eq!(prefetching.check(&job, Records { own: Some(84), next: Some(100), far: None }, &params), Ok(()));
        // im2col needs its staged input's region, and folds the columns itself.
        let im2col = Schedule { im2col: true, ..schedule.clone() };
        assert!(
            im2col
                .check(&job, own, &params)
                .unwrap_err()
                .to_string()
                .contains("needs [constants, input, input1, stage]")
        );
        let both = Schedule { fold: true, ..im2col };
        assert!(both.check(&job, own, &params).unwrap_err().to_string().starts_with("fold and im2col are both set"));
        let far = Schedule { kept_output: Some(i64::MAX), ..schedule };
        assert!(far.check(&job, own, &params).unwrap_err().to_string().contains("lies outside DM"));
    }
}

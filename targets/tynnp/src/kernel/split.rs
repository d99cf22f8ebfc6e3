//! How a call splits its job (`Split`) and the function that runs it so: its name
//! (`JobCode::symbol`) holds each decision of the schedule that the control unit's code depends
//! on but the number of tiles (a value of the call: its tile table's rows and the loop's trip
//! count), so one function serves every call with the same split, and the function records its
//! split as IR (`tynnp.kernel = {taps = 0 : i64, ...}`, [`Split::entries`]), which is how the
//! split is read back ([`Split::from_entries`]), never from the name.

use crate::kernel::code::JobCode;
use umac_backend::{Attr, IntEntries, Ty};

/// How a call splits its job: into `bands` (bands or tiles, 1 when not split), and for a folded
/// convolution the number of taps (kernel columns).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Split {
    pub bands: usize,
    pub taps: usize,
    /// The kernel rows an im2col convolution gathers for each tile (else 0).
    pub rows: usize,
    /// The bands of each tile of a tiled job on the vector units (else 0).
    pub units: usize,
    /// One input and one output buffer for all tiles instead of two each (the
    /// `-double-buffer=false` attribute, to measure what double buffering earns): a tile's copy
    /// in waits for the job of the tile before, its job for the tile before's copy out.
    pub single: bool,
    /// The job's constants are in DM already: the kernel before copied them (no `weights`).
    pub preloaded: bool,
    /// The kernel copies the next kernel's constants (`next_weights`) into DM after its last
    /// tile's copy in, and waits for that copy before it returns.
    pub prefetch: bool,
    /// Each tiled input (the input, or `x` and `y`) kept in DM by the kernel before is read
    /// there in place: the jobs' descriptors point into it, nothing is copied in.
    pub reads_kept: [bool; 2],
    /// The output kept in DM for the next kernel is written there in place by the jobs: nothing
    /// is copied out.
    pub writes_kept: bool,
    /// The kernel hands its jobs on to the next kernel, which reads its kept output in place:
    /// it stores each job's token in its token table in DM (`dm_tokens`, a row of one token per
    /// band for each tile) and returns
    /// without waiting for them, so the next kernel's jobs start as soon as the rows they read
    /// are written (the next kernel waits for them before it returns).
    pub hands: bool,
    /// The kernel follows one that handed its jobs on, whose tiles have this many bands each (1
    /// on the NU; 0: it does not follow): each tile's jobs depend on the row of the kernel
    /// before's token table at `after_t<t>` (the last of its tiles writing what the tile reads),
    /// as descriptor dependencies where a slot is free and CU waits before the issue otherwise;
    /// before it returns, the CU waits for the row at `after_end` (the kernel before's last).
    pub follows: usize,
    /// The kernel copies the record of a kernel further ahead into DM too (`far_weights`), after
    /// the next kernel's. Like that one, the copy's token goes in the function's mailbox
    /// ([`crate::kernel::code::FAR_TOKEN`]), where the record's kernel finds it: the function
    /// does not depend on how far ahead.
    pub prefetch_far: bool,
    /// The kernel before follows one that handed its jobs on too, whose tiles have this many
    /// bands each (0: no such kernel two back): this kernel waits for that kernel's last jobs
    /// (the last row of its table, at `after_end2`) before it returns, and the kernel before did
    /// not; so three kernels run at once.
    pub waits_two: usize,
}

impl Split {
    /// `bands` bands or tiles, nothing else.
    pub fn bands(bands: usize) -> Split {
        Split {
            bands,
            taps: 0,
            rows: 0,
            units: 0,
            single: false,
            preloaded: false,
            prefetch: false,
            reads_kept: [false; 2],
            writes_kept: false,
            hands: false,
            follows: 0,
            prefetch_far: false,
            waits_two: 0,
        }
    }
}

/// The counts of a split as `tynnp.kernel` names them (not its tiles, which the function does not
/// depend on), then its flags.
const COUNTS: [&str; 5] = ["taps", "rows", "units", "follows", "waits_two"];
const FLAGS: [&str; 8] =
    ["single", "preloaded", "prefetch", "reads_x", "reads_y", "writes_kept", "hands", "prefetch_far"];

impl Split {
    fn counts(&self) -> [usize; 5] {
        [self.taps, self.rows, self.units, self.follows, self.waits_two]
    }

    /// What the function of a call split as `self` depends on: all of it but the number of tiles
    /// (0 here).
    pub fn function(self) -> Split {
        Split { bands: 0, ..self }
    }

    fn flags(&self) -> [bool; 8] {
        [
            self.single,
            self.preloaded,
            self.prefetch,
            self.reads_kept[0],
            self.reads_kept[1],
            self.writes_kept,
            self.hands,
            self.prefetch_far,
        ]
    }

    /// The entries of `tynnp.kernel`: every count as an integer, each flag set as a unit.
    pub fn entries(&self) -> Vec<(&'static str, Attr<'static>)> {
        let counts = COUNTS.iter().zip(self.counts()).map(|(name, n)| (*name, Attr::Int(Ty::I64, n as i64)));
        let flags = FLAGS.iter().zip(self.flags()).filter(|(_, on)| *on).map(|(name, _)| (*name, Attr::Unit));
        counts.chain(flags).collect()
    }

    /// The split `entries` (of `tynnp.kernel`, as `OpView::int_dict` gives them) record, with
    /// no tiles ([`Split::function`]): every count once, flags as units; `None` for a missing
    /// count, an unknown entry or one of the wrong kind.
    pub fn from_entries(entries: &IntEntries) -> Option<Split> {
        let mut counts = [None; 5];
        let mut flags = [false; 8];
        for (name, values) in entries {
            if let Some(k) = COUNTS.iter().position(|c| c == name) {
                counts[k] = match values[..] {
                    [n] => Some(usize::try_from(n).ok()?),
                    _ => return None,
                };
            } else {
                let k = FLAGS.iter().position(|f| f == name)?;
                if !values.is_empty() {
                    return None;
                }
                flags[k] = true;
            }
        }
        let [taps, rows, units, follows, waits_two] = counts;
        let [single, preloaded, prefetch, reads_x, reads_y, writes_kept, hands, prefetch_far] = flags;
        Some(Split {
            bands: 0,
            taps: taps?,
            rows: rows?,
            units: units?,
            single,
            preloaded,
            prefetch,
            reads_kept: [reads_x, reads_y],
            writes_kept,
            hands,
            follows: follows?,
            prefetch_far,
            waits_two: waits_two?,
        })
    }
}

/// The most tiles (and folded kernel columns) a call may name.
pub const MAX_TILES: usize = 1 << 16;

/// The most gather copies (tiles x taps x kernel rows) a call may name.
pub(crate) const MAX_COPIES: usize = 1 << 20;

/// What a single-buffered call's symbol ends with.
const SINGLE: &str = "_single";

/// What the symbol of a call reading its input (or `x`), its `y`, in place in DM includes, and
/// one writing its output in place.
const READS_X: &str = "_rx";
const READS_Y: &str = "_ry";
const WRITES: &str = "_wo";

/// What the symbol of a call whose constants are in DM already ends with.
const PRELOADED: &str = "_pl";

/// What the symbol of a call that copies the next kernel's constants ends with.
const PREFETCH: &str = "_pf";

/// What the symbol of a call handing its jobs on to the next kernel ends with, and what that of
/// one following such a call includes before its number of bands a tile (`_f4`).
const HANDS: &str = "_h";

/// What the symbol of a call copying the record of a kernel further ahead includes (after `_pf`).
const PREFETCH_FAR: &str = "_pff";
const FOLLOWS: &str = "_f";
const WAITS_TWO: &str = "_w";

impl JobCode {
    /// The function for a call split as `split`, whatever its number of tiles: `<callee>_x<units>`
    /// for tiles in bands on the vector units, `<callee>` for tiles, `<callee>_k<taps>` folded
    /// (`<callee>_k<taps>_r<rows>` with im2col);
    /// then `_single` when single-buffered, `_rx` / `_ry` when it reads its input (or `x`) / `y`
    /// in place where the kernel before kept it, `_wo` when it writes its output in place for the
    /// next kernel, `_pl` when its constants are preloaded, `_pf` when it prefetches the next
    /// kernel's, in that order; `_f<bands>` after `_ry` when it follows a kernel that handed its
    /// jobs on (then `_w<bands>` when the kernel before followed one too), `_pff` after `_pf`
    /// when it copies the record of a kernel further ahead, `_h` last when it hands its own jobs
    /// on.
    pub fn symbol(&self, split: Split) -> String {
        let flag = |on: bool, text: &'static str| if on { text } else { "" };
        let follows = if split.follows > 0 { format!("{FOLLOWS}{}", split.follows) } else { String::new() };
        let waits_two = if split.waits_two > 0 { format!("{WAITS_TWO}{}", split.waits_two) } else { String::new() };
        let suffix = [
            flag(split.single, SINGLE),
            flag(split.reads_kept[0], READS_X),
            flag(split.reads_kept[1], READS_Y),
            &follows,
            &waits_two,
            flag(split.writes_kept, WRITES),
            flag(split.preloaded, PRELOADED),
            flag(split.prefetch, PREFETCH),
            flag(split.prefetch_far, PREFETCH_FAR),
            flag(split.hands, HANDS),
        ]
        .concat();
        match (self.folded, self.units) {
            (true, _) if self.im2col => format!("{}_k{}_r{}{suffix}", self.callee, split.taps, split.rows),
            (true, _) => format!("{}_k{}{suffix}", self.callee, split.taps),
            (false, true) => format!("{}_x{}{suffix}", self.callee, split.units),
            (false, false) => format!("{}{suffix}", self.callee),
        }
    }

    /// Whether `split` is one of this job kind's: within isa.md's limits (at most as many tiles
    /// as a tensor has rows, taps as a kernel columns, bands as there are vector units; the
    /// copies a function issues grow with tiles x taps x kernel rows, bounded too), with the
    /// fields its kind has and consistent flags. A `tynnp.kernel` that is not is refused.
    pub fn valid(&self, split: Split) -> bool {
        let copies = split.bands.saturating_mul(split.taps.max(1)).saturating_mul(split.rows.max(1));
        let bounded = split.bands <= MAX_TILES
            && split.taps <= MAX_TILES
            && split.rows <= MAX_TILES
            && split.units <= 16
            && split.follows <= 16
            && split.waits_two <= 16
            && copies <= MAX_COPIES;
        bounded
            && split.bands >= 1
            && (split.taps >= 1) == self.folded
            && (split.rows >= 1) == self.im2col
            && (split.units >= 1) == self.units
            && (!split.preloaded || !self.packed.is_empty())
            // A folded convolution gathers its input; only an elementwise job reads a `y`.
            && !(split.reads_kept[0] && self.folded)
            && (!split.reads_kept[1] || self.tile_inputs().len() > 1)
            // Only a kernel writing its output in place hands its jobs on, and only one reading
            // its input in place follows.
            && (!split.hands || split.writes_kept)
            && (split.follows == 0 || split.reads_kept.contains(&true))
            && (split.waits_two == 0 || split.follows > 0)
    }
}

/// The name of the copy of the function `generic` that `umac-specialize-tynnp` makes for calls
/// of `tiles` tiles: `<generic>_t<tiles>`, then `_<k>` for the `k`-th (from 2) such copy with
/// another tile table.
pub fn specialized_symbol(generic: &str, tiles: usize, k: usize) -> String {
    if k <= 1 { format!("{generic}_t{tiles}") } else { format!("{generic}_t{tiles}_{k}") }
}

/// The function `callee` is a specialized copy of ([`specialized_symbol`]) and its tiles, or
/// `callee` itself and `None`.
pub fn generic_symbol(callee: &str) -> (&str, Option<usize>) {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|c| c.is_ascii_digit());
    let mut rest = callee;
    // An optional `_<k>` after `_t<tiles>`.
    if let Some((head, k)) = rest.rsplit_once('_')
        && digits(k)
        && head.rsplit_once("_t").is_some_and(|(_, tiles)| digits(tiles))
    {
        rest = head;
    }
    match rest.rsplit_once("_t") {
        Some((generic, tiles)) if digits(tiles) => (generic, tiles.parse().ok()),
        _ => (callee, None),
    }
}

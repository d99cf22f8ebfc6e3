//! The schedules of a function's kernels, decided in steps, each a pass that rewrites
//! `tynnp.schedule` on the function's primitive ops (`umac-schedule-tynnp` runs them in turn):
//!
//! 1. `umac-keep-tynnp` (fusion through DM): which outputs stay in DM for the kernels reading
//!    them (`kept`), and which kernels hand their jobs on to the next, so the two run at once
//!    (`dm.tokens`);
//! 2. `umac-prefetch-tynnp`: which kernel copies each kernel's constant record into DM, the one
//!    before or one up to `MAX_AHEAD` before (`prefetch`, `prefetch_far` and `ahead`;
//!    `preloaded` on the reader);
//! 3. `umac-tile-tynnp`: each kernel's tiles, bands, buffers and folds in the DM that what it
//!    shares leaves it (`tiles`, `bands`, `buffers`, `fold`, `im2col`, and its own regions in
//!    `dm`, from offset 0);
//! 4. `umac-place-tynnp`: static DM allocation, every region and every shared tensor or record
//!    at its offset by lifetime (umac-plan-memory's algorithm, `resident::place`).
//!
//! Until placed, what a kernel shares is a unit entry (`kept = {output}`, `prefetch`,
//! `dm = {tokens}`: decided, not placed), and legalization refuses such a schedule at the op. A
//! step decides a function whose kernels have none of its decisions yet (the keep step: no
//! decisions at all; prefetching: no copies and no tiles; tiling: no tiles; placing: every
//! kernel tiled, something unplaced), and leaves one already decided (or edited) as it is. The
//! keep and prefetch steps take a tensor or a record only when every kernel it lives across can
//! still be tiled in the DM the rest leaves it; tiling hands no jobs on to a kernel that gathers
//! its input (it does not read it in place), and tiles a kernel running beside the ones before
//! it (they hand their jobs on) in what their own regions leave; should the placement need more
//! than DM, the largest activation or record alive where it overflows goes back to DDR and the
//! function is tiled and placed again.

use crate::{
    graph::kernel_job,
    kernel::jobs,
    schedule::agree,
    schedule::decide,
    schedule::resident::{self, Shared},
    schedule::{self, FAR_AHEAD, MAX_AHEAD, Records, Schedule, TOKENS, UNPLACED, a16},
    target::{DOUBLE_BUFFER, FUSE, OVERLAP, PREFETCH},
};
use umac_backend::{Composite, Error, ScheduleStep, TargetAttrs};
use umac_tynnp_device::Params;

/// The steps, in the order they run.
pub const STEPS: [ScheduleStep; 4] = [
    ScheduleStep {
        name: "keep",
        summary: "Decide which tynnp kernels' outputs stay in DM for the kernels reading them, and which kernels hand their jobs on to the next (tynnp.schedule: kept, dm.tokens)",
    },
    ScheduleStep {
        name: "prefetch",
        summary: "Decide which tynnp kernel copies each kernel's constant record into DM ahead of it (tynnp.schedule: prefetch, prefetch_far, preloaded)",
    },
    ScheduleStep {
        name: "tile",
        summary: "Tile each tynnp kernel in the DM its shared tensors leave it: tiles, bands, buffers, folds and its own DM regions (tynnp.schedule)",
    },
    ScheduleStep {
        name: "place",
        summary: "Place every DM region and shared tensor of each function's tynnp kernels by lifetime (umac-plan-memory's algorithm; tynnp.schedule offsets)",
    },
];

/// Activations kept and the kernels reading each, at which operand.
type Kept = Vec<Option<Vec<(usize, usize)>>>;

/// The kernels of one function as the steps see them.
pub struct Kernels<'k, 'c, 'a> {
    pub composites: &'k [Composite<'c, 'a>],
    pub params: Params,
    pub jobs: Vec<Result<jobs::Job, Error>>,
    pub records: Vec<Option<Vec<u8>>>,
    double: bool,
    /// `-fuse`, `-prefetch`, `-overlap`.
    switches: (bool, bool, bool),
}

/// What the steps so far decided for a function's kernels.
#[derive(Clone, Debug, Default)]
struct Decisions {
    kept: Kept,
    /// Which kernel copies each kernel's record into DM: the one before, or one further back.
    copier: Vec<Option<usize>>,
    /// Which kernels hand their jobs on to the next.
    hands: Vec<bool>,
    /// Each kernel's schedule, once tiled.
    schedules: Vec<Option<Result<Schedule, Error>>>,
}

impl<'k, 'c, 'a> Kernels<'k, 'c, 'a> {
    pub fn new(composites: &'k [Composite<'c, 'a>], attributes: &TargetAttrs) -> Result<Self, Error> {
        let params = crate::target::params(attributes)?;
        let jobs: Vec<Result<jobs::Job, Error>> = composites.iter().map(kernel_job).collect();
        let records = jobs.iter().map(|j| j.as_ref().ok().and_then(jobs::Job::packed)).collect();
        let double = attributes.bool(DOUBLE_BUFFER);
        let switches = (attributes.bool(FUSE), attributes.bool(PREFETCH), attributes.bool(OVERLAP));
        Ok(Kernels { composites, params, jobs, records, double, switches })
    }

    fn n(&self) -> usize {
        self.composites.len()
    }

    fn ok(&self, i: usize) -> bool {
        self.jobs.get(i).is_some_and(Result::is_ok)
    }

    /// The DM bytes of kernel `i`'s output and of its record (16-byte aligned, 0 if none).
    fn output(&self, i: usize) -> i64 {
        self.jobs[i].as_ref().map_or(0, |job| a16(job.bytes[job.bytes.len() - 1]))
    }

    fn record(&self, i: usize) -> i64 {
        self.records.get(i).and_then(Option::as_ref).map_or(0, |r| a16(r.len() as i64))
    }

    /// The bytes of kernel `i`'s record, the next kernel's and the one `ahead` kernels on's.
    pub fn sizes(&self, i: usize, ahead: usize) -> Records {
        let len = |j: usize| self.records.get(j).and_then(|r| r.as_ref().map(Vec::len));
        Records { own: len(i), next: len(i + 1), far: len(i + ahead) }
    }

    /// Kernel `i`'s schedule alone, its own regions from offset 0 in at most `budget` bytes.
    fn decide(&self, i: usize, shared: Shared, budget: i64) -> Result<Schedule, Error> {
        let job = self.jobs[i].as_ref().map_err(Clone::clone)?;
        decide(job, &self.params, self.double, shared, budget)
    }

    /// Every schedule, each decided alone (`None`: nothing attached) or as attached; checked.
    pub fn attached(&self) -> Vec<Result<Schedule, Error>> {
        let dm = i64::from(self.params.dm_bytes);
        let mut schedules: Vec<Result<Schedule, Error>> = (0..self.n())
            .map(|i| {
                let job = self.jobs[i].as_ref().map_err(Clone::clone)?;
                match Schedule::attached(self.composites[i].last(), job) {
                    Some(attached) => attached.map_err(Error::from),
                    None => self.decide(i, Shared::default(), dm),
                }
            })
            .collect();
        self.check(&mut schedules);
        schedules
    }

    /// Every step on a function with nothing attached: the function's schedules, checked.
    pub fn planned(&self) -> Vec<Result<Schedule, Error>> {
        let mut d = Decisions::empty(self.n());
        self.keep(&mut d);
        self.prefetch(&mut d);
        self.place(&mut d);
        self.finished(&d)
    }

    /// The schedules of `d`, placed, each checked alone and against the others.
    fn finished(&self, d: &Decisions) -> Vec<Result<Schedule, Error>> {
        let mut schedules: Vec<_> = d.schedules.iter().map(|s| s.clone().unwrap_or_else(untiled)).collect();
        self.check(&mut schedules);
        schedules
    }

    /// Step `step` on the function, from what is attached: each kernel's schedule so far as
    /// attribute text, or `None` for all when the step leaves the function as it is.
    pub fn step(&self, step: &str) -> Vec<Result<Option<String>, Error>> {
        let attached: Vec<Option<Result<Schedule, Error>>> = (0..self.n())
            .map(|i| {
                let job = self.jobs[i].as_ref().map_err(Clone::clone);
                match job {
                    Ok(job) => Schedule::attached(self.composites[i].last(), job).map(|s| s.map_err(Error::from)),
                    Err(e) => Some(Err(e)),
                }
            })
            .collect();
        let decided = |what: &dyn Fn(&Schedule) -> bool| attached.iter().flatten().flatten().any(what);
        let tiled = |s: &Schedule| !s.tiles.is_empty();
        let mut d = self.decisions(&attached);
        match step {
            "keep" if !decided(&|s| tiled(s) || s.shares()) => self.keep(&mut d),
            "prefetch" if !decided(&|s| tiled(s) || s.preloaded.is_some()) => self.prefetch(&mut d),
            "tile" if !decided(&tiled) => self.tile(&mut d),
            "place"
                if d.schedules.iter().flatten().flatten().any(|s| s.unplaced().is_some())
                    && (0..self.n()).all(|i| !self.ok(i) || d.schedules[i].is_some()) =>
            {
                self.place(&mut d);
                d.schedules = self.finished(&d).into_iter().map(Some).collect();
            }
            _ => return (0..self.n()).map(|_| Ok(None)).collect(),
        }
        (0..self.n()).map(|i| self.text(&d, i)).collect()
    }

    /// Kernel `i`'s schedule so far as attribute text.
    fn text(&self, d: &Decisions, i: usize) -> Result<Option<String>, Error> {
        let job = self.jobs[i].as_ref().map_err(Clone::clone)?;
        let schedule = match &d.schedules[i] {
            Some(schedule) => schedule.clone()?,
            None => marked(Schedule::default(), d.shared(i)),
        };
        Ok(Some(schedule.text(job)))
    }

    /// The decisions `attached` holds: kept outputs (with their readers), who copies each record,
    /// who hands its jobs on, the tiled schedules.
    fn decisions(&self, attached: &[Option<Result<Schedule, Error>>]) -> Decisions {
        let n = self.n();
        let mut d = Decisions::empty(n);
        let at = |i: usize| attached.get(i).and_then(|s| s.as_ref()).and_then(|s| s.as_ref().ok());
        for i in 0..n {
            let Some(s) = at(i) else {
                if let Some(Some(Err(e))) = attached.get(i) {
                    d.schedules[i] = Some(Err(e.clone()));
                }
                continue;
            };
            if s.kept_output.is_some() {
                d.kept[i] = resident::readers(self.composites, i);
                if d.kept[i].is_none() {
                    let message = "kept.output is set, but no later kernel of the function alone reads it";
                    d.schedules[i] = Some(Err(Error::Unsupported(format!("{}: {message}", schedule::ATTRIBUTE))));
                    continue;
                }
            }
            if s.preloaded.is_some() {
                let copies = |c: usize| {
                    at(c).is_some_and(|b| {
                        (c + 1 == i && b.prefetch.is_some()) || (c + b.far_ahead() == i && b.prefetch_far.is_some())
                    })
                };
                d.copier[i] = (i.saturating_sub(MAX_AHEAD)..i).rev().find(|&c| copies(c));
            }
            d.hands[i] = s.region(TOKENS).is_some();
            if !s.tiles.is_empty() {
                d.schedules[i] = Some(Ok(s.clone()));
            }
        }
        d
    }

    /// Whether kernel `i` can be tiled with what it shares now.
    fn fits(&self, d: &Decisions, i: usize) -> bool {
        self.decide(i, d.shared(i), self.budget(d, i)).is_ok()
    }

    /// The DM kernel `i`'s own regions may take: all but the activations kept across it and the
    /// records in DM from their copy to their kernel.
    fn budget(&self, d: &Decisions, i: usize) -> i64 {
        let n = self.n();
        let activations: i64 = (0..=i)
            .filter(|&p| resident::last_reader(&d.kept, p).is_some_and(|last| i <= last))
            .map(|p| self.output(p))
            .sum();
        let records: i64 = (i..n).filter(|&j| d.copier[j].is_some_and(|c| c <= i)).map(|j| self.record(j)).sum();
        i64::from(self.params.dm_bytes) - activations - records
    }

    /// Step 1: each activation kept in DM, in the order the kernels run, when every kernel it
    /// lives across still fits; a kernel whose kept output the next reads hands its jobs on.
    fn keep(&self, d: &mut Decisions) {
        let (keep, _, overlap) = self.switches;
        for i in 0..self.n().saturating_sub(1) {
            if !keep || !self.ok(i) {
                continue;
            }
            if let Some(readers) = resident::readers(self.composites, i).filter(|r| r.iter().all(|&(j, _)| self.ok(j)))
            {
                let last = readers.iter().map(|r| r.0).max().unwrap_or(i);
                d.kept[i] = Some(readers);
                if !(i..=last).all(|m| self.fits(d, m)) {
                    d.kept[i] = None;
                }
            }
        }
        d.hands = (0..self.n()).map(|i| overlap && reads_next(&d.kept, i).is_some()).collect();
    }

    /// Step 2: each record copied into DM as early as it fits, in the order the kernels run: two
    /// kernels ahead when those two hand their jobs on (they run at once), else one. Then the
    /// largest records first, each earlier still, by a kernel up to [`MAX_AHEAD`] back, where
    /// that costs no kernel the record lives across its tiles ([`Kernels::copy_earlier`]).
    fn prefetch(&self, d: &mut Decisions) {
        self.copy_near(d);
        let mut order: Vec<usize> = (1..self.n()).filter(|&j| d.copier[j].is_some()).collect();
        order.sort_by_key(|&j| (std::cmp::Reverse(self.record(j)), j));
        for j in order {
            self.copy_earlier(d, j);
        }
    }

    /// Each record copied by the kernel two before its own when the two between hand their jobs
    /// on and every kernel it lives across can still be tiled, else by the one before if they
    /// can, in the order the kernels run.
    fn copy_near(&self, d: &mut Decisions) {
        let n = self.n();
        d.copier = vec![None; n];
        for j in 1..n {
            if !(self.switches.1 && self.ok(j) && self.ok(j - 1) && self.record(j) > 0) {
                continue;
            }
            let far = j >= FAR_AHEAD && self.ok(j - 2) && d.hands[j - 2] && d.hands[j - 1];
            let copiers = if far { vec![j - 2, j - 1] } else { vec![j - 1] };
            for c in copiers {
                d.copier[j] = Some(c);
                if (c..=j).all(|m| self.fits(d, m)) {
                    break;
                }
                d.copier[j] = None;
            }
        }
    }

    /// Kernel `j`'s record copied by the earliest kernel `c`, more than [`FAR_AHEAD`] and at most
    /// [`MAX_AHEAD`] back, before the one copying it now, such that every kernel of the function
    /// is tiled as it is now: an earlier copy starts the record's DDR transfer while the DMA
    /// channels idle, but may not cost a kernel its tiles (the DM it holds longer would shrink
    /// them), nor delay one: every kernel from `c` on reads its input in place, as
    /// the copy holds channel 0 (across kernels copying their tiles in, VWW -fuse=false took
    /// 96,958 cycles for 88,290). A kernel copies one record that far ahead: `c`'s, when it
    /// copies a smaller one, goes to the kernel before that one's own.
    fn copy_earlier(&self, d: &mut Decisions, j: usize) {
        let Some(now) = d.copier[j] else { return };
        for c in j.saturating_sub(MAX_AHEAD)..now.min(j.saturating_sub(FAR_AHEAD)) {
            if !(c..j).all(|m| self.ok(m)) {
                continue;
            }
            let taken = (c + 2..self.n()).find(|&k| k != j && d.copier[k] == Some(c));
            if taken.is_some_and(|k| self.record(k) >= self.record(j)) {
                continue;
            }
            let tiled =
                |d: &Decisions| -> Vec<Option<Schedule>> { self.tiled(d).into_iter().map(Result::ok).collect() };
            let before = tiled(d);
            // The copy goes on channel 0, which would delay any tile copied in behind it.
            let copies_in = |m: usize| {
                let inputs = self.jobs[m].as_ref().map_or(0, |job| job.code.tile_inputs().len());
                let kept = d.shared(m).kept_inputs[..inputs].iter().all(|&kept| kept);
                before[m].as_ref().is_none_or(|s| !kept || s.fold || s.im2col)
            };
            if (c..j).any(copies_in) {
                continue;
            }
            let saved = d.copier.clone();
            if let Some(k) = taken {
                d.copier[k] = Some(k - 1);
            }
            d.copier[j] = Some(c);
            if before.iter().all(Option::is_some) && tiled(d) == before {
                return;
            }
            d.copier = saved;
        }
    }

    /// Every kernel's schedule with what `d` has it share, in order: a kernel running on beside
    /// the ones before it (they hand their jobs on) gets what their own regions leave.
    fn tiled(&self, d: &Decisions) -> Vec<Result<Schedule, Error>> {
        let mut schedules: Vec<Result<Schedule, Error>> = Vec::with_capacity(self.n());
        for i in 0..self.n() {
            let beside: i64 = (i.saturating_sub(2)..i)
                .filter(|&p| d.hands[p..i].iter().all(|&h| h))
                .map(|p| schedules[p].as_ref().map_or(0, Schedule::own_bytes))
                .sum();
            schedules.push(self.decide(i, d.shared(i), self.budget(d, i) - beside));
        }
        schedules
    }

    /// Step 3: every kernel tiled in the DM left to it, in order: a kernel running beside the one
    /// or two before it (they hand their jobs on, so their regions live on) in what their own
    /// regions leave too. A kernel that gathers its kept input (folded) does not read it in place:
    /// the kernel before hands no jobs on to it, and the two are tiled again.
    fn tile(&self, d: &mut Decisions) {
        loop {
            let schedules = self.tiled(d);
            let mut again = false;
            for i in 0..self.n().saturating_sub(1) {
                let gathers = schedules[i + 1].as_ref().is_ok_and(|next| next.fold || next.im2col);
                if d.hands[i] && (gathers || schedules[i + 1].is_err()) {
                    d.hands[i] = false;
                    // Two kernels ahead only beside kernels running at once (`prefetch`).
                    if d.copier.get(i + 2) == Some(&Some(i)) {
                        d.copier[i + 2] = None;
                    }
                    again = true;
                }
            }
            if !again {
                d.schedules =
                    schedules.into_iter().enumerate().map(|(i, s)| Some(s.map(|s| marked(s, d.shared(i))))).collect();
                return;
            }
        }
    }

    /// Step 4: every region, kept activation and prefetched record placed by lifetime; should
    /// they need more than DM, the largest activation or record alive while the placement passes
    /// DM's end (of the whole function, when only kernels' own regions are there) goes back to
    /// DDR and the function is tiled and placed again. (Giving back the largest of the function
    /// instead gave back every activation of VWW at 112 KiB, one at a time: 96,070 cycles, now
    /// 51,712.)
    fn place(&self, d: &mut Decisions) {
        let dm = i64::from(self.params.dm_bytes);
        loop {
            if d.schedules.iter().any(Option::is_none) {
                self.tile(d);
            }
            let schedules: Vec<Result<Schedule, Error>> = d.schedules.iter().flatten().cloned().collect();
            let sizes = (|i: usize| self.output(i), |j: usize| self.record(j));
            match resident::place(&schedules, &d.kept, &d.copier, sizes, dm) {
                Ok(placed) => {
                    d.schedules = placed.into_iter().map(Some).collect();
                    return;
                }
                Err(_) if (0..self.n()).any(|j| d.copier[j].is_some_and(|c| c + FAR_AHEAD < j)) => {
                    // Records copied more than two kernels ahead go back first: each is copied
                    // as `copy_near` has it.
                    self.copy_near(d);
                    d.schedules = vec![None; self.n()];
                }
                Err(over) => {
                    let n = self.n();
                    // The largest activation or record alive where DM overflows (any, when the
                    // kernels' own regions overflow it alone).
                    let alive = |from: usize, to: usize| over.iter().any(|&k| from <= k && k <= to);
                    let kept = |i: usize| resident::last_reader(&d.kept, i).filter(|&last| alive(i, last));
                    let fetched = |j: usize| d.copier[j].filter(|&c| alive(c, j));
                    let local = (0..n).any(|i| kept(i).is_some() || fetched(i).is_some());
                    let largest_kept = (0..n)
                        .filter(|&i| d.kept[i].is_some() && (!local || kept(i).is_some()))
                        .max_by_key(|&i| (self.output(i), i));
                    let largest_fetched = (0..n)
                        .filter(|&j| d.copier[j].is_some() && (!local || fetched(j).is_some()))
                        .max_by_key(|&j| (self.record(j), j));
                    match (largest_kept, largest_fetched) {
                        (Some(k), Some(f)) if self.output(k) >= self.record(f) => d.kept[k] = None,
                        (_, Some(f)) => d.copier[f] = None,
                        (Some(k), None) => d.kept[k] = None,
                        (None, None) => return,
                    }
                    // What needed the tensor kept goes too, and a record copied two kernels
                    // ahead when those no longer run at once (`prefetch`).
                    for i in 0..n {
                        d.hands[i] &= reads_next(&d.kept, i).is_some();
                        if i >= 2 && d.copier[i] == Some(i - 2) && !(d.hands[i - 2] && d.hands[i - 1]) {
                            d.copier[i] = None;
                        }
                    }
                    d.schedules = vec![None; n];
                }
            }
        }
    }

    /// Each schedule checked alone and against the others ([`agree::check_function`]).
    fn check(&self, schedules: &mut [Result<Schedule, Error>]) {
        for (i, planned) in schedules.iter_mut().enumerate() {
            if let (Ok(schedule), Ok(job)) = (&*planned, &self.jobs[i])
                && let Err(e) = schedule.check(job, self.sizes(i, schedule.far_ahead()), &self.params)
            {
                *planned = Err(Error::Unsupported(format!("{}: {e}", schedule::ATTRIBUTE)));
            }
        }
        let ranges: Vec<Option<Vec<schedule::Range>>> = (0..schedules.len())
            .map(|i| {
                let (Ok(schedule), Ok(job)) = (&schedules[i], &self.jobs[i]) else { return None };
                schedule.ranges(job, self.sizes(i, schedule.far_ahead())).ok()
            })
            .collect();
        agree::check_function(self.composites, schedules, &ranges);
    }
}

impl Decisions {
    fn empty(n: usize) -> Self {
        Decisions { kept: vec![None; n], copier: vec![None; n], hands: vec![false; n], schedules: vec![None; n] }
    }

    /// What kernel `i` shares with the kernels around it.
    fn shared(&self, i: usize) -> Shared {
        let copies = |j: usize| self.copier.get(j) == Some(&Some(i));
        let mut s = Shared {
            kept_output: self.kept[i].is_some(),
            prefetch: copies(i + 1),
            far: (i + 2..self.copier.len()).find(|&j| copies(j)).map_or(0, |j| j - i),
            hands: self.hands[i],
            preloaded: self.copier[i].is_some(),
            follows: i > 0 && self.hands[i - 1],
            ..Shared::default()
        };
        for readers in self.kept[..i].iter().flatten() {
            for &(_, k) in readers.iter().filter(|(j, _)| *j == i) {
                s.kept_inputs[k] = true;
            }
        }
        s
    }
}

/// `schedule` with what it shares marked, unplaced: its kept tensors, its records copied by or
/// for it, and (before it is tiled) its token table.
fn marked(mut schedule: Schedule, shared: Shared) -> Schedule {
    let unplaced = |on: bool| on.then_some(UNPLACED);
    schedule.kept_inputs = shared.kept_inputs.map(unplaced);
    schedule.kept_output = unplaced(shared.kept_output);
    schedule.preloaded = unplaced(shared.preloaded);
    schedule.prefetch = unplaced(shared.prefetch);
    schedule.prefetch_far = unplaced(shared.far > 0);
    schedule.ahead = if shared.far > FAR_AHEAD { shared.far } else { 0 };
    if shared.hands && schedule.region(TOKENS).is_none() {
        schedule.dm.push((TOKENS.to_string(), UNPLACED, 0));
    }
    schedule
}

/// The schedule of a kernel no step tiled: a kernel that cannot run.
fn untiled() -> Result<Schedule, Error> {
    Err(Error::Unsupported(format!("{}: the kernel is not tiled", schedule::ATTRIBUTE)))
}

/// The operand at which kernel `i + 1` reads kernel `i`'s kept output, if it does.
fn reads_next(kept: &Kept, i: usize) -> Option<usize> {
    kept.get(i)?.as_ref()?.iter().find(|(j, _)| *j == i + 1).map(|&(_, k)| k)
}

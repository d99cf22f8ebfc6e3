//! What stays in DM from one kernel to the next, and one DM plan for a function's kernels.
//!
//! Activations: when a kernel's output is read by later kernels of the function only (each at a
//! window kernel's input, or either operand of a primitive add or sub: a residual block's input
//! is read by its first convolution and by its add), it stays in DM instead of going back to
//! DDR, until the last of them has read it: the producer's jobs write it there in place and the
//! consumers' jobs read it there in place (a folded convolution gathers its tiles from it), so
//! nothing is copied for it and the DDR port is left to the weights.
//!
//! Constants: a kernel copies the next kernel's constant record (see `Job::packed`) into DM after
//! its last tile's copy in, so the copy overlaps its last tiles, and the record of a kernel
//! further ahead too; that kernel finds its record there (the copy's token in the function's
//! mailbox in the control unit's DMEM, `codegen::regions::MAILBOX`) and copies nothing.
//!
//! Both are decided for a whole function at once (`steps.rs`), in the order the kernels run,
//! keeping before prefetching: an activation or a record is taken when every kernel it lives
//! across can still be tiled in the DM the rest leaves them. Every kernel's own regions (its
//! tile buffers and the record it copies itself) live while it runs, a kept activation or a
//! prefetched record from the kernel writing it to the last one reading it; umac-plan-memory's
//! algorithm places them all in DM (greedy by size, then hill climbing), so that nothing alive
//! at the same time overlaps. Should the placement need more than DM, the largest activation or
//! record alive where it passes DM's end goes back to DDR and the function is planned again.
//!
//! Overlap: a kernel whose kept output the next kernel reads in place hands its jobs on (their
//! tokens in a table in its DM) instead of waiting for them, and the next kernel's tiles depend
//! on the tiles writing the rows they read, so the two run at once (a depthwise convolution on
//! the vector units under the convolutions around it on the NU). The next kernel waits for them
//! before it returns, so at most two kernels run at once; what the first reads or writes in DM
//! lives until the second ends.

use crate::schedule::{FAR_AHEAD, Schedule, TOKENS};
use umac_backend::{Composite, Error, OpView};
use umac_lowering::memory_plan::{Buffer, plan_within};

/// The ops that start a kernel reading its input in tiles of rows (the consumers): TOSA's, then
/// the primitive ops (each a whole kernel, output stage included).
const WINDOW_ROOTS: [&str; 8] = [
    "tosa.conv2d",
    "tosa.depthwise_conv2d",
    "tynnp.conv2d",
    "tynnp.depthwise_conv2d",
    "tosa.avg_pool2d",
    "tosa.max_pool2d",
    "tynnp.avg_pool2d",
    "tynnp.max_pool2d",
];

/// The primitive ops reading two tensors tile by tile, either of which may be kept in DM.
const ELEMENTWISE: [&str; 2] = ["tynnp.add", "tynnp.sub"];

/// The ops a kernel's output stage may end with, after its root.
const OUTPUT_STAGE: [&str; 2] = ["tosa.clamp", "tosa.rescale"];

/// Whether `name` ends a kernel whose int8 result a window kernel may read: an output stage, a
/// pooling, or a primitive convolution, add or sub (which include their output stage).
fn ends_window_kernel(name: &str) -> bool {
    OUTPUT_STAGE.contains(&name) || WINDOW_ROOTS[2..].contains(&name) || ELEMENTWISE.contains(&name)
}

/// The kernels reading kernel `i`'s output, each with the tiled operand it reads it at, when
/// every use of it is at the root of a later kernel of the function (a window kernel's input, or
/// either operand of a primitive add or sub; once each), no caller reads it (the function's
/// return aside) and it ends a window kernel: it may stay in DM from kernel `i` to the last.
pub fn readers(composites: &[Composite], i: usize) -> Option<Vec<(usize, usize)>> {
    let last = composites[i].last();
    if !ends_window_kernel(&last.name()) || last.read_by_callers() {
        return None;
    }
    let mut readers: Vec<(usize, usize)> = Vec::new();
    for user in last.users().into_iter().filter(|u| u.name() != "func.return") {
        let j = (i + 1..composites.len()).find(|&j| root_of(composites[j].last()).is_some_and(|r| same(&r, &user)))?;
        let kind = user.name();
        if !(WINDOW_ROOTS.contains(&kind.as_str()) || ELEMENTWISE.contains(&kind.as_str())) {
            return None;
        }
        let k = (0..2).find(|&k| user.producer(k).is_some_and(|p| same(&p, last)))?;
        if readers.iter().any(|&(reader, _)| reader == j) {
            return None;
        }
        readers.push((j, k));
    }
    (!readers.is_empty()).then_some(readers)
}

/// The kernel before `j` whose output kernel `j` reads at its tiled operand `k`, if any.
pub fn writer(composites: &[Composite], j: usize, k: usize) -> Option<usize> {
    let input = root_of(composites[j].last())?.producer(k)?;
    (0..j).rev().find(|&i| same(composites[i].last(), &input))
}

/// The root of the kernel whose last op is `last`: back through its output stage.
pub(crate) fn root_of<'c, 'a>(last: &OpView<'c, 'a>) -> Option<OpView<'c, 'a>> {
    let mut op = OpView::new(last.operation());
    while OUTPUT_STAGE.contains(&op.name().as_str()) {
        op = op.producer(0)?;
    }
    Some(op)
}

fn same(a: &OpView, b: &OpView) -> bool {
    a.operation().to_raw().ptr == b.operation().to_raw().ptr
}

/// What one kernel has in DM besides its own regions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Shared {
    /// Its tiled inputs (the input, or `x` and `y`) left in DM by the kernel before.
    pub kept_inputs: [bool; 2],
    /// Its output left in DM for the next kernel.
    pub kept_output: bool,
    /// Its constant record, copied into DM by the kernel before.
    pub preloaded: bool,
    /// The next kernel's record, which it copies into DM, and how many kernels on the kernel is
    /// whose record it copies too (0: none).
    pub prefetch: bool,
    pub far: usize,
    /// It hands its jobs on to the next kernel, which reads its kept output (a token table in
    /// its DM, `split::Split::hands`), and it follows the kernel before, which handed its on:
    /// the two run at once, pipelined tile by tile.
    pub hands: bool,
    pub follows: bool,
}

/// The last kernel reading kernel `p`'s kept output, if it is kept.
pub fn last_reader(kept: &[Option<Vec<(usize, usize)>>], p: usize) -> Option<usize> {
    kept[p].as_ref()?.iter().map(|&(j, _)| j).max()
}

/// The last kernel during which what kernel `i` reads or writes in DM must stay: a kernel
/// handing its jobs on (`hands`) runs on through the next one, and through the one after when
/// the next hands its own on too (the kernel after next waits for it).
pub fn lives_until(hands: &dyn Fn(usize) -> bool, i: usize) -> usize {
    i + usize::from(hands(i)) + usize::from(hands(i) && hands(i + 1))
}

/// Places the schedules' own regions (live while their kernel runs) and the activations and
/// records handed on (live across two kernels) in DM; `Err` when they need more than `dm`, with
/// the kernels while which the placement passes DM's end.
pub fn place(
    schedules: &[Result<Schedule, Error>],
    kept: &[Option<Vec<(usize, usize)>>],
    copier: &[Option<usize>],
    (output, record): (impl Fn(usize) -> i64, impl Fn(usize) -> i64),
    dm: i64,
) -> Result<Vec<Result<Schedule, Error>>, Vec<usize>> {
    let mut buffers = Vec::new();
    // What each buffer is: kernel i's own regions, its kept output or the record it prefetches.
    let mut what = Vec::new();
    let hands = |i: usize| schedules.get(i).is_some_and(|s| s.as_ref().is_ok_and(|s| s.region(TOKENS).is_some()));
    let last = |i: usize| lives_until(&hands, i);
    for (i, schedule) in schedules.iter().enumerate() {
        let Ok(schedule) = schedule else { continue };
        // A kernel with no regions of its own (everything kept, preloaded) takes no room.
        if schedule.own_bytes() > 0 {
            buffers.push(Buffer { size: schedule.own_bytes() as u64, start: i, end: last(i) });
            what.push((i, 0));
        }
        if let Some(reader) = last_reader(kept, i) {
            buffers.push(Buffer { size: output(i) as u64, start: i, end: last(reader) });
            what.push((i, 1));
        }
    }
    // Each record from the kernel copying it to its own.
    for (j, c) in copier.iter().enumerate() {
        if let Some(c) = *c {
            buffers.push(Buffer { size: record(j) as u64, start: c, end: last(j) });
            what.push((j, 2));
        }
    }
    let planned = plan_within(&buffers, 16, dm as u64);
    if planned.size > dm as u64 {
        // The kernels while which something lies past DM's end.
        let mut over: Vec<usize> = Vec::new();
        for (buffer, &offset) in buffers.iter().zip(&planned.offsets) {
            if offset + buffer.size > dm as u64 {
                over.extend(buffer.start..=buffer.end);
            }
        }
        over.sort_unstable();
        over.dedup();
        return Err(over);
    }
    let mut placed: Vec<Result<Schedule, Error>> = schedules.to_vec();
    for (&(i, kind), &offset) in what.iter().zip(&planned.offsets) {
        let at = offset as i64;
        match kind {
            0 => {
                if let Ok(s) = &mut placed[i] {
                    s.dm.iter_mut().for_each(|region| region.1 += at);
                }
            }
            1 => {
                if let Ok(s) = &mut placed[i] {
                    s.kept_output = Some(at);
                }
                for &(j, k) in kept[i].iter().flatten() {
                    if let Some(Ok(s)) = placed.get_mut(j) {
                        s.kept_inputs[k] = Some(at);
                    }
                }
            }
            _ => {
                // `i` is the record's kernel here.
                let c = copier[i].unwrap_or(i);
                if let Ok(s) = &mut placed[c] {
                    if c + 1 == i {
                        s.prefetch = Some(at);
                    } else {
                        s.prefetch_far = Some(at);
                        s.ahead = if i - c == FAR_AHEAD { 0 } else { i - c };
                    }
                }
                if let Ok(s) = &mut placed[i] {
                    s.preloaded = Some(at);
                }
            }
        }
    }
    Ok(placed)
}

/// What a kernel following one that hands its jobs on needs of that one: the DM offset of its
/// token table, its bands a tile (the tokens of a row) and the bytes of its output written
/// through each of its tiles (a row each).
pub struct Handed {
    pub table: i64,
    pub bands: usize,
    pub ends: Vec<i64>,
}

impl Handed {
    /// What `job` running as `schedule` hands on, if it does.
    pub fn of(job: &crate::kernel::jobs::Job, schedule: &Schedule) -> Option<Handed> {
        let (table, _) = schedule.region(TOKENS)?;
        let (output, total) = (*job.bytes.last()?, *schedule.tiles.last()?);
        let ends = schedule.tiles.get(1..)?.iter().map(|bound| bound * output / total.max(1)).collect();
        Some(Handed { table, bands: schedule.bands.max(1), ends })
    }

    /// The DM address of the row of the first tile through which `need` bytes of the output are
    /// written (the last row when `need` is all of it).
    pub fn row(&self, need: i64) -> i64 {
        let tile = self.ends.iter().position(|&end| end >= need).unwrap_or(self.ends.len().saturating_sub(1));
        i64::from(umac_tynnp_device::params::DM_BASE) + self.table + 4 * (tile * self.bands) as i64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_functions_dm_is_placed_by_lifetime() {
        // Three kernels whose own regions end at 100, 200 and 50 bytes (112, 208, 64 aligned);
        // kernel 0 keeps its 64-byte output for kernel 1 (its input 0), kernel 1 prefetches
        // kernel 2's 32-byte record. Largest first: kernel 1's regions at 0, kernel 0's at 0
        // (they never run together), the kept output above kernel 1's at 208, kernel 2's at 0,
        // the record above everything alive with it at 272: 304 bytes, what step 1 holds alone.
        let own = |end: i64| Ok(Schedule { dm: vec![("input".to_string(), 0, end)], ..Schedule::default() });
        let schedules = vec![own(100), own(200), own(50)];
        let (kept, copier) = ([Some(vec![(1, 0)]), None, None], [None, None, Some(1)]);
        let output = |i: usize| [64, 0, 0][i];
        let record = |i: usize| [0, 0, 32][i];
        let placed = place(&schedules, &kept, &copier, (output, record), 304).unwrap();
        let at = |i: usize| placed[i].as_ref().unwrap().clone();
        assert_eq!((at(0).dm[0].1, at(1).dm[0].1, at(2).dm[0].1), (0, 0, 0));
        assert_eq!((at(0).kept_output, at(1).kept_inputs), (Some(208), [Some(208), None]));
        assert_eq!((at(1).prefetch, at(2).preloaded), (Some(272), Some(272)));
        // In 300 bytes they do not fit: the record, alive from kernel 1 to kernel 2, ends at 304.
        assert_eq!(place(&schedules, &kept, &copier, (output, record), 300).err(), Some(vec![1, 2]));
        // A kernel that cannot run takes no room.
        let failed = vec![own(100), Err(Error::Unsupported("no".into())), own(50)];
        let none = [None, None, None];
        let placed = place(&failed, &none, &[None; 3], (output, record), 112).unwrap();
        assert!(placed[1].is_err());
    }

    #[test]
    fn kernels_running_at_once_and_tensors_read_twice_live_longer() {
        // Kernel 0 (own regions 112 bytes, a token table among them) hands its jobs on to kernel
        // 1 (64), so its regions live until kernel 1 ends; its 64-byte output is read by kernels
        // 1 and 2 and lives until kernel 2; it copies kernel 2's 32-byte record, which lives from
        // kernel 0 to kernel 2. At kernel 1 all four are alive: 112 + 64 + 64 + 32 = 272 bytes.
        let with = |regions: &[(&str, i64)]| {
            let mut at = 0;
            let mut dm = Vec::new();
            for (name, bytes) in regions {
                dm.push((name.to_string(), at, *bytes));
                at += bytes;
            }
            Ok(Schedule { dm, ..Schedule::default() })
        };
        let schedules = vec![with(&[("input", 96), (TOKENS, 16)]), with(&[("input", 64)]), with(&[("input", 64)])];
        let kept = [Some(vec![(1, 0), (2, 0)]), None, None];
        let copier = [None, None, Some(0)];
        let output = |i: usize| [64, 0, 0][i];
        let record = |i: usize| [0, 0, 32][i];
        let placed = place(&schedules, &kept, &copier, (output, record), 272).unwrap();
        assert!(place(&schedules, &kept, &copier, (output, record), 271).is_err());
        let at = |i: usize| placed[i].as_ref().unwrap().clone();
        let own = |i: usize| {
            let s = at(i);
            (s.dm.iter().map(|r| r.1).min().unwrap(), s.dm.iter().map(|r| r.1 + r.2).max().unwrap())
        };
        let apart = |a: (i64, i64), b: (i64, i64)| a.1 <= b.0 || b.1 <= a.0;
        // Both readers find the output where kernel 0 leaves it; kernel 2 finds its record where
        // kernel 0 copies it.
        let out = at(0).kept_output.unwrap();
        assert_eq!((at(1).kept_inputs[0], at(2).kept_inputs[0]), (Some(out), Some(out)));
        let far = at(0).prefetch_far.unwrap();
        assert_eq!((at(0).prefetch, at(2).preloaded), (None, Some(far)));
        // Kernel 0's regions are apart from kernel 1's; the output and the record from every
        // kernel's regions and from each other.
        assert!(apart(own(0), own(1)));
        for range in [(out, out + 64), (far, far + 32)] {
            assert!((0..3).all(|i| apart(own(i), range)), "{range:?}");
        }
        assert!(apart((out, out + 64), (far, far + 32)));
    }

    #[test]
    fn three_kernels_run_at_once_when_two_hand_their_jobs_on() {
        // Three kernels of 64 bytes each. Kernel 0 hands its jobs on: kernel 1 runs beside it,
        // kernel 2 may take its place (128 bytes). Kernels 0 and 1 hand theirs on: kernel 2 waits
        // for kernel 0's jobs, which run beside it, so all three are apart (192 bytes).
        let own = |tokens: bool| {
            let dm = if tokens {
                vec![("input".to_string(), 0, 48), (TOKENS.to_string(), 48, 16)]
            } else {
                vec![("input".to_string(), 0, 64)]
            };
            Ok(Schedule { dm, ..Schedule::default() })
        };
        let (none, nothing) = ([None, None, None], [None; 3]);
        let sizes = (|_: usize| 0, |_: usize| 0);
        let one = [own(true), own(false), own(false)];
        assert!(place(&one, &none, &nothing, sizes, 127).is_err());
        assert!(place(&one, &none, &nothing, sizes, 128).is_ok());
        let two = [own(true), own(true), own(false)];
        assert!(place(&two, &none, &nothing, sizes, 191).is_err());
        assert!(place(&two, &none, &nothing, sizes, 192).is_ok());
    }

    #[test]
    fn a_following_tile_depends_on_the_first_tile_writing_what_it_reads() {
        // Tiles writing the output through bytes 16, 32 and 48, two bands each, the table at 100:
        // a row of two tokens (8 bytes) a tile.
        let handed = Handed { table: 100, bands: 2, ends: vec![16, 32, 48] };
        let row = |need: i64| handed.row(need) - i64::from(umac_tynnp_device::params::DM_BASE);
        assert_eq!((row(1), row(16), row(17), row(32), row(48)), (100, 100, 108, 108, 116));
        // All of it, or more: the last row.
        assert_eq!(row(i64::MAX), 116);
    }
}

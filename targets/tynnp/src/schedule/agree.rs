//! Whether the schedules of a function's kernels agree: what one kernel leaves in DM (a kept
//! output, a prefetched record, its jobs still running) is where, and while, the others expect
//! it (`schedule.rs` checks each kernel alone).

use crate::error::TynnpError;
use crate::{
    schedule::resident,
    schedule::{ATTRIBUTE, MAX_AHEAD, Range, Schedule, TOKENS},
};
use umac_backend::{Composite, Error};

/// Checks that the kernels of one function hand on what they keep in DM: a kept output is read
/// by later kernels alone, from the same place, and no kernel between has a range over it
/// (`kept_across`); a kept input was left there by the kernel writing it; a prefetched record
/// goes where the next kernel finds it; a kernel handing its
/// jobs on has the next kernel read its output in place, and no range of either (`ranges`, each
/// kernel's [`Schedule::ranges`]) overlaps one of the other but what the two share. A schedule
/// that fails becomes the error of its composite.
pub fn check_function(
    composites: &[Composite],
    schedules: &mut [Result<Schedule, Error>],
    ranges: &[Option<Vec<Range>>],
) {
    let n = composites.len();
    let mut errors: Vec<(usize, String)> = Vec::new();
    let ok = |s: &Result<Schedule, Error>| s.as_ref().ok().cloned();
    for i in 0..n {
        let Some(this) = ok(&schedules[i]) else { continue };
        // A neighbour that cannot run reports its own error: nothing to agree with.
        let failed = |j: usize| schedules.get(j).is_some_and(Result::is_err);
        if failed(i + 1) || (i > 0 && failed(i - 1)) {
            continue;
        }
        let next = (i + 1 < n).then(|| ok(&schedules[i + 1])).flatten();
        if let Some(at) = this.kept_output {
            errors.extend(kept_across(composites, schedules, ranges, i, at).err().map(|e| (i, e.to_string())));
        }
        for (k, at) in this.kept_inputs.iter().enumerate() {
            let Some(at) = at else { continue };
            let writer = resident::writer(composites, i, k);
            // A writer that cannot run reports its own error.
            if writer.is_some_and(|p| schedules[p].is_err()) {
                continue;
            }
            let left = writer.and_then(|p| ok(&schedules[p])).and_then(|p| p.kept_output) == Some(*at);
            if !left {
                errors.push((i, format!("keeps input {k} at {at}, but the kernel writing it does not leave it there")));
            }
        }
        if let Some(at) = this.prefetch
            && next.as_ref().and_then(|s| s.preloaded) != Some(at)
        {
            errors.push((i, format!("prefetch is {at}, but the next kernel's record is not preloaded there")));
        }
        if let Some(at) = this.prefetch_far {
            let j = i + this.far_ahead();
            let preloaded = j < n && ok(&schedules[j]).and_then(|s| s.preloaded) == Some(at);
            if !preloaded || copiers(schedules, j, at) != 1 {
                let message = format!(
                    "prefetch_far is {at}, but the record of the kernel {} on is not preloaded there alone",
                    this.far_ahead()
                );
                errors.push((i, message));
            } else if let Err(e) = record_across(ranges, (i, j), at) {
                errors.push((i, e.to_string()));
            }
        }
        if let Some(at) = this.preloaded
            && copiers(schedules, i, at) == 0
        {
            errors.push((i, format!("preloaded is {at}, but no kernel before copies the record there")));
        }
        if this.region(TOKENS).is_some() {
            if !next.as_ref().is_some_and(|next| next.in_place().0.contains(&true)) {
                errors.push((
                    i,
                    "dm.tokens hands the jobs on, but the next kernel does not read the output in place".into(),
                ));
                continue;
            }
            // Its jobs may run while the next kernel's are issued, and the one after's too when
            // the next hands its own on: none of those may have a range over this one's but the
            // tensors and records handed on (this kernel's kept output or copied records, at
            // the very place where they read them).
            let next_hands = next.as_ref().is_some_and(|s| s.region(TOKENS).is_some());
            let later = if next_hands { i + 1..i + 3 } else { i + 1..i + 2 };
            for m in later {
                let which = if m == i + 1 { "the next kernel's" } else { "the kernel after next's" };
                if let Some((a, b)) = overlapping(ranges.get(i), ranges.get(m)) {
                    let message = format!(
                        "dm.tokens hands the jobs on, but {a} overlaps {which} {b}, which it may write while they run"
                    );
                    errors.push((i, message));
                }
            }
        }
    }
    for (i, message) in errors {
        if schedules[i].is_ok() {
            schedules[i] = Err(Error::Unsupported(format!("{}: {message}", ATTRIBUTE)));
        }
    }
}

/// The first overlap of a range of a kernel whose jobs still run (`mine`) with one of a later
/// kernel's (`theirs`), as text, but a tensor or record handed on from the one to the other or
/// read by both (the same place and size: its kept output, a copied record or a kept input, the
/// later one's kept input or preloaded record).
fn overlapping(mine: Option<&Option<Vec<Range>>>, theirs: Option<&Option<Vec<Range>>>) -> Option<(String, String)> {
    let (Some(Some(mine)), Some(Some(theirs))) = (mine, theirs) else { return None };
    let handed_on = ["kept.output", "prefetch", "prefetch_far"];
    let received = |name: &str| (name.starts_with("kept.") && name != "kept.output") || name == "preloaded";
    for (a, a_at, a_bytes) in mine {
        for (b, b_at, b_bytes) in theirs {
            let same =
                (handed_on.contains(&a.as_str()) || received(a)) && received(b) && (a_at, a_bytes) == (b_at, b_bytes);
            if !same && a_at < &(b_at + b_bytes) && b_at < &(a_at + a_bytes) {
                return Some((
                    format!("{a} [{a_at}, {})", a_at + a_bytes),
                    format!("{b} [{b_at}, {})", b_at + b_bytes),
                ));
            }
        }
    }
    None
}

/// How many kernels before kernel `j` copy a record to `at` for it: the kernel before
/// (`prefetch`), or one further back (`prefetch_far`, that many kernels back).
fn copiers(schedules: &[Result<Schedule, Error>], j: usize, at: i64) -> usize {
    (j.saturating_sub(MAX_AHEAD)..j)
        .filter(|&c| {
            schedules[c].as_ref().is_ok_and(|s| {
                (c + 1 == j && s.prefetch == Some(at)) || (c + s.far_ahead() == j && s.prefetch_far == Some(at))
            })
        })
        .count()
}

/// Checks the record kernel `c` copies to `at` for kernel `j` further ahead: no kernel between
/// has a range in DM over it, for it lives from the copy to its kernel.
fn record_across(ranges: &[Option<Vec<Range>>], (c, j): (usize, usize), at: i64) -> Result<(), TynnpError> {
    let bytes = ranges[c].iter().flatten().find(|r| r.0 == "prefetch_far").map_or(0, |r| r.2);
    for (m, between) in ranges.iter().enumerate().take(j).skip(c + 1) {
        for (name, start, length) in between.iter().flatten() {
            if *start < at + bytes && at < start + length {
                return Err(TynnpError::Schedule(format!(
                    "prefetch_far [{at}, {}) lives until kernel {j} of the function, but kernel {m}'s {name} [{start}, {}) \
                     lies over it",
                    at + bytes,
                    start + length
                )));
            }
        }
    }
    Ok(())
}

/// Checks kernel `i`'s output kept in DM at `at`: every kernel reading it (`resident::readers`)
/// reads it from there, and no kernel between it and the last of them has a range in DM over it
/// (the readers' own ranges are apart from what they read, `Schedule::check`).
fn kept_across(
    composites: &[Composite],
    schedules: &[Result<Schedule, Error>],
    ranges: &[Option<Vec<Range>>],
    i: usize,
    at: i64,
) -> Result<(), TynnpError> {
    let readers = resident::readers(composites, i).ok_or_else(|| {
        TynnpError::Schedule(format!("kept.output is {at}, but no later kernel of the function alone reads it"))
    })?;
    let bytes = ranges[i].iter().flatten().find(|r| r.0 == "kept.output").map_or(0, |r| r.2);
    let last = readers.iter().map(|r| r.0).max().unwrap_or(i);
    for &(j, k) in &readers {
        if let Ok(reader) = &schedules[j]
            && reader.kept_inputs[k] != Some(at)
        {
            let which = if j == i + 1 { "the next kernel".to_string() } else { format!("kernel {j} of the function") };
            return Err(TynnpError::Schedule(format!("kept.output is {at}, but {which} does not read it from there")));
        }
    }
    let this_tensor = |r: &&Range| r.0.starts_with("kept.") && r.0 != "kept.output" && r.1 == at;
    for (m, between) in ranges.iter().enumerate().take(last).skip(i + 1) {
        for (name, start, length) in between.iter().flatten().filter(|r| !this_tensor(r)) {
            if *start < at + bytes && at < start + length {
                return Err(TynnpError::Schedule(format!(
                    "kept.output [{at}, {}) lives until kernel {last} of the function, but kernel {m}'s {name} [{start}, {}) \
                     lies over it",
                    at + bytes,
                    start + length
                )));
            }
        }
    }
    Ok(())
}

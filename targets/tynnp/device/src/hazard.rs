//! Happens-before between jobs and the CU (vector clocks), and the shadow memory that finds
//! accesses it does not order (targets/tynnp/docs/isa.md, section 4).
//!
//! Every unit's jobs complete in issue order, so knowing a unit's job `s` means knowing all its
//! jobs before `s`: a clock is one sequence number per unit. Jobs are executed functionally at
//! issue (every happens-before edge points to an earlier-issued job, so for a hazard-free program
//! issue order gives the same bytes); their ranges stay in the shadow, against which later jobs
//! and every CU load and store are checked. CU accesses need no records of their own: every job
//! issued after a CU access knows it.

use std::collections::BTreeMap;

/// What an agent knows has completed: per unit, the highest sequence number (0: none).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Clock(pub Vec<u32>);

impl Clock {
    /// A clock knowing nothing, for `units` units.
    pub fn new(units: usize) -> Clock {
        Clock(vec![0; units])
    }
    /// Adds what `other` knows.
    pub fn join(&mut self, other: &Clock) {
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a = (*a).max(*b);
        }
    }
    /// Adds job `seq` of `unit` itself.
    pub fn learn(&mut self, unit: usize, seq: u32) {
        self.0[unit] = self.0[unit].max(seq);
    }
    /// Tells whether job `seq` of `unit` happened before the clock's owner.
    pub fn knows(&self, unit: usize, seq: u32) -> bool {
        self.0[unit] >= seq
    }
}

/// A job as the shadow records it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Agent {
    /// Index into the engine's job list.
    pub job: usize,
    /// Its unit.
    pub unit: usize,
    /// Its sequence number on the unit.
    pub seq: u32,
}

#[derive(Clone, Debug)]
struct Segment {
    end: u64,
    writer: Option<Agent>,
    /// The last reader per unit since the last write.
    readers: Vec<Option<Agent>>,
}

/// A conflict the clocks do not order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Conflict {
    /// read-after-write, write-after-read or write-after-write.
    pub kind: &'static str,
    /// The earlier access.
    pub other: Agent,
    /// The bytes.
    pub start: u32,
    /// One past the last byte.
    pub end: u64,
}

/// Ranges jobs have read and written.
#[derive(Clone, Debug, Default)]
pub struct Shadow {
    segments: BTreeMap<u32, Segment>,
    units: usize,
}

impl Shadow {
    /// An empty shadow for `units` units.
    pub fn new(units: usize) -> Shadow {
        Shadow { segments: BTreeMap::new(), units }
    }

    /// Tells whether no job has touched anything yet (CU-only programs skip every check).
    pub fn is_empty(&self) -> bool {
        self.segments.is_empty()
    }

    /// Splits segments so that `at` starts one (if a segment spans it).
    fn split(&mut self, at: u32) {
        let Some((&start, segment)) = self.segments.range(..at).next_back() else { return };
        if segment.end > u64::from(at) {
            let tail = segment.clone();
            self.segments.get_mut(&start).expect("found above").end = u64::from(at);
            self.segments.insert(at, tail);
        }
    }

    /// The segments covering `[start, end)`, created where there are none.
    fn cover(&mut self, start: u32, len: u32) -> Vec<u32> {
        if len == 0 {
            return Vec::new();
        }
        let end = u64::from(start) + u64::from(len);
        self.split(start);
        if end <= u64::from(u32::MAX) {
            self.split(end as u32);
        }
        let mut keys = Vec::new();
        let mut at = u64::from(start);
        let existing: Vec<(u32, u64)> = self
            .segments
            .range(start..)
            .take_while(|(s, _)| u64::from(**s) < end)
            .map(|(&s, seg)| (s, seg.end))
            .collect();
        for (s, e) in existing {
            if u64::from(s) > at {
                self.segments
                    .insert(at as u32, Segment { end: u64::from(s), writer: None, readers: vec![None; self.units] });
                keys.push(at as u32);
            }
            keys.push(s);
            at = e;
        }
        if at < end {
            self.segments.insert(at as u32, Segment { end, writer: None, readers: vec![None; self.units] });
            keys.push(at as u32);
        }
        keys
    }

    /// Checks a read of `[start, start + len)` by an agent knowing `clock`; `me` excludes the
    /// agent's own earlier records. Returns the first unordered write.
    pub fn check_read(&self, start: u32, len: u32, clock: &Clock, me: Option<usize>) -> Option<Conflict> {
        self.overlapping(start, len).find_map(|(s, seg)| {
            let w = seg.writer?;
            (Some(w.job) != me && !clock.knows(w.unit, w.seq)).then_some(Conflict {
                kind: "read-after-write",
                other: w,
                start: s.max(start),
                end: seg.end.min(u64::from(start) + u64::from(len)),
            })
        })
    }

    /// Checks a write: the last write and every read since must be ordered before it.
    pub fn check_write(&self, start: u32, len: u32, clock: &Clock, me: Option<usize>) -> Option<Conflict> {
        self.overlapping(start, len).find_map(|(s, seg)| {
            let range = (s.max(start), seg.end.min(u64::from(start) + u64::from(len)));
            if let Some(w) = seg.writer
                && Some(w.job) != me
                && !clock.knows(w.unit, w.seq)
            {
                return Some(Conflict { kind: "write-after-write", other: w, start: range.0, end: range.1 });
            }
            seg.readers.iter().flatten().find(|r| Some(r.job) != me && !clock.knows(r.unit, r.seq)).map(|r| Conflict {
                kind: "write-after-read",
                other: *r,
                start: range.0,
                end: range.1,
            })
        })
    }

    fn overlapping(&self, start: u32, len: u32) -> impl Iterator<Item = (u32, &Segment)> {
        let end = u64::from(start) + u64::from(len);
        let first = self.segments.range(..=start).next_back().map(|(&s, _)| s).unwrap_or(start);
        self.segments
            .range(first..)
            .take_while(move |(s, _)| u64::from(**s) < end)
            .filter(move |(_, seg)| seg.end > u64::from(start) && len > 0)
            .map(|(&s, seg)| (s, seg))
    }

    /// Records a job's read.
    pub fn record_read(&mut self, start: u32, len: u32, agent: Agent) {
        for key in self.cover(start, len) {
            self.segments.get_mut(&key).expect("covered").readers[agent.unit] = Some(agent);
        }
    }

    /// Records a job's write (earlier reads no longer matter: the write was ordered after them).
    pub fn record_write(&mut self, start: u32, len: u32, agent: Agent) {
        let units = self.units;
        for key in self.cover(start, len) {
            let segment = self.segments.get_mut(&key).expect("covered");
            segment.writer = Some(agent);
            segment.readers = vec![None; units];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn agent(job: usize, unit: usize, seq: u32) -> Agent {
        Agent { job, unit, seq }
    }

    #[test]
    fn clocks_join_and_know() {
        let mut a = Clock::new(3);
        a.learn(1, 4);
        let mut b = Clock::new(3);
        b.learn(0, 2);
        b.learn(1, 1);
        a.join(&b);
        assert_eq!(a, Clock(vec![2, 4, 0]));
        assert!(a.knows(1, 3) && a.knows(0, 2) && !a.knows(0, 3) && !a.knows(2, 1));
    }

    #[test]
    fn unordered_accesses_conflict_and_ordered_ones_do_not() {
        let mut shadow = Shadow::new(2);
        let dma = agent(0, 0, 1);
        shadow.record_write(100, 50, dma);
        let blind = Clock::new(2);
        let mut after_dma = Clock::new(2);
        after_dma.learn(0, 1);
        // A read of [120, 130) by someone who did not wait for the DMA.
        let c = shadow.check_read(120, 10, &blind, None).unwrap();
        assert_eq!((c.kind, c.other, c.start, c.end), ("read-after-write", dma, 120, 130));
        assert_eq!(shadow.check_read(120, 10, &after_dma, None), None);
        // Outside the written bytes nothing conflicts.
        assert_eq!(shadow.check_read(150, 10, &blind, None), None);
        assert_eq!(shadow.check_read(90, 10, &blind, None), None);
        // A partial overlap reports the overlapping bytes.
        let c = shadow.check_read(140, 20, &blind, None).unwrap();
        assert_eq!((c.start, c.end), (140, 150));
        // The NU reads [100, 110) after the DMA; then a second DMA job that does not know the NU
        // read overwrites [105, 106): write-after-read.
        let nu = agent(1, 1, 1);
        shadow.record_read(100, 10, nu);
        let mut second = Clock::new(2);
        second.learn(0, 1);
        let c = shadow.check_write(105, 1, &second, Some(2)).unwrap();
        assert_eq!((c.kind, c.other, c.start, c.end), ("write-after-read", nu, 105, 106));
        second.learn(1, 1);
        assert_eq!(shadow.check_write(105, 1, &second, Some(2)), None);
        // A write by someone who knows neither: write-after-write with the DMA first.
        assert_eq!(shadow.check_write(100, 1, &blind, None).unwrap().kind, "write-after-write");
        // A job's own records never conflict with it.
        assert_eq!(shadow.check_write(100, 10, &blind, Some(0)).map(|c| c.kind), Some("write-after-read"));
        assert_eq!(shadow.check_write(110, 10, &blind, Some(0)), None);
    }

    #[test]
    fn a_write_clears_the_readers_it_was_ordered_after() {
        let mut shadow = Shadow::new(2);
        shadow.record_read(0, 16, agent(0, 0, 1));
        let w = agent(1, 1, 1);
        shadow.record_write(4, 4, w);
        let mut knows_w = Clock::new(2);
        knows_w.learn(1, 1);
        // [4, 8): only the write remains; [0, 4) and [8, 16) keep the read.
        assert_eq!(shadow.check_write(4, 4, &knows_w, None), None);
        assert_eq!(shadow.check_write(0, 4, &knows_w, None).unwrap().kind, "write-after-read");
        assert_eq!(shadow.check_write(8, 8, &knows_w, None).unwrap().kind, "write-after-read");
    }
}

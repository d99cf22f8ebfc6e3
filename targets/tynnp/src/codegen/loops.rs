//! The loops of a kernel over its tiles (`scf.for`, as many as the call's `tile_count`): the
//! tile table the loop indexes (the values that differ between tiles, row by row, a constant
//! the call passes), and the tiles of a job
//! on the NU and of one in bands on the vector units, double-buffered through the tokens the
//! loop carries. `kernel.rs` has what every kernel does around them.

use crate::{
    codegen::body::{Body, Row},
    codegen::double_buffer::{BUFFERS, DRAIN, REUSE},
    kernel::code::{DM_TOKENS, Field, IN_DM_Y, JobCode, OUT_CHANNEL, TILE_COPIES, TILES},
    kernel::split::Split,
};
use umac_backend::{Attr, Cmp, Ty, Value};

impl JobCode {
    /// The kernel's tile table: its tiles' values ([`JobCode::tile_row`]) row by row, a constant
    /// the call passes (`tiles`), which the loop over the tiles indexes; returns it (an
    /// `!llvm.ptr`). (Specialized for a call, the table is a constant of the function: once LLVM
    /// unrolls the loop, its loads fold away.)
    pub(crate) fn tile_table(&self, b: &mut Body) -> Value {
        let address = b.address(TILES);
        b.b.inttoptr(address)
    }

    /// The tiles of a tiled job, in order on its unit, as a loop over the tile table, written
    /// single-buffered: tile t's input rows are copied in on channel 0 after the job of the tile
    /// before (the last to read that input buffer), the job runs after that copy and after the
    /// copy out of the tile before (the last to read its output buffer), and its output rows are
    /// copied out on channel 1 after it. The loop carries those two tokens (nothing and the
    /// constants' copy before the first tile) and, for a kernel following one that handed its
    /// jobs on or copying the next kernels' records during its tiles, whether the copy out's is
    /// still the constants' copy (no buffer reused yet). Double-buffered (the tile table rotates
    /// the buffers), the loop is marked for `umac-double-buffer-tynnp`, which carries those two
    /// or three values two tiles back: the copies of one tile then overlap the job of the one
    /// before. The records are copied where channel 0 would idle (below). The buffers other than the input are copied once, first; the CU waits for the
    /// last copy out (channel 1 completes in order). An input read in place (`_rx`) is not
    /// copied in: the job waits for nothing but the output side; an output written in place
    /// (`_wo`) is not copied out: the job stands for its copy out (a later job on the unit
    /// follows it anyway) and the CU waits for the last job.
    pub(crate) fn tiles(&self, b: &mut Body, d: Value, split: Split) {
        let [zero, weights, input, output] = self.tile_preamble(b, d, split);
        // An im2col convolution stages its whole input in DM first, on channel 0.
        let staged = self.im2col.then(|| {
            let (stage, bytes) = (b.arg("dm_stage"), b.arg("stage_bytes"));
            b.copy(d, zero, input, stage, bytes, zero)
        });
        let out_channel = b.arg(OUT_CHANNEL);
        let (k, funct3, funct7, unit) = self.insn;
        let unit = b.constant(unit);
        // The next kernels' records are copied on channel 0 where it would idle: first, when
        // nothing is copied in; else just before the first copy in that waits for a job (a
        // buffer's reuse), which waits on the channel until that job completes; after the
        // last copy in when none does (too few tiles).
        let copies_in = !split.reads_kept[0] && !self.copies_nothing(split);
        let early = (!copies_in).then(|| self.prefetch(b, d, split, zero));
        let prefetches = usize::from(split.prefetch) + usize::from(split.prefetch_far);
        let within = if copies_in { prefetches } else { 0 };
        let table = self.tile_table(b);
        // Whether the carried copy out's token is still the constants' copy (a buffer is not
        // reused yet), when a kernel before's tokens or the records' copy need it.
        let fresh = (split.follows > 0 || within > 0).then(|| b.constant(1));
        // Then whether the records were copied yet, and their copies' tokens.
        let pending: Vec<Value> = if within > 0 { vec![zero; 1 + within] } else { Vec::new() };
        let reuse: Vec<Value> = [zero, weights].into_iter().chain(fresh).collect();
        // Where the records' state starts among the carried values (after the reuse values).
        let at = reuse.len();
        let marks = Self::double_buffered(split, &(0..at as i64).collect::<Vec<_>>());
        let tile = |b: &mut Body, t: Value, carried: &[Value]| {
            let (job_before, out_before, fresh) = (carried[0], carried[1], carried[2..at].first().copied());
            let records = match fresh.filter(|_| within > 0) {
                Some(fresh) => {
                    let not_yet = b.b.cmpi(Cmp::Eq, carried[at], zero);
                    let reusing = b.b.cmpi(Cmp::Eq, fresh, zero);
                    let now = b.b.andi(not_yet, reusing);
                    let copy = |b: &mut Body| {
                        let one = b.constant(1);
                        [one].into_iter().chain(self.prefetch(b, d, split, zero).into_iter().flatten()).collect()
                    };
                    b.if_else(now, copy, &carried[at..], &[])
                }
                None => Vec::new(),
            };
            let row = Row::load(b, (table, t), self, split);
            let buffer = row.field(&Field::Dm("input"), 0);
            let loaded = if split.reads_kept[0] {
                // Read where the kernel before left it: nothing to copy or wait for.
                zero
            } else if let Some(staged) = staged {
                b.im2col(d, [job_before, staged], buffer, &row, split)
            } else {
                let src = b.b.addi(input, row.field(&TILE_COPIES[0], 0));
                if self.folded {
                    b.gather(d, job_before, src, buffer, &row, split)
                } else {
                    b.copy(d, job_before, src, buffer, row.field(&TILE_COPIES[1], 0), zero)
                }
            };
            // The first jobs wait for the constants too (later ones follow them on the unit).
            let deps = self.after_kernel_before(b, split, &row, [loaded, out_before], [zero, weights], fresh);
            let words = self.descriptor_words(b, deps, &row, 0);
            let job = b.issue((k, funct3, funct7), d, unit, &words);
            if split.hands {
                let tokens = b.arg(DM_TOKENS);
                b.store_token_at(tokens, t, job);
            }
            let out = if split.writes_kept {
                // Written where the next kernel reads it: the job is the last thing to wait for.
                job
            } else {
                let dst = b.b.addi(output, row.field(&TILE_COPIES[2], 0));
                let from = row.field(&Field::Dm("output"), 0);
                b.copy(d, job, from, dst, row.field(&TILE_COPIES[3], 0), out_channel)
            };
            let yields: Vec<Value> = [job, out].into_iter().chain(fresh.map(|_| zero)).collect();
            [yields, records].concat()
        };
        let marks: Vec<(&str, Attr)> = marks.iter().map(|(name, value)| (*name, value.attr())).collect();
        let last = b.for_tiles(&[reuse, pending].concat(), &marks, tile);
        let next = match early {
            Some(early) => early,
            None if within == 0 => [None, None],
            None => {
                // Copied after the loop when no copy in waited for a job.
                let not_yet = b.b.cmpi(Cmp::Eq, last[at], zero);
                let copy = |b: &mut Body| self.prefetch(b, d, split, zero).into_iter().flatten().collect();
                let mut tokens = b.if_else(not_yet, copy, &last[at + 1..], &[]).into_iter();
                [split.prefetch.then(|| tokens.next()), split.prefetch_far.then(|| tokens.next())].map(Option::flatten)
            }
        };
        if !split.hands {
            b.wait(last[1]);
        }
        self.finish(b, split, next);
    }

    /// The markers of a loop `umac-double-buffer-tynnp` double-buffers (none single-buffered):
    /// two buffers, and the iteration arguments `reuse` a tile waits for to reuse one.
    fn double_buffered(split: Split, reuse: &[i64]) -> Vec<(&'static str, Mark)> {
        match (split.single, reuse.is_empty()) {
            (true, _) => Vec::new(),
            (false, true) => vec![(BUFFERS, Mark::Buffers(2))],
            (false, false) => vec![(BUFFERS, Mark::Buffers(2)), (REUSE, Mark::Reuse(reuse.to_vec()))],
        }
    }

    /// The tiles of a tiled job on the vector units, each split into `split.units` bands (band
    /// `u` of tile `t` on unit `u`), as a loop over the tile table, written single-buffered: the
    /// CU drains the tile before (waits for its bands, then copies their output out: a copy has
    /// two dependencies at most, so the CU orders it), copies tile t's inputs (rows, or elements
    /// of both operands) in, and issues its bands after that copy and after the drain's copy
    /// out. The loop carries the tile before's bands' tokens and where its output goes, the last
    /// copy out (the constants' copy before the first tile) and, for a kernel following one that
    /// handed its jobs on, whether that is still the constants' copy. Double-buffered (the tile
    /// table rotates the buffers: tile t's go in buffers `t % 2`), the drain is marked for
    /// `umac-double-buffer-tynnp`, which moves it after the bands: tile t's copy in then
    /// overlaps the bands of tile t - 1, and its bands follow the copy out two tiles back.
    /// Inputs read in place (`_rx`, `_ry`) are not copied in; with the output written in place
    /// (`_wo`) the CU still waits for each tile's bands (its input buffers are then free again)
    /// but copies nothing out, and a tile's bands follow the last band two tiles back.
    pub(crate) fn unit_tiles(&self, b: &mut Body, d: Value, split: Split) {
        let units = split.units;
        let [zero, weights, input, output] = self.tile_preamble(b, d, split);
        let out_channel = b.arg(OUT_CHANNEL);
        let (k, funct3, funct7, _) = self.insn;
        let early = self.copies_nothing(split).then(|| self.prefetch(b, d, split, zero));
        // The CU waits for a tile's bands (so its buffers are free again), then copies its output
        // out, unless the bands wrote it in place for the next kernel.
        // Nothing to free when every input is read in place and the output written in place: the
        // CU waits only for the last tile's bands (each unit runs its bands in order), and not
        // even for those when the kernel hands its jobs on.
        let buffered = !self.reads_all_in_place(split);
        // `place`: the tile's output buffer, where its rows go and their bytes.
        let copy_out = |b: &mut Body, last: bool, tokens: &[Value], place: &[Value]| {
            if buffered || !split.writes_kept || (last && !split.hands) {
                for token in tokens {
                    b.wait(*token);
                }
            }
            if split.writes_kept {
                return tokens[tokens.len() - 1];
            }
            let dst = b.b.addi(output, place[1]);
            b.copy(d, zero, place[0], dst, place[2], out_channel)
        };
        let mut sources = vec![input];
        for name in &self.tile_inputs()[1..] {
            let ddr = b.address(name);
            let kept = b.arg(IN_DM_Y);
            sources.push(b.in_dm_or(kept, ddr, zero));
        }
        let table = self.tile_table(b);
        let units_constant = b.constant(units as i64);
        let one = b.constant(1);
        // Carried: the tile before's bands' tokens, its output's place, the last copy out, and
        // whether that is still the constants' copy.
        let fresh = (split.follows > 0).then_some(one);
        let inits: Vec<Value> = [vec![zero; units + 3], vec![weights]].concat().into_iter().chain(fresh).collect();
        let marks = Self::double_buffered(split, &[]);
        let marks: Vec<(&str, Attr)> = marks.iter().map(|(name, value)| (*name, value.attr())).collect();
        let tile = |b: &mut Body, t: Value, carried: &[Value]| {
            let (before, place_before, last) = (&carried[..units], &carried[units..units + 3], &carried[units + 3..]);
            let after_first = b.b.cmpi(Cmp::Uge, t, one);
            let drain = |b: &mut Body| {
                let out = copy_out(b, false, before, place_before);
                [out].into_iter().chain(last.get(1).map(|_| zero)).collect()
            };
            let drain_mark: &[(&str, Attr)] = if split.single { &[] } else { &[(DRAIN, Attr::Unit)] };
            let drained = b.if_else(after_first, drain, last, drain_mark);
            let row = Row::load(b, (table, t), self, split);
            let mut loaded = zero;
            // An input kept in DM by the kernel before is read there in place.
            let copied = self.tile_inputs().into_iter().zip(&sources).zip(split.reads_kept).filter(|(_, kept)| !kept);
            for ((name, source), _) in copied {
                let src = b.b.addi(*source, row.field(&TILE_COPIES[0], 0));
                let buffer = row.field(&Field::Dm(name), 0);
                loaded = b.copy(d, zero, src, buffer, row.field(&TILE_COPIES[1], 0), zero);
            }
            // The first bands wait for the constants too (later ones follow them on their unit).
            let deps = self.after_kernel_before(
                b,
                split,
                &row,
                [loaded, drained[0]],
                [zero, weights],
                drained.get(1).copied(),
            );
            let mut issued = Vec::new();
            let first_band = b.b.muli(t, units_constant);
            for u in 0..units {
                let words = self.descriptor_words(b, deps, &row, u);
                let unit = b.constant(u as i64);
                let job = b.issue((k, funct3, funct7), d, unit, &words);
                if split.hands {
                    let offset = b.constant(u as i64);
                    let band = b.b.addi(first_band, offset);
                    let tokens = b.arg(DM_TOKENS);
                    b.store_token_at(tokens, band, job);
                }
                issued.push(job);
            }
            let place = [Field::Dm("output"), TILE_COPIES[2], TILE_COPIES[3]].map(|f| row.field(&f, 0));
            [&issued[..], &place[..], &drained[..]].concat()
        };
        let after = b.for_tiles(&inits, &marks, tile);
        let next = early.unwrap_or_else(|| self.prefetch(b, d, split, zero));
        let last = copy_out(b, true, &after[..units], &after[units..units + 3]);
        if !split.hands {
            b.wait(last);
        }
        self.finish(b, split, next);
    }
}

/// A marker of a loop for `umac-double-buffer-tynnp`.
enum Mark {
    /// The buffers each tile's copies rotate through.
    Buffers(i64),
    /// The iteration arguments a tile waits for to reuse a buffer.
    Reuse(Vec<i64>),
}

impl Mark {
    fn attr(&self) -> Attr<'_> {
        match self {
            Mark::Buffers(count) => Attr::Int(Ty::I64, *count),
            Mark::Reuse(arguments) => Attr::I64Array(arguments),
        }
    }
}

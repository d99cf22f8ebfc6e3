//! The control unit's code for one job, as MLIR (func, arith and the llvm dialect): the job's
//! constants copied into DM in one DMA on the output channel (1, or 0 when there is one) while
//! its first tile comes in on channel 0, then the tiles, in a loop (`loops.rs`): each tile's
//! input copied into DM on channel 0, the job issued after that copy, its result copied back on the output channel after
//! it, and a wait for the last copy (an input kept in DM by the kernel before is read there in
//! place and an output kept for the next kernel written there in place: neither is copied, and
//! the kernel then waits for its last job). Descriptors are written word by
//! word into a stack buffer (the stack is in DMEM, where descriptors may live) by the NPU
//! instructions of targets/tynnp/docs/isa.md as `tynnp` ops (`instructions.rs`), which
//! `umac-convert-tynnp-to-llvm` lowers to the stores and `llvm.inline_asm has_side_effects` with
//! a memory clobber, so LLVM neither drops, merges nor reorders them across the stores.

use crate::{
    codegen::body::{Body, Row},
    codegen::specialize::TILE_ARGUMENTS,
    kernel::{
        code::{
            AFTER, AFTER_END, AFTER_END_TWO, AFTER_FAR, AFTER_WEIGHTS, COPY_WORDS, DM_FAR, DM_NEXT, DM_TOKENS,
            FAR_BYTES, FAR_WEIGHTS, IN_DM, JobCode, NEXT_BYTES, NEXT_WEIGHTS, OUT_CHANNEL, OUT_DM, TILE_COUNT, TILES,
            WEIGHTS_BYTES,
        },
        split::Split,
    },
    schedule::copy_token,
    target::NAME,
};
use umac_backend::{Attr, Builder, Cmp, Error, Ty, Value, kernel_attribute};

impl JobCode {
    /// The descriptor of the tile's band `band` (its banded fields from the tile's `row`) after
    /// `deps`.
    pub(crate) fn descriptor_words(&self, b: &mut Body, deps: [Value; 2], row: &Row, band: usize) -> Vec<Value> {
        let mut words = deps.to_vec();
        for field in &self.descriptor() {
            words.push(match self.field_source(field, band) {
                Ok(_) if self.banded.contains(field) => row.field(field, band),
                Ok(argument) => b.arg(&argument),
                Err(value) => b.constant(value),
            });
        }
        words
    }

    /// What both kinds of tiled jobs start with: the packed constants copied into DM on the
    /// output channel, idle until the first tile's copy out, so their DDR latency overlaps the
    /// first tile's copy in on channel 0. Returns the constant 0, the token of the constants'
    /// copy (0 without constants: what the first tile's job waits for besides its input), and
    /// the input's and output's addresses.
    pub(crate) fn tile_preamble(&self, b: &mut Body, d: Value, split: Split) -> [Value; 4] {
        let zero = b.constant(0);
        let weights = match self.packed.first().filter(|_| self.copies_weights(split)) {
            Some(first) => {
                let src = b.address("weights");
                let (dst, bytes, channel) = (b.arg(&format!("dm_{first}")), b.arg(WEIGHTS_BYTES), b.arg(OUT_CHANNEL));
                b.copy(d, zero, src, dst, bytes, channel)
            }
            // Copied by the kernel before, which handed its copy on when it handed its jobs on.
            None if split.preloaded && split.follows > 0 => {
                let table = b.arg(AFTER_WEIGHTS);
                b.load_token(table, 0)
            }
            None => zero,
        };
        let input = b.address(self.tile_inputs()[0]);
        let output = b.address("output");
        let (in_dm, out_dm) = (b.arg(IN_DM), b.arg(OUT_DM));
        let input = b.in_dm_or(in_dm, input, zero);
        let output = b.in_dm_or(out_dm, output, zero);
        [zero, weights, input, output]
    }

    /// The end of a kernel: the next kernel's record's copy waited for (or, when the kernel
    /// hands its jobs on, its token stored after the table's rows: the next kernel's first jobs
    /// depend on it), then the kernel before's jobs when it follows one.
    pub(crate) fn finish(&self, b: &mut Body, split: Split, [next, far]: [Option<Value>; 2]) {
        // The word of the token table after the jobs' (a token a band of each tile) holding the
        // copy `ahead` kernels on.
        let word = |b: &mut Body, ahead: usize| {
            let tiles = b.arg(TILE_COUNT);
            let bands = b.constant(split.units.max(1) as i64);
            let jobs = b.b.muli(tiles, bands);
            let after = b.constant(copy_token(0, ahead) as i64);
            b.b.addi(jobs, after)
        };
        // The next kernel's record's copy: this kernel's, or the kernel before's (relayed).
        let relayed = split.relays.then(|| {
            let table = b.arg(AFTER_FAR);
            b.load_token(table, 0)
        });
        for token in [next, relayed].into_iter().flatten() {
            if split.hands {
                let (tokens, at) = (b.arg(DM_TOKENS), word(b, 1));
                b.store_token_at(tokens, at, token);
            } else {
                b.wait(token);
            }
        }
        if let Some(far) = far {
            let (tokens, at) = (b.arg(DM_TOKENS), word(b, 2));
            b.store_token_at(tokens, at, far);
        }
        self.wait_kernel_before(b, split);
    }

    /// The dependencies of a tile's jobs (the tile's `row`): `deps`, and when `split` follows a
    /// kernel that handed its jobs on, the tokens of the row of its table the tile follows: in
    /// the first slot when it is `zero` (the input read in place), then in the second while it
    /// holds the constants' copy `weights` (`fresh`, an i32 value, is not 0 then: the first
    /// tiles; the CU waits for that copy, long under way, unless there is none); the CU waits
    /// for the others before the jobs issue.
    pub(crate) fn after_kernel_before(
        &self,
        b: &mut Body,
        split: Split,
        row: &Row,
        deps: [Value; 2],
        [zero, weights]: [Value; 2],
        fresh: Option<Value>,
    ) -> [Value; 2] {
        let [mut first, mut second] = deps;
        let mut first_free = first == zero;
        let mut second_free = true;
        for u in 0..split.follows {
            let token = b.load_token(row.get(&format!("{AFTER}_t0")), u);
            if first_free {
                first = token;
                first_free = false;
            } else if second_free {
                // The first tiles' second slot holds the constants' copy, later ones' the copy
                // out a buffer's reuse back, which the jobs must follow.
                second_free = false;
                let fresh =
                    fresh.expect("a kernel following another carries whether its slot holds the constants' copy");
                let early = b.b.cmpi(Cmp::Ne, fresh, zero);
                let late = b.b.cmpi(Cmp::Eq, fresh, zero);
                if weights != zero {
                    let held = second;
                    b.when(early, |b| b.wait(held));
                }
                b.when(late, |b| b.wait(token));
                second = b.b.select(early, token, second);
            } else {
                b.wait(token);
            }
        }
        [first, second]
    }

    /// The CU waits for the last jobs of the kernel before when this kernel follows it and
    /// hands nothing on (else the kernel after waits for them), and for those of the kernel two
    /// back when the kernel before followed that one (the last rows of their tables): they
    /// happen before this kernel returns, so the kernels after may reuse their DM.
    fn wait_kernel_before(&self, b: &mut Body, split: Split) {
        let before = if split.hands { 0 } else { split.follows };
        let rows = [(AFTER_END, before), (AFTER_END_TWO, split.waits_two)];
        for (row, bands) in rows {
            for u in 0..bands {
                let table = b.arg(row);
                let token = b.load_token(table, u);
                b.wait(token);
            }
        }
    }

    /// When `split` prefetches: the next kernel's constants copied into DM on channel 0, after
    /// this kernel's last copy in (its channel is idle while the last tiles run), or first when
    /// it copies nothing else, then those of the kernel after next when it copies them too;
    /// returns the copies' tokens.
    pub(crate) fn prefetch(&self, b: &mut Body, d: Value, split: Split, zero: Value) -> [Option<Value>; 2] {
        let mut copy = |on: bool, [buffer, dm, bytes]: [&str; 3]| {
            on.then(|| {
                let src = b.address(buffer);
                let (dst, bytes) = (b.arg(dm), b.arg(bytes));
                b.copy(d, zero, src, dst, bytes, zero)
            })
        };
        let next = copy(split.prefetch, [NEXT_WEIGHTS, DM_NEXT, NEXT_BYTES]);
        [next, copy(split.prefetch_far, [FAR_WEIGHTS, DM_FAR, FAR_BYTES])]
    }

    /// The function for `split` but for its number of tiles (`b` holds it, taking
    /// [`JobCode::parameters`]): the copies in, the job (or one band per vector unit, the CU
    /// waiting for all of them), the copy out and the wait for it, for each tile of the call's
    /// tile table. It is never inlined, so each call is one kernel in the simulator's report,
    /// and it records its split (`tynnp.kernel`), which `describe_call` reads.
    pub fn define(&self, split: Split, b: &mut Builder) -> Result<(), Error> {
        // The function is the same for every number of tiles (a value of the call).
        let split = split.function();
        let names = self.parameters(split);
        if names.len() != b.arg_count() {
            return Err(Error::Invalid(format!(
                "{}: the call passes {} arguments, the kernel takes {}",
                self.symbol(split),
                b.arg_count(),
                names.len()
            )));
        }
        b.set_function_attribute("passthrough", Attr::Strings(&["noinline"]));
        b.set_function_attribute(&kernel_attribute(NAME), Attr::Dict(&split.entries()));
        // Which arguments are the tile table and the tile count, for `umac-specialize-tynnp`.
        let at = |name: &str| names.iter().position(|n| n == name).map_or(-1, |k| k as i64);
        b.set_function_attribute(TILE_ARGUMENTS, Attr::I64Array(&[at(TILES), at(TILE_COUNT)]));
        let mut body = Body::new(b, &names);
        // One buffer serves every descriptor the function writes: the job's, and the 11 words
        // of a `dma.copy` (longer than a table lookup's).
        let words = body.constant((2 + self.descriptor().len() as i64).max(COPY_WORDS));
        let descriptor = body.b.alloca(words, Ty::I32);
        if self.units {
            self.unit_tiles(&mut body, descriptor, split);
        } else {
            self.tiles(&mut body, descriptor, split);
        }
        Ok(())
    }
}

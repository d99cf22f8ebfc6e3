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
            AFTER, AFTER_END, AFTER_END_TWO, COPY_WORDS, DM_FAR, DM_NEXT, FAR_BYTES, FAR_TOKEN, FAR_WEIGHTS, IN_DM,
            JobCode, MAILBOX, NEXT_BYTES, NEXT_TOKEN, NEXT_WEIGHTS, OUT_CHANNEL, OUT_DM, TILE_COUNT, TILES,
            WEIGHTS_BYTES, WEIGHTS_TOKEN,
        },
        split::Split,
    },
    target::NAME,
};
use umac_backend::{Attr, Builder, Cmp, Error, Ty, Value, kernel_attribute};

/// The address of the mailbox's word at the offset argument `offset` gives.
fn mailbox_word(b: &mut Body, offset: &str) -> Value {
    let (mailbox, offset) = (b.arg(MAILBOX), b.arg(offset));
    b.b.addi(mailbox, offset)
}

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
    /// first tile's copy in on channel 0, or, preloaded by a kernel before, the token of that
    /// copy read from the function's mailbox ([`WEIGHTS_TOKEN`]). Returns the constant 0, the token of the
    /// constants' copy (0 without constants: what the first tile's job waits for besides its
    /// input), and the input's and output's addresses.
    pub(crate) fn tile_preamble(&self, b: &mut Body, d: Value, split: Split) -> [Value; 4] {
        let zero = b.constant(0);
        let weights = match self.packed.first().filter(|_| self.copies_weights(split)) {
            Some(first) => {
                let src = b.address("weights");
                let (dst, bytes, channel) = (b.arg(&format!("dm_{first}")), b.arg(WEIGHTS_BYTES), b.arg(OUT_CHANNEL));
                b.copy(d, zero, src, dst, bytes, channel)
            }
            // Copied by a kernel before, which left the copy's token in the mailbox.
            None if split.preloaded => {
                let at = mailbox_word(b, WEIGHTS_TOKEN);
                b.load_token(at, 0)
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

    /// The end of a kernel: the tokens of its copies of the records of kernels ahead stored in
    /// the function's mailbox ([`NEXT_TOKEN`], [`FAR_TOKEN`]), where their kernels find them, then the
    /// kernel before's jobs waited for when it follows one.
    pub(crate) fn finish(&self, b: &mut Body, split: Split, [next, far]: [Option<Value>; 2]) {
        for (token, at) in [(next, NEXT_TOKEN), (far, FAR_TOKEN)] {
            if let Some(token) = token {
                let at = mailbox_word(b, at);
                b.store_token(at, token);
            }
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
    /// it copies nothing else, then those of a kernel further ahead when it copies them too;
    /// returns the copies' tokens ([`JobCode::finish`] leaves them in the mailbox).
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

//! tynnp: umac's TY-NNP-style NPU (targets/tynnp/docs/isa.md), driven by its RV32 control unit.
//!
//! Each composite becomes one NPU kernel: an int8 convolution (`tosa.conv2d` with its bias, an
//! optional `tosa.rescale` to int8 and `tosa.clamp`; fully connected layers arrive as 1x1
//! convolutions; a leading `tosa.slice` read in place) runs as `nu.conv` jobs on the neural unit
//! in double-buffered tiles of output rows, its kernel columns folded into its input channels
//! when that saves NU passes; a depthwise convolution (`vu.dwconv`) or an average or max pooling
//! (`vu.pool`) in tiles, each split into bands over the vector units; TFLite's quantized add or
//! sub with its rescales (`vu.eltwise`) and an int8 or int16 table lookup (`vu.table`) in tiles
//! of bands. Each kernel's constants are packed at compile time into one record (`jobs.rs`), and
//! a kernel's output that the next kernel alone reads stays in DM (`resident.rs`). The code is
//! the control unit's: `replace_call_extern` defines each kind of call as a function that copies
//! by DMA, writes the descriptors and issues the custom instructions (`llvm.inline_asm`),
//! compiled into the model's RV32 object (`codegen.rs`; the composites are in `patterns.rs`, the
//! descriptors in `jobs.rs`, the splits in `tiling.rs`, the DM layout in `layout.rs`). A job
//! whose tiles do not fit DM is a compile error at the op naming every region's bytes (see
//! targets/tynnp/docs/compiler.md). Ops the NPU does not take run on the control unit.

mod agree;
mod body;
mod codegen;
mod describe;
mod double_buffer;
mod error;
mod im2col;
mod instructions;
mod jobs;
mod layout;
mod loops;
mod patterns;
mod pixels;
mod primitives;
mod resident;
mod schedule;
mod slice_filters;
mod split;
mod steps;
mod tiling;

use layout::{Room, constant_arguments, element_layout, tile_arguments, tiled_layout};
use resident::Handed;
use schedule::Schedule;
use split::Split;
use umac_backend::{
    Backend, Builder, Composite, Error, ExternArg, ExternCall, ExternCallSite, GraphStep, KernelStep, OpView, Pattern,
    Phase, PhasePass, Primitive, Replacement, ScheduleStep, Strategy, TargetAttr, TargetAttrs, Value,
};
use umac_tynnp_device::{Params, params::DM_BASE};

/// The target's name.
const NAME: &str = "tynnp";

/// The attribute that switches the next kernel's constants copied during this one off.
const PREFETCH: &str = "prefetch";

/// The attribute that switches activations kept in DM between kernels off.
const FUSE: &str = "fuse";

/// The attribute that switches double buffering off.
const DOUBLE_BUFFER: &str = "double-buffer";

/// The attribute that switches kernels handing their jobs on to the next (running at once) off.
const OVERLAP: &str = "overlap";

/// The `tynnp` dialect: the primitive ops (one per kind of job) and the instructions the
/// control unit's kernels are written in.
const DIALECT: [&str; 17] = {
    let mut all = [""; 17];
    let mut i = 0;
    while i < primitives::OPS.len() {
        all[i] = primitives::OPS[i];
        i += 1;
    }
    let mut k = 0;
    while k < instructions::INSTRUCTIONS.len() {
        all[i + k] = instructions::INSTRUCTIONS[k].name;
        k += 1;
    }
    all[16] = instructions::WAIT;
    all
};

/// The backend.
pub struct Tynnp;

/// What the registry lists.
pub static BACKEND: Tynnp = Tynnp;

/// The hardware parameters as target attributes, with the contract's names (section 1).
const ATTRIBUTES: [(&str, &str); 10] = [
    ("nu-rows", "NU array rows: input channels per cycle"),
    ("nu-cols", "NU array columns: output channels per cycle"),
    ("dm-kib", "global buffer DM, KiB"),
    ("vu", "vector units"),
    ("vu-lanes", "int32 lanes per vector unit"),
    ("vm-kib", "buffer VM of each vector unit, KiB"),
    ("dma", "DMA channels"),
    ("ddr-bw", "DDR bytes per cycle"),
    ("ddr-latency", "DDR latency, cycles"),
    ("queue", "jobs each unit's queue holds"),
];

/// The NPU the attributes describe (their ranges are the contract's).
pub fn params(attributes: &TargetAttrs) -> Result<Params, Error> {
    let text: Vec<String> = ATTRIBUTES.iter().map(|(name, _)| format!("-{name}={}", attributes.int(name))).collect();
    Params::parse(&text.join(" ")).map_err(|e| Error::Target(format!("{NAME}: {e}")))
}

fn default_of(name: &str, p: &Params) -> i64 {
    i64::from(match name {
        "nu-rows" => p.nu_rows,
        "nu-cols" => p.nu_cols,
        "dm-kib" => p.dm_bytes >> 10,
        "vu" => p.vu_count,
        "vu-lanes" => p.vu_lanes,
        "vm-kib" => p.vm_bytes >> 10,
        "dma" => p.dma_channels,
        "ddr-bw" => p.ddr_bytes_per_cycle,
        "ddr-latency" => p.ddr_latency,
        _ => p.queue_depth,
    })
}

impl Backend for Tynnp {
    fn name(&self) -> &'static str {
        NAME
    }

    fn cpu(&self) -> Option<&'static str> {
        Some("rv32im")
    }

    fn device(&self, attributes: &TargetAttrs) -> Result<Option<Box<dyn umac_sim::Device>>, Error> {
        Ok(Some(Box::new(umac_tynnp_device::Npu::new(params(attributes)?))))
    }

    fn attributes(&self) -> Vec<TargetAttr> {
        let defaults = Params::default();
        let mut attributes: Vec<TargetAttr> =
            ATTRIBUTES.iter().map(|&(name, help)| TargetAttr::int(name, default_of(name, &defaults), help)).collect();
        attributes.push(TargetAttr::bool(
            FUSE,
            true,
            "keep a kernel's output in DM when the next kernel reads it alone (false: every output goes to DDR)",
        ));
        attributes.push(TargetAttr::bool(
            PREFETCH,
            true,
            "copy the next kernel's constants into DM while this kernel's last tiles run (false: each kernel copies its own)",
        ));
        attributes.push(TargetAttr::bool(
            OVERLAP,
            true,
            "start a kernel that reads the kept output of the one before while that one's last tiles run (false: each kernel waits for its jobs)",
        ));
        attributes.push(TargetAttr::bool(
            pixels::PACK,
            true,
            "pack adjacent output pixels of a convolution with few output channels into the NU's columns (false: one pixel a pass)",
        ));
        attributes.push(TargetAttr::bool(
            DOUBLE_BUFFER,
            true,
            "double-buffer tiles (false: one input and one output buffer, to measure what double buffering earns)",
        ));
        attributes
    }

    fn patterns(&self, attributes: &TargetAttrs) -> Vec<Pattern> {
        patterns::all(params(attributes).unwrap_or_default())
    }

    fn strategy(&self, composite: &Composite, attributes: &TargetAttrs) -> Result<Strategy, Error> {
        let mut one = self.strategies(std::slice::from_ref(composite), attributes);
        one.pop().unwrap_or_else(|| Err(Error::Invalid("no strategy".into())))
    }

    /// The kernels of a function plan together (`steps.rs`), each lowered by its schedule: the
    /// one attached to it (maybe edited), or decided here for the whole function at once (every
    /// step). A function with some schedules attached decides the others alone, sharing
    /// nothing; the schedules must agree (`agree::check_function`).
    fn strategies(&self, composites: &[Composite], attributes: &TargetAttrs) -> Vec<Result<Strategy, Error>> {
        let kernels = match steps::Kernels::new(composites, attributes) {
            Ok(kernels) => kernels,
            Err(e) => return composites.iter().map(|_| Err(e.clone())).collect(),
        };
        let attached = composites.iter().any(|c| c.last().int_dict(schedule::ATTRIBUTE).is_some());
        let schedules = if attached { kernels.attached() } else { kernels.planned() };
        let steps::Kernels { params, jobs, records, .. } = kernels;
        let nexts: Vec<[Option<Vec<u8>>; 2]> =
            (0..records.len()).map(|i| [1, 2].map(|d| records.get(i + d).cloned().flatten())).collect();
        // What a kernel following one that hands its jobs on needs of it, and of the kernel two
        // back when the kernel before followed that one.
        let handed_by = |j: Option<usize>| {
            let j = j?;
            let (Ok(job), Ok(schedule)) = (&jobs[j], &schedules[j]) else { return None };
            Handed::of(job, schedule)
        };
        let handed: Vec<[Option<Handed>; 2]> = (0..jobs.len())
            .map(|i| {
                let before = handed_by(i.checked_sub(1));
                let two_back = before.as_ref().and_then(|_| handed_by(i.checked_sub(2)));
                [before, two_back]
            })
            .collect();
        jobs.into_iter()
            .zip(records)
            .zip(schedules)
            .zip(nexts)
            .zip(handed)
            .map(|((((job, record), schedule), next), before)| lower((job?, record), &schedule?, next, before, &params))
            .collect()
    }

    /// Before partitioning, the model's no-op ops go: a clamp to its type's whole range, a
    /// reshape undoing another (TFLite's fully connected layers arrive as reshape, conv2d,
    /// rescale, reshape, clamp). Left in place they run on the control unit between the NPU's
    /// kernels, which then cannot share DM, prefetch or run at once.
    fn passes(&self, _attributes: &TargetAttrs) -> Vec<PhasePass> {
        vec![PhasePass { phase: Phase::PrePartition, pipeline: "canonicalize".into() }]
    }

    fn schedule_steps(&self) -> &'static [ScheduleStep] {
        &steps::STEPS
    }

    fn graph_steps(&self) -> &'static [GraphStep] {
        &[slice_filters::STEP]
    }

    fn kernel_steps(&self) -> &'static [KernelStep] {
        &[double_buffer::STEP]
    }

    /// Step `step` of each kernel's schedule as `tynnp.schedule` (`steps.rs`, `schedule.rs`).
    fn schedules(
        &self,
        step: &str,
        composites: &[Composite],
        attributes: &TargetAttrs,
    ) -> Vec<Result<Option<String>, Error>> {
        match steps::Kernels::new(composites, attributes) {
            Ok(kernels) => kernels.step(step),
            Err(e) => composites.iter().map(|_| Err(e.clone())).collect(),
        }
    }

    fn dialect_ops(&self) -> &'static [&'static str] {
        &DIALECT
    }

    fn verify_primitive(&self, op: &OpView) -> Result<(), Error> {
        Ok(if instructions::is_instruction(&op.name()) { instructions::verify(op) } else { primitives::verify(op) }?)
    }

    fn primitive(&self, composite: &Composite, attributes: &TargetAttrs) -> Result<Option<Primitive>, Error> {
        primitives::primitive(composite, attributes)
    }

    fn reference(&self, op: &OpView) -> Result<String, Error> {
        primitives::reference(op)
    }

    fn lower_to_llvm(&self, op: &OpView, builder: &mut Builder) -> Option<Result<Vec<Value>, Error>> {
        instructions::lower(op, builder).map(Ok)
    }

    fn replace_call_extern(&self, call: &ExternCallSite) -> Option<Replacement> {
        jobs::CODES
            .into_iter()
            .find_map(|code| code.split_of(&call.callee).map(|split| (code, split)))
            .map(|(code, split)| Replacement::Definition(std::sync::Arc::new(move |b| code.define(split, b))))
    }

    fn describe_call(
        &self,
        call: &ExternCallSite,
        scalars: &[Option<i64>],
        attributes: &TargetAttrs,
    ) -> Option<serde_json::Value> {
        describe::describe(call, scalars, &params(attributes).ok()?)
    }
}

/// The job a composite of TOSA ops runs as (what its primitive op holds).
pub(crate) fn job_of(composite: &Composite) -> Result<jobs::Job, Error> {
    match composite.pattern.as_str() {
        "tynnp.conv2d" => jobs::convolution(composite, false),
        "tynnp.depthwise_conv2d" => jobs::convolution(composite, true),
        "tynnp.add" => jobs::eltwise(composite, false),
        "tynnp.sub" => jobs::eltwise(composite, true),
        "tynnp.table" => jobs::table(composite),
        _ => jobs::pool(composite),
    }
}

/// The job a kernel runs: its primitive op's. The schedule's steps and the legalization take
/// primitive ops only: a composite of TOSA ops left (`umac-primitives-tynnp` not run) is an error.
pub(crate) fn kernel_job(composite: &Composite) -> Result<jobs::Job, Error> {
    let last = composite.last();
    if !primitives::OPS.contains(&last.name().as_str()) {
        return Err(Error::Unsupported(format!(
            "{} is still a composite of TOSA ops: the schedule and the legalization take tynnp's primitive ops \
             (run umac-primitives-tynnp first)",
            composite.pattern
        )));
    }
    primitives::job(last)
}

/// The schedule of `job` (`double`-buffered or not), sharing `shared` with the kernels around
/// it: its tiles planned so that its own regions take at most `budget` bytes of DM from offset
/// 0, its kernel columns folded when that pays and fits; what it shares is placed later.
pub(crate) fn decide(
    job: &jobs::Job,
    params: &Params,
    double: bool,
    shared: resident::Shared,
    budget: i64,
) -> Result<Schedule, Error> {
    // What it shares with the kernels around it is read and written in place.
    let (preloaded, reads_kept, writes_kept) = (shared.preloaded, shared.kept_inputs, shared.kept_output);
    let overlap = shared.hands || shared.follows;
    let room = Room { params, double, budget, preloaded, reads_kept, writes_kept, stage: 0, overlap };
    let values: Vec<(String, i64)> = job.scalars.iter().map(|(n, v)| (n.to_string(), *v)).collect();
    let (nu_rows, nu_cols) = (i64::from(params.nu_rows), i64::from(params.nu_cols));
    let (fold, im2col, plan) = if job.code.elementwise() {
        (false, false, element_layout(job, &values, &room)?)
    } else {
        // A convolution is folded by kernel rows and columns (staging its input in DM), or by
        // columns, when it pays, its (longer) tiles fit DM and (by rows) each tile's kernel rows
        // read some input; it gathers its input into tile buffers, from DM too.
        let foldable = job.code.foldable();
        let gathered = Room { reads_kept: [false; 2], ..room };
        // The gathers take two channels when nothing is copied out (see `body::Gather`).
        let channels = if writes_kept { i64::from(params.dma_channels) } else { 1 };
        let by_rows = if foldable { im2col::im2col(&values, (nu_rows, nu_cols), channels)? } else { None };
        let by_rows = by_rows.and_then(|im| {
            let room = Room { stage: im.stage_bytes, ..gathered };
            let plan = tiled_layout(job, &im.apply(&values), im.row_bytes, &room).ok()?;
            im.row_arguments(&plan.tiles).map(|_| plan)
        });
        let by_columns = || -> Result<Option<layout::Plan>, Error> {
            let fold = if foldable { tiling::fold(&values, nu_rows, nu_cols, channels > 1)? } else { None };
            Ok(fold.and_then(|fold| tiled_layout(job, &fold.apply(&values), fold.row_bytes, &gathered).ok()))
        };
        match by_rows {
            Some(plan) => (false, true, plan),
            None => match by_columns()? {
                Some(plan) => (true, false, plan),
                None => {
                    let src_row = job.bytes[0] / tiling::lookup(&values, "ih")?.max(1);
                    (false, false, tiled_layout(job, &values, src_row, &room)?)
                }
            },
        }
    };
    let mut dm = plan.dm;
    if shared.hands {
        let end = dm.iter().map(|(_, at, bytes)| (at + bytes + 15) & !15).max().unwrap_or(0);
        let words = schedule::token_words(plan.tiles.len() - 1, plan.bands);
        dm.push((schedule::TOKENS.to_string(), end, 4 * words as i64));
    }
    Ok(Schedule {
        tiles: plan.tiles,
        bands: plan.bands,
        buffers: if double { 2 } else { 1 },
        fold,
        im2col,
        dm,
        ..Schedule::default()
    })
}

/// The call of the function that runs `job` (with its packed constant `record`) as `schedule`
/// says; `next`: the next kernel's record, which it copies into DM when it prefetches it.
fn lower(
    (job, record): (jobs::Job, Option<Vec<u8>>),
    schedule: &Schedule,
    [next, far]: [Option<Vec<u8>>; 2],
    [before, two_back]: [Option<Handed>; 2],
    params: &Params,
) -> Result<Strategy, Error> {
    let address = |offset: Option<i64>| offset.map_or(0, |at| at + i64::from(DM_BASE));
    let mut values: Vec<(String, i64)> = job.scalars.iter().map(|(n, v)| (n.to_string(), *v)).collect();
    // Copies out (and the constants' copy in) on channel 1, when there is one.
    values.push((codegen::OUT_CHANNEL.to_string(), i64::from(params.dma_channels > 1)));
    // The input or output left in DM by the kernel before or for the kernel after (0: DDR).
    values.push((codegen::IN_DM.to_string(), address(schedule.kept_inputs[0])));
    values.push((codegen::OUT_DM.to_string(), address(schedule.kept_output)));
    values.push((codegen::IN_DM_Y.to_string(), address(schedule.kept_inputs[1])));
    // The record: copied by this kernel, or already in DM (copied by the kernel before).
    if let Some(record) = &record {
        values.push((codegen::WEIGHTS_BYTES.to_string(), record.len() as i64));
    }
    if let Some(at) = schedule.constants_at() {
        values.extend(constant_arguments(&job, at));
    }
    let next = next.filter(|_| schedule.prefetch.is_some());
    if let Some(record) = &next {
        values.push((codegen::DM_NEXT.to_string(), address(schedule.prefetch)));
        values.push((codegen::NEXT_BYTES.to_string(), record.len() as i64));
    }
    let far = far.filter(|_| schedule.prefetch_far.is_some());
    if let Some(record) = &far {
        values.push((codegen::DM_FAR.to_string(), address(schedule.prefetch_far)));
        values.push((codegen::FAR_BYTES.to_string(), record.len() as i64));
    }
    let mut code = job.code;
    let (mut taps, mut rows) = (0, 0);
    let lanes = i64::from(params.vu_lanes);
    let arguments = if code.elementwise() {
        tile_arguments(&job, &values, schedule, (0, 0), lanes)?
    } else {
        // The rows of the input in DDR, and in DM (longer when folded).
        let src_row = job.bytes[0] / tiling::lookup(&values, "ih")?.max(1);
        let mut in_row = src_row;
        let (nu_rows, nu_cols) = (i64::from(params.nu_rows), i64::from(params.nu_cols));
        // The gathers take two channels when nothing is copied out (see `body::Gather`).
        let channels = if schedule.kept_output.is_some() { i64::from(params.dma_channels) } else { 1 };
        if schedule.fold {
            let fold = tiling::fold(&values, nu_rows, nu_cols, channels > 1)?.ok_or_else(|| {
                Error::Unsupported(format!(
                    "{}: fold is set, but folding this convolution saves nothing",
                    schedule::ATTRIBUTE
                ))
            })?;
            values = fold.apply(&values);
            (code, taps, in_row) = (&jobs::CONV_FOLDED, fold.taps, fold.row_bytes);
        }
        let mut im2col = None;
        if schedule.im2col {
            let bad = |message: &str| Error::Unsupported(format!("{}: {message}", schedule::ATTRIBUTE));
            let im = im2col::im2col(&values, (nu_rows, nu_cols), channels)?
                .ok_or_else(|| bad("im2col is set, but it saves nothing here"))?;
            let (stage, bytes) = schedule.region("stage").ok_or_else(|| bad("im2col is set, but dm has no stage"))?;
            if bytes < im.stage_bytes {
                return Err(bad(&format!("the input needs {} bytes of dm.stage, which holds {bytes}", im.stage_bytes)));
            }
            values = im.apply(&values);
            (code, taps, rows, in_row) = (&jobs::CONV_IM2COL, im.taps, im.rows, im.row_bytes);
            im2col = Some((im, stage));
        }
        let mut arguments = tile_arguments(&job, &values, schedule, (src_row, in_row), lanes)?;
        // The tiles are sound (in order, covering the output); im2col's kernel rows must read some
        // input row in each.
        if let Some((im, stage)) = im2col {
            let padding =
                || Error::Unsupported(format!("{}: a kernel row of a tile reads padding only", schedule::ATTRIBUTE));
            arguments.extend(im.row_arguments(&schedule.tiles).ok_or_else(padding)?);
            arguments.push((codegen::IM2COL_PITCHES[0].to_string(), i64::from(DM_BASE) + stage));
        }
        arguments
    };
    values.extend(arguments);
    let (reads_kept, writes_kept) = schedule.in_place();
    let hands = schedule.region(schedule::TOKENS);
    if let Some((at, _)) = hands {
        values.push((codegen::DM_TOKENS.to_string(), address(Some(at))));
    }
    let follows = match &before {
        Some(before) if reads_kept.contains(&true) => {
            // Each tile follows the kernel before's first tile through which the bytes it reads
            // (of rows, or of elements, from the start) are written.
            let needs: Vec<i64> = if code.elementwise() {
                schedule.tiles[1..].iter().map(|end| end * code.element_bytes.0).collect()
            } else {
                let src_row = job.bytes[0] / tiling::lookup(&values, "ih")?.max(1);
                let tiles = tiling::tiles_at(&values, &schedule.tiles)?.unwrap_or_default();
                tiles.iter().map(|tile| (tile.start + tile.rows) * src_row).collect()
            };
            for (t, need) in needs.iter().enumerate() {
                values.push((format!("{}_t{t}", codegen::AFTER), before.row(*need)));
            }
            values.push((codegen::AFTER_END.to_string(), before.row(i64::MAX)));
            // After the table's rows, the token of the copy of this kernel's record, then that of
            // the next kernel's (copied by the kernel before when it copies two ahead).
            values.push((codegen::AFTER_WEIGHTS.to_string(), before.copy_token(1)));
            values.push((codegen::AFTER_FAR.to_string(), before.copy_token(2)));
            if let Some(two_back) = &two_back {
                values.push((codegen::AFTER_END_TWO.to_string(), two_back.row(i64::MAX)));
            }
            before.bands
        }
        Some(_) => {
            return Err(Error::Unsupported(format!(
                "{}: the kernel before hands its jobs on (dm.tokens), but this one does not read its output in place",
                schedule::ATTRIBUTE
            )));
        }
        None => 0,
    };
    let split = Split {
        taps,
        rows,
        units: schedule.bands,
        single: schedule.buffers == 1,
        preloaded: schedule.preloaded.is_some(),
        prefetch: schedule.prefetch.is_some(),
        reads_kept,
        writes_kept,
        hands: hands.is_some(),
        follows,
        prefetch_far: far.is_some(),
        relays: before.as_ref().is_some_and(|b| b.far),
        waits_two: two_back.as_ref().filter(|_| follows > 0).map_or(0, |t| t.bands),
        ..Split::bands(schedule.tiles.len() - 1)
    };
    let packed = record.filter(|_| !split.preloaded);
    let mut call = ExternCall::new(&code.symbol(split));
    let buffers = job
        .operands
        .into_iter()
        .chain(packed.map(ExternArg::Bytes))
        .chain(next.map(ExternArg::Bytes))
        .chain(far.map(ExternArg::Bytes));
    for (name, argument) in code.buffers(split).iter().zip(buffers) {
        call = call.arg(name, argument);
    }
    for name in code.trailing(split) {
        let value = values
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| *v)
            .ok_or_else(|| Error::Invalid(format!("{}: no value for {name}", code.callee)))?;
        call = call.arg(&name, ExternArg::I32(value));
    }
    Ok(Strategy::Extern(call))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tile table's rows hold exactly the arguments that differ between tiles, each once,
    /// the same number a tile: with the arguments of no tile (a split of 0 tiles), all of them.
    #[test]
    fn tile_rows_hold_every_tile_argument_once() {
        let splits = [
            Split::bands(4),
            Split { single: true, ..Split::bands(3) },
            Split { writes_kept: true, prefetch: true, ..Split::bands(2) },
            Split { reads_kept: [true, false], follows: 4, waits_two: 1, ..Split::bands(3) },
            Split { reads_kept: [true, false], follows: 1, hands: true, writes_kept: true, ..Split::bands(3) },
        ];
        for code in jobs::CODES {
            let mut checked = 0;
            for split in splits {
                // Each kind's own shape: bands on the vector units, folded columns, kernel rows.
                let split = Split {
                    units: if code.units { 2 } else { 0 },
                    taps: if code.folded { 3 } else { 0 },
                    rows: if code.im2col { 10 } else { 0 },
                    ..split
                };
                let Some(split) = code.split_of(&code.symbol(split)) else { continue };
                let rows: Vec<Vec<String>> = (0..split.bands).map(|t| code.tile_row(split, t)).collect();
                assert!(rows.iter().all(|row| row.len() == rows[0].len()), "{}", code.symbol(split));
                let mut all: Vec<String> = code.trailing(Split { bands: 0, ..split });
                all.extend(rows.into_iter().flatten());
                let mut expected = code.trailing(split);
                all.sort();
                expected.sort();
                assert_eq!(all, expected, "{}", code.symbol(split));
                checked += 1;
            }
            assert!(checked >= 3, "{}: {checked} splits", code.callee);
        }
        // By hand: a convolution's tile 1 on the NU: its descriptor's input address, input rows,
        // top padding, output rows and output address, then its copies.
        let row = jobs::CONV.tile_row(Split::bands(4), 1);
        let expected = ["dm_input_b1", "ih_b1", "pad_top_b1", "oh_b1", "dm_output_b1"];
        assert_eq!(row[..5], expected.map(String::from));
        assert_eq!(row[5..], ["in_offset_b1", "in_bytes_b1", "out_offset_b1", "out_bytes_b1"].map(String::from));
        // A depthwise convolution's tile 2 of two bands, following a kernel: band 4's and 5's
        // fields, the copies, the row of the kernel before's token table.
        let split = Split { units: 2, reads_kept: [true, false], follows: 1, ..Split::bands(3) };
        let row = jobs::DWCONV.tile_row(split, 2);
        assert!(row[0].ends_with("_b4") && row[row.len() - 6].ends_with("_b5"), "{row:?}");
        assert_eq!(
            row[row.len() - 5..],
            ["in_offset_b2", "in_bytes_b2", "out_offset_b2", "out_bytes_b2", "after_t2"].map(String::from)
        );
    }

    #[test]
    fn split_symbols_name_every_split_once() {
        let split = |bands, taps, units, single| Split { taps, units, single, ..Split::bands(bands) };
        for (code, split, symbol) in [
            (&jobs::CONV, split(4, 0, 0, false), "tynnp_conv2d_t4"),
            (&jobs::CONV, split(4, 0, 0, true), "tynnp_conv2d_t4_single"),
            (&jobs::CONV_FOLDED, split(6, 3, 0, true), "tynnp_conv2d_folded_k3_t6_single"),
            (&jobs::DWCONV, split(2, 0, 4, false), "tynnp_dwconv2d_x4_t2"),
            (&jobs::ADD, split(2, 0, 4, true), "tynnp_add_x4_t2_single"),
            (&jobs::CONV, Split { preloaded: true, ..split(4, 0, 0, false) }, "tynnp_conv2d_t4_pl"),
            (&jobs::DWCONV, Split { prefetch: true, ..split(2, 0, 4, true) }, "tynnp_dwconv2d_x4_t2_single_pf"),
            (&jobs::CONV, Split { preloaded: true, prefetch: true, ..split(1, 0, 0, false) }, "tynnp_conv2d_t1_pl_pf"),
            (
                &jobs::CONV,
                Split { reads_kept: [true, false], writes_kept: true, ..split(1, 0, 0, false) },
                "tynnp_conv2d_t1_rx_wo",
            ),
            (
                &jobs::CONV_IM2COL,
                Split { rows: 10, writes_kept: true, ..split(2, 3, 0, false) },
                "tynnp_conv2d_im2col_k3_r10_t2_wo",
            ),
            (
                &jobs::ADD,
                Split { reads_kept: [false, true], preloaded: true, ..split(2, 0, 4, false) },
                "tynnp_add_x4_t2_ry_pl",
            ),
            (
                &jobs::DWCONV,
                Split { writes_kept: true, prefetch: true, ..split(2, 0, 4, true) },
                "tynnp_dwconv2d_x4_t2_single_wo_pf",
            ),
        ] {
            assert_eq!(code.symbol(split), symbol);
            assert_eq!(code.split_of(symbol), Some(split));
        }
        for wrong in ["tynnp_conv2d_t4_single_single", "tynnp_conv2d_single", "tynnp_conv2d_t0", "tynnp_conv2d_x4_t2"] {
            assert_eq!(jobs::CONV.split_of(wrong), None, "{wrong}");
        }
        // A folded convolution gathers its input (never read in place); only an elementwise job
        // has a `y`.
        assert_eq!(jobs::CONV_FOLDED.split_of("tynnp_conv2d_folded_k3_t4_rx"), None);
        assert!(jobs::CONV_FOLDED.split_of("tynnp_conv2d_folded_k3_t4_wo").is_some());
        assert_eq!(jobs::CONV.split_of("tynnp_conv2d_t4_ry"), None);
        // An im2col convolution names its kernel rows, which only it has.
        assert_eq!(jobs::CONV_IM2COL.split_of("tynnp_conv2d_im2col_k3_t2"), None);
        assert_eq!(jobs::CONV_IM2COL.split_of("tynnp_conv2d_im2col_k65536_r65536_t2"), None);
        assert_eq!(jobs::CONV_FOLDED.split_of("tynnp_conv2d_folded_k3_r10_t2"), None);
        assert_eq!(jobs::CONV.split_of("tynnp_conv2d_t4_wo_rx"), None);
        // Suffixes in their order only; a pooling has no constants to find preloaded.
        assert_eq!(jobs::CONV.split_of("tynnp_conv2d_t4_pf_pl"), None);
        assert_eq!(jobs::MAX_POOL.split_of("tynnp_max_pool2d_x4_t1_pl"), None);
        assert!(jobs::MAX_POOL.split_of("tynnp_max_pool2d_x4_t1_pf").is_some());
        // No more tiles than a tensor could have rows, nor bands than vector units.
        assert_eq!(jobs::CONV.split_of("tynnp_conv2d_t99999999"), None);
        assert_eq!(jobs::DWCONV.split_of("tynnp_dwconv2d_x17_t2"), None);
    }
}

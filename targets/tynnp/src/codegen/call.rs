//! The call of a kernel: the arguments its primitive op's schedule gives the function that runs
//! its job (`kernel.rs`), as the legalization passes them.

use crate::{
    kernel::{code, jobs, split::Split},
    schedule::{
        ATTRIBUTE, Schedule, TOKENS, im2col,
        layout::{constant_arguments, tile_arguments},
        resident::Handed,
        tiling,
    },
};
use umac_backend::{Error, ExternArg, ExternCall, Strategy};
use umac_tynnp_device::{Params, params::DM_BASE};

/// The call of the function that runs `job` (with its packed constant `record`) as `schedule`
/// says; `next`: the next kernel's record, which it copies into DM when it prefetches it.
pub(crate) fn lower(
    (job, record): (jobs::Job, Option<Vec<u8>>),
    schedule: &Schedule,
    [next, far]: [Option<Vec<u8>>; 2],
    [before, two_back]: [Option<Handed>; 2],
    params: &Params,
) -> Result<Strategy, Error> {
    let address = |offset: Option<i64>| offset.map_or(0, |at| at + i64::from(DM_BASE));
    let mut values: Vec<(String, i64)> = job.scalars.iter().map(|(n, v)| (n.to_string(), *v)).collect();
    // Copies out (and the constants' copy in) on channel 1, when there is one.
    values.push((code::OUT_CHANNEL.to_string(), i64::from(params.dma_channels > 1)));
    // The input or output left in DM by the kernel before or for the kernel after (0: DDR).
    values.push((code::IN_DM.to_string(), address(schedule.kept_inputs[0])));
    values.push((code::OUT_DM.to_string(), address(schedule.kept_output)));
    values.push((code::IN_DM_Y.to_string(), address(schedule.kept_inputs[1])));
    // The record: copied by this kernel, or already in DM (copied by the kernel before).
    // Where the tokens of records' copies ahead are: words of the function's mailbox, which
    // `regions::share` gives (the record's kernel, counted from this one, for now).
    if let Some(record) = &record {
        values.push((code::WEIGHTS_BYTES.to_string(), record.len() as i64));
        if schedule.preloaded.is_some() {
            values.push((code::WEIGHTS_TOKEN.to_string(), 0));
        }
    }
    values.push((code::MAILBOX.to_string(), 0));
    if let Some(at) = schedule.constants_at() {
        values.extend(constant_arguments(&job, at));
    }
    let next = next.filter(|_| schedule.prefetch.is_some());
    if let Some(record) = &next {
        values.push((code::DM_NEXT.to_string(), address(schedule.prefetch)));
        values.push((code::NEXT_BYTES.to_string(), record.len() as i64));
        values.push((code::NEXT_TOKEN.to_string(), 1));
    }
    let far = far.filter(|_| schedule.prefetch_far.is_some());
    if let Some(record) = &far {
        values.push((code::DM_FAR.to_string(), address(schedule.prefetch_far)));
        values.push((code::FAR_BYTES.to_string(), record.len() as i64));
        values.push((code::FAR_TOKEN.to_string(), schedule.far_ahead() as i64));
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
                Error::Unsupported(format!("{}: fold is set, but folding this convolution saves nothing", ATTRIBUTE))
            })?;
            values = fold.apply(&values);
            (code, taps, in_row) = (&jobs::CONV_FOLDED, fold.taps, fold.row_bytes);
        }
        let mut im2col = None;
        if schedule.im2col {
            let bad = |message: &str| Error::Unsupported(format!("{}: {message}", ATTRIBUTE));
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
            let padding = || Error::Unsupported(format!("{}: a kernel row of a tile reads padding only", ATTRIBUTE));
            arguments.extend(im.row_arguments(&schedule.tiles).ok_or_else(padding)?);
            arguments.push((code::IM2COL_PITCHES[0].to_string(), i64::from(DM_BASE) + stage));
        }
        arguments
    };
    values.extend(arguments);
    let (reads_kept, writes_kept) = schedule.in_place();
    let hands = schedule.region(TOKENS);
    if let Some((at, _)) = hands {
        values.push((code::DM_TOKENS.to_string(), address(Some(at))));
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
                values.push((format!("{}_t{t}", code::AFTER), before.row(*need)));
            }
            values.push((code::AFTER_END.to_string(), before.row(i64::MAX)));
            if let Some(two_back) = &two_back {
                values.push((code::AFTER_END_TWO.to_string(), two_back.row(i64::MAX)));
            }
            before.bands
        }
        Some(_) => {
            return Err(Error::Unsupported(format!(
                "{}: the kernel before hands its jobs on (dm.tokens), but this one does not read its output in place",
                ATTRIBUTE
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
        waits_two: two_back.as_ref().filter(|_| follows > 0).map_or(0, |t| t.bands),
        ..Split::bands(schedule.tiles.len() - 1)
    };
    let packed = record.filter(|_| !split.preloaded);
    values.push((code::TILE_COUNT.to_string(), split.bands as i64));
    // The tile buffers of each tensor not kept in DM (the same one twice when single-buffered).
    for (buffer, kept) in code.tiled_buffers(split) {
        if kept.is_none() {
            let first = schedule.region(buffer).map(|(at, _)| at);
            let second = schedule.region(&format!("{buffer}1")).map(|(at, _)| at).or(first);
            for (k, at) in [first, second].into_iter().enumerate() {
                let at = at.ok_or_else(|| Error::Invalid(format!("{}: no dm.{buffer}", code.callee)))?;
                values.push((code::buffer_name(buffer, k), address(Some(at))));
            }
        }
    }
    let value = |name: &str| {
        values
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| *v)
            .ok_or_else(|| Error::Invalid(format!("{}: no value for {name}", code.callee)))
    };
    let word = |name: &str, v: i64| {
        i32::try_from(v).map_err(|_| Error::Invalid(format!("{}: {name} = {v} does not fit an int32", code.callee)))
    };
    // The table: each tile's values, its DM addresses as offsets from what they lie in.
    let mut table = Vec::new();
    for t in 0..split.bands {
        for name in code.tile_row(split, t) {
            let base = code.base_value(split, &name, t, |n| value(n).ok());
            let base = base.ok_or_else(|| Error::Invalid(format!("{}: no base for {name}", code.callee)))?;
            table.push(word(&name, value(&name)? - base)?);
        }
    }
    // The function for this split, defined with the call: one for every call with the same
    // split but for its number of tiles, which is a value (the table's rows and the loop's trip
    // count); `umac-specialize-tynnp` makes each call's a constant in a copy of its own.
    let mut call = ExternCall::new(&code.symbol(split)).defined_by(std::sync::Arc::new(move |b| code.define(split, b)));
    let buffers = job
        .operands
        .into_iter()
        .chain(packed.map(ExternArg::Bytes))
        .chain(next.map(ExternArg::Bytes))
        .chain(far.map(ExternArg::Bytes))
        .chain([ExternArg::Words(table)]);
    for (name, argument) in code.buffers(split).iter().zip(buffers) {
        call = call.arg(name, argument);
    }
    for name in code.trailing(split) {
        call = call.arg(&name, ExternArg::I32(value(&name)?));
    }
    Ok(Strategy::Extern(call))
}

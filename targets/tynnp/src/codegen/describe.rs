//! What a tynnp call does, for `metadata.json`: the DM regions it uses (its constants, its tile
//! buffers, activations kept from or for the kernels around it, the next kernel's constants) and
//! the cycles it should take. Every job of the call is costed as the simulator costs it
//! (targets/tynnp/docs/isa.md, section 5: the descriptors are rebuilt from the call's arguments and
//! decoded by the simulator's own decoder), and so is every copy on its DMA channel and through
//! the DDR port; the expected cycles are the busiest of those: what the kernel takes when the
//! work of every other unit overlaps it, so the simulated kernel never takes less. Its MACs and
//! roofline are the simulator's report's.

use crate::{
    kernel::code::{Field, JobCode, MAILBOX, TILE_COPIES, TILE_COUNT, TILES, band_name, kernel_row_name},
    kernel::jobs,
    kernel::split::{Split, generic_symbol},
};
use std::collections::{BTreeMap, HashMap};
use umac_backend::ExternCallSite;
use umac_tynnp_device::{Params, cost, desc};

/// The description of `call`, with `scalars` its arguments (`None` for buffers); `None` when the
/// callee is not a tynnp kernel (its definition records no valid split, `tynnp.kernel`, of a
/// job kind whose function for that split it is) or an argument is not a compile-time value.
pub fn describe(call: &ExternCallSite, scalars: &[Option<i64>], params: &Params) -> Option<serde_json::Value> {
    let function = Split::from_entries(call.kernel.as_ref()?)?;
    let (generic, _) = generic_symbol(&call.callee);
    let code = *jobs::CODES.iter().find(|code| code.symbol(function) == generic)?;
    let names = code.trailing(function);
    let buffers = code.buffers(function);
    // Every argument but the mailbox's address (a static buffer's: known once linked) is a
    // compile-time value.
    let mut values: HashMap<&str, i64> = names
        .iter()
        .zip(scalars.get(buffers.len()..)?)
        .filter(|(n, _)| n.as_str() != MAILBOX)
        .map(|(n, v)| Some((n.as_str(), (*v)?)))
        .collect::<Option<_>>()?;
    // The call's tiles, and the values of each from its tile table.
    let split = Split { bands: usize::try_from(*values.get(TILE_COUNT)?).ok()?, ..function };
    if !code.valid(split) {
        return None;
    }
    let table = call.constants.get(buffers.iter().position(|b| *b == TILES)?)?.as_ref()?;
    let rows: Vec<Vec<String>> = (0..split.bands).map(|t| code.tile_row(split, t)).collect();
    if rows.iter().map(Vec::len).sum::<usize>() != table.len() {
        return None;
    }
    // Each value, its DM addresses from the offsets the table holds.
    let mut words = table.iter().copied();
    let mut tiled = HashMap::new();
    for (t, row) in rows.iter().enumerate() {
        for name in row {
            let base = code.base_value(split, name, t, |n| values.get(n).copied())?;
            tiled.insert(name.as_str(), base + words.next()?);
        }
    }
    values.extend(tiled);
    let get = |name: &str| values.get(name).copied();
    let mut busy: BTreeMap<String, u64> = BTreeMap::new();
    let mut macs = 0;
    for (unit, job) in jobs_of(code, split, &get)? {
        *busy.entry(unit).or_default() += cost::cycles(&job, params, false);
        macs += cost::macs(&job);
    }
    let (dma, ddr_bytes) = copy_cycles(code, split, &get, params)?;
    for (unit, cycles) in dma {
        *busy.entry(unit).or_default() += cycles;
    }
    busy.insert("ddr".into(), cost::ddr_transfer(ddr_bytes, params));
    let expected = busy.values().copied().max().unwrap_or(0);
    // The simulator's roofline of a kernel: its MACs at the NU's rate, its DDR bytes at the port's.
    let roofline = macs.div_ceil(params.macs_per_cycle().max(1)).max(cost::ddr_transfer(ddr_bytes, params));
    Some(serde_json::json!({
        "job": code.callee,
        "tiles": split.bands,
        "bands_per_tile": split.units.max(1),
        "folded": code.folded,
        "im2col_kernel_rows": split.rows,
        "gather_copies": split.taps,
        "double_buffered": !split.single,
        "dm": regions(code, split, &get, call),
        "macs": macs,
        "ddr_bytes": ddr_bytes,
        "roofline_cycles": roofline,
        "unit_cycles": busy,
        "expected_cycles": expected,
    }))
}

/// Every job (band) of the call, with the unit it runs on.
fn jobs_of(code: &JobCode, split: Split, get: &dyn Fn(&str) -> Option<i64>) -> Option<Vec<(String, desc::Job)>> {
    let opcode = [0x0B, 0x2B, 0x5B, 0x7B][usize::from(code.insn.0)];
    let bands = split.bands * split.units.max(1);
    let mut jobs = Vec::new();
    for k in 0..bands {
        let mut words = vec![0u32, 0];
        for field in &code.descriptor() {
            words.push(match code.field_source(field, k) {
                Ok(argument) => get(&argument)? as u32,
                Err(value) => value as u32,
            });
        }
        let (_, job) = desc::decode(opcode, code.insn.1, code.insn.2, &words).ok()?;
        let unit = if code.units { format!("vu{}", k % split.units) } else { "nu".to_string() };
        jobs.push((unit, job));
    }
    Some(jobs)
}

/// The cycles of the call's copies on each DMA channel, and the bytes they move through DDR.
fn copy_cycles(
    code: &JobCode,
    split: Split,
    get: &dyn Fn(&str) -> Option<i64>,
    params: &Params,
) -> Option<(Vec<(String, u64)>, u64)> {
    let latency = u64::from(params.ddr_latency);
    let on_chip = |bytes: u64, lines: u64| 4 + bytes.div_ceil(64) + lines;
    let out = format!("dma{}", get(crate::kernel::code::OUT_CHANNEL)?);
    let kept_out = get(crate::kernel::code::OUT_DM)? != 0;
    // Per tiled input: left in DM by the kernel before (an elementwise job's `y` has its own).
    let kept_in: Vec<bool> = [crate::kernel::code::IN_DM, crate::kernel::code::IN_DM_Y]
        .iter()
        .take(code.tile_inputs().len())
        .map(|name| get(name).is_some_and(|at| at != 0))
        .collect();
    let mut copies = Vec::new();
    let mut ddr = 0;
    let mut through_ddr = |channel: &str, bytes: u64, lines: u64, copies: &mut Vec<(String, u64)>| {
        ddr += bytes;
        copies.push((channel.to_string(), latency + lines));
    };
    if let Some(bytes) = get(crate::kernel::code::WEIGHTS_BYTES).filter(|_| !split.preloaded) {
        through_ddr(&out, bytes as u64, 1, &mut copies);
    }
    for next in [crate::kernel::code::NEXT_BYTES, crate::kernel::code::FAR_BYTES] {
        if let Some(bytes) = get(next) {
            through_ddr("dma0", bytes as u64, 1, &mut copies);
        }
    }
    if code.im2col {
        // The input staged once (from DM when kept there), then each tile gathered on chip.
        let stage = get(crate::kernel::code::IM2COL_PITCHES[1])? as u64;
        if kept_in[0] {
            copies.push(("dma0".to_string(), on_chip(stage, 1)));
        } else {
            through_ddr("dma0", stage, 1, &mut copies);
        }
    }
    for t in 0..split.bands {
        let tile = |field: &Field| get(&band_name(field, t)).map(|v| v as u64);
        let (in_bytes, out_bytes) = (tile(&TILE_COPIES[1])?, tile(&TILE_COPIES[3])?);
        // A folded tile is gathered: one line a pixel of each copy (after a fill of the padding).
        // A gather's copies alternate between channel 0 and the output channel when nothing is
        // copied out (`body::Gather`).
        let gather_channel = |copy: usize| {
            if crate::codegen::body::on_output_channel(copy, split.writes_kept) { out.clone() } else { "dma0".into() }
        };
        let (in_bytes, lines) = if code.im2col {
            // A fill, then per kernel row each copy's pixels of the output rows reading inside.
            copies.push(("dma0".to_string(), on_chip(in_bytes, 1)));
            for j in 0..split.rows {
                let rows = get(&kernel_row_name(crate::kernel::code::KERNEL_ROW_FIELDS[2], t, j))? as u64;
                for c in 0..split.taps {
                    let pixels = (get(&format!("tap_count_k{c}"))? as u64).saturating_mul(rows);
                    let bytes = pixels.saturating_mul(get(&format!("tap_len_k{c}"))? as u64);
                    copies.push((gather_channel(j * split.taps + c), on_chip(bytes, pixels)));
                }
            }
            (0, 0)
        } else if code.folded && split.writes_kept {
            // From where the input is (DDR, or DM when kept), each copy on its channel.
            let rows = get(&band_name(&Field::Scalar("ih"), t))? as u64;
            copies.push(("dma0".to_string(), on_chip(in_bytes, 1)));
            for j in 0..split.taps {
                let pixels = (get(&format!("tap_count_k{j}"))? as u64).saturating_mul(rows);
                let bytes = pixels.saturating_mul(get(&format!("tap_len_k{j}"))? as u64);
                if kept_in[0] {
                    copies.push((gather_channel(j), on_chip(bytes, pixels)));
                } else {
                    through_ddr(&gather_channel(j), bytes, pixels, &mut copies);
                }
            }
            (0, 0)
        } else if code.folded {
            let rows = get(&band_name(&Field::Scalar("ih"), t))? as u64;
            let (mut bytes, mut lines) = (0u64, 0u64);
            for j in 0..split.taps {
                let pixels = (get(&format!("tap_count_k{j}"))? as u64).saturating_mul(rows);
                bytes = bytes.saturating_add(pixels.saturating_mul(get(&format!("tap_len_k{j}"))? as u64));
                lines = lines.saturating_add(pixels);
            }
            (bytes, lines)
        } else {
            (in_bytes, 1)
        };
        // What is read or written in place where it is kept is not copied at all.
        for (&kept_in, in_place) in kept_in.iter().zip(split.reads_kept) {
            if in_place || code.im2col || (code.folded && split.writes_kept) {
                continue;
            }
            if kept_in {
                copies.push(("dma0".to_string(), on_chip(in_bytes, lines)));
            } else {
                through_ddr("dma0", in_bytes, lines, &mut copies);
            }
        }
        if split.writes_kept {
            continue;
        }
        if kept_out {
            copies.push((out.clone(), on_chip(out_bytes, 1)));
        } else {
            through_ddr(&out, out_bytes, 1, &mut copies);
        }
    }
    Some((copies, ddr))
}

/// The DM regions the call uses, by what they hold.
fn regions(
    code: &JobCode,
    split: Split,
    get: &dyn Fn(&str) -> Option<i64>,
    call: &ExternCallSite,
) -> Vec<serde_json::Value> {
    let region = |what: &str, address: Option<i64>, bytes: Option<i64>| {
        address.map(|a| serde_json::json!({ "holds": what, "address": a, "bytes": bytes }))
    };
    let mut out: Vec<serde_json::Value> = Vec::new();
    if let Some(first) = code.packed.first() {
        let holds = if split.preloaded { "constants (copied by the kernel before)" } else { "constants" };
        out.extend(region(holds, get(&format!("dm_{first}")), get(crate::kernel::code::WEIGHTS_BYTES)));
    }
    // The tile buffers: the first band of each tile starts its buffer; the largest tile sizes it.
    // A tensor read or written in place where it is kept has none.
    let units = split.units.max(1);
    let buffered = code.tile_inputs().into_iter().zip(split.reads_kept).map(|(n, kept)| (n, 1, kept));
    for (name, bytes, _) in buffered.chain([("output", 3, split.writes_kept)]).filter(|(_, _, kept)| !kept) {
        let mut buffers: BTreeMap<i64, i64> = BTreeMap::new();
        for t in 0..split.bands {
            if let (Some(at), Some(size)) =
                (get(&band_name(&Field::Dm(name), t * units)), get(&band_name(&TILE_COPIES[bytes], t)))
            {
                let entry = buffers.entry(at).or_default();
                *entry = (*entry).max(size);
            }
        }
        for (at, size) in buffers {
            out.extend(region(&format!("{name} tile"), Some(at), Some(size)));
        }
    }
    if code.im2col {
        let stage = get(crate::kernel::code::IM2COL_PITCHES[0]);
        out.extend(region("input, staged for the gather", stage, get(crate::kernel::code::IM2COL_PITCHES[1])));
    }
    let tensor_bytes = |index: usize| call.argument_types.get(index).and_then(|t| memref_bytes(t));
    let kept = |name: &str| get(name).filter(|&at| at != 0);
    out.extend(region("input, kept from a kernel before", kept(crate::kernel::code::IN_DM), tensor_bytes(0)));
    out.extend(region("input y, kept from a kernel before", kept(crate::kernel::code::IN_DM_Y), tensor_bytes(1)));
    let last = call.argument_types.len().saturating_sub(1);
    out.extend(region("output, kept for the kernels after", kept(crate::kernel::code::OUT_DM), tensor_bytes(last)));
    out.extend(region(
        "the next kernel's constants",
        get(crate::kernel::code::DM_NEXT),
        get(crate::kernel::code::NEXT_BYTES),
    ));
    let far = get(crate::kernel::code::DM_FAR);
    out.extend(region("the constants of a kernel further ahead", far, get(crate::kernel::code::FAR_BYTES)));
    if split.hands {
        let bytes = Some(4 * crate::schedule::token_words(split.bands, split.units) as i64);
        out.extend(region(
            "the jobs' tokens, handed on to the kernel after",
            get(crate::kernel::code::DM_TOKENS),
            bytes,
        ));
    }
    out
}

/// The bytes of a static `memref<AxBx...xiN>`.
fn memref_bytes(ty: &str) -> Option<i64> {
    let inner = ty.strip_prefix("memref<")?.strip_suffix('>')?;
    let mut parts: Vec<&str> = inner.split('x').collect();
    let element = parts.pop()?;
    let bits: i64 = element.strip_prefix('i')?.parse().ok()?;
    parts.iter().map(|d| d.parse::<i64>().ok()).product::<Option<i64>>().map(|n| n * ((bits + 7) / 8))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memref_sizes() {
        assert_eq!(memref_bytes("memref<1x25x5x64xi8>"), Some(8000));
        assert_eq!(memref_bytes("memref<40xi32>"), Some(160));
        assert_eq!(memref_bytes("memref<i16>"), Some(2));
        assert_eq!(memref_bytes("memref<?x4xi8>"), None);
        assert_eq!(memref_bytes("i32"), None);
    }
}

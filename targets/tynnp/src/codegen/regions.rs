//! A function's DM as buffers the calls share: the schedules' placement (`umac-place-tynnp`)
//! decided what lies in DM while each kernel runs; the calls then name those blocks as regions
//! of DM's memory space (`umac_backend::ExternCall::region`, a `memref.alloc` in `"tynnp.dm"`
//! each) and pass every DM address as an address in one of them
//! (`umac_backend::ExternArg::Address`), so that `umac-allocate-dm-tynnp` allocates DM on
//! those buffers and `umac-convert-tynnp-to-llvm` gives the addresses.
//!
//! The blocks are what the placement placed (`resident::place`): each kernel's own regions
//! (from the kernel to the one waiting for its jobs), each kept output (from its writer to the
//! kernel waiting for its last reader's jobs) and each prefetched record (from the kernel
//! copying it to the one waiting for its own kernel's jobs). The first call names them all in
//! the order the placement took them, and each block is released by the call where it ends:
//! the allocation then sees the buffers, sizes and lifetimes the placement saw.

use crate::{
    kernel::code,
    schedule::{MAX_AHEAD, Schedule, TOKENS, a16, resident::lives_until},
};
use umac_backend::{Error, ExternArg, ExternCall, Strategy};
use umac_tynnp_device::params::DM_BASE;

use super::memory::DM_SPACE;

/// A block of DM: its key, where the placement put it and its bytes, and the kernels from the
/// first using it to the last that needs it.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Block {
    key: String,
    base: i64,
    bytes: i64,
    start: usize,
    end: usize,
}

/// The blocks of a function whose kernels run as `schedules` (placed), writing `outputs` bytes
/// each (with their `records`), in the order the placement took them: each kernel's own regions
/// and its kept output, then the prefetched records.
fn blocks(schedules: &[&Schedule], outputs: &[i64], records: &[Option<Vec<u8>>]) -> Vec<Block> {
    let n = schedules.len();
    let hands = |i: usize| i < n && schedules[i].region(TOKENS).is_some();
    let last = |i: usize| lives_until(&hands, i);
    let mut blocks = Vec::new();
    for (i, schedule) in schedules.iter().enumerate() {
        let base = schedule.dm.iter().map(|(_, at, _)| *at).min();
        if let Some(base) = base.filter(|_| schedule.own_bytes() > 0) {
            let bytes = schedule.own_bytes() - base;
            blocks.push(Block { key: format!("own{i}"), base, bytes, start: i, end: last(i) });
        }
        if let Some(at) = schedule.kept_output {
            // Its readers: the kernels after reading it where it is, until another writes there.
            let mut reader = i;
            for (r, s) in schedules.iter().enumerate().skip(i + 1) {
                if s.kept_inputs.contains(&Some(at)) {
                    reader = r;
                }
                if s.kept_output == Some(at) {
                    break;
                }
            }
            let bytes = a16(outputs[i]);
            blocks.push(Block { key: format!("kept{i}"), base: at, bytes, start: i, end: last(reader) });
        }
    }
    records_of(schedules, records, &last, &mut blocks);
    // An edited schedule may lay a kernel's own regions around something kept across it: those
    // regions are then blocks of their own.
    let meets = |a: &Block, b: &Block| a.start <= b.end && b.start <= a.end;
    let overlaps = |a: &Block, b: &Block| a.base < b.base + b.bytes && b.base < a.base + a.bytes;
    let mut split = Vec::new();
    for block in &blocks {
        let Some(i) = block.key.strip_prefix("own").and_then(|i| i.parse::<usize>().ok()) else {
            split.push(block.clone());
            continue;
        };
        if blocks.iter().any(|other| other.key != block.key && meets(block, other) && overlaps(block, other)) {
            for (name, at, bytes) in schedules[i].dm.iter().filter(|(_, _, bytes)| *bytes > 0) {
                split.push(Block { key: format!("own{i}.{name}"), base: *at, bytes: *bytes, ..block.clone() });
            }
        } else {
            split.push(block.clone());
        }
    }
    split
}

/// The records kernels copy into DM for a kernel ahead, each a block from the copying kernel to
/// the one waiting for its own kernel's jobs (`last`).
fn records_of(
    schedules: &[&Schedule],
    records: &[Option<Vec<u8>>],
    last: &dyn Fn(usize) -> usize,
    blocks: &mut Vec<Block>,
) {
    for (j, schedule) in schedules.iter().enumerate() {
        let Some(at) = schedule.preloaded else { continue };
        let copier = (1..=MAX_AHEAD).filter_map(|back| j.checked_sub(back)).find(|&c| {
            let s = schedules[c];
            (c + 1 == j && s.prefetch == Some(at)) || (c + s.far_ahead() == j && s.prefetch_far == Some(at))
        });
        let bytes = a16(records.get(j).and_then(Option::as_ref).map_or(0, |r| r.len() as i64));
        if let Some(c) = copier.filter(|_| bytes > 0) {
            blocks.push(Block { key: format!("record{j}"), base: at, bytes, start: c, end: last(j) });
        }
    }
}

/// Whether the call's argument `name` is a DM address (0 when it names nothing in DM).
fn is_address(name: &str) -> bool {
    name.starts_with("dm_")
        || name.starts_with(code::AFTER)
        || [code::IN_DM, code::OUT_DM, code::IN_DM_Y].contains(&name)
}

/// `calls` (one per kernel, each `Strategy::Extern` when lowered; the kernels' `schedules`, the
/// bytes of their `outputs` and their `records`) with their DM addresses as
/// addresses in the blocks of the function ([`blocks`]), which they name and release. Every
/// address must lie in a block alive at its call.
pub(crate) fn share(
    calls: Vec<Result<Strategy, Error>>,
    schedules: &[Result<Schedule, Error>],
    outputs: &[Option<i64>],
    records: &[Option<Vec<u8>>],
) -> Vec<Result<Strategy, Error>> {
    let placed: Option<Vec<&Schedule>> = schedules.iter().map(|s| s.as_ref().ok()).collect();
    let outputs: Option<Vec<i64>> = outputs.iter().copied().collect();
    let (Some(placed), Some(outputs)) = (placed, outputs) else {
        // A kernel the function cannot lower: legalization fails at it; the others stay as they are.
        return calls;
    };
    let blocks = blocks(&placed, &outputs, records);
    let n = calls.len();
    calls
        .into_iter()
        .enumerate()
        .map(|(i, call)| match call? {
            Strategy::Extern(call) => Ok(Strategy::Extern(with_mailbox(in_blocks(call, i, &blocks)?, i, n)?)),
            other => Ok(other),
        })
        .collect()
}

/// The region of a function's calls holding the tokens of the copies of records copied ahead,
/// a word for each kernel's record: a static buffer of the control unit (in its DMEM,
/// `umac_backend::LOCAL_SECTION`), which the copying kernel writes and the record's kernel reads,
/// so the tokens take no DM, and no stack frame keeps the function's last kernel from being a
/// tail call.
pub(crate) const MAILBOX: &str = "copies";

/// Call `i` of `n` with the tokens of the copies it makes or waits for ([`code::WEIGHTS_TOKEN`],
/// [`code::NEXT_TOKEN`], [`code::FAR_TOKEN`], each the number of kernels on its record's
/// kernel is) as byte offsets of their words in the mailbox, whose address it passes
/// ([`code::MAILBOX`]) and which it names.
fn with_mailbox(mut call: ExternCall, i: usize, n: usize) -> Result<ExternCall, Error> {
    let mut uses = false;
    for (name, argument) in &mut call.arguments {
        let ExternArg::I32(ahead) = *argument else { continue };
        if ![code::WEIGHTS_TOKEN, code::NEXT_TOKEN, code::FAR_TOKEN].contains(&name.as_str()) {
            continue;
        }
        let kernel = i as i64 + ahead;
        if !(0..n as i64).contains(&kernel) {
            return Err(Error::Invalid(format!("{}: {name} names kernel {kernel} of {n}", call.callee)));
        }
        *argument = ExternArg::I32(4 * kernel);
        uses = true;
    }
    if !uses {
        return Ok(call);
    }
    for (name, argument) in &mut call.arguments {
        if name == code::MAILBOX {
            *argument = ExternArg::Address { region: MAILBOX.to_string(), offset: 0 };
        }
    }
    Ok(call.static_region(MAILBOX, 4 * n as u64))
}

/// Call `i` with its DM addresses in `blocks`: the first call names every block (in their
/// order), each names those it points into, and the call where a block ends releases it.
fn in_blocks(mut call: ExternCall, i: usize, blocks: &[Block]) -> Result<ExternCall, Error> {
    let alive: Vec<&Block> = blocks.iter().filter(|b| b.start <= i && i <= b.end).collect();
    let mut named: Vec<&Block> = if i == 0 { blocks.iter().collect() } else { Vec::new() };
    for (name, argument) in &mut call.arguments {
        let ExternArg::I32(value) = *argument else { continue };
        if !is_address(name) || value == 0 {
            continue;
        }
        let at = value - i64::from(DM_BASE);
        let block = alive.iter().find(|b| b.base <= at && at < b.base + b.bytes).ok_or_else(|| {
            Error::Invalid(format!("{}: {name} = {value:#x} lies in no DM region alive at the call", call.callee))
        })?;
        *argument = ExternArg::Address { region: block.key.clone(), offset: at - block.base };
        named.push(block);
    }
    let ending: Vec<&Block> = blocks.iter().filter(|b| b.end == i).collect();
    for block in named.iter().chain(&ending) {
        call = call.region(&block.key, block.bytes as u64, DM_SPACE);
    }
    for block in ending {
        call = call.release(&block.key);
    }
    Ok(call)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schedule(dm: &[(i64, i64)]) -> Schedule {
        let dm = dm.iter().enumerate().map(|(k, &(at, bytes))| (format!("r{k}"), at, bytes)).collect();
        Schedule { dm, ..Schedule::default() }
    }

    #[test]
    fn blocks_are_what_the_placement_placed() {
        // Kernel 0 at [0, 300) keeps its output (64 bytes, at 512) for kernel 1, which reads it
        // and prefetches kernel 2's record (at 640); kernel 1 hands its jobs on (a token table),
        // so its own block and the kept output live through kernel 2.
        let mut k0 = schedule(&[(0, 128), (128, 172)]);
        k0.kept_output = Some(512);
        let mut k1 = schedule(&[(300, 100)]);
        k1.kept_inputs = [Some(512), None];
        k1.prefetch = Some(640);
        k1.dm.push((TOKENS.to_string(), 400, 16));
        let mut k2 = schedule(&[(0, 200)]);
        k2.preloaded = Some(640);
        let records = [None, None, Some(vec![0; 40])];
        let found = blocks(&[&k0, &k1, &k2], &[60, 10, 10], &records);
        let block = |key: &str, base, bytes, start, end| Block { key: key.into(), base, bytes, start, end };
        assert_eq!(
            found,
            [
                block("own0", 0, 300, 0, 0),
                block("kept0", 512, 64, 0, 2),
                block("own1", 300, 116, 1, 2),
                block("own2", 0, 200, 2, 2),
                block("record2", 640, 48, 1, 2),
            ]
        );
        // Kernel 1's call: its input (kept0 + 16), its token table (own1 + 100) and where it
        // copies the record; it names them, and releases nothing (all live on through kernel 2).
        let call = ExternCall::new("k")
            .arg(code::IN_DM, ExternArg::I32(i64::from(DM_BASE) + 512))
            .arg("dm_input_b1", ExternArg::I32(i64::from(DM_BASE) + 528))
            .arg(code::DM_TOKENS, ExternArg::I32(i64::from(DM_BASE) + 400))
            .arg(code::DM_NEXT, ExternArg::I32(i64::from(DM_BASE) + 640))
            .arg(code::OUT_DM, ExternArg::I32(0))
            .arg("ih", ExternArg::I32(i64::from(DM_BASE) + 1));
        let call = in_blocks(call, 1, &found).unwrap();
        let address = |region: &str, offset| format!("{:?}", ExternArg::Address { region: region.into(), offset });
        let arguments: Vec<String> = call.arguments.iter().map(|(_, a)| format!("{a:?}")).collect();
        assert_eq!(
            arguments,
            [
                address("kept0", 0),
                address("kept0", 16),
                address("own1", 100),
                address("record2", 0),
                format!("{:?}", ExternArg::I32(0)),
                format!("{:?}", ExternArg::I32(i64::from(DM_BASE) + 1)),
            ],
            "an address only where the name says so"
        );
        let keys: Vec<&str> = call.regions.iter().map(|r| r.key.as_str()).collect();
        assert_eq!(keys, ["kept0", "own1", "record2"]);
        assert!(call.releases.is_empty());
        // Kernel 2's call releases what ends there; kernel 0's names every block, in order.
        let last = in_blocks(ExternCall::new("k"), 2, &found).unwrap();
        assert_eq!(last.releases, ["kept0", "own1", "own2", "record2"]);
        let first = in_blocks(ExternCall::new("k"), 0, &found).unwrap();
        let keys: Vec<&str> = first.regions.iter().map(|r| r.key.as_str()).collect();
        assert_eq!(keys, ["own0", "kept0", "own1", "own2", "record2"]);
        assert_eq!(first.releases, ["own0"]);
        // An edited schedule laying kernel 0's regions around kept0: each region a block.
        let mut gapped = schedule(&[(0, 128), (600, 64)]);
        gapped.kept_output = Some(512);
        let found = blocks(&[&gapped, &k1, &k2], &[60, 10, 10], &records);
        let keys: Vec<&str> = found.iter().map(|b| b.key.as_str()).collect();
        assert_eq!(keys, ["own0.r0", "own0.r1", "kept0", "own1", "own2", "record2"]);
        assert_eq!((found[1].base, found[1].bytes), (600, 64));
        // An address in no block alive at the call is an error.
        let stray = ExternCall::new("k").arg(code::DM_TOKENS, ExternArg::I32(i64::from(DM_BASE) + 5000));
        assert!(in_blocks(stray, 1, &found).is_err());
    }
}

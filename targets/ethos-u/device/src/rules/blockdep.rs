//! `NPU_SET_BLOCKDEP`: how far a kernel may overlap the kernel before it. A kernel runs as jobs,
//! one per OFM block (a convolution: one per OFM block and IFM depth block), blocks in order of
//! depth, then width, then height; with `BLOCKDEP n` its job `j` may start while the kernel
//! before still has its last `n - j` jobs to finish. So job `j` must not read what those jobs
//! write. (The U65-512's two cores split the jobs; the check takes the order of one core.)

use super::{Finding, Span, overlap};
use crate::{error::EthosUError, feature_map::Which, registers::Operation, up};
use std::ops::Range;

/// The OFM rows, columns and channels of block `index` of `op` (blocks in order of depth, then
/// width, then height), `None` past the last.
fn block(op: &Operation, index: u64) -> Result<Option<[Range<u64>; 3]>, EthosUError> {
    let (ofm, _) = op.shapes()?;
    let size = op.ofm_block()?;
    let counts = [up(ofm[0], size[0]), up(ofm[1], size[1]), up(ofm[2], size[2])];
    if index >= counts.iter().product() {
        return Ok(None);
    }
    let at = [index / (counts[2] * counts[1]), (index / counts[2]) % counts[1], index % counts[2]];
    let range = |k: usize| at[k] * size[k]..((at[k] + 1) * size[k]).min(ofm[k]);
    Ok(Some([range(0), range(1), range(2)]))
}

/// The IFM channels a convolution's job takes at a time: 32 of an 8-bit IFM, 16 of a 16-bit one.
fn ifm_block_depth(op: &Operation) -> Result<u64, EthosUError> {
    Ok(256 / (8 * op.feature_map(Which::Ifm)?.element_bytes))
}

/// The IFM and IFM2 bytes job `job` of `op` reads, `None` past its last job.
fn job_reads(op: &Operation, job: u64, regions: &[(usize, u64)]) -> Result<Option<Vec<Span>>, EthosUError> {
    let (_, ifm) = op.shapes()?;
    let name = op.command.name;
    let conv = name == "NPU_OP_CONV" || (name == "NPU_OP_POOL" && op.param == 2);
    let depth_blocks = if conv { up(ifm[2], ifm_block_depth(op)?) } else { 1 };
    let Some([ys, xs, cs]) = block(op, job / depth_blocks)? else { return Ok(None) };
    if name == "NPU_OP_ELEMENTWISE" {
        let mut spans = op.spans(Which::Ifm, [ys.clone(), xs.clone(), cs.clone()], regions)?;
        let broadcast = |f: &str| op.register("NPU_SET_IFM2_BROADCAST", f);
        if op.reads_ifm2_map()? {
            let one = |f: &str, r: &Range<u64>| -> Result<Range<u64>, EthosUError> {
                Ok(if broadcast(f)? == 1 { 0..1 } else { r.clone() })
            };
            let volume = [one("broadcast_h", &ys)?, one("broadcast_w", &xs)?, one("broadcast_c", &cs)?];
            spans.extend(op.spans(Which::Ifm2, volume, regions)?);
        }
        return Ok(Some(spans));
    }
    let [kw, kh] = op.kernel()?;
    let [sx, sy] = op.stride()?;
    let [dx, dy] = op.dilation()?;
    let [top, left, ..] = op.padding()?;
    // The IFM rows (columns) OFM rows `r` reach, within the IFM.
    let reach = |r: &Range<u64>, s: u64, k: u64, d: u64, pad: u64, all: u64| {
        (r.start * s).saturating_sub(pad).min(all)..((r.end - 1) * s + (k - 1) * d + 1).saturating_sub(pad).min(all)
    };
    let channels = if conv {
        let depth = ifm_block_depth(op)?;
        let first = (job % depth_blocks) * depth;
        first..(first + depth).min(ifm[2])
    } else {
        cs
    };
    let volume = [reach(&ys, sy, kh, dy, top, ifm[0]), reach(&xs, sx, kw, dx, left, ifm[1]), channels];
    Ok(Some(op.spans(Which::Ifm, volume, regions)?))
}

/// What `op`'s `NPU_SET_BLOCKDEP` lets it read while `before` (the kernel before it) may still be
/// writing it.
pub fn check(before: &Operation, op: &Operation, regions: &[(usize, u64)]) -> Result<Vec<Finding>, EthosUError> {
    // A stream that never sets it leaves it at its reset value, 0.
    let depth = op.registers.get("NPU_SET_BLOCKDEP", "blockdep").unwrap_or(0);
    let (ofm, _) = before.shapes()?;
    let size = before.ofm_block()?;
    let before_jobs = up(ofm[0], size[0]) * up(ofm[1], size[1]) * up(ofm[2], size[2]);
    let mut findings = Vec::new();
    for job in 0..depth {
        let Some(reads) = job_reads(op, job, regions)? else { break };
        // The kernel before's jobs still outstanding: its last `depth - job`.
        for pending in before_jobs.saturating_sub(depth - job)..before_jobs {
            let Some(volume) = block(before, pending)? else { continue };
            if let Some((memory, start, end)) = overlap(&reads, &before.spans(Which::Ofm, volume, regions)?) {
                let message = format!(
                    "BLOCKDEP {depth} lets its job {job} read bytes (memory {memory}, {start:#x}..{end:#x}) that job \
                     {pending} of {before_jobs} of the kernel before may still be writing"
                );
                findings.push(Finding { offset: op.offset, outstanding: before.offset, message });
            }
        }
    }
    Ok(findings)
}

//! The rule checker: what a functional model, which runs each operation to its end, cannot see.
//! The NPU runs DMA and kernels (convolutions, pools, elementwise operations) at once: a DMA
//! started by `NPU_OP_DMA_START` is outstanding until an `NPU_OP_DMA_WAIT k` leaves at most `k`
//! DMAs outstanding, and a kernel until an `NPU_OP_KERNEL_WAIT n` leaves at most `n` kernels,
//! or until the kernel after next starts: kernels run in order, a kernel overlapping at most the
//! end of the one before (`NPU_SET_BLOCKDEP`), so once a kernel's command is taken all kernels
//! before the previous one are done.
//! So a stream must wait for a DMA before a kernel reads or writes what the DMA writes, or
//! writes what it reads; and for a kernel before a DMA writes what the kernel reads or writes,
//! or reads what it writes. The checker assumes nothing finishes early (the worst case the
//! hardware allows) and reports each operation that touches bytes an outstanding one may still
//! be writing or reading, with both offsets.
//!
//! `NPU_SET_BLOCKDEP` (how far a kernel may overlap the one before, job by job) is checked in
//! `blockdep.rs`; the internal SRAM each kernel's block configuration takes, and the lookup
//! tables in it, in `shram.rs` (a kernel writes its SRAM areas and reads its table there, so a
//! DMA putting a table in the SRAM waits for the kernels it concerns here).

mod blockdep;
pub(crate) mod shram;

use crate::{
    error::EthosUError,
    feature_map::{FeatureMap, Format, Which},
    payload::Config,
    registers::Operation,
};

/// Bytes of one memory: `(memory, start, end)`; the internal SRAM is memory `usize::MAX`.
pub type Span = (usize, u64, u64);

/// What an operation reads and writes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Access {
    pub reads: Vec<Span>,
    pub writes: Vec<Span>,
}

/// One broken rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// The offset of the operation that touches the bytes, and of the outstanding one.
    pub offset: usize,
    pub outstanding: usize,
    pub message: String,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "command stream, offset {:#06x}: {} (outstanding since {:#06x})",
            self.offset, self.message, self.outstanding
        )
    }
}

const INTERNAL: usize = usize::MAX;

/// The most elements of one feature map the checker follows: 64 Mi (64 MiB of int8), beyond any
/// tensor of the systems the NPU is built into; a corrupted shape past it is an error.
const MAX_ELEMENTS: u64 = 1 << 26;

/// The spans the elements of rows `ys`, columns `xs` and channels `cs` of `map` take, merged, in
/// the memories `regions` maps regions to (`(memory, base)` each), sorted; `None` past
/// `MAX_ELEMENTS`.
fn volume_spans(
    map: &FeatureMap,
    [ys, xs, cs]: [std::ops::Range<u64>; 3],
    regions: &[(usize, u64)],
) -> Option<Vec<Span>> {
    let Some(&(memory, base)) = regions.get(map.region as usize) else { return Some(Vec::new()) };
    let count = |r: &std::ops::Range<u64>| r.end.saturating_sub(r.start);
    let elements = count(&ys).checked_mul(count(&xs))?.checked_mul(count(&cs))?;
    if elements > MAX_ELEMENTS {
        return None;
    }
    // The channels that lie side by side: a pixel's in NHWC, each brick of 16 in NHCWB16, whose
    // next pixel's follow on; so the runs of a row follow on from each other where the map is
    // dense, and extend the run before.
    let groups: Vec<std::ops::Range<u64>> = match map.format {
        Format::Nhwc => vec![cs],
        Format::Nhcwb16 => {
            (cs.start / 16..cs.end.div_ceil(16)).map(|b| (16 * b).max(cs.start)..(16 * b + 16).min(cs.end)).collect()
        }
    };
    let mut runs: Vec<(u64, u64)> = Vec::new();
    for y in ys {
        for group in &groups {
            for x in xs.clone() {
                let start = base + map.address(y, x, group.start);
                let end = start + (group.end - group.start) * map.element_bytes;
                match runs.last_mut() {
                    Some((_, last)) if *last == start => *last = end,
                    _ => runs.push((start, end)),
                }
            }
        }
    }
    runs.sort_unstable();
    let mut spans: Vec<Span> = Vec::new();
    for (start, end) in runs {
        match spans.last_mut() {
            Some(last) if start <= last.2 => last.2 = last.2.max(end),
            _ => spans.push((memory, start, end)),
        }
    }
    Some(spans)
}

impl Operation {
    /// `volume_spans` of the feature map `which` of the operation, or an error at it past
    /// `MAX_ELEMENTS`.
    fn spans(
        &self,
        which: Which,
        volume: [std::ops::Range<u64>; 3],
        regions: &[(usize, u64)],
    ) -> Result<Vec<Span>, EthosUError> {
        let map = self.feature_map(which)?;
        volume_spans(&map, volume.clone(), regions).ok_or_else(|| {
            let [ys, xs, cs] = volume.map(|r| r.end.saturating_sub(r.start));
            self.error(format!(
                "a feature map of {ys}x{xs}x{cs} elements, more than the rule checker follows ({MAX_ELEMENTS})"
            ))
        })
    }
}

fn span(regions: &[(usize, u64)], region: u64, address: u64, length: u64) -> Vec<Span> {
    regions
        .get(region as usize)
        .map(|&(m, base)| vec![(m, base + address, base + address + length)])
        .unwrap_or_default()
}

/// The first span of `a` (in its order) that shares bytes with one of `b`, as the bytes they share
/// with the first such span of `b`. In O((|a| + |b|) log |b|): `b` merged and searched.
fn overlap(a: &[Span], b: &[Span]) -> Option<Span> {
    let mut sorted = b.to_vec();
    sorted.sort_unstable();
    let mut union: Vec<Span> = Vec::with_capacity(sorted.len());
    for s in sorted {
        match union.last_mut() {
            Some(last) if last.0 == s.0 && s.1 < last.2 => last.2 = last.2.max(s.2),
            _ => union.push(s),
        }
    }
    let meets = |x: &&Span| {
        let k = union.partition_point(|u| (u.0, u.2) <= (x.0, x.1));
        union.get(k).is_some_and(|u| u.0 == x.0 && u.1 < x.2)
    };
    let x = a.iter().find(meets)?;
    b.iter().find_map(|y| (x.0 == y.0 && x.1 < y.2 && y.1 < x.2).then_some((x.0, x.1.max(y.1), x.2.min(y.2))))
}

impl Operation {
    /// The OFM's shape, and the IFM's as the kernel reaches it.
    pub(crate) fn shapes(&self) -> Result<([u64; 3], [u64; 3]), EthosUError> {
        let get = |c: &str, f: &str| self.register(c, f);
        let ofm = [
            get("NPU_SET_OFM_HEIGHT_M1", "height_m1")? + 1,
            get("NPU_SET_OFM_WIDTH_M1", "width_m1")? + 1,
            get("NPU_SET_OFM_DEPTH_M1", "depth_m1")? + 1,
        ];
        if self.command.name == "NPU_OP_ELEMENTWISE" {
            return Ok((ofm, ofm));
        }
        let [kw, kh] = self.kernel()?;
        let [sx, sy] = self.stride()?;
        let [dx, dy] = self.dilation()?;
        let [top, left, bottom, right] = self.padding()?;
        let extent = |o: u64, s: u64, k: u64, d: u64, p: u64| ((o - 1) * s + (k - 1) * d + 1).saturating_sub(p);
        // A convolution and a reduce-sum pool read all IFM channels; the others one per OFM channel.
        let reduces = self.command.name == "NPU_OP_CONV" || (self.command.name == "NPU_OP_POOL" && self.param == 2);
        let depth = if reduces { get("NPU_SET_IFM_DEPTH_M1", "depth_m1")? + 1 } else { ofm[2] };
        Ok((ofm, [extent(ofm[0], sy, kh, dy, top + bottom), extent(ofm[1], sx, kw, dx, left + right), depth]))
    }

    /// What the operation reads and writes, in the memories `regions` maps regions to.
    pub fn access(&self, regions: &[(usize, u64)]) -> Result<Access, EthosUError> {
        let get = |c: &str, f: &str| self.register(c, f);
        let name = self.command.name;
        if name == "NPU_OP_DMA_START" {
            let length = get("NPU_SET_DMA0_LEN", "addr")?;
            let end = |side: &str| -> Result<Vec<Span>, EthosUError> {
                let (region, address) = (
                    get(&format!("NPU_SET_DMA0_{side}_REGION"), "region")?,
                    get(&format!("NPU_SET_DMA0_{side}"), "addr")?,
                );
                if get(&format!("NPU_SET_DMA0_{side}_REGION"), "region_mode")? == 1 {
                    return Ok(vec![(INTERNAL, address, address + length)]);
                }
                Ok(span(regions, region, address, length))
            };
            return Ok(Access { reads: end("SRC")?, writes: end("DST")? });
        }
        if !self.is_kernel() {
            return Ok(Access::default());
        }
        let (ofm_shape, ifm_shape) = self.shapes()?;
        let mut reads = self.spans(Which::Ifm, ifm_shape.map(|d| 0..d), regions)?;
        if name == "NPU_OP_ELEMENTWISE" {
            let broadcast = |f: &str| get("NPU_SET_IFM2_BROADCAST", f);
            if self.reads_ifm2_map()? {
                let one = |f: &str, d: u64| -> Result<u64, EthosUError> { Ok(if broadcast(f)? == 1 { 1 } else { d }) };
                let shape = [
                    one("broadcast_h", ofm_shape[0])?,
                    one("broadcast_w", ofm_shape[1])?,
                    one("broadcast_c", ofm_shape[2])?,
                ];
                reads.extend(self.spans(Which::Ifm2, shape.map(|d| 0..d), regions)?);
            }
        }
        if name == "NPU_OP_CONV" || name == "NPU_OP_DEPTHWISE" {
            reads.extend(span(
                regions,
                get("NPU_SET_WEIGHT_REGION", "region")?,
                get("NPU_SET_WEIGHT_BASE", "addr")?,
                get("NPU_SET_WEIGHT_LENGTH", "length")?,
            ));
            reads.extend(span(
                regions,
                get("NPU_SET_SCALE_REGION", "region")?,
                get("NPU_SET_SCALE_BASE", "addr")?,
                get("NPU_SET_SCALE_LENGTH", "length")?,
            ));
        }
        Ok(Access { reads, writes: self.spans(Which::Ofm, ofm_shape.map(|d| 0..d), regions)? })
    }
}

/// Adds a finding at `offset` for each of `hazards` that `who` runs into with the operation
/// outstanding since `outstanding`, for want of the wait `wait`.
fn report(
    findings: &mut Vec<Finding>,
    (offset, outstanding): (usize, usize),
    (who, wait): (&str, &str),
    hazards: [(Option<Span>, &str); 3],
) {
    for (hit, what) in hazards {
        if let Some((memory, start, end)) = hit {
            let message = format!("{who} {what} (memory {memory}, {start:#x}..{end:#x}) with no {wait} for it");
            findings.push(Finding { offset, outstanding, message });
        }
    }
}

/// Checks the waits of `ops` (a stream's operations) against what each touches, in the memories
/// `regions` maps regions to; returns what breaks the rules.
pub fn check(config: &Config, ops: &[Operation], regions: &[(usize, u64)]) -> Result<Vec<Finding>, EthosUError> {
    let mut dmas: Vec<(usize, Access)> = Vec::new();
    let mut kernels: Vec<(usize, Access)> = Vec::new();
    let mut findings = Vec::new();
    let mut before: Option<&Operation> = None;
    let retire = |queue: &mut Vec<(usize, Access)>, keep: usize| {
        let done = queue.len().saturating_sub(keep);
        queue.drain(..done);
    };
    let (mut tables, mut shram_findings) = (shram::Tables::default(), Vec::new());
    for op in ops {
        let parameter = |field: &str| op.command.field(field).map_or(0, |f| f.value(op.param, 0)) as usize;
        match op.command.name {
            "NPU_OP_DMA_WAIT" => retire(&mut dmas, parameter("k")),
            "NPU_OP_KERNEL_WAIT" => retire(&mut kernels, parameter("n")),
            "NPU_OP_DMA_START" => {
                let access = op.access(regions)?;
                for (at, kernel) in &kernels {
                    let hazards = [
                        (overlap(&access.writes, &kernel.reads), "writes bytes a kernel still reads"),
                        (overlap(&access.writes, &kernel.writes), "writes bytes a kernel still writes"),
                        (overlap(&access.reads, &kernel.writes), "reads bytes a kernel may not have written yet"),
                    ];
                    report(&mut findings, (op.offset, *at), ("the DMA", "NPU_OP_KERNEL_WAIT"), hazards);
                }
                tables.dma(&access.writes);
                dmas.push((op.offset, access));
            }
            name if name != "NPU_OP_STOP" => {
                let mut access = op.access(regions)?;
                // A kernel writes its areas of the internal SRAM and reads its lookup table there.
                let (areas, mut found) = shram::areas(config, op)?;
                shram_findings.append(&mut found);
                let table = if op.is_kernel() { shram::table_span(op, config.shram_bytes())? } else { None };
                if let Some(end) = areas {
                    shram_findings.extend(tables.kernel(op, table, end));
                }
                if access == Access::default() {
                    continue;
                }
                if let Some(end) = areas {
                    access.writes.push((INTERNAL, 0, end));
                }
                if let Some((start, end)) = table {
                    access.reads.push((INTERNAL, start, end));
                }
                for (at, dma) in &dmas {
                    let hazards = [
                        (overlap(&access.reads, &dma.writes), "reads bytes a DMA may not have written yet"),
                        (overlap(&access.writes, &dma.writes), "writes bytes a DMA still writes"),
                        (overlap(&access.writes, &dma.reads), "writes bytes a DMA still reads"),
                    ];
                    report(&mut findings, (op.offset, *at), (op.command.name, "NPU_OP_DMA_WAIT"), hazards);
                }
                if let Some(before) = before {
                    findings.extend(blockdep::check(before, op, regions)?);
                }
                before = Some(op);
                retire(&mut kernels, 1);
                kernels.push((op.offset, access));
            }
            _ => {}
        }
    }
    // The SHRAM's findings after the waits', as a pass of their own would give them.
    findings.append(&mut shram_findings);
    Ok(findings)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_merge_and_overlap_within_one_memory() {
        // A 2x2x2 NHWC map at 0x100 of region 1, which lies at 0x40 of memory 3: rows of 4
        // bytes 8 apart, so two spans.
        let map = FeatureMap {
            region: 1,
            bases: [0x100; 4],
            strides: [2, 8, 1],
            format: Format::Nhwc,
            element_bytes: 1,
            signed: true,
            height0: 2,
            height1: 2,
            width0: 2,
            zero_point: 0,
        };
        let regions = [(0, 0), (3, 0x40)];
        let spans = volume_spans(&map, [0..2, 0..2, 0..2], &regions).unwrap();
        assert_eq!(spans, [(3, 0x140, 0x144), (3, 0x148, 0x14c)]);
        // The gap between the rows touches neither; the same bytes in another memory neither.
        assert_eq!(overlap(&spans, &[(3, 0x144, 0x148)]), None);
        assert_eq!(overlap(&spans, &[(2, 0x140, 0x150)]), None);
        assert_eq!(overlap(&spans, &[(3, 0x146, 0x14a)]), Some((3, 0x148, 0x14a)));
        assert_eq!(span(&regions, 1, 0x10, 4), [(3, 0x50, 0x54)]);
        assert_eq!(span(&regions, 5, 0, 4), []);
    }
}

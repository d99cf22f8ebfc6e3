//! The contract bound of a run: for each unit, the fewest cycles the cost formulas of isa.md
//! (section 5) allow for the work it did, as if each kernel gave it one job (the NU's fill, a
//! vector unit's start-up, a DMA channel's latency or set-up paid once a kernel) and the DDR port
//! moved each byte once each way (a constant read twice, or an activation read again, counts
//! once). A run can take no fewer cycles than its busiest unit's bound; how far above it a run
//! is says what tiling, synchronisation and scheduling cost.

use crate::{
    cost::{cycles, dma_shape},
    desc::Job,
    engine::Npu,
    params::{DDR_BASE, DDR_BYTES},
};

/// Whether `addr` is in the DDR window.
fn in_ddr(addr: u32) -> bool {
    addr.wrapping_sub(DDR_BASE) < DDR_BYTES
}

/// Rows of memory as `(address, bytes)` pairs.
type Rows = Vec<(u32, u32)>;

/// The rows a DMA job touches: its source's (`None` for a fill), and its destination's.
fn rows(job: &Job) -> Option<(Option<Rows>, Rows)> {
    let lines = |base: u32, rows: u32, planes: u32, row: i32, plane: i32, bytes: u32| {
        (0..planes)
            .flat_map(move |p| {
                (0..rows).map(move |r| (base.wrapping_add((p as i32 * plane + r as i32 * row) as u32), bytes))
            })
            .collect::<Vec<_>>()
    };
    match job {
        Job::Copy(c) => Some((
            Some(lines(c.src, c.rows, c.planes, c.src_row_stride, c.src_plane_stride, c.row_bytes)),
            lines(c.dst, c.rows, c.planes, c.dst_row_stride, c.dst_plane_stride, c.row_bytes),
        )),
        Job::Fill(f) => Some((None, lines(f.dst, f.rows, f.planes, f.dst_row_stride, f.dst_plane_stride, f.row_bytes))),
        _ => None,
    }
}

/// Bytes of the union of `ranges`.
fn union_bytes(mut ranges: Vec<(u64, u64)>) -> u64 {
    ranges.sort_unstable();
    let (mut total, mut reach) = (0, 0);
    for (start, end) in ranges {
        let start = start.max(reach);
        if end > start {
            total += end - start;
            reach = end;
        }
    }
    total
}

/// What one unit did in one kernel, summed.
#[derive(Default)]
struct Work {
    /// Its jobs' cycles as the engine costs them (for DMA through DDR: latency and lines).
    cycles: u64,
    jobs: u64,
    /// On-chip DMA: jobs, bytes and the 64-byte blocks they were costed in.
    on_chip: (u64, u64, u64),
    through_ddr: u64,
}

/// Each unit's contract bound, by the report's unit names, then `ddr` (the port); `kernel_starts`
/// are the cycles the kernels began (a job belongs to the last kernel begun before it was issued).
pub fn unit_bounds(npu: &Npu, kernel_starts: &[u64]) -> Vec<(String, u64)> {
    let p = &npu.params;
    let mut work: Vec<Vec<Work>> = npu.units.iter().map(|_| Vec::new()).collect();
    let (mut read, mut written) = (Vec::new(), Vec::new());
    for issued in &npu.jobs {
        let kernel = kernel_starts.partition_point(|&s| s <= issued.issued);
        let per_kernel = &mut work[issued.unit];
        if per_kernel.len() <= kernel {
            per_kernel.resize_with(kernel + 1, Work::default);
        }
        let w = &mut per_kernel[kernel];
        let job = &issued.job;
        w.jobs += 1;
        match rows(job) {
            Some((source, destination)) => {
                let ddr = source.iter().flatten().chain(&destination).any(|&(a, _)| in_ddr(a));
                w.cycles += cycles(job, p, ddr);
                let (bytes, _) = dma_shape(job).unwrap_or_default();
                if ddr {
                    w.through_ddr += 1;
                } else {
                    w.on_chip.0 += 1;
                    w.on_chip.1 += bytes;
                    w.on_chip.2 += bytes.div_ceil(64);
                }
                let span = |&(a, n): &(u32, u32)| (u64::from(a), u64::from(a) + u64::from(n));
                read.extend(source.iter().flatten().filter(|r| in_ddr(r.0)).map(span));
                written.extend(destination.iter().filter(|r| in_ddr(r.0)).map(span));
            }
            None => w.cycles += cycles(job, p, false),
        }
    }
    let fill = u64::from(p.nu_rows + p.nu_cols);
    let mut bounds: Vec<(String, u64)> = npu
        .units
        .iter()
        .zip(&work)
        .map(|(unit, kernels)| {
            let bound: u64 = kernels
                .iter()
                .filter(|w| w.jobs > 0)
                .map(|w| {
                    // What one job a kernel would not pay again.
                    let repeated = match unit.name.as_str() {
                        "nu" => (w.jobs - 1) * fill,
                        name if name.starts_with("vu") => (w.jobs - 1) * 8,
                        _ => {
                            let (jobs, bytes, blocks) = w.on_chip;
                            let ddr = w.through_ddr.saturating_sub(1) * u64::from(p.ddr_latency);
                            let on_chip = jobs.saturating_sub(1) * 4 + blocks - bytes.div_ceil(64);
                            ddr + on_chip
                        }
                    };
                    w.cycles - repeated
                })
                .sum();
            (unit.name.clone(), bound)
        })
        .collect();
    let bytes = union_bytes(read) + union_bytes(written);
    bounds.push(("ddr".into(), bytes.div_ceil(u64::from(p.ddr_bytes_per_cycle.max(1)))));
    bounds
}

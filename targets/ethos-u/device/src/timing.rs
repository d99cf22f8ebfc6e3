//! The timing model: how many NPU cycles a command stream takes on a configuration in a system.
//!
//! Each kernel (convolution, depthwise convolution, pool, elementwise operation) runs as a
//! pipeline of two stages over its OFM blocks: the MAC stage, which computes a block one
//! micro-block step at a time (a step per kernel element and IFM block, four cycles per step for
//! each micro-block of the block's width and height, or as long as loading the step's weights
//! takes), and the output stage, which scales, activates and writes the block's elements at a
//! rate per element. The slower stage sets the pace; the other adds one block. Blocks at the
//! OFM's far edges are as large as the OFM leaves them. Beside the pipeline the kernel moves
//! bytes: the IFM once per OFM depth block (a convolution reads all IFM channels for each), the
//! weights and scales once per OFM block position, the OFM once. The kernel takes as long as the
//! longer of its pipeline and its busiest memory (its bytes at the memory's rate, a run shorter
//! than the memory's burst costing a whole burst, plus the memory's latency).
//!
//! DMA runs beside the kernels, one transfer at a time (the Ethos-U55 has one DMA channel; the
//! model keeps the U65 to one too), at the slower of its two memories' rates plus the read
//! latency. The command stream processor issues commands in order: a kernel starts when the one
//! before it ends (but for BLOCKDEP, below), `NPU_OP_DMA_WAIT k` holds everything after it until at most `k` DMAs are
//! outstanding, `NPU_OP_KERNEL_WAIT n` until at most `n` kernels are. The stream's cycles are the
//! end of the last kernel or DMA.
//!
//! A kernel whose `NPU_SET_BLOCKDEP` lets it start during the last jobs of the kernel before
//! spends its start-up (its memories' latencies, its pipeline's fill) under them.
//!
//! Not modelled: a DMA and a kernel contending for one memory, outstanding AXI transactions, and the halo an IFM block reads around its OFM block
//! beyond the kernel's reach. `targets/ethos-u/docs/timing.md` gives the figures' sources and the comparison with Vela's
//! own estimate.

mod presets;
pub mod report;

pub use presets::{Core, Memory, System};

use crate::{
    error::EthosUError,
    feature_map::{FeatureMap, Format, Which},
    payload::Config,
    registers::Operation,
    up,
};

/// One operation's timing.
#[derive(Clone, Debug, PartialEq)]
pub struct OpTiming {
    /// The operation's offset in the command stream, and its command.
    pub offset: usize,
    pub command: &'static str,
    /// What it does, in a few words (`CONV 3x3/2`, `ELEMENTWISE ADD`, `DMA 1120 B`).
    pub what: String,
    /// When it starts and how long it runs.
    pub start: u64,
    pub cycles: u64,
    /// The MAC stage's and the output stage's cycles together (kernels; the transfer for a DMA).
    pub compute: u64,
    pub macs: u64,
    /// Bytes read and written in each of the system's memories.
    pub reads: Vec<u64>,
    pub writes: Vec<u64>,
}

/// A stream's timing.
#[derive(Clone, Debug, PartialEq)]
pub struct Timing {
    /// The whole stream's cycles.
    pub cycles: u64,
    /// Each kernel and DMA, in stream order.
    pub ops: Vec<OpTiming>,
}

/// What the stream processor meets, in order: waits, and DMAs and kernels with their cycles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    KernelWait(usize),
    DmaWait(usize),
    Dma(u64),
    Kernel(KernelStep),
}

/// A kernel as the stream processor sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct KernelStep {
    cycles: u64,
    /// Its jobs (OFM blocks), its start-up (the memories' latencies and the pipeline's fill,
    /// which it may spend under the kernel before), and its `NPU_SET_BLOCKDEP`.
    jobs: u64,
    startup: u64,
    blockdep: u64,
}

/// When each DMA and kernel of `steps` starts, in order, and when the last one ends. A kernel
/// with a BLOCKDEP of `b` may start while the kernel before works on its last `b` jobs (taken
/// as equally long), as far as its start-up reaches: it cannot compute sooner, only fill its
/// pipeline and wait for its first reads.
fn schedule(steps: &[Step]) -> (Vec<u64>, u64) {
    // When each kernel and DMA ends, in issue order; when the stream processor may issue next.
    let (mut kernels, mut dmas, mut issue) = (Vec::<u64>::new(), Vec::<u64>::new(), 0u64);
    // Everything but the last `allowed` of `ends` has ended at the time this gives.
    let settled = |ends: &[u64], allowed: usize| ends.len().checked_sub(allowed + 1).map_or(0, |k| ends[k]);
    let mut starts = Vec::new();
    let mut before: Option<KernelStep> = None;
    for step in steps {
        match *step {
            Step::KernelWait(n) => issue = issue.max(settled(&kernels, n)),
            Step::DmaWait(k) => issue = issue.max(settled(&dmas, k)),
            Step::Dma(cycles) => {
                let start = issue.max(dmas.last().copied().unwrap_or(0));
                dmas.push(start + cycles);
                starts.push(start);
            }
            Step::Kernel(k) => {
                // The processor holds a kernel until the one before it ends, or, by its BLOCKDEP,
                // until that one's last jobs.
                let hidden = match before {
                    Some(b) if k.blockdep > 0 => k.startup.min(b.cycles * k.blockdep.min(b.jobs) / b.jobs.max(1)),
                    _ => 0,
                };
                let start = issue.max(kernels.last().map_or(0, |&end| end - hidden));
                issue = start;
                kernels.push(start + k.cycles);
                starts.push(start);
                before = Some(k);
            }
        }
    }
    (starts, kernels.iter().chain(&dmas).copied().max().unwrap_or(0))
}

/// The timing of `ops` (a stream's operations) compiled for `config`, in `system`.
pub fn estimate(config: &Config, system: &System, ops: &[Operation]) -> Result<Timing, EthosUError> {
    let core = Core::of(config);
    let mut timed = Vec::new();
    let mut steps = Vec::new();
    for op in ops {
        let name = op.command.name;
        if name == "NPU_OP_KERNEL_WAIT" {
            steps.push(Step::KernelWait(usize::from(op.param)));
        } else if name == "NPU_OP_DMA_WAIT" {
            steps.push(Step::DmaWait(usize::from(op.param)));
        } else if name == "NPU_OP_DMA_START" {
            let t = dma(system, op)?;
            steps.push(Step::Dma(t.cycles));
            timed.push(t);
        } else if op.is_kernel() {
            let (t, jobs, startup) = kernel(&core, system, op)?;
            let blockdep = op.registers.get("NPU_SET_BLOCKDEP", "blockdep").unwrap_or(0);
            steps.push(Step::Kernel(KernelStep { cycles: t.cycles, jobs, startup, blockdep }));
            timed.push(t);
        }
    }
    let (starts, cycles) = schedule(&steps);
    for (t, start) in timed.iter_mut().zip(starts) {
        t.start = start;
    }
    Ok(Timing { cycles, ops: timed })
}

/// Cycles to move `reads` and `writes` bytes through `memory`, which they keep busy as long as
/// `busy` bytes would (more than their own when they come in runs shorter than its bursts).
fn transfer(memory: &Memory, reads: u64, writes: u64, busy: f64) -> f64 {
    let latency = |bytes: u64, cycles: u64| if bytes > 0 { cycles as f64 } else { 0.0 };
    busy / memory.bytes_per_cycle + latency(reads, memory.read_latency) + latency(writes, memory.write_latency)
}

/// How many times its bytes' worth a feature map's transfer of `bytes` keeps `memory` busy: runs
/// shorter than the memory's burst cost a whole burst (a transfer shorter than a burst, its own
/// bytes). An NHCWB16 map moves in bricks of 16 channels along the block's width; an NHWC map in
/// whole rows of the block when the block takes every channel of a pixel, else pixel by pixel,
/// `block_depth` channels at a time.
fn burst_factor(memory: &Memory, map: &FeatureMap, bytes: u64, depth: u64, [_, width, block_depth]: [u64; 3]) -> f64 {
    let run = match map.format {
        Format::Nhcwb16 => 16 * map.element_bytes * width,
        Format::Nhwc if block_depth == depth => depth * map.element_bytes * width,
        Format::Nhwc => block_depth * map.element_bytes,
    };
    (memory.burst.min(bytes) as f64 / run.max(1) as f64).max(1.0)
}

fn dma(system: &System, op: &Operation) -> Result<OpTiming, EthosUError> {
    let get = |c: &str, f: &str| op.register(c, f);
    let length = get("NPU_SET_DMA0_LEN", "addr")?;
    let mut reads = vec![0; system.memories.len()];
    let mut writes = vec![0; system.memories.len()];
    // One side may be the internal SRAM (a lookup table), which takes bytes at any rate.
    let side = |s: &str| -> Result<Option<usize>, EthosUError> {
        let region = format!("NPU_SET_DMA0_{s}_REGION");
        Ok((get(&region, "region_mode")? == 0).then_some(system.memory_of(get(&region, "region")?)))
    };
    let (source, destination) = (side("SRC")?, side("DST")?);
    let mut rate = f64::INFINITY;
    let mut latency = 0;
    if let Some(m) = source {
        reads[m] += length;
        rate = rate.min(system.memories[m].bytes_per_cycle);
        latency += system.memories[m].read_latency;
    }
    if let Some(m) = destination {
        writes[m] += length;
        rate = rate.min(system.memories[m].bytes_per_cycle);
        latency += system.memories[m].write_latency;
    }
    // A DMA moves one contiguous run: whole bursts.
    let cycles = if rate.is_finite() { (length as f64 / rate).ceil() as u64 + latency } else { latency };
    Ok(OpTiming {
        offset: op.offset,
        command: op.command.name,
        what: format!("DMA {length} B"),
        start: 0,
        cycles,
        compute: cycles,
        macs: 0,
        reads,
        writes,
    })
}

/// What a kernel's registers say about its work.
#[derive(Clone, Copy)]
struct Work {
    ofm: [u64; 3],
    ifm: [u64; 3],
    block: [u64; 3],
    kernel: [u64; 2],
    ifm_bytes: u64,
    ofm_bytes: u64,
    accumulator_40: bool,
    part_kernel: bool,
}

impl Work {
    fn of(op: &Operation) -> Result<Work, EthosUError> {
        let (ofm, ifm) = op.shapes()?;
        let block = op.ofm_block()?;
        let is_kernel = op.command.name != "NPU_OP_ELEMENTWISE";
        Ok(Work {
            ofm,
            ifm,
            block: [block[0].min(ofm[0]), block[1].min(ofm[1]), block[2].min(ofm[2])],
            kernel: if is_kernel { op.kernel()? } else { [1, 1] },
            ifm_bytes: op.feature_map(Which::Ifm)?.element_bytes,
            ofm_bytes: op.feature_map(Which::Ofm)?.element_bytes,
            accumulator_40: op.register("NPU_SET_ACC_FORMAT", "acc_format")? == 1,
            part_kernel: is_kernel && op.register("NPU_SET_KERNEL_STRIDE", "weight_order")? == 1,
        })
    }

    /// OFM blocks in height and width, and in depth.
    fn blocks(&self) -> (u64, u64) {
        (up(self.ofm[0], self.block[0]) * up(self.ofm[1], self.block[1]), up(self.ofm[2], self.block[2]))
    }

    /// The IFM channels a convolution reads per IFM block: 16 for part-kernel-first traversal or
    /// 16-bit maps, else 32 (whole micro-blocks of 8 at most the IFM's depth).
    fn ifm_block_depth(&self) -> u64 {
        let most = if self.part_kernel || self.ifm_bytes == 2 { 16 } else { 32 };
        most.min(up(self.ifm[2], 8) * 8)
    }
}

/// The MAC stage's cycles for one OFM block of `work` in operation `name` (pooling mode or
/// elementwise mode in `param`).
fn mac_cycles(core: &Core, name: &str, param: u16, work: &Work) -> u64 {
    let [uh, uw, ud] = core.micro_block;
    let micro_xy = up(work.block[0], uh) * up(work.block[1], uw);
    let micro_z = up(work.block[2], ud);
    let weight_load = 4 * ud;
    let reduce_sum = name == "NPU_OP_POOL" && param == 2;
    let sixteen = work.ifm_bytes == 2;
    let drain = if work.accumulator_40 { core.drain.1 } else { core.drain.0 };
    // Kernels larger than 8x8 run as 8x8 sub-kernels.
    let pieces = |k: u64| (0..up(k, 8)).map(move |i| (k - 8 * i).min(8));
    let mut cycles = 0;
    for height in pieces(work.kernel[1]) {
        for width in pieces(work.kernel[0]) {
            let elements = height * width;
            let (step, steps) = match name {
                "NPU_OP_POOL" if !reduce_sum => {
                    let per = elements.max(4) * micro_xy * if sixteen && core.micro_block[2] > 4 { 2 } else { 1 };
                    (per, 1)
                }
                "NPU_OP_DEPTHWISE" => ((4 * micro_xy * if sixteen { 2 } else { 1 }).max(weight_load), up(elements, 4)),
                _ if work.part_kernel => {
                    let steps = up(elements, if sixteen { 2 } else { 4 }) * up(work.ifm_block_depth(), 8);
                    ((4 * micro_xy).max(weight_load), steps)
                }
                _ => ((4 * micro_xy).max(weight_load), elements),
            };
            cycles += step * steps * micro_z;
            // A block of one micro-block waits for its accumulators at each step.
            if micro_xy == 1 {
                cycles += drain * if micro_z == 1 { steps } else { steps.saturating_sub(1) * micro_z };
            }
        }
    }
    if name == "NPU_OP_CONV" || reduce_sum {
        cycles *= up(work.ifm[2], work.ifm_block_depth());
    }
    up(cycles, core.cores)
}

/// The output stage's cycles per OFM element.
fn output_rate(core: &Core, op: &Operation, work: &Work) -> Result<f64, EthosUError> {
    let name = op.command.name;
    let elementwise = name == "NPU_OP_ELEMENTWISE";
    let mode = op.param;
    let binary = elementwise && ![6, 7].contains(&mode);
    let stage = if elementwise && work.ifm_bytes == 4 {
        if binary { 0 } else { 1 }
    } else if elementwise && mode == 0 && work.ofm_bytes == 4 {
        2
    } else if (elementwise && mode == 0) || (!elementwise && work.accumulator_40) {
        3
    } else if elementwise && [1, 2].contains(&mode) {
        5
    } else if name == "NPU_OP_POOL" && mode == 0 {
        6
    } else {
        7
    };
    let function = op.register("NPU_SET_ACTIVATION", "activation_function")?;
    let (low, high) = op.feature_map(Which::Ofm)?.range();
    let bound = |c: &str| -> Result<i64, EthosUError> { Ok(i64::from(op.register(c, "clip_boundary")? as u16 as i16)) };
    let clamps = bound("NPU_SET_ACTIVATION_MIN")? > low.max(i64::from(i16::MIN))
        || bound("NPU_SET_ACTIVATION_MAX")? < high.min(i64::from(i16::MAX));
    let activation = if function != 0 {
        0
    } else if clamps {
        1
    } else {
        2
    };
    Ok(core.output[stage].max(core.activation[activation]))
}

/// The pipeline's cycles for the OFM blocks of `work` (operation `name` with `param`: a
/// convolution, depthwise convolution or pool) with the output stage taking `rate` cycles an
/// element: each block passes the MAC stage, then the output stage, the slower setting the pace.
/// Blocks at the OFM's far edges are as large as the OFM leaves them. Returns the cycles and the
/// pipeline's fill among them.
fn pipeline(core: &Core, name: &str, param: u16, work: &Work, rate: f64) -> (u64, u64) {
    // The sizes blocks take along an axis of `total` elements, and how many of each.
    let sizes = |total: u64, block: u64| {
        [(total / block, block), (1, total % block)].into_iter().filter(|&(n, size)| n > 0 && size > 0)
    };
    let (mut cycles, mut first) = (0, None);
    for (ny, h) in sizes(work.ofm[0], work.block[0]) {
        for (nx, w) in sizes(work.ofm[1], work.block[1]) {
            for (nz, d) in sizes(work.ofm[2], work.block[2]) {
                let mac = mac_cycles(core, name, param, &Work { block: [h, w, d], ..*work });
                let out = (rate * (h * w * d) as f64).ceil() as u64;
                cycles += ny * nx * nz * mac.max(out);
                first.get_or_insert(mac.min(out));
            }
        }
    }
    (cycles + first.unwrap_or(0), first.unwrap_or(0))
}

/// Each memory's bytes read and written by a kernel, and how many bytes' time they keep it busy.
struct Traffic {
    reads: Vec<u64>,
    writes: Vec<u64>,
    busy: Vec<f64>,
}

impl Traffic {
    fn add(&mut self, memory: usize, bytes: u64, burst_factor: f64, write: bool) {
        if write {
            self.writes[memory] += bytes;
        } else {
            self.reads[memory] += bytes;
        }
        self.busy[memory] += bytes as f64 * burst_factor;
    }
}

/// A kernel's timing, its jobs (OFM blocks) and its start-up: of the cycles beyond its steady
/// work (the MAC and output stages at pace, or its busiest memory's bytes at its rate), those
/// the pipeline's fill and its first reads' latency take.
fn kernel(core: &Core, system: &System, op: &Operation) -> Result<(OpTiming, u64, u64), EthosUError> {
    let name = op.command.name;
    let get = |c: &str, f: &str| op.register(c, f);
    let work = Work::of(op)?;
    let n = system.memories.len();
    let mut traffic = Traffic { reads: vec![0; n], writes: vec![0; n], busy: vec![0.0; n] };
    // Adds a transfer of `bytes` of feature map `which` (of `depth` channels) in blocks of
    // `block` to the traffic of its memory.
    let map = |traffic: &mut Traffic, which: Which, bytes: u64, depth: u64, block: [u64; 3], write: bool| {
        let map = op.feature_map(which)?;
        let m = system.memory_of(map.region);
        traffic.add(m, bytes, burst_factor(&system.memories[m], &map, bytes, depth, block), write);
        Ok::<(), EthosUError>(())
    };
    let (positions, depth_blocks) = work.blocks();
    let [oh, ow, oc] = work.ofm;
    let mut what = name.trim_start_matches("NPU_OP_").to_string();
    let (compute, macs, fill) = if name == "NPU_OP_ELEMENTWISE" {
        let ofm = op.feature_map(Which::Ofm)?;
        let depth = if ofm.format == Format::Nhcwb16 { up(oc, 16) * 16 } else { oc };
        let elements = oh * ow * depth;
        map(&mut traffic, Which::Ifm, oh * ow * oc * work.ifm_bytes, oc, work.block, false)?;
        if op.reads_ifm2_map()? {
            let one = |f: &str, d: u64| -> Result<u64, EthosUError> {
                Ok(if get("NPU_SET_IFM2_BROADCAST", f)? == 1 { 1 } else { d })
            };
            let [h, w, c] = [one("broadcast_h", oh)?, one("broadcast_w", ow)?, one("broadcast_c", oc)?];
            let block = [work.block[0].min(h), work.block[1].min(w), work.block[2].min(c)];
            map(&mut traffic, Which::Ifm2, h * w * c * op.feature_map(Which::Ifm2)?.element_bytes, c, block, false)?;
        }
        const MODES: [&str; 10] = ["MUL", "ADD", "SUB", "MIN", "MAX", "LRELU", "ABS", "CLZ", "SHR", "SHL"];
        what = format!("{what} {}", MODES.get(usize::from(op.param)).unwrap_or(&"?"));
        ((output_rate(core, op, &work)? * elements as f64).ceil() as u64, 0, 0)
    } else {
        let [kw, kh] = work.kernel;
        let [sx, sy] = op.stride()?;
        let [dx, dy] = op.dilation()?;
        // The IFM rows and columns one OFM block reaches, at most the IFM's.
        let reach = |block: u64, s: u64, k: u64, d: u64, all: u64| ((block - 1) * s + (k - 1) * d + 1).min(all);
        let ifm_rows = up(oh, work.block[0]) * reach(work.block[0], sy, kh, dy, work.ifm[0]);
        let ifm_columns = up(ow, work.block[1]) * reach(work.block[1], sx, kw, dx, work.ifm[1]);
        let conv = name == "NPU_OP_CONV";
        // A convolution reads every IFM channel for each OFM depth block; the others their own
        // (a reduce-sum all of them, once).
        let ifm_channels = if conv { work.ifm[2] * depth_blocks } else { work.ifm[2] };
        let ifm_block = [
            0,
            reach(work.block[1], sx, kw, dx, work.ifm[1]),
            if conv { work.ifm_block_depth() } else { work.block[2] },
        ];
        map(
            &mut traffic,
            Which::Ifm,
            ifm_rows * ifm_columns * ifm_channels * work.ifm_bytes,
            work.ifm[2],
            ifm_block,
            false,
        )?;
        if conv || name == "NPU_OP_DEPTHWISE" {
            for what in ["WEIGHT", "SCALE"] {
                let m = system.memory_of(get(&format!("NPU_SET_{what}_REGION"), "region")?);
                let bytes = get(&format!("NPU_SET_{what}_LENGTH"), "length")? * positions;
                traffic.add(m, bytes, 1.0, false);
            }
        }
        let (pipeline, fill) = pipeline(core, name, op.param, &work, output_rate(core, op, &work)?);
        let per_ofm = kw * kh * if conv || op.param == 2 && name == "NPU_OP_POOL" { work.ifm[2] } else { 1 };
        what = match name {
            "NPU_OP_POOL" => {
                format!("POOL {} {kw}x{kh}/{sx}", ["MAX", "AVERAGE", "REDUCE_SUM"][usize::from(op.param.min(2))])
            }
            _ => format!("{what} {kw}x{kh}/{sx}"),
        };
        (pipeline, per_ofm * oh * ow * oc, fill)
    };
    map(&mut traffic, Which::Ofm, oh * ow * oc * work.ofm_bytes, oc, work.block, true)?;
    let moving = system
        .memories
        .iter()
        .enumerate()
        .map(|(m, memory)| transfer(memory, traffic.reads[m], traffic.writes[m], traffic.busy[m]).ceil() as u64)
        .max()
        .unwrap_or(0);
    let streaming = system
        .memories
        .iter()
        .enumerate()
        .map(|(m, memory)| (traffic.busy[m] / memory.bytes_per_cycle).ceil() as u64)
        .max()
        .unwrap_or(0);
    let cycles = compute.max(moving);
    let steady = (compute - fill).max(streaming);
    let timing = OpTiming {
        offset: op.offset,
        command: name,
        what,
        start: 0,
        cycles,
        compute,
        macs,
        reads: traffic.reads,
        writes: traffic.writes,
    };
    // The start-up: the pipeline's fill and the first reads' latency (the writes' comes at the
    // end), as far as the cycles beyond the steady work go.
    let read_latency = system
        .memories
        .iter()
        .zip(&timing.reads)
        .filter(|&(_, &bytes)| bytes > 0)
        .map(|(memory, _)| memory.read_latency)
        .max()
        .unwrap_or(0);
    Ok((timing.clone(), positions * depth_blocks, (fill + read_latency).min(cycles.saturating_sub(steady))))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u55_128() -> Core {
        Core::of(&Config { product: 0, macs: 128, shram_kib: 24, cmd_stream_version: 0, arch: (1, 0, 6) })
    }

    fn work(ofm: [u64; 3], ifm_depth: u64, block: [u64; 3], kernel: [u64; 2]) -> Work {
        Work {
            ofm,
            ifm: [ofm[0], ofm[1], ifm_depth],
            block,
            kernel,
            ifm_bytes: 1,
            ofm_bytes: 1,
            accumulator_40: false,
            part_kernel: false,
        }
    }

    #[test]
    fn mac_stage_cycles_by_hand() {
        // The U55-128's micro-block is 1 high, 2 wide and 8 deep: a 2x4x16 block is 2x2
        // micro-blocks in x and y and 2 in depth; a step takes 4 cycles per micro-block in x
        // and y (16), or the 32 cycles loading 8 channels' weights takes.
        let core = u55_128();
        // A 3x3 convolution of 8 IFM channels (one IFM block): 9 steps of 32 cycles, 2 deep.
        assert_eq!(mac_cycles(&core, "NPU_OP_CONV", 0, &work([4, 4, 16], 8, [2, 4, 16], [3, 3])), 9 * 32 * 2);
        // 40 IFM channels are two IFM blocks of (at most) 32.
        assert_eq!(mac_cycles(&core, "NPU_OP_CONV", 0, &work([4, 4, 16], 40, [2, 4, 16], [3, 3])), 2 * 9 * 32 * 2);
        // A 10x1 kernel is two sub-kernels, of 8 and of 2 elements.
        assert_eq!(mac_cycles(&core, "NPU_OP_CONV", 0, &work([4, 4, 8], 8, [2, 4, 8], [10, 1])), 8 * 32 + 2 * 32);
        // A depthwise 3x3 on a 1x2x16 block (one micro-block in x and y): 3 steps of 4 kernel
        // elements at 32 cycles, 2 deep, and a drain of 2 cycles for each step after the first.
        assert_eq!(
            mac_cycles(&core, "NPU_OP_DEPTHWISE", 0, &work([4, 4, 16], 16, [1, 2, 16], [3, 3])),
            3 * 32 * 2 + 2 * 2 * 2
        );
        // A 2x2 max pool: at least 4 cycles per kernel pass, per micro-block in x and y.
        assert_eq!(mac_cycles(&core, "NPU_OP_POOL", 0, &work([4, 4, 8], 8, [2, 4, 8], [2, 2])), 4 * 4);
        // The U65-512's two cores halve it.
        let u65 = Core::of(&Config { product: 1, macs: 512, shram_kib: 48, cmd_stream_version: 0, arch: (1, 0, 6) });
        assert_eq!(mac_cycles(&u65, "NPU_OP_CONV", 0, &work([4, 4, 16], 8, [2, 4, 16], [3, 3])), 9 * 32 * 2 / 2);
    }

    #[test]
    fn edge_blocks_are_as_large_as_the_ofm_leaves_them() {
        // A depthwise 3x3 on a 25x5x16 OFM in blocks of 12x5x16 on the U55-128: two blocks of 12
        // rows (36 micro-blocks in x and y, 3 steps of 144 cycles, 2 deep: 864 MAC cycles; 960
        // elements at half a cycle: 480 output cycles) and one of a single row (3 micro-blocks:
        // 3 steps of the 32 weight-loading cycles, 2 deep: 192; 40 output cycles); the first
        // block's output stage fills the pipeline.
        let edge = work([25, 5, 16], 16, [12, 5, 16], [3, 3]);
        assert_eq!(pipeline(&u55_128(), "NPU_OP_DEPTHWISE", 0, &edge, 0.5), (2 * 864 + 192 + 480, 480));
        // An OFM the blocks divide: three blocks of 864, the first's 480 more.
        let whole = work([36, 5, 16], 16, [12, 5, 16], [3, 3]);
        assert_eq!(pipeline(&u55_128(), "NPU_OP_DEPTHWISE", 0, &whole, 0.5), (3 * 864 + 480, 480));
    }

    #[test]
    fn waits_hold_the_stream_processor() {
        use Step::*;
        // A kernel of `cycles` with no start-up to hide.
        #[allow(non_snake_case)]
        fn Kernel(cycles: u64) -> Step {
            Step::Kernel(KernelStep { cycles, jobs: 1, startup: 0, blockdep: 0 })
        }
        // A DMA of 100 cycles and a kernel start together; a DMA_WAIT 0 holds the second kernel
        // until the DMA ends (100), and it starts then (the first ended at 50); a DMA beside it;
        // KERNEL_WAIT 0 holds the last DMA until the second kernel ends (130).
        let steps = [Dma(100), Kernel(50), DmaWait(0), Kernel(30), Dma(10), KernelWait(0), Dma(5)];
        assert_eq!(schedule(&steps), (vec![0, 0, 100, 100, 130], 135));
        // Without waits kernels follow one another; a DMA after a kernel's command is issued
        // once that kernel starts.
        assert_eq!(schedule(&[Kernel(10), Dma(7), Kernel(10), Dma(7)]), (vec![0, 0, 10, 10], 20));
        // A wait allowing one outstanding DMA waits for the one before the last.
        assert_eq!(schedule(&[Dma(10), Dma(10), DmaWait(1), Kernel(1)]), (vec![0, 10, 10], 20));
    }

    #[test]
    fn blockdep_lets_a_kernel_start_up_under_the_last_jobs_before_it() {
        let kernel = |cycles, jobs, startup, blockdep| Step::Kernel(KernelStep { cycles, jobs, startup, blockdep });
        // 10 jobs in 1,000 cycles; the next kernel, 80 cycles of start-up in 300, BLOCKDEP 1:
        // its start-up hides under the last job (100 cycles) whole: it starts at 920.
        assert_eq!(schedule(&[kernel(1000, 10, 0, 0), kernel(300, 4, 80, 1)]), (vec![0, 920], 1220));
        // A start-up of 250 hides only under the last two jobs (BLOCKDEP 2): 200 cycles.
        assert_eq!(schedule(&[kernel(1000, 10, 0, 0), kernel(500, 4, 250, 2)]), (vec![0, 800], 1300));
        // BLOCKDEP 3 over a kernel of 2 jobs reaches all of it, as far as the start-up goes.
        assert_eq!(schedule(&[kernel(64, 2, 0, 0), kernel(70, 1, 64, 3)]), (vec![0, 0], 70));
        // BLOCKDEP 0: one after the other.
        assert_eq!(schedule(&[kernel(1000, 10, 0, 0), kernel(300, 4, 80, 0)]), (vec![0, 1000], 1300));
    }

    #[test]
    fn a_transfer_takes_its_bytes_at_the_memorys_rate_plus_its_latencies() {
        let sram = Memory { name: "SRAM", bytes_per_cycle: 8.0, burst: 32, read_latency: 32, write_latency: 32 };
        assert_eq!(transfer(&sram, 80, 16, 96.0), 12.0 + 32.0 + 32.0);
        assert_eq!(transfer(&sram, 80, 0, 80.0), 10.0 + 32.0);
        assert_eq!(transfer(&sram, 0, 0, 0.0), 0.0);
    }
}

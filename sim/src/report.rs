//! What a run cost (docs/tynnp/isa.md, section 8): cycles and instructions, per CU function,
//! per NPU unit, bytes moved, MACs, and the roofline bound the run is measured against.

use crate::machine::{Kernel, Machine};
use std::fmt::Write as _;

/// The run's figures.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    /// Cycles until the CU stopped and every job completed.
    pub cycles: u64,
    pub instret: u64,
    /// The multiply-accumulates the NPU's jobs did.
    pub macs: u64,
    /// The model's, as the caller counts them (else [`Report::macs`]): fewer when a job's
    /// constants were packed with zeros (output pixels packed into the NU's columns).
    pub model_macs: u64,
    pub ddr_bytes: u64,
    /// `max(model MACs / (nu-rows · nu-cols), DDR bytes / ddr-bw)`.
    pub roofline_cycles: u64,
    /// Per unit: name, jobs, busy cycles.
    pub units: Vec<(String, u64, u64)>,
    /// The NPU kernels in call order, with their roofline bounds and labels.
    pub kernels: Vec<KernelFigures>,
    /// The table, as text.
    pub text: String,
}

/// One NPU kernel's figures.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelFigures {
    /// What it computes (the caller's label), else the CU function.
    pub label: String,
    pub kernel: Kernel,
    /// `max(MACs / (nu-rows · nu-cols), DDR bytes / ddr-bw)` of the kernel alone.
    pub roofline_cycles: u64,
}

/// The report of everything `m` ran so far (`cycles` and `instret` from `start`); `labels`
/// name the NPU kernels in call order (ignored unless there is one per kernel); `model_macs`,
/// the model's multiply-accumulates, bound the run (else the jobs' do). A kernel's roofline
/// counts the MACs its jobs did.
pub fn report(m: &Machine, start: (u64, u64), labels: &[String], model_macs: Option<u64>) -> Report {
    let npu = &m.npu;
    let p = &npu.params;
    let bound =
        |macs: u64, bytes: u64| macs.div_ceil(p.macs_per_cycle()).max(bytes.div_ceil(u64::from(p.ddr_bytes_per_cycle)));
    let named = labels.len() == m.kernels.len();
    let kernels: Vec<KernelFigures> = m
        .kernels
        .iter()
        .enumerate()
        .map(|(i, k)| KernelFigures {
            label: if named { labels[i].clone() } else { k.function.clone() },
            kernel: k.clone(),
            roofline_cycles: bound(k.macs, k.ddr_bytes),
        })
        .collect();
    let cycles = m.cycles.max(npu.last_end()) - start.0;
    let instret = m.instret - start.1;
    let counters = &npu.counters;
    let model_macs = model_macs.unwrap_or(counters.macs);
    let roofline = bound(model_macs, counters.ddr_bytes);
    let mut text = String::new();
    let _ = writeln!(text, "cycles {cycles}, instructions {instret} (CU)");
    if !m.functions.is_empty() {
        let _ = writeln!(text, "  {:<48} {:>12} {:>12} {:>10}", "CU function", "instructions", "cycles", "NPU stalls");
        for f in m.functions.iter().filter(|f| f.instret > 0) {
            let _ = writeln!(text, "  {:<48} {:>12} {:>12} {:>10}", f.name, f.instret, f.cycles, f.npu_stalls);
        }
    }
    if !kernels.is_empty() {
        let _ = writeln!(
            text,
            "  {:<60} {:>5} {:>9} {:>9} {:>9} {:>7} {:>10} {:>9}",
            "NPU kernel", "insns", "span", "cycles", "roofline", "ratio", "MACs", "DDR bytes"
        );
        for k in &kernels {
            let _ = writeln!(
                text,
                "  {:<60} {:>5} {:>9} {:>9} {:>9} {:>6.2}x {:>10} {:>9}",
                k.label,
                k.kernel.npu_instructions,
                k.kernel.end - k.kernel.start,
                k.kernel.cycles,
                k.roofline_cycles,
                k.kernel.cycles as f64 / k.roofline_cycles.max(1) as f64,
                k.kernel.macs,
                k.kernel.ddr_bytes
            );
        }
        let _ = writeln!(
            text,
            "  (span: from the kernel's call until it returned and its jobs completed; cycles: the part of the \
             span after the kernel before's, its share of the run; ratio: cycles / roofline)"
        );
    }
    if !npu.jobs.is_empty() {
        text.push_str(&npu.summary(cycles));
        for ((from, to), bytes) in &counters.moved {
            let _ = writeln!(text, "  dma {from} -> {to}: {bytes} bytes");
        }
        let _ = writeln!(
            text,
            "  MACs {}, DDR bytes {}, CU waiting {} cycles (jobs) + {} (full queues)",
            counters.macs, counters.ddr_bytes, counters.wait_stalls, counters.queue_stalls
        );
    }
    if !npu.jobs.is_empty() {
        let share = if cycles == 0 { 0.0 } else { 100.0 * roofline as f64 / cycles as f64 };
        let _ = writeln!(
            text,
            "roofline bound {roofline} cycles = max({model_macs} MACs of the model / {}, DDR bytes / {}): the run takes {:.2}x of it ({share:.1}%)",
            p.macs_per_cycle(),
            p.ddr_bytes_per_cycle,
            cycles as f64 / roofline.max(1) as f64
        );
    }
    let units = npu.units.iter().map(|u| (u.name.clone(), u.count, u.busy)).collect();
    Report {
        cycles,
        instret,
        macs: counters.macs,
        model_macs,
        ddr_bytes: counters.ddr_bytes,
        roofline_cycles: roofline,
        units,
        kernels,
        text,
    }
}

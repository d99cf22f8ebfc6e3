//! What a run cost (targets/tynnp/docs/isa.md, section 8): cycles and instructions, per CU function,
//! per kernel, and what the devices report (per unit, bytes moved, MACs), with the roofline
//! bound the run is measured against.

use crate::{
    device::{Figures, Run},
    machine::{Kernel, Machine},
};
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
    /// `max(model MACs / peak MACs per cycle, DDR bytes / peak DDR bytes per cycle)`, the
    /// devices' peaks added.
    pub roofline_cycles: u64,
    /// Per unit: name, jobs, busy cycles.
    pub units: Vec<(String, u64, u64)>,
    /// Per unit (the control unit `cu` first, then the devices'), the fewest cycles the devices'
    /// cost contracts allow for its work (one job per kernel, each off-chip byte moved once);
    /// empty when no device gives bounds.
    pub contract_units: Vec<(String, u64)>,
    /// The largest of them: no run of this work takes fewer cycles (0 without bounds).
    pub contract_bound_cycles: u64,
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
    /// `max(MACs / peak MACs per cycle, DDR bytes / peak DDR bytes per cycle)` of the kernel alone.
    pub roofline_cycles: u64,
}

/// The report of everything `m` ran so far (`cycles` and `instret` from `start`); `labels`
/// name the NPU kernels in call order (ignored unless there is one per kernel); `model_macs`,
/// the model's multiply-accumulates, bound the run (else the jobs' do). A kernel's roofline
/// counts the MACs its jobs did.
pub fn report(m: &Machine, start: (u64, u64), labels: &[String], model_macs: Option<u64>) -> Report {
    let cycles = m.cycles.max(m.devices_busy_until()) - start.0;
    let kernel_starts: Vec<u64> = m.kernels.iter().map(|k| k.start).collect();
    let run = Run { cycles, kernel_starts: &kernel_starts };
    let devices: Vec<Figures> = m.devices.iter().map(|d| d.figures(&run)).collect();
    let macs_per_cycle: u64 = devices.iter().map(|f| f.macs_per_cycle).sum();
    let ddr_bytes_per_cycle: u64 = devices.iter().map(|f| f.ddr_bytes_per_cycle).sum();
    let bound =
        |macs: u64, bytes: u64| macs.div_ceil(macs_per_cycle.max(1)).max(bytes.div_ceil(ddr_bytes_per_cycle.max(1)));
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
    let instret = m.instret - start.1;
    let work = m.work();
    let model_macs = model_macs.unwrap_or(work.macs);
    let roofline = bound(model_macs, work.ddr_bytes);
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
    let busy = m.devices_busy_until() > 0;
    for figures in &devices {
        text.push_str(&figures.text);
    }
    if busy && macs_per_cycle + ddr_bytes_per_cycle > 0 {
        let share = if cycles == 0 { 0.0 } else { 100.0 * roofline as f64 / cycles as f64 };
        let _ = writeln!(
            text,
            "roofline bound {roofline} cycles = max({model_macs} MACs of the model / {macs_per_cycle}, DDR bytes / {ddr_bytes_per_cycle}): the run takes {:.2}x of it ({share:.1}%)",
            cycles as f64 / roofline.max(1) as f64
        );
    }
    let mut contract_units: Vec<(String, u64)> = devices.iter().flat_map(|f| f.bounds.clone()).collect();
    if !contract_units.is_empty() {
        // The control unit's own work: its cycles not spent waiting for a device.
        let cu = m.functions.iter().map(|f| f.cycles - f.npu_stalls).sum();
        contract_units.insert(0, ("cu".into(), cu));
    }
    let busiest = contract_units.iter().max_by_key(|u| u.1).cloned();
    if let Some((unit, bound)) = &busiest {
        let _ = writeln!(
            text,
            "contract bound {bound} cycles (the busiest unit, {unit}, doing its work as one job a kernel, each DDR \
             byte moved once): the run takes {:.2}x of it",
            cycles as f64 / (*bound).max(1) as f64
        );
    }
    let contract_bound_cycles = busiest.map_or(0, |b| b.1);
    let units = devices.into_iter().flat_map(|f| f.units).collect();
    Report {
        cycles,
        instret,
        macs: work.macs,
        model_macs,
        ddr_bytes: work.ddr_bytes,
        roofline_cycles: roofline,
        units,
        contract_units,
        contract_bound_cycles,
        kernels,
        text,
    }
}

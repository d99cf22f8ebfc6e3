//! The report `umac run --report` prints for a stream: the whole stream's cycles first, then each
//! DMA and kernel with its cycles, MACs and bytes, then the rule checker's findings, then the
//! commands and field values the stream uses that no Vela stream in the tests did.

use super::{System, Timing};
use crate::{payload::Config, rules::Finding};
use std::fmt::Write;

/// The report of `timing` (a stream compiled for `config`, timed in `system`) with the rule
/// checker's `findings` and the stream's `unseen` commands and field values.
pub fn text(config: &Config, system: &System, timing: &Timing, findings: &[Finding], unseen: &[String]) -> String {
    let mut out = String::new();
    let macs: u64 = timing.ops.iter().map(|o| o.macs).sum();
    let _ = writeln!(out, "NPU cycles: {}", timing.cycles);
    let _ = writeln!(
        out,
        "{} in {} at {} MHz: {:.1} us, {macs} MACs ({:.1} per cycle of {})",
        config.name(),
        system.name,
        system.clock_hz / 1e6,
        timing.cycles as f64 / system.clock_hz * 1e6,
        macs as f64 / timing.cycles.max(1) as f64,
        config.macs
    );
    for m in &system.memories {
        let _ = writeln!(
            out,
            "  {}: {} B/cycle, latency {} cycles to read, {} to write",
            m.name, m.bytes_per_cycle, m.read_latency, m.write_latency
        );
    }
    let _ = write!(
        out,
        "{:>8}  {:<24} {:>8} {:>8} {:>8} {:>9}",
        "offset", "operation", "start", "cycles", "compute", "MACs"
    );
    for m in &system.memories {
        let _ = write!(out, " {:>11} {:>11}", format!("{} read", m.name), format!("{} write", m.name));
    }
    out.push('\n');
    for o in &timing.ops {
        let offset = format!("{:#08x}", o.offset);
        let _ =
            write!(out, "{offset:>8}  {:<24} {:>8} {:>8} {:>8} {:>9}", o.what, o.start, o.cycles, o.compute, o.macs);
        for (r, w) in o.reads.iter().zip(&o.writes) {
            let _ = write!(out, " {r:>11} {w:>11}");
        }
        out.push('\n');
    }
    if findings.is_empty() {
        let _ = writeln!(
            out,
            "rule checker: no findings (DMA_WAIT, KERNEL_WAIT and BLOCKDEP against the bytes each operation \
             and job touches, each block configuration's SHRAM areas, the lookup tables in the SHRAM)"
        );
    } else {
        let _ = writeln!(out, "rule checker: {} findings", findings.len());
        for f in findings {
            let _ = writeln!(out, "  {f}");
        }
    }
    if unseen.is_empty() {
        let _ = writeln!(out, "commands and field values: all among those of the Vela streams the tests run");
    } else {
        let _ = writeln!(out, "commands and field values no Vela stream in the tests used ({}):", unseen.len());
        for entry in unseen {
            let _ = writeln!(out, "  {entry}");
        }
    }
    out
}

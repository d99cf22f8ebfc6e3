//! The target: its name, the NPU's parameters as target attributes (the contract's names,
//! `docs/isa.md` section 1) and the switches of the schedule's decisions.

use umac_backend::{Error, TargetAttrs};
use umac_tynnp_device::Params;

/// The target's name.
pub(crate) const NAME: &str = "tynnp";

/// The attribute that switches the next kernel's constants copied during this one off.
pub(crate) const PREFETCH: &str = "prefetch";

/// The attribute that switches activations kept in DM between kernels off.
pub(crate) const FUSE: &str = "fuse";

/// The attribute that switches double buffering off.
pub(crate) const DOUBLE_BUFFER: &str = "double-buffer";

/// The attribute that switches the kernels' copies for their calls' tile tables off.
pub(crate) const SPECIALIZE: &str = "specialize";

/// The attribute that switches kernels handing their jobs on to the next (running at once) off.
pub(crate) const OVERLAP: &str = "overlap";

/// The hardware parameters as target attributes, with the contract's names (section 1).
pub(crate) const ATTRIBUTES: [(&str, &str); 10] = [
    ("nu-rows", "NU array rows: input channels per cycle"),
    ("nu-cols", "NU array columns: output channels per cycle"),
    ("dm-kib", "global buffer DM, KiB"),
    ("vu", "vector units"),
    ("vu-lanes", "int32 lanes per vector unit"),
    ("vm-kib", "buffer VM of each vector unit, KiB"),
    ("dma", "DMA channels"),
    ("ddr-bw", "DDR bytes per cycle"),
    ("ddr-latency", "DDR latency, cycles"),
    ("queue", "jobs each unit's queue holds"),
];

/// The NPU the attributes describe (their ranges are the contract's).
pub fn params(attributes: &TargetAttrs) -> Result<Params, Error> {
    let text: Vec<String> = ATTRIBUTES.iter().map(|(name, _)| format!("-{name}={}", attributes.int(name))).collect();
    Params::parse(&text.join(" ")).map_err(|e| Error::Target(format!("{NAME}: {e}")))
}

pub(crate) fn default_of(name: &str, p: &Params) -> i64 {
    i64::from(match name {
        "nu-rows" => p.nu_rows,
        "nu-cols" => p.nu_cols,
        "dm-kib" => p.dm_bytes >> 10,
        "vu" => p.vu_count,
        "vu-lanes" => p.vu_lanes,
        "vm-kib" => p.vm_bytes >> 10,
        "dma" => p.dma_channels,
        "ddr-bw" => p.ddr_bytes_per_cycle,
        "ddr-latency" => p.ddr_latency,
        _ => p.queue_depth,
    })
}

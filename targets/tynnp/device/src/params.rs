//! The NPU's parameters and memory map (targets/tynnp/docs/isa.md, sections 1 and 2).

use std::fmt;

use umac_sim::memory::RegionSpec;
pub use umac_sim::memory::{DDR_BASE, DDR_BYTES, DMEM_BASE, DMEM_BYTES, IMEM_BASE, IMEM_BYTES};

/// Base of the global on-chip buffer.
pub const DM_BASE: u32 = 0x1000_0000;
/// Base of VU 0's buffer; VU k's is `k · VM_SPACING` above.
pub const VM_BASE: u32 = 0x2000_0000;
/// Address distance between two VUs' buffers.
pub const VM_SPACING: u32 = 0x0010_0000;
/// The hardware's parameters; `Default` is the reference configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params {
    /// NU array rows: input channels per cycle.
    pub nu_rows: u32,
    /// NU array columns: output channels per cycle.
    pub nu_cols: u32,
    /// DM bytes.
    pub dm_bytes: u32,
    /// Number of vector units.
    pub vu_count: u32,
    /// int32 lanes per vector unit.
    pub vu_lanes: u32,
    /// VM bytes per vector unit.
    pub vm_bytes: u32,
    /// DMA channels.
    pub dma_channels: u32,
    /// DDR bytes per cycle.
    pub ddr_bytes_per_cycle: u32,
    /// DDR latency in cycles.
    pub ddr_latency: u32,
    /// Jobs each unit's queue holds.
    pub queue_depth: u32,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            nu_rows: 16,
            nu_cols: 16,
            dm_bytes: 256 << 10,
            vu_count: 4,
            vu_lanes: 16,
            vm_bytes: 32 << 10,
            dma_channels: 2,
            ddr_bytes_per_cycle: 16,
            ddr_latency: 64,
            queue_depth: 8,
        }
    }
}

/// A bad parameter string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamError(pub String);

impl fmt::Display for ParamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The attributes a target string may give, with their limits (inclusive).
const ATTRIBUTES: &[(&str, u32, u32)] = &[
    ("nu-rows", 1, 256),
    ("nu-cols", 1, 256),
    ("dm-kib", 1, 16 << 10),
    ("vu", 1, 16),
    ("vu-lanes", 1, 256),
    ("vm-kib", 1, 1 << 10),
    ("dma", 1, 16),
    ("ddr-bw", 1, 4096),
    ("ddr-latency", 0, 100_000),
    ("queue", 1, 1024),
];

impl Params {
    /// Whether `name` is a hardware parameter (an attribute [`Params::parse`] takes).
    pub fn is_parameter(name: &str) -> bool {
        ATTRIBUTES.iter().any(|(n, ..)| *n == name)
    }

    /// Parses attributes as a target string gives them: `-vu=2 -dm-kib=128` (any order, each
    /// at most once; unknown names and values out of range are errors naming what is accepted).
    pub fn parse(attributes: &str) -> Result<Params, ParamError> {
        let mut params = Params::default();
        let mut seen = Vec::new();
        for word in attributes.split_whitespace() {
            let Some((name, value)) = word.strip_prefix('-').and_then(|w| w.split_once('=')) else {
                return Err(ParamError(format!("'{word}' is not an attribute: write -name=value")));
            };
            let Some(&(_, low, high)) = ATTRIBUTES.iter().find(|(n, ..)| *n == name) else {
                let known: Vec<String> = ATTRIBUTES.iter().map(|(n, ..)| format!("-{n}")).collect();
                return Err(ParamError(format!("unknown attribute '-{name}' (known: {})", known.join(", "))));
            };
            if seen.contains(&name) {
                return Err(ParamError(format!("attribute '-{name}' is given twice")));
            }
            seen.push(name);
            let value: u32 = value
                .parse()
                .ok()
                .filter(|v| (low..=high).contains(v))
                .ok_or_else(|| ParamError(format!("-{name}={value}: expected an integer from {low} to {high}")))?;
            match name {
                "nu-rows" => params.nu_rows = value,
                "nu-cols" => params.nu_cols = value,
                "dm-kib" => params.dm_bytes = value << 10,
                "vu" => params.vu_count = value,
                "vu-lanes" => params.vu_lanes = value,
                "vm-kib" => params.vm_bytes = value << 10,
                "dma" => params.dma_channels = value,
                "ddr-bw" => params.ddr_bytes_per_cycle = value,
                "ddr-latency" => params.ddr_latency = value,
                _ => params.queue_depth = value,
            }
        }
        Ok(params)
    }

    /// The value `npu.param` returns for `index` (0 for an unknown index).
    pub fn param(&self, index: u32) -> u32 {
        match index {
            0 => 1,
            1 => self.nu_rows,
            2 => self.nu_cols,
            3 => self.dm_bytes,
            4 => self.vu_count,
            5 => self.vu_lanes,
            6 => self.vm_bytes,
            7 => self.dma_channels,
            8 => self.ddr_bytes_per_cycle,
            9 => self.ddr_latency,
            10 => self.queue_depth,
            _ => 0,
        }
    }

    /// Base address of VU `k`'s buffer.
    pub fn vm_base(&self, k: u32) -> u32 {
        VM_BASE + k * VM_SPACING
    }

    /// The NPU's own memories, as the machine maps them: DM, then each VU's VM (a CU load from
    /// them takes 2 cycles beyond the instruction's).
    pub fn device_regions(&self) -> Vec<RegionSpec> {
        let region = |name: String, base, size| RegionSpec { name, base, size, load_cycles: 2, fetch_cycles: 0 };
        let mut regions = vec![region("dm".into(), DM_BASE, self.dm_bytes)];
        for k in 0..self.vu_count {
            regions.push(region(format!("vm{k}"), self.vm_base(k), self.vm_bytes));
        }
        regions
    }

    /// Every memory region as `(name, base, bytes)`: IMEM, DMEM, DM, VM0.., DDR.
    pub fn regions(&self) -> Vec<(String, u32, u32)> {
        let mut regions =
            vec![("imem".to_string(), IMEM_BASE, IMEM_BYTES), ("dmem".to_string(), DMEM_BASE, DMEM_BYTES)];
        regions.extend(self.device_regions().into_iter().map(|r| (r.name, r.base, r.size)));
        regions.push(("ddr".to_string(), DDR_BASE, DDR_BYTES));
        regions
    }

    /// MACs the NU does per cycle.
    pub fn macs_per_cycle(&self) -> u64 {
        u64::from(self.nu_rows) * u64::from(self.nu_cols)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_parsing() {
        let p = Params::default();
        assert_eq!((p.macs_per_cycle(), p.dm_bytes, p.vm_bytes), (256, 262_144, 32_768));
        let p = Params::parse("-vu=2 -dm-kib=128 -ddr-latency=0").unwrap();
        assert_eq!((p.vu_count, p.dm_bytes, p.ddr_latency, p.nu_rows), (2, 131_072, 0, 16));
        assert_eq!(p.param(4), 2);
        assert_eq!(p.param(3), 131_072);
        assert_eq!(p.param(99), 0);
        assert_eq!(Params::parse("").unwrap(), Params::default());
        assert!(Params::parse("-vu=0").unwrap_err().0.contains("from 1 to 16"));
        assert!(Params::parse("-vu=2 -vu=3").unwrap_err().0.contains("twice"));
        assert!(Params::parse("-frob=1").unwrap_err().0.contains("unknown attribute '-frob' (known: -nu-rows"));
        assert!(Params::parse("vu=1").unwrap_err().0.contains("-name=value"));
    }

    #[test]
    fn regions_follow_the_map() {
        let regions = Params::parse("-vu=2").unwrap().regions();
        let names: Vec<&str> = regions.iter().map(|r| r.0.as_str()).collect();
        assert_eq!(names, ["imem", "dmem", "dm", "vm0", "vm1", "ddr"]);
        assert_eq!(regions[4].1, 0x2010_0000);
        assert_eq!(regions[5], ("ddr".to_string(), 0x8000_0000, 1 << 30));
    }
}

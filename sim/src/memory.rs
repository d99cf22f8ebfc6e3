//! The machine's memory map: regions, each a flat byte array at a base address, with what a core
//! access to it costs. The core brings its own (IMEM, DMEM and the DDR window of
//! targets/tynnp/docs/isa.md, section 2); devices add theirs (an NPU's on-chip buffers).
//!
//! Memory is as strict as hardware: a region starts as garbage from a seed (the DDR window, too
//! large to fill, starts zeroed), and every byte remembers whether anyone wrote it since (the
//! loader, the core, a device, the host placing tensors), so that a device reading a byte no one
//! wrote is an error rather than a silent zero. Untouched pages of the large region and of its
//! record cost nothing.

/// Base of the core's instruction memory.
pub const IMEM_BASE: u32 = 0x0000_0000;
/// Size of the core's instruction memory.
pub const IMEM_BYTES: u32 = 256 << 10;
/// Base of the core's data memory (stack, descriptors).
pub const DMEM_BASE: u32 = 0x0010_0000;
/// Size of the core's data memory.
pub const DMEM_BYTES: u32 = 256 << 10;
/// Base of off-chip memory.
pub const DDR_BASE: u32 = 0x8000_0000;
/// Size of the off-chip memory window.
pub const DDR_BYTES: u32 = 1 << 30;
/// DDR latency in cycles unless a device models the DDR port and says otherwise.
pub const DDR_LATENCY: u32 = 64;
/// The seed of a machine's garbage unless one is given.
pub const DEFAULT_SEED: u64 = 0x243f_6a88_85a3_08d3;
/// Regions up to this size start as garbage; larger ones (the DDR window) start zeroed.
pub const GARBAGE_LIMIT: u32 = 16 << 20;

/// Regions start on a page and no two share one: the page of an address says which region
/// holds it.
pub const PAGE_BITS: u32 = 20;

/// A region as a device or the core declares it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegionSpec {
    /// `imem`, `dmem`, `ddr`, or a device's (`dm`, `vm0`, ...).
    pub name: String,
    pub base: u32,
    pub size: u32,
    /// Cycles a core load from it takes beyond the instruction's own.
    pub load_cycles: u64,
    /// Cycles fetching an instruction from it takes beyond the instruction's own.
    pub fetch_cycles: u32,
}

/// One region.
pub struct Region {
    pub name: String,
    pub base: u32,
    pub bytes: Vec<u8>,
    pub load_cycles: u64,
    pub fetch_cycles: u32,
    /// One bit per byte: written since the region was made.
    written: Vec<u64>,
}

/// The bits of `[offset, offset + len)` in a one-bit-per-byte record, as (word, mask) pairs.
fn bit_words(offset: usize, len: usize) -> impl Iterator<Item = (usize, u64)> {
    let end = offset + len;
    let mut i = offset;
    std::iter::from_fn(move || {
        (i < end).then(|| {
            let (word, bit) = (i / 64, i % 64);
            let n = (64 - bit).min(end - i);
            i += n;
            (word, if n == 64 { u64::MAX } else { ((1u64 << n) - 1) << bit })
        })
    })
}

impl Region {
    /// Records `[offset, offset + len)` as written.
    #[inline]
    fn mark(&mut self, offset: usize, len: usize) {
        for (word, mask) in bit_words(offset, len) {
            self.written[word] |= mask;
        }
    }

    /// The offset of the first byte of `[offset, offset + len)` no one wrote.
    fn first_unwritten(&self, offset: usize, len: usize) -> Option<usize> {
        bit_words(offset, len)
            .find(|&(word, mask)| !self.written[word] & mask != 0)
            .map(|(word, mask)| word * 64 + (!self.written[word] & mask).trailing_zeros() as usize)
    }

    /// Offset of `[addr, addr + len)` inside this region, if it lies wholly inside.
    #[inline]
    fn offset(&self, addr: u32, len: u32) -> Option<usize> {
        let offset = addr.wrapping_sub(self.base) as usize;
        (offset < self.bytes.len() && self.bytes.len() - offset >= len as usize).then_some(offset)
    }
}

/// An access outside memory, or one crossing a region's end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fault {
    pub addr: u32,
    pub len: u32,
}

/// A region that cannot join the map.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MapError {
    #[error("region {name} at {base:#010x} does not start on a {} KiB page", (1u32 << PAGE_BITS) >> 10)]
    Unaligned { name: String, base: u32 },
    #[error("region {name} ([{base:#010x}, +{size:#x})) overlaps {other} or shares a page with it")]
    Overlap { name: String, base: u32, size: u32, other: String },
    #[error("region {name} is empty or runs past the end of the address space")]
    Size { name: String },
    #[error("the map holds at most 255 regions")]
    Full,
}

/// No region.
const NO_REGION: u8 = u8::MAX;

/// The whole memory map.
pub struct Memory {
    pub regions: Vec<Region>,
    /// For each page, the region holding it.
    pages: Vec<u8>,
    /// Where each region's garbage comes from.
    seed: u64,
}

impl Default for Memory {
    /// The core's memories with the default seed.
    fn default() -> Memory {
        Memory::seeded(DEFAULT_SEED)
    }
}

/// `size` bytes of garbage for the region at `base`: splitmix64 from the seed and the base.
fn garbage(seed: u64, base: u32, size: u32) -> Vec<u8> {
    let mut state = seed ^ u64::from(base).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let mut bytes = Vec::with_capacity(size as usize + 8);
    while bytes.len() < size as usize {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        bytes.extend_from_slice(&(z ^ (z >> 31)).to_le_bytes());
    }
    bytes.truncate(size as usize);
    bytes
}

/// The core's regions, with a core access to DDR costing a quarter of its latency (the core's
/// line fill overlaps the rest).
pub fn core_regions(ddr_latency: u32) -> Vec<RegionSpec> {
    let ddr = ddr_latency / 4;
    let region = |name: &str, base, size, load_cycles, fetch_cycles| RegionSpec {
        name: name.into(),
        base,
        size,
        load_cycles,
        fetch_cycles,
    };
    vec![
        region("imem", IMEM_BASE, IMEM_BYTES, 1, 0),
        region("dmem", DMEM_BASE, DMEM_BYTES, 1, 0),
        region("ddr", DDR_BASE, DDR_BYTES, u64::from(ddr), ddr),
    ]
}

impl Memory {
    /// The core's memories (IMEM, DMEM and the DDR window with the default DDR latency), their
    /// garbage from `seed`.
    pub fn seeded(seed: u64) -> Memory {
        let mut memory = Memory { regions: Vec::new(), pages: vec![NO_REGION; 1 << (32 - PAGE_BITS)], seed };
        for spec in core_regions(DDR_LATENCY) {
            memory.add(spec).expect("the core's regions fit");
        }
        memory
    }

    /// Adds a region: garbage from the seed, or zeroed when larger than [`GARBAGE_LIMIT`]; no
    /// byte written yet.
    pub fn add(&mut self, spec: RegionSpec) -> Result<(), MapError> {
        let RegionSpec { name, base, size, load_cycles, fetch_cycles } = spec;
        if !base.is_multiple_of(1 << PAGE_BITS) {
            return Err(MapError::Unaligned { name, base });
        }
        let end = u64::from(base) + u64::from(size);
        if size == 0 || end > 1 << 32 {
            return Err(MapError::Size { name });
        }
        let index = u8::try_from(self.regions.len()).ok().filter(|&i| i != NO_REGION).ok_or(MapError::Full)?;
        let pages = (base >> PAGE_BITS) as usize..end.div_ceil(1 << PAGE_BITS) as usize;
        if let Some(&other) = self.pages[pages.clone()].iter().find(|&&p| p != NO_REGION) {
            let other = self.regions[usize::from(other)].name.clone();
            return Err(MapError::Overlap { name, base, size, other });
        }
        self.pages[pages].fill(index);
        let bytes = if size <= GARBAGE_LIMIT { garbage(self.seed, base, size) } else { vec![0; size as usize] };
        let written = vec![0; (size as usize).div_ceil(64)];
        self.regions.push(Region { name, base, bytes, load_cycles, fetch_cycles, written });
        Ok(())
    }

    /// Replaces the timing of region `name`.
    pub fn set_timing(&mut self, name: &str, load_cycles: u64, fetch_cycles: u32) {
        if let Some(r) = self.regions.iter_mut().find(|r| r.name == name) {
            r.load_cycles = load_cycles;
            r.fetch_cycles = fetch_cycles;
        }
    }

    /// Index of the region holding all of `[addr, addr + len)`, and the offset in it.
    #[inline]
    pub fn locate(&self, addr: u32, len: u32) -> Result<(usize, usize), Fault> {
        let index = self.pages[(addr >> PAGE_BITS) as usize];
        if index == NO_REGION {
            return Err(Fault { addr, len });
        }
        match self.regions[usize::from(index)].offset(addr, len) {
            Some(offset) => Ok((usize::from(index), offset)),
            None => Err(Fault { addr, len }),
        }
    }

    /// Reads a little-endian value of `len` (1, 2 or 4) bytes, with its region.
    #[inline]
    pub fn load(&self, addr: u32, len: u32) -> Result<(u32, &Region), Fault> {
        let (i, o) = self.locate(addr, len)?;
        let r = &self.regions[i];
        let b = &r.bytes[o..o + len as usize];
        let value = match len {
            1 => u32::from(b[0]),
            2 => u32::from(u16::from_le_bytes([b[0], b[1]])),
            _ => u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
        };
        Ok((value, r))
    }

    /// Writes the low `len` (1, 2 or 4) bytes of `value`.
    #[inline]
    pub fn store(&mut self, addr: u32, len: u32, value: u32) -> Result<(), Fault> {
        let (i, o) = self.locate(addr, len)?;
        let r = &mut self.regions[i];
        r.bytes[o..o + len as usize].copy_from_slice(&value.to_le_bytes()[..len as usize]);
        r.mark(o, len as usize);
        Ok(())
    }

    /// `len` bytes at `addr`.
    pub fn bytes(&self, addr: u32, len: u32) -> Result<&[u8], Fault> {
        let (i, o) = self.locate(addr, len)?;
        Ok(&self.regions[i].bytes[o..o + len as usize])
    }

    /// Writes `data` at `addr`.
    pub fn write_bytes(&mut self, addr: u32, data: &[u8]) -> Result<(), Fault> {
        let len = u32::try_from(data.len()).map_err(|_| Fault { addr, len: u32::MAX })?;
        let (i, o) = self.locate(addr, len)?;
        let r = &mut self.regions[i];
        r.bytes[o..o + data.len()].copy_from_slice(data);
        r.mark(o, data.len());
        Ok(())
    }

    /// The first address of `[addr, addr + len)` no one wrote (`None`: all written, or not in
    /// one region: [`Memory::locate`] tells).
    pub fn first_unwritten(&self, addr: u32, len: u32) -> Option<u32> {
        let (i, o) = self.locate(addr, len).ok()?;
        self.regions[i].first_unwritten(o, len as usize).map(|offset| self.regions[i].base + offset as u32)
    }

    /// The NUL-terminated string at `addr` (at most `limit` bytes).
    pub fn c_string(&self, addr: u32, limit: u32) -> Result<Vec<u8>, Fault> {
        let mut text = Vec::new();
        for i in 0..limit {
            let (byte, _) = self.load(addr.wrapping_add(i), 1)?;
            if byte == 0 {
                return Ok(text);
            }
            text.push(byte as u8);
        }
        Err(Fault { addr, len: limit })
    }

    /// The region holding `addr`.
    pub fn region_of(&self, addr: u32) -> Option<&Region> {
        self.locate(addr, 1).ok().map(|(i, _)| &self.regions[i])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn region(name: &str, base: u32, size: u32) -> RegionSpec {
        RegionSpec { name: name.into(), base, size, load_cycles: 2, fetch_cycles: 0 }
    }

    #[test]
    fn regions_bounds_and_endianness() {
        let mut m = Memory::default();
        m.add(region("dm", 0x1000_0000, 256 << 10)).unwrap();
        m.add(region("vm3", 0x2030_0000, 32 << 10)).unwrap();
        m.store(0x0010_0000, 4, 0x1122_3344).unwrap();
        assert_eq!(m.load(0x0010_0000, 1).map(|(v, r)| (v, r.name.as_str())), Ok((0x44, "dmem")));
        assert_eq!(m.load(0x0010_0002, 2).map(|(v, _)| v), Ok(0x1122));
        // The last word of DM is inside; one byte further crosses its end.
        let end = 0x1000_0000 + (256 << 10);
        assert!(m.store(end - 4, 4, 7).is_ok());
        assert_eq!(m.load(end - 2, 4).err(), Some(Fault { addr: end - 2, len: 4 }));
        assert_eq!(m.load(0x4000_0000, 4).err(), Some(Fault { addr: 0x4000_0000, len: 4 }));
        assert_eq!(m.region_of(0x2030_0010).map(|r| r.name.as_str()), Some("vm3"));
        assert!(m.region_of(0x2040_0000).is_none());
        assert_eq!(m.load(0xbfff_fffc, 4).map(|(v, r)| (v, r.load_cycles)), Ok((0, 16)));
        m.write_bytes(0x8000_0000, b"hi\0").unwrap();
        assert_eq!(m.c_string(0x8000_0000, 16).unwrap(), b"hi");
    }

    #[test]
    fn memory_starts_as_seeded_garbage_and_remembers_what_was_written() {
        let (a, b) = (Memory::seeded(1), Memory::seeded(2));
        let dmem = |m: &Memory| m.bytes(DMEM_BASE, 64).unwrap().to_vec();
        assert_eq!(dmem(&a), dmem(&Memory::seeded(1)), "the same seed, the same garbage");
        assert_ne!(dmem(&a), dmem(&b));
        assert!(dmem(&a).iter().filter(|&&x| x == 0).count() < 8, "garbage, not zeros");
        // The DDR window is too large to fill.
        assert_eq!(a.bytes(DDR_BASE, 4).unwrap(), [0; 4]);
        let mut m = Memory::seeded(1);
        assert_eq!(m.first_unwritten(DMEM_BASE, 4), Some(DMEM_BASE));
        m.store(DMEM_BASE + 1, 2, 0x1234).unwrap();
        m.write_bytes(DMEM_BASE + 60, &[1; 70]).unwrap();
        assert_eq!(m.first_unwritten(DMEM_BASE + 1, 2), None);
        assert_eq!(m.first_unwritten(DMEM_BASE + 1, 3), Some(DMEM_BASE + 3));
        // Across the record's 64-bit words: bytes 60..130 are written, 130 is not.
        assert_eq!(m.first_unwritten(DMEM_BASE + 60, 70), None);
        assert_eq!(m.first_unwritten(DMEM_BASE + 60, 71), Some(DMEM_BASE + 130));
        assert_eq!(m.first_unwritten(DMEM_BASE, 1), Some(DMEM_BASE));
        assert_eq!(m.first_unwritten(DDR_BASE, 8), Some(DDR_BASE));
    }

    #[test]
    fn regions_must_start_on_a_page_and_not_share_one() {
        let mut m = Memory::default();
        assert!(matches!(m.add(region("a", 0x1000_0400, 16)), Err(MapError::Unaligned { .. })));
        // DMEM ends at 0x0014_0000, inside the page of 0x0010_0000.
        assert!(matches!(m.add(region("b", 0x0010_0000, 16)), Err(MapError::Overlap { other, .. }) if other == "dmem"));
        assert!(matches!(m.add(region("c", 0xfff0_0000, 2 << 20)), Err(MapError::Size { .. })));
        assert!(matches!(m.add(region("d", 0x1000_0000, 0)), Err(MapError::Size { .. })));
        m.add(region("e", 0xfff0_0000, 1 << 20)).unwrap();
        assert_eq!(m.region_of(0xffff_ffff).map(|r| r.name.as_str()), Some("e"));
    }
}

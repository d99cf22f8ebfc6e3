//! The memory map of docs/tynnp/isa.md, section 2: IMEM, DMEM, DM, the VMs and the DDR window,
//! each a flat byte array (zero-filled pages cost nothing until touched).

use crate::npu::{
    Bus, Params,
    params::{DMEM_BASE, VM_BASE, VM_SPACING},
};

/// What kind of memory a region is: it decides the CU's load latency and who may reach it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Imem,
    Dmem,
    Dm,
    Vm,
    Ddr,
}

/// One region.
pub struct Region {
    /// `imem`, `dmem`, `dm`, `vm0`, ..., `ddr`.
    pub name: String,
    pub kind: Kind,
    pub base: u32,
    pub bytes: Vec<u8>,
}

impl Region {
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

/// The whole memory map.
pub struct Memory {
    pub regions: Vec<Region>,
}

impl Memory {
    /// The regions `params` describe.
    pub fn new(params: &Params) -> Memory {
        let regions = params
            .regions()
            .into_iter()
            .map(|(name, base, size)| {
                let kind = match name.as_str() {
                    "imem" => Kind::Imem,
                    "dmem" => Kind::Dmem,
                    "dm" => Kind::Dm,
                    "ddr" => Kind::Ddr,
                    _ => Kind::Vm,
                };
                Region { name, kind, base, bytes: vec![0; size as usize] }
            })
            .collect();
        Memory { regions }
    }

    /// Index of the region holding all of `[addr, addr + len)`, and the offset in it. The
    /// regions are in the order of `Params::regions` (IMEM, DMEM, DM, VM 0.., DDR), so the
    /// address's top bits say which one to look at.
    #[inline]
    pub fn locate(&self, addr: u32, len: u32) -> Result<(usize, usize), Fault> {
        let last = self.regions.len() - 1;
        let index = match addr >> 28 {
            0 if addr < DMEM_BASE => 0,
            0 => 1,
            1 => 2,
            2 => (3 + ((addr - VM_BASE) / VM_SPACING) as usize).min(last),
            8..=0xb => last,
            _ => return Err(Fault { addr, len }),
        };
        match self.regions[index].offset(addr, len) {
            Some(offset) => Ok((index, offset)),
            None => Err(Fault { addr, len }),
        }
    }

    /// Reads a little-endian value of `len` (1, 2 or 4) bytes.
    #[inline]
    pub fn load(&self, addr: u32, len: u32) -> Result<(u32, Kind), Fault> {
        let (i, o) = self.locate(addr, len)?;
        let r = &self.regions[i];
        let b = &r.bytes[o..o + len as usize];
        let value = match len {
            1 => u32::from(b[0]),
            2 => u32::from(u16::from_le_bytes([b[0], b[1]])),
            _ => u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
        };
        Ok((value, r.kind))
    }

    /// Writes the low `len` (1, 2 or 4) bytes of `value`.
    #[inline]
    pub fn store(&mut self, addr: u32, len: u32, value: u32) -> Result<Kind, Fault> {
        let (i, o) = self.locate(addr, len)?;
        let r = &mut self.regions[i];
        r.bytes[o..o + len as usize].copy_from_slice(&value.to_le_bytes()[..len as usize]);
        Ok(r.kind)
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
        self.regions[i].bytes[o..o + data.len()].copy_from_slice(data);
        Ok(())
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

impl Bus for Memory {
    fn region(&self, addr: u32) -> Option<(String, u32, u32)> {
        self.region_of(addr).map(|r| (r.name.clone(), r.base, r.bytes.len() as u32))
    }
    fn read(&self, addr: u32, len: u32) -> Option<Vec<u8>> {
        self.bytes(addr, len).ok().map(<[u8]>::to_vec)
    }
    fn write(&mut self, addr: u32, data: &[u8]) -> bool {
        self.write_bytes(addr, data).is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regions_bounds_and_endianness() {
        let mut m = Memory::new(&Params::default());
        assert_eq!(m.store(0x0010_0000, 4, 0x1122_3344), Ok(Kind::Dmem));
        assert_eq!(m.load(0x0010_0000, 1), Ok((0x44, Kind::Dmem)));
        assert_eq!(m.load(0x0010_0002, 2), Ok((0x1122, Kind::Dmem)));
        // The last word of DM is inside; one byte further crosses its end.
        let end = 0x1000_0000 + (256 << 10);
        assert!(m.store(end - 4, 4, 7).is_ok());
        assert_eq!(m.load(end - 2, 4), Err(Fault { addr: end - 2, len: 4 }));
        assert_eq!(m.load(0x4000_0000, 4), Err(Fault { addr: 0x4000_0000, len: 4 }));
        assert_eq!(m.region_of(0x2030_0010).map(|r| r.name.as_str()), Some("vm3"));
        assert!(m.region_of(0x2040_0000).is_none());
        assert_eq!(m.load(0xbfff_fffc, 4), Ok((0, Kind::Ddr)));
        m.write_bytes(0x8000_0000, b"hi\0").unwrap();
        assert_eq!(m.c_string(0x8000_0000, 16).unwrap(), b"hi");
    }
}

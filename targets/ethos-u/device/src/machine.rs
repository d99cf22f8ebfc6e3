//! The functional model: memory regions, and the operations of a command stream run on them
//! one after another (the waits order nothing in a model that runs each operation to its end).
//!
//! DMA (between regions, and into the internal SRAM for lookup tables), convolutions and
//! depthwise convolutions (`conv.rs`), pooling (`pool.rs`) and elementwise operations
//! (`elementwise.rs`). Any other operation, or a field value the model does not implement yet,
//! is an error at the operation, never a guess.

use crate::{
    error::EthosUError,
    feature_map::FeatureMap,
    payload::Config,
    registers::{Operation, operations},
    stream::decode,
};

/// The NPU's memory: the memories the regions lie in (`BASEP0..7`: the read-only tensor, the
/// scratch tensors, then the model's inputs and outputs, as TFLite Micro's ethos-u kernel
/// passes them). Regions may share a memory: Vela's scratch and fast scratch are one tensor by
/// default, and its offline plan puts the inputs and outputs in the arena beside the scratch.
pub struct Machine {
    pub config: Config,
    pub memories: Vec<Vec<u8>>,
    /// The memory of each region and where in it the region starts.
    pub regions: Vec<(usize, u64)>,
    /// The internal SRAM (SHRAM) of a core, which DMA reaches in `DMA_REGION_MODE_INTERNAL`:
    /// lookup tables (each core of a dual-core NPU holds the same).
    pub shram: Vec<u8>,
    /// Which bytes of each memory, and of the SHRAM, hold something written: the given data, or
    /// what the stream or the caller wrote since. A byte that is not holds whatever the memory
    /// held, so reading one is an error at the operation (on hardware, the result would depend
    /// on it).
    pub(crate) written: Vec<Vec<bool>>,
    pub(crate) shram_written: Vec<bool>,
}

impl Machine {
    /// A machine whose memories hold `memories` (every byte of them counts as written) and an
    /// internal SRAM nothing has written yet.
    pub fn new(config: Config, memories: Vec<Vec<u8>>, regions: Vec<(usize, u64)>) -> Machine {
        let shram = vec![0; config.shram_bytes() as usize];
        let written = memories.iter().map(|m| vec![true; m.len()]).collect();
        let shram_written = vec![false; shram.len()];
        Machine { config, memories, regions, shram, written, shram_written }
    }

    /// Marks the bytes `range` of memory `memory` as holding nothing written (whatever the memory
    /// held: an arena's bytes before the first inference).
    pub fn forget(&mut self, memory: usize, range: std::ops::Range<usize>) {
        if let Some(written) = self.written.get_mut(memory).and_then(|w| w.get_mut(range)) {
            written.fill(false);
        }
    }

    /// Writes `data` at `offset` of memory `memory`, as the caller does (inputs, a variable
    /// tensor's first value); `None` if it lies outside the memory.
    pub fn store(&mut self, memory: usize, offset: usize, data: &[u8]) -> Option<()> {
        let end = offset.checked_add(data.len())?;
        self.memories.get_mut(memory)?.get_mut(offset..end)?.copy_from_slice(data);
        self.written[memory][offset..end].fill(true);
        Some(())
    }

    /// The first byte of `range` of memory `memory` that holds nothing written, if any.
    pub fn unwritten(&self, memory: usize, range: std::ops::Range<usize>) -> Option<usize> {
        let written = self.written.get(memory)?.get(range.clone())?;
        written.iter().position(|w| !w).map(|k| range.start + k)
    }

    /// The memory and base of region `region`.
    fn place(&self, region: u64) -> Option<(usize, usize)> {
        let &(memory, base) = self.regions.get(region as usize)?;
        Some((memory, base as usize))
    }

    /// The bytes of region `region`, from its start.
    pub fn memory(&self, region: u64) -> Option<&[u8]> {
        let &(memory, base) = self.regions.get(region as usize)?;
        self.memories.get(memory)?.get(base as usize..)
    }

    /// Runs the command stream `words` to its end; `each` sees every operation after it ran.
    pub fn run(&mut self, words: &[u32], mut each: impl FnMut(&Machine, &Operation)) -> Result<(), EthosUError> {
        for op in operations(&decode(words)?) {
            self.execute(&op)?;
            each(self, &op);
        }
        Ok(())
    }

    /// Runs one operation.
    pub fn execute(&mut self, op: &Operation) -> Result<(), EthosUError> {
        match op.command.name {
            "NPU_OP_DMA_START" => self.dma(op),
            _ if op.is_kernel() && op.registers.get("NPU_SET_ACC_FORMAT", "acc_format") == Some(2) => {
                Err(op.unsupported("a float16 accumulator (ACC_FORMAT_F16)"))
            }
            "NPU_OP_CONV" | "NPU_OP_DEPTHWISE" => self.convolution(op),
            "NPU_OP_POOL" => self.pool(op),
            "NPU_OP_ELEMENTWISE" => self.elementwise(op),
            "NPU_OP_DMA_WAIT" | "NPU_OP_KERNEL_WAIT" | "NPU_OP_PMU_MASK" => Ok(()),
            _ => Err(op.unsupported("the operation")),
        }
    }

    /// `length` bytes of `region` at `address`, or an error at `op` naming what it reads.
    pub fn read(
        &self,
        op: &Operation,
        region: u64,
        address: u64,
        length: u64,
        what: &str,
    ) -> Result<&[u8], EthosUError> {
        let (memory, start) = self.span(op, region, address, length, what)?;
        if let Some(at) = self.unwritten(memory, start..start + length as usize) {
            let at = at - start + address as usize;
            return Err(op.error(format!("{what} reads byte {at:#x} of region {region}, which nothing wrote")));
        }
        Ok(&self.memories[memory][start..start + length as usize])
    }

    /// The memory of `length` bytes of `region` at `address`, and where they start in it; an
    /// error at `op` naming `what` if they lie outside the region.
    fn span(
        &self,
        op: &Operation,
        region: u64,
        address: u64,
        length: u64,
        what: &str,
    ) -> Result<(usize, usize), EthosUError> {
        let bytes = self
            .memory(region)
            .ok_or_else(|| op.error(format!("{what} is in region {region}, which the model does not give")))?;
        address.checked_add(length).filter(|&end| end <= bytes.len() as u64).ok_or_else(|| {
            op.error(format!(
                "{what} ({length} bytes at {address:#x}) lies outside region {region} ({} bytes)",
                bytes.len()
            ))
        })?;
        let (memory, base) = self.place(region).expect("the region has a memory");
        Ok((memory, base + address as usize))
    }

    /// A copy between regions, or from a region into the internal SRAM (`NPU_SET_DMA0_*`).
    fn dma(&mut self, op: &Operation) -> Result<(), EthosUError> {
        if op.register("NPU_SET_DMA0_SRC_REGION", "region_mode")? != 0 {
            return Err(op.unsupported("a DMA from the internal SRAM"));
        }
        // `DMA_STRIDE_MODE_D2` and `D3` copy blocks by `NPU_SET_DMA0_SIZE*` and `SKIP*`, which no
        // Vela stream sets; the model copies one run of bytes.
        for side in ["SRC", "DST"] {
            if op.register(&format!("NPU_SET_DMA0_{side}_REGION"), "stride_mode")? != 0 {
                return Err(op.unsupported("a strided DMA (DMA_STRIDE_MODE_D2 or D3)"));
            }
        }
        let source = (op.register("NPU_SET_DMA0_SRC_REGION", "region")?, op.register("NPU_SET_DMA0_SRC", "addr")?);
        let destination = (op.register("NPU_SET_DMA0_DST_REGION", "region")?, op.register("NPU_SET_DMA0_DST", "addr")?);
        let length = op.register("NPU_SET_DMA0_LEN", "addr")?;
        // The copy carries which bytes hold something written: a DMA may move bytes no one
        // wrote (a block's gaps) that no kernel reads.
        let (memory, start) = self.span(op, source.0, source.1, length, "the DMA's source")?;
        let range = start..start + length as usize;
        let (bytes, written) = (self.memories[memory][range.clone()].to_vec(), self.written[memory][range].to_vec());
        if op.register("NPU_SET_DMA0_DST_REGION", "region_mode")? == 1 {
            let end =
                destination.1.checked_add(length).filter(|&end| end <= self.shram.len() as u64).ok_or_else(|| {
                    let size = self.shram.len();
                    op.error(format!(
                        "the DMA's destination ({length} bytes at {:#x}) lies outside the internal SRAM ({size} bytes)",
                        destination.1
                    ))
                })?;
            self.shram[destination.1 as usize..end as usize].copy_from_slice(&bytes);
            self.shram_written[destination.1 as usize..end as usize].copy_from_slice(&written);
            return Ok(());
        }
        let (memory, start) = self.span(op, destination.0, destination.1, length, "the DMA's destination")?;
        let range = start..start + length as usize;
        self.memories[memory][range.clone()].copy_from_slice(&bytes);
        self.written[memory][range].copy_from_slice(&written);
        Ok(())
    }
}

impl Machine {
    /// The IFM's values as a kernel reaches them: `[h, w, c]` of the IFM itself, or with
    /// `NPU_SET_IFM_UPSCALE` of the IFM twice as high and wide, each element repeated in its 2x2
    /// square (`IFM_UPSCALE_MODE_NEAREST`) or followed by zero points (`IFM_UPSCALE_MODE_ZEROS`:
    /// values that add nothing), from an IFM of half the height and width.
    pub(crate) fn ifm_values(
        &self,
        op: &Operation,
        map: &FeatureMap,
        [h, w, c]: [u64; 3],
    ) -> Result<Vec<i64>, EthosUError> {
        let mode = op.registers.get("NPU_SET_IFM_UPSCALE", "mode").unwrap_or(0);
        if mode == 0 {
            return self.feature_map_values(op, map, [h, w, c], "the IFM");
        }
        let (sh, sw) = (h.div_ceil(2), w.div_ceil(2));
        let source = self.feature_map_values(op, map, [sh, sw, c], "the IFM")?;
        let mut values = Vec::with_capacity((h * w * c) as usize);
        for y in 0..h {
            for x in 0..w {
                for z in 0..c {
                    let kept = mode == 1 || (y % 2 == 0 && x % 2 == 0);
                    values.push(if kept { source[(((y / 2) * sw + x / 2) * c + z) as usize] } else { map.zero() });
                }
            }
        }
        Ok(values)
    }

    /// An error at `op` unless the `[h, w, c]` feature map `map` has no more elements than its
    /// region has bytes for. Every map whose elements lie in their region keeps it (Vela's all
    /// do); it bounds what a kernel computes and holds before it reads or writes an element, so a
    /// corrupted shape is an error, not hours of work or an allocation that fails.
    pub(crate) fn fits(
        &self,
        op: &Operation,
        map: &FeatureMap,
        [h, w, c]: [u64; 3],
        what: &str,
    ) -> Result<(), EthosUError> {
        let bytes = self.memory(map.region).map_or(0, |m| m.len() as u64);
        let needed = h.checked_mul(w).and_then(|n| n.checked_mul(c)).and_then(|n| n.checked_mul(map.element_bytes));
        match needed {
            Some(needed) if needed <= bytes => Ok(()),
            _ => Err(op.error(format!(
                "{what} of {h}x{w}x{c} elements of {} bytes is larger than region {} ({bytes} bytes)",
                map.element_bytes, map.region
            ))),
        }
    }

    /// The elements of the `[h, w, c]` feature map `map`, in HWC order (little-endian elements
    /// of 1, 2 or 4 bytes, signed or not as the map says).
    pub(crate) fn feature_map_values(
        &self,
        op: &Operation,
        map: &FeatureMap,
        [h, w, c]: [u64; 3],
        what: &str,
    ) -> Result<Vec<i64>, EthosUError> {
        let size = map.element_bytes as usize;
        if ![1, 2, 4].contains(&size) {
            return Err(op.unsupported(&format!("{what} of {size} bytes an element")));
        }
        let bytes = self
            .memory(map.region)
            .ok_or_else(|| op.error(format!("{what} is in region {}, which the model does not give", map.region)))?;
        self.fits(op, map, [h, w, c], what)?;
        let (memory, base) = self.place(map.region).expect("the region has a memory");
        let written = &self.written[memory][base..];
        let mut values = Vec::with_capacity((h * w * c) as usize);
        for y in 0..h {
            for x in 0..w {
                for z in 0..c {
                    let at = map.address(y, x, z) as usize;
                    let element = bytes.get(at..at + size).ok_or_else(|| {
                        op.error(format!(
                            "{what}'s element ({y}, {x}, {z}) at {at:#x} lies outside region {}",
                            map.region
                        ))
                    })?;
                    if written[at..at + size].contains(&false) {
                        return Err(op.error(format!(
                            "{what}'s element ({y}, {x}, {z}) at {at:#x} of region {}: nothing wrote it",
                            map.region
                        )));
                    }
                    let mut raw = [0u8; 8];
                    raw[..size].copy_from_slice(element);
                    let value = u64::from_le_bytes(raw);
                    let shift = 64 - 8 * size as u32;
                    values.push(if map.signed { (value << shift) as i64 >> shift } else { value as i64 });
                }
            }
        }
        Ok(values)
    }

    /// Writes `values` (HWC order) as the `[h, w, c]` feature map `map`.
    pub(crate) fn store_feature_map(
        &mut self,
        op: &Operation,
        map: &FeatureMap,
        [h, w, c]: [u64; 3],
        values: &[i64],
        what: &str,
    ) -> Result<(), EthosUError> {
        let (region, size) = (map.region, map.element_bytes as usize);
        if ![1, 2, 4].contains(&size) {
            return Err(op.unsupported(&format!("{what} of {size} bytes an element")));
        }
        self.fits(op, map, [h, w, c], what)?;
        let Some((index, base)) = self.place(region).filter(|&(m, b)| b <= self.memories.get(m).map_or(0, Vec::len))
        else {
            return Err(op.error(format!("{what} is in region {region}, which the model does not give")));
        };
        let (memory, written) = (&mut self.memories[index][base..], &mut self.written[index][base..]);
        let mut k = 0;
        for y in 0..h {
            for x in 0..w {
                for z in 0..c {
                    let at = map.address(y, x, z) as usize;
                    let Some(slot) = memory.get_mut(at..at + size) else {
                        return Err(op.error(format!(
                            "{what}'s element ({y}, {x}, {z}) at {at:#x} lies outside region {region}"
                        )));
                    };
                    slot.copy_from_slice(&values[k].to_le_bytes()[..size]);
                    written[at..at + size].fill(true);
                    k += 1;
                }
            }
        }
        Ok(())
    }
}

/// What every operation does last to each OFM element: add the OFM zero point and clamp to the
/// activation's bounds (`NPU_SET_ACTIVATION_MIN`/`MAX`, 16-bit fields) and to the OFM's type.
pub struct OutputStage {
    zero: i64,
    low: i64,
    high: i64,
}

impl OutputStage {
    pub fn of(op: &Operation, ofm: &FeatureMap) -> Result<OutputStage, EthosUError> {
        let bound = |name: &str| -> Result<i64, EthosUError> {
            let raw = op.register(name, "clip_boundary")?;
            Ok(if ofm.signed { i64::from(raw as u16 as i16) } else { raw as i64 })
        };
        let (lowest, highest) = ofm.range();
        // An activation's 16-bit bounds clamp 8- and 16-bit maps; a 32-bit map keeps its range.
        let (low, high) = if ofm.element_bytes <= 2 {
            (bound("NPU_SET_ACTIVATION_MIN")?.max(lowest), bound("NPU_SET_ACTIVATION_MAX")?.min(highest))
        } else {
            (lowest, highest)
        };
        if low > high {
            return Err(op.unsupported(&format!("an activation whose minimum ({low}) is above its maximum ({high})")));
        }
        Ok(OutputStage { zero: ofm.zero(), low, high })
    }

    /// The element for the scaled result `value`.
    pub fn apply(&self, value: i64) -> i64 {
        (value + self.zero).clamp(self.low, self.high)
    }
}

impl Operation {
    /// An error at the operation.
    pub fn error(&self, message: String) -> EthosUError {
        EthosUError::Command { offset: self.offset, command: self.command.name.into(), message }
    }

    /// An error: `what` is not modelled yet.
    pub fn unsupported(&self, what: &str) -> EthosUError {
        self.error(format!("{what} is not supported by the simulator yet"))
    }
}

#[cfg(test)]
mod tests;

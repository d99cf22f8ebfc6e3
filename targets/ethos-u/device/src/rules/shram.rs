//! The internal SRAM (SHRAM) each kernel takes, by its block configuration, and the lookup
//! tables in it.
//!
//! A core's SHRAM is banks of 1 KiB. A kernel keeps the IFM blocks it reads in banks from 2 (the
//! first two are the output's) to `NPU_SET_IFM_IB_END`, twice over (one block fills while the
//! other is read); an elementwise operation its IFM2's from `NPU_SET_IFM2_IB_START`; a
//! convolution or pool its accumulators for the OFM block, twice over, from `NPU_SET_AB_START`.
//! A block of `h x w x d` elements of `b` bits takes `h · w · round_up(d · b / 8, 8)` bytes
//! (IFM) or `h · w · round_up(d, 8) · b / 8` (accumulators); the IFM block is what the OFM
//! block (`NPU_SET_OFM_BLK_*`, clipped to the OFM) reaches through the kernel (up to 8 x 8 of
//! it at a time, rounded up to the configuration's micro-block), as Vela sizes it
//! (`architecture_allocator.py`). Vela rounds each area up further to an allocation granule; the
//! checker asks only for the banks the blocks need.
//!
//! Lookup tables lie in the last 2 KiB of the SHRAM, where a DMA puts them. A kernel using a
//! table must end its areas before them; any kernel's areas overwrite what a DMA put where they
//! lie, so a table must be put again before a kernel reads it after another kernel's areas
//! covered it. A DMA into the SHRAM while a kernel whose areas it overlaps is outstanding is
//! the DMA and kernel waits' business (`rules.rs`, which takes the areas as the kernel's writes).

use super::{Finding, INTERNAL, Span};
use crate::{error::EthosUError, feature_map::Which, payload::Config, registers::Operation, timing::Core};

const BANK: u64 = 1024;
/// The banks before the IFM's: the output's.
const OUTPUT_BANKS: u64 = 2;
/// The tables' bytes at the end of the SHRAM.
const TABLES: u64 = 2048;

/// `x` rounded up to a multiple of `m`.
fn round_up(x: u64, m: u64) -> u64 {
    x.div_ceil(m) * m
}

/// Banks holding two blocks of `bytes` each.
fn double_banks(bytes: u64) -> u64 {
    2 * bytes.div_ceil(BANK)
}

/// The bytes of the lookup table `op` reads (`ACTIVATION_FUNCTION_TABLE_n`), in a SHRAM of
/// `shram` bytes: an int16 OFM interpolates in all 2 KiB, else table `n` is 256 entries of the
/// OFM's size from the start of the 2 KiB. `None` without a table.
pub(crate) fn table_span(op: &Operation, shram: u64) -> Result<Option<(u64, u64)>, EthosUError> {
    let function = op.register("NPU_SET_ACTIVATION", "activation_function")?;
    if !(16..24).contains(&function) {
        return Ok(None);
    }
    let ofm = op.feature_map(Which::Ofm)?;
    let clip = op.register("NPU_SET_ACTIVATION", "activation_clip_range")?;
    let base = shram.saturating_sub(TABLES);
    if clip == 0 && ofm.element_bytes == 2 && ofm.signed {
        return Ok(Some((base, base + TABLES)));
    }
    let start = base + (function - 16) * 256 * ofm.element_bytes;
    Ok(Some((start, start + 256 * ofm.element_bytes)))
}

/// The SHRAM bytes `op`'s areas take, `0..end` (none for other than kernels), with findings
/// for areas that do not hold its blocks or overlap.
pub(crate) fn areas(config: &Config, op: &Operation) -> Result<(Option<u64>, Vec<Finding>), EthosUError> {
    let name = op.command.name;
    if !op.is_kernel() {
        return Ok((None, Vec::new()));
    }
    let mut findings = Vec::new();
    let mut finding = |message: String| findings.push(Finding { offset: op.offset, outstanding: op.offset, message });
    let (ofm, _) = op.shapes()?;
    let block = op.ofm_block()?;
    let block = [block[0].min(ofm[0]), block[1].min(ofm[1]), block[2].min(ofm[2])];
    let ublock = Core::of(config).micro_block;
    let ifm = op.feature_map(Which::Ifm)?;
    let ifm_bits = 8 * ifm.element_bytes;
    let elementwise = name == "NPU_OP_ELEMENTWISE";
    // The IFM block: what the OFM block reaches through up to 8 x 8 of the kernel.
    let [h, w] = if elementwise {
        [block[0], block[1]]
    } else {
        let [kw, kh] = op.kernel()?;
        let [sx, sy] = op.stride()?;
        let [dx, dy] = op.dilation()?;
        let upscale = op.registers.get("NPU_SET_IFM_UPSCALE", "mode").unwrap_or(0);
        let (scale, nearest) = if upscale == 0 { (1, 0) } else { (2, u64::from(upscale == 1)) };
        let reach = |o: u64, s: u64, k: u64, d: u64| ((o - 1) * s + ((k - 1) * d + 1).min(8) + nearest).div_ceil(scale);
        [round_up(reach(block[0], sy, kh, dy), ublock[0]), round_up(reach(block[1], sx, kw, dx), ublock[1])]
    };
    let reads_all_channels = name == "NPU_OP_CONV" || (name == "NPU_OP_POOL" && op.param == 2);
    let depth = if reads_all_channels {
        let ifm_depth = op.register("NPU_SET_IFM_DEPTH_M1", "depth_m1")? + 1;
        let part_kernel = name == "NPU_OP_CONV" && op.register("NPU_SET_KERNEL_STRIDE", "weight_order")? == 1;
        if ifm_bits == 16 {
            round_up(ifm_depth.min(16), 4)
        } else {
            round_up(ifm_depth.min(if part_kernel { 16 } else { 32 }), 8)
        }
    } else {
        block[2]
    };
    let ifm_banks = double_banks(h * w * round_up(depth * ifm_bits / 8, 8));
    let ib_end = op.register("NPU_SET_IFM_IB_END", "ib_end")?;
    let ab_start = op.register("NPU_SET_AB_START", "ab_start")?;
    // An elementwise operation of two operands keeps the IFM2's blocks after the IFM's.
    let binary = elementwise && !op.unary_elementwise();
    let ifm_end = if binary { op.register("NPU_SET_IFM2_IB_START", "ib_start")? } else { ib_end };
    if ifm_end < OUTPUT_BANKS + ifm_banks {
        finding(format!(
            "its IFM blocks ({h}x{w}x{depth}, twice) take {ifm_banks} SHRAM banks from bank {OUTPUT_BANKS}, \
             it gives them up to bank {ifm_end}"
        ));
    }
    let end = if binary {
        let ifm2_banks = if op.reads_ifm2_map()? { ifm_banks } else { 0 };
        if ib_end < ifm_end + ifm2_banks {
            finding(format!(
                "its IFM2 blocks take {ifm2_banks} SHRAM banks from bank {ifm_end}, it gives them up to bank {ib_end}"
            ));
        }
        ib_end.max(ifm_end + ifm2_banks)
    } else if elementwise {
        ib_end
    } else {
        let acc_bits = match op.register("NPU_SET_ACC_FORMAT", "acc_format")? {
            1 => 40,
            2 => 16,
            _ => 32,
        };
        let acc_banks = double_banks(block[0] * block[1] * round_up(block[2], 8) * acc_bits / 8);
        if ab_start < ib_end {
            finding(format!("its accumulators start at SHRAM bank {ab_start}, within its IFM's (to bank {ib_end})"));
        }
        ab_start + acc_banks
    };
    let shram = config.shram_bytes();
    let limit = match table_span(op, shram)? {
        Some(_) => shram.saturating_sub(TABLES),
        None => shram,
    };
    if end * BANK > limit {
        let what = if limit < shram { "before its lookup tables, " } else { "" };
        finding(format!("its SHRAM areas end at bank {end}, past the {} banks {what}of the SHRAM", limit / BANK));
    }
    Ok((Some(end * BANK), findings))
}

/// Which SHRAM bytes hold what a DMA put there, as a stream runs: a lookup table a kernel reads
/// must have been put there, and not overwritten by a kernel's areas since.
#[derive(Default)]
pub(crate) struct Tables {
    /// The SHRAM bytes that hold what a DMA put there, merged or not.
    put: Vec<(u64, u64)>,
}

impl Tables {
    /// A DMA that writes `writes`: what it puts in the SHRAM is there now.
    pub(crate) fn dma(&mut self, writes: &[Span]) {
        self.put.extend(writes.iter().filter(|w| w.0 == INTERNAL).map(|&(_, start, end)| (start, end)));
    }

    /// Kernel `op`, reading the table bytes `table` (if any) and taking the SHRAM's bytes up to
    /// `used`: a finding if no DMA put all of its table there, then its areas overwrite what
    /// a DMA put where they lie.
    pub(crate) fn kernel(&mut self, op: &Operation, table: Option<(u64, u64)>, used: u64) -> Option<Finding> {
        let finding = table.and_then(|(start, end)| {
            let mut covered: Vec<(u64, u64)> =
                self.put.iter().map(|&(s, e)| (s.max(start), e.min(end))).filter(|(s, e)| s < e).collect();
            covered.sort_unstable();
            let mut reached = start;
            for (s, e) in covered {
                if s <= reached {
                    reached = reached.max(e);
                }
            }
            (reached < end).then(|| Finding {
                offset: op.offset,
                outstanding: op.offset,
                message: format!(
                    "it reads lookup table bytes {start:#x}..{end:#x} of the SHRAM; from {reached:#x} no DMA put \
                     them there, or a kernel's areas overwrote them since"
                ),
            })
        });
        self.put = self.put.iter().map(|&(s, e)| (s.max(used), e)).filter(|(s, e)| s < e).collect();
        finding
    }
}

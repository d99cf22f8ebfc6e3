//! Ethos-U's compressed weight streams (Vela's "mlw" format; `../shared/facts/ethos-u.md`): what
//! the NPU's weight decoder reads from `NPU_SET_WEIGHT_BASE` for `NPU_SET_WEIGHT_LENGTH` bytes.
//!
//! A stream is a little-endian bitstream (bit 0 of byte 0 first) of slices. A slice header holds
//! `ZDIV` (3 bits: the Golomb-Rice divisor of the zero runs, 6 for none, 7 for the end of a
//! stream, after which the reader skips to the next byte), `SLICELEN` (15 bits: weights - 1),
//! `WDIV` (3: the weights' divisor, 7 for uncompressed indices), `WTRUNC` (1: truncated unary
//! codes) and `NEWPAL` (1); a new palette adds `DIROFS` (5), `PALSIZE` (5: entries - 1, 0 for none)
//! and `PALBITS` (3: bits per entry - 2), then the entries. The body interleaves chunks of the
//! two Golomb-Rice streams, weight indices and zero runs: each chunk's unary parts (12 bits of
//! first-level code for the weights, then the second-level bits the first level calls for; 12 or
//! 8 bits for the zero runs), then the remainders of the chunk before, so the hardware decodes the
//! unary parts one chunk ahead. The zero runs are throttled to stay at most 8 weights behind.
//! An index below the palette's size reads the palette, any other `index - size + DIROFS`; the
//! value is 9-bit sign-magnitude with the sign in bit 0. With zero runs, a slice with a new
//! palette starts with a run of zeros, and each weight is followed by its run.

use crate::error::EthosUError;

/// `ZDIV`: no zero runs in the slice.
const ZDIV_NONE: u32 = 6;
/// `ZDIV`: the end of a stream.
const ZDIV_END: u32 = 7;
/// `WDIV`: uncompressed indices.
const WDIV_UNCOMPRESSED: u32 = 7;

struct Bits<'a> {
    bytes: &'a [u8],
    /// The next bit.
    at: usize,
}

impl Bits<'_> {
    fn get(&mut self, width: u32) -> Result<u32, EthosUError> {
        let mut value = 0;
        for i in 0..width {
            let byte = self.bytes.get(self.at / 8).ok_or_else(|| error(self.at, "the stream ends inside a slice"))?;
            value |= u32::from(byte >> (self.at % 8) & 1) << i;
            self.at += 1;
        }
        Ok(value)
    }

    fn at_end(&self) -> bool {
        self.at / 8 >= self.bytes.len()
    }
}

fn error(bit: usize, message: &str) -> EthosUError {
    EthosUError::Weights { offset: bit / 8, message: message.into() }
}

/// One of the two Golomb-Rice streams of a slice: its divisor, the quotients of the symbols
/// its last chunk read (whose remainders follow the next chunk's unary parts), and the values.
struct Rice {
    divisor: u32,
    /// The unary count carried into the next chunk (a code longer than its chunk).
    carry: u32,
    pending: Vec<u32>,
    values: Vec<u32>,
    /// How many values the slice holds.
    total: usize,
    /// Quotients read so far.
    read: usize,
}

impl Rice {
    fn new(divisor: u32, total: usize) -> Rice {
        Rice { divisor, carry: 0, pending: Vec::new(), values: Vec::with_capacity(total), total, read: 0 }
    }

    /// Reads the remainders of the quotients the chunk before read.
    fn remainders(&mut self, bits: &mut Bits) -> Result<(), EthosUError> {
        for q in std::mem::take(&mut self.pending) {
            if self.values.len() < self.total {
                let remainder = bits.get(self.divisor)?;
                self.values.push((q << self.divisor) + remainder);
            }
        }
        Ok(())
    }
}

/// Decodes `stream`, at most `limit` weights (the weights an operation reads: a stream that
/// decodes to more is an error, as is one that does not decode).
pub fn decode(stream: &[u8], limit: usize) -> Result<Vec<i16>, EthosUError> {
    let mut bits = Bits { bytes: stream, at: 0 };
    let mut out = Vec::new();
    let mut palette: Vec<u32> = Vec::new();
    let (mut direct_offset, mut palette_bits) = (0, 2);
    // Whether a slice read since the last end had zero runs (`None`: none read yet).
    let mut zero_runs_before: Option<bool> = None;
    loop {
        let mut zdiv = bits.get(3)?;
        while zdiv == ZDIV_END {
            bits.at = bits.at.div_ceil(8) * 8;
            zero_runs_before = None;
            if bits.at_end() {
                return Ok(out);
            }
            zdiv = bits.get(3)?;
        }
        if bits.at_end() {
            return Ok(out);
        }
        let header = bits.at - 3;
        if zdiv > 3 && zdiv != ZDIV_NONE {
            return Err(error(header, &format!("ZDIV {zdiv} is not a zero-run divisor (0-3, 6 for none)")));
        }
        let zero_runs = zdiv != ZDIV_NONE;
        let count = bits.get(15)? as usize + 1;
        let wdiv = bits.get(3)?;
        let truncated = bits.get(1)? == 1;
        let new_palette = bits.get(1)? == 1;
        match (zero_runs_before, new_palette) {
            (None, false) => return Err(error(header, "the first slice of a stream sets no palette")),
            (Some(before), false) if before != zero_runs => {
                return Err(error(header, "a slice changes to or from zero runs without a new palette"));
            }
            _ => {}
        }
        zero_runs_before = Some(zero_runs);
        if new_palette {
            direct_offset = bits.get(5)?;
            let size = match bits.get(5)? {
                0 => 0,
                n => n + 1,
            };
            palette_bits = bits.get(3)? + 2;
            palette = (0..size).map(|_| bits.get(palette_bits)).collect::<Result<_, _>>()?;
        }
        let uncompressed = wdiv == WDIV_UNCOMPRESSED;
        // Uncompressed, an index has as many bits as the palette needs, or PALBITS without one.
        let wdiv = match (uncompressed, palette.len()) {
            (true, 0) => palette_bits,
            (true, size) => usize::BITS - (size - 1).leading_zeros(),
            (false, _) if wdiv > 5 => return Err(error(header, &format!("WDIV {wdiv} is not a divisor (0-5, 7)"))),
            (false, _) => wdiv,
        };
        let mut weights = Rice::new(wdiv, count);
        let mut zeros = Rice::new(zdiv, count + usize::from(new_palette));
        let zero_chunk = if zdiv < 3 { 12 } else { 8 };
        let weight_chunk = if uncompressed && wdiv > 5 { 8 } else { 12 };
        loop {
            let balance = if zero_runs { weights.read as isize - zeros.read as isize } else { 0 };
            let read_weights = (balance < 8 || !zero_runs) && weights.read < weights.total;
            let read_zeros = balance >= 0 && zero_runs && zeros.read < zeros.total;
            let first_level = if read_weights && !uncompressed { bits.get(12)? } else { 0 };
            let mut quotients = (Vec::new(), Vec::new());
            if read_zeros {
                let unary = bits.get(zero_chunk)?;
                for i in 0..zero_chunk {
                    if unary >> i & 1 == 1 {
                        zeros.carry += 1;
                    } else {
                        quotients.1.push(std::mem::take(&mut zeros.carry));
                    }
                }
                zeros.read += quotients.1.len();
            }
            if read_weights {
                let ones = (first_level & ((1 << weight_chunk) - 1)).count_ones();
                let mut second_level = bits.get(ones)?;
                for i in 0..weight_chunk {
                    let mut code = 0;
                    if first_level >> i & 1 == 1 {
                        code = 1 + (second_level & 1);
                        second_level >>= 1;
                    }
                    weights.carry += code;
                    if code < 2 || truncated {
                        quotients.0.push(std::mem::take(&mut weights.carry));
                    }
                }
                weights.read += quotients.0.len();
            }
            let more = !weights.pending.is_empty() || !zeros.pending.is_empty() || read_weights || read_zeros;
            weights.remainders(&mut bits)?;
            zeros.remainders(&mut bits)?;
            if !more {
                break;
            }
            (weights.pending, zeros.pending) = quotients;
        }
        if weights.values.len() < count || (zero_runs && zeros.values.len() < zeros.total) {
            return Err(error(bits.at, "a slice ends before its weights"));
        }
        let leading = usize::from(new_palette && zero_runs);
        let run = |k: usize| if zero_runs { zeros.values[k] as usize } else { 0 };
        let total = out.len() + count + (0..zeros.total).map(run).sum::<usize>();
        if total > limit {
            return Err(error(bits.at, &format!("the stream holds more than the {limit} weights read")));
        }
        out.resize(out.len() + if leading == 1 { run(0) } else { 0 }, 0);
        for (i, &index) in weights.values.iter().enumerate() {
            if index >= 512 {
                return Err(error(bits.at, &format!("weight index {index} is over 9 bits")));
            }
            let value = match palette.get(index as usize) {
                Some(&entry) => entry,
                None => index - palette.len() as u32 + direct_offset,
            };
            let magnitude = (value >> 1) as i16;
            out.push(if value & 1 == 1 { -magnitude } else { magnitude });
            out.resize(out.len() + run(i + leading), 0);
        }
    }
}

/// How a convolution's weights are laid out in its stream: the order the NPU reads them in,
/// which depends on the configuration's micro-blocks, the OFM block depth, the traversal and the
/// kernel's decomposition into sub-kernels (`reorder()` of Vela's `mlw_encode.c` writes this
/// order; the hardware reads it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// The depth of an IFM and of an OFM micro-block (8 and 8; the U55-32's OFM micro-block is 4).
    pub ifm_ublock: usize,
    pub ofm_ublock: usize,
    /// OFM channels, kernel height and width, IFM channels (1 for a depthwise convolution).
    pub ofm_depth: usize,
    pub kernel: [usize; 2],
    pub ifm_depth: usize,
    /// The OFM block's depth (`NPU_SET_OFM_BLK_DEPTH_M1` + 1).
    pub ofm_block_depth: usize,
    pub depthwise: bool,
    /// Part-kernel-first traversal (`weight_order` of `NPU_SET_KERNEL_STRIDE`), else depth first.
    pub part_kernel: bool,
    /// The IFM's bits per element, 8 or 16.
    pub ifm_bits: usize,
    /// The largest sub-kernel's height and width: 8 / dilation.
    pub decomposition: [usize; 2],
}

/// A weight's place in the OHWI weights: OFM channel, kernel y, kernel x, IFM channel.
pub type Place = [usize; 4];

impl Layout {
    /// Each weight of the stream in order: its place, or `None` for padding (a zero).
    pub fn order(&self) -> Vec<Option<Place>> {
        let [height, width] = self.kernel;
        let steps =
            [self.ifm_ublock, self.ofm_ublock, self.ofm_block_depth, self.decomposition[0], self.decomposition[1]];
        if steps.contains(&0) || height == 0 || width == 0 {
            return Vec::new();
        }
        let ifm_block = if self.part_kernel || self.ifm_bits == 16 { 16 } else { 32 };
        let mut order = Vec::new();
        for ofm_block in (0..self.ofm_depth).step_by(self.ofm_block_depth) {
            let ofm_block_depth = self.ofm_block_depth.min(self.ofm_depth - ofm_block);
            let ifm_blocks = if self.depthwise { 1 } else { self.ifm_depth };
            for ifm_block_z in (0..ifm_blocks).step_by(ifm_block) {
                let ifm_block_depth = match (self.depthwise, self.part_kernel) {
                    (true, _) => self.ifm_ublock,
                    (false, true) => ifm_block.min(self.ifm_depth - ifm_block_z),
                    (false, false) => ifm_block,
                };
                for sub_y in (0..height).step_by(self.decomposition[0]) {
                    let sub_height = self.decomposition[0].min(height - sub_y);
                    for sub_x in (0..width).step_by(self.decomposition[1]) {
                        let sub_width = self.decomposition[1].min(width - sub_x);
                        // Part-kernel-first and depthwise traversals read whole groups of kernel
                        // elements: 4 (2 for a 16-bit IFM), the rest padding.
                        let group = match (self.part_kernel, self.depthwise, self.ifm_bits) {
                            (true, _, 16) => 2,
                            (true, _, _) | (false, true, _) => 4,
                            _ => 1,
                        };
                        let elements = (sub_width * sub_height).div_ceil(group) * group;
                        let (outer, inner) = if self.part_kernel { (ifm_block_depth, 1) } else { (1, ifm_block_depth) };
                        for ifm_outer in (0..outer).step_by(self.ifm_ublock) {
                            for ofm_ublock in (0..ofm_block_depth).step_by(self.ofm_ublock) {
                                for element in 0..elements {
                                    let (kx, ky) = (element % sub_width, element / sub_width);
                                    for ifm_inner in (0..inner).step_by(self.ifm_ublock) {
                                        for ofm_z in 0..self.ofm_ublock {
                                            for ifm_z in 0..if self.depthwise { 1 } else { self.ifm_ublock } {
                                                let ifm = ifm_block_z + ifm_inner + ifm_outer + ifm_z;
                                                let ofm = ofm_block + ofm_ublock + ofm_z;
                                                let real =
                                                    ifm < self.ifm_depth && ofm < self.ofm_depth && ky < sub_height;
                                                order.push(real.then_some([ofm, sub_y + ky, sub_x + kx, ifm]));
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        order
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A stream of one slice of `values` (9-bit sign-magnitude indices, no palette).
    pub(crate) fn uncompressed(values: &[u32]) -> Vec<u8> {
        let mut fields = header(values.len() as u32, WDIV_UNCOMPRESSED, &[], 9);
        fields.extend(values.iter().map(|&v| (v, 9)));
        fields.push((ZDIV_END, 3));
        stream(&fields)
    }

    /// Writes fields LSB first, as the decoder reads them.
    fn stream(fields: &[(u32, u32)]) -> Vec<u8> {
        let mut bytes = Vec::new();
        let mut at = 0;
        for &(value, width) in fields {
            for i in 0..width {
                if at % 8 == 0 {
                    bytes.push(0);
                }
                *bytes.last_mut().unwrap() |= ((value >> i & 1) as u8) << (at % 8);
                at += 1;
            }
        }
        bytes
    }

    /// A slice header: no zero runs, `count` weights, WDIV, no truncation, a new palette of
    /// `palette` entries of `bits` bits (no palette: `bits` is the index width), offset 0.
    fn header(count: u32, wdiv: u32, palette: &[u32], bits: u32) -> Vec<(u32, u32)> {
        let size = if palette.is_empty() { 0 } else { palette.len() as u32 - 1 };
        let mut fields =
            vec![(ZDIV_NONE, 3), (count - 1, 15), (wdiv, 3), (0, 1), (1, 1), (0, 5), (size, 5), (bits - 2, 3)];
        fields.extend(palette.iter().map(|&p| (p, bits)));
        fields
    }

    #[test]
    fn an_uncompressed_slice_reads_9_bit_sign_magnitude_values() {
        // Two weights, +5 (10: magnitude 5, sign bit 0) and -3 (7), as 9-bit indices (no
        // palette, offset 0), then the end of the stream.
        let mut fields = header(2, WDIV_UNCOMPRESSED, &[], 9);
        fields.extend([(10, 9), (7, 9), (ZDIV_END, 3)]);
        assert_eq!(decode(&stream(&fields), 2).unwrap(), [5, -3]);
    }

    #[test]
    fn a_palette_maps_small_indices_and_offsets_the_others() {
        // A palette of two 4-bit entries (-4: 9, +6: 12), uncompressed 1-bit indices; then a
        // slice without a palette keeps it: indices 1, 0.
        let mut fields = header(2, WDIV_UNCOMPRESSED, &[9, 12], 4);
        fields.extend([(1, 1), (0, 1)]);
        fields.extend([(ZDIV_NONE, 3), (1, 15), (WDIV_UNCOMPRESSED, 3), (0, 1), (0, 1), (0, 1), (1, 1)]);
        fields.push((ZDIV_END, 3));
        assert_eq!(decode(&stream(&fields), 4).unwrap(), [6, -4, -4, 6]);
    }

    #[test]
    fn malformed_slices_are_errors_at_their_byte() {
        let error = |fields: &[(u32, u32)]| decode(&stream(fields), 100).unwrap_err().to_string();
        // The first slice sets no palette.
        assert_eq!(
            error(&[(ZDIV_NONE, 3), (0, 15), (WDIV_UNCOMPRESSED, 3), (0, 1), (0, 1), (0, 9)]),
            "weight stream, byte 0: the first slice of a stream sets no palette"
        );
        let mut zdiv = header(1, 0, &[], 9);
        zdiv[0] = (4, 3);
        assert!(error(&zdiv).contains("ZDIV 4 is not a zero-run divisor"));
        assert!(error(&header(1, 6, &[], 9)).contains("WDIV 6 is not a divisor"));
        // The stream ends inside the slice's weights.
        assert!(error(&header(3, WDIV_UNCOMPRESSED, &[], 9)).contains("the stream ends inside a slice"));
        // An empty stream is not one (a stream ends with ZDIV 7).
        assert_eq!(decode(&[], 0).unwrap_err().to_string(), "weight stream, byte 0: the stream ends inside a slice");
    }
}

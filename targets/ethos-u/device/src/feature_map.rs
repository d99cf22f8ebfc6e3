//! Feature maps as the registers describe them: where each element of an IFM, IFM2 or OFM lies.
//!
//! A feature map lies in a region in up to four tiles (`BASE0..3`): tile 0 holds the rows above
//! `HEIGHT0` and the columns left of `WIDTH0`, tile 1 the columns from `WIDTH0` on above
//! `HEIGHT1`, tile 2 the rows from `HEIGHT0` on left of `WIDTH0`, tile 3 the rest; each tile
//! addresses its elements from its own origin. In NHWC an element is `y · STRIDE_Y + x · STRIDE_X
//! + c · size` from its tile's base; in NHCWB16 channels come in bricks of 16, so it is
//! `y · STRIDE_Y + x · 16 · size + (c / 16) · STRIDE_C + (c % 16) · size`.

use crate::{error::EthosUError, registers::Operation};

/// The 40 bits of an address.
const ADDRESS_MASK: u64 = (1 << 40) - 1;

/// How a feature map's elements are laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Nhwc,
    Nhcwb16,
}

/// A feature map's place and layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FeatureMap {
    pub region: u64,
    pub bases: [u64; 4],
    /// `STRIDE_X`, `STRIDE_Y`, `STRIDE_C`.
    pub strides: [u64; 3],
    pub format: Format,
    /// Bytes per element: 1, 2, 4 or 8.
    pub element_bytes: u64,
    pub signed: bool,
    /// `HEIGHT0`, `HEIGHT1` and `WIDTH0` (counts, not minus one).
    pub height0: u64,
    pub height1: u64,
    pub width0: u64,
    pub zero_point: u64,
}

impl FeatureMap {
    /// The zero point as the number it is: a signed map's 16-bit field is two's complement.
    pub fn zero(&self) -> i64 {
        if self.signed { i64::from(self.zero_point as u16 as i16) } else { self.zero_point as i64 }
    }

    /// The smallest and largest value an element holds.
    pub fn range(&self) -> (i64, i64) {
        let bits = 8 * self.element_bytes as u32;
        if self.signed { (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1) } else { (0, (1i64 << bits.min(63)) - 1) }
    }

    /// The address in its region of element `(y, x, c)`.
    pub fn address(&self, mut y: u64, mut x: u64, c: u64) -> u64 {
        let mut tile = 0;
        if x >= self.width0 {
            x -= self.width0;
            tile = 1;
            if y >= self.height1 {
                y -= self.height1;
                tile = 3;
            }
        } else if y >= self.height0 {
            y -= self.height0;
            tile = 2;
        }
        let size = self.element_bytes;
        let [stride_x, stride_y, stride_c] = self.strides;
        let (stride_x, stride_c) = match self.format {
            Format::Nhwc => (stride_x, 16 * size),
            Format::Nhcwb16 => (16 * size, stride_c),
        };
        // Addresses are 40 bits wide and wrap: a stride of `2^40 - k` steps back `k` bytes (Vela
        // writes negative strides so, to mirror a map).
        let offset = y.wrapping_mul(stride_y).wrapping_add(x.wrapping_mul(stride_x)).wrapping_add((c / 16) * stride_c);
        self.bases[tile].wrapping_add(offset).wrapping_add((c % 16) * size) & ADDRESS_MASK
    }
}

/// The registers of the IFM, IFM2 and OFM: their commands' names differ only in the prefix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Which {
    Ifm,
    Ifm2,
    Ofm,
}

impl Operation {
    /// The feature map `which` as the registers describe it.
    pub fn feature_map(&self, which: Which) -> Result<FeatureMap, EthosUError> {
        let prefix = match which {
            Which::Ifm => "IFM",
            Which::Ifm2 => "IFM2",
            Which::Ofm => "OFM",
        };
        let get = |name: &str, field: &str| self.register(&format!("NPU_SET_{prefix}_{name}"), field);
        let bases = [get("BASE0", "addr")?, get("BASE1", "addr")?, get("BASE2", "addr")?, get("BASE3", "addr")?];
        let strides = [get("STRIDE_X", "addr")?, get("STRIDE_Y", "addr")?, get("STRIDE_C", "addr")?];
        let format = match get("PRECISION", "activation_format")? {
            0 => Format::Nhwc,
            _ => Format::Nhcwb16,
        };
        Ok(FeatureMap {
            region: get("REGION", "region")?,
            bases,
            strides,
            format,
            element_bytes: 1 << get("PRECISION", "activation_precision")?,
            signed: get("PRECISION", "activation_type")? == 1,
            height0: get("HEIGHT0_M1", "height_m1")? + 1,
            height1: get("HEIGHT1_M1", "height_m1")? + 1,
            width0: get("WIDTH0_M1", "width_m1")? + 1,
            zero_point: get("ZERO_POINT", "zero_point")?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(format: Format) -> FeatureMap {
        // 6 rows of 5 columns of 20 channels: tile 0 is rows 0-3 of columns 0-2, tile 1 rows
        // 0-1 of columns 3-4, tile 2 rows 4-5 of columns 0-2, tile 3 rows 2-5 of columns 3-4.
        let strides = match format {
            Format::Nhwc => [20, 100, 1],
            // Two bricks of 16 channels; a row of 5 columns of one brick is 80 bytes.
            Format::Nhcwb16 => [16, 160, 80],
        };
        FeatureMap {
            region: 1,
            bases: [0x1000, 0x2000, 0x3000, 0x4000],
            strides,
            format,
            element_bytes: 1,
            signed: true,
            height0: 4,
            height1: 2,
            width0: 3,
            zero_point: 0,
        }
    }

    #[test]
    fn elements_lie_in_their_tiles() {
        let nhwc = map(Format::Nhwc);
        assert_eq!(nhwc.address(0, 0, 0), 0x1000);
        assert_eq!(nhwc.address(3, 2, 19), 0x1000 + 300 + 40 + 19);
        // Column 3 of row 1 is tile 1's column 0; of row 2, tile 3's row 0.
        assert_eq!(nhwc.address(1, 3, 5), 0x2000 + 100 + 5);
        assert_eq!(nhwc.address(2, 4, 0), 0x4000 + 20);
        assert_eq!(nhwc.address(5, 4, 7), 0x4000 + 300 + 20 + 7);
        // Row 4 of column 2 is tile 2's row 0.
        assert_eq!(nhwc.address(4, 2, 1), 0x3000 + 40 + 1);
        let bricks = map(Format::Nhcwb16);
        // Channel 17 is in the second brick: 80 bytes on, at 1 in its 16.
        assert_eq!(bricks.address(0, 0, 17), 0x1000 + 80 + 1);
        assert_eq!(bricks.address(1, 2, 3), 0x1000 + 160 + 32 + 3);
        assert_eq!(bricks.address(5, 4, 16), 0x4000 + 3 * 160 + 16 + 80);
        let wide = FeatureMap { element_bytes: 4, strides: [64, 640, 320], ..bricks };
        assert_eq!(wide.address(0, 1, 18), 0x1000 + 64 + 320 + 8);
    }

    #[test]
    fn a_negative_stride_wraps_in_40_bits() {
        // Vela mirrors a map with STRIDE_X = 2^40 - 14: column 1 lies 14 bytes before column 0.
        let mut mirrored = map(Format::Nhwc);
        mirrored.bases = [0x0e; 4];
        mirrored.strides = [(1 << 40) - 14, 0x62, 1];
        mirrored.width0 = 8;
        assert_eq!(mirrored.address(0, 0, 3), 0x11);
        assert_eq!(mirrored.address(0, 1, 3), 0x03);
        assert_eq!(mirrored.address(1, 1, 0), 0x62);
    }
}

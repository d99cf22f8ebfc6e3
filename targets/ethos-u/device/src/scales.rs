//! Scale records: what `NPU_SET_SCALE_BASE` points at for an operation scaled per channel, one
//! 10-byte record per OFM channel: a 40-bit signed bias, a 32-bit multiplier and a 6-bit shift,
//! little-endian (`[bias: 40][multiplier: 32][shift: 6][0: 2]`, as Vela's `npu_encode_bias`
//! packs them).

use crate::error::EthosUError;

/// The bytes of one record.
pub const RECORD_BYTES: usize = 10;

/// One OFM channel's bias and scale.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scale {
    pub bias: i64,
    pub multiplier: u32,
    pub shift: u32,
}

/// The records of `channels` channels at the start of `bytes`; the top two bits of a record's
/// last byte are reserved.
pub fn read(bytes: &[u8], channels: usize) -> Result<Vec<Scale>, EthosUError> {
    if bytes.len() < channels * RECORD_BYTES {
        return Err(EthosUError::Scales {
            offset: bytes.len(),
            message: format!(
                "{channels} channels need {} bytes, the stream has {}",
                channels * RECORD_BYTES,
                bytes.len()
            ),
        });
    }
    bytes
        .chunks_exact(RECORD_BYTES)
        .take(channels)
        .enumerate()
        .map(|(k, r)| {
            if r[9] & 0xc0 != 0 {
                let message = format!("channel {k}'s record sets reserved bits ({:#04x})", r[9]);
                return Err(EthosUError::Scales { offset: k * RECORD_BYTES + 9, message });
            }
            let bias = i64::from_le_bytes([r[0], r[1], r[2], r[3], r[4], 0, 0, 0]) << 24 >> 24;
            Ok(Scale { bias, multiplier: u32::from_le_bytes([r[5], r[6], r[7], r[8]]), shift: u32::from(r[9]) })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_read_bias_multiplier_and_shift() {
        // Bias -5 (40-bit two's complement), multiplier 1234567, shift 33; then the largest
        // bias, multiplier and shift.
        let bytes = [
            0xfb, 0xff, 0xff, 0xff, 0xff, 0x87, 0xd6, 0x12, 0x00, 33, //
            0xff, 0xff, 0xff, 0xff, 0x7f, 0xff, 0xff, 0xff, 0xff, 63,
        ];
        assert_eq!(
            read(&bytes, 2).unwrap(),
            [
                Scale { bias: -5, multiplier: 1_234_567, shift: 33 },
                Scale { bias: (1 << 39) - 1, multiplier: u32::MAX, shift: 63 }
            ]
        );
        assert_eq!(read(&bytes, 1).unwrap().len(), 1);
        assert_eq!(
            read(&bytes, 3).unwrap_err().to_string(),
            "scale stream, byte 20: 3 channels need 30 bytes, the stream has 20"
        );
        let mut reserved = bytes;
        reserved[19] |= 0x80;
        assert_eq!(
            read(&reserved, 2).unwrap_err().to_string(),
            "scale stream, byte 19: channel 1's record sets reserved bits (0xbf)"
        );
    }
}

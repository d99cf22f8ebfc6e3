//! The driver payload Vela writes as the `ethos-u` operator's first input: the fourcc `COP1`,
//! then driver actions, one tagged word each (`id | reserved << 8 | param << 16`), among them the
//! configuration the stream was compiled for and the register command stream itself.
//!
//! | action | id | words after the tag |
//! |---|---|---|
//! | reserved | 0 | none |
//! | configuration | 1 | the `CONFIG` register value, then the `ID` register value |
//! | command stream | 2 | `param | reserved << 16` words of commands |
//! | read registers | 3 | none |
//! | dump SHRAM | 4 | none |
//! | no operation | 5 | none (pads the stream to 16 bytes) |

use crate::error::EthosUError;

/// The configuration a payload was compiled for (the NPU's `CONFIG` and `ID` registers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// 0: Ethos-U55, 1: Ethos-U65.
    pub product: u32,
    /// MACs per cycle, all cores together.
    pub macs: u32,
    /// Internal SRAM (SHRAM) in KiB, all cores together.
    pub shram_kib: u32,
    pub cmd_stream_version: u32,
    /// The architecture version `(major, minor, patch)` the stream was written for.
    pub arch: (u32, u32, u32),
}

impl Config {
    /// Reads the `CONFIG` and `ID` register values.
    pub fn from_registers(config: u32, id: u32) -> Config {
        Config {
            product: config >> 28,
            macs: 1 << (config & 0xf),
            shram_kib: (config >> 8) & 0xff,
            cmd_stream_version: (config >> 4) & 0xf,
            arch: (id >> 28, (id >> 20) & 0xff, (id >> 16) & 0xf),
        }
    }

    /// One core's internal SRAM (SHRAM) in bytes (each core of a dual-core NPU has its own).
    pub fn shram_bytes(&self) -> u64 {
        u64::from(self.shram_kib / self.cores()) * 1024
    }

    /// The NPU's cores: two on the Ethos-U65-512 (two 256-MAC cores), else one.
    pub fn cores(&self) -> u32 {
        if self.product == 1 && self.macs == 512 { 2 } else { 1 }
    }

    /// Vela's name for the configuration, e.g. `ethos-u55-128`.
    pub fn name(&self) -> String {
        let product = match self.product {
            0 => "ethos-u55",
            1 => "ethos-u65",
            _ => "ethos-u?",
        };
        format!("{product}-{}", self.macs)
    }
}

/// A driver payload: its configuration and its command stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Payload {
    pub config: Config,
    /// The words of the register command stream.
    pub stream: Vec<u32>,
}

const COP1: u32 = u32::from_le_bytes(*b"COP1");

/// Reads the payload `bytes`: one configuration and one command stream, in that order.
pub fn read(bytes: &[u8]) -> Result<Payload, EthosUError> {
    let bad = |offset: usize, message: String| EthosUError::Payload { offset, message };
    if !bytes.len().is_multiple_of(4) {
        return Err(bad(bytes.len(), format!("{} bytes, not whole words", bytes.len())));
    }
    let words: Vec<u32> = bytes.chunks_exact(4).map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]])).collect();
    if words.first() != Some(&COP1) {
        return Err(bad(0, "it does not start with the fourcc COP1".into()));
    }
    let mut config = None;
    let mut i = 1;
    while i < words.len() {
        let (tag, offset) = (words[i], 4 * i);
        let after = |n: usize| {
            words.get(i + 1..i + 1 + n).ok_or_else(|| bad(offset, format!("the action needs {n} more words")))
        };
        match tag & 0xff {
            0 | 3 | 4 | 5 => i += 1,
            1 => {
                let registers = after(2)?;
                config = Some(Config::from_registers(registers[0], registers[1]));
                i += 3;
            }
            2 => {
                let length = ((tag >> 16) | ((tag >> 8 & 0xff) << 16)) as usize;
                let stream = after(length)?.to_vec();
                let config =
                    config.ok_or_else(|| bad(offset, "the command stream comes before any configuration".into()))?;
                if i + 1 + length != words.len() {
                    return Err(bad(4 * (i + 1 + length), "words follow the command stream".into()));
                }
                return Ok(Payload { config, stream });
            }
            id => return Err(bad(offset, format!("unknown driver action {id}"))),
        }
    }
    Err(bad(bytes.len(), "no command stream".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(words: &[u32]) -> Vec<u8> {
        words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    #[test]
    fn reads_the_configuration_and_the_stream() {
        // CONFIG of an Ethos-U55-128: product 0, 48 KiB of SHRAM, stream version 0, 2^7 MACs;
        // ID of architecture 1.0.6. Two NOPs pad the stream to 16 bytes.
        let words = [COP1, 0x0001_0001, 0x0000_3007, 0x1006_0000, 5, 5, 0x0002_0002, 0x0001_0130, 0xffff_0000];
        let payload = read(&bytes(&words)).unwrap();
        assert_eq!(payload.stream, [0x0001_0130, 0xffff_0000]);
        assert_eq!(payload.config.name(), "ethos-u55-128");
        assert_eq!((payload.config.shram_kib, payload.config.arch), (48, (1, 0, 6)));
        // An Ethos-U65-512: product 1, 2^9 MACs, two cores.
        let u65 = Config::from_registers(0x1000_6009, 0);
        assert_eq!((u65.name(), u65.cores(), payload.config.cores()), ("ethos-u65-512".into(), 2, 1));
    }

    #[test]
    fn malformed_payloads_are_errors_at_their_offset() {
        let error = |words: &[u32]| read(&bytes(words)).unwrap_err().to_string();
        assert_eq!(error(&[0x1234]), "driver payload, offset 0x0: it does not start with the fourcc COP1");
        assert_eq!(error(&[COP1, 0x0001_0001, 7]), "driver payload, offset 0x4: the action needs 2 more words");
        assert_eq!(error(&[COP1, 9]), "driver payload, offset 0x4: unknown driver action 9");
        assert_eq!(
            error(&[COP1, 0x0001_0002, 0]),
            "driver payload, offset 0x4: the command stream comes before any configuration"
        );
        assert_eq!(
            error(&[COP1, 0x0001_0001, 0x3007, 0, 0x0001_0002, 0xffff_0000, 5]),
            "driver payload, offset 0x18: words follow the command stream"
        );
        assert_eq!(error(&[COP1, 5]), "driver payload, offset 0x8: no command stream");
        assert!(read(&[1, 2, 3]).is_err());
    }
}

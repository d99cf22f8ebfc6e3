//! The register command stream, decoded: each command with its byte offset in the stream, its
//! parameter and payload. Decoding checks what a stream must be: known commands, a payload after
//! each long command, reserved bits clear, enumerated fields with values the hardware defines,
//! and `NPU_OP_STOP` last. A stream that fails is an error at the offending command's offset.

use crate::{
    commands::{self, Command},
    error::EthosUError,
};

/// One command of a stream.
#[derive(Clone, Copy, Debug)]
pub struct Instruction {
    /// Bytes from the stream's start.
    pub offset: usize,
    pub command: &'static Command,
    pub param: u16,
    /// The payload word of a long command (0 for a short one).
    pub payload: u32,
}

impl Instruction {
    /// The value of its field `name` (0 when it has none of that name).
    pub fn get(&self, name: &str) -> u64 {
        self.command.field(name).map_or(0, |f| f.value(self.param, self.payload))
    }

    /// The line Vela's `--verbose-register-command-stream` prints for it.
    pub fn listing(&self) -> String {
        let code = self.command.code;
        let words = if self.command.long() {
            format!("{:08x} {:04x} {code:04x}", self.payload, self.param)
        } else {
            format!("         {:04x} {code:04x}", self.param)
        };
        let mut line = format!("{:#08x}: {words} - {:<30}{:>6}", self.offset, self.command.name, self.param);
        for field in self.command.fields {
            line.push_str(&format!(", {} = {}", field.name, field.show(field.value(self.param, self.payload))));
        }
        line
    }
}

/// The code of `NPU_OP_STOP`, the stream's last command.
const STOP: u16 = 0x0000;

/// Decodes the stream `words` (see the module documentation).
pub fn decode(words: &[u32]) -> Result<Vec<Instruction>, EthosUError> {
    let mut instructions = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let offset = 4 * i;
        let (code, param) = ((words[i] & 0xffff) as u16, (words[i] >> 16) as u16);
        let command = commands::by_code(code).ok_or_else(|| EthosUError::Command {
            offset,
            command: format!("code {code:#06x}"),
            message: "no such command".into(),
        })?;
        let fail = |message: String| EthosUError::Command { offset, command: command.name.into(), message };
        let payload = if command.long() {
            *words.get(i + 1).ok_or_else(|| fail("the stream ends before the command's payload".into()))?
        } else {
            0
        };
        let reserved = (param & command.reserved_param_bits(), payload & command.reserved_payload_bits());
        if reserved != (0, 0) {
            return Err(fail(format!(
                "reserved bits set (parameter {:#06x}, payload {:#010x})",
                reserved.0, reserved.1
            )));
        }
        for field in command.fields {
            let value = field.value(param, payload);
            if matches!(field.show, commands::Show::Enum(_)) && field.value_name(value).is_none() {
                return Err(fail(format!("{} = {value} is not a value the hardware defines", field.name)));
            }
        }
        instructions.push(Instruction { offset, command, param, payload });
        i += if command.long() { 2 } else { 1 };
    }
    match instructions.last() {
        Some(last) if last.command.code == STOP => {}
        _ => {
            return Err(EthosUError::Command {
                offset: 4 * words.len(),
                command: "end".into(),
                message: "the stream does not end with NPU_OP_STOP".into(),
            });
        }
    }
    if let Some(stop) = instructions[..instructions.len() - 1].iter().find(|i| i.command.code == STOP) {
        return Err(EthosUError::Command {
            offset: stop.offset,
            command: stop.command.name.into(),
            message: "commands follow NPU_OP_STOP".into(),
        });
    }
    Ok(instructions)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_short_and_long_commands_as_vela_lists_them() {
        // DMA source region 0, source address 0, then NPU_OP_STOP with its mask.
        let decoded = decode(&[0x0000_0130, 0x0000_4030, 0x0000_0000, 0xffff_0000]).unwrap();
        let lines: Vec<String> = decoded.iter().map(Instruction::listing).collect();
        assert_eq!(
            lines,
            [
                "0x000000:          0000 0130 - NPU_SET_DMA0_SRC_REGION            0, region = 0, region_mode = DMA_REGION_MODE_EXTERNAL, stride_mode = DMA_STRIDE_MODE_D1",
                "0x000004: 00000000 0000 4030 - NPU_SET_DMA0_SRC                   0, addr = 0x0",
                "0x00000c:          ffff 0000 - NPU_OP_STOP                    65535, mask = 65535",
            ]
        );
        assert_eq!(decoded[1].get("addr"), 0);
        assert_eq!(decoded[2].get("mask"), 0xffff);
    }

    #[test]
    fn malformed_streams_are_errors_at_the_command() {
        let error = |words: &[u32]| decode(words).unwrap_err().to_string();
        // Opcode 0x004 names no command; bit 12 is reserved.
        assert_eq!(
            error(&[0x0000_0130, 0x0000_0004, 0xffff_0000]),
            "command stream, offset 0x0004 (code 0x0004): no such command"
        );
        assert_eq!(error(&[0x0000_1002]), "command stream, offset 0x0000 (code 0x1002): no such command");
        assert_eq!(
            error(&[0x0000_4030]),
            "command stream, offset 0x0000 (NPU_SET_DMA0_SRC): the stream ends before the command's payload"
        );
        // NPU_SET_IFM_REGION takes 3 bits; NPU_SET_ACTIVATION's function 1 is undefined.
        assert_eq!(
            error(&[0x0010_010f, 0xffff_0000]),
            "command stream, offset 0x0000 (NPU_SET_IFM_REGION): reserved bits set (parameter 0x0010, payload 0x00000000)"
        );
        assert_eq!(
            error(&[0x0001_0125, 0xffff_0000]),
            "command stream, offset 0x0000 (NPU_SET_ACTIVATION): activation_function = 1 is not a value the hardware defines"
        );
        assert_eq!(
            error(&[0x0000_0002]),
            "command stream, offset 0x0004 (end): the stream does not end with NPU_OP_STOP"
        );
        assert_eq!(
            error(&[0xffff_0000, 0xffff_0000]),
            "command stream, offset 0x0000 (NPU_OP_STOP): commands follow NPU_OP_STOP"
        );
    }
}

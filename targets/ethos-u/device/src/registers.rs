//! The register state a command stream builds: every `NPU_SET_*` command writes its register,
//! which keeps its value until written again (Vela writes only what changes), and each
//! `NPU_OP_*` command starts an operation on the state as it is then.
//!
//! An [`Operation`] reads its registers by command and field name, and gives the geometry the
//! hardware derives from them: kernel size, stride and dilation (from `NPU_SET_KERNEL_STRIDE`'s
//! split bits), padding, and the OFM block.

use crate::{
    commands::{self, Command},
    error::EthosUError,
    stream::Instruction,
};

/// The value each register holds: the last parameter and payload written, by command.
#[derive(Clone, Debug, Default)]
pub struct Registers {
    written: Vec<Option<(u16, u32)>>,
}

impl Registers {
    /// Writes the register of `instruction` (an `NPU_SET_*` command).
    pub fn write(&mut self, instruction: &Instruction) {
        let index = slot(instruction.command);
        if self.written.len() <= index {
            self.written.resize(commands::all().len(), None);
        }
        self.written[index] = Some((instruction.param, instruction.payload));
    }

    /// Field `field` of the register `command` writes; `None` while nothing wrote it.
    pub fn get(&self, command: &str, field: &str) -> Option<u64> {
        let command = commands::by_name(command)?;
        let (param, payload) = (*self.written.get(slot(command))?)?;
        Some(command.field(field)?.value(param, payload))
    }
}

/// The register's place in [`Registers`]: the command's in the table.
fn slot(command: &'static Command) -> usize {
    commands::all().iter().position(|c| std::ptr::eq(c, command)).expect("a command of the table")
}

/// One `NPU_OP_*` command with the registers as the commands before it left them.
#[derive(Clone, Debug)]
pub struct Operation {
    /// The command's offset in the stream.
    pub offset: usize,
    pub command: &'static Command,
    pub param: u16,
    pub registers: Registers,
}

impl Operation {
    /// Field `field` of register `command`, or an error at the operation when nothing wrote it.
    pub fn register(&self, command: &str, field: &str) -> Result<u64, EthosUError> {
        self.registers.get(command, field).ok_or_else(|| EthosUError::Command {
            offset: self.offset,
            command: self.command.name.into(),
            message: format!("it reads {command}.{field}, which no command before it set"),
        })
    }

    /// Whether the operation is a kernel (`NPU_OP_CONV`, `_DEPTHWISE`, `_POOL`, `_ELEMENTWISE`): it
    /// works through an OFM in blocks, as the stream's DMAs do not.
    pub fn is_kernel(&self) -> bool {
        ["NPU_OP_CONV", "NPU_OP_DEPTHWISE", "NPU_OP_POOL", "NPU_OP_ELEMENTWISE"].contains(&self.command.name)
    }

    /// Whether the operation is an elementwise operation of the IFM alone: `LRELU`, `ABS` or
    /// `CLZ` (modes 5-7).
    pub fn unary_elementwise(&self) -> bool {
        self.command.name == "NPU_OP_ELEMENTWISE" && (5..=7).contains(&self.param)
    }

    /// Whether the operation reads an IFM2 feature map from memory: an elementwise operation of
    /// two operands whose IFM2 is not a scalar.
    pub fn reads_ifm2_map(&self) -> Result<bool, EthosUError> {
        if self.command.name != "NPU_OP_ELEMENTWISE" || self.unary_elementwise() {
            return Ok(false);
        }
        Ok(self.register("NPU_SET_IFM2_BROADCAST", "broadcast_constant")? == 0)
    }

    /// The kernel's width and height.
    pub fn kernel(&self) -> Result<[u64; 2], EthosUError> {
        // The registers hold the dilated extent less one, `(kernel - 1) · dilation`.
        let [dx, dy] = self.dilation()?;
        Ok([
            self.register("NPU_SET_KERNEL_WIDTH_M1", "width_m1")? / dx + 1,
            self.register("NPU_SET_KERNEL_HEIGHT_M1", "height_m1")? / dy + 1,
        ])
    }

    /// The stride in x and y: one more than the value split over an LSB and an MSB bit.
    pub fn stride(&self) -> Result<[u64; 2], EthosUError> {
        let part = |name: &str| self.register("NPU_SET_KERNEL_STRIDE", name);
        Ok([
            part("stride_x_lsb")? + 2 * part("stride_x_msb")? + 1,
            part("stride_y_lsb")? + 2 * part("stride_y_msb")? + 1,
        ])
    }

    /// The dilation in x and y (1 or 2).
    pub fn dilation(&self) -> Result<[u64; 2], EthosUError> {
        let part = |name: &str| self.register("NPU_SET_KERNEL_STRIDE", name);
        Ok([part("dilation_x")? + 1, part("dilation_y")? + 1])
    }

    /// The IFM's padding: top, left, bottom, right.
    pub fn padding(&self) -> Result<[u64; 4], EthosUError> {
        let pad = |side: &str| self.register(&format!("NPU_SET_IFM_PAD_{side}"), "pad");
        Ok([pad("TOP")?, pad("LEFT")?, pad("BOTTOM")?, pad("RIGHT")?])
    }

    /// The OFM block the operation computes at a time: height, width, depth.
    pub fn ofm_block(&self) -> Result<[u64; 3], EthosUError> {
        Ok([
            self.register("NPU_SET_OFM_BLK_HEIGHT_M1", "height_m1")? + 1,
            self.register("NPU_SET_OFM_BLK_WIDTH_M1", "width_m1")? + 1,
            self.register("NPU_SET_OFM_BLK_DEPTH_M1", "depth_m1")? + 1,
        ])
    }
}

/// Every `NPU_OP_*` of `instructions` but the final stop, with the register state at it.
pub fn operations(instructions: &[Instruction]) -> Vec<Operation> {
    let mut registers = Registers::default();
    let mut operations = Vec::new();
    for instruction in instructions {
        let command = instruction.command;
        if command.name.starts_with("NPU_SET_") {
            registers.write(instruction);
        } else if command.name != "NPU_OP_STOP" {
            operations.push(Operation {
                offset: instruction.offset,
                command,
                param: instruction.param,
                registers: registers.clone(),
            });
        }
    }
    operations
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stream::decode;

    #[test]
    fn registers_keep_their_values_between_operations() {
        // Kernel 4 wide and 10 high, stride 2 in x (the LSB) and 3 in y (the MSB), a dilation of
        // 2 in x (the width register holds the dilated extent less one, (4 - 1) · 2); a
        // convolution; a new kernel height; a second convolution.
        let words = [0x0006_0120, 0x0009_0121, 0x0209_0122, 0x0000_0002, 0x0000_0121, 0x0000_0002, 0xffff_0000];
        let ops = operations(&decode(&words).unwrap());
        assert_eq!(ops.len(), 2);
        assert_eq!(ops[0].kernel().unwrap(), [4, 10]);
        assert_eq!(ops[0].stride().unwrap(), [2, 3]);
        assert_eq!(ops[0].dilation().unwrap(), [2, 1]);
        assert_eq!(ops[1].kernel().unwrap(), [4, 1]);
        assert_eq!(ops[1].stride().unwrap(), [2, 3]);
        // Nothing set the padding: reading it is an error at the operation.
        assert_eq!(
            ops[1].padding().unwrap_err().to_string(),
            "command stream, offset 0x0014 (NPU_OP_CONV): it reads NPU_SET_IFM_PAD_TOP.pad, which no command before it set"
        );
    }
}

//! The commands of the register command stream and their fields (the table is `table.rs`).
//!
//! A command is one 32-bit word, or two for a long one: the first word holds the command's code
//! in its low 16 bits (bits 0-9 the opcode, bits 14-15 the kind: 0 a short command, 1 a long one)
//! and a 16-bit parameter in its high 16 bits; a long command's second word is its payload.

mod table;

/// Where a field's bits lie.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Word {
    /// In the 16-bit parameter.
    P,
    /// In the 32-bit payload of a long command.
    W,
    /// A 40-bit address: the payload, then the parameter's low byte as bits 32-39.
    A,
}

/// How a field's value reads.
#[derive(Clone, Copy, Debug)]
pub enum Show {
    Dec,
    Hex,
    /// One of the named values (any other is not a value the hardware defines).
    Enum(&'static Values),
}

/// The named values of an enumerated field.
pub type Values = [(u32, &'static str)];

/// A field of a command.
#[derive(Clone, Copy, Debug)]
pub struct Field {
    pub name: &'static str,
    pub word: Word,
    pub lsb: u8,
    pub width: u8,
    pub show: Show,
}

impl Field {
    /// The field's value in a command with `param` and `payload` (0 for a short command).
    pub fn value(&self, param: u16, payload: u32) -> u64 {
        let mask = (1u64 << self.width) - 1;
        match self.word {
            Word::P => (u64::from(param) >> self.lsb) & mask,
            Word::W => (u64::from(payload) >> self.lsb) & mask,
            Word::A => (u64::from(param & 0xff) << 32 | u64::from(payload)) & mask,
        }
    }

    /// The name of `value` when the field is enumerated and names it.
    pub fn value_name(&self, value: u64) -> Option<&'static str> {
        match self.show {
            Show::Enum(values) => values.iter().find(|(v, _)| u64::from(*v) == value).map(|(_, n)| *n),
            _ => None,
        }
    }

    /// `value` as Vela's listing shows it.
    pub fn show(&self, value: u64) -> String {
        match (self.show, self.value_name(value)) {
            (Show::Hex, _) => format!("{value:#x}"),
            (_, Some(name)) => name.to_string(),
            _ => value.to_string(),
        }
    }

    /// The bits of the parameter the field takes.
    fn param_bits(&self) -> u16 {
        match self.word {
            Word::P => (((1u32 << self.width) - 1) << self.lsb) as u16,
            Word::A => 0xff,
            Word::W => 0,
        }
    }
}

/// A command: its code (the low half of its first word), name and fields.
#[derive(Debug)]
pub struct Command {
    pub code: u16,
    pub name: &'static str,
    pub fields: &'static [Field],
}

impl Command {
    /// Whether it is a long command (a payload word follows).
    pub fn long(&self) -> bool {
        self.code & 0x4000 != 0
    }

    /// The bits of the parameter no field takes: a stream must leave them 0.
    pub fn reserved_param_bits(&self) -> u16 {
        !self.fields.iter().fold(0, |bits, f| bits | f.param_bits())
    }

    /// The bits of the payload no field takes.
    pub fn reserved_payload_bits(&self) -> u32 {
        if !self.long() {
            return 0;
        }
        !self.fields.iter().fold(0u32, |bits, f| match f.word {
            Word::W => bits | ((((1u64 << f.width) - 1) << f.lsb) as u32),
            Word::A => u32::MAX,
            Word::P => bits,
        })
    }

    /// The field named `name`.
    pub fn field(&self, name: &str) -> Option<&'static Field> {
        self.fields.iter().find(|f| f.name == name)
    }
}

/// Every command of the stream, 60 short and 37 long.
pub fn all() -> &'static [Command] {
    &table::COMMANDS
}

/// The command whose code is `code` (the low half of its first word).
pub fn by_code(code: u16) -> Option<&'static Command> {
    table::COMMANDS.iter().find(|c| c.code == code)
}

/// The command named `name` (`NPU_OP_CONV`).
pub fn by_name(name: &str) -> Option<&'static Command> {
    table::COMMANDS.iter().find(|c| c.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn there_are_60_short_and_37_long_commands_with_distinct_codes_and_names() {
        let (long, short): (Vec<&Command>, Vec<&Command>) = all().iter().partition(|c| c.long());
        assert_eq!((short.len(), long.len()), (60, 37));
        for (i, a) in all().iter().enumerate() {
            assert!(all()[i + 1..].iter().all(|b| b.code != a.code && b.name != a.name), "{}", a.name);
            // Bits 10-13 of the code are reserved; no code sets them.
            assert_eq!(a.code & 0x3c00, 0, "{}", a.name);
        }
    }

    #[test]
    fn fields_read_their_bits() {
        // NPU_SET_KERNEL_STRIDE 0x0247: stride x lsb, stride y lsb, part-kernel-first order,
        // no dilation, 8x8 decomposition, stride x msb (bit 6), stride y msb (bit 9).
        let stride = by_name("NPU_SET_KERNEL_STRIDE").unwrap();
        let values: Vec<(&str, String)> = stride.fields.iter().map(|f| (f.name, f.show(f.value(0x0247, 0)))).collect();
        assert_eq!(
            values,
            [
                ("stride_x_lsb", "1".to_string()),
                ("stride_y_lsb", "1".into()),
                ("weight_order", "WEIGHT_ORDER_PART_KERNEL_FIRST".into()),
                ("dilation_x", "KERNEL_DILATION_NONE".into()),
                ("dilation_y", "KERNEL_DILATION_NONE".into()),
                ("decomposition", "KERNEL_DECOMPOSITION_D8X8".into()),
                ("stride_x_msb", "1".into()),
                ("stride_y_msb", "1".into()),
            ]
        );
        // Bits 7, 8 and 10-15 of its parameter are reserved.
        assert_eq!(stride.reserved_param_bits(), 0xfd80);
        // An address: the payload and the parameter's low byte (bits 32-39).
        let base = by_name("NPU_SET_IFM_BASE0").unwrap();
        assert!(base.long());
        assert_eq!(base.fields[0].value(0x0012, 0x3456_7890), 0x12_3456_7890);
        assert_eq!(base.fields[0].show(0x80), "0x80");
        assert_eq!((base.reserved_param_bits(), base.reserved_payload_bits()), (0xff00, 0));
        // The OFM scale: a 6-bit shift in the parameter, the multiplier in the payload.
        let scale = by_name("NPU_SET_OFM_SCALE").unwrap();
        assert_eq!(scale.fields[0].value(0x0030, 0x41726b1e), 48);
        assert_eq!(scale.fields[1].value(0x0030, 0x41726b1e), 1_098_017_566);
        // A 20-bit length leaves the payload's top 12 bits reserved.
        assert_eq!(by_name("NPU_SET_SCALE_LENGTH").unwrap().reserved_payload_bits(), 0xfff0_0000);
        // An enumerated value the hardware does not define has no name.
        let activation = by_name("NPU_SET_ACTIVATION").unwrap();
        assert_eq!(activation.fields[0].value_name(1), None);
        assert_eq!(activation.fields[0].value_name(3), Some("ACTIVATION_FUNCTION_TANH"));
    }
}

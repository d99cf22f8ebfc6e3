//! Activation functions beyond the clamp (`NPU_SET_ACTIVATION`): lookup tables in the internal
//! SRAM (256 int8-indexed entries, or 512 interpolated int16 entries), and the int16 TANH and
//! SIGMOID functions, which compute TFLite's int16 `Tanh` and `Logistic` (the sigmoid table of
//! `umac_frontend::tflite::SIGMOID_TABLE`, interpolated).

use crate::{
    error::EthosUError,
    feature_map::Which,
    machine::{Machine, OutputStage},
    registers::Operation,
    rules,
};
use umac_frontend::tflite::SIGMOID_TABLE;

/// TFLite's int16 `Logistic` (`tanh`: `Tanh`) of `x`, a value on the grid of 3 · 4096 steps a
/// unit: the sigmoid table at `|x| / 2^9` (TANH `/ 2^8`, as tanh(x) = 2 sigmoid(2x) - 1),
/// interpolated on the remaining bits, saturated from entry 255, mirrored for negative `x`, in
/// Q0.15.
fn sigmoid_int16(x: i64, tanh: bool) -> i64 {
    let bits = if tanh { 8 } else { 9 };
    let magnitude = x.unsigned_abs();
    let high = (magnitude >> bits) as usize;
    let result = if high >= 255 {
        if tanh { 0xffff << 8 } else { 0x7fff << 10 }
    } else {
        let (a, b) = (i64::from(SIGMOID_TABLE[high]), i64::from(SIGMOID_TABLE[high + 1]));
        (a << bits) + (magnitude & ((1 << bits) - 1)) as i64 * (b - a)
    };
    let (bias, offset, shift) = if tanh { (1 << 23, 1 << 7, 8) } else { (1 << 25, 1 << 9, 10) };
    let mirrored = match (x >= 0, tanh) {
        (true, true) => result - bias + offset,
        (true, false) => result + offset,
        (false, _) => bias + offset - 1 - result,
    };
    mirrored >> shift
}

/// An operation's activation function (`NPU_SET_ACTIVATION`) beyond the clamp.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Activation {
    /// 256 entries of the OFM's element size, indexed by an int8 value plus 128.
    Int8(Vec<i64>),
    /// 512 entries of 32 bits for int16 values: a base in the low 16 bits and a slope in the
    /// high 16, both signed; the value plus 32768 selects entry `>> 7`, and its low 7 bits `f` give
    /// `base + (slope · f + 64) >> 7` (TFLite's int16 table lookup).
    Int16(Vec<u32>),
    /// `ACTIVATION_FUNCTION_SIGMOID` and `_TANH` of an int16 OFM: TFLite's int16 LOGISTIC and
    /// TANH of the scaled value (Vela scales it onto their 3 · 4096 steps a unit), before the
    /// output stage.
    Sigmoid,
    Tanh,
}

impl Activation {
    /// The OFM element for the scaled result `scaled`, through `stage`: a table maps the output
    /// stage's element, TANH and SIGMOID the scaled result before the stage.
    pub fn finish(activation: Option<&Activation>, stage: &OutputStage, scaled: i64) -> i64 {
        match activation {
            None => stage.apply(scaled),
            Some(Activation::Sigmoid) => stage.apply(sigmoid_int16(scaled, false)),
            Some(Activation::Tanh) => stage.apply(sigmoid_int16(scaled, true)),
            Some(table) => table.look_up(stage.apply(scaled)),
        }
    }

    /// A table's value for `value`.
    fn look_up(&self, value: i64) -> i64 {
        match self {
            Activation::Int8(entries) => entries[(value.clamp(-128, 127) + 128) as usize],
            Activation::Sigmoid | Activation::Tanh => value,
            Activation::Int16(entries) => {
                let x = (value.clamp(-32768, 32767) + 32768) as usize;
                let entry = entries[x >> 7];
                let (base, slope) = (i64::from(entry as u16 as i16), i64::from((entry >> 16) as u16 as i16));
                (base + ((slope * (x & 127) as i64 + 64) >> 7)).clamp(-32768, 32767)
            }
        }
    }
}

impl Machine {
    /// The operation's activation, if it has one beyond the clamp: TANH or SIGMOID of an int16
    /// OFM, or a lookup table. A value clamped to int8 (the
    /// clip range `FORCE_INT8`, or an int8 OFM) indexes 256 entries of the OFM's element size, the
    /// table `n` of `ACTIVATION_FUNCTION_TABLE_n` at `n` tables from the internal SRAM's last 2
    /// KiB; an int16 value interpolates in the 512 entries of those 2 KiB.
    pub(crate) fn activation(&self, op: &Operation) -> Result<Option<Activation>, EthosUError> {
        let function = op.register("NPU_SET_ACTIVATION", "activation_function")?;
        if function == 0 {
            return Ok(None);
        }
        let ofm = op.feature_map(Which::Ofm)?;
        if function == 3 || function == 4 {
            if ofm.element_bytes != 2 || !ofm.signed {
                return Err(op.unsupported("a TANH or SIGMOID activation of other than an int16 OFM"));
            }
            return Ok(Some(if function == 3 { Activation::Tanh } else { Activation::Sigmoid }));
        }
        if !(16..24).contains(&function) {
            return Err(op.unsupported("this activation function"));
        }
        let clip = op.register("NPU_SET_ACTIVATION", "activation_clip_range")?;
        let int16 = clip == 0 && ofm.element_bytes == 2 && ofm.signed;
        if !int16 && clip != 3 && !(clip == 0 && ofm.element_bytes == 1 && ofm.signed) {
            return Err(op.unsupported("a lookup table indexed by other than int8 or int16 values"));
        }
        let outside = || op.error(format!("lookup table {} lies outside the internal SRAM", function - 16));
        let (start, end) = rules::shram::table_span(op, self.shram.len() as u64)?.ok_or_else(outside)?;
        let table = self.shram.get(start as usize..end as usize).ok_or_else(outside)?;
        if self.shram_written[start as usize..end as usize].contains(&false) {
            return Err(op.error(format!(
                "lookup table {} ({start:#x}..{end:#x} of the internal SRAM) holds bytes nothing wrote",
                function - 16
            )));
        }
        if int16 {
            let entries = table.chunks_exact(4).map(|e| u32::from_le_bytes([e[0], e[1], e[2], e[3]])).collect();
            return Ok(Some(Activation::Int16(entries)));
        }
        let entry = ofm.element_bytes as usize;
        let entries: Vec<i64> = table
            .chunks_exact(entry)
            .map(|e| {
                let mut raw = [0u8; 8];
                raw[..entry].copy_from_slice(e);
                let shift = 64 - 8 * entry as u32;
                (i64::from_le_bytes(raw) << shift) >> shift
            })
            .collect();
        Ok(Some(Activation::Int8(entries)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sigmoid_and_tanh_are_tflites() {
        // Zero is one half (Q0.15: 2^14) and zero; far out they saturate (the sigmoid's low end
        // at (2^25 + 2^9 - 1 - 32767 · 2^10) >> 10 = 1).
        assert_eq!((sigmoid_int16(0, false), sigmoid_int16(0, true)), (16384, 0));
        assert_eq!((sigmoid_int16(1 << 20, false), sigmoid_int16(-(1 << 20), false)), (32767, 1));
        assert_eq!((sigmoid_int16(1 << 20, true), sigmoid_int16(-(1 << 20), true)), (32767, -32767));
        // One unit (12,288 steps): entry 24 (47,911) for the sigmoid, (47,911 · 2^9 + 2^9) >> 10
        // = 23,956 (0.7311 = sigmoid(1)); entry 48 (57,724) for tanh, 57,724 - 32,768 = 24,956
        // (0.7616 = tanh(1)).
        assert_eq!(sigmoid_int16(12288, false), 23956);
        assert_eq!(sigmoid_int16(12288, true), 24956);
    }

    #[test]
    fn an_int16_table_interpolates_between_its_entries() {
        // Entry 256 (values 0..127): base 100, slope 128; entry 257: base 5, slope -128.
        let mut entries = vec![0u32; 512];
        entries[256] = (128 << 16) | 100;
        entries[257] = ((-128i32 as u32 & 0xffff) << 16) | 5;
        let table = Activation::Int16(entries);
        assert_eq!(table.look_up(0), 100);
        // 100 + (128 · 1 + 64) >> 7 = 100 + 1; (128 · 64 + 64) >> 7 = 64.
        assert_eq!(table.look_up(1), 101);
        assert_eq!(table.look_up(64), 164);
        // 5 + (-128 · 127 + 64) >> 7 = 5 - 127 (the shift rounds toward -inf).
        assert_eq!(table.look_up(128 + 127), -122);
        // Values beyond int16 take the end entries.
        assert_eq!(table.look_up(-40_000), 0);
        let int8 = Activation::Int8((0..256).map(|k| k - 128).collect());
        assert_eq!((int8.look_up(-128), int8.look_up(127), int8.look_up(300)), (-128, 127, 127));
    }
}

//! Integer elementwise TOSA ops on one element, as the TOSA 1.0 specification's pseudocode
//! computes them, for passes that compute at compile time what an op computes at run time
//! (`umac-tabulate-lookups`). Where the specification leaves a result undefined (a `REQUIRE`
//! that fails: a rescale's value outside its shift's range, a shift by more than the width, an
//! int32 add that overflows) [`Elementwise::apply`] gives `None`, and a caller computes nothing.
//!
//! An op is read with its parameters ([`Elementwise::of`]): the constant operands a rescale and a
//! table take, and the attributes; its element inputs are the other operands ([`Elementwise::inputs`]).

use mlir_sys::*;
use umac_dialects::{
    ir::{attribute, constant_elements, dense_ints, integer_value, name},
    text::attribute_text,
};

/// One integer elementwise op with its parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Elementwise {
    pub kind: Kind,
    /// The bits of the element type of the first input and of the result.
    pub input_bits: u32,
    pub bits: u32,
}

/// What an [`Elementwise`] op computes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `tosa.rescale`, per tensor, signed input and output.
    Rescale {
        multiplier: i64,
        shift: i64,
        input_zp: i64,
        output_zp: i64,
        double_round: bool,
        scale32: bool,
    },
    /// `tosa.table`: 256 entries for an int8 input, 513 for an int16 one (interpolated).
    Table(Vec<i64>),
    Add,
    Sub,
    Maximum,
    Minimum,
    LogicalLeftShift,
    LogicalRightShift,
    ArithmeticRightShift {
        round: bool,
    },
    Clamp {
        min: i64,
        max: i64,
    },
}

/// The smallest and largest value of a signed integer of `bits` bits.
pub fn signed_range(bits: u32) -> (i64, i64) {
    let bits = bits.clamp(1, 64);
    if bits == 64 { (i64::MIN, i64::MAX) } else { (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1) }
}

/// `value` wrapped to a signed integer of `bits` bits.
fn wrap(value: i64, bits: u32) -> i64 {
    let shift = 64 - bits.clamp(1, 64);
    (value << shift) >> shift
}

/// The bits of a tensor type's integer elements (`None` for another type).
///
/// # Safety
/// `ty` must be live.
pub unsafe fn element_bits(ty: MlirType) -> Option<u32> {
    // SAFETY: the caller's contract; the element type is read after the kind check.
    unsafe {
        if !mlirTypeIsARankedTensor(ty) {
            return None;
        }
        let element = mlirShapedTypeGetElementType(ty);
        mlirTypeIsAInteger(element).then(|| mlirIntegerTypeGetWidth(element))
    }
}

/// The single integer of a constant operand (a splat, or one element).
///
/// # Safety
/// `op` must be live.
pub unsafe fn splat_operand(op: MlirOperation, i: isize) -> Option<i64> {
    // SAFETY: the caller's contract; operands of a live op are live.
    unsafe {
        let values = constant_ints(mlirOperationGetOperand(op, i))?;
        let first = *values.first()?;
        values.iter().all(|&v| v == first).then_some(first)
    }
}

/// The integers of a value a `tosa.const` (or `arith.constant`) produces.
///
/// # Safety
/// `value` must be live.
pub unsafe fn constant_ints(value: MlirValue) -> Option<Vec<i64>> {
    // SAFETY: the caller's contract.
    unsafe { dense_ints(constant_elements(value)?) }
}

/// A boolean attribute of `op` (`false` when absent).
///
/// # Safety
/// `op` must be live.
unsafe fn flag(op: MlirOperation, name: &str) -> bool {
    // SAFETY: the caller's contract; the attribute is read after the kind check.
    unsafe { attribute(op, name).is_some_and(|a| mlirAttributeIsABool(a) && mlirBoolAttrGetValue(a)) }
}

impl Elementwise {
    /// `op` when it is an integer elementwise op of this module with constant parameters.
    ///
    /// # Safety
    /// `op` must be live.
    pub unsafe fn of(op: MlirOperation) -> Option<Elementwise> {
        // SAFETY: the caller's contract; operands and results are read within their counts.
        unsafe {
            if mlirOperationGetNumResults(op) != 1 || mlirOperationGetNumOperands(op) < 1 {
                return None;
            }
            let bits = element_bits(mlirValueGetType(mlirOperationGetResult(op, 0)))?;
            let input_bits = element_bits(mlirValueGetType(mlirOperationGetOperand(op, 0)))?;
            let kind = match name(op).as_str() {
                "tosa.rescale" => {
                    let unsigned = flag(op, "input_unsigned") || flag(op, "output_unsigned");
                    let mode = attribute_text(melior::ir::Attribute::from_raw(attribute(op, "rounding_mode")?));
                    let double_round = match mode.as_str() {
                        m if m.contains("DOUBLE_ROUND") => true,
                        m if m.contains("SINGLE_ROUND") => false,
                        _ => return None,
                    };
                    if unsigned || flag(op, "per_channel") || mlirOperationGetNumOperands(op) != 5 {
                        return None;
                    }
                    Kind::Rescale {
                        multiplier: splat_operand(op, 1)?,
                        shift: splat_operand(op, 2)?,
                        input_zp: splat_operand(op, 3)?,
                        output_zp: splat_operand(op, 4)?,
                        double_round,
                        scale32: flag(op, "scale32"),
                    }
                }
                "tosa.table" => {
                    let table = constant_ints(mlirOperationGetOperand(op, 1))?;
                    let entries = match input_bits {
                        8 => 256,
                        16 => 513,
                        _ => return None,
                    };
                    if table.len() != entries {
                        return None;
                    }
                    Kind::Table(table)
                }
                "tosa.add" => Kind::Add,
                "tosa.sub" => Kind::Sub,
                "tosa.maximum" => Kind::Maximum,
                "tosa.minimum" => Kind::Minimum,
                "tosa.logical_left_shift" => Kind::LogicalLeftShift,
                "tosa.logical_right_shift" => Kind::LogicalRightShift,
                "tosa.arithmetic_right_shift" => Kind::ArithmeticRightShift { round: flag(op, "round") },
                "tosa.clamp" => {
                    let bound = |name| integer_value(melior::ir::Attribute::from_raw(attribute(op, name)?));
                    Kind::Clamp { min: bound("min_val")?, max: bound("max_val")? }
                }
                _ => return None,
            };
            Some(Elementwise { kind, input_bits, bits })
        }
    }

    /// How many of the op's first operands are elements (the rest are parameters).
    pub fn inputs(&self) -> usize {
        match self.kind {
            Kind::Rescale { .. } | Kind::Table(_) | Kind::Clamp { .. } => 1,
            _ => 2,
        }
    }

    /// The result for the elements `x` (one per input), or `None` where the specification leaves
    /// it undefined.
    pub fn apply(&self, x: &[i64]) -> Option<i64> {
        let (min, max) = signed_range(self.bits);
        let a = *x.first()?;
        let b = || x.get(1).copied();
        let shift_amount = |b: i64| (0..i64::from(self.bits)).contains(&b).then_some(b);
        let result = match &self.kind {
            Kind::Rescale { multiplier, shift, input_zp, output_zp, double_round, scale32 } => {
                let value = a - input_zp;
                let scaled = if *scale32 {
                    apply_scale_32(value, *multiplier, *shift, *double_round)?
                } else {
                    apply_scale_16(value, *multiplier, *shift)?
                };
                (scaled + output_zp).clamp(min, max)
            }
            Kind::Table(table) if self.input_bits == 8 => *table.get(usize::try_from(a + 128).ok()?)?,
            Kind::Table(table) => {
                let value = usize::try_from(a + 32768).ok()?;
                let (index, fraction) = (value >> 7, (value & 0x7f) as i64);
                let (base, next) = (*table.get(index)?, *table.get(index + 1)?);
                let slope = next - base;
                if !(-32768..=32767).contains(&slope) {
                    return None;
                }
                (base << 7) + slope * fraction
            }
            Kind::Add => a + b()?,
            Kind::Sub => a - b()?,
            Kind::Maximum => a.max(b()?),
            Kind::Minimum => a.min(b()?),
            Kind::LogicalLeftShift => wrap(a << shift_amount(b()?)?, self.bits),
            Kind::LogicalRightShift => {
                let mask = if self.bits == 64 { -1 } else { (1i64 << self.bits) - 1 };
                wrap((a & mask) >> shift_amount(b()?)?, self.bits)
            }
            Kind::ArithmeticRightShift { round } => {
                let s = shift_amount(b()?)?;
                let rounding = *round && s > 0 && (a >> (s - 1)) & 1 == 1;
                (a >> s) + i64::from(rounding)
            }
            Kind::Clamp { min, max } => a.clamp(*min, *max),
        };
        (min..=max).contains(&result).then_some(result)
    }
}

/// TOSA's `apply_scale_32`: `(value · multiplier + round) >> shift`, the round doubled away from
/// zero for a shift over 31 when `double_round`.
pub fn apply_scale_32(value: i64, multiplier: i64, shift: i64, double_round: bool) -> Option<i64> {
    if multiplier < 0 || !(2..=62).contains(&shift) || !(-(1i64 << (shift - 1))..(1i64 << (shift - 1))).contains(&value)
    {
        return None;
    }
    let (lo, hi) = signed_range(32);
    if !(lo..=hi).contains(&value) || multiplier > hi {
        return None;
    }
    let mut round = 1i128 << (shift - 1);
    if double_round && shift > 31 {
        round += if value >= 0 { 1 << 30 } else { -(1 << 30) };
    }
    let result = ((i128::from(value) * i128::from(multiplier) + round) >> shift) as i64;
    (lo..=hi).contains(&result).then_some(result)
}

/// TOSA's `apply_scale_16`: `(value · multiplier + round) >> shift` for a 16-bit multiplier and a
/// 48-bit value.
pub fn apply_scale_16(value: i64, multiplier: i64, shift: i64) -> Option<i64> {
    let (lo48, hi48) = signed_range(48);
    if !(0..=32767).contains(&multiplier) || !(2..=62).contains(&shift) || !(lo48..=hi48).contains(&value) {
        return None;
    }
    let result = ((i128::from(value) * i128::from(multiplier) + (1i128 << (shift - 1))) >> shift) as i64;
    let (lo, hi) = signed_range(32);
    (lo..=hi).contains(&result).then_some(result)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(kind: Kind, input_bits: u32, bits: u32) -> Elementwise {
        Elementwise { kind, input_bits, bits }
    }

    #[test]
    fn rescales_round_as_the_specification_says() {
        // 5 · 2^30 >> 31 = 2.5 → 3 (round half up); -5 → -2.5 → -2.
        assert_eq!(apply_scale_32(5, 1 << 30, 31, false), Some(3));
        assert_eq!(apply_scale_32(-5, 1 << 30, 31, false), Some(-2));
        // Double rounding adds 2^30 away from zero first for shifts over 31: 3 · 2^30 = 0.75 ·
        // 2^32 → 0.75 + 0.5 + 0.25 rounds to 1 (single: 0.75 + 0.5 → 1 as well), and 2^31 / 2^32
        // = 0.5: single → 1, double → 1 (0.5 + 0.25 + 0.5); -0.5: single → 0, double → -1.
        assert_eq!(apply_scale_32(-1, 1 << 30, 31, false), Some(0));
        assert_eq!(apply_scale_32(-2, 1 << 30, 32, false), Some(0));
        assert_eq!(apply_scale_32(-2, 1 << 30, 32, true), Some(-1));
        assert_eq!(apply_scale_32(2, 1 << 30, 32, true), Some(1));
        // Outside the shift's range, a negative multiplier or shift below 2: undefined.
        assert_eq!(apply_scale_32(1 << 22, 1 << 30, 23, false), None);
        assert_eq!(apply_scale_32(1, -1, 30, false), None);
        assert_eq!(apply_scale_32(1, 1, 1, false), None);
        // Softmax's rescale of x - max(x) to 9.7 fixed point: scale 128.
        let to_i16 = op(
            Kind::Rescale {
                multiplier: 1 << 30,
                shift: 23,
                input_zp: 0,
                output_zp: 0,
                double_round: false,
                scale32: true,
            },
            32,
            16,
        );
        assert_eq!(to_i16.apply(&[-255]), Some(-32640));
        assert_eq!(to_i16.apply(&[0]), Some(0));
        // Saturates to the output type: 300 · 128 > 32767.
        assert_eq!(to_i16.apply(&[300]), Some(32767));
        // Zero points: (10 - 3) · 0.5 = 3.5 → 4, + 2.
        let half = op(
            Kind::Rescale {
                multiplier: 1 << 30,
                shift: 31,
                input_zp: 3,
                output_zp: 2,
                double_round: false,
                scale32: true,
            },
            8,
            8,
        );
        assert_eq!(half.apply(&[10]), Some(6));
        assert_eq!(apply_scale_16(7, 16384, 15), Some(4));
    }

    #[test]
    fn tables_look_up_and_interpolate() {
        let table8 = op(Kind::Table((0..256).map(|i| 127 - i).collect()), 8, 8);
        assert_eq!(table8.apply(&[-128]), Some(127));
        assert_eq!(table8.apply(&[127]), Some(-128));
        // int16: index (x + 32768) >> 7, fraction its low 7 bits: x = -32768 + 128 + 64 is half
        // way from entry 1 (10) to entry 2 (20): (10 << 7) + 10 · 64.
        let mut entries = vec![0; 513];
        entries[1] = 10;
        entries[2] = 20;
        let table16 = op(Kind::Table(entries), 16, 32);
        assert_eq!(table16.apply(&[-32768 + 128 + 64]), Some(1280 + 640));
        assert_eq!(table16.apply(&[-32768 + 128]), Some(1280));
    }

    #[test]
    fn shifts_and_arithmetic_stay_defined() {
        let left = op(Kind::LogicalLeftShift, 32, 32);
        assert_eq!(left.apply(&[3, 30]), Some(-(1 << 30)));
        assert_eq!(left.apply(&[1, 32]), None);
        let right = op(Kind::ArithmeticRightShift { round: true }, 32, 32);
        // -7 >> 2 = -2 (floor), bit 1 of -7 is 0: -2; 6 >> 2 = 1, bit 1 set: 2.
        assert_eq!(right.apply(&[-7, 2]), Some(-2));
        assert_eq!(right.apply(&[6, 2]), Some(2));
        assert_eq!(op(Kind::ArithmeticRightShift { round: false }, 32, 32).apply(&[6, 2]), Some(1));
        assert_eq!(op(Kind::LogicalRightShift, 8, 8).apply(&[-1, 4]), Some(15));
        // An int32 add that overflows is undefined, an int8 one too.
        assert_eq!(op(Kind::Add, 32, 32).apply(&[i64::from(i32::MAX), 1]), None);
        assert_eq!(op(Kind::Sub, 8, 8).apply(&[-128, 1]), None);
        assert_eq!(op(Kind::Clamp { min: -3, max: 5 }, 8, 8).apply(&[9]), Some(5));
        assert_eq!(op(Kind::Maximum, 8, 8).apply(&[-4, 2]), Some(2));
    }
}

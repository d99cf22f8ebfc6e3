//! The MLIR text the passes that expand libm's single-precision functions into float arithmetic
//! write (`umac-expand-exp-tanh`, `umac-expand-log-sin-cos`): a helper function over `f32` or a
//! vector of it, built operation by operation, that replaces one `math` op. Not a pass.

use mlir_sys::*;
use umac_dialects::{
    ir::{element_type, type_text},
    text::float_literal,
};

/// Writes MLIR text for a function body; values are `%e<n>`.
pub(super) struct Text<'a> {
    body: String,
    next: usize,
    /// The float type, its i32 twin and i1 twin (a vector or not).
    pub(super) float: &'a str,
    pub(super) int: String,
    pub(super) bool: String,
    vector: bool,
}

impl Text<'_> {
    pub(super) fn op(&mut self, text: &str) -> String {
        let name = format!("%e{}", self.next);
        self.next += 1;
        self.body.push_str(&format!("  {name} = {text}\n"));
        name
    }
    /// A constant of the float type (or a splat of it) written as `literal`.
    fn constant(&mut self, literal: &str, t: &str) -> String {
        if self.vector {
            self.op(&format!("arith.constant dense<{literal}> : {t}"))
        } else {
            self.op(&format!("arith.constant {literal} : {t}"))
        }
    }
    pub(super) fn float_constant(&mut self, value: f32) -> String {
        let t = self.float.to_string();
        self.constant(&float_literal(value), &t)
    }
    /// A float constant given by its bits (infinities and NaN have no decimal literal).
    pub(super) fn float_bits_constant(&mut self, bits: u32) -> String {
        let t = self.float.to_string();
        self.constant(&format!("0x{bits:08X}"), &t)
    }
    pub(super) fn int_constant(&mut self, value: i32) -> String {
        let t = self.int.clone();
        self.constant(&value.to_string(), &t)
    }
    pub(super) fn binary(&mut self, op: &str, a: &str, b: &str) -> String {
        let t = self.float.to_string();
        self.op(&format!("{op} {a}, {b} : {t}"))
    }
    /// `op` on the i32 twins `a` and `b`.
    pub(super) fn int_binary(&mut self, op: &str, a: &str, b: &str) -> String {
        let t = self.int.clone();
        self.op(&format!("{op} {a}, {b} : {t}"))
    }
    /// `arith.cmpf predicate` of floats.
    pub(super) fn compare(&mut self, predicate: &str, a: &str, b: &str) -> String {
        let t = self.float.to_string();
        self.op(&format!("arith.cmpf {predicate}, {a}, {b} : {t}"))
    }
    /// `arith.cmpi predicate` of the i32 twins.
    pub(super) fn compare_int(&mut self, predicate: &str, a: &str, b: &str) -> String {
        let t = self.int.clone();
        self.op(&format!("arith.cmpi {predicate}, {a}, {b} : {t}"))
    }
    /// `condition ? a : b` of floats.
    pub(super) fn select(&mut self, condition: &str, a: &str, b: &str) -> String {
        let (bool, float) = (self.bool.clone(), self.float.to_string());
        self.op(&format!("arith.select {condition}, {a}, {b} : {bool}, {float}"))
    }
    /// `condition ? a : b` of the i32 twins.
    pub(super) fn select_int(&mut self, condition: &str, a: &str, b: &str) -> String {
        let (bool, int) = (self.bool.clone(), self.int.clone());
        self.op(&format!("arith.select {condition}, {a}, {b} : {bool}, {int}"))
    }
    /// The bits of the float `x`.
    pub(super) fn bits_of(&mut self, x: &str) -> String {
        let (float, int) = (self.float.to_string(), self.int.clone());
        self.op(&format!("arith.bitcast {x} : {float} to {int}"))
    }
    /// The float whose bits are `bits`.
    pub(super) fn float_of(&mut self, bits: &str) -> String {
        let (float, int) = (self.float.to_string(), self.int.clone());
        self.op(&format!("arith.bitcast {bits} : {int} to {float}"))
    }
    /// `a·x + b` evaluated by Horner's rule from `coefficients`, highest degree first.
    pub(super) fn horner(&mut self, x: &str, coefficients: &[f32]) -> String {
        let mut acc = self.float_constant(coefficients[0]);
        for &c in &coefficients[1..] {
            let product = self.binary("arith.mulf", &acc, x);
            let c = self.float_constant(c);
            acc = self.binary("arith.addf", &product, &c);
        }
        acc
    }
}

/// The replacement of the one-operand `math` op `raw` on `f32` (or a vector of it): a function of
/// `%x` whose body `write` writes, returning its result; `None` for other types.
///
/// # Safety
/// `raw` must be live.
pub(super) unsafe fn expand_f32(
    raw: MlirOperation,
    write: impl FnOnce(&mut Text, &str) -> String,
) -> Option<(String, Vec<MlirValue>)> {
    unsafe {
        let x = mlirOperationGetOperand(raw, 0);
        let ty = mlirValueGetType(x);
        let vector = mlirTypeIsAVector(ty);
        let element = if mlirTypeIsAShaped(ty) { element_type(ty) } else { ty };
        if !mlirTypeIsAF32(element) || (mlirTypeIsAShaped(ty) && !vector) {
            return None;
        }
        let float = type_text(ty);
        let mut text = Text {
            body: String::new(),
            next: 0,
            int: float.replace("f32", "i32"),
            bool: float.replace("f32", "i1"),
            float: &float,
            vector,
        };
        let result = write(&mut text, "%x");
        let body = text.body;
        Some((
            format!("func.func @expand(%x: {float}) -> {float} {{\n{body}  return {result} : {float}\n}}\n"),
            vec![x],
        ))
    }
}

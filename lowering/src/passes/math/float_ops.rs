//! The float arithmetic the passes that expand libm's single-precision functions write
//! (`umac-expand-sqrt`, `umac-expand-exp-tanh`, `umac-expand-log-sin-cos`): ops on `f32` or a
//! vector of it, and on its `i32` and `i1` twins, written with a builder in front of the `math`
//! op they replace ([`expand_f32`]). Not a pass.

use crate::{Error, pass::build_each};
use melior::ir::{OperationRef, operation::OperationLike};
use mlir_sys::{
    MlirType, mlirOperationGetNumOperands, mlirOperationGetOperand, mlirShapedTypeGetElementType, mlirTypeIsAF32,
    mlirTypeIsAShaped, mlirTypeIsAVector, mlirValueGetType,
};
use umac_dialects::build::{Attr, Builder, Cmp, CmpF, Ty, Value};

/// Writes float arithmetic in front of the op being replaced.
pub(super) struct Floats<'b, 'c> {
    b: &'b mut Builder<'c>,
    /// The float type, and its i32 and i1 twins (vectors of the same shape, or scalars).
    float: Ty,
    int: Ty,
    bool: Ty,
}

impl Floats<'_, '_> {
    /// Op `name` of `operands` with one result of `ty`.
    fn op(&mut self, name: &str, operands: &[Value], ty: Ty) -> Value {
        self.b.op1(name, operands, ty, &[])
    }
    pub(super) fn float_constant(&mut self, value: f32) -> Value {
        let float = self.float;
        self.b.op1("arith.constant", &[], float, &[("value", Attr::Float(float, f64::from(value)))])
    }
    /// A float constant given by its bits (infinities and NaN).
    pub(super) fn float_bits_constant(&mut self, bits: u32) -> Value {
        self.float_constant(f32::from_bits(bits))
    }
    pub(super) fn int_constant(&mut self, value: i32) -> Value {
        let int = self.int;
        self.b.op1("arith.constant", &[], int, &[("value", Attr::Int(int, i64::from(value)))])
    }
    /// `name` (`arith.addf`, `math.copysign`, ...) of floats.
    pub(super) fn binary(&mut self, name: &str, a: Value, b: Value) -> Value {
        self.op(name, &[a, b], self.float)
    }
    /// `name` (`arith.addi`, `arith.shrui`, ...) of the i32 twins.
    pub(super) fn int_binary(&mut self, name: &str, a: Value, b: Value) -> Value {
        self.op(name, &[a, b], self.int)
    }
    /// `name` (`arith.andi`, `arith.ori`) of the i1 twins.
    pub(super) fn bool_binary(&mut self, name: &str, a: Value, b: Value) -> Value {
        self.op(name, &[a, b], self.bool)
    }
    /// `name` (`math.absf`) of a float.
    pub(super) fn unary(&mut self, name: &str, x: Value) -> Value {
        self.op(name, &[x], self.float)
    }
    /// `arith.cmpf predicate` of floats.
    pub(super) fn compare(&mut self, predicate: CmpF, a: Value, b: Value) -> Value {
        self.b.cmpf(predicate, a, b)
    }
    /// `arith.cmpi predicate` of the i32 twins.
    pub(super) fn compare_int(&mut self, predicate: Cmp, a: Value, b: Value) -> Value {
        self.b.cmpi(predicate, a, b)
    }
    /// `condition ? a : b`, of floats or of their i32 twins.
    pub(super) fn select(&mut self, condition: Value, a: Value, b: Value) -> Value {
        self.b.select(condition, a, b)
    }
    /// The bits of the float `x`.
    pub(super) fn bits_of(&mut self, x: Value) -> Value {
        self.op("arith.bitcast", &[x], self.int)
    }
    /// The float whose bits are `bits`.
    pub(super) fn float_of(&mut self, bits: Value) -> Value {
        self.op("arith.bitcast", &[bits], self.float)
    }
    /// The float `x` truncated to an integer (`arith.fptosi`).
    pub(super) fn truncated(&mut self, x: Value) -> Value {
        self.op("arith.fptosi", &[x], self.int)
    }
    /// The integer `k` as a float (`arith.sitofp`).
    pub(super) fn as_float(&mut self, k: Value) -> Value {
        self.op("arith.sitofp", &[k], self.float)
    }
    /// `a·x + b` evaluated by Horner's rule from `coefficients`, highest degree first.
    pub(super) fn horner(&mut self, x: Value, coefficients: &[f32]) -> Value {
        let mut acc = self.float_constant(coefficients[0]);
        for &c in &coefficients[1..] {
            let product = self.binary("arith.mulf", acc, x);
            let c = self.float_constant(c);
            acc = self.binary("arith.addf", product, c);
        }
        acc
    }
}

/// The element type of `op`'s first operand when it is a scalar or a vector (the scalar's own
/// type); `None` without operands or for another type (a tensor).
pub(super) fn scalar_element(op: &OperationRef) -> Option<MlirType> {
    // SAFETY: a borrowed op is live; its first operand is read when it has one.
    unsafe {
        let raw = op.to_raw();
        if mlirOperationGetNumOperands(raw) == 0 {
            return None;
        }
        let ty = mlirValueGetType(mlirOperationGetOperand(raw, 0));
        match (mlirTypeIsAVector(ty), mlirTypeIsAShaped(ty)) {
            (true, _) => Some(mlirShapedTypeGetElementType(ty)),
            (false, true) => None,
            (false, false) => Some(ty),
        }
    }
}

/// Whether `op`'s operand is `f32` or a vector of it: the ops [`expand_f32`] rewrites.
fn on_f32(op: &OperationRef) -> bool {
    // SAFETY: a type handle read from the live op.
    scalar_element(op).is_some_and(|element| unsafe { mlirTypeIsAF32(element) })
}

/// Replaces each one-operand `math` op under `operation` that `select` picks and [`on_f32`]
/// accepts by what `write` writes from its operand `x` (the builder's first argument); `write`
/// learns which op it replaces from its name.
pub(super) fn expand_f32(
    operation: OperationRef,
    select: impl Fn(&OperationRef) -> bool,
    mut write: impl FnMut(&mut Floats, &str, Value) -> Value,
) -> Result<(), Error> {
    build_each(
        operation,
        |op| select(op) && on_f32(op),
        |b, name| {
            let x = b.arg(0);
            let float = b.type_of(x);
            let (int, bool) = (b.shaped_like(float, Ty::I32), b.shaped_like(float, Ty::I1));
            vec![write(&mut Floats { b, float, int, bool }, name, x)]
        },
    )
}

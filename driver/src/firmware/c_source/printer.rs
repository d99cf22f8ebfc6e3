//! The printer of `--emit=c`: C types for MLIR's integers, memrefs as pointers with strides, and
//! one C statement per op of the loop level (arith, math, memref, scf, func).

use super::c_identifier;
use crate::Error;
use mlir_sys::*;
use std::{collections::HashMap, fmt::Write as _};
use umac_dialects::ir::{attribute, i64_array, name as op_name};

/// An integer type in C: its signed and unsigned names and its bits (`index` is a pointer-sized
/// integer).
#[derive(Clone, Copy)]
pub(super) struct CType {
    pub(super) signed: &'static str,
    pub(super) unsigned: &'static str,
    pub(super) bits: u32,
}

const INDEX: CType = CType { signed: "intptr_t", unsigned: "uintptr_t", bits: 0 };

/// A memref as C sees it: a pointer to its elements' base, an offset (in elements) and strides.
#[derive(Clone)]
pub(super) struct Memref {
    pub(super) base: String,
    pub(super) offset: String,
    pub(super) strides: Vec<i64>,
    pub(super) element: CType,
}

pub(super) struct Printer {
    pub(super) out: String,
    pub(super) names: HashMap<usize, String>,
    pub(super) memrefs: HashMap<usize, Memref>,
    pub(super) next: usize,
    pub(super) indent: usize,
}

pub(super) fn unsupported(op: MlirOperation, what: &str) -> Error {
    // SAFETY: the op is alive while the module is printed.
    let at = unsafe { umac_dialects::file_line_col(melior::ir::Location::from_raw(mlirOperationGetLocation(op))) };
    let at = at.map(|l| format!(" at {l}")).unwrap_or_default();
    Error::Compile(format!("C output does not support {what}{at}"))
}

/// The C type of an integer or index type.
pub(super) fn c_type(ty: MlirType) -> Option<CType> {
    // SAFETY: the type is alive; its width is read after the kind check.
    unsafe {
        if mlirTypeIsAIndex(ty) {
            return Some(INDEX);
        }
        if !mlirTypeIsAInteger(ty) {
            return None;
        }
        Some(match mlirIntegerTypeGetWidth(ty) {
            1 => CType { signed: "uint8_t", unsigned: "uint8_t", bits: 1 },
            8 => CType { signed: "int8_t", unsigned: "uint8_t", bits: 8 },
            16 => CType { signed: "int16_t", unsigned: "uint16_t", bits: 16 },
            32 => CType { signed: "int32_t", unsigned: "uint32_t", bits: 32 },
            64 => CType { signed: "int64_t", unsigned: "uint64_t", bits: 64 },
            _ => return None,
        })
    }
}

/// The unsigned type arithmetic of `t` is computed in (never narrower than `unsigned int`, so no
/// promotion to signed `int` can overflow).
fn wide(t: CType) -> &'static str {
    match t.bits {
        0 => "uintptr_t",
        64 => "uint64_t",
        _ => "uint32_t",
    }
}

impl Printer {
    pub(super) fn line(&mut self, text: &str) {
        let _ = writeln!(self.out, "{}{text}", "    ".repeat(self.indent));
    }

    fn fresh(&mut self, prefix: &str) -> String {
        self.next += 1;
        format!("{prefix}{}", self.next)
    }

    /// The C expression of a scalar value.
    fn value(&self, value: MlirValue, op: MlirOperation) -> Result<String, Error> {
        self.names.get(&(value.ptr as usize)).cloned().ok_or_else(|| unsupported(op, "a value defined elsewhere"))
    }

    fn memref(&self, value: MlirValue, op: MlirOperation) -> Result<Memref, Error> {
        self.memrefs.get(&(value.ptr as usize)).cloned().ok_or_else(|| unsupported(op, "a memref of unknown origin"))
    }

    /// Binds `value` (a result or block argument) to a new C variable holding `expression`.
    fn define(&mut self, value: MlirValue, t: CType, expression: &str) {
        let name = self.fresh("v");
        self.line(&format!("const {} {name} = {expression};", t.signed));
        // SAFETY: the value is alive.
        if unsafe { mlirValueGetFirstUse(value).ptr.is_null() } {
            // Computed but not read (the high half of a product whose low half is used).
            self.line(&format!("(void){name};"));
        }
        self.names.insert(value.ptr as usize, name);
    }

    /// The memref of type `ty` whose elements start at `base`, with the type's strides.
    pub(super) fn layout(
        ty: MlirType,
        base: String,
        offset: Option<String>,
        op: MlirOperation,
    ) -> Result<Memref, Error> {
        // SAFETY: the type is alive; the strides are written into a buffer of its rank.
        unsafe {
            let element =
                c_type(mlirShapedTypeGetElementType(ty)).ok_or_else(|| unsupported(op, "this element type"))?;
            let rank = mlirShapedTypeGetRank(ty) as usize;
            let mut strides = vec![0i64; rank];
            let mut static_offset = 0i64;
            if mlirMemRefTypeGetStridesAndOffset(ty, strides.as_mut_ptr(), &mut static_offset).value == 0
                || strides.contains(&i64::MIN)
            {
                return Err(unsupported(op, "a memref without static strides"));
            }
            let offset = match offset {
                Some(offset) => offset,
                None if static_offset == i64::MIN => return Err(unsupported(op, "a memref with a dynamic offset")),
                None => static_offset.to_string(),
            };
            Ok(Memref { base, offset, strides, element })
        }
    }

    /// `base[offset + i0*s0 + ...]` for the index operands of `op` from `first`.
    fn element(&self, op: MlirOperation, memref: &Memref, first: isize) -> Result<String, Error> {
        let mut terms = vec![memref.offset.clone()];
        // SAFETY: the op is alive; its operands are read within their count.
        unsafe {
            for (k, stride) in memref.strides.iter().enumerate() {
                let index = self.value(mlirOperationGetOperand(op, first + k as isize), op)?;
                terms.push(format!("{index} * {stride}"));
            }
        }
        Ok(format!("{}[{}]", memref.base, terms.join(" + ")))
    }

    /// Prints the ops of `block`.
    pub(super) fn block(&mut self, block: MlirBlock) -> Result<(), Error> {
        // SAFETY: the block is alive; its ops are read in order while the module is not changed.
        unsafe {
            let mut op = mlirBlockGetFirstOperation(block);
            while !op.ptr.is_null() {
                self.op(op)?;
                op = mlirOperationGetNextInBlock(op);
            }
        }
        Ok(())
    }

    /// Prints one op.
    fn op(&mut self, op: MlirOperation) -> Result<(), Error> {
        // SAFETY: `op` is alive; operands, results, regions and attributes are read within
        // their counts and after their kind checks.
        unsafe {
            let kind = op_name(op);
            let operand = |i: isize| mlirOperationGetOperand(op, i);
            let result = || mlirOperationGetResult(op, 0);
            let result_type = || c_type(mlirValueGetType(mlirOperationGetResult(op, 0)));
            let int = |p: &Self, i: isize| p.value(operand(i), op);
            match kind.as_str() {
                "arith.constant" => {
                    let value = attribute(op, "value").ok_or_else(|| unsupported(op, "a constant without value"))?;
                    let t = result_type().ok_or_else(|| unsupported(op, "a non-integer constant"))?;
                    if !mlirAttributeIsAInteger(value) {
                        return Err(unsupported(op, "a non-integer constant"));
                    }
                    let v = mlirIntegerAttrGetValueInt(value);
                    let literal = match (t.bits, v) {
                        (1, v) => format!("{}", v & 1),
                        (_, i64::MIN) => "(-9223372036854775807LL - 1)".to_string(),
                        (64, v) => format!("{v}LL"),
                        (_, v) => v.to_string(),
                    };
                    self.define(result(), t, &format!("({}){literal}", t.signed));
                }
                "arith.addi" | "arith.subi" | "arith.muli" | "arith.andi" | "arith.ori" | "arith.xori" => {
                    let t = result_type().ok_or_else(|| unsupported(op, "this type"))?;
                    let symbol = match kind.as_str() {
                        "arith.addi" => "+",
                        "arith.subi" => "-",
                        "arith.muli" => "*",
                        "arith.andi" => "&",
                        "arith.ori" => "|",
                        _ => "^",
                    };
                    let (a, b, w, u) = (int(self, 0)?, int(self, 1)?, wide(t), t.unsigned);
                    self.define(result(), t, &format!("({})({u})(({w})({u}){a} {symbol} ({w})({u}){b})", t.signed));
                }
                "arith.shli" | "arith.shrsi" | "arith.shrui" => {
                    let t = result_type().ok_or_else(|| unsupported(op, "this type"))?;
                    let (a, b, w, u) = (int(self, 0)?, int(self, 1)?, wide(t), t.unsigned);
                    let expression = match kind.as_str() {
                        "arith.shli" => format!("({})({u})(({w})({u}){a} << (unsigned){b})", t.signed),
                        "arith.shrsi" => format!("({})({a} >> (unsigned){b})", t.signed),
                        _ => format!("({})(({u}){a} >> (unsigned){b})", t.signed),
                    };
                    self.define(result(), t, &expression);
                }
                "arith.divsi" | "arith.remsi" | "arith.divui" | "arith.remui" => {
                    let t = result_type().ok_or_else(|| unsupported(op, "this type"))?;
                    let (a, b) = (int(self, 0)?, int(self, 1)?);
                    let symbol = if kind.contains("div") { "/" } else { "%" };
                    let expression = if kind.ends_with("si") {
                        format!("({})({a} {symbol} {b})", t.signed)
                    } else {
                        format!("({})(({u}){a} {symbol} ({u}){b})", t.signed, u = t.unsigned)
                    };
                    self.define(result(), t, &expression);
                }
                "arith.mulsi_extended" => {
                    // The low and high halves of the double-width product.
                    let t = result_type().filter(|t| t.bits == 32).ok_or_else(|| unsupported(op, "this width"))?;
                    let (a, b) = (int(self, 0)?, int(self, 1)?);
                    let product = self.fresh("p");
                    self.line(&format!("const int64_t {product} = (int64_t){a} * (int64_t){b};"));
                    self.define(result(), t, &format!("(int32_t)(uint32_t)(uint64_t){product}"));
                    self.define(mlirOperationGetResult(op, 1), t, &format!("(int32_t)({product} >> 32)"));
                }
                "arith.extsi" | "arith.extui" | "arith.trunci" | "arith.index_cast" | "arith.index_castui" => {
                    let from = c_type(mlirValueGetType(operand(0))).ok_or_else(|| unsupported(op, "this type"))?;
                    let t = result_type().ok_or_else(|| unsupported(op, "this type"))?;
                    let a = int(self, 0)?;
                    let expression = match kind.as_str() {
                        "arith.extsi" if from.bits == 1 => format!("({})(-(int32_t){a})", t.signed),
                        "arith.extsi" | "arith.index_cast" => format!("({}){a}", t.signed),
                        "arith.trunci" if t.bits == 1 => format!("(uint8_t)({a} & 1)"),
                        "arith.trunci" => format!("({})({}){a}", t.signed, t.unsigned),
                        _ => format!("({})({}){a}", t.signed, from.unsigned),
                    };
                    self.define(result(), t, &expression);
                }
                "arith.cmpi" => {
                    let t = c_type(mlirValueGetType(operand(0))).ok_or_else(|| unsupported(op, "this type"))?;
                    let predicate = attribute(op, "predicate").map(|p| mlirIntegerAttrGetValueInt(p)).unwrap_or(-1);
                    // arith::CmpIPredicate: eq, ne, slt, sle, sgt, sge, ult, ule, ugt, uge.
                    let symbols = ["==", "!=", "<", "<=", ">", ">=", "<", "<=", ">", ">="];
                    let symbol = usize::try_from(predicate)
                        .ok()
                        .and_then(|p| symbols.get(p))
                        .ok_or_else(|| unsupported(op, "this predicate"))?;
                    let (a, b) = (int(self, 0)?, int(self, 1)?);
                    let expression = if predicate >= 6 {
                        format!("(uint8_t)(({u}){a} {symbol} ({u}){b})", u = t.unsigned)
                    } else {
                        format!("(uint8_t)({a} {symbol} {b})")
                    };
                    let bool_type = CType { signed: "uint8_t", unsigned: "uint8_t", bits: 1 };
                    self.define(result(), bool_type, &expression);
                }
                "arith.select" => {
                    let t = result_type().ok_or_else(|| unsupported(op, "a select of this type"))?;
                    let (c, a, b) = (int(self, 0)?, int(self, 1)?, int(self, 2)?);
                    self.define(result(), t, &format!("({c} ? {a} : {b})"));
                }
                "math.ctlz" => {
                    let t = result_type().ok_or_else(|| unsupported(op, "this type"))?;
                    let a = int(self, 0)?;
                    let expression = match t.bits {
                        64 => format!("(int64_t)({a} == 0 ? 64 : __builtin_clzll((uint64_t){a}))"),
                        32 => format!("(int32_t)({a} == 0 ? 32 : __builtin_clz((uint32_t){a}))"),
                        _ => return Err(unsupported(op, "math.ctlz of this width")),
                    };
                    self.define(result(), t, &expression);
                }
                "memref.load" => {
                    let memref = self.memref(operand(0), op)?;
                    let t = result_type().ok_or_else(|| unsupported(op, "this type"))?;
                    let element = self.element(op, &memref, 1)?;
                    self.define(result(), t, &element);
                }
                "memref.store" => {
                    let value = int(self, 0)?;
                    let memref = self.memref(operand(1), op)?;
                    let element = self.element(op, &memref, 2)?;
                    self.line(&format!("{element} = {value};"));
                }
                "memref.alloca" => {
                    let ty = mlirValueGetType(result());
                    let element =
                        c_type(mlirShapedTypeGetElementType(ty)).ok_or_else(|| unsupported(op, "this type"))?;
                    let count: i64 =
                        (0..mlirShapedTypeGetRank(ty)).map(|d| mlirShapedTypeGetDimSize(ty, d as isize)).product();
                    let name = self.fresh("a");
                    self.line(&format!("{} {name}[{}];", element.signed, count.max(1)));
                    let memref = Self::layout(ty, name, None, op)?;
                    self.memrefs.insert(result().ptr as usize, memref);
                }
                "memref.get_global" => {
                    let global = attribute(op, "name")
                        .map(|a| umac_dialects::text::attribute_text(melior::ir::Attribute::from_raw(a)))
                        .unwrap_or_default();
                    let symbol = c_identifier(global.trim_start_matches('@'));
                    let memref = Self::layout(mlirValueGetType(result()), symbol, None, op)?;
                    self.memrefs.insert(result().ptr as usize, memref);
                }
                "memref.view" => {
                    let source = self.memref(operand(0), op)?;
                    let bytes = int(self, 1)?;
                    let ty = mlirValueGetType(result());
                    let element =
                        c_type(mlirShapedTypeGetElementType(ty)).ok_or_else(|| unsupported(op, "this type"))?;
                    let base = format!(
                        "(({} *)(void *)((uint8_t *){} + {} + {bytes}))",
                        element.signed, source.base, source.offset
                    );
                    let memref = Self::layout(ty, base, None, op)?;
                    self.memrefs.insert(result().ptr as usize, memref);
                }
                "memref.reinterpret_cast" => {
                    let source = self.memref(operand(0), op)?;
                    // The offset: static, or the first dynamic operand after the source.
                    let offsets = attribute(op, "static_offsets").and_then(|a| i64_array(a)).unwrap_or_default();
                    let offset = match offsets.first() {
                        Some(&o) if o != i64::MIN => o.to_string(),
                        _ => int(self, 1)?,
                    };
                    let memref = Self::layout(mlirValueGetType(result()), source.base, Some(offset), op)?;
                    self.memrefs.insert(result().ptr as usize, memref);
                }
                "memref.collapse_shape" | "memref.expand_shape" | "memref.cast" => {
                    let source = self.memref(operand(0), op)?;
                    let memref = Self::layout(mlirValueGetType(result()), source.base, Some(source.offset), op)?;
                    self.memrefs.insert(result().ptr as usize, memref);
                }
                "memref.copy" => {
                    // Between contiguous buffers only (what the executor copies whole).
                    let (source, target) = (self.memref(operand(0), op)?, self.memref(operand(1), op)?);
                    let ty = mlirValueGetType(operand(0));
                    let shape: Vec<i64> =
                        (0..mlirShapedTypeGetRank(ty)).map(|d| mlirShapedTypeGetDimSize(ty, d as isize)).collect();
                    let contiguous = |m: &Memref| {
                        let mut expected = 1;
                        m.strides.iter().zip(&shape).rev().all(|(&stride, &size)| {
                            let ok = stride == expected || size == 1;
                            expected *= size;
                            ok
                        })
                    };
                    if !contiguous(&source) || !contiguous(&target) {
                        return Err(unsupported(op, "a copy between strided buffers"));
                    }
                    let elements: i64 = shape.iter().product();
                    self.line(&format!(
                        "memcpy(&{}[{}], &{}[{}], {elements} * sizeof({}));",
                        target.base, target.offset, source.base, source.offset, target.element.signed
                    ));
                }
                "scf.for" => self.for_loop(op)?,
                "scf.if" => self.if_else(op)?,
                "scf.yield" => {}
                "func.call" | "umac.call_extern" => {
                    let callee = attribute(op, "callee")
                        .map(|a| umac_dialects::text::attribute_text(melior::ir::Attribute::from_raw(a)))
                        .unwrap_or_default();
                    let mut args = Vec::new();
                    for i in 0..mlirOperationGetNumOperands(op) {
                        let value = operand(i);
                        if mlirTypeIsAMemRef(mlirValueGetType(value)) {
                            let memref = self.memref(value, op)?;
                            // Cast: a constant (a `static const` array) may be passed where the
                            // callee only reads.
                            args.push(format!("({} *)&{}[{}]", memref.element.signed, memref.base, memref.offset));
                        } else {
                            args.push(self.value(value, op)?);
                        }
                    }
                    if mlirOperationGetNumResults(op) > 0 {
                        return Err(unsupported(op, "a call with results"));
                    }
                    self.line(&format!("{}({});", c_identifier(callee.trim_start_matches('@')), args.join(", ")));
                }
                "func.return" => {
                    if mlirOperationGetNumOperands(op) > 0 {
                        return Err(unsupported(op, "a function returning values"));
                    }
                }
                _ => return Err(unsupported(op, &format!("'{kind}'"))),
            }
        }
        Ok(())
    }

    /// Carried values of a loop or branch: results declared before it, yields assigned at the end
    /// of its block (through temporaries, as they may read each other).
    fn carried(&mut self, op: MlirOperation) -> Result<Vec<(String, CType)>, Error> {
        // SAFETY: the op is alive; its results are read within their count.
        unsafe {
            (0..mlirOperationGetNumResults(op))
                .map(|i| {
                    let value = mlirOperationGetResult(op, i);
                    let t = c_type(mlirValueGetType(value))
                        .ok_or_else(|| unsupported(op, "a carried value of this type"))?;
                    let name = self.fresh("r");
                    self.names.insert(value.ptr as usize, name.clone());
                    Ok((name, t))
                })
                .collect()
        }
    }

    /// The body of `region`'s block, then its yield assigned to `carried`.
    fn yielding(&mut self, block: MlirBlock, carried: &[(String, CType)]) -> Result<(), Error> {
        self.block(block)?;
        // SAFETY: the block is alive; its terminator's operands are read within their count.
        unsafe {
            let terminator = mlirBlockGetTerminator(block);
            if carried.is_empty() || terminator.ptr.is_null() {
                return Ok(());
            }
            let mut temporaries = Vec::new();
            for (k, (_, t)) in carried.iter().enumerate() {
                let value = self.value(mlirOperationGetOperand(terminator, k as isize), terminator)?;
                let temporary = self.fresh("y");
                self.line(&format!("const {} {temporary} = {value};", t.signed));
                temporaries.push(temporary);
            }
            for ((name, _), temporary) in carried.iter().zip(temporaries) {
                self.line(&format!("{name} = {temporary};"));
            }
        }
        Ok(())
    }

    fn for_loop(&mut self, op: MlirOperation) -> Result<(), Error> {
        // SAFETY: the op is a live `scf.for`: lower bound, upper bound, step, then the initial
        // values; its body's arguments are the induction variable and the carried values.
        unsafe {
            let (lower, upper, step) = (
                self.value(mlirOperationGetOperand(op, 0), op)?,
                self.value(mlirOperationGetOperand(op, 1), op)?,
                self.value(mlirOperationGetOperand(op, 2), op)?,
            );
            let carried = self.carried(op)?;
            for (k, (name, t)) in carried.iter().enumerate() {
                let init = self.value(mlirOperationGetOperand(op, 3 + k as isize), op)?;
                self.line(&format!("{} {name} = {init};", t.signed));
            }
            let block = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
            let iv = self.fresh("i");
            self.names.insert(mlirBlockGetArgument(block, 0).ptr as usize, iv.clone());
            for (k, (name, _)) in carried.iter().enumerate() {
                self.names.insert(mlirBlockGetArgument(block, 1 + k as isize).ptr as usize, name.clone());
            }
            self.line(&format!("for (intptr_t {iv} = {lower}; {iv} < {upper}; {iv} += {step}) {{"));
            self.indent += 1;
            self.yielding(block, &carried)?;
            self.indent -= 1;
            self.line("}");
        }
        Ok(())
    }

    fn if_else(&mut self, op: MlirOperation) -> Result<(), Error> {
        // SAFETY: the op is a live `scf.if`: the condition, a then region and an else region
        // (empty when absent).
        unsafe {
            let condition = self.value(mlirOperationGetOperand(op, 0), op)?;
            let carried = self.carried(op)?;
            for (name, t) in &carried {
                self.line(&format!("{} {name};", t.signed));
            }
            self.line(&format!("if ({condition}) {{"));
            self.indent += 1;
            self.yielding(mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0)), &carried)?;
            self.indent -= 1;
            let otherwise = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 1));
            if !otherwise.ptr.is_null() {
                self.line("} else {");
                self.indent += 1;
                self.yielding(otherwise, &carried)?;
                self.indent -= 1;
            }
            self.line("}");
        }
        Ok(())
    }
}

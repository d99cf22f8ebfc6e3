//! `umac-tabulate-lookups`: several table lookups of one index, and the integer arithmetic that
//! combines them, become one lookup of a table computed at compile time.
//!
//! TFLite's int8 softmax, as the TOSA converter writes it (and umac's .tflite reader after it),
//! computes `exp(x - max(x))` with four `tosa.table`s of 513 int16 entries over the same index,
//! each interpolated, then shifts and adds the four parts into one Q0.31 value. The index is
//! `x - max(x)` of int8 values: it takes at most 256 values, -255 to 0. Every value the chain can
//! produce is computed here, exactly as TOSA defines each op ([`crate::tosa_elementwise`]), into
//! one int32 table of 256 entries (1,024 bytes in place of 4,104) read by one elementwise `linalg.generic`
//! (as TOSA's lowering writes a `tosa.gather`, without its reshapes to and from `1xNx1`, so
//! fusion and `umac-recompute-elementwise` take it like any elementwise op):
//! ```mlir
//! %d = tosa.sub %x, %max : (tensor<1x12xi32>, tensor<1x1xi32>) -> tensor<1x12xi32>  // in [-255, 0]
//! %i = tosa.rescale %d, ... -> tensor<1x12xi16>
//! %a = tosa.table %i, %t0 ...   %b = tosa.table %i, %t1 ...   (four)
//! %s = tosa.logical_left_shift %a, %c17 ...   %e = tosa.add %s, ...   (shifts and adds)
//! // becomes
//! %table = arith.constant dense<[...]> : tensor<256xi32>
//! %e = linalg.generic {identity maps, parallel} ins(%d) outs(tensor.empty) {
//! ^bb0(%v: i32, %out: i32):
//!   %k = arith.subi %v, %c-255   %p = arith.index_cast %k   %y = tensor.extract %table[%p]
//!   linalg.yield %y
//! }
//! ```
//! The chain is found from each `tosa.table`: its index is followed back through integer
//! elementwise ops of one non-constant operand to the earliest value whose range (from the element
//! types, constants, rescales, reductions, interval arithmetic, and a value less its own maximum
//! or minimum) holds at most
//! [`MAX_ENTRIES`] values; from there every elementwise op computable from that value alone (and
//! splat constants) joins, in the value's shape. A value of the chain that others read is a
//! candidate result when no other value of the chain is read outside the ops that compute it. It
//! is tabulated when those ops hold two lookups or more, the table takes no more bytes than
//! theirs, and every value in the range is defined (no `REQUIRE` of the specification fails):
//! the result is the same for every input, one lookup replaces several, and the constants shrink.

use crate::{
    Error,
    pass::{UmacPass, boxed},
    registry::{PassInfo, PassKind},
    tosa_elementwise::{Elementwise, Kind, constant_ints, element_bits, signed_range, splat_operand},
    unit_expansion::uses,
};
use melior::ir::OperationRef;
use mlir_sys::*;
use std::collections::{HashMap, HashSet};
use umac_dialects::{
    build::{Attr, Builder, Ty, projection},
    ir::{body_ops, has_body, name, producer, static_tensor_shape, with_context},
};

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    name: "umac-tabulate-lookups",
    summary: "Compute several table lookups of one index, and the integer arithmetic combining them, as one lookup of a table built at compile time",
    anchor: "func.func",
    options: &[],
    kind: PassKind::Pass(|_| boxed(TabulateLookups)),
};

/// The most values a chain's index may take (its table's entries).
pub const MAX_ENTRIES: i64 = 4096;

/// The most values of an operand a range is computed over one by one.
const ENUMERATED: i64 = 1 << 16;

struct TabulateLookups;

impl UmacPass for TabulateLookups {
    fn run(&mut self, operation: OperationRef) -> Result<(), Error> {
        if !has_body(&operation) {
            return Ok(());
        }
        // One chain at a time (a rewrite changes what the others see); each removes two lookups
        // or more, so this ends.
        // SAFETY: the function is live; each chain is found in it as it is now.
        while let Some(chain) = unsafe { find(operation.to_raw()) } {
            // SAFETY: the chain's ops were found in the function just now.
            unsafe { chain.write(&operation)? };
        }
        Ok(())
    }
}

/// The first chain worth tabulating in `function`.
///
/// # Safety
/// `function` must be live, with a body.
unsafe fn find(function: MlirOperation) -> Option<Chain> {
    // SAFETY: the caller's contract; operands of live ops are live.
    unsafe {
        let ops = body_ops(function);
        let mut ranges = Ranges::default();
        let mut tried = HashSet::new();
        for &op in &ops {
            if name(op) != "tosa.table" {
                continue;
            }
            let Some(index) = ranges.index(mlirOperationGetOperand(op, 0)) else { continue };
            if tried.insert(index.ptr as usize)
                && let Some(chain) = Chain::grow(index, &ops, &mut ranges)
            {
                return Some(chain);
            }
        }
        None
    }
}

/// The range of values of integer tensors, computed as asked and kept.
#[derive(Default)]
struct Ranges {
    known: HashMap<usize, Option<(i64, i64)>>,
}

impl Ranges {
    /// The smallest and largest element `value` can hold.
    ///
    /// # Safety
    /// `value` must be live.
    unsafe fn of(&mut self, value: MlirValue) -> Option<(i64, i64)> {
        if let Some(known) = self.known.get(&(value.ptr as usize)) {
            return *known;
        }
        // SAFETY: the caller's contract.
        let range = unsafe { self.compute(value) };
        self.known.insert(value.ptr as usize, range);
        range
    }

    /// # Safety
    /// `value` must be live.
    unsafe fn compute(&mut self, value: MlirValue) -> Option<(i64, i64)> {
        // SAFETY: the caller's contract; operands of live ops are live.
        unsafe {
            let full = signed_range(element_bits(mlirValueGetType(value))?);
            let Some(op) = producer(value) else { return Some(full) };
            let found = match name(op).as_str() {
                "tosa.const" | "arith.constant" => {
                    let values = constant_ints(value)?;
                    Some((*values.iter().min()?, *values.iter().max()?))
                }
                "tosa.reduce_max" | "tosa.reduce_min" | "tosa.reshape" => self.of(mlirOperationGetOperand(op, 0)),
                _ => self.elementwise(op),
            };
            let (lo, hi) = found.unwrap_or(full);
            Some((lo.max(full.0), hi.min(full.1)))
        }
    }

    /// The range of an elementwise op's result: over every value of its one varying input, or by
    /// interval arithmetic for an add, subtract, maximum or minimum of two.
    ///
    /// # Safety
    /// `op` must be live.
    unsafe fn elementwise(&mut self, op: MlirOperation) -> Option<(i64, i64)> {
        // SAFETY: the caller's contract; operands of live ops are live.
        unsafe {
            let e = Elementwise::of(op)?;
            let mut inputs = Vec::new();
            for i in 0..e.inputs() {
                inputs.push(match splat_operand(op, i as isize) {
                    Some(c) => (c, c),
                    None => self.of(mlirOperationGetOperand(op, i as isize))?,
                });
            }
            let varying: Vec<usize> = (0..inputs.len()).filter(|&i| inputs[i].0 != inputs[i].1).collect();
            match varying.as_slice() {
                [] | [_] => {
                    let at = varying.first().copied().unwrap_or(0);
                    let (lo, hi) = inputs[at];
                    if hi - lo >= ENUMERATED {
                        return None;
                    }
                    let mut x: Vec<i64> = inputs.iter().map(|r| r.0).collect();
                    let (mut min, mut max) = (i64::MAX, i64::MIN);
                    for v in lo..=hi {
                        x[at] = v;
                        let y = e.apply(&x)?;
                        (min, max) = (min.min(y), max.max(y));
                    }
                    Some((min, max))
                }
                _ => {
                    let [(a, b), (c, d)] = [inputs[0], inputs[1]];
                    let (lo, hi) = match e.kind {
                        Kind::Add => (a + c, b + d),
                        // x - max(x) is never positive, x - min(x) never negative.
                        Kind::Sub => match reduced_from(op) {
                            Some("tosa.reduce_max") => (a - d, 0),
                            Some("tosa.reduce_min") => (0, b - c),
                            _ => (a - d, b - c),
                        },
                        Kind::Maximum => (a.max(c), b.max(d)),
                        Kind::Minimum => (a.min(c), b.min(d)),
                        _ => return None,
                    };
                    let full = signed_range(e.bits);
                    (full.0 <= lo && hi <= full.1).then_some((lo, hi))
                }
            }
        }
    }

    /// The earliest value a lookup's `index` is computed from, through elementwise ops of one
    /// varying operand, that takes at most [`MAX_ENTRIES`] values.
    ///
    /// # Safety
    /// `index` must be live.
    unsafe fn index(&mut self, mut index: MlirValue) -> Option<MlirValue> {
        // SAFETY: the caller's contract; operands of live ops are live.
        unsafe {
            let mut earliest = None;
            loop {
                if self.of(index).is_some_and(|(lo, hi)| hi - lo < MAX_ENTRIES) {
                    earliest = Some(index);
                }
                let Some(op) = producer(index) else { break };
                let Some(e) = Elementwise::of(op) else { break };
                let varying: Vec<isize> =
                    (0..e.inputs() as isize).filter(|&i| splat_operand(op, i).is_none()).collect();
                let [only] = varying.as_slice() else { break };
                index = mlirOperationGetOperand(op, *only);
            }
            earliest
        }
    }
}

/// An op of a chain: the op, what it computes, and its element inputs.
type Link = (MlirOperation, Elementwise, Vec<Input>);

/// For `a - r` where `r` reduces `a` itself (`tosa.reduce_max` or `tosa.reduce_min`, over an axis
/// of `a`, kept as a unit dimension), the reduction's name.
///
/// # Safety
/// `sub` must be a live op of two operands.
unsafe fn reduced_from(sub: MlirOperation) -> Option<&'static str> {
    // SAFETY: the caller's contract; operands of live ops are live.
    unsafe {
        let reduction = producer(mlirOperationGetOperand(sub, 1))?;
        let kind = match name(reduction).as_str() {
            "tosa.reduce_max" => "tosa.reduce_max",
            "tosa.reduce_min" => "tosa.reduce_min",
            _ => return None,
        };
        mlirValueEqual(mlirOperationGetOperand(reduction, 0), mlirOperationGetOperand(sub, 0)).then_some(kind)
    }
}

/// An operand of an op of a chain.
#[derive(Clone, Copy)]
enum Input {
    /// The result of the chain's op at this position, or the index (`usize::MAX`).
    Chain(usize),
    Constant(i64),
}

/// A chain to tabulate: its index and the index's range, its ops in order (the last one the
/// result), and the table.
struct Chain {
    index: MlirValue,
    lo: i64,
    ops: Vec<MlirOperation>,
    table: Vec<i64>,
    bits: u32,
}

const INDEX: usize = usize::MAX;

/// The integer widths of an index and a table's entries.
const WIDTHS: [u32; 3] = [8, 16, 32];

impl Chain {
    /// The chain from `index` worth tabulating, if any.
    ///
    /// # Safety
    /// `index` and `ops`, the ops of its function's body, must be live.
    unsafe fn grow(index: MlirValue, ops: &[MlirOperation], ranges: &mut Ranges) -> Option<Chain> {
        // SAFETY: the caller's contract; operands, results and uses of live ops are live.
        unsafe {
            let shape = static_tensor_shape(mlirValueGetType(index))?;
            if !WIDTHS.contains(&element_bits(mlirValueGetType(index))?) {
                return None;
            }
            let (lo, hi) = ranges.of(index)?;
            let start = match producer(index) {
                Some(op) => ops.iter().position(|&o| o.ptr == op.ptr)? + 1,
                None => 0,
            };
            // Every elementwise op computable from the index alone, in order.
            let mut position: HashMap<usize, usize> = HashMap::from([(index.ptr as usize, INDEX)]);
            let mut chain: Vec<Link> = Vec::new();
            for &op in &ops[start..] {
                let Some(e) = Elementwise::of(op) else { continue };
                let result = mlirOperationGetResult(op, 0);
                if static_tensor_shape(mlirValueGetType(result)).as_ref() != Some(&shape) {
                    continue;
                }
                let inputs: Option<Vec<Input>> = (0..e.inputs() as isize)
                    .map(|i| match position.get(&(mlirOperationGetOperand(op, i).ptr as usize)) {
                        Some(&at) => Some(Input::Chain(at)),
                        None => splat_operand(op, i).map(Input::Constant),
                    })
                    .collect();
                let Some(inputs) = inputs else { continue };
                if inputs.iter().all(|i| matches!(i, Input::Constant(_))) {
                    continue;
                }
                position.insert(result.ptr as usize, chain.len());
                chain.push((op, e, inputs));
            }
            let at: HashMap<usize, usize> =
                chain.iter().enumerate().map(|(i, (op, ..))| (op.ptr as usize, i)).collect();
            let users = |m: usize| uses(mlirOperationGetResult(chain[m].0, 0)).into_iter().map(|(user, _)| user);
            for (root, (_, e, _)) in chain.iter().enumerate() {
                if users(root).all(|user| at.contains_key(&(user.ptr as usize))) {
                    continue;
                }
                let members = ancestors(&chain, root);
                let only_inside = members
                    .iter()
                    .filter(|&&m| m != root)
                    .all(|&m| users(m).all(|user| at.get(&(user.ptr as usize)).is_some_and(|p| members.contains(p))));
                let table_bytes: i64 = members
                    .iter()
                    .filter_map(|&m| match &chain[m].1.kind {
                        Kind::Table(t) => Some(t.len() as i64 * i64::from(chain[m].1.input_bits / 8)),
                        _ => None,
                    })
                    .sum();
                let lookups = members.iter().filter(|&&m| matches!(chain[m].1.kind, Kind::Table(_))).count();
                let bytes = (hi - lo + 1) * i64::from(e.bits.div_ceil(8));
                if !only_inside || lookups < 2 || bytes > table_bytes || !WIDTHS.contains(&e.bits) {
                    continue;
                }
                let Some(table) = tabulate(&chain, &members, lo, hi) else { continue };
                let ops = members.iter().map(|&m| chain[m].0).collect();
                return Some(Chain { index, lo, ops, table, bits: e.bits });
            }
            None
        }
    }

    /// Writes the lookup in place of the chain's result and erases the chain's ops.
    ///
    /// # Safety
    /// The chain's ops must be live, in `function`.
    unsafe fn write(&self, function: &OperationRef) -> Result<(), Error> {
        let root = *self.ops.last().ok_or_else(|| Error::Internal("an empty chain".into()))?;
        // SAFETY: the caller's contract; the root op and the index are live.
        let (root_ref, index_type) = unsafe { (OperationRef::from_raw(root), mlirValueGetType(self.index)) };
        let shape = static_tensor_shape(index_type)
            .ok_or_else(|| Error::Internal("a chain's index without a static shape".into()))?;
        let element = match self.bits {
            8 => Ty::I8,
            16 => Ty::I16,
            32 => Ty::I32,
            bits => return Err(Error::Internal(format!("a tabulated chain of i{bits}"))),
        };
        // SAFETY: the index's type is live.
        let widen = unsafe { element_bits(index_type) } != Some(32);
        with_context(function, |context| {
            let mut b = Builder::before(context, root_ref);
            let index = b.existing(self.index);
            let table_type = b.tensor(&[self.table.len() as i64], element);
            let table = b.op1("arith.constant", &[], table_type, &[("value", Attr::Dense(table_type, &self.table))]);
            let result_type = b.tensor(&shape, element);
            let empty = b.op1("tensor.empty", &[], result_type, &[]);
            let rank = shape.len();
            let identity = projection(rank, &(0..rank).collect::<Vec<_>>());
            let maps = [Attr::Map(rank, &identity), Attr::Map(rank, &identity)];
            let result = b.generic([&[index], &[empty]], &maps, &vec!["parallel"; rank], &[], |b, elements| {
                let mut at = elements[0];
                if widen {
                    at = b.op1("arith.extsi", &[at], Ty::I32, &[]);
                }
                if self.lo != 0 {
                    let lo = b.constant(Ty::I32, self.lo);
                    at = b.binary("arith.subi", at, lo);
                }
                let position = b.index_cast(at, Ty::Index);
                vec![b.op1("tensor.extract", &[table, position], element, &[])]
            })[0];
            b.replace(&[result])
        })?;
        // SAFETY: the other ops only fed the chain's result, replaced: erased last first, none
        // has uses left when it goes.
        unsafe {
            for &op in self.ops[..self.ops.len() - 1].iter().rev() {
                mlirOperationDestroy(op);
            }
        }
        Ok(())
    }
}

/// The positions of the chain's ops that `root`'s result is computed from (with `root`), in order.
fn ancestors(chain: &[Link], root: usize) -> Vec<usize> {
    let mut needed = vec![false; chain.len()];
    needed[root] = true;
    for at in (0..=root).rev() {
        if needed[at] {
            for input in &chain[at].2 {
                if let Input::Chain(p) = *input
                    && p != INDEX
                {
                    needed[p] = true;
                }
            }
        }
    }
    (0..chain.len()).filter(|&i| needed[i]).collect()
}

/// The result of the chain's `members` (the last one the result) for every index in `lo..=hi`,
/// or `None` when one is undefined.
fn tabulate(chain: &[Link], members: &[usize], lo: i64, hi: i64) -> Option<Vec<i64>> {
    let mut values = vec![0i64; chain.len()];
    let mut table = Vec::with_capacity((hi - lo + 1) as usize);
    for index in lo..=hi {
        for &m in members {
            let (_, e, inputs) = &chain[m];
            let x: Vec<i64> = inputs
                .iter()
                .map(|input| match *input {
                    Input::Chain(INDEX) => index,
                    Input::Chain(p) => values[p],
                    Input::Constant(c) => c,
                })
                .collect();
            values[m] = e.apply(&x)?;
        }
        table.push(values[*members.last()?]);
    }
    Some(table)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link(kind: Kind, input_bits: u32, bits: u32, inputs: &[Input]) -> Link {
        let op = MlirOperation { ptr: std::ptr::null_mut() };
        (op, Elementwise { kind, input_bits, bits }, inputs.to_vec())
    }

    #[test]
    fn tabulates_what_the_result_is_computed_from() {
        // 0: t0[i] (the identity), 1: t1[i] (i + 1), 2: an op the result does not read,
        // 3: (0 << 2) + 1 = 4i + i + 1 = 5i + 1.
        let identity: Vec<i64> = (0..256).map(|i| i - 128).collect();
        let plus_one: Vec<i64> = (0..256).map(|i| (i - 127).min(127)).collect();
        let chain = [
            link(Kind::Table(identity), 8, 8, &[Input::Chain(INDEX)]),
            link(Kind::Table(plus_one), 8, 8, &[Input::Chain(INDEX)]),
            link(Kind::Clamp { min: 0, max: 1 }, 8, 8, &[Input::Chain(1)]),
            link(Kind::LogicalLeftShift, 8, 8, &[Input::Chain(0), Input::Constant(2)]),
            link(Kind::Add, 8, 8, &[Input::Chain(3), Input::Chain(1)]),
        ];
        let members = ancestors(&chain, 4);
        assert_eq!(members, [0, 1, 3, 4]);
        assert_eq!(tabulate(&chain, &members, -2, 3), Some(vec![-9, -4, 1, 6, 11, 16]));
        // 26 · 5 + 1 = 131 overflows int8: undefined, so nothing is tabulated.
        assert_eq!(tabulate(&chain, &members, 0, 26), None);
        assert_eq!(tabulate(&chain, &members, 25, 25), Some(vec![126]));
    }
}

//! `umac-vectorize-dot-products`: an innermost `scf.for` of at least 8 iterations that
//! accumulates products of int8 values loaded along the loop from contiguous memory into an int32
//! in memory (a convolution's or matmul's reduction over its input channels, once
//! `convert-linalg-to-loops` ran on the per-element tiles and `loop-invariant-code-motion` moved
//! its index arithmetic out) becomes a loop over vectors of 16 (or 8) products, then a scalar loop
//! for the channels left over, the sum carried in registers. An input read through
//! `umac-fold-padding`'s bounds check takes two branches: the dot product, or the padding value
//! times the filter's.
//!
//! Plain vectors (the host) sum the products of a loop of two steps or more lane by lane in a
//! vector of int32 carried by the loop and reduce it once after the loop (one step is reduced as
//! it is; a padded step's padding products go into lane 0), which LLVM makes the CPU's
//! multiply-add of pairs
//! (x86: `vpmovsxbw`, `vpmaddwd`, `vpaddd` per 16 products; LLVM's own loop vectorizer left
//! 128-channel loops scalar where the accumulator's place might alias the operands). The sum is
//! the same: int32 addition wraps, in any order. With `helium` (Cortex-M55, M85) each step is
//! Helium's multiply-accumulate-across itself (`llvm.arm.mve.vmladava` on the loaded bytes,
//! sixteen products into the scalar sum), which LLVM cannot take apart.
//!
//! With `dsp` (Cortex-M4, M7, M33: the DSP extension, no vectors), a loop of any length takes
//! four products per step instead: one word of each operand, its even and odd bytes
//! sign-extended into pairs of halfwords (`sxtb16`, and `sxtb16` of the word rotated by 8), each
//! pair multiplied and added to the sum by `smlad` (8 instructions for 4 products, 12 as scalar
//! code). A padded operand's word is the padding byte four times where its condition fails. A
//! jammed tile (`umac-channels-innermost{dot-products}`: the loop over a few output channels
//! inside the input-channel loop) becomes one loop computing their dot products side by side,
//! the shared input's word loaded and extended once for all (see `dsp.rs`).
//! ```mlir
//! scf.for %c = %c0 to %c32 step %c1 {
//!   %x = memref.load %in[%h, %w, %c]   %y = memref.load %filter[%f, %c]
//!   %acc = memref.load %sum[]  ...  memref.store (%acc + extsi %x * extsi %y), %sum[]
//! }
//! // becomes
//! %init = memref.load %sum[]
//! %lanes = scf.for %c = %c0 to %c32 step %c16 iter_args(%s = %zeros) -> (vector<16xi32>) {
//!   %x = llvm.load ... : vector<16xi8>    %y = llvm.load ... : vector<16xi8>
//!   scf.yield (%s + (extsi %x) * (extsi %y)) : vector<16xi32>
//! }
//! %v = vector.reduction <add>, %lanes, %init : vector<16xi32> into i32
//! memref.store %v, %sum[]
//! ```

use crate::{
    Error,
    options::{OptionKind, OptionSpec, OptionValues},
    pass::{UmacPass, boxed, replace_with},
    registry::{PassInfo, PassKind},
};
use melior::ir::OperationRef;
use mlir_sys::*;
use umac_dialects::{
    build::{Attr, Builder, Ty, Value},
    ir::{body_ops, collect, constant_int, defined_inside, name, op_name, produced_by, strides_and_offset},
};

mod dsp;

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    name: "umac-vectorize-dot-products",
    summary: "Rewrite innermost int8 dot-product loops accumulating in memory into vector loops reducing into a register",
    anchor: "any",
    options: &[
        OptionSpec {
            name: "dsp",
            kind: OptionKind::Bool,
            default: "false",
            help: "four products per step by the DSP extension (sxtb16, smlad: Cortex-M4/M7/M33) instead of vectors",
        },
        OptionSpec {
            name: "unroll",
            kind: OptionKind::Bool,
            default: "false",
            help: "with dsp, fully unroll loops over up to 128 channels (LLVM then keeps an invariant operand's words out of the loop around)",
        },
        OptionSpec {
            name: "helium",
            kind: OptionKind::Bool,
            default: "false",
            help: "each vector step by Helium's multiply-accumulate-across (vmladava) on the loaded bytes",
        },
    ],
    kind: PassKind::Pass(|options: &OptionValues| {
        boxed(VectorizeDotProducts {
            dsp: options.bool("dsp"),
            unroll: options.bool("unroll"),
            helium: options.bool("helium"),
        })
    }),
};

struct VectorizeDotProducts {
    dsp: bool,
    unroll: bool,
    helium: bool,
}

impl UmacPass for VectorizeDotProducts {
    fn run(&mut self, operation: OperationRef) -> Result<(), Error> {
        // Inner loops first: a loop replaced with the loop it holds (a jammed tile's) has had
        // that loop visited already, and every loop visited later is outside it.
        for raw in collect(operation, |op| op_name(op) == "scf.for").into_iter().rev() {
            // SAFETY: each loop is live until it is replaced; a replaced loop's nested loops were
            // visited before it, and loops outside it stay alive.
            let Some(dot) = (unsafe { match_loop(raw) }) else { continue };
            let (dsp, unroll, helium) = (self.dsp, self.unroll, self.helium);
            if !dsp && dot.jam.is_some() {
                continue;
            }
            // SAFETY: as above.
            let op = unsafe { OperationRef::from_raw(raw) };
            replace_with(op, |b| {
                if dsp {
                    dsp::replace(b, &dot, unroll)
                } else {
                    dot.replace(b, helium)
                }
                Vec::new()
            })?;
        }
        Ok(())
    }
}

/// A load the loop makes: the memref and its indices but the last (the loop's variable); for an
/// operand read through `umac-fold-padding`'s bounds check, the condition and the value read
/// where it fails (both the same for the whole loop).
struct Load {
    memref: MlirValue,
    indices: Vec<MlirValue>,
    padded: Option<(MlirValue, MlirValue)>,
}

/// A dot-product loop: `lower..upper`, the two int8 operands in the order they are multiplied,
/// and the int32 accumulator (its indices all of them); for a jammed tile, the loop over its
/// output channels inside it.
struct Dot {
    lower: i64,
    upper: i64,
    operands: [Load; 2],
    accumulator: Load,
    jam: Option<Jam>,
}

/// The loop over a few output channels inside a dot product's loop (`umac-channels-innermost
/// {dot-products}`): `0..count`, its variable an index of the accumulator and of one operand
/// (the filter), so that `count` dot products run side by side over one shared operand.
struct Jam {
    iv: MlirValue,
    count: i64,
}

/// The most dot products a jammed tile computes side by side: their sums, the shared operand's
/// halves and the other's take the registers of a Cortex-M4 (`umac-channels-innermost`'s limit).
const MAX_JAM: i64 = crate::schedule::MAX_JAMMED_CHANNELS;

/// The dot product `raw` (an `scf.for`) computes, if it is exactly one: step 1, constant bounds
/// at least 8 apart, no results, a body of two int8 loads along the loop (stride 1; either may be
/// selected against a padding value by a condition defined outside the loop), their sign
/// extensions, their product, and the accumulator's load, sum and store at indices defined
/// outside the loop. Or a jammed tile's: the body is one loop over `0..n` (2 <= n <=
/// [`MAX_JAM`]) holding that body, whose variable may be an index of the loads too, and is one of
/// the accumulator's.
///
/// # Safety
/// `raw` must be a live `scf.for`.
unsafe fn match_loop(raw: MlirOperation) -> Option<Dot> {
    unsafe {
        let (lower, upper) = match counted(raw)? {
            (lower, upper) if upper - lower >= 8 => (lower, upper),
            _ => return None,
        };
        let iv = mlirBlockGetArgument(mlirRegionGetFirstBlock(mlirOperationGetRegion(raw, 0)), 0);
        let mut ops = body_ops(raw);
        let mut jam = None;
        if let [inner, _] = ops[..]
            && name(inner) == "scf.for"
            && let Some((0, count)) = counted(inner)
            && (2..=MAX_JAM).contains(&count)
        {
            jam = Some(Jam {
                iv: mlirBlockGetArgument(mlirRegionGetFirstBlock(mlirOperationGetRegion(inner, 0)), 0),
                count,
            });
            ops = body_ops(inner);
        }
        let jam_iv = jam.as_ref().map(|jam| jam.iv);
        let outside =
            |value: MlirValue| !defined_inside(value, raw) || jam_iv.is_some_and(|iv| mlirValueEqual(value, iv));
        // Two loads (each maybe selected against padding), two extensions, the product, the
        // accumulator's load, the sum, the store and the terminator.
        let store = *ops.get(ops.len().checked_sub(2)?)?;
        if !(9..=11).contains(&ops.len()) || name(store) != "memref.store" {
            return None;
        }
        let sum = produced_by(mlirOperationGetOperand(store, 0), "arith.addi")?;
        let accumulator = load_of(store, 1)?;
        let (a, b) = (mlirOperationGetOperand(sum, 0), mlirOperationGetOperand(sum, 1));
        let (old, product) = if produced_by(a, "memref.load").is_some() { (a, b) } else { (b, a) };
        let old = produced_by(old, "memref.load")?;
        let same_place = mlirValueEqual(mlirOperationGetOperand(old, 0), accumulator.memref)
            && mlirOperationGetNumOperands(old) == mlirOperationGetNumOperands(store) - 1
            && (0..accumulator.indices.len())
                .all(|k| mlirValueEqual(mlirOperationGetOperand(old, k as isize + 1), accumulator.indices[k]));
        let element = mlirValueGetType(mlirOperationGetResult(old, 0));
        // Each of a jammed tile's dot products sums into a place of its own.
        let apart = jam_iv.is_none_or(|iv| accumulator.indices.iter().any(|v| mlirValueEqual(*v, iv)));
        if !same_place || !apart || !accumulator.indices.iter().all(|v| outside(*v)) || !is_integer(element, 32) {
            return None;
        }
        let product = produced_by(product, "arith.muli")?;
        let operand = |k: isize| -> Option<Load> {
            let extension = produced_by(mlirOperationGetOperand(product, k), "arith.extsi")?;
            let mut narrow = mlirOperationGetOperand(extension, 0);
            if !is_integer(mlirValueGetType(narrow), 8) {
                return None;
            }
            let mut padded = None;
            if let Some(select) = produced_by(narrow, "arith.select") {
                let (condition, pad) = (mlirOperationGetOperand(select, 0), mlirOperationGetOperand(select, 2));
                if !(!defined_inside(condition, raw) && !defined_inside(pad, raw)) {
                    return None;
                }
                padded = Some((condition, pad));
                narrow = mlirOperationGetOperand(select, 1);
            }
            let load = produced_by(narrow, "memref.load")?;
            let count = mlirOperationGetNumOperands(load);
            let memref = mlirOperationGetOperand(load, 0);
            if count < 2 || !mlirValueEqual(mlirOperationGetOperand(load, count - 1), iv) || !unit_stride(memref) {
                return None;
            }
            let indices: Vec<MlirValue> = (1..count - 1).map(|k| mlirOperationGetOperand(load, k)).collect();
            indices.iter().all(|v| outside(*v)).then_some(Load { memref, indices, padded })
        };
        let operands = [operand(0)?, operand(1)?];
        // One operand at most read through padding (the input; the filter never is).
        if operands.iter().all(|o| o.padded.is_some()) {
            return None;
        }
        Some(Dot { lower, upper, operands, accumulator, jam })
    }
}

/// The constant bounds `lower..upper` of `raw`, an `scf.for` of step 1 without results.
///
/// # Safety
/// `raw` must be a live `scf.for`.
unsafe fn counted(raw: MlirOperation) -> Option<(i64, i64)> {
    unsafe {
        let bound = |k: isize| constant_int(mlirOperationGetOperand(raw, k));
        if mlirOperationGetNumResults(raw) != 0 || mlirOperationGetNumOperands(raw) != 3 {
            return None;
        }
        match (bound(0), bound(1), bound(2)) {
            (Some(lower), Some(upper), Some(1)) => Some((lower, upper)),
            _ => None,
        }
    }
}

/// The memref and indices of the `memref.load` or `memref.store` `op` whose memref is operand
/// `at`.
///
/// # Safety
/// `op` must be live.
unsafe fn load_of(op: MlirOperation, at: isize) -> Option<Load> {
    unsafe {
        let count = mlirOperationGetNumOperands(op);
        let indices = (at + 1..count).map(|k| mlirOperationGetOperand(op, k)).collect();
        Some(Load { memref: mlirOperationGetOperand(op, at), indices, padded: None })
    }
}

fn is_integer(ty: MlirType, width: u32) -> bool {
    // SAFETY: the type is live; its width is read after the kind check.
    unsafe { mlirTypeIsAInteger(ty) && mlirIntegerTypeGetWidth(ty) == width }
}

/// Whether the memref `value`'s innermost dimension has stride 1 (what `vector.load` reads).
///
/// # Safety
/// `value` must be live.
unsafe fn unit_stride(value: MlirValue) -> bool {
    // SAFETY: the caller's contract.
    let ty = unsafe { mlirValueGetType(value) };
    strides_and_offset(ty).is_some_and(|(strides, _)| strides.last() == Some(&Some(1)))
}

fn is_jam(index: MlirValue, jam: Option<MlirValue>) -> bool {
    // SAFETY: both values are live (the loop being replaced uses them).
    jam.is_some_and(|iv| unsafe { mlirValueEqual(index, iv) })
}

impl Load {
    /// The memref, in front of the loop.
    fn memref(&self, b: &Builder) -> Value {
        b.existing(self.memref)
    }

    /// The indices, with `copy` (a constant) in place of `jam`'s variable (each copy of a jammed
    /// tile's code has its own number there).
    fn indices(&self, b: &Builder, jam: Option<MlirValue>, copy: Value) -> Vec<Value> {
        self.indices.iter().map(|index| if is_jam(*index, jam) { copy } else { b.existing(*index) }).collect()
    }

    /// For a padded operand, its condition and padding value.
    fn padding(&self, b: &Builder) -> Option<(Value, Value)> {
        self.padded.map(|(inside, pad)| (b.existing(inside), b.existing(pad)))
    }

    /// The aligned base address of the memref plus its offset, and its strides.
    fn strided_metadata(&self, b: &mut Builder) -> (Value, Vec<Value>) {
        let memref = self.memref(b);
        let rank = self.indices.len() + 1;
        let base = b.memref(&[], b.element_of(b.type_of(memref)), None);
        let types = [vec![base], vec![Ty::Index; 1 + 2 * rank]].concat();
        let metadata = b.op("memref.extract_strided_metadata", &[memref], &types, &[]);
        let aligned = b.op1("memref.extract_aligned_pointer_as_index", &[memref], Ty::Index, &[]);
        (b.addi(aligned, metadata[1]), metadata[2 + rank..].to_vec())
    }
}

/// Where an operand's elements start for the loop, as an address: `at0` plus each of `indices`
/// times its stride.
fn address(b: &mut Builder, (at0, strides): &(Value, Vec<Value>), indices: &[Value]) -> Value {
    let mut at = *at0;
    for (index, stride) in indices.iter().zip(strides) {
        let step = b.muli(*index, *stride);
        at = b.addi(at, step);
    }
    at
}

/// The `narrow` value (a vector, or an i32 word) at element `c` past the address `at`.
fn load_at(b: &mut Builder, at: Value, c: Value, narrow: Ty) -> Value {
    let address = b.addi(at, c);
    let int = b.index_cast(address, Ty::I64);
    let pointer = b.op1("llvm.inttoptr", &[int], Ty::Ptr, &[]);
    b.op1("llvm.load", &[pointer], narrow, &[("alignment", Attr::Int(Ty::I64, 1))])
}

/// The scalar product an element `c` of both operands adds, read through their padding, for
/// the loop over the products left over: `loaded(x) * loaded(y)` sign-extended to i32.
fn scalar_read(b: &mut Builder, load: &Load, indices: &[Value], c: Value) -> Value {
    let memref = load.memref(b);
    let loaded = b.op1("memref.load", &[&[memref][..], indices, &[c]].concat(), Ty::I8, &[]);
    let read = match load.padding(b) {
        Some((inside, pad)) => b.select(inside, loaded, pad),
        None => loaded,
    };
    b.op1("arith.extsi", &[read], Ty::I32, &[])
}

impl Dot {
    /// The lanes of a vector step: 16, or 8 for fewer channels.
    fn lanes(&self) -> i64 {
        if self.upper - self.lower >= 16 { 16 } else { 8 }
    }

    /// Writes the replacing loops in front of the loop: steps of vectors (by `vmladava` with
    /// `helium`).
    fn replace(&self, b: &mut Builder, helium: bool) {
        let lanes = self.lanes();
        let vector_end = self.lower + (self.upper - self.lower) / lanes * lanes;
        // After steps of 16 lanes, 8 left or more take one step of 8 (the first layer's window
        // of 40: 16 + 16 + 8), which LLVM would otherwise leave as scalar code.
        let half_end = if lanes == 16 && self.upper - vector_end >= 8 { vector_end + 8 } else { vector_end };
        let [lower, vector_end_at, upper, lanes_at, one, half_end_at, half_step] =
            [self.lower, vector_end, self.upper, lanes, 1, half_end, 8].map(|k| b.constant(Ty::Index, k));
        let sum = self.accumulator.memref(b);
        let sum_indices = self.accumulator.indices(b, None, lower);
        let init = b.op1("memref.load", &[&[sum][..], &sum_indices].concat(), Ty::I32, &[]);
        // Where each operand's elements start for the loop, as an address: a vector is loaded by
        // `llvm.load` from there (`vector.load` would lower its memref with 64-bit indices).
        let mut at = Vec::new();
        for operand in &self.operands {
            let metadata = operand.strided_metadata(b);
            let indices = operand.indices(b, None, lower);
            at.push(address(b, &metadata, &indices));
        }
        // One loop over vectors of `lanes` products, one step of 8 if 8 are left after 16-lane
        // steps (`half_end`), one loop over the products left, each adding into the sum it
        // carries. A vector step of a padded operand reads the input or, where the condition
        // fails, the padding, in two branches: a select between the two would leave LLVM a
        // product it does not recognise as a dot product.
        // The operand read through padding, if one is, with its condition and padding value.
        let padded =
            self.operands.iter().enumerate().find_map(|(k, o)| o.padding(b).map(|(inside, pad)| (k, inside, pad)));
        let mut loops = vec![(lower, vector_end_at, lanes_at, lanes)];
        if half_end > vector_end {
            loops.push((vector_end_at, half_end_at, half_step, 8));
        }
        let mut carried = init;
        for (k, (from, to, by, lanes)) in loops.into_iter().enumerate() {
            // Plain vectors sum the main loop's products lane by lane, reduced once after it,
            // when it takes two steps or more (one step is reduced as it is: LLVM makes it
            // `vpmaddwd` and a reduction of its 8 lanes rather than of 16).
            let sums = !helium && k == 0 && vector_end - self.lower >= 2 * lanes;
            let ty = if sums { b.vector(&[lanes], Ty::I32) } else { Ty::I32 };
            let start = if sums { b.op1("arith.constant", &[], ty, &[("value", Attr::Int(ty, 0))]) } else { carried };
            let result = b.for_loop([from, to, by], &[start], &[], |b, c, s| {
                let write = |b: &mut Builder, pad| step(b, (c, s[0], &at[..]), pad, (helium, sums), lanes);
                vec![match padded {
                    None => write(b, None),
                    Some((k, inside, pad)) => {
                        b.if_else(inside, &[ty], &[], |b| vec![write(b, None)], |b| vec![write(b, Some((k, pad)))])[0]
                    }
                }]
            })[0];
            carried = if sums { reduction(b, result, Some(carried)) } else { result };
        }
        let last_end = if half_end > vector_end { half_end_at } else { vector_end_at };
        let total = b.for_loop([last_end, upper, one], &[carried], &[], |b, c, s| {
            let x = scalar_read(b, &self.operands[0], &self.operands[0].indices(b, None, c), c);
            let y = scalar_read(b, &self.operands[1], &self.operands[1].indices(b, None, c), c);
            let p = b.muli(x, y);
            vec![b.addi(s[0], p)]
        })[0];
        b.op("memref.store", &[&[total, sum][..], &sum_indices].concat(), &[], &[]);
    }
}

/// One vector step at `c` added to `s`: the product of both operands' vectors (from their
/// addresses `at`, at the loop's offset), sign-extended, reduced by `vector.reduction`; or, where
/// operand `k` of `pad` reads padding, its padding value times the sum of the other operand's
/// vector (a different shape, so that LLVM does not merge the two branches back into a product
/// of a select). With `helium` the product and its sum are `vmladava` on the bytes
/// (sign-extended to halfwords for 8 lanes), which LLVM keeps whole: of `vector.reduction` over
/// extended products it recognises the instruction only when the loads and extensions are in the
/// same block, and it moves them out of the loop over output channels where the input does not
/// change.
fn step(
    b: &mut Builder,
    (c, s, at): (Value, Value, &[Value]),
    pad: Option<(usize, Value)>,
    (helium, sums): (bool, bool),
    lanes: i64,
) -> Value {
    let (narrow, wide) = (b.vector(&[lanes], Ty::I8), b.vector(&[lanes], Ty::I32));
    let Some((k, pad)) = pad else {
        if helium {
            let operand = if lanes == 16 { narrow } else { b.vector(&[lanes], Ty::I16) };
            let mut read = Vec::new();
            for address in at {
                let loaded = load_at(b, *address, c, narrow);
                read.push(if lanes == 16 { loaded } else { b.op1("arith.extsi", &[loaded], operand, &[]) });
            }
            let intrinsic = if lanes == 16 { "llvm.arm.mve.vmldava.v16i8" } else { "llvm.arm.mve.vmldava.v8i16" };
            let zero = b.constant(Ty::I32, 0);
            return b.call_intrinsic(intrinsic, &[zero, zero, zero, s, read[0], read[1]], Ty::I32);
        }
        let mut widened = Vec::new();
        for address in at {
            let loaded = load_at(b, *address, c, narrow);
            widened.push(b.op1("arith.extsi", &[loaded], wide, &[]));
        }
        let p = b.muli(widened[0], widened[1]);
        return if sums { b.addi(s, p) } else { reduction(b, p, Some(s)) };
    };
    let loaded = load_at(b, at[1 - k], c, narrow);
    let other = b.op1("arith.extsi", &[loaded], wide, &[]);
    let sum = reduction(b, other, None);
    let pad_wide = b.op1("arith.extsi", &[pad], Ty::I32, &[]);
    let p = b.muli(sum, pad_wide);
    if !sums {
        return b.addi(s, p);
    }
    // Summed into lane 0: the lanes' total is the same, and the branch's shape differs from the
    // other's, which LLVM would otherwise merge with it into a product of a select (x86: no
    // longer `vpmaddwd`).
    let zeros = b.op1("arith.constant", &[], wide, &[("value", Attr::Int(wide, 0))]);
    let lane = b.op1("vector.insert", &[p, zeros], wide, &[("static_position", Attr::I64Array(&[0]))]);
    b.addi(s, lane)
}

/// `vector.reduction <add>` of `vector` (into `accumulator`, when given) as an i32.
fn reduction(b: &mut Builder, vector: Value, accumulator: Option<Value>) -> Value {
    let operands: Vec<Value> = [vector].into_iter().chain(accumulator).collect();
    b.op1("vector.reduction", &operands, Ty::I32, &[("kind", Attr::Parsed("#vector.kind<add>"))])
}

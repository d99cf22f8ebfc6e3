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
    pass::{UmacPass, boxed},
    registry::{PassInfo, PassKind},
};
use melior::ir::OperationRef;
use mlir_sys::*;
use std::fmt::Write as _;
use umac_dialects::ir::{
    body_ops, collect, constant_int, defined_inside, name, op_name, produced_by, splice, type_text,
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
            unsafe {
                let Some(dot) = match_loop(raw) else { continue };
                let (text, arguments) = match (self.dsp, &dot.jam) {
                    (true, _) => dsp::replacement(&dot, self.unroll),
                    (false, None) => dot.replacement(self.helium),
                    (false, Some(_)) => continue,
                };
                splice(raw, &text, &arguments, INFO.name, Some(mlirOperationGetLocation(raw)))?;
            }
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
    unsafe {
        let ty = mlirValueGetType(value);
        let rank = mlirShapedTypeGetRank(ty);
        if !mlirTypeIsAMemRef(ty) || rank < 1 {
            return false;
        }
        let mut strides = vec![0i64; rank as usize];
        let mut offset = 0i64;
        mlirMemRefTypeGetStridesAndOffset(ty, strides.as_mut_ptr(), &mut offset).value != 0
            && strides.last() == Some(&1)
    }
}

/// The parameters of a replacement's `func.func` and the values passed for them.
#[derive(Default)]
struct Signature {
    parameters: Vec<String>,
    arguments: Vec<MlirValue>,
}

impl Signature {
    /// Declares `load`'s memref (`%{name}_memref`), its indices (`%{name}_{k}`) but `jam`'s
    /// variable (each copy of a jammed tile's code has its own number there, see [`indices`]),
    /// and for a padded operand its condition and padding value (`%{name}_inside`,
    /// `%{name}_pad`); returns the memref's type.
    fn declare(&mut self, load: &Load, name: &str, jam: Option<MlirValue>) -> String {
        // SAFETY: the memref is live (the loop being replaced reads it).
        let ty = type_text(unsafe { mlirValueGetType(load.memref) });
        self.parameters.push(format!("%{name}_memref: {ty}"));
        self.arguments.push(load.memref);
        for (k, index) in load.indices.iter().enumerate() {
            if !is_jam(*index, jam) {
                self.parameters.push(format!("%{name}_{k}: index"));
                self.arguments.push(*index);
            }
        }
        if let Some((condition, pad)) = load.padded {
            self.parameters.extend([format!("%{name}_inside: i1"), format!("%{name}_pad: i8")]);
            self.arguments.extend([condition, pad]);
        }
        ty
    }
}

fn is_jam(index: MlirValue, jam: Option<MlirValue>) -> bool {
    // SAFETY: both values are live (the loop being replaced uses them).
    jam.is_some_and(|iv| unsafe { mlirValueEqual(index, iv) })
}

/// `load`'s indices as declared (`%{name}_{k}, `), with copy `copy`'s number (`%j{copy}`) in
/// place of `jam`'s variable.
fn indices(load: &Load, name: &str, jam: Option<MlirValue>, copy: i64) -> String {
    let mut text = String::new();
    for (k, index) in load.indices.iter().enumerate() {
        if is_jam(*index, jam) {
            let _ = write!(text, "%j{copy}, ");
        } else {
            let _ = write!(text, "%{name}_{k}, ");
        }
    }
    text
}

/// The aligned base address of operand `name`'s memref plus its offset, `%{name}_at0`, and its
/// strides, `%{name}_strides#k`.
fn strided_metadata(text: &mut String, name: &str, operand: &Load, memref_type: &str) {
    let rank = operand.indices.len() + 1;
    let types = vec!["index"; 1 + 2 * rank].join(", ");
    let _ = writeln!(
        text,
        "  %{name}_base, %{name}_offset, %{name}_sizes:{rank}, %{name}_strides:{rank} = \
         memref.extract_strided_metadata %{name}_memref : {memref_type} -> memref<i8>, {types}\n  \
         %{name}_aligned = memref.extract_aligned_pointer_as_index %{name}_memref : {memref_type} -> index\n  \
         %{name}_at0 = arith.addi %{name}_aligned, %{name}_offset : index"
    );
}

/// Where operand `name`'s elements start for the loop, as an address: `%{name}_at{rank - 1}`,
/// or `%{name}{copy}_at{rank - 1}` for copy `copy` of an operand indexed by `jam`'s variable.
fn addresses(text: &mut String, name: &str, operand: &Load, jam: Option<MlirValue>, copy: i64) {
    let copied = operand.indices.iter().any(|index| is_jam(*index, jam));
    let own = if copied { format!("{name}{copy}") } else { name.to_string() };
    let indices = indices(operand, name, jam, copy);
    for (k, index) in indices.split(", ").filter(|index| !index.is_empty()).enumerate() {
        let from = if k == 0 { format!("%{name}_at0") } else { format!("%{own}_at{k}") };
        let _ = writeln!(
            text,
            "  %{own}_step{k} = arith.muli {index}, %{name}_strides#{k} : index\n  %{own}_at{} = \
             arith.addi {from}, %{own}_step{k} : index",
            k + 1
        );
    }
}

impl Dot {
    /// The lanes of a vector step: 16, or 8 for fewer channels.
    fn lanes(&self) -> i64 {
        if self.upper - self.lower >= 16 { 16 } else { 8 }
    }

    /// The replacing IR (a `func.func` whose arguments are the memrefs and indices) and the
    /// values it takes: steps of vectors (by `vmladava` with `helium`).
    fn replacement(&self, helium: bool) -> (String, Vec<MlirValue>) {
        let lanes = self.lanes();
        let vector_end = self.lower + (self.upper - self.lower) / lanes * lanes;
        // After steps of 16 lanes, 8 left or more take one step of 8 (the first layer's window
        // of 40: 16 + 16 + 8), which LLVM would otherwise leave as scalar code.
        let half_end = if lanes == 16 && self.upper - vector_end >= 8 { vector_end + 8 } else { vector_end };
        let mut signature = Signature::default();
        let x_type = signature.declare(&self.operands[0], "x", None);
        let y_type = signature.declare(&self.operands[1], "y", None);
        let sum_type = signature.declare(&self.accumulator, "sum", None);
        let x = format!("%x_memref[{}", indices(&self.operands[0], "x", None, 0));
        let y = format!("%y_memref[{}", indices(&self.operands[1], "y", None, 0));
        let sum = format!("%sum_memref[{}]", indices(&self.accumulator, "sum", None, 0).trim_end_matches(", "));
        let Signature { parameters, arguments } = signature;
        let (lower, upper) = (self.lower, self.upper);
        let mut text = format!(
            "func.func @dot({}) {{\n  %lower = arith.constant {lower} : index\n  %vector_end = arith.constant \
             {vector_end} : index\n  %upper = arith.constant {upper} : index\n  %lanes = arith.constant {lanes} : \
             index\n  %one = arith.constant 1 : index\n  %half_end = arith.constant {half_end} : index\n  \
             %half_lanes = arith.constant 8 : index\n  %init = memref.load {sum} : {sum_type}\n",
            parameters.join(", ")
        );
        // Where each operand's elements start for the loop, as an address (`%{name}_at{rank - 1}`):
        // a vector is loaded by `llvm.load` from there (`vector.load` would lower its memref with
        // 64-bit indices).
        for (name, operand, memref_type) in [("x", &self.operands[0], &x_type), ("y", &self.operands[1], &y_type)] {
            strided_metadata(&mut text, name, operand, memref_type);
            addresses(&mut text, name, operand, None, 0);
        }
        // One loop over vectors of `lanes` products, one step of 8 if 8 are left after 16-lane
        // steps (`half_end`), one loop over the products left, each adding into the sum it carries. A vector step of a padded operand
        // reads the input or, where the condition fails, the padding, in two branches: a select
        // between the two would leave LLVM a product it does not recognise as a dot product.
        let accesses = [(&x, &x_type), (&y, &y_type)];
        let padded = self.operands.iter().position(|o| o.padded.is_some());
        let mut loops = vec![("vectors", "lower", "vector_end", "lanes", "init", lanes)];
        if half_end > vector_end {
            loops.push(("halves", "vector_end", "half_end", "half_lanes", "vectors", 8));
        }
        let (last, last_end) = (loops[loops.len() - 1].0, loops[loops.len() - 1].2);
        for (result, from, to, step, init, lanes) in loops {
            // Plain vectors sum the main loop's products lane by lane, reduced once after it,
            // when it takes two steps or more (one step is reduced as it is: LLVM makes it
            // `vpmaddwd` and a reduction of its 8 lanes rather than of 16).
            let sums = !helium && result == "vectors" && vector_end - self.lower >= 2 * lanes;
            let carried = if sums { format!("vector<{lanes}xi32>") } else { "i32".to_string() };
            if sums {
                let _ = writeln!(
                    text,
                    "  %zeros = arith.constant dense<0> : {carried}\n  %lane_sums = scf.for %c = %{from} to %{to} \
                     step %{step} iter_args(%s = %zeros) -> ({carried}) {{"
                );
            } else {
                let _ = writeln!(
                    text,
                    "  %{result} = scf.for %c = %{from} to %{to} step %{step} iter_args(%s = %{init}) -> (i32) {{"
                );
            }
            match padded {
                None => self.step(&mut text, None, (helium, sums), lanes, "t"),
                Some(k) => {
                    let name = ["x", "y"][k];
                    let _ = writeln!(text, "    %t = scf.if %{name}_inside -> ({carried}) {{");
                    self.step(&mut text, None, (helium, sums), lanes, "in");
                    let _ = writeln!(text, "    scf.yield %in : {carried}\n    }} else {{");
                    self.step(&mut text, Some(k), (helium, sums), lanes, "out");
                    let _ = writeln!(text, "    scf.yield %out : {carried}\n    }}");
                }
            }
            let _ = writeln!(text, "    scf.yield %t : {carried}\n  }}");
            if sums {
                let _ =
                    writeln!(text, "  %{result} = vector.reduction <add>, %lane_sums, %{init} : {carried} into i32");
            }
        }
        let _ = writeln!(
            text,
            "  %total = scf.for %c = %{last_end} to %upper step %one iter_args(%s = %{last}) -> (i32) {{"
        );
        for (k, (name, (access, memref_type))) in ["x", "y"].iter().zip(accesses).enumerate() {
            let _ = writeln!(text, "    %{name}_loaded = memref.load {access}%c] : {memref_type}");
            let read = if padded == Some(k) {
                let _ =
                    writeln!(text, "    %{name}_read = arith.select %{name}_inside, %{name}_loaded, %{name}_pad : i8");
                format!("%{name}_read")
            } else {
                format!("%{name}_loaded")
            };
            let _ = writeln!(text, "    %{name}_wide = arith.extsi {read} : i8 to i32");
        }
        let _ = writeln!(
            text,
            "    %p = arith.muli %x_wide, %y_wide : i32\n    %t = arith.addi %s, %p : i32\n    scf.yield %t : i32\n  }}"
        );
        let _ = write!(text, "  memref.store %total, {sum} : {sum_type}\n  return\n}}\n");
        (text, arguments)
    }

    /// One vector step at `%c` into `%{result}`, added to `%s`: the product of both operands'
    /// vectors (from `%{name}_at<rank - 1>`, at the loop's offset), sign-extended, reduced by
    /// `vector.reduction`; or, where operand `pad` reads padding, the padding value times the
    /// sum of the other operand's vector (a different shape, so that LLVM does not merge the two
    /// branches back into a product of a select). With `helium` the product and its sum are
    /// `vmladava` on the bytes (sign-extended to halfwords for 8 lanes), which LLVM keeps whole:
    /// of `vector.reduction` over extended products it recognises the instruction only when the
    /// loads and extensions are in the same block, and it moves them out of the loop over output
    /// channels where the input does not change.
    fn step(&self, text: &mut String, pad: Option<usize>, (helium, sums): (bool, bool), lanes: i64, result: &str) {
        let (narrow, wide) = (format!("vector<{lanes}xi8>"), format!("vector<{lanes}xi32>"));
        if helium && pad.is_none() {
            let operand = if lanes == 16 { narrow.clone() } else { format!("vector<{lanes}xi16>") };
            for name in ["x", "y"] {
                self.vector_load(text, name, &narrow, result);
                if lanes != 16 {
                    let _ = writeln!(
                        text,
                        "    %{name}_half_{result} = arith.extsi %{name}_{result} : {narrow} to {operand}"
                    );
                }
            }
            let read =
                |name: &str| if lanes == 16 { format!("%{name}_{result}") } else { format!("%{name}_half_{result}") };
            let intrinsic = if lanes == 16 { "v16i8" } else { "v8i16" };
            let _ = writeln!(
                text,
                "    %zero_{result} = arith.constant 0 : i32\n    %{result} = llvm.call_intrinsic \
                 \"llvm.arm.mve.vmldava.{intrinsic}\"(%zero_{result}, %zero_{result}, %zero_{result}, %s, {}, {}) : \
                 (i32, i32, i32, i32, {operand}, {operand}) -> i32",
                read("x"),
                read("y")
            );
            return;
        }
        for (k, name) in ["x", "y"].into_iter().enumerate() {
            if pad == Some(k) {
                continue;
            }
            self.vector_load(text, name, &narrow, result);
            let _ = writeln!(text, "    %{name}_wide_{result} = arith.extsi %{name}_{result} : {narrow} to {wide}");
        }
        match pad {
            None if sums => {
                let _ = writeln!(
                    text,
                    "    %p_{result} = arith.muli %x_wide_{result}, %y_wide_{result} : {wide}\n    %{result} = \
                     arith.addi %s, %p_{result} : {wide}"
                );
            }
            None => {
                let _ = writeln!(
                    text,
                    "    %p_{result} = arith.muli %x_wide_{result}, %y_wide_{result} : {wide}\n    %{result} = \
                     vector.reduction <add>, %p_{result}, %s : {wide} into i32"
                );
            }
            Some(k) => {
                let (padded, other) = if k == 0 { ("x", "y") } else { ("y", "x") };
                let _ = writeln!(
                    text,
                    "    %sum_{result} = vector.reduction <add>, %{other}_wide_{result} : {wide} into i32\n    \
                     %{padded}_pad_wide_{result} = arith.extsi %{padded}_pad : i8 to i32\n    \
                     %p_{result} = arith.muli %sum_{result}, %{padded}_pad_wide_{result} : i32"
                );
                if sums {
                    // Summed into lane 0: the lanes' total is the same, and the branch's shape
                    // differs from the other's, which LLVM would otherwise merge with it into a
                    // product of a select (x86: no longer `vpmaddwd`).
                    let _ = writeln!(
                        text,
                        "    %zeros_{result} = arith.constant dense<0> : {wide}\n    \
                         %lane_{result} = vector.insert %p_{result}, %zeros_{result} [0] : i32 into {wide}\n    \
                         %{result} = arith.addi %s, %lane_{result} : {wide}"
                    );
                } else {
                    let _ = writeln!(text, "    %{result} = arith.addi %s, %p_{result} : i32");
                }
            }
        }
    }

    /// Operand `name`'s vector of `narrow` at `%c` into `%{name}_{result}`: element `%c` along the
    /// loop's dimension (of stride 1), past where the other indices put it.
    fn vector_load(&self, text: &mut String, name: &str, narrow: &str, result: &str) {
        let start = self.operands[usize::from(name == "y")].indices.len();
        let _ = writeln!(
            text,
            "    %{name}_address_{result} = arith.addi %{name}_at{start}, %c : index\n    %{name}_int_{result} = \
             arith.index_cast %{name}_address_{result} : index to i64\n    %{name}_pointer_{result} = \
             llvm.inttoptr %{name}_int_{result} : i64 to !llvm.ptr\n    %{name}_{result} = llvm.load \
             %{name}_pointer_{result} {{alignment = 1 : i64}} : !llvm.ptr -> {narrow}"
        );
    }
}

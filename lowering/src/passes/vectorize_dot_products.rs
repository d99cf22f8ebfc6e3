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
//! code). A padded operand's word is the padding byte four times where its condition fails.
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
use umac_dialects::ir::{collect, constant_int, defined_inside, name, op_name, produced_by, splice, type_text};

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

/// The most DSP steps (four channels each) `unroll` unrolls fully: a pointwise convolution's 64
/// input channels (KWS on Cortex-M4: 8.35M -> 7.02M instructions) and a fully connected layer's 128
/// (AD: 634K -> 534K, .text 2.5 -> 11.2 KB). Unrolled, the input's words and their sign-extended
/// halves are the same at every output channel, and LLVM computes them once per pixel.
const UNROLLED_DSP_STEPS: i64 = 32;

impl UmacPass for VectorizeDotProducts {
    fn run(&mut self, operation: OperationRef) -> Result<(), Error> {
        for raw in collect(operation, |op| op_name(op) == "scf.for") {
            // SAFETY: each loop is live until it is replaced; loops are innermost, so replacing
            // one leaves the others (collected before) alive.
            unsafe {
                let Some(dot) = match_loop(raw) else { continue };
                let (text, arguments) = dot.replacement(self.dsp, self.unroll, self.helium);
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
/// and the int32 accumulator (its indices all of them).
struct Dot {
    lower: i64,
    upper: i64,
    operands: [Load; 2],
    accumulator: Load,
}

/// The dot product `raw` (an `scf.for`) computes, if it is exactly one: step 1, constant bounds
/// at least 8 apart, no results, a body of two int8 loads along the loop (stride 1; either may be
/// selected against a padding value by a condition defined outside the loop), their sign
/// extensions, their product, and the accumulator's load, sum and store at indices defined
/// outside the loop.
///
/// # Safety
/// `raw` must be a live `scf.for`.
unsafe fn match_loop(raw: MlirOperation) -> Option<Dot> {
    unsafe {
        let bound = |k: isize| constant_int(mlirOperationGetOperand(raw, k));
        let (lower, upper) = match (bound(0), bound(1), bound(2)) {
            (Some(lower), Some(upper), Some(1)) if upper - lower >= 8 => (lower, upper),
            _ => return None,
        };
        if mlirOperationGetNumResults(raw) != 0 || mlirOperationGetNumOperands(raw) != 3 {
            return None;
        }
        let block = mlirRegionGetFirstBlock(mlirOperationGetRegion(raw, 0));
        let iv = mlirBlockGetArgument(block, 0);
        let mut ops = Vec::new();
        let mut op = mlirBlockGetFirstOperation(block);
        while !op.ptr.is_null() {
            ops.push(op);
            op = mlirOperationGetNextInBlock(op);
        }
        // Two loads (each maybe selected against padding), two extensions, the product, the
        // accumulator's load, the sum, the store and the terminator.
        let store = *ops.get(ops.len().checked_sub(2)?)?;
        if !(9..=11).contains(&ops.len()) || name(store) != "memref.store" {
            return None;
        }
        let outside = |value: MlirValue| !defined_inside(value, raw);
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
        if !same_place || !accumulator.indices.iter().all(|v| outside(*v)) || !is_integer(element, 32) {
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
                if !(outside(condition) && outside(pad)) {
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
        Some(Dot { lower, upper, operands, accumulator })
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

/// One DSP step at `%c` into `%t`, added to `%s`: four int8 of each operand loaded as one word
/// (from `%{name}_at<indices>`; for a padded operand, where its condition fails, the padding
/// byte four times instead, its load being in bounds), their even and odd bytes sign-extended
/// into halfword pairs (`sxtb16`, and `sxtb16` of the word rotated by 8), each pair of products
/// added by `smlad`.
fn dsp_step(text: &mut String, operands: &[Load; 2]) {
    let _ = writeln!(text, "    %eight = arith.constant 8 : i32");
    for (name, operand) in ["x", "y"].into_iter().zip(operands) {
        let start = operand.indices.len();
        let _ = writeln!(
            text,
            "    %{name}_address = arith.addi %{name}_at{start}, %c : index\n    %{name}_int = arith.index_cast \
             %{name}_address : index to i64\n    %{name}_pointer = llvm.inttoptr %{name}_int : i64 to !llvm.ptr\n    \
             %{name}_loaded = llvm.load %{name}_pointer {{alignment = 1 : i64}} : !llvm.ptr -> i32"
        );
        let word = if operand.padded.is_some() {
            let _ = writeln!(
                text,
                "    %{name}_pad32 = arith.extui %{name}_pad : i8 to i32\n    %{name}_bytes = arith.constant 16843009 : \
                 i32\n    %{name}_pad_word = arith.muli %{name}_pad32, %{name}_bytes : i32\n    %{name}_word = \
                 arith.select %{name}_inside, %{name}_loaded, %{name}_pad_word : i32"
            );
            format!("%{name}_word")
        } else {
            format!("%{name}_loaded")
        };
        let _ = writeln!(
            text,
            "    %{name}_even = llvm.call_intrinsic \"llvm.arm.sxtb16\"({word}) : (i32) -> i32\n    \
             %{name}_rotated = llvm.intr.fshr({word}, {word}, %eight) : (i32, i32, i32) -> i32\n    \
             %{name}_odd = llvm.call_intrinsic \"llvm.arm.sxtb16\"(%{name}_rotated) : (i32) -> i32"
        );
    }
    let _ = writeln!(
        text,
        "    %half = llvm.call_intrinsic \"llvm.arm.smlad\"(%x_even, %y_even, %s) : (i32, i32, i32) -> i32\n    \
         %t = llvm.call_intrinsic \"llvm.arm.smlad\"(%x_odd, %y_odd, %half) : (i32, i32, i32) -> i32"
    );
}

impl Dot {
    /// The lanes of a vector step: 16, or 8 for fewer channels.
    fn lanes(&self) -> i64 {
        if self.upper - self.lower >= 16 { 16 } else { 8 }
    }

    /// The replacing IR (a `func.func` whose arguments are the memrefs and indices) and the
    /// values it takes: steps of vectors (by `vmladava` with `helium`), or with `dsp` of four
    /// products by the DSP extension (unrolled with `unroll` up to [`UNROLLED_DSP_STEPS`]).
    fn replacement(&self, dsp: bool, unroll: bool, helium: bool) -> (String, Vec<MlirValue>) {
        let lanes = if dsp { 4 } else { self.lanes() };
        let vector_end = self.lower + (self.upper - self.lower) / lanes * lanes;
        // After steps of 16 lanes, 8 left or more take one step of 8 (the first layer's window
        // of 40: 16 + 16 + 8), which LLVM would otherwise leave as scalar code.
        let half_end = if !dsp && lanes == 16 && self.upper - vector_end >= 8 { vector_end + 8 } else { vector_end };
        let mut arguments = Vec::new();
        let mut parameters = Vec::new();
        // Each load's memref and indices as `%name[%i0, ...` (the loop's variable follows), and
        // for a padded operand its condition and padding value.
        let mut access = |load: &Load, name: &str| {
            // SAFETY: the memref is live (the loop being replaced reads it).
            let ty = type_text(unsafe { mlirValueGetType(load.memref) });
            parameters.push(format!("%{name}_memref: {ty}"));
            arguments.push(load.memref);
            let mut text = format!("%{name}_memref[");
            for (k, index) in load.indices.iter().enumerate() {
                parameters.push(format!("%{name}_{k}: index"));
                arguments.push(*index);
                let _ = write!(text, "%{name}_{k}, ");
            }
            if let Some((condition, pad)) = load.padded {
                parameters.extend([format!("%{name}_inside: i1"), format!("%{name}_pad: i8")]);
                arguments.extend([condition, pad]);
            }
            (text, ty)
        };
        let (x, x_type) = access(&self.operands[0], "x");
        let (y, y_type) = access(&self.operands[1], "y");
        let (sum, sum_type) = access(&self.accumulator, "sum");
        let sum = format!("{}]", sum.trim_end_matches(", "));
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
            let rank = operand.indices.len() + 1;
            let indices = vec!["index"; 1 + 2 * rank].join(", ");
            let _ = writeln!(
                text,
                "  %{name}_base, %{name}_offset, %{name}_sizes:{rank}, %{name}_strides:{rank} = \
                 memref.extract_strided_metadata %{name}_memref : {memref_type} -> memref<i8>, {indices}\n  \
                 %{name}_aligned = memref.extract_aligned_pointer_as_index %{name}_memref : {memref_type} -> index\n  \
                 %{name}_at0 = arith.addi %{name}_aligned, %{name}_offset : index"
            );
            for k in 0..rank - 1 {
                let _ = writeln!(
                    text,
                    "  %{name}_step{k} = arith.muli %{name}_{k}, %{name}_strides#{k} : index\n  %{name}_at{} = \
                     arith.addi %{name}_at{k}, %{name}_step{k} : index",
                    k + 1
                );
            }
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
            let sums = !dsp && !helium && result == "vectors" && vector_end - self.lower >= 2 * lanes;
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
                _ if dsp => dsp_step(&mut text, &self.operands),
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
            let annotation =
                if dsp && unroll && result == "vectors" && (vector_end - self.lower) / lanes <= UNROLLED_DSP_STEPS {
                    " {loop_annotation = #llvm.loop_annotation<unroll = <full = true>>}"
                } else {
                    ""
                };
            let _ = writeln!(text, "    scf.yield %t : {carried}\n  }}{annotation}");
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

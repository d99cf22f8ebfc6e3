//! Dot products on the DSP extension (Cortex-M4, M7, M33): four products a step, one word of
//! each operand, its even and odd bytes sign-extended into halfword pairs (`sxtb16`, and
//! `sxtb16` of the word rotated by 8), each pair multiplied and added to the sum by `smlad`.
//! A jammed tile's dot products (a few output channels side by side) load and extend the shared
//! operand's word once for all of them: per four products of each, 3 instructions for the input
//! and 5 per channel (13 for two channels' 8 products, 16 one at a time).

use super::{Dot, Load, Signature, addresses, indices, strided_metadata};
use crate::schedule::UNROLLED_DSP_STEPS;
use mlir_sys::MlirValue;
use std::fmt::Write as _;

/// The replacing IR for `dot` and the values it takes: a loop of four products a step carrying
/// each of its dot products' sums, then a scalar loop for the products left over. With `unroll`
/// the loop is unrolled fully up to [`UNROLLED_DSP_STEPS`] steps (of all its dot products), but
/// kept rolled where it reads
/// through padding (the borders `umac-split-borders` copies nine times around the interior): IC
/// on Cortex-M4 takes 27.27M instructions and 48.7 KB of .text so, 26.34M and 67.7 KB with
/// every loop unrolled, 26.31M and 60.8 KB with the borders' left to LLVM.
pub(super) fn replacement(dot: &Dot, unroll: bool) -> (String, Vec<MlirValue>) {
    let jam = dot.jam.as_ref().map(|jam| jam.iv);
    let copies = dot.jam.as_ref().map_or(1, |jam| jam.count);
    let steps_end = dot.lower + (dot.upper - dot.lower) / 4 * 4;
    let mut signature = Signature::default();
    let names = ["x", "y"];
    let types: Vec<String> =
        names.iter().zip(&dot.operands).map(|(name, load)| signature.declare(load, name, jam)).collect();
    let sum_type = signature.declare(&dot.accumulator, "sum", jam);
    let Signature { parameters, arguments } = signature;
    let (lower, upper) = (dot.lower, dot.upper);
    let mut text = format!(
        "func.func @dot({}) {{\n  %lower = arith.constant {lower} : index\n  %steps_end = arith.constant {steps_end} \
         : index\n  %upper = arith.constant {upper} : index\n  %four = arith.constant 4 : index\n  %one = \
         arith.constant 1 : index\n  %eight = arith.constant 8 : i32\n",
        parameters.join(", ")
    );
    for copy in 0..copies {
        let _ = writeln!(text, "  %j{copy} = arith.constant {copy} : index");
    }
    let sum_at =
        |copy: i64| format!("%sum_memref[{}]", indices(&dot.accumulator, "sum", jam, copy).trim_end_matches(", "));
    for copy in 0..copies {
        let _ = writeln!(text, "  %init{copy} = memref.load {} : {sum_type}", sum_at(copy));
    }
    for ((name, operand), memref_type) in names.iter().zip(&dot.operands).zip(&types) {
        strided_metadata(&mut text, name, operand, memref_type);
        for copy in 0..copied(operand, jam, copies) {
            addresses(&mut text, name, operand, jam, copy);
        }
    }
    let carried = vec!["i32"; copies as usize].join(", ");
    let sums = |prefix: &str| (0..copies).map(|copy| format!("%{prefix}{copy}")).collect::<Vec<_>>();
    let iter_args = |from: &[String]| {
        (0..copies as usize).map(|copy| format!("%s{copy} = {}", from[copy])).collect::<Vec<_>>().join(", ")
    };
    let _ = writeln!(
        text,
        "  %steps:{copies} = scf.for %c = %lower to %steps_end step %four iter_args({}) -> ({carried}) {{",
        iter_args(&sums("init"))
    );
    // The words and their halves, once per operand and copy of it.
    let mut halves = Vec::new();
    for (name, operand) in names.iter().zip(&dot.operands) {
        let own = copied(operand, jam, copies);
        halves.push((0..copies).map(|copy| own_name(name, own, copy)).collect::<Vec<_>>());
        for copy in 0..own {
            step_halves(&mut text, &own_name(name, own, copy), name, operand);
        }
    }
    for (copy, (x, y)) in halves[0].iter().zip(&halves[1]).enumerate() {
        let _ = writeln!(
            text,
            "    %half{copy} = llvm.call_intrinsic \"llvm.arm.smlad\"(%{x}_even, %{y}_even, %s{copy}) : (i32, i32, i32) \
             -> i32\n    %t{copy} = llvm.call_intrinsic \"llvm.arm.smlad\"(%{x}_odd, %{y}_odd, %half{copy}) : (i32, \
             i32, i32) -> i32"
        );
    }
    let padded = dot.operands.iter().any(|o| o.padded.is_some());
    let annotation = if unroll && padded {
        " {loop_annotation = #llvm.loop_annotation<unroll = <disable = true>>}"
    } else if unroll && (steps_end - dot.lower) / 4 * copies <= UNROLLED_DSP_STEPS {
        " {loop_annotation = #llvm.loop_annotation<unroll = <full = true>>}"
    } else {
        ""
    };
    let _ = writeln!(text, "    scf.yield {} : {carried}\n  }}{annotation}", sums("t").join(", "));
    // The products left over, one at a time.
    let steps: Vec<String> = (0..copies).map(|copy| format!("%steps#{copy}")).collect();
    let _ = writeln!(
        text,
        "  %total:{copies} = scf.for %c = %steps_end to %upper step %one iter_args({}) -> ({carried}) {{",
        iter_args(&steps)
    );
    for ((name, operand), memref_type) in names.iter().zip(&dot.operands).zip(&types) {
        let own = copied(operand, jam, copies);
        for copy in 0..own {
            let value = own_name(name, own, copy);
            let at = format!("%{name}_memref[{}%c]", indices(operand, name, jam, copy));
            let _ = writeln!(text, "    %{value}_loaded = memref.load {at} : {memref_type}");
            let read = if operand.padded.is_some() {
                let _ = writeln!(
                    text,
                    "    %{value}_read = arith.select %{name}_inside, %{value}_loaded, %{name}_pad : i8"
                );
                format!("%{value}_read")
            } else {
                format!("%{value}_loaded")
            };
            let _ = writeln!(text, "    %{value}_wide = arith.extsi {read} : i8 to i32");
        }
    }
    for (copy, (x, y)) in halves[0].iter().zip(&halves[1]).enumerate() {
        let _ = writeln!(
            text,
            "    %p{copy} = arith.muli %{x}_wide, %{y}_wide : i32\n    %t{copy} = arith.addi %s{copy}, %p{copy} : i32"
        );
    }
    let _ = writeln!(text, "    scf.yield {} : {carried}\n  }}", sums("t").join(", "));
    for copy in 0..copies {
        let _ = writeln!(text, "  memref.store %total#{copy}, {} : {sum_type}", sum_at(copy));
    }
    text.push_str("  return\n}\n");
    (text, arguments)
}

/// How many copies of `operand` a jammed tile reads: one per dot product where it is indexed by
/// the tile's variable (the filter), one otherwise (the shared input).
fn copied(operand: &Load, jam: Option<MlirValue>, copies: i64) -> i64 {
    if operand.indices.iter().any(|index| super::is_jam(*index, jam)) { copies } else { 1 }
}

/// The name of copy `copy` of operand `name` read `own` times (the only copy serves every dot
/// product).
fn own_name(name: &str, own: i64, copy: i64) -> String {
    if own > 1 { format!("{name}{copy}") } else { name.to_string() }
}

/// One step's word of operand `name` as `value` (the copy's name) at `%c`, from
/// `%{value}_at<indices>` (for a padded operand, where its condition fails, the padding byte four
/// times instead, its load being in bounds), and its halves `%{value}_even`, `%{value}_odd`.
fn step_halves(text: &mut String, value: &str, name: &str, operand: &Load) {
    let start = operand.indices.len();
    let _ = writeln!(
        text,
        "    %{value}_address = arith.addi %{value}_at{start}, %c : index\n    %{value}_int = arith.index_cast \
         %{value}_address : index to i64\n    %{value}_pointer = llvm.inttoptr %{value}_int : i64 to !llvm.ptr\n    \
         %{value}_loaded = llvm.load %{value}_pointer {{alignment = 1 : i64}} : !llvm.ptr -> i32"
    );
    let word = if operand.padded.is_some() {
        let _ = writeln!(
            text,
            "    %{value}_pad32 = arith.extui %{name}_pad : i8 to i32\n    %{value}_bytes = arith.constant 16843009 : \
             i32\n    %{value}_pad_word = arith.muli %{value}_pad32, %{value}_bytes : i32\n    %{value}_word = \
             arith.select %{name}_inside, %{value}_loaded, %{value}_pad_word : i32"
        );
        format!("%{value}_word")
    } else {
        format!("%{value}_loaded")
    };
    let _ = writeln!(
        text,
        "    %{value}_even = llvm.call_intrinsic \"llvm.arm.sxtb16\"({word}) : (i32) -> i32\n    \
         %{value}_rotated = llvm.intr.fshr({word}, {word}, %eight) : (i32, i32, i32) -> i32\n    \
         %{value}_odd = llvm.call_intrinsic \"llvm.arm.sxtb16\"(%{value}_rotated) : (i32) -> i32"
    );
}

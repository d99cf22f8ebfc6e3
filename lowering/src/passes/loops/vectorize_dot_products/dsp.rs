//! Dot products on the DSP extension (Cortex-M4, M7, M33): four products a step, one word of
//! each operand, its even and odd bytes sign-extended into halfword pairs (`sxtb16`, and
//! `sxtb16` of the word rotated by 8), each pair multiplied and added to the sum by `smlad`.
//! A jammed tile's dot products (a few output channels side by side) load and extend the shared
//! operand's word once for all of them: per four products of each, 3 instructions for the input
//! and 5 per channel (13 for two channels' 8 products, 16 one at a time).

use super::{Dot, Load, address, load_at, scalar_read};
use crate::schedule::UNROLLED_DSP_STEPS;
use mlir_sys::MlirValue;
use umac_dialects::build::{Attr, Builder, Ty, Value};

/// Writes the replacing loops for `dot` in front of its loop: a loop of four products a step
/// carrying each of its dot products' sums, then a scalar loop for the products left over. With
/// `unroll` the loop is unrolled fully up to [`UNROLLED_DSP_STEPS`] steps (of all its dot
/// products), but kept rolled where it reads through padding (the borders `umac-split-borders`
/// copies nine times around the interior): IC on Cortex-M4 takes 27.27M instructions and 48.7
/// KB of .text so, 26.34M and 67.7 KB with every loop unrolled, 26.31M and 60.8 KB with the
/// borders' left to LLVM.
pub(super) fn replace(b: &mut Builder, dot: &Dot, unroll: bool) {
    let jam = dot.jam.as_ref().map(|jam| jam.iv);
    let copies = dot.jam.as_ref().map_or(1, |jam| jam.count);
    let steps_end = dot.lower + (dot.upper - dot.lower) / 4 * 4;
    let [lower, steps_end_at, upper, four, one] =
        [dot.lower, steps_end, dot.upper, 4, 1].map(|k| b.constant(Ty::Index, k));
    let eight = b.constant(Ty::I32, 8);
    let numbers: Vec<Value> = (0..copies).map(|copy| b.constant(Ty::Index, copy)).collect();
    let sum = dot.accumulator.memref(b);
    let sum_at: Vec<Vec<Value>> =
        numbers.iter().map(|j| [&[sum][..], &dot.accumulator.indices(b, jam, *j)].concat()).collect();
    let inits: Vec<Value> = sum_at.iter().map(|at| b.op1("memref.load", at, Ty::I32, &[])).collect();
    // Each operand's addresses, one per copy of it.
    let mut at: Vec<Vec<Value>> = Vec::new();
    for operand in &dot.operands {
        let metadata = operand.strided_metadata(b);
        let own = copied(operand, jam, copies);
        at.push((0..own as usize).map(|copy| address(b, &metadata, &operand.indices(b, jam, numbers[copy]))).collect());
    }
    let padded = dot.operands.iter().any(|o| o.padded.is_some());
    let annotation = if unroll && padded {
        Some("#llvm.loop_annotation<unroll = <disable = true>>")
    } else if unroll && (steps_end - dot.lower) / 4 * copies <= UNROLLED_DSP_STEPS {
        Some("#llvm.loop_annotation<unroll = <full = true>>")
    } else {
        None
    };
    let attributes: Vec<(&str, Attr)> = annotation.map(|a| ("loop_annotation", Attr::Parsed(a))).into_iter().collect();
    let steps = b.for_loop([lower, steps_end_at, four], &inits, &attributes, |b, c, s| {
        // The words and their halves, once per operand and copy of it.
        let halves: Vec<Vec<[Value; 2]>> = dot
            .operands
            .iter()
            .zip(&at)
            .map(|(operand, at)| at.iter().map(|at| step_halves(b, *at, c, operand, eight)).collect())
            .collect();
        (0..copies as usize)
            .map(|copy| {
                let ([x_even, x_odd], [y_even, y_odd]) = (own(&halves[0], copy), own(&halves[1], copy));
                let half = b.call_intrinsic("llvm.arm.smlad", &[x_even, y_even, s[copy]], Ty::I32);
                b.call_intrinsic("llvm.arm.smlad", &[x_odd, y_odd, half], Ty::I32)
            })
            .collect()
    });
    // The products left over, one at a time.
    let total = b.for_loop([steps_end_at, upper, one], &steps, &[], |b, c, s| {
        let wide: Vec<Vec<Value>> = dot
            .operands
            .iter()
            .map(|operand| {
                let own = copied(operand, jam, copies) as usize;
                (0..own).map(|copy| scalar_read(b, operand, &operand.indices(b, jam, numbers[copy]), c)).collect()
            })
            .collect();
        (0..copies as usize)
            .map(|copy| {
                let p = b.muli(own(&wide[0], copy), own(&wide[1], copy));
                b.addi(s[copy], p)
            })
            .collect()
    });
    for (value, at) in total.iter().zip(&sum_at) {
        b.op("memref.store", &[&[*value][..], at].concat(), &[], &[]);
    }
}

/// How many copies of `operand` a jammed tile reads: one per dot product where it is indexed by
/// the tile's variable (the filter), one otherwise (the shared input).
fn copied(operand: &Load, jam: Option<MlirValue>, copies: i64) -> i64 {
    if operand.indices.iter().any(|index| super::is_jam(*index, jam)) { copies } else { 1 }
}

/// Copy `copy` of an operand's values, one per copy it has (the only copy serves every dot
/// product).
fn own<T: Copy>(values: &[T], copy: usize) -> T {
    values[copy.min(values.len() - 1)]
}

/// One step's word of `operand` at `c` past the address `at` (for a padded operand, where its
/// condition fails, the padding byte four times instead, its load being in bounds), and its
/// halves `[even, odd]`: `sxtb16` of it and of it rotated by `eight`.
fn step_halves(b: &mut Builder, at: Value, c: Value, operand: &Load, eight: Value) -> [Value; 2] {
    let loaded = load_at(b, at, c, Ty::I32);
    let word = match operand.padding(b) {
        Some((inside, pad)) => {
            let pad32 = b.op1("arith.extui", &[pad], Ty::I32, &[]);
            let bytes = b.constant(Ty::I32, 0x0101_0101);
            let pad_word = b.muli(pad32, bytes);
            b.select(inside, loaded, pad_word)
        }
        None => loaded,
    };
    let even = b.call_intrinsic("llvm.arm.sxtb16", &[word], Ty::I32);
    let rotated = b.op1("llvm.intr.fshr", &[word, word, eight], Ty::I32, &[]);
    [even, b.call_intrinsic("llvm.arm.sxtb16", &[rotated], Ty::I32)]
}

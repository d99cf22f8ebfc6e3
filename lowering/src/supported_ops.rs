//! The TOSA operators umac compiles and is tested on: one row per operator of the official TOSA
//! conformance set (`test/tosa-conformance`, which runs on both host engines and, for integer
//! cases, as firmware for `tynnp,rv32im` on the simulator), with what umac adds to MLIR 22's own
//! lowering of it. `docs/supported-ops.md` is generated from this table, the conformance cases and the
//! accelerators' patterns; `tools/tests/docs` checks that the table names exactly the
//! conformance set's operators and every TOSA operator of the test models.
//!
//! Other TOSA operators that MLIR 22's TOSA lowering takes may compile, untested; one it does not
//! take is an error at the op (`failed to legalize operation 'tosa.custom'`).

/// One TOSA operator umac supports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TosaOp {
    /// Its name, `tosa.conv2d`.
    pub name: &'static str,
    /// What umac does with it beyond MLIR 22's `tosa-to-linalg`, and its limits (empty: nothing),
    /// for the docs.
    pub note: &'static str,
}

const fn op(name: &'static str, note: &'static str) -> TosaOp {
    TosaOp { name, note }
}

/// A convolution: what the firmware lowering does with it.
const CONV: &str = "padding read in place (`umac-fold-padding`), zero points folded into the accumulator \
                    (`umac-fold-zero-points`), computed with its bias, rescale and clamp one output element at a time, \
                    no int32 accumulator tensor (`umac-tile-and-fuse`); int8 dot products as Helium vectors or DSP \
                    pairs (`umac-vectorize-dot-products`); a first layer over few input channels through a per-pixel \
                    patch (`umac-im2col`)";

/// A depthwise convolution.
const DEPTHWISE: &str = "padding read in place (`umac-fold-padding`), zero points folded into the accumulator \
                         (`umac-fold-zero-points`), computed with its bias, rescale and clamp one output element at a \
                         time (`umac-tile-and-fuse`); on Cortex-M55/M85 one pixel at a time, channels innermost, as \
                         vectors (`umac-channels-innermost`, `umac-vectorize-elementwise-loops`)";

/// A pooling.
const POOLING: &str = "padding read in place (`umac-fold-padding`), computed with the elementwise ops after it one output \
                       element at a time (`umac-tile-and-fuse`); on Cortex-M55/M85 one pixel at a time, channels \
                       innermost, as vectors (`umac-channels-innermost`, `umac-vectorize-elementwise-loops`)";

/// Every supported TOSA operator, sorted by name.
pub const TOSA_OPS: &[TosaOp] = &[
    op("tosa.abs", ""),
    op("tosa.add", ""),
    op("tosa.argmax", ""),
    op("tosa.arithmetic_right_shift", ""),
    op("tosa.avg_pool2d", POOLING),
    op("tosa.cast", "float to integer rounds in integer arithmetic on firmware (`umac-expand-rounding`: no libm)"),
    op("tosa.clamp", ""),
    op("tosa.clz", ""),
    op(
        "tosa.concat",
        "an operand whose part of the result is one run of bytes (outer dimensions of one element) is written there, not copied (`umac-elide-slice-copies`)",
    ),
    op("tosa.conv2d", CONV),
    op("tosa.depthwise_conv2d", DEPTHWISE),
    op("tosa.equal", ""),
    op("tosa.exp", "float arithmetic on firmware, no libm (`umac-expand-exp-tanh`)"),
    op("tosa.gather", ""),
    op("tosa.greater", ""),
    op("tosa.logical_left_shift", ""),
    op("tosa.matmul", "computed with the elementwise ops after it one output element at a time (`umac-tile-and-fuse`)"),
    op("tosa.max_pool2d", POOLING),
    op("tosa.maximum", ""),
    op("tosa.minimum", ""),
    op("tosa.mul", ""),
    op("tosa.negate", ""),
    op("tosa.pad", ""),
    op("tosa.reciprocal", ""),
    op("tosa.reduce_max", ""),
    op(
        "tosa.reduce_sum",
        "a sum of requantized values reads the narrow values, not the int32 accumulators \
         (`umac-narrow-reduction-inputs`)",
    ),
    op(
        "tosa.rescale",
        "32-bit arithmetic on Cortex-M (`umac-apply-scale-32`, Helium's `vqrdmulh`/`vrshl` on M55/M85); \
         SINGLE_ROUND and DOUBLE_ROUND (INEXACT_ROUND untested)",
    ),
    op("tosa.reshape", "a reshaped result is written in the caller's buffer (`umac-elide-output-copies`)"),
    op("tosa.select", ""),
    op("tosa.sigmoid", "float arithmetic on firmware, no libm (`umac-expand-exp-tanh`)"),
    op("tosa.slice", "`-1` sizes resolved first (`umac-resolve-slice-sizes`)"),
    op("tosa.sub", ""),
    op("tosa.table", ""),
    op("tosa.tanh", "float arithmetic on firmware, no libm (`umac-expand-exp-tanh`)"),
    op("tosa.tile", ""),
    op("tosa.transpose", ""),
    op(
        "tosa.transpose_conv2d",
        "decomposed by umac into a convolution over a zero-inserted input (`umac-decompose-transpose-conv2d`: \
         MLIR 22's own decomposition breaks on int16)",
    ),
];

/// The row of TOSA operator `name` (`tosa.conv2d`), if umac supports it.
pub fn tosa_op(name: &str) -> Option<&'static TosaOp> {
    TOSA_OPS.iter().find(|op| op.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorted_unique_and_found() {
        assert!(TOSA_OPS.windows(2).all(|w| w[0].name < w[1].name), "sorted by name, each once");
        assert!(TOSA_OPS.iter().all(|op| op.name.starts_with("tosa.")));
        assert_eq!(tosa_op("tosa.conv2d").map(|op| op.note), Some(CONV));
        assert_eq!(tosa_op("tosa.custom"), None);
    }
}

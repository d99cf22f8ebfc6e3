//! What umac's CPU schedule passes agree on: each is the decision of one pass that another builds
//! on, kept here so that no pass reads another's internals.

/// The most output channels of a convolution tile `umac-channels-innermost` puts innermost (and
/// `umac-vectorize-dot-products` jams): the dot products computed side by side, each carrying its
/// sum in a register.
pub const MAX_JAMMED_CHANNELS: i64 = 4;

/// The most DSP steps (four channels each, counted for every dot product of a jammed tile)
/// `umac-vectorize-dot-products{unroll}` unrolls fully (and `umac-tile-and-fuse` hoists inputs
/// for): a pointwise convolution's 64 input channels (KWS on Cortex-M4: 8.35M
/// -> 7.02M instructions) and a fully connected layer's 128 (AD: 634K -> 534K, .text 2.5 -> 11.2
/// KB). Unrolled, the input's words and their sign-extended halves are the same at every output
/// channel, and LLVM computes them once per pixel. Two output channels side by side over 128
/// channels stay rolled: AD took 456K instructions and 17.0 KB of .text unrolled, 532K and 4.1 KB
/// rolled (a 3x3 window over 64 channels, IC's, is unrolled: 27.27M instructions, 27.48M with
/// half the steps).
pub const UNROLLED_DSP_STEPS: i64 = 32;

/// What `umac-im2col` names the patch's gather in `umac.op` (`umac-tile-and-fuse` computes it
/// per pixel).
pub const PATCH_OP: &str = "im2col";

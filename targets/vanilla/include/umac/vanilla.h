/* The vanilla accelerator's kernel: what `targets/vanilla` calls for each int8 convolution it
 * claims. A real accelerator's driver would program the hardware here; vanilla computes in C, so
 * the same object runs on the host (umac's JITs link it in) and in firmware.
 *
 * Semantics are TOSA 1.0's CONV2D (int8 input and weights, int32 accumulator, out-of-bounds
 * taps contribute nothing), then an optional ADD of an int32 constant, an optional RESCALE to int8
 * (scale32, per-tensor or per-channel, single or double rounding) and a clamp. int32 arithmetic
 * wraps, as in umac's own lowering, so results are bit-identical with the CPU path. */
#ifndef UMAC_VANILLA_H
#define UMAC_VANILLA_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Buffers (destination-passing style: the output is written, nothing is allocated):
 *   input [batch][in_h][in_w][in_c] int8, filter [out_c][k_h][k_w][in_c] int8,
 *   bias [bias_len] int32 (1: broadcast, out_c: per channel), input_zp[1], filter_zp[1] int8,
 *   add [add_len] int32 (0: no add), multiplier/shift [scale_len] int32/int8,
 *   rescale_input_zp[1] int32, output_zp[1] int8 (read only when rounding != 0),
 *   output [batch][out_h][out_w][out_c]: int8 when rounding != 0, else int32.
 * rounding: 0 no rescale, 1 SINGLE_ROUND, 2 DOUBLE_ROUND. The clamp bounds apply to the output. */
void vanilla_conv2d_s8(const int8_t *input, const int8_t *filter, const int32_t *bias, const int8_t *input_zp,
                       const int8_t *filter_zp, const int32_t *add, const int32_t *multiplier, const int8_t *shift,
                       const int32_t *rescale_input_zp, const int8_t *output_zp, int32_t batch, int32_t in_h,
                       int32_t in_w, int32_t in_c, int32_t out_h, int32_t out_w, int32_t out_c, int32_t k_h,
                       int32_t k_w, int32_t pad_top, int32_t pad_left, int32_t stride_h, int32_t stride_w,
                       int32_t dilation_h, int32_t dilation_w, int32_t bias_len, int32_t add_len, int32_t rounding,
                       int32_t scale_len, int32_t clamp_min, int32_t clamp_max, void *output);

#ifdef __cplusplus
}
#endif

#endif

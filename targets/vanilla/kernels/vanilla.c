/* The vanilla accelerator's kernel (see include/umac/vanilla.h). Freestanding C99: no libc
 * calls, so it links into bare-metal firmware as it is. */
#include "umac/vanilla.h"

/* TOSA apply_scale_32, computed as umac's lowering of tosa.apply_scale does (64-bit product,
 * arithmetic shift, truncation to 32 bits). */
static int32_t apply_scale(int32_t value, int32_t multiplier, int32_t shift, int32_t double_round) {
    int64_t round = shift > 0 ? (int64_t)1 << (shift - 1) : 0;
    if (double_round && shift > 31) {
        round += value >= 0 ? ((int64_t)1 << 30) : -((int64_t)1 << 30);
    }
    int64_t result = (int64_t)value * (int64_t)multiplier + round;
    return (int32_t)(uint32_t)(uint64_t)(result >> shift);
}

/* int32 addition that wraps (signed overflow is undefined in C). */
static int32_t wrap_add(int32_t a, int32_t b) {
    return (int32_t)((uint32_t)a + (uint32_t)b);
}

void vanilla_conv2d_s8(const int8_t *input, const int8_t *filter, const int32_t *bias, const int8_t *input_zp,
                       const int8_t *filter_zp, const int32_t *add, const int32_t *multiplier, const int8_t *shift,
                       const int32_t *rescale_input_zp, const int8_t *output_zp, int32_t batch, int32_t in_h,
                       int32_t in_w, int32_t in_c, int32_t out_h, int32_t out_w, int32_t out_c, int32_t k_h,
                       int32_t k_w, int32_t pad_top, int32_t pad_left, int32_t stride_h, int32_t stride_w,
                       int32_t dilation_h, int32_t dilation_w, int32_t bias_len, int32_t add_len, int32_t rounding,
                       int32_t scale_len, int32_t clamp_min, int32_t clamp_max, void *output) {
    const int32_t izp = input_zp[0];
    const int32_t fzp = filter_zp[0];
    int32_t index = 0;
    for (int32_t n = 0; n < batch; n++) {
        for (int32_t oy = 0; oy < out_h; oy++) {
            for (int32_t ox = 0; ox < out_w; ox++) {
                for (int32_t oc = 0; oc < out_c; oc++, index++) {
                    int32_t acc = 0;
                    for (int32_t ky = 0; ky < k_h; ky++) {
                        int32_t y = oy * stride_h - pad_top + ky * dilation_h;
                        if (y < 0 || y >= in_h) {
                            continue;
                        }
                        for (int32_t kx = 0; kx < k_w; kx++) {
                            int32_t x = ox * stride_w - pad_left + kx * dilation_w;
                            if (x < 0 || x >= in_w) {
                                continue;
                            }
                            const int8_t *in = input + ((n * in_h + y) * in_w + x) * in_c;
                            const int8_t *w = filter + ((oc * k_h + ky) * k_w + kx) * in_c;
                            for (int32_t ic = 0; ic < in_c; ic++) {
                                acc = wrap_add(acc, (in[ic] - izp) * (w[ic] - fzp));
                            }
                        }
                    }
                    acc = wrap_add(acc, bias[bias_len == 1 ? 0 : oc]);
                    if (add_len > 0) {
                        acc = wrap_add(acc, add[add_len == 1 ? 0 : oc]);
                    }
                    if (rounding == 0) {
                        int32_t v = acc < clamp_min ? clamp_min : acc > clamp_max ? clamp_max : acc;
                        ((int32_t *)output)[index] = v;
                        continue;
                    }
                    int32_t c = scale_len == 1 ? 0 : oc;
                    int32_t v = wrap_add(acc, (int32_t)(0u - (uint32_t)rescale_input_zp[0]));
                    v = wrap_add(apply_scale(v, multiplier[c], shift[c], rounding == 2), output_zp[0]);
                    v = v < -128 ? -128 : v > 127 ? 127 : v;
                    v = v < clamp_min ? clamp_min : v > clamp_max ? clamp_max : v;
                    ((int8_t *)output)[index] = (int8_t)v;
                }
            }
        }
    }
}

/* KWS compiled with two memory pools (--pool fast:8K:fast --pool slow:64K): the fast pool in the
 * board's RAM, the slow one in its large memory (section .external.pool, which the harness's
 * linker script places there). Exit status: 0 every output byte equal to TFLite Micro's
 * (cases_kws.c), 1 a mismatch, 2 a non-zero model status. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "kws.h"

#define CASES 5

extern const uint8_t kws_inputs[CASES][KWS_INPUT_0_SIZE], kws_expected[CASES][KWS_OUTPUT_0_SIZE];

static uint8_t fast_pool[KWS_POOL_FAST_SIZE] __attribute__((aligned(KWS_WORKSPACE_ALIGNMENT)));
static uint8_t slow_pool[KWS_POOL_SLOW_SIZE]
    __attribute__((aligned(KWS_WORKSPACE_ALIGNMENT), section(".external.pool")));
static uint8_t output[KWS_OUTPUT_0_SIZE];

int main(void) {
    unsigned failures = 0;
    for (unsigned c = 0; c < CASES; ++c) {
        const void *const in[] = {kws_inputs[c]};
        void *const out[] = {output};
        memset(fast_pool, 0xa5, sizeof fast_pool);
        memset(slow_pool, 0x5a, sizeof slow_pool);
        if (kws_run(in, out, fast_pool, slow_pool) != 0) {
            return 2;
        }
        if (memcmp(output, kws_expected[c], sizeof output) != 0) {
            printf("case %u: the output differs\n", c);
            ++failures;
        }
    }
    printf("fast pool at %#lx (%u bytes), slow pool at %#lx (%u bytes)\n", (unsigned long)(uintptr_t)fast_pool,
           (unsigned)sizeof fast_pool, (unsigned long)(uintptr_t)slow_pool, (unsigned)sizeof slow_pool);
    if (failures) {
        return 1;
    }
    printf("ok: %u cases\n", CASES);
    return 0;
}

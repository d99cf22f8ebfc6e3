/* A firmware that runs one model: KWS (keyword spotting, with a MEAN) on one input, printing the
 * scores through semihosting. CMakeLists.txt compiles the model with umac_add_model, which gives
 * kws.h and links kws.o, its workspace split over two memory pools: a fast one in RAM and a slow
 * one in the board's large memory (the linker script's .external* sections). */
#include <stdint.h>
#include <stdio.h>
#include "input.h"
#include "kws.h"

static uint8_t fast_pool[KWS_POOL_FAST_SIZE] __attribute__((aligned(KWS_WORKSPACE_ALIGNMENT)));
static uint8_t slow_pool[KWS_POOL_SLOW_SIZE]
    __attribute__((aligned(KWS_WORKSPACE_ALIGNMENT), section(".external.pool")));
static int8_t scores[KWS_OUTPUT_0_SIZE];

int main(void) {
    const void *const inputs[] = {kws_input};
    void *const outputs[] = {scores};
    int32_t status = kws_run(inputs, outputs, fast_pool, slow_pool);
    printf("status %ld, scores:", (long)status);
    for (unsigned i = 0; i < KWS_OUTPUT_0_SIZE; ++i) {
        printf(" %d", scores[i]);
    }
    printf("\n");
    return status != 0;
}

/* A firmware that runs one model: KWS (keyword spotting, with a MEAN) on one input, printing the
 * scores through semihosting. CMakeLists.txt compiles the model with umac_add_model, which gives
 * kws.h and links kws.o, its workspace split over two memory pools: a fast one in RAM and a slow
 * one in the board's large memory (the linker script's .external* sections); and the same model
 * compiled for the tutorial accelerator (kws_vanilla.h), whose C kernel the build compiles. */
#include <stdint.h>
#include <stdio.h>
#include "input.h"
#include "kws.h"
#include "kws_vanilla.h"

static uint8_t fast_pool[KWS_POOL_FAST_SIZE] __attribute__((aligned(KWS_WORKSPACE_ALIGNMENT)));
static uint8_t slow_pool[KWS_POOL_SLOW_SIZE]
    __attribute__((aligned(KWS_WORKSPACE_ALIGNMENT), section(".external.pool")));
static int8_t scores[KWS_OUTPUT_0_SIZE];
static uint8_t vanilla_workspace[KWS_VANILLA_WORKSPACE_SIZE] __attribute__((aligned(KWS_VANILLA_WORKSPACE_ALIGNMENT)));
static int8_t vanilla_scores[KWS_VANILLA_OUTPUT_0_SIZE];

int main(void) {
    const void *const inputs[] = {kws_input};
    void *const outputs[] = {scores};
    int32_t status = kws_run(inputs, outputs, fast_pool, slow_pool);
    printf("status %ld, scores:", (long)status);
    for (unsigned i = 0; i < KWS_OUTPUT_0_SIZE; ++i) {
        printf(" %d", scores[i]);
    }
    printf("\n");
    void *const vanilla_outputs[] = {vanilla_scores};
    int32_t vanilla_status = kws_vanilla_run(inputs, vanilla_outputs, vanilla_workspace);
    printf("with the accelerator: status %ld, scores:", (long)vanilla_status);
    for (unsigned i = 0; i < KWS_VANILLA_OUTPUT_0_SIZE; ++i) {
        printf(" %d", vanilla_scores[i]);
    }
    printf("\n");
    return status != 0 || vanilla_status != 0;
}

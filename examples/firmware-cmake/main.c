/* A firmware that runs one model: KWS (keyword spotting, with a MEAN) on one input, printing the
 * scores through semihosting. CMakeLists.txt compiles the model with umac_add_model, which gives
 * kws.h and links kws.o. */
#include <stdint.h>
#include <stdio.h>
#include "input.h"
#include "kws.h"

static uint8_t workspace[KWS_WORKSPACE_SIZE] __attribute__((aligned(KWS_WORKSPACE_ALIGNMENT)));
static int8_t scores[KWS_OUTPUT_0_SIZE];

int main(void) {
    const void *const inputs[] = {kws_input};
    void *const outputs[] = {scores};
    int32_t status = kws_run(inputs, outputs, workspace);
    printf("status %ld, scores:", (long)status);
    for (unsigned i = 0; i < KWS_OUTPUT_0_SIZE; ++i) {
        printf(" %d", scores[i]);
    }
    printf("\n");
    return status != 0;
}

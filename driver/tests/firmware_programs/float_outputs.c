/* A float model (compiled as `model`, one input and one output) run on its five cases in order,
 * each output element printed as its bits ("case C: XXXXXXXX ..."), for the test to compare with
 * TFLite Micro's within a tolerance. Exit status: 0, or 2 for a non-zero model status. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "model.h"

#define CASES 5

extern const uint8_t model_inputs[CASES][MODEL_INPUT_0_SIZE], model_expected[CASES][MODEL_OUTPUT_0_SIZE];

static uint8_t workspace[MODEL_WORKSPACE_SIZE] __attribute__((aligned(MODEL_WORKSPACE_ALIGNMENT)));
static uint32_t output[MODEL_OUTPUT_0_SIZE / 4];

int main(void) {
    for (unsigned c = 0; c < CASES; ++c) {
        const void *const in[] = {model_inputs[c]};
        void *const out[] = {output};
        memset(workspace, 0xa5, sizeof workspace);
        if (model_run(in, out, workspace) != 0) {
            return 2;
        }
        printf("case %u:", c);
        for (unsigned i = 0; i < MODEL_OUTPUT_0_SIZE / 4; ++i) {
            printf(" %08lx", (unsigned long)output[i]);
        }
        printf("\n");
    }
    printf("ok: %u cases\n", CASES);
    return 0;
}

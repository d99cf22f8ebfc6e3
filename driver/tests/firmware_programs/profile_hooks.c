/* KWS compiled with --profile-hooks: the firmware defines kws_op_begin and kws_op_end (replacing
 * the object's weak, empty ones) and checks that each inference calls begin(k) then end(k) for
 * k = 0 .. KWS_NUM_OPS - 1, in order, nothing else, while the outputs stay bit-exact with TFLite
 * Micro's (cases_kws.c). Exit status: 0 all as expected, 1 a wrong output, 3 a wrong hook call,
 * 2 a non-zero model status. */
#include <stdio.h>
#include <string.h>
#include "kws.h"

#define CASES 5

extern const uint8_t kws_inputs[CASES][KWS_INPUT_0_SIZE], kws_expected[CASES][KWS_OUTPUT_0_SIZE];

static uint8_t workspace[KWS_WORKSPACE_SIZE] __attribute__((aligned(16)));
static uint8_t output[KWS_OUTPUT_0_SIZE];

static unsigned calls, wrong;
static int open_op = -1;
static int next_op;

void kws_op_begin(uint32_t op) {
    ++calls;
    if (open_op != -1 || (int)op != next_op) {
        ++wrong;
    }
    open_op = (int)op;
}

void kws_op_end(uint32_t op) {
    ++calls;
    if ((int)op != open_op) {
        ++wrong;
    }
    open_op = -1;
    next_op = (int)op + 1;
}

int main(void) {
    unsigned failures = 0;
    for (unsigned c = 0; c < CASES; ++c) {
        const void *const in[] = {kws_inputs[c]};
        void *const out[] = {output};
        next_op = 0;
        memset(workspace, 0xa5, sizeof workspace);
        if (kws_run(in, out, workspace) != 0) {
            return 2;
        }
        if (next_op != KWS_NUM_OPS || open_op != -1) {
            ++wrong;
        }
        if (memcmp(output, kws_expected[c], sizeof output) != 0) {
            printf("case %u: the output differs\n", c);
            ++failures;
        }
    }
    printf("hook calls: %u for %u operators, %u wrong\n", calls, (unsigned)KWS_NUM_OPS, wrong);
    if (wrong) {
        return 3;
    }
    if (failures) {
        return 1;
    }
    printf("ok: %u cases\n", CASES);
    return 0;
}

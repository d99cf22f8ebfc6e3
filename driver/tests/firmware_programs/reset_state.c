/* An LSTM model (compiled as `lstm`) whose state persists between calls: the five cases run in
 * order give TFLite Micro's outputs (each continues the sequence), then lstm_reset_state() and
 * the first two cases again give the first two outputs again. Exit status: 0 all equal, 1 a
 * mismatch, 2 a non-zero model status. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "lstm.h"

#define CASES 5

extern const uint8_t lstm_inputs[CASES][LSTM_INPUT_0_SIZE], lstm_expected[CASES][LSTM_OUTPUT_0_SIZE];

static uint8_t workspace[LSTM_WORKSPACE_SIZE] __attribute__((aligned(LSTM_WORKSPACE_ALIGNMENT)));
static uint8_t output[LSTM_OUTPUT_0_SIZE];

static int run_case(unsigned c) {
    const void *const in[] = {lstm_inputs[c]};
    void *const out[] = {output};
    memset(workspace, 0xa5, sizeof workspace);
    if (lstm_run(in, out, workspace) != 0) {
        return 2;
    }
    if (memcmp(output, lstm_expected[c], sizeof output) != 0) {
        printf("case %u: the output differs\n", c);
        return 1;
    }
    return 0;
}

int main(void) {
    for (unsigned c = 0; c < CASES; ++c) {
        int status = run_case(c);
        if (status) {
            return status;
        }
    }
    lstm_reset_state();
    for (unsigned c = 0; c < 2; ++c) {
        int status = run_case(c);
        if (status) {
            return status;
        }
    }
    printf("ok: %u cases, reset, 2 cases; state %u bytes\n", CASES, (unsigned)LSTM_STATE_SIZE);
    return 0;
}

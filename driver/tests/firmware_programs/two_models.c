/* One firmware with two models: KWS and AD, compiled with `--name kws` and `--name ad`, linked
 * together and run one after the other in ONE workspace, as large as the larger model needs (AD
 * was compiled with `--share-workspace-with kws/metadata.json`: its header says that size). Each run may leave the workspace as it likes: the other model's
 * next run must not care, nor must its own. The cases (cases_kws.c, cases_ad.c) hold TFLite
 * Micro's inputs and outputs. Exit status: 0 every output byte equal, 1 a mismatch, 2 a non-zero
 * model status. */
#include <stdio.h>
#include <string.h>
#include "ad.h"
#include "kws.h"

#define CASES 5
#define SHARED_WORKSPACE_SIZE AD_SHARED_WORKSPACE_SIZE

extern const uint8_t kws_inputs[CASES][KWS_INPUT_0_SIZE], kws_expected[CASES][KWS_OUTPUT_0_SIZE];
extern const uint8_t ad_inputs[CASES][AD_INPUT_0_SIZE], ad_expected[CASES][AD_OUTPUT_0_SIZE];

static uint8_t workspace[SHARED_WORKSPACE_SIZE] __attribute__((aligned(16)));
static uint8_t kws_output[KWS_OUTPUT_0_SIZE], ad_output[AD_OUTPUT_0_SIZE];

static unsigned mismatches(const char *model, unsigned c, const uint8_t *got, const uint8_t *want, unsigned n) {
    for (unsigned i = 0; i < n; ++i) {
        if (got[i] != want[i]) {
            printf("%s case %u byte %u: got %d, expected %d\n", model, c, i, (int)(int8_t)got[i],
                   (int)(int8_t)want[i]);
            return 1;
        }
    }
    return 0;
}

int main(void) {
    unsigned failures = 0;
    memset(workspace, 0xa5, sizeof workspace);
    for (unsigned c = 0; c < CASES; ++c) {
        const void *const kws_in[] = {kws_inputs[c]};
        void *const kws_out[] = {kws_output};
        memset(kws_output, 0x5a, sizeof kws_output);
        if (kws_run(kws_in, kws_out, workspace) != 0) {
            return 2;
        }
        failures += mismatches("kws", c, kws_output, kws_expected[c], KWS_OUTPUT_0_SIZE);
        const void *const ad_in[] = {ad_inputs[c]};
        void *const ad_out[] = {ad_output};
        memset(ad_output, 0x5a, sizeof ad_output);
        if (ad_run(ad_in, ad_out, workspace) != 0) {
            return 2;
        }
        failures += mismatches("ad", c, ad_output, ad_expected[c], AD_OUTPUT_0_SIZE);
    }
    if (failures) {
        printf("FAIL: %u mismatching outputs\n", failures);
        return 1;
    }
    printf("ok: %u cases of each model in a %u-byte workspace\n", CASES, (unsigned)SHARED_WORKSPACE_SIZE);
    return 0;
}

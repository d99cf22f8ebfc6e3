/* Runs every test case of the generated cases.c through the model and compares each output
 * byte with the expected one. Exit status: 0 all equal, 1 a mismatch, 2 a non-zero model
 * status. The workspace and outputs are filled with garbage first: the model may not rely on
 * their contents. */
#include <stdio.h>
#include <string.h>
#include "harness.h"

#if defined(__riscv)
/* The instret CSR (csrr rd, instret, spelled so that no Zicsr -march is needed): instructions
 * retired before this one. Exact under QEMU's -icount and on umac's simulator. */
static inline uint32_t instret(void) {
    uint32_t value;
    __asm__ volatile(".insn i 0x73, 2, %0, x0, -1022" : "=r"(value));
    return value;
}
#endif

int main(void) {
    unsigned failures = 0;
    for (unsigned c = 0; c < harness_num_cases; ++c) {
        for (unsigned o = 0; o < harness_num_outputs; ++o) {
            memset(harness_outputs[o], 0x5a, harness_output_bytes[o]);
        }
        memset(harness_workspace, 0xa5, harness_workspace_size);
#if defined(__riscv)
        uint32_t before = instret();
#endif
        int32_t status = harness_run(harness_inputs[c], harness_outputs, harness_workspace);
#if defined(__riscv)
        if (c == 0) {
            printf("instructions: %lu\n", (unsigned long)(instret() - before));
        }
#endif
        if (status != 0) {
            printf("case %u: the model returned %ld\n", c, (long)status);
            return 2;
        }
        for (unsigned o = 0; o < harness_num_outputs; ++o) {
            const uint8_t *got = harness_outputs[o];
            const uint8_t *want = harness_expected[c][o];
            for (unsigned i = 0; i < harness_output_bytes[o]; ++i) {
                if (got[i] != want[i]) {
                    printf("case %u output %u byte %u: got %d, expected %d\n", c, o, i, (int)(int8_t)got[i],
                           (int)(int8_t)want[i]);
                    ++failures;
                    break;
                }
            }
        }
    }
    if (failures) {
        printf("FAIL: %u mismatching outputs\n", failures);
        return 1;
    }
    printf("ok: %u cases\n", harness_num_cases);
    return 0;
}

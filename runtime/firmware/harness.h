/* The firmware harness's view of one compiled model and its test cases. A generated cases.c
 * defines everything here for a model; main.c runs every case and compares every output byte. */
#ifndef UMAC_HARNESS_H
#define UMAC_HARNESS_H
#include <stdint.h>

extern const unsigned harness_num_cases;
extern const unsigned harness_num_outputs;
extern const unsigned harness_output_bytes[];
/* harness_inputs[c] is case c's array of input pointers, in the model's input order. */
extern const void *const *const harness_inputs[];
/* harness_expected[c][o]: the expected bytes of output o in case c. */
extern const uint8_t *const *const harness_expected[];
extern void *const harness_outputs[];
extern uint8_t harness_workspace[];
extern const unsigned harness_workspace_size;
/* Calls the model's N_run. */
int32_t harness_run(const void *const inputs[], void *const outputs[], void *workspace);
#endif

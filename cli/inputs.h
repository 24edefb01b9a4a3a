// SPDX-License-Identifier: Apache-2.0
//
// Inputs for a method, shared by `etref run` and `etref profile`: tensors
// from .npy files, a bundled program's test case, or seeded random tensors
// shaped like the method's inputs. The inputs are kept as EValues to set
// before every execution (a memory plan may reuse an input's bytes once the
// input is dead, so a second execution needs them set again).
#ifndef ETR_CLI_INPUTS_H
#define ETR_CLI_INPUTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/bundled_program.h"
#include "core/evalue.h"
#include "core/method.h"
#include "core/npy.h"

#define ETR_CLI_MAX_INPUTS 64

typedef struct etr_cli_inputs {
  etr_npy_array_t arrays[ETR_CLI_MAX_INPUTS];
  void *random_buffers[ETR_CLI_MAX_INPUTS];
  etr_tensor_t tensors[ETR_CLI_MAX_INPUTS];
  etr_evalue_t values[ETR_CLI_MAX_INPUTS];
  uint32_t count;
  bool random;  // at least one input is seeded random
} etr_cli_inputs_t;

// Fills a dense tensor from a SplitMix64 stream: floats uniform in
// [-1, 1), integers in [0, 10), bools 0/1.
void etr_cli_fill_random(etr_tensor_t *tensor, uint64_t *state);

// Loads `count` .npy files as the method's inputs (they must match the
// method's input count). Returns an exit code, having reported any error.
int etr_cli_inputs_from_files(etr_cli_inputs_t *inputs,
                              const etr_method_t *method,
                              const char *const *paths, size_t count);

// Seeded random tensors shaped like the method's tensor inputs (scalar
// inputs keep the program's values). Returns an exit code.
int etr_cli_inputs_random(etr_cli_inputs_t *inputs,
                          const etr_method_t *method, uint64_t seed);

// The inputs of a bundled test case. Returns an exit code.
int etr_cli_inputs_from_bundle(etr_cli_inputs_t *inputs,
                               const etr_bundled_suite_t *suite,
                               uint32_t test_case);

// Sets every input of `method`. Returns an exit code.
int etr_cli_inputs_set(const etr_cli_inputs_t *inputs, etr_method_t *method);

void etr_cli_inputs_release(etr_cli_inputs_t *inputs);

#endif  // ETR_CLI_INPUTS_H

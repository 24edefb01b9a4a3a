// SPDX-License-Identifier: Apache-2.0
//
// Internal to the judge (oracle.c): running a reference KernelCall again
// on substituted inputs, into scratch memory, leaving the method as it
// was. Used for the magnitude run (float inputs replaced by their absolute
// values) and the local re-run (inputs replaced by the candidate's values).
#ifndef ETR_PROF_ORACLE_RERUN_H
#define ETR_PROF_ORACLE_RERUN_H

#include <stdbool.h>
#include <stdint.h>

#include "core/arena.h"
#include "core/error.h"
#include "core/method.h"

// Supplies the replacement for one input tensor (value `value_index`, live
// tensor `live`): fills `out` (a copy of `live`'s shape and layout) into a
// buffer it allocates with malloc (*buffer_out) and returns true, or
// returns false to keep the live tensor.
typedef bool (*etr_oracle_substitute_fn)(void *user, uint32_t value_index,
                                         const etr_tensor_t *live,
                                         etr_tensor_t *out,
                                         void **buffer_out);

#define ETR_ORACLE_MAX_POSITIONS 64

typedef struct etr_oracle_rerun {
  // Results by output position (the return slot flattened): a tensor in
  // scratch memory, or NULL for a non-tensor result.
  etr_tensor_t *results[ETR_ORACLE_MAX_POSITIONS];
  uint32_t num_results;
  // Scratch owned by the re-run.
  etr_evalue_t **args;
  etr_evalue_t *evalues;
  etr_tensor_t *tensors;
  etr_evalue_t **items;
  void **buffers;
  uint32_t num_evalues, num_tensors, num_items, num_buffers;
  uint32_t cap_evalues, cap_tensors, cap_items, cap_buffers;
  uint32_t substituted;  // inputs replaced
} etr_oracle_rerun_t;

// The value indices an instruction's return slot holds, by position (a
// tensor: 1; a TensorList: its elements; a scalar: 1). Returns the count
// (at most `capacity`).
uint32_t etr_oracle_output_values(const etr_method_t *method,
                                  const etr_instruction_t *instruction,
                                  uint32_t *values, uint32_t capacity);

// Runs `instruction`'s kernel on a copy of its arguments where `substitute`
// replaces inputs; outputs go to scratch copies of the output tensors
// (initialized with their current bytes). `temp` is the kernel's scratch
// arena (reset first); random ops draw from a copy of the method's
// generator state. Returns the kernel's status (its message in diag).
etr_error_t etr_oracle_rerun(const etr_method_t *method,
                             const etr_instruction_t *instruction,
                             etr_oracle_substitute_fn substitute, void *user,
                             etr_arena_t *temp, etr_oracle_rerun_t *rerun,
                             etr_diag_t *diag);

void etr_oracle_rerun_release(etr_oracle_rerun_t *rerun);

#endif  // ETR_PROF_ORACLE_RERUN_H

// SPDX-License-Identifier: Apache-2.0
//
// Turns a golden case into a kernel call and judges the result.
//
// etr_golden_build_call lays out the EValues exactly as an ExecuTorch
// program hands them to an out-variant kernel (core/kernel.h): every
// schema argument in order, then one return slot (the out tensor again;
// a TensorList of the outs for several outs or a Tensor[] out; an Int for a
// prim op). Inputs live in 64-byte aligned buffers; a strided input is a
// view over a buffer whose unused elements are poisoned (0xFF bytes, NaN
// for floats), placed at its storage offset. Out tensors are allocated with
// the expected dtype and dim order but a wrong initial shape (dim 0 one
// larger) and spare capacity, marked dynamic-bound, so a kernel must resize
// them as ExecuTorch's dynamic outs require; their memory is poisoned too.
//
// etr_golden_check compares the kernel's status and outputs with the case:
// error cases must return a non-OK code; value cases must return OK with
// every out tensor of the expected dtype and shape, integral and bool
// values identical, floating values within the case's tolerance class
// (golden_tolerance.h) with NaN at the same positions, and the inputs left
// untouched (unless the case is flagged as mutating them).
#ifndef ETR_OPS_REFERENCE_GOLDEN_GOLDEN_HARNESS_H
#define ETR_OPS_REFERENCE_GOLDEN_GOLDEN_HARNESS_H

#include <stdbool.h>
#include <stddef.h>

#include "core/arena.h"
#include "core/error.h"
#include "core/evalue.h"
#include "ops_reference/golden/golden_reader.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct etr_golden_input_buffer {
  const uint8_t *buffer;  // what the kernel may read
  const uint8_t *copy;    // its contents before the call
  size_t bytes;
} etr_golden_input_buffer_t;

typedef struct etr_golden_call {
  etr_evalue_t **args;  // schema arguments, then the return slot
  size_t num_args;      // including the return slot
  etr_tensor_t **outs;  // out tensors in schema order (Tensor[] flattened)
  size_t num_outs;
  etr_evalue_t *ret;    // the return slot (args[num_args - 1])
  etr_golden_input_buffer_t *inputs;
  size_t num_inputs;
} etr_golden_call_t;

// Builds the call for `golden` with every allocation in `arena`.
// InvalidProgram when the case is inconsistent (a tag a kernel argument
// cannot have, an expected value that does not match its out slot);
// MemoryAllocationFailed when the arena is too small.
etr_error_t etr_golden_build_call(const etr_golden_case_t *golden,
                                  etr_arena_t *arena, etr_golden_call_t *call,
                                  etr_diag_t *diag);

#define ETR_GOLDEN_MESSAGE_CAPACITY 1536

typedef struct etr_golden_verdict {
  bool passed;
  char message[ETR_GOLDEN_MESSAGE_CAPACITY];  // why not, when !passed
} etr_golden_verdict_t;

// Judges a finished call: `status` is what the kernel returned and
// `kernel_diag` what it recorded (for the message).
void etr_golden_check(const etr_golden_case_t *golden,
                      const etr_golden_call_t *call, etr_error_t status,
                      const etr_diag_t *kernel_diag,
                      etr_golden_verdict_t *verdict);

// "add sample 3 (Float, default): Float[2, 3], Float[3] (strided)" into
// `buffer`, for messages.
void etr_golden_describe_case(const etr_golden_case_t *golden, char *buffer,
                              size_t capacity);

#ifdef __cplusplus
}
#endif

#endif  // ETR_OPS_REFERENCE_GOLDEN_GOLDEN_HARNESS_H

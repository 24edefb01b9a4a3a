// SPDX-License-Identifier: Apache-2.0
//
// Generic golden cases of the "nn" family kernel tests (testonly): one
// case is one out-variant kernel call, its arguments in schema order as
// literals (generated/nn_*_cases.h, written by gen_nn_cases.py), with the
// value every out tensor must take and, for arguments the kernel updates
// in place (batch norm's running statistics), their value after the call.
//
// nn_run_case replays a case the way the executor calls a kernel (every
// argument, then the return slot: the out again or a TensorList of the
// outs) with its input tensors in one layout: contiguous, non-contiguous
// (strided with gaps) or channels-last (4-D tensors; in that layout 4-D
// outs are channels-last too). Outs start with a wrong shape and spare
// room so the kernel must resize them; an out a backward op's output_mask
// leaves out is ExecuTorch's placeholder (a Byte tensor of shape [0] and no
// memory) and must stay as it is.
#ifndef ETR_OPS_REFERENCE_TEST_OP_NN_CASE_UTIL_H
#define ETR_OPS_REFERENCE_TEST_OP_NN_CASE_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ops_reference/test/case_types.h"
#include "ops_reference/test/test_util.h"

typedef enum nn_kind {
  NN_TENSOR = 0,   // an input tensor
  NN_NONE = 1,     // None (an absent optional argument)
  NN_INT = 2,
  NN_DOUBLE = 3,
  NN_BOOL = 4,     // int_value 0/1
  NN_INTS = 5,     // int[]
  NN_DOUBLES = 6,  // float[]
  NN_BOOLS = 7,    // bool[]
  NN_OUT = 8,      // an out tensor; `tensor` is its expected value
  NN_INOUT = 9,    // an input updated in place: `tensor` before, `after`
  NN_MASKED = 10,  // an out left out by output_mask
} nn_kind_t;

typedef struct nn_arg {
  nn_kind_t kind;
  tt_case_tensor_t tensor;
  tt_case_tensor_t after;
  int64_t int_value;
  double double_value;
  size_t count;
  const int64_t *ints;
  const double *doubles;
  const bool *bools;
} nn_arg_t;

typedef struct nn_case {
  const char *op;  // "aten::avg_pool3d.out"
  const char *name;
  size_t num_args;  // without the return slot
  const nn_arg_t *args;
  // ETR_OK: the outs must take their expected values; otherwise the call
  // must fail with this code (outs are then only placeholders).
  etr_error_t status;
} nn_case_t;

// Runs `c` with its inputs in `layout` and checks the status and, when it
// is ETR_OK, every out and in-place argument (criterion expectations).
void nn_run_case(const nn_case_t *c, tt_layout_t layout);

// Runs every case of a table whose op is `op` (NULL: all) in every
// layout; returns how many cases ran.
size_t nn_run_cases(const nn_case_t *cases, size_t count, const char *op);

// ExecuTorch's placeholder for an out a backward op does not compute: Byte,
// shape [0], no memory.
etr_tensor_t *nn_placeholder(void);

#endif  // ETR_OPS_REFERENCE_TEST_OP_NN_CASE_UTIL_H

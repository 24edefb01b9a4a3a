// SPDX-License-Identifier: Apache-2.0
//
// The loop structure of an elementwise op on strided tensors, reduced to
// runs the microkernels can take: out = f(in_1, ..., in_k) over out's
// shape, each input broadcasting to it.
//
// Dims are visited in out's memory order (its dim order, so channels-last
// outs work like contiguous ones), size-1 dims dropped and neighbouring
// dims merged wherever every operand's strides allow. What is left is an
// innermost run where out is contiguous and each input is either
// contiguous (stride 1) or constant (stride 0: a broadcast dim), and outer
// dims walked with a cursor. The patterns that matter come out as:
//   same shape, any shared dim order       -> one run of numel elements;
//   [N, C] op [C] (bias add)               -> N runs of C, in_2 contiguous;
//   [N, C, H, W] op [1, C, 1, 1]           -> N*C runs of H*W, in_2 constant;
//   the same, channels-last                -> N*H*W runs of C, contiguous;
//   x op 0-dim tensor                      -> one run, in_2 constant.
// A layout that leaves an input with another innermost stride (a
// transposed or strided view), an out that is not dense, or a run where
// every input is constant is not planned (the caller falls back).
#ifndef ETR_OPS_OPTIMIZED_BINARY_PLAN_H
#define ETR_OPS_OPTIMIZED_BINARY_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/tensor.h"

#define ETR_PLAN_MAX_INPUTS 3
#define ETR_PLAN_MAX_OPERANDS (ETR_PLAN_MAX_INPUTS + 1)

typedef struct etr_plan {
  size_t num_operands;  // out, then the inputs, in the order given
  int64_t run;          // elements per run (>= 1)
  int64_t runs;         // number of runs (product of outer_sizes)
  // Inputs constant along the run (operand 0, out, is never).
  bool run_broadcast[ETR_PLAN_MAX_OPERANDS];
  int32_t outer_dim;
  int64_t outer_sizes[ETR_MAX_DIMS];
  int64_t outer_strides[ETR_PLAN_MAX_OPERANDS][ETR_MAX_DIMS];  // elements
} etr_plan_t;

// Plans the loop over dense `out` (numel > 0) and `inputs`, each of which
// must broadcast to out's shape. Returns false when the layout is not one
// the runs can express (see above); the plan is then unusable.
bool etr_plan_init(etr_plan_t *plan, const etr_tensor_t *out,
                   const etr_tensor_t *const *inputs, size_t num_inputs);

// Element offsets of every operand at the start of the current run.
typedef struct etr_plan_cursor {
  int64_t index[ETR_MAX_DIMS];
  int64_t offsets[ETR_PLAN_MAX_OPERANDS];
} etr_plan_cursor_t;

// The first run.
void etr_plan_cursor_init(etr_plan_cursor_t *cursor);
// The carry of etr_plan_cursor_next into outer dims.
void etr_plan_cursor_carry(etr_plan_cursor_t *cursor, const etr_plan_t *plan);

// Moves to the next run (after the last one the cursor is meaningless).
// Inline: short runs (per-channel ops on small images) pay it per run.
static inline void etr_plan_cursor_next(etr_plan_cursor_t *cursor,
                                        const etr_plan_t *plan) {
  int32_t k = plan->outer_dim - 1;
  if (k >= 0 && cursor->index[k] + 1 < plan->outer_sizes[k]) {
    ++cursor->index[k];
    for (size_t j = 0; j < plan->num_operands; ++j) {
      cursor->offsets[j] += plan->outer_strides[j][k];
    }
    return;
  }
  etr_plan_cursor_carry(cursor, plan);
}

// The broadcast shape of (dim_a, sizes_a) and (dim_b, sizes_b) as
// PyTorch computes it; false (and nothing reported) when they do not
// broadcast.
bool etr_plan_broadcast_shape(int32_t dim_a, const int64_t *sizes_a,
                              int32_t dim_b, const int64_t *sizes_b,
                              int32_t *dim_out, int64_t *sizes_out);

#endif  // ETR_OPS_OPTIMIZED_BINARY_PLAN_H

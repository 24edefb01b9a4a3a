// SPDX-License-Identifier: Apache-2.0
//
// Argument probes for optimized kernels: they look at the arguments to
// decide whether a case is one they specialize, without recording anything
// in the diagnostic (a case they do not take goes to the reference kernel,
// which checks and reports).
#ifndef ETR_OPS_OPTIMIZED_COMMON_ARGS_H
#define ETR_OPS_OPTIMIZED_COMMON_ARGS_H

#include <stdbool.h>
#include <stddef.h>

#include "core/evalue.h"

// Argument `index` as a tensor, or NULL when absent or not a tensor.
static inline etr_tensor_t *etr_opt_tensor_arg(etr_evalue_t **args,
                                               size_t num_args,
                                               size_t index) {
  if (index >= num_args || args[index] == NULL ||
      args[index]->tag != ETR_TAG_TENSOR) {
    return NULL;
  }
  return args[index]->u.as_tensor;
}

// True when `tensor` is a dense Float tensor in the default dim order.
static inline bool etr_opt_is_contiguous_f32(const etr_tensor_t *tensor) {
  return tensor != NULL && tensor->dtype == ETR_FLOAT &&
         etr_tensor_is_contiguous(tensor);
}

#endif  // ETR_OPS_OPTIMIZED_COMMON_ARGS_H

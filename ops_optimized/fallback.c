// SPDX-License-Identifier: Apache-2.0
//
// The counted fallback to reference kernels (see ops_optimized.h).
#include "ops_optimized/ops_optimized.h"

uint64_t etr_opt_fallback_calls = 0;

etr_error_t etr_opt_fallback(etr_kernel_fn reference,
                             etr_kernel_context_t *ctx, etr_evalue_t **args,
                             size_t num_args) {
  ++etr_opt_fallback_calls;
  return reference(ctx, args, num_args);
}

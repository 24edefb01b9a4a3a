// SPDX-License-Identifier: Apache-2.0
//
// The optimized empty family (empty.out, empty_strided.out,
// _empty_dim_order.out), whose reference twins resize out and zero-fill it
// so that runs are deterministic: the reference's dry run checks and
// resizes, then one fill zeroes every element of the out at
// args[out_index] (memset for a dense out; movement/movement.h) instead of
// the reference's element-by-element stores.
#ifndef ETR_OPS_OPTIMIZED_COMMON_EMPTY_H
#define ETR_OPS_OPTIMIZED_COMMON_EMPTY_H

#include "ops_optimized/common/args.h"
#include "ops_optimized/common/check.h"
#include "ops_optimized/movement/movement.h"

static inline etr_error_t etr_opt_empty(etr_kernel_fn reference,
                                        size_t out_index,
                                        etr_kernel_context_t *ctx,
                                        etr_evalue_t **args,
                                        size_t num_args) {
  ETR_TRY(etr_opt_check(reference, ctx, args, num_args));
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, out_index);
  if (ctx->dry_run || out == NULL) {  // (a checked call has its out)
    return ETR_OK;
  }
  static const uint8_t kZero[16] = {0};
  etr_move_fill_tensor(out, kZero);
  return ETR_OK;
}

#endif  // ETR_OPS_OPTIMIZED_COMMON_EMPTY_H

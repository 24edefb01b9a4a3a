// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::amin.out: the minimum of a dense Float, Half or
// BFloat16 self over dims forming one run in memory order, in their
// logical order, runs the reduction driver (reduce/reduce.h), exact and
// with PyTorch's rules: NaN wins, ties keep the first element (the sign of
// a zero result is the first zero's). Other dtypes, layouts, empty inputs
// and argument errors go to the reference kernel (ops_reference/op_amin.c),
// whose dry run checks and resizes before we compute.
#include "ops_optimized/common/args.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/reduce/reduce.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/shape.h"

// aten::amin.out
etr_error_t etr_opt_amin_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                             size_t num_args) {
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 3);
  if (num_args != 5 || self == NULL || out == NULL ||
      !etr_reduce_is_f32_like(self->dtype) || out->dtype != self->dtype) {
    return etr_opt_fallback(etr_ref_amin_out, ctx, args, num_args);
  }
  ETR_TRY(etr_opt_check(etr_ref_amin_out, ctx, args, num_args));
  if (ctx->dry_run) {
    return ETR_OK;
  }
  const int64_t *dims = NULL;
  size_t num_dims = 0;
  bool keepdim = false;
  uint32_t mask = 0;
  ETR_TRY(etr_arg_int_list(ctx, args, num_args, 1, "dim", &dims, &num_dims));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 2, "keepdim", &keepdim));
  ETR_TRY(etr_dim_list_mask(ctx, dims, num_dims, true, self->dim, &mask));
  etr_reduce_request_t request = {.op = ETR_REDUCE_MIN, .self = self,
                                  .mask = mask,
                                  .keepdim = keepdim, .values = out};
  if (!etr_reduce_run(ctx, &request)) {
    return etr_opt_fallback(etr_ref_amin_out, ctx, args, num_args);
  }
  return ETR_OK;
}

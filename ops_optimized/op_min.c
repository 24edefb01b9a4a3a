// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::min.dim_min: the minimum of a dense Float, Half or
// BFloat16 self along one dim and its index (a Long out) runs the
// reduction driver (reduce/reduce.h): rows when the dim is innermost in
// memory, columns otherwise, exact with PyTorch's rules (the first NaN
// wins, value and index; ties give the first index). Other dtypes,
// layouts, empty inputs and argument errors go to the reference kernel
// (ops_reference/op_min.c), whose dry run checks and resizes first.
#include "ops_optimized/common/args.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/reduce/reduce.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/shape.h"

// aten::min.dim_min
etr_error_t etr_opt_min_dim_min(etr_kernel_context_t *ctx, etr_evalue_t **args,
                                size_t num_args) {
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *values = etr_opt_tensor_arg(args, num_args, 3);
  etr_tensor_t *indices = etr_opt_tensor_arg(args, num_args, 4);
  if (num_args != 6 || self == NULL || values == NULL || indices == NULL ||
      !etr_reduce_is_f32_like(self->dtype) || values->dtype != self->dtype ||
      indices->dtype != ETR_LONG) {
    return etr_opt_fallback(etr_ref_min_dim_min, ctx, args, num_args);
  }
  ETR_TRY(etr_opt_check(etr_ref_min_dim_min, ctx, args, num_args));
  if (ctx->dry_run) {
    return ETR_OK;
  }
  int64_t dim = 0;
  bool keepdim = false;
  uint32_t mask = 0;
  ETR_TRY(etr_arg_int(ctx, args, num_args, 1, "dim", &dim));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 2, "keepdim", &keepdim));
  ETR_TRY(etr_dim_list_mask(ctx, &dim, 1, true, self->dim, &mask));
  etr_reduce_request_t request = {.op = ETR_REDUCE_MIN, .self = self,
                                  .mask = mask,
                                  .keepdim = keepdim, .values = values,
                                  .indices = indices};
  if (!etr_reduce_run(ctx, &request)) {
    return etr_opt_fallback(etr_ref_min_dim_min, ctx, args, num_args);
  }
  return ETR_OK;
}

// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::argmin.out: the index of the minimum of a dense Float,
// Half or BFloat16 self along one dim, or in the flattened self (dim None,
// row-major contiguous self only: the flat index is then the memory
// index), runs the reduction driver (reduce/reduce.h), exact with
// PyTorch's rules (the first NaN wins; ties give the first index). Other
// dtypes, layouts, empty inputs and argument errors go to the reference
// kernel (ops_reference/op_argmin.c), whose dry run checks and resizes
// first.
#include "ops_optimized/common/args.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/reduce/reduce.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/shape.h"

// aten::argmin.out
etr_error_t etr_opt_argmin_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                               size_t num_args) {
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 3);
  if (num_args != 5 || self == NULL || out == NULL ||
      !etr_reduce_is_f32_like(self->dtype) || out->dtype != ETR_LONG) {
    return etr_opt_fallback(etr_ref_argmin_out, ctx, args, num_args);
  }
  ETR_TRY(etr_opt_check(etr_ref_argmin_out, ctx, args, num_args));
  if (ctx->dry_run) {
    return ETR_OK;
  }
  bool has_dim = false;
  int64_t dim = 0;
  bool keepdim = false;
  uint32_t mask = 0;
  ETR_TRY(
      etr_arg_optional_int(ctx, args, num_args, 1, "dim", &has_dim, &dim));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 2, "keepdim", &keepdim));
  ETR_TRY(etr_dim_list_mask(ctx, &dim, 1, has_dim, self->dim, &mask));
  etr_reduce_request_t request = {.op = ETR_REDUCE_MIN, .self = self,
                                  .mask = mask,
                                  .keepdim = keepdim, .indices = out};
  if (!etr_reduce_run(ctx, &request)) {
    return etr_opt_fallback(etr_ref_argmin_out, ctx, args, num_args);
  }
  return ETR_OK;
}

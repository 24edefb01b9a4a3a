// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::sum.IntList_out: a dense Float, Half or BFloat16 self
// summed into an out of its own dtype (or Float for a Half/BFloat16 self)
// over dims that form one run in memory order (innermost rows, middle or
// outer columns, every dim) runs the reduction driver (reduce/reduce.h):
// fp32 loads accumulated in double, rounded once to the out dtype, as the
// reference. Everything else (integer, Bool and complex sums, casts into
// other dtypes, non-dense or empty inputs, scattered dims) goes to the
// reference kernel (ops_reference/op_sum.c), which also reports argument
// errors; the reference's dry run checks and resizes before we compute.
#include "ops_optimized/common/args.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/reduce/reduce.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/shape.h"

// aten::sum.IntList_out
etr_error_t etr_opt_sum_intlist_out(etr_kernel_context_t *ctx,
                                    etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 4);
  if (num_args != 6 || self == NULL || out == NULL ||
      !etr_reduce_is_f32_like(self->dtype) ||
      !(out->dtype == self->dtype || out->dtype == ETR_FLOAT)) {
    return etr_opt_fallback(etr_ref_sum_intlist_out, ctx, args, num_args);
  }
  ETR_TRY(etr_reduce_check_reference(etr_ref_sum_intlist_out, ctx, args,
                                     num_args));
  if (ctx->dry_run) {
    return ETR_OK;
  }
  bool has_dims = false;
  const int64_t *dims = NULL;
  size_t num_dims = 0;
  bool keepdim = false;
  uint32_t mask = 0;
  ETR_TRY(etr_arg_optional_int_list(ctx, args, num_args, 1, "dim", &has_dims,
                                    &dims, &num_dims));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 2, "keepdim", &keepdim));
  ETR_TRY(etr_dim_list_mask(ctx, dims, num_dims, has_dims, self->dim, &mask));
  etr_reduce_request_t request = {.op = ETR_REDUCE_SUM, .self = self,
                                  .mask = mask, .keepdim = keepdim,
                                  .values = out};
  if (!etr_reduce_run(ctx, &request)) {
    return etr_opt_fallback(etr_ref_sum_intlist_out, ctx, args, num_args);
  }
  return ETR_OK;
}

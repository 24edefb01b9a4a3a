// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::mean.out and aten::mean.dtype_out (what
// AdaptiveAvgPool2d(1) and x.mean(dim) export as): a dense Float, Half or
// BFloat16 self averaged into an out of its own dtype (or Float for a
// Half/BFloat16 self) over dims forming one run in memory order runs the
// reduction driver (reduce/reduce.h): fp32 loads summed in double, divided
// by the count in double and rounded once, as the reference. Other dtypes,
// layouts and empty inputs go to the reference kernel
// (ops_reference/op_mean.c), whose dry run also checks the arguments.
#include "ops_optimized/common/args.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/reduce/reduce.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/shape.h"

static bool specialized_dtypes(const etr_tensor_t *self,
                               const etr_tensor_t *out) {
  return self != NULL && out != NULL && etr_reduce_is_f32_like(self->dtype) &&
         (out->dtype == self->dtype || out->dtype == ETR_FLOAT);
}

// aten::mean.out
etr_error_t etr_opt_mean_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                             size_t num_args) {
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 4);
  if (etr_reduce_memo_run(ctx, self, out, NULL)) {
    return ETR_OK;
  }
  if (num_args != 6 || !specialized_dtypes(self, out)) {
    return etr_opt_fallback(etr_ref_mean_out, ctx, args, num_args);
  }
  ETR_TRY(etr_opt_check(etr_ref_mean_out, ctx, args, num_args));
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
  etr_reduce_request_t request = {.op = ETR_REDUCE_MEAN, .self = self,
                                  .mask = mask, .keepdim = keepdim,
                                  .values = out};
  if (!etr_reduce_run(ctx, &request)) {
    return etr_opt_fallback(etr_ref_mean_out, ctx, args, num_args);
  }
  return ETR_OK;
}

// aten::mean.dtype_out
etr_error_t etr_opt_mean_dtype_out(etr_kernel_context_t *ctx,
                                   etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 2);
  if (etr_reduce_memo_run(ctx, self, out, NULL)) {
    return ETR_OK;
  }
  if (num_args != 4 || !specialized_dtypes(self, out)) {
    return etr_opt_fallback(etr_ref_mean_dtype_out, ctx, args, num_args);
  }
  ETR_TRY(etr_opt_check(etr_ref_mean_dtype_out, ctx, args, num_args));
  if (ctx->dry_run) {
    return ETR_OK;
  }
  uint32_t mask = self->dim > 0 ? (uint32_t)((1ull << self->dim) - 1u) : 0u;
  etr_reduce_request_t request = {.op = ETR_REDUCE_MEAN, .self = self,
                                  .mask = mask, .keepdim = false,
                                  .values = out};
  if (!etr_reduce_run(ctx, &request)) {
    return etr_opt_fallback(etr_ref_mean_dtype_out, ctx, args, num_args);
  }
  return ETR_OK;
}

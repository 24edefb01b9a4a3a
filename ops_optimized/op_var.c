// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::var.correction_out and aten::var.out: the variance of a
// dense Float, Half or BFloat16 self over dims forming one run in memory
// order, into an out of its dtype (or Float for a Half/BFloat16 self),
// runs the reduction driver (reduce/reduce.h) with the reference's two
// passes in double (mean, then squared deviations; fp32 loads widened),
// divided by max(N - correction, 0) and rounded once. Complex, other
// dtypes and layouts, empty inputs and argument errors go to the reference
// kernel (ops_reference/op_var.c), whose dry run checks and resizes first.
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

// Reads dim (argument 1) and keepdim, and runs the driver; false when it
// does not take the case.
static etr_error_t run(etr_kernel_context_t *ctx, etr_evalue_t **args,
                       size_t num_args, double correction,
                       size_t keepdim_index, etr_tensor_t *self,
                       etr_tensor_t *out, bool *done) {
  bool has_dims = false;
  const int64_t *dims = NULL;
  size_t num_dims = 0;
  bool keepdim = false;
  uint32_t mask = 0;
  ETR_TRY(etr_arg_optional_int_list(ctx, args, num_args, 1, "dim", &has_dims,
                                    &dims, &num_dims));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, keepdim_index, "keepdim",
                       &keepdim));
  ETR_TRY(etr_dim_list_mask(ctx, dims, num_dims, has_dims, self->dim, &mask));
  etr_reduce_request_t request = {.op = ETR_REDUCE_VAR, .self = self,
                                  .mask = mask, .keepdim = keepdim,
                                  .values = out, .correction = correction};
  *done = etr_reduce_run(ctx, &request);
  return ETR_OK;
}

// aten::var.correction_out
etr_error_t etr_opt_var_correction_out(etr_kernel_context_t *ctx,
                                       etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 4);
  if (etr_reduce_memo_run(ctx, self, out, NULL)) {
    return ETR_OK;
  }
  if (num_args != 6 || !specialized_dtypes(self, out)) {
    return etr_opt_fallback(etr_ref_var_correction_out, ctx, args, num_args);
  }
  ETR_TRY(etr_opt_check(etr_ref_var_correction_out, ctx, args, num_args));
  if (ctx->dry_run) {
    return ETR_OK;
  }
  bool has_correction = false;
  etr_scalar_t correction;
  ETR_TRY(etr_arg_optional_scalar(ctx, args, num_args, 2, "correction",
                                  &has_correction, &correction));
  bool done = false;
  ETR_TRY(run(ctx, args, num_args,
              has_correction ? correction.as_double : 1.0, 3, self, out,
              &done));
  return done ? ETR_OK
              : etr_opt_fallback(etr_ref_var_correction_out, ctx, args,
                                 num_args);
}

// aten::var.out
etr_error_t etr_opt_var_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                            size_t num_args) {
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 4);
  if (etr_reduce_memo_run(ctx, self, out, NULL)) {
    return ETR_OK;
  }
  if (num_args != 6 || !specialized_dtypes(self, out)) {
    return etr_opt_fallback(etr_ref_var_out, ctx, args, num_args);
  }
  ETR_TRY(etr_opt_check(etr_ref_var_out, ctx, args, num_args));
  if (ctx->dry_run) {
    return ETR_OK;
  }
  bool unbiased = true;
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 2, "unbiased", &unbiased));
  bool done = false;
  ETR_TRY(run(ctx, args, num_args, unbiased ? 1.0 : 0.0, 3, self, out,
              &done));
  return done ? ETR_OK
              : etr_opt_fallback(etr_ref_var_out, ctx, args, num_args);
}

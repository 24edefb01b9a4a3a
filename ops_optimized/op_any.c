// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::any.all_out, aten::any.dims_out and aten::any.out: a
// dense Float or Bool self reduced into a Bool out over dims forming one
// run in memory order runs the reduction driver (reduce/reduce.h): a
// Float element counts when it is not +-0 (NaN counts), a Bool byte when
// it is not 0; rows stop at their first hit. Other dtypes (and the uint8
// out, which ATen reduces through uint8 conversions), layouts, empty
// inputs and argument errors go to the reference kernel
// (ops_reference/op_any.c), whose dry run checks and resizes first.
#include "ops_optimized/common/args.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/reduce/reduce.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/shape.h"

static bool specialized_dtypes(const etr_tensor_t *self,
                               const etr_tensor_t *out) {
  return self != NULL && out != NULL &&
         (self->dtype == ETR_FLOAT || self->dtype == ETR_BOOL) &&
         out->dtype == ETR_BOOL;
}

static bool run(etr_kernel_context_t *ctx, etr_tensor_t *self, uint32_t mask,
                bool keepdim, etr_tensor_t *out) {
  etr_reduce_request_t request = {.op = ETR_REDUCE_ANY, .self = self,
                                  .mask = mask, .keepdim = keepdim,
                                  .values = out};
  return etr_reduce_run(ctx, &request);
}

// aten::any.all_out
etr_error_t etr_opt_any_all_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                                size_t num_args) {
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 1);
  if (num_args != 3 || !specialized_dtypes(self, out)) {
    return etr_opt_fallback(etr_ref_any_all_out, ctx, args, num_args);
  }
  ETR_TRY(etr_reduce_check_reference(etr_ref_any_all_out, ctx, args,
                                     num_args));
  if (ctx->dry_run) {
    return ETR_OK;
  }
  uint32_t mask = self->dim > 0 ? (uint32_t)((1ull << self->dim) - 1u) : 0u;
  return run(ctx, self, mask, false, out)
             ? ETR_OK
             : etr_opt_fallback(etr_ref_any_all_out, ctx, args, num_args);
}

// aten::any.dims_out
etr_error_t etr_opt_any_dims_out(etr_kernel_context_t *ctx,
                                 etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 3);
  if (num_args != 5 || !specialized_dtypes(self, out)) {
    return etr_opt_fallback(etr_ref_any_dims_out, ctx, args, num_args);
  }
  ETR_TRY(etr_reduce_check_reference(etr_ref_any_dims_out, ctx, args,
                                     num_args));
  if (ctx->dry_run) {
    return ETR_OK;
  }
  bool has_dims = false;
  const int64_t *dims = NULL;
  size_t num_dims = 0;
  bool keepdim = false;
  uint32_t mask = 0;  // an empty list reduces nothing
  ETR_TRY(etr_arg_optional_int_list(ctx, args, num_args, 1, "dim", &has_dims,
                                    &dims, &num_dims));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 2, "keepdim", &keepdim));
  if (!has_dims || num_dims > 0) {
    ETR_TRY(etr_dim_list_mask(ctx, dims, num_dims, has_dims, self->dim,
                              &mask));
  }
  return run(ctx, self, mask, keepdim, out)
             ? ETR_OK
             : etr_opt_fallback(etr_ref_any_dims_out, ctx, args, num_args);
}

// aten::any.out
etr_error_t etr_opt_any_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                            size_t num_args) {
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 3);
  if (num_args != 5 || !specialized_dtypes(self, out)) {
    return etr_opt_fallback(etr_ref_any_out, ctx, args, num_args);
  }
  ETR_TRY(etr_reduce_check_reference(etr_ref_any_out, ctx, args,
                                     num_args));
  if (ctx->dry_run) {
    return ETR_OK;
  }
  int64_t dim = 0;
  bool keepdim = false;
  uint32_t mask = 0;
  ETR_TRY(etr_arg_int(ctx, args, num_args, 1, "dim", &dim));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 2, "keepdim", &keepdim));
  ETR_TRY(etr_dim_list_mask(ctx, &dim, 1, true, self->dim, &mask));
  return run(ctx, self, mask, keepdim, out)
             ? ETR_OK
             : etr_opt_fallback(etr_ref_any_out, ctx, args, num_args);
}

// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::prod.int_out and aten::prod.out: a dense Float, Half,
// BFloat16 or Long self into an out of its dtype runs the scan driver
// (scan/scan.h; Half and BFloat16 staged through fp32, within one ulp):
// products down a dim with others inside it vectorized across those
// (double, the reference's order: bit-exact), products of contiguous rows
// (prod.out, the last dim) in several double lanes (within one float ulp
// of the reference), Long wrapping. Dtype conversions, reductions whose
// dims are not one run in memory, 0-dim and empty inputs and argument
// errors go to the reference kernel (ops_reference/op_prod.c), whose dry
// run checks and resizes first.
#include "ops_optimized/common/args.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/reduce/reduce.h"
#include "ops_optimized/scan/scan.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/shape.h"

// aten::prod.int_out
etr_error_t etr_opt_prod_int_out(etr_kernel_context_t *ctx,
                                 etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 4);
  if (num_args != 6 || self == NULL || out == NULL ||
      out->dtype != self->dtype) {
    return etr_opt_fallback(etr_ref_prod_int_out, ctx, args, num_args);
  }
  ETR_TRY(
      etr_opt_check(etr_ref_prod_int_out, ctx, args, num_args));
  if (ctx->dry_run) {
    return ETR_OK;
  }
  int64_t dim_arg = 0;
  int32_t dim = 0;
  bool keepdim = false;
  ETR_TRY(etr_arg_int(ctx, args, num_args, 1, "dim", &dim_arg));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 2, "keepdim", &keepdim));
  if (self->dim == 0) {
    return etr_opt_fallback(etr_ref_prod_int_out, ctx, args, num_args);
  }
  ETR_TRY(etr_normalize_dim(ctx, dim_arg, self->dim, &dim));
  if (!etr_prod_run(ctx->temp, self, 1u << dim, keepdim, out)) {
    return etr_opt_fallback(etr_ref_prod_int_out, ctx, args, num_args);
  }
  return ETR_OK;
}

// aten::prod.out
etr_error_t etr_opt_prod_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                             size_t num_args) {
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 2);
  if (num_args != 4 || self == NULL || out == NULL ||
      out->dtype != self->dtype || self->dim == 0) {
    return etr_opt_fallback(etr_ref_prod_out, ctx, args, num_args);
  }
  ETR_TRY(etr_opt_check(etr_ref_prod_out, ctx, args, num_args));
  if (ctx->dry_run) {
    return ETR_OK;
  }
  uint32_t all = (uint32_t)((1u << (uint32_t)self->dim) - 1u);
  if (!etr_prod_run(ctx->temp, self, all, false, out)) {
    return etr_opt_fallback(etr_ref_prod_out, ctx, args, num_args);
  }
  return ETR_OK;
}

// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::max_pool2d_with_indices.out: a dense Float, Half or
// BFloat16 input (the latter two staged through fp32 in ctx->temp, exact
// both ways), contiguous [N, C, H, W] / [C, H, W] or channels-last, with
// outs laid out alike, runs the pooling driver (pool/pool.h): NCHW rows
// vectorized across output columns (stride 1 and 2; padding and ceil_mode
// borders by the reference's window rule), NHWC pixels across channels.
// Exact, with
// PyTorch's NaN and first-position rules. Other dtypes and layouts and
// argument errors go to the reference kernel
// (ops_reference/op_max_pool2d_with_indices.c), whose dry run checks and
// resizes first (skipped for max_pool2d(2) on outs already of the
// result's shape, where it could only pass and change nothing).
#include "ops_optimized/common/args.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/pool/pool.h"
#include "ops_optimized/reduce/reduce.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/pool.h"

// The window arguments, read as the reference reads them (which fails
// first on a bad one).
static etr_error_t read_params(etr_kernel_context_t *ctx,
                               etr_evalue_t **args, size_t num_args,
                               etr_pool_params_t *p) {
  ETR_TRY(etr_pool2d_read_window(ctx, args, num_args, 1, p->kernel, p->stride,
                                 p->padding));
  return etr_pool2d_read_pair(ctx, args, num_args, 4, "dilation", NULL,
                              p->dilation);
}

// True for the CNNs' max_pool2d(2) (2x2, stride 2, no padding, dilation
// 1, floor mode) on a Float input whose last three dims are at least
// 1 x 2 x 2, with Float/Long outs already of the result's shape: every
// check of the reference's dry run passes there and its resizes change
// nothing, so the call skips it (measured 0.06 us of the CNN's 0.7 us
// pool).
static bool settled_2x2s2(etr_kernel_context_t *ctx, etr_evalue_t **args,
                          size_t num_args, const etr_pool_params_t *p,
                          const etr_tensor_t *self, const etr_tensor_t *out,
                          const etr_tensor_t *indices) {
  bool ceil_mode = true;
  return etr_pool_is_2x2s2(p) && p->dilation[0] == 1 &&
         p->dilation[1] == 1 &&
         etr_arg_bool(ctx, args, num_args, 5, "ceil_mode", &ceil_mode) ==
             ETR_OK &&
         !ceil_mode && out->dtype == ETR_FLOAT &&
         indices->dtype == ETR_LONG && etr_pool_halves(self, out) &&
         etr_pool_halves(self, indices);
}

// The kernel; `write_indices` false skips the indices (which the caller
// knows nobody reads) where the driver runs, not where the reference does.
static etr_error_t max_pool(etr_kernel_context_t *ctx, etr_evalue_t **args,
                            size_t num_args, bool write_indices) {
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 6);
  etr_tensor_t *indices = etr_opt_tensor_arg(args, num_args, 7);
  if (num_args != 9 || self == NULL || out == NULL || indices == NULL ||
      !etr_reduce_is_f32_like(self->dtype)) {
    return etr_opt_fallback(etr_ref_max_pool2d_with_indices_out, ctx, args,
                            num_args);
  }
  etr_pool_params_t p = {0};
  bool read = read_params(ctx, args, num_args, &p) == ETR_OK;
  if (!read || ctx->dry_run || !settled_2x2s2(ctx, args, num_args, &p, self,
                                              out, indices)) {
    ETR_TRY(etr_opt_check(etr_ref_max_pool2d_with_indices_out,
                          ctx, args, num_args));
    if (ctx->dry_run) {
      return ETR_OK;
    }
    if (!read) {
      ETR_TRY(read_params(ctx, args, num_args, &p));
    }
  }
  if (!etr_max_pool2d_run(ctx->temp, self, &p, out,
                          write_indices ? indices : NULL)) {
    return etr_opt_fallback(etr_ref_max_pool2d_with_indices_out, ctx, args,
                            num_args);
  }
  return ETR_OK;
}

etr_error_t etr_pool_max2d_values_only(etr_kernel_context_t *ctx,
                                       etr_evalue_t **args, size_t num_args) {
  return max_pool(ctx, args, num_args, false);
}

// aten::max_pool2d_with_indices.out
etr_error_t etr_opt_max_pool2d_with_indices_out(etr_kernel_context_t *ctx,
                                                etr_evalue_t **args,
                                                size_t num_args) {
  return max_pool(ctx, args, num_args, true);
}

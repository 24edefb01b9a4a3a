// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::avg_pool1d.out: a contiguous Float, Half or BFloat16
// [N, C, L] or [C, L] input into a contiguous out of its dtype runs the
// 2-D average-pool driver over the [.., 1, L] view ATen itself pools
// (pool/pool1d.c): rows vectorized
// across output positions, borders with ATen's divisor rules, fp32 window
// sums divided once (exact for integer data; Half and BFloat16 staged
// through fp32 in ctx->temp, rounded once more). Other dtypes and layouts
// and argument errors go to the reference kernel
// (ops_reference/op_avg_pool1d.c), whose dry run checks and resizes first.
#include "ops_optimized/common/args.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/pool/pool.h"
#include "ops_optimized/reduce/reduce.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/nn_util.h"

// aten::avg_pool1d.out
etr_error_t etr_opt_avg_pool1d_out(etr_kernel_context_t *ctx,
                                   etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 6);
  if (num_args != 8 || self == NULL || out == NULL ||
      !etr_reduce_is_f32_like(self->dtype)) {
    return etr_opt_fallback(etr_ref_avg_pool1d_out, ctx, args, num_args);
  }
  ETR_TRY(etr_opt_check(etr_ref_avg_pool1d_out, ctx, args, num_args));
  if (ctx->dry_run) {
    return ETR_OK;
  }
  int64_t kernel = 0;
  int64_t stride = 0;
  int64_t padding = 0;
  bool ceil_mode = false;
  bool count_include_pad = false;
  ETR_TRY(etr_nn_read_ints(ctx, args, num_args, 1, "kernel_size", 1, false,
                           NULL, &kernel));
  ETR_TRY(etr_nn_read_ints(ctx, args, num_args, 2, "stride", 1, false,
                           &kernel, &stride));
  ETR_TRY(etr_nn_read_ints(ctx, args, num_args, 3, "padding", 1, false, NULL,
                           &padding));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 4, "ceil_mode", &ceil_mode));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 5, "count_include_pad",
                       &count_include_pad));
  if (!etr_avg_pool1d_run(ctx->temp, self, kernel, stride, padding, ceil_mode,
                          count_include_pad, out)) {
    return etr_opt_fallback(etr_ref_avg_pool1d_out, ctx, args, num_args);
  }
  return ETR_OK;
}

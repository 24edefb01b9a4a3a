// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::avg_pool2d.out: a dense Float input, contiguous
// [N, C, H, W] / [C, H, W] or channels-last, into an out laid out alike,
// runs the pooling driver (pool/pool.h): NCHW rows vectorized across
// output columns (stride 1 and 2), borders (padding, ceil_mode) with
// ATen's divisor rules, NHWC pixels across channels; window sums in fp32
// divided once (exact for integer data). Other dtypes and layouts and
// argument errors go to the reference kernel
// (ops_reference/op_avg_pool2d.c), whose dry run checks and resizes first.
#include "ops_optimized/common/args.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/pool/pool.h"
#include "ops_optimized/reduce/reduce.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/pool.h"

// aten::avg_pool2d.out
etr_error_t etr_opt_avg_pool2d_out(etr_kernel_context_t *ctx,
                                   etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 7);
  if (num_args != 9 || self == NULL || out == NULL ||
      self->dtype != ETR_FLOAT) {
    return etr_opt_fallback(etr_ref_avg_pool2d_out, ctx, args, num_args);
  }
  ETR_TRY(etr_reduce_check_reference(etr_ref_avg_pool2d_out, ctx, args,
                                     num_args));
  if (ctx->dry_run) {
    return ETR_OK;
  }
  etr_pool_params_t p = {.dilation = {1, 1}};
  ETR_TRY(etr_pool2d_read_pair(ctx, args, num_args, 1, "kernel_size", NULL,
                               p.kernel));
  ETR_TRY(etr_pool2d_read_pair(ctx, args, num_args, 2, "stride", p.kernel,
                               p.stride));
  ETR_TRY(etr_pool2d_read_pair(ctx, args, num_args, 3, "padding", NULL,
                               p.padding));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 4, "ceil_mode", &p.ceil_mode));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 5, "count_include_pad",
                       &p.count_include_pad));
  ETR_TRY(etr_arg_optional_int(ctx, args, num_args, 6, "divisor_override",
                               &p.has_divisor, &p.divisor));
  if (!etr_avg_pool2d_run(self, &p, out)) {
    return etr_opt_fallback(etr_ref_avg_pool2d_out, ctx, args, num_args);
  }
  return ETR_OK;
}

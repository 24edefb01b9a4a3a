// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::_adaptive_avg_pool2d.out: a dense Float, Half or
// BFloat16 input (the latter two staged through fp32 in ctx->temp),
// contiguous or channels-last, into an out laid out alike runs the pooling
// driver (pool/pool.h) when the output cells tile the input evenly: the
// global average (1x1; a mean over H, W summed in double, rows for NCHW,
// columns for NHWC) and evenly dividing sizes (an average pool with kernel
// = stride = cell). Uneven cells, other dtypes and layouts, and argument
// errors go to the reference kernel (ops_reference/op_adaptive_avg_pool2d.c),
// whose dry run checks and resizes first.
#include "ops_optimized/common/args.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/pool/pool.h"
#include "ops_optimized/reduce/reduce.h"
#include "ops_reference/ops_reference.h"

// aten::_adaptive_avg_pool2d.out
etr_error_t etr_opt_adaptive_avg_pool2d_out(etr_kernel_context_t *ctx,
                                            etr_evalue_t **args,
                                            size_t num_args) {
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 2);
  if (num_args != 4 || self == NULL || out == NULL ||
      !etr_reduce_is_f32_like(self->dtype)) {
    return etr_opt_fallback(etr_ref_adaptive_avg_pool2d_out, ctx, args,
                            num_args);
  }
  ETR_TRY(etr_opt_check(etr_ref_adaptive_avg_pool2d_out, ctx, args, num_args));
  if (ctx->dry_run) {
    return ETR_OK;
  }
  const int64_t *output_size = NULL;
  size_t count = 0;
  ETR_TRY(etr_arg_int_list(ctx, args, num_args, 1, "output_size",
                           &output_size, &count));
  if (!etr_adaptive_avg_pool2d_run(ctx->temp, self, output_size[0],
                                   output_size[1], out)) {
    return etr_opt_fallback(etr_ref_adaptive_avg_pool2d_out, ctx, args,
                            num_args);
  }
  return ETR_OK;
}

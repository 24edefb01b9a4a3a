// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::adaptive_avg_pool1d.out: a contiguous Float, Half or
// BFloat16 [N, C, L] or [C, L] input (the latter two staged through fp32
// in ctx->temp) whose length the output size divides (global pooling
// included) runs the 2-D adaptive driver over the [.., 1, L] view ATen
// pools (pool/pool1d.c): the global mean as a vectorized row sum in
// double, other sizes as a kernel = stride average pool. Uneven cells,
// other dtypes and layouts, empty outs and argument errors go to the
// reference kernel (ops_reference/op_adaptive_avg_pool1d.c), whose dry
// run checks and resizes first.
#include "ops_optimized/common/args.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/pool/pool.h"
#include "ops_optimized/reduce/reduce.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/nn_util.h"
#include "ops_reference/support/shape.h"

// aten::adaptive_avg_pool1d.out
etr_error_t etr_opt_adaptive_avg_pool1d_out(etr_kernel_context_t *ctx,
                                            etr_evalue_t **args,
                                            size_t num_args) {
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 2);
  if (num_args != 4 || self == NULL || out == NULL ||
      !etr_reduce_is_f32_like(self->dtype)) {
    return etr_opt_fallback(etr_ref_adaptive_avg_pool1d_out, ctx, args,
                            num_args);
  }
  ETR_TRY(etr_opt_check(etr_ref_adaptive_avg_pool1d_out, ctx, args, num_args));
  if (ctx->dry_run) {
    return ETR_OK;
  }
  int64_t output_size = 0;
  ETR_TRY(etr_nn_read_ints(ctx, args, num_args, 1, "output_size", 1, false,
                           NULL, &output_size));
  if (etr_numel(out) == 0 ||
      !etr_adaptive_avg_pool1d_run(ctx->temp, self, output_size, out)) {
    return etr_opt_fallback(etr_ref_adaptive_avg_pool1d_out, ctx, args,
                            num_args);
  }
  return ETR_OK;
}

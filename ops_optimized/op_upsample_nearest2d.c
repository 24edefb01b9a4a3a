// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::upsample_nearest2d.vec_out: a dense [N, C, H, W] input
// of any dtype the reference takes (Float, Half, BFloat16, Double, Byte:
// elements are only moved), contiguous or channels-last, into an out of
// its dtype laid out alike runs the resampling driver
// (resample/resample.h): source indices computed once per row and column
// with the reference's float arithmetic; NCHW rows gathered
// (2x duplicated, repeated rows copied), NHWC pixels copied. Exact. Other
// dtypes and layouts and argument errors go to the reference kernel
// (ops_reference/op_upsample_nearest2d.c), whose dry run checks and
// resizes first.
#include "ops_optimized/common/args.h"
#include "ops_optimized/common/check.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/resample/resample.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/nn_upsample.h"

// aten::upsample_nearest2d.vec_out
etr_error_t etr_opt_upsample_nearest2d_vec_out(etr_kernel_context_t *ctx,
                                               etr_evalue_t **args,
                                               size_t num_args) {
  etr_tensor_t *input = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 3);
  if (num_args != 5 || input == NULL || out == NULL) {
    return etr_opt_fallback(etr_ref_upsample_nearest2d_vec_out, ctx, args,
                            num_args);
  }
  ETR_TRY(etr_opt_check(etr_ref_upsample_nearest2d_vec_out, ctx,
                        args, num_args));
  if (ctx->dry_run) {
    return ETR_OK;
  }
  etr_nn_upsample_t up;
  int64_t sizes[4];
  ETR_TRY(etr_nn_upsample_prepare(ctx, args, num_args, 1, 2, input, &up,
                                  sizes));
  etr_resample_axis_t axes[2];
  for (int s = 0; s < 2; ++s) {
    axes[s] = (etr_resample_axis_t){up.in[s], up.out[s],
                                    up.has_scale ? up.scale[s] : 0.0};
  }
  if (!etr_upsample_nearest2d_run(ctx, input, axes, out)) {
    return etr_opt_fallback(etr_ref_upsample_nearest2d_vec_out, ctx, args,
                            num_args);
  }
  return ETR_OK;
}

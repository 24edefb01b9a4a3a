// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::upsample_bilinear2d.vec_out: a dense Float, Half or
// BFloat16 [N, C, H, W] input, contiguous or channels-last, into an out of
// its dtype laid out alike runs the resampling driver
// (resample/resample.h): taps computed once per row and column with the
// reference's float op-math, NCHW rows blended with gathers, NHWC pixels
// blended across channels, in fp32 (within 4 ulp of the largest
// neighbour; Half and BFloat16 staged through fp32 in ctx->temp, rounded
// once more). Byte, Double, other layouts and argument errors go to the
// reference kernel
// (ops_reference/op_upsample_bilinear2d.c), whose dry run checks first.
#include "ops_optimized/common/args.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/reduce/reduce.h"
#include "ops_optimized/resample/resample.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/nn_upsample.h"

// aten::upsample_bilinear2d.vec_out
etr_error_t etr_opt_upsample_bilinear2d_vec_out(etr_kernel_context_t *ctx,
                                                etr_evalue_t **args,
                                                size_t num_args) {
  etr_tensor_t *input = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 4);
  if (num_args != 6 || input == NULL || out == NULL ||
      !etr_reduce_is_f32_like(input->dtype)) {
    return etr_opt_fallback(etr_ref_upsample_bilinear2d_vec_out, ctx, args,
                            num_args);
  }
  ETR_TRY(etr_opt_check(etr_ref_upsample_bilinear2d_vec_out,
                        ctx, args, num_args));
  if (ctx->dry_run) {
    return ETR_OK;
  }
  bool align_corners = false;
  etr_nn_upsample_t up;
  int64_t sizes[4];
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 2, "align_corners",
                       &align_corners));
  ETR_TRY(etr_nn_upsample_prepare(ctx, args, num_args, 1, 3, input, &up,
                                  sizes));
  etr_resample_axis_t axes[2];
  for (int s = 0; s < 2; ++s) {
    axes[s] = (etr_resample_axis_t){up.in[s], up.out[s],
                                    up.has_scale ? up.scale[s] : 0.0};
  }
  if (!etr_upsample_bilinear2d_run(ctx, input, axes, align_corners, out)) {
    return etr_opt_fallback(etr_ref_upsample_bilinear2d_vec_out, ctx, args,
                            num_args);
  }
  return ETR_OK;
}

// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::grid_sampler_2d.out: contiguous Float input, grid and
// out, bilinear or nearest, run resample/grid_sample.c: each grid cell's
// pixel indices and weights once (the reference's float op-math), then
// every channel interpolated with them -- C times less coordinate work
// than the reference, bit-exact. Bicubic, other dtypes and layouts, and
// argument errors go to the reference kernel (ops_reference/
// op_grid_sampler_2d.c), whose dry run checks and resizes first.
#include "ops_optimized/common/args.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/reduce/reduce.h"
#include "ops_optimized/resample/resample.h"
#include "ops_reference/ops_reference.h"

// aten::grid_sampler_2d.out
etr_error_t etr_opt_grid_sampler_2d_out(etr_kernel_context_t *ctx,
                                        etr_evalue_t **args,
                                        size_t num_args) {
  etr_tensor_t *input = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *grid = etr_opt_tensor_arg(args, num_args, 1);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 5);
  if (num_args != 7 || input == NULL || grid == NULL || out == NULL ||
      input->dtype != ETR_FLOAT) {
    return etr_opt_fallback(etr_ref_grid_sampler_2d_out, ctx, args,
                            num_args);
  }
  ETR_TRY(etr_opt_check(etr_ref_grid_sampler_2d_out, ctx, args, num_args));
  if (ctx->dry_run) {
    return ETR_OK;
  }
  int64_t mode = 0;
  int64_t padding = 0;
  bool align_corners = false;
  ETR_TRY(etr_arg_int(ctx, args, num_args, 2, "interpolation_mode", &mode));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 3, "padding_mode", &padding));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 4, "align_corners",
                       &align_corners));
  if (!etr_grid_sample_run(input, grid, mode, padding, align_corners, out)) {
    return etr_opt_fallback(etr_ref_grid_sampler_2d_out, ctx, args,
                            num_args);
  }
  return ETR_OK;
}

// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::avg_pool2d_backward.grad_input: contiguous Float
// grad_output and grad_input ([N, C, H, W] or [C, H, W]). The reference
// gathers, for every input position, the output cells whose window holds
// it; here each cell, in row-major order, spreads grad / divisor over its
// window into a double accumulator plane, so every input position
// receives the same double terms in the same order and is rounded once:
// bit-exact, with each window's divisor computed once instead of once per
// position it covers. Scratch: one H * W plane of doubles from ctx->temp.
// Other dtypes and layouts, no scratch and argument errors go to the
// reference kernel (ops_reference/op_avg_pool2d_backward.c), whose dry
// run checks and resizes first.
#include <string.h>

#include "core/arena.h"
#include "ops_optimized/common/args.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/reduce/reduce.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/nn_pool.h"
#include "ops_reference/support/pool.h"
#include "ops_reference/support/shape.h"

// aten::avg_pool2d_backward.grad_input
etr_error_t etr_opt_avg_pool2d_backward_grad_input(etr_kernel_context_t *ctx,
                                                   etr_evalue_t **args,
                                                   size_t num_args) {
  etr_kernel_fn reference = etr_ref_avg_pool2d_backward_grad_input;
  etr_tensor_t *grad_output = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 1);
  etr_tensor_t *grad_input = etr_opt_tensor_arg(args, num_args, 8);
  if (num_args != 10 || grad_output == NULL || self == NULL ||
      grad_input == NULL || self->dtype != ETR_FLOAT) {
    return etr_opt_fallback(reference, ctx, args, num_args);
  }
  ETR_TRY(etr_opt_check(reference, ctx, args, num_args));
  if (ctx->dry_run) {
    return ETR_OK;
  }
  etr_pool2d_params_t p;
  etr_nn_avg_options_t options = {.has_divisor = false};
  ETR_TRY(etr_pool2d_read_window(ctx, args, num_args, 2, p.kernel, p.stride,
                                 p.padding));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 5, "ceil_mode", &p.ceil_mode));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 6, "count_include_pad",
                       &options.count_include_pad));
  ETR_TRY(etr_arg_optional_int(ctx, args, num_args, 7, "divisor_override",
                               &options.has_divisor, &options.divisor));
  int64_t height = self->sizes[self->dim - 2];
  int64_t width = self->sizes[self->dim - 1];
  size_t plane = (size_t)(height * width);
  double *sums = ctx->temp != NULL ? etr_arena_alloc(ctx->temp,
                                                     plane * sizeof(double),
                                                     64)
                                   : NULL;
  if (sums == NULL || !etr_opt_is_contiguous_f32(grad_output) ||
      !etr_opt_is_contiguous_f32(grad_input)) {
    return etr_opt_fallback(reference, ctx, args, num_args);
  }
  etr_nn_pool_t pool = {.spatial = 2, .ceil_mode = p.ceil_mode};
  for (int s = 0; s < 2; ++s) {
    pool.kernel[s] = p.kernel[s];
    pool.stride[s] = p.stride[s];
    pool.padding[s] = p.padding[s];
    pool.dilation[s] = 1;
  }
  int64_t out_h = grad_output->sizes[grad_output->dim - 2];
  int64_t out_w = grad_output->sizes[grad_output->dim - 1];
  int64_t planes = etr_numel(self) / (int64_t)(plane > 0 ? plane : 1);
  const float *go = (const float *)grad_output->data;
  float *gi = (float *)grad_input->data;
  for (int64_t n = 0; n < planes; ++n) {
    memset(sums, 0, plane * sizeof(double));
    const float *g = go + n * out_h * out_w;
    for (int64_t oh = 0; oh < out_h; ++oh) {
      int64_t h0 = 0, h1 = 0, padded_h = 0;
      etr_nn_avg_window(&pool, 0, oh, height, &h0, &h1, &padded_h);
      for (int64_t ow = 0; ow < out_w; ++ow) {
        int64_t w0 = 0, w1 = 0, padded_w = 0;
        etr_nn_avg_window(&pool, 1, ow, width, &w0, &w1, &padded_w);
        int64_t divisor = (h1 - h0) * (w1 - w0);
        if (options.has_divisor) {
          divisor = options.divisor;
        } else if (options.count_include_pad) {
          divisor = etr_saturating_mul(padded_h, padded_w);
        }
        double term = (double)g[oh * out_w + ow] / (double)divisor;
        for (int64_t h = h0; h < h1; ++h) {
          double *row = sums + h * width;
          for (int64_t w = w0; w < w1; ++w) {
            row[w] += term;
          }
        }
      }
    }
    float *target = gi + n * (int64_t)plane;
    for (size_t k = 0; k < plane; ++k) {
      target[k] = (float)sums[k];
    }
  }
  return ETR_OK;
}

// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::_adaptive_avg_pool2d_backward.out: contiguous Float
// grad_output, self and out ([N, C, H, W] or [C, H, W]). The reference
// gathers, for every input position, the cells whose bin holds it; here
// each cell, in row-major order, spreads grad / bin size over its bin into
// a double accumulator plane, so every input position receives the same
// double terms in the same order, rounded once: bit-exact, with the bin
// bounds computed once per cell. Scratch: one H * W plane of doubles from
// ctx->temp. Bins that tile the plane store each cell's one term over its
// bin instead, with no plane (64 planes of 7 x 7 to 56 x 56, AMD Zen 5:
// 125 -> 14 us). Other dtypes and layouts, no scratch and argument errors go
// to the reference kernel (ops_reference/
// op_adaptive_avg_pool2d_backward.c), whose dry run checks and resizes
// first.
#include <string.h>

#include "core/arena.h"
#include "ops_optimized/common/args.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/reduce/reduce.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/nn_pool.h"
#include "ops_reference/support/shape.h"

// Bins that tile the plane (the out's sizes divide the input's): each
// position takes its one bin's term -- what the reference's double sum
// from +0.0 holds, rounded -- stored over the bin: the first row of a row
// of bins, then copies of it. A bin size that is a power of two divides
// as a multiplication by its reciprocal (the same double, exactly).
static void spread_tiles(const float *g, int64_t out_h, int64_t out_w,
                         int64_t bin_h, int64_t bin_w, float *target) {
  const int64_t width = out_w * bin_w;
  const int64_t size = bin_h * bin_w;
  const double inverse = etr_reduce_exact_inverse(size);
  for (int64_t oh = 0; oh < out_h; ++oh) {
    float *first = target + oh * bin_h * width;
    for (int64_t ow = 0; ow < out_w; ++ow) {
      float value =
          etr_reduce_lone_quotient(g[oh * out_w + ow], size, inverse);
      for (int64_t w = 0; w < bin_w; ++w) {
        first[ow * bin_w + w] = value;
      }
    }
    for (int64_t h = 1; h < bin_h; ++h) {
      memcpy(first + h * width, first, (size_t)width * sizeof(float));
    }
  }
}

// aten::_adaptive_avg_pool2d_backward.out
etr_error_t etr_opt_adaptive_avg_pool2d_backward_out(
    etr_kernel_context_t *ctx, etr_evalue_t **args, size_t num_args) {
  etr_kernel_fn reference = etr_ref_adaptive_avg_pool2d_backward_out;
  etr_tensor_t *grad_output = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 1);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 2);
  if (num_args != 4 || grad_output == NULL || self == NULL || out == NULL ||
      self->dtype != ETR_FLOAT) {
    return etr_opt_fallback(reference, ctx, args, num_args);
  }
  ETR_TRY(etr_opt_check(reference, ctx, args, num_args));
  if (ctx->dry_run) {
    return ETR_OK;
  }
  int64_t height = self->sizes[self->dim - 2];
  int64_t width = self->sizes[self->dim - 1];
  size_t plane = (size_t)(height * width);
  int64_t out_h = grad_output->sizes[grad_output->dim - 2];
  int64_t out_w = grad_output->sizes[grad_output->dim - 1];
  const bool tiles = out_h > 0 && out_w > 0 && height % out_h == 0 &&
                     width % out_w == 0;
  double *sums = NULL;
  if (!tiles && ctx->temp != NULL) {
    sums = etr_arena_alloc(ctx->temp, plane * sizeof(double), 64);
  }
  if ((!tiles && sums == NULL) || !etr_opt_is_contiguous_f32(grad_output) ||
      !etr_opt_is_contiguous_f32(out)) {
    return etr_opt_fallback(reference, ctx, args, num_args);
  }
  int64_t planes = etr_numel(self) / (int64_t)plane;
  const float *go = (const float *)grad_output->data;
  float *gi = (float *)out->data;
  for (int64_t n = 0; tiles && n < planes; ++n) {
    spread_tiles(go + n * out_h * out_w, out_h, out_w, height / out_h,
                 width / out_w, gi + n * (int64_t)plane);
  }
  for (int64_t n = 0; !tiles && n < planes; ++n) {
    memset(sums, 0, plane * sizeof(double));
    const float *g = go + n * out_h * out_w;
    for (int64_t oh = 0; oh < out_h; ++oh) {
      int64_t h0 = etr_nn_adaptive_start(oh, out_h, height);
      int64_t h1 = etr_nn_adaptive_end(oh, out_h, height);
      for (int64_t ow = 0; ow < out_w; ++ow) {
        int64_t w0 = etr_nn_adaptive_start(ow, out_w, width);
        int64_t w1 = etr_nn_adaptive_end(ow, out_w, width);
        double term =
            (double)g[oh * out_w + ow] / (double)((h1 - h0) * (w1 - w0));
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

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
// Windows that do not overlap (stride >= kernel) store each cell's one
// term over its window instead, with no plane (2x2 stride 2, 64 planes of
// 56 x 56, AMD Zen 5: 281 -> 76 us).
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

// A window's divisor: its size inside the input, the padded size
// (count_include_pad) or the override.
static int64_t window_divisor(const etr_nn_avg_options_t *options,
                              int64_t rows, int64_t columns,
                              int64_t padded_h, int64_t padded_w) {
  if (options->has_divisor) {
    return options->divisor;
  }
  if (options->count_include_pad) {
    return etr_saturating_mul(padded_h, padded_w);
  }
  return rows * columns;
}

enum { kMaxColumns = 256 };

// One column window of the disjoint path: [w0, w1) and its padded size.
typedef struct column_window {
  int64_t w0, w1, padded;
} column_window_t;

// The disjoint windows of one plane: each cell's one term -- what the
// reference's double sum (from +0.0) holds, rounded -- stored over its
// window, zeros elsewhere (none when the windows cover the plane:
// `covered`). A row of cells is rounded into `values` first,
// then stored into each input row its windows cover (two stores a cell
// for 2-wide windows at stride 2). A divisor that is a power of two
// divides as a multiplication by its reciprocal (the same double,
// exactly).
static void spread_disjoint(const etr_nn_pool_t *pool,
                            const etr_nn_avg_options_t *options,
                            const float *g, int64_t out_h, int64_t out_w,
                            int64_t height, int64_t width,
                            const column_window_t *columns, bool pairs,
                            bool covered, float *values, float *target) {
  if (!covered) {
    memset(target, 0, (size_t)(height * width) * sizeof(float));
  }
  for (int64_t oh = 0; oh < out_h; ++oh) {
    int64_t h0 = 0, h1 = 0, padded_h = 0;
    etr_nn_avg_window(pool, 0, oh, height, &h0, &h1, &padded_h);
    int64_t last = -1;  // the last divisor and its reciprocal (or 0)
    double inverse = 0.0;
    const float *g_row = g + oh * out_w;
    for (int64_t ow = 0; ow < out_w; ++ow) {
      const column_window_t *c = &columns[ow];
      int64_t divisor = window_divisor(options, h1 - h0, c->w1 - c->w0,
                                       padded_h, c->padded);
      if (divisor != last) {
        last = divisor;
        inverse = etr_reduce_exact_inverse(divisor);
      }
      values[ow] = etr_reduce_lone_quotient(g_row[ow], divisor, inverse);
    }
    for (int64_t h = h0; h < h1; ++h) {
      float *row = target + h * width;
      if (pairs) {
        for (int64_t ow = 0; ow < out_w; ++ow) {
          row[2 * ow] = values[ow];
          row[2 * ow + 1] = values[ow];
        }
        continue;
      }
      for (int64_t ow = 0; ow < out_w; ++ow) {
        for (int64_t w = columns[ow].w0; w < columns[ow].w1; ++w) {
          row[w] = values[ow];
        }
      }
    }
  }
}

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
  // Windows that do not overlap (stride >= kernel along both dims) give
  // each input position at most one term: no accumulator plane (rows of up
  // to kMaxColumns cells, whose column windows are computed once).
  int64_t out_h = grad_output->sizes[grad_output->dim - 2];
  int64_t out_w = grad_output->sizes[grad_output->dim - 1];
  const bool disjoint = p.stride[0] >= p.kernel[0] &&
                        p.stride[1] >= p.kernel[1] && out_w <= kMaxColumns;
  double *sums = NULL;
  if (!disjoint && ctx->temp != NULL) {
    sums = etr_arena_alloc(ctx->temp, plane * sizeof(double), 64);
  }
  if ((!disjoint && sums == NULL) ||
      !etr_opt_is_contiguous_f32(grad_output) ||
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
  column_window_t columns[kMaxColumns];
  float values[kMaxColumns];
  bool pairs = true;  // every column window is [2 ow, 2 ow + 2)
  for (int64_t ow = 0; disjoint && ow < out_w; ++ow) {
    etr_nn_avg_window(&pool, 1, ow, width, &columns[ow].w0, &columns[ow].w1,
                      &columns[ow].padded);
    pairs = pairs && columns[ow].w0 == 2 * ow && columns[ow].w1 == 2 * ow + 2;
  }
  // Whether 2x2 windows tile the whole plane (no position left at zero).
  bool covered = disjoint && pairs && 2 * out_w == width &&
                 2 * out_h == height;
  for (int64_t oh = 0; covered && oh < out_h; ++oh) {
    int64_t h0 = 0, h1 = 0, padded_h = 0;
    etr_nn_avg_window(&pool, 0, oh, height, &h0, &h1, &padded_h);
    covered = h0 == 2 * oh && h1 == 2 * oh + 2;
  }
  int64_t planes = etr_numel(self) / (int64_t)(plane > 0 ? plane : 1);
  const float *go = (const float *)grad_output->data;
  float *gi = (float *)grad_input->data;
  for (int64_t n = 0; n < planes; ++n) {
    const float *g = go + n * out_h * out_w;
    float *target = gi + n * (int64_t)plane;
    if (disjoint) {
      spread_disjoint(&pool, &options, g, out_h, out_w, height, width,
                      columns, pairs, covered, values, target);
      continue;
    }
    memset(sums, 0, plane * sizeof(double));
    for (int64_t oh = 0; oh < out_h; ++oh) {
      int64_t h0 = 0, h1 = 0, padded_h = 0;
      etr_nn_avg_window(&pool, 0, oh, height, &h0, &h1, &padded_h);
      for (int64_t ow = 0; ow < out_w; ++ow) {
        int64_t w0 = 0, w1 = 0, padded_w = 0;
        etr_nn_avg_window(&pool, 1, ow, width, &w0, &w1, &padded_w);
        int64_t divisor = window_divisor(&options, h1 - h0, w1 - w0,
                                         padded_h, padded_w);
        double term = (double)g[oh * out_w + ow] / (double)divisor;
        for (int64_t h = h0; h < h1; ++h) {
          double *row = sums + h * width;
          for (int64_t w = w0; w < w1; ++w) {
            row[w] += term;
          }
        }
      }
    }
    for (size_t k = 0; k < plane; ++k) {
      target[k] = (float)sums[k];
    }
  }
  return ETR_OK;
}

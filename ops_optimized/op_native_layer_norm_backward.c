// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::native_layer_norm_backward.out: contiguous Float
// grad_out, input, mean, rstd, weight and bias (either may be absent) and
// outs. The reference's formulas in its order, on typed rows instead of
// per-element dtype dispatch and stride arithmetic: per row, the two
// double sums over the row, then dx = rstd * gamma * dy + b * x + c; the
// weight and bias gradients sum each column down the rows in row order,
// here as one pass over the rows into double column accumulators (scratch:
// 2 * n doubles from ctx->temp). Every sum keeps the reference's order:
// bit-exact. Other dtypes and layouts, no scratch and argument errors go
// to the reference kernel (ops_reference/op_native_layer_norm_backward.c),
// whose dry run checks and resizes first.
#include <string.h>

#include "core/arena.h"
#include "ops_optimized/common/args.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/reduce/reduce.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/nn_util.h"
#include "ops_reference/support/shape.h"

static bool f32_or_null(const etr_tensor_t *tensor) {
  return tensor == NULL || etr_opt_is_contiguous_f32(tensor);
}

// aten::native_layer_norm_backward.out
etr_error_t etr_opt_native_layer_norm_backward_out(etr_kernel_context_t *ctx,
                                                   etr_evalue_t **args,
                                                   size_t num_args) {
  etr_kernel_fn reference = etr_ref_native_layer_norm_backward_out;
  etr_tensor_t *input = etr_opt_tensor_arg(args, num_args, 1);
  if (num_args != 12 || input == NULL || input->dtype != ETR_FLOAT) {
    return etr_opt_fallback(reference, ctx, args, num_args);
  }
  ETR_TRY(etr_opt_check(reference, ctx, args, num_args));
  if (ctx->dry_run) {
    return ETR_OK;
  }
  etr_tensor_t *grad_out = NULL;
  etr_tensor_t *mean = NULL;
  etr_tensor_t *rstd = NULL;
  etr_tensor_t *weight = NULL;
  etr_tensor_t *bias = NULL;
  const int64_t *shape = NULL;
  size_t count = 0;
  bool mask[3];
  etr_tensor_t *outs[3] = {NULL, NULL, NULL};
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "grad_out", &grad_out));
  ETR_TRY(etr_arg_int_list(ctx, args, num_args, 2, "normalized_shape", &shape,
                           &count));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 3, "mean", &mean));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 4, "rstd", &rstd));
  ETR_TRY(etr_arg_optional_tensor(ctx, args, num_args, 5, "weight", &weight));
  ETR_TRY(etr_arg_optional_tensor(ctx, args, num_args, 6, "bias", &bias));
  ETR_TRY(etr_nn_read_output_mask(ctx, args, num_args, 7, mask));
  for (int i = 0; i < 3; ++i) {
    ETR_TRY(etr_nn_arg_grad_out(ctx, args, num_args, 8 + (size_t)i, "out",
                                mask[i], &outs[i]));
  }
  int64_t n = 1;
  for (size_t i = 0; i < count; ++i) {
    n *= shape[i];
  }
  int64_t rows = n > 0 ? etr_numel(input) / n : 0;
  double *columns = NULL;
  if (ctx->temp != NULL && n > 0) {
    columns = etr_arena_alloc(ctx->temp, 2 * (size_t)n * sizeof(double), 64);
  }
  bool typed = etr_opt_is_contiguous_f32(grad_out) &&
               etr_opt_is_contiguous_f32(input) &&
               etr_opt_is_contiguous_f32(mean) &&
               etr_opt_is_contiguous_f32(rstd) && f32_or_null(weight) &&
               f32_or_null(bias) && f32_or_null(outs[0]) &&
               f32_or_null(outs[1]) && f32_or_null(outs[2]);
  if (!typed || (n > 0 && columns == NULL)) {
    return etr_opt_fallback(reference, ctx, args, num_args);
  }
  const float *dy_all = (const float *)grad_out->data;
  const float *x_all = (const float *)input->data;
  const float *mu = (const float *)mean->data;
  const float *rs = (const float *)rstd->data;
  const float *gamma = weight != NULL ? (const float *)weight->data : NULL;
  if (outs[0] != NULL && n > 0) {
    double scale = 1.0 / (double)n;
    float *dx_all = (float *)outs[0]->data;
    for (int64_t r = 0; r < rows; ++r) {
      const float *dy = dy_all + r * n;
      const float *x = x_all + r * n;
      double m = (double)mu[r];
      double s = (double)rs[r];
      double ds = 0.0;
      double db = 0.0;
      for (int64_t j = 0; j < n; ++j) {
        double g = (double)dy[j] * (gamma != NULL ? (double)gamma[j] : 1.0);
        ds += g * (double)x[j];
        db += g;
      }
      double b = (db * m - ds) * s * s * s * scale;
      double c = -b * m - db * s * scale;
      float *dx = dx_all + r * n;
      for (int64_t j = 0; j < n; ++j) {
        double g = gamma != NULL ? (double)gamma[j] : 1.0;
        dx[j] = (float)(s * g * (double)dy[j] + b * (double)x[j] + c);
      }
    }
  }
  if (outs[1] != NULL || outs[2] != NULL) {
    double *dweight = columns;
    double *dbias = columns + n;
    memset(columns, 0, 2 * (size_t)n * sizeof(double));
    for (int64_t r = 0; r < rows; ++r) {
      const float *dy = dy_all + r * n;
      const float *x = x_all + r * n;
      double m = (double)mu[r];
      double s = (double)rs[r];
      for (int64_t j = 0; j < n; ++j) {
        dweight[j] += (double)dy[j] * ((double)x[j] - m) * s;
        dbias[j] += (double)dy[j];
      }
    }
    for (int64_t j = 0; j < n; ++j) {
      if (outs[1] != NULL) {
        ((float *)outs[1]->data)[j] = (float)dweight[j];
      }
      if (outs[2] != NULL) {
        ((float *)outs[2]->data)[j] = (float)dbias[j];
      }
    }
  }
  return ETR_OK;
}

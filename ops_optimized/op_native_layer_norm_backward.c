// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::native_layer_norm_backward.out: contiguous Float
// grad_out, input, mean, rstd, weight and bias (either may be absent) and
// outs. The reference's formulas in its order, on typed rows through the
// norm table's kernels (norm/norm.h) instead of per-element dtype dispatch
// and stride arithmetic: per row, the two double sums over the row (on
// AVX-512 eight rows at a time, a row a lane), then dx = rstd * gamma * dy
// + b * x + c; the weight and bias gradients sum each column down the rows
// in row order, here as one pass over the rows into double column
// accumulators (scratch: 2 * n doubles from ctx->temp, which also holds
// the row sums of 32 rows at a time). Every sum keeps the reference's
// order: bit-exact (256 rows of 768, AMD Zen 5: 377 -> 104 us). Other
// dtypes and layouts, no scratch and argument errors go to the reference
// kernel (ops_reference/op_native_layer_norm_backward.c), whose dry run
// checks and resizes first.
#include <string.h>

#include "core/arena.h"
#include "ops_optimized/common/args.h"
#include "ops_optimized/norm/norm.h"
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
  const etr_norm_kernels_t *k = etr_norm_kernels_for(etr_isa_active());
  if (outs[0] != NULL && n > 0) {
    double scale = 1.0 / (double)n;
    float *dx_all = (float *)outs[0]->data;
    // The row sums 32 rows at a time, into the columns' scratch (free
    // until below: 2 n doubles).
    const size_t block = (size_t)n < 32 ? (size_t)n : 32;
    for (int64_t r0 = 0; r0 < rows; r0 += (int64_t)block) {
      size_t count = (size_t)(rows - r0) < block ? (size_t)(rows - r0)
                                                 : block;
      double *ds = columns;
      double *db = columns + count;
      k->ln_backward_sums(count, (size_t)n, dy_all + r0 * n, x_all + r0 * n,
                          gamma, ds, db);
      for (size_t i = 0; i < count; ++i) {
        int64_t r = r0 + (int64_t)i;
        double m = (double)mu[r];
        double s = (double)rs[r];
        double b = (db[i] * m - ds[i]) * s * s * s * scale;
        double c = -b * m - db[i] * s * scale;
        k->ln_backward_dx((size_t)n, dy_all + r * n, x_all + r * n, gamma, s,
                          b, c, dx_all + r * n);
      }
    }
  }
  if (outs[1] != NULL || outs[2] != NULL) {
    double *dweight = columns;
    double *dbias = columns + n;
    memset(columns, 0, 2 * (size_t)n * sizeof(double));
    for (int64_t r = 0; r < rows; ++r) {
      k->ln_backward_columns((size_t)n, dy_all + r * n, x_all + r * n,
                             (double)mu[r], (double)rs[r], dweight, dbias);
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

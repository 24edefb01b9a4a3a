// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::native_group_norm_backward.out: contiguous Float
// grad_out, input, mean, rstd, weight (optional) and outs. The reference
// recomputes each channel's two sums (over H * W) once for the input
// gradient and once more per batch element for the parameter gradients;
// here they are computed once per (n, c) on typed rows into scratch (2 * N
// * C doubles from ctx->temp) and then combined with the reference's
// formulas in its order: bit-exact. The sums and the input gradient are
// the norm table's layer norm backward kernels with no gamma (the same
// arithmetic): 64 channels of 56 x 56 in 32 groups, AMD Zen 5, 246 us
// one double add chain per channel. Other dtypes and layouts, no scratch
// and argument errors go to the reference kernel (ops_reference/
// op_native_group_norm_backward.c), whose dry run checks and resizes
// first.
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

// aten::native_group_norm_backward.out
etr_error_t etr_opt_native_group_norm_backward_out(etr_kernel_context_t *ctx,
                                                   etr_evalue_t **args,
                                                   size_t num_args) {
  etr_kernel_fn reference = etr_ref_native_group_norm_backward_out;
  etr_tensor_t *input = etr_opt_tensor_arg(args, num_args, 1);
  if (num_args != 14 || input == NULL || input->dtype != ETR_FLOAT) {
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
  int64_t batch = 0, channels = 0, hxw = 0, group = 0;
  bool mask[3];
  etr_tensor_t *outs[3] = {NULL, NULL, NULL};
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "grad_out", &grad_out));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 2, "mean", &mean));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 3, "rstd", &rstd));
  ETR_TRY(etr_arg_optional_tensor(ctx, args, num_args, 4, "weight", &weight));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 5, "N", &batch));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 6, "C", &channels));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 7, "HxW", &hxw));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 8, "group", &group));
  ETR_TRY(etr_nn_read_output_mask(ctx, args, num_args, 9, mask));
  for (int i = 0; i < 3; ++i) {
    ETR_TRY(etr_nn_arg_grad_out(ctx, args, num_args, 10 + (size_t)i, "out",
                                mask[i], &outs[i]));
  }
  size_t pairs = (size_t)(batch * channels);
  double *sums = NULL;
  if (ctx->temp != NULL && pairs > 0) {
    sums = etr_arena_alloc(ctx->temp, 2 * pairs * sizeof(double), 64);
  }
  bool typed = etr_opt_is_contiguous_f32(grad_out) &&
               etr_opt_is_contiguous_f32(input) &&
               etr_opt_is_contiguous_f32(mean) &&
               etr_opt_is_contiguous_f32(rstd) && f32_or_null(weight) &&
               f32_or_null(outs[0]) && f32_or_null(outs[1]) &&
               f32_or_null(outs[2]);
  if (!typed || (pairs > 0 && sums == NULL)) {
    return etr_opt_fallback(reference, ctx, args, num_args);
  }
  const float *dy_all = (const float *)grad_out->data;
  const float *x_all = (const float *)input->data;
  const float *mu = (const float *)mean->data;
  const float *rs = (const float *)rstd->data;
  const float *gamma = weight != NULL ? (const float *)weight->data : NULL;
  // Empty planes (hxw == 0) may come with NULL data: no pointer
  // arithmetic on them, not even + 0.
  double *ds = sums;
  double *db = pairs > 0 ? sums + pairs : NULL;
  // The norm table's layer norm kernels without a gamma are these sums
  // and this dx, each step rounded as the reference rounds it (dy * 1.0 is
  // dy; s * 1.0 is s): AVX-512 runs 8 rows a vector, one row a lane.
  const etr_norm_kernels_t *kernels = etr_norm_kernels_for(etr_isa_active());
  if (hxw > 0 && pairs > 0) {  // (no planes: NULL data and scratch)
    kernels->ln_backward_sums(pairs, (size_t)hxw, dy_all, x_all, NULL, ds,
                              db);
  } else {
    for (size_t k = 0; k < pairs; ++k) {
      ds[k] = 0.0;
      db[k] = 0.0;
    }
  }
  int64_t d = channels / group;
  if (outs[0] != NULL) {
    double scale = 1.0 / (double)(d * hxw);
    float *dx_all = (float *)outs[0]->data;
    for (int64_t n = 0; n < batch; ++n) {
      for (int64_t g = 0; g < group; ++g) {
        double m = (double)mu[n * group + g];
        double r = (double)rs[n * group + g];
        double dsg = 0.0;
        double dbg = 0.0;
        for (int64_t c = g * d; c < (g + 1) * d; ++c) {
          double w = gamma != NULL ? (double)gamma[c] : 1.0;
          dsg += ds[n * channels + c] * w;
          dbg += db[n * channels + c] * w;
        }
        double c2 = (dbg * m - dsg) * r * r * r * scale;
        double c3 = -c2 * m - dbg * r * scale;
        for (int64_t c = g * d; c < (g + 1) * d && hxw > 0; ++c) {
          double c1 = r * (gamma != NULL ? (double)gamma[c] : 1.0);
          int64_t first = (n * channels + c) * hxw;
          // dx = (float)(c1 dy + c2 x + c3), as (c1 * 1.0) dy + c2 x + c3.
          kernels->ln_backward_dx((size_t)hxw, dy_all + first, x_all + first,
                                  NULL, c1, c2, c3, dx_all + first);
        }
      }
    }
  }
  if (outs[1] != NULL || outs[2] != NULL) {
    for (int64_t c = 0; c < channels; ++c) {
      double dweight = 0.0;
      double dbias = 0.0;
      for (int64_t n = 0; n < batch; ++n) {
        int64_t stat = n * group + c / d;
        dweight += (ds[n * channels + c] - db[n * channels + c] * mu[stat]) *
                   (double)rs[stat];
        dbias += db[n * channels + c];
      }
      if (outs[1] != NULL) {
        ((float *)outs[1]->data)[c] = (float)dweight;
      }
      if (outs[2] != NULL) {
        ((float *)outs[2]->data)[c] = (float)dbias;
      }
    }
  }
  return ETR_OK;
}

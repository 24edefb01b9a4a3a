// SPDX-License-Identifier: Apache-2.0
//
// Training batch norm (_native_batch_norm_legit.out / .no_stats_out with
// training = true; see norm.h): the batch statistics of each channel with
// the reduction microkernels, then the inference driver's affine pass.
//
// Memory order [outer, C, inner]: a contiguous input is (N, C, spatial),
// reduced plane by plane with sum_rows/sumsq_rows (one [C, spatial] slab
// per batch element, accumulated per channel); a channels-last one is
// (N * H * W, C, 1), reduced in one sum_cols/sumsq_cols pass down the
// pixels. Sums and squared deviations are accumulated in double as the
// reference does (another order: equal for integer data whose mean is
// dyadic, else within gamma_n of it), mean = sum / n, var = squares / n;
// the normalization is etr_batch_norm_run with (mean, var) as its running
// statistics, so alpha = w / sqrt(var + eps) and beta = b - mean * alpha
// exactly as the reference forms them. save_mean, save_invstd and the
// running-statistics update use the reference's formulas on the same
// doubles.
#include <math.h>
#include <string.h>

#include "ops_optimized/norm/norm.h"
#include "ops_optimized/reduce/reduce.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/shape.h"

enum { kMaxChannels = 1024 };  // statistics kept on the stack

static bool is_f32_vector(const etr_tensor_t *tensor, int64_t channels) {
  return tensor == NULL ||
         (tensor->dtype == ETR_FLOAT && tensor->dim == 1 &&
          tensor->sizes[0] == channels);
}

static float *f32_at(etr_tensor_t *tensor, int64_t c) {
  return (float *)tensor->data + c * tensor->strides[0];
}

bool etr_batch_norm_train_run(etr_kernel_context_t *ctx,
                              const etr_tensor_t *input,
                              const etr_tensor_t *weight,
                              const etr_tensor_t *bias,
                              etr_tensor_t *running_mean,
                              etr_tensor_t *running_var, double momentum,
                              double eps, etr_tensor_t *out,
                              etr_tensor_t *save_mean,
                              etr_tensor_t *save_invstd) {
  if (input->dtype != ETR_FLOAT || input->dim < 2 ||
      etr_numel(input) == 0 || !etr_tensor_is_dense(input)) {
    return false;
  }
  int64_t channels = input->sizes[1];
  const etr_tensor_t *params[6] = {weight,    bias,     running_mean,
                                   running_var, save_mean, save_invstd};
  for (int i = 0; i < 6; ++i) {
    if (!is_f32_vector(params[i], channels)) {
      return false;
    }
  }
  bool channels_last =
      etr_dim_order_is_channels_last(input->dim_order, input->dim) &&
      !etr_dim_order_is_contiguous(input->dim_order, input->dim);
  if (!channels_last &&
      !etr_dim_order_is_contiguous(input->dim_order, input->dim)) {
    return false;
  }
  if (channels > kMaxChannels) {
    return false;
  }
  size_t c_count = (size_t)channels;
  size_t spatial = (size_t)(etr_numel(input) / input->sizes[0]) / c_count;
  size_t outer = channels_last ? (size_t)input->sizes[0] * spatial
                               : (size_t)input->sizes[0];
  size_t inner = channels_last ? 1 : spatial;
  size_t slab = c_count * inner;
  double n = (double)outer * (double)inner;
  double sums[kMaxChannels];
  double squares[kMaxChannels];
  double part[kMaxChannels];
  double stats[2 * kMaxChannels];  // mean, then var: the apply's "running"
  const etr_reduce_kernels_t *r = etr_reduce_kernels_for(etr_isa_active());
  const float *x = (const float *)input->data;
  if (inner == 1) {
    r->sum_cols(outer, c_count, c_count, x, sums);
  } else {
    memset(sums, 0, c_count * sizeof(double));
    for (size_t o = 0; o < outer; ++o) {
      r->sum_rows(c_count, inner, x + o * slab, part);
      for (size_t c = 0; c < c_count; ++c) {
        sums[c] += part[c];
      }
    }
  }
  double *mean = stats;
  double *var = stats + c_count;
  for (size_t c = 0; c < c_count; ++c) {
    mean[c] = sums[c] / n;
  }
  if (inner == 1) {
    r->sumsq_cols(outer, c_count, c_count, x, mean, squares);
  } else {
    memset(squares, 0, c_count * sizeof(double));
    for (size_t o = 0; o < outer; ++o) {
      r->sumsq_rows(c_count, inner, x + o * slab, mean, part);
      for (size_t c = 0; c < c_count; ++c) {
        squares[c] += part[c];
      }
    }
  }
  for (size_t c = 0; c < c_count; ++c) {
    var[c] = squares[c] / n;
  }
  etr_tensor_t mean_tensor;
  etr_tensor_t var_tensor;
  if (etr_tensor_init(&mean_tensor, ETR_DOUBLE, 1, &channels, mean,
                      c_count * sizeof(double), NULL) != ETR_OK ||
      etr_tensor_init(&var_tensor, ETR_DOUBLE, 1, &channels, var,
                      c_count * sizeof(double), NULL) != ETR_OK ||
      !etr_batch_norm_run(ctx, input, weight, bias, &mean_tensor,
                          &var_tensor, eps, out)) {
    return false;
  }
  for (size_t c = 0; c < c_count; ++c) {
    int64_t at = (int64_t)c;
    *f32_at(save_mean, at) = (float)mean[c];
    *f32_at(save_invstd, at) = (float)(1.0 / sqrt(var[c] + eps));
    if (running_mean != NULL) {
      float *rm = f32_at(running_mean, at);
      float *rv = f32_at(running_var, at);
      *rm = (float)((1.0 - momentum) * (double)*rm + momentum * mean[c]);
      *rv = (float)((1.0 - momentum) * (double)*rv +
                    momentum * (squares[c] / (n - 1.0)));
    }
  }
  return true;
}

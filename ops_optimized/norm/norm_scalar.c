// SPDX-License-Identifier: Apache-2.0
//
// Softmax and normalization microkernels in portable C (libm's expf and
// logf), and the per-ISA selection of the norm table. Semantics in norm.h.
#include <math.h>

#include "ops_optimized/norm/norm.h"

static float max_scalar(size_t n, const float *x) {
  float m = x[0];
  for (size_t i = 1; i < n; ++i) {
    if (isnan(x[i])) {
      return x[i];
    }
    m = x[i] > m ? x[i] : m;
  }
  return m;
}

static float exp_sum_scalar(size_t n, const float *x, float m, float *y) {
  float sum = 0.0f;
  for (size_t i = 0; i < n; ++i) {
    float e = expf(x[i] - m);
    y[i] = e;
    sum += e;
  }
  return sum;
}

static float exp_sum_only_scalar(size_t n, const float *x, float m) {
  float sum = 0.0f;
  for (size_t i = 0; i < n; ++i) {
    sum += expf(x[i] - m);
  }
  return sum;
}

static void scale_scalar(size_t n, float *y, float s) {
  for (size_t i = 0; i < n; ++i) {
    y[i] *= s;
  }
}

static void sub2_scalar(size_t n, const float *x, float a, float b,
                        float *y) {
  for (size_t i = 0; i < n; ++i) {
    y[i] = (x[i] - a) - b;
  }
}

static void softmax_cols_scalar(size_t r, size_t n, size_t stride,
                                const float *x, float *y, bool log) {
  for (size_t i = 0; i < n; ++i) {
    float m = x[i];
    for (size_t j = 1; j < r && !isnan(m); ++j) {
      float v = x[j * stride + i];
      m = (v > m || isnan(v)) ? v : m;
    }
    float sum = 0.0f;
    for (size_t j = 0; j < r; ++j) {
      float e = expf(x[j * stride + i] - m);
      if (!log) {
        y[j * stride + i] = e;
      }
      sum += e;
    }
    if (log) {
      float log_sum = logf(sum);
      for (size_t j = 0; j < r; ++j) {
        y[j * stride + i] = (x[j * stride + i] - m) - log_sum;
      }
    } else {
      float inverse = 1.0f / sum;
      for (size_t j = 0; j < r; ++j) {
        y[j * stride + i] *= inverse;
      }
    }
  }
}

static void normalize_scalar(size_t n, const float *x, float mean_hi,
                             float mean_lo, float scale, float shift,
                             float *y) {
  for (size_t i = 0; i < n; ++i) {
    y[i] = fmaf((x[i] - mean_hi) - mean_lo, scale, shift);
  }
}

static void normalize_affine_scalar(size_t n, const float *x, float mean_hi,
                                    float mean_lo, float rstd,
                                    const float *w, const float *b,
                                    float *y) {
  for (size_t i = 0; i < n; ++i) {
    float t = ((x[i] - mean_hi) - mean_lo) * rstd;
    float weight = w != NULL ? w[i] : 1.0f;
    float bias = b != NULL ? b[i] : 0.0f;
    y[i] = fmaf(t, weight, bias);
  }
}

static void affine_scalar(size_t n, const float *x, float alpha, float beta,
                          float *y) {
  for (size_t i = 0; i < n; ++i) {
    y[i] = fmaf(x[i], alpha, beta);
  }
}

static void affine_channels_scalar(size_t pixels, size_t c, const float *x,
                                   const float *alpha, const float *beta,
                                   float *y) {
  for (size_t p = 0; p < pixels; ++p, x += c, y += c) {
    for (size_t k = 0; k < c; ++k) {
      y[k] = fmaf(x[k], alpha[k], beta[k]);
    }
  }
}

static void affine_planes_scalar(size_t c, size_t inner, const float *x,
                                 const float *alpha, const float *beta,
                                 float *y) {
  for (size_t k = 0; k < c; ++k) {
    affine_scalar(inner, x + k * inner, alpha[k], beta[k], y + k * inner);
  }
}

void etr_norm_bn_params_scalar(size_t c, const float *w, const float *b,
                               const float *m, const float *v, double eps,
                               float *alpha, float *beta) {
  for (size_t k = 0; k < c; ++k) {
    double invstd = 1.0 / sqrt((v != NULL ? (double)v[k] : 1.0) + eps);
    double a = (w != NULL ? (double)w[k] : 1.0) * invstd;
    alpha[k] = (float)a;
    beta[k] = (float)((b != NULL ? (double)b[k] : 0.0) -
                      (m != NULL ? (double)m[k] : 0.0) * a);
  }
}

void etr_norm_ln_backward_sums_scalar(size_t rows, size_t n, const float *dy,
                                      const float *x, const float *gamma,
                                      double *ds, double *db) {
  for (size_t r = 0; r < rows; ++r) {
    const float *dy_row = dy + r * n;
    const float *x_row = x + r * n;
    double s = 0.0;
    double b = 0.0;
    for (size_t j = 0; j < n; ++j) {
      double g = (double)dy_row[j] * (gamma != NULL ? (double)gamma[j] : 1.0);
      s += g * (double)x_row[j];
      b += g;
    }
    ds[r] = s;
    db[r] = b;
  }
}

void etr_norm_ln_backward_dx_scalar(size_t n, const float *dy,
                                    const float *x, const float *gamma,
                                    double s, double b, double c, float *dx) {
  for (size_t j = 0; j < n; ++j) {
    double g = gamma != NULL ? (double)gamma[j] : 1.0;
    dx[j] = (float)(s * g * (double)dy[j] + b * (double)x[j] + c);
  }
}

void etr_norm_ln_backward_columns_scalar(size_t n, const float *dy,
                                         const float *x, double m, double s,
                                         double *dweight, double *dbias) {
  for (size_t j = 0; j < n; ++j) {
    dweight[j] += (double)dy[j] * ((double)x[j] - m) * s;
    dbias[j] += (double)dy[j];
  }
}

const etr_norm_kernels_t etr_norm_kernels_scalar = {
    .max = max_scalar,
    .exp_sum = exp_sum_scalar,
    .exp_sum_only = exp_sum_only_scalar,
    .scale = scale_scalar,
    .sub2 = sub2_scalar,
    .softmax_cols = softmax_cols_scalar,
    .normalize = normalize_scalar,
    .normalize_affine = normalize_affine_scalar,
    .affine = affine_scalar,
    .affine_channels = affine_channels_scalar,
    .affine_planes = affine_planes_scalar,
    .bn_params = etr_norm_bn_params_scalar,
    .ln_backward_sums = etr_norm_ln_backward_sums_scalar,
    .ln_backward_dx = etr_norm_ln_backward_dx_scalar,
    .ln_backward_columns = etr_norm_ln_backward_columns_scalar,
};

const etr_norm_kernels_t *etr_norm_kernels_for(etr_isa_t isa) {
  switch (isa) {
#if defined(__x86_64__)
    case ETR_ISA_AVX512:
      return &etr_norm_kernels_avx512;
    case ETR_ISA_AVX2:
      return &etr_norm_kernels_avx2;
#endif
#if defined(__aarch64__)
    case ETR_ISA_NEON:
      return &etr_norm_kernels_neon;
#endif
    default:
      return &etr_norm_kernels_scalar;
  }
}

// SPDX-License-Identifier: Apache-2.0
//
// Scan microkernels, NEON (aarch64 Advanced SIMD): 2 doubles per vector,
// 4 columns (or row lanes) per step (two accumulators, one 4-float load
// widened with vcvt_f64_f32 / vcvt_high_f64_f32, narrowed with
// vcvt_f32_f64: round to nearest, as the scalar cast). Column tails and
// short rows run element by element: nothing past a row or column block
// is touched. Semantics in scan.h.
#include <arm_neon.h>

#include "ops_optimized/scan/scan.h"

static void cumsum_cols_neon(size_t r, size_t n, size_t stride,
                             const float *x, float *y) {
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    float64x2_t a0 = vdupq_n_f64(0.0);
    float64x2_t a1 = vdupq_n_f64(0.0);
    for (size_t j = 0; j < r; ++j) {
      float32x4_t v = vld1q_f32(x + j * stride + i);
      a0 = vaddq_f64(a0, vcvt_f64_f32(vget_low_f32(v)));
      a1 = vaddq_f64(a1, vcvt_high_f64_f32(v));
      vst1q_f32(y + j * stride + i,
                vcombine_f32(vcvt_f32_f64(a0), vcvt_f32_f64(a1)));
    }
  }
  for (; i < n; ++i) {
    double acc = 0.0;
    for (size_t j = 0; j < r; ++j) {
      acc += (double)x[j * stride + i];
      y[j * stride + i] = (float)acc;
    }
  }
}

static void prod_cols_neon(size_t r, size_t n, size_t stride,
                           const float *x, double *y) {
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    float64x2_t p0 = vdupq_n_f64(1.0);
    float64x2_t p1 = vdupq_n_f64(1.0);
    for (size_t j = 0; j < r; ++j) {
      float32x4_t v = vld1q_f32(x + j * stride + i);
      p0 = vmulq_f64(p0, vcvt_f64_f32(vget_low_f32(v)));
      p1 = vmulq_f64(p1, vcvt_high_f64_f32(v));
    }
    vst1q_f64(y + i, p0);
    vst1q_f64(y + i + 2, p1);
  }
  for (; i < n; ++i) {
    double p = 1.0;
    for (size_t j = 0; j < r; ++j) {
      p *= (double)x[j * stride + i];
    }
    y[i] = p;
  }
}

// Lanes as the scalar kernel's: lane k multiplies elements k, k + 4, ...
// (two 2-double vectors), combined as (l0 * l1) * (l2 * l3).
static void prod_rows_neon(size_t rows, size_t n, const float *x,
                           double *y) {
  for (size_t o = 0; o < rows; ++o) {
    const float *row = x + o * n;
    float64x2_t p01 = vdupq_n_f64(1.0);
    float64x2_t p23 = vdupq_n_f64(1.0);
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
      float32x4_t v = vld1q_f32(row + i);
      p01 = vmulq_f64(p01, vcvt_f64_f32(vget_low_f32(v)));
      p23 = vmulq_f64(p23, vcvt_high_f64_f32(v));
    }
    double lanes[4] = {vgetq_lane_f64(p01, 0), vgetq_lane_f64(p01, 1),
                       vgetq_lane_f64(p23, 0), vgetq_lane_f64(p23, 1)};
    for (size_t k = 0; i < n; ++i, ++k) {
      lanes[k] *= (double)row[i];
    }
    y[o] = (lanes[0] * lanes[1]) * (lanes[2] * lanes[3]);
  }
}

const etr_scan_kernels_t etr_scan_kernels_neon = {
    .cumsum_cols = cumsum_cols_neon,
    .prod_cols = prod_cols_neon,
    .prod_rows = prod_rows_neon,
};

// SPDX-License-Identifier: Apache-2.0
//
// Row-distance microkernels, NEON (aarch64 Advanced SIMD): 4 floats per
// step widened to two 2-double vectors (two accumulators), the tail
// element by element. FMAXNM returns the number when one operand is NaN:
// the reference's "ignore NaN" max. Semantics in distance.h.
#include <arm_neon.h>
#include <math.h>

#include "ops_optimized/distance/distance.h"

static double sum_sq_neon(size_t n, const float *a, const float *b) {
  float64x2_t s0 = vdupq_n_f64(0.0);
  float64x2_t s1 = vdupq_n_f64(0.0);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    float32x4_t va = vld1q_f32(a + i);
    float32x4_t vb = vld1q_f32(b + i);
    float64x2_t d0 = vsubq_f64(vcvt_f64_f32(vget_low_f32(va)),
                               vcvt_f64_f32(vget_low_f32(vb)));
    float64x2_t d1 =
        vsubq_f64(vcvt_high_f64_f32(va), vcvt_high_f64_f32(vb));
    s0 = vaddq_f64(s0, vmulq_f64(d0, d0));
    s1 = vaddq_f64(s1, vmulq_f64(d1, d1));
  }
  double total = vaddvq_f64(vaddq_f64(s0, s1));
  for (; i < n; ++i) {
    double d = (double)a[i] - (double)b[i];
    total += d * d;
  }
  return total;
}

static double sum_abs_neon(size_t n, const float *a, const float *b) {
  float64x2_t s0 = vdupq_n_f64(0.0);
  float64x2_t s1 = vdupq_n_f64(0.0);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    float32x4_t va = vld1q_f32(a + i);
    float32x4_t vb = vld1q_f32(b + i);
    s0 = vaddq_f64(s0, vabdq_f64(vcvt_f64_f32(vget_low_f32(va)),
                                 vcvt_f64_f32(vget_low_f32(vb))));
    s1 = vaddq_f64(s1,
                   vabdq_f64(vcvt_high_f64_f32(va), vcvt_high_f64_f32(vb)));
  }
  double total = vaddvq_f64(vaddq_f64(s0, s1));
  for (; i < n; ++i) {
    total += fabs((double)a[i] - (double)b[i]);
  }
  return total;
}

static double max_abs_neon(size_t n, const float *a, const float *b) {
  float64x2_t m0 = vdupq_n_f64(0.0);
  float64x2_t m1 = vdupq_n_f64(0.0);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    float32x4_t va = vld1q_f32(a + i);
    float32x4_t vb = vld1q_f32(b + i);
    m0 = vmaxnmq_f64(m0, vabdq_f64(vcvt_f64_f32(vget_low_f32(va)),
                                   vcvt_f64_f32(vget_low_f32(vb))));
    m1 = vmaxnmq_f64(
        m1, vabdq_f64(vcvt_high_f64_f32(va), vcvt_high_f64_f32(vb)));
  }
  double total = vmaxnmvq_f64(vmaxnmq_f64(m0, m1));
  for (; i < n; ++i) {
    double magnitude = fabs((double)a[i] - (double)b[i]);
    total = magnitude > total ? magnitude : total;
  }
  return total;
}

const etr_distance_kernels_t etr_distance_kernels_neon = {
    .sum_sq = sum_sq_neon,
    .sum_abs = sum_abs_neon,
    .max_abs = max_abs_neon,
};

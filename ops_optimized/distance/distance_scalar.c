// SPDX-License-Identifier: Apache-2.0
//
// Row-distance microkernels, portable C (the baseline and the model of the
// SIMD files: four lanes, lane k taking elements k, k + 4, ..., combined
// as (l0 + l1) + (l2 + l3)), and the table selection. Semantics in
// distance.h.
#include "ops_optimized/distance/distance.h"

#include <math.h>

static double sum_sq_scalar(size_t n, const float *a, const float *b) {
  double lanes[4] = {0.0, 0.0, 0.0, 0.0};
  for (size_t i = 0; i < n; ++i) {
    double d = (double)a[i] - (double)b[i];
    lanes[i % 4] += d * d;
  }
  return (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
}

static double sum_abs_scalar(size_t n, const float *a, const float *b) {
  double lanes[4] = {0.0, 0.0, 0.0, 0.0};
  for (size_t i = 0; i < n; ++i) {
    lanes[i % 4] += fabs((double)a[i] - (double)b[i]);
  }
  return (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
}

static double max_abs_scalar(size_t n, const float *a, const float *b) {
  double total = 0.0;
  for (size_t i = 0; i < n; ++i) {
    double magnitude = fabs((double)a[i] - (double)b[i]);
    total = magnitude > total ? magnitude : total;  // ignores NaN
  }
  return total;
}

const etr_distance_kernels_t etr_distance_kernels_scalar = {
    .sum_sq = sum_sq_scalar,
    .sum_abs = sum_abs_scalar,
    .max_abs = max_abs_scalar,
};

const etr_distance_kernels_t *etr_distance_kernels_for(etr_isa_t isa) {
  switch (isa) {
#if defined(__x86_64__)
    case ETR_ISA_AVX512:
      return &etr_distance_kernels_avx512;
    case ETR_ISA_AVX2:
      return &etr_distance_kernels_avx2;
#endif
#if defined(__aarch64__)
    case ETR_ISA_NEON:
      return &etr_distance_kernels_neon;
#endif
    default:
      return &etr_distance_kernels_scalar;
  }
}

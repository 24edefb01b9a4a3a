// SPDX-License-Identifier: Apache-2.0
//
// Scan microkernels, portable C (the baseline of every machine and the
// model of the SIMD files), and the table selection. Semantics in scan.h.
#include "ops_optimized/scan/scan.h"

static void cumsum_cols_scalar(size_t r, size_t n, size_t stride,
                               const float *x, float *y) {
  enum { kBlock = 64 };
  double acc[kBlock];
  for (size_t i0 = 0; i0 < n; i0 += kBlock) {
    size_t count = n - i0 < kBlock ? n - i0 : kBlock;
    for (size_t i = 0; i < count; ++i) {
      acc[i] = 0.0;
    }
    for (size_t j = 0; j < r; ++j) {
      const float *row = x + j * stride + i0;
      float *out = y + j * stride + i0;
      for (size_t i = 0; i < count; ++i) {
        acc[i] += (double)row[i];
        out[i] = (float)acc[i];
      }
    }
  }
}

static void prod_cols_scalar(size_t r, size_t n, size_t stride,
                             const float *x, double *y) {
  for (size_t i = 0; i < n; ++i) {
    y[i] = 1.0;
  }
  for (size_t j = 0; j < r; ++j) {
    const float *row = x + j * stride;
    for (size_t i = 0; i < n; ++i) {
      y[i] *= (double)row[i];
    }
  }
}

// Four double lanes, lane k taking elements k, k + 4, ..., combined as
// (l0 * l1) * (l2 * l3): the same order as the SIMD kernels' lanes folded
// pairwise, so every ISA gives one result.
static void prod_rows_scalar(size_t rows, size_t n, const float *x,
                             double *y) {
  for (size_t o = 0; o < rows; ++o) {
    const float *row = x + o * n;
    double lanes[4] = {1.0, 1.0, 1.0, 1.0};
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
      for (size_t k = 0; k < 4; ++k) {
        lanes[k] *= (double)row[i + k];
      }
    }
    for (size_t k = 0; i < n; ++i, ++k) {
      lanes[k] *= (double)row[i];
    }
    y[o] = (lanes[0] * lanes[1]) * (lanes[2] * lanes[3]);
  }
}

const etr_scan_kernels_t etr_scan_kernels_scalar = {
    .cumsum_cols = cumsum_cols_scalar,
    .prod_cols = prod_cols_scalar,
    .prod_rows = prod_rows_scalar,
};

const etr_scan_kernels_t *etr_scan_kernels_for(etr_isa_t isa) {
  switch (isa) {
#if defined(__x86_64__)
    case ETR_ISA_AVX512:
      return &etr_scan_kernels_avx512;
    case ETR_ISA_AVX2:
      return &etr_scan_kernels_avx2;
#endif
#if defined(__aarch64__)
    case ETR_ISA_NEON:
      return &etr_scan_kernels_neon;
#endif
    default:
      return &etr_scan_kernels_scalar;
  }
}

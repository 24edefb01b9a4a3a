// SPDX-License-Identifier: Apache-2.0
//
// Scan microkernels, AVX-512: 8 columns (or row lanes) per 512-bit vector
// of doubles, 16 columns per step (two accumulators); fp32 loads widened
// with cvtps_pd and narrowed with cvtpd_ps (round to nearest, as the
// scalar cast). Tails use masked loads and stores: nothing past a row or
// column block is touched. Semantics in scan.h.
#include <immintrin.h>

#include "ops_optimized/scan/scan.h"

#define ALWAYS_INLINE static inline __attribute__((always_inline))

ALWAYS_INLINE __mmask8 mask8(size_t count) {
  return (__mmask8)((1u << count) - 1u);
}

// Columns i .. i + 8 V - 1 down the rows: V running sums of 8 doubles
// (V a constant after inlining).
static inline __attribute__((always_inline)) void cumsum_strip(
    size_t r, size_t stride, const float *x, float *y, size_t i,
    const int V) {
  __m512d a[16];
#pragma GCC unroll 16
  for (int k = 0; k < V; ++k) {
    a[k] = _mm512_setzero_pd();
  }
  for (size_t j = 0; j < r; ++j) {
    const float *row = x + j * stride + i;
    float *out = y + j * stride + i;
#pragma GCC unroll 16
    for (int k = 0; k < V; ++k) {
      a[k] = _mm512_add_pd(a[k],
                           _mm512_cvtps_pd(_mm256_loadu_ps(row + 8 * k)));
      _mm256_storeu_ps(out + 8 * k, _mm512_cvtpd_ps(a[k]));
    }
  }
}

// Strips of 128 columns (16 running sums of 8 doubles) down the rows, then
// one of 64, then of 16 and of 8: a row's part of a 128-column strip is
// 8 consecutive lines, and 16 chains of adds interleave. One 16-column
// strip at a time (a line per row, two chains) took the bench's 64 x 1024
// cumsum down the columns 26 us on AMD Zen 5; strips of 64, 13 us; of
// 128, 4.1 us.
static void cumsum_cols_avx512(size_t r, size_t n, size_t stride,
                               const float *x, float *y) {
  size_t i = 0;
  for (; i + 128 <= n; i += 128) {
    cumsum_strip(r, stride, x, y, i, 16);
  }
  if (i + 64 <= n) {
    cumsum_strip(r, stride, x, y, i, 8);
    i += 64;
  }
  for (; i + 16 <= n; i += 16) {
    cumsum_strip(r, stride, x, y, i, 2);
  }
  for (; i < n; i += 8) {
    size_t count = n - i < 8 ? n - i : 8;
    __mmask8 m = mask8(count);
    __m512d a = _mm512_setzero_pd();
    for (size_t j = 0; j < r; ++j) {
      a = _mm512_add_pd(a, _mm512_cvtps_pd(_mm256_maskz_loadu_ps(
                               m, x + j * stride + i)));
      _mm256_mask_storeu_ps(y + j * stride + i, m, _mm512_cvtpd_ps(a));
    }
  }
}

static void prod_cols_avx512(size_t r, size_t n, size_t stride,
                             const float *x, double *y) {
  const __m512d one = _mm512_set1_pd(1.0);
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m512d p0 = one;
    __m512d p1 = one;
    for (size_t j = 0; j < r; ++j) {
      const float *row = x + j * stride + i;
      p0 = _mm512_mul_pd(p0, _mm512_cvtps_pd(_mm256_loadu_ps(row)));
      p1 = _mm512_mul_pd(p1, _mm512_cvtps_pd(_mm256_loadu_ps(row + 8)));
    }
    _mm512_storeu_pd(y + i, p0);
    _mm512_storeu_pd(y + i + 8, p1);
  }
  for (; i < n; i += 8) {
    size_t count = n - i < 8 ? n - i : 8;
    __mmask8 m = mask8(count);
    __m512d p = one;
    for (size_t j = 0; j < r; ++j) {
      p = _mm512_mul_pd(p, _mm512_cvtps_pd(_mm256_maskz_loadu_ps(
                               m, x + j * stride + i)));
    }
    _mm512_mask_storeu_pd(y + i, m, p);
  }
}

// Lane k multiplies elements k, k + 8, ...; the tail's missing lanes are
// 1; lanes fold as l[k] * l[k + 4], then (l0 * l1) * (l2 * l3).
static void prod_rows_avx512(size_t rows, size_t n, const float *x,
                             double *y) {
  const __m512d one = _mm512_set1_pd(1.0);
  for (size_t o = 0; o < rows; ++o) {
    const float *row = x + o * n;
    __m512d p = one;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
      p = _mm512_mul_pd(p, _mm512_cvtps_pd(_mm256_loadu_ps(row + i)));
    }
    if (i < n) {
      __m256 v = _mm256_mask_loadu_ps(_mm256_set1_ps(1.0f), mask8(n - i),
                                      row + i);
      p = _mm512_mul_pd(p, _mm512_cvtps_pd(v));
    }
    double lanes[8];
    _mm512_storeu_pd(lanes, p);
    double l0 = lanes[0] * lanes[4];
    double l1 = lanes[1] * lanes[5];
    double l2 = lanes[2] * lanes[6];
    double l3 = lanes[3] * lanes[7];
    y[o] = (l0 * l1) * (l2 * l3);
  }
}

const etr_scan_kernels_t etr_scan_kernels_avx512 = {
    .cumsum_cols = cumsum_cols_avx512,
    .prod_cols = prod_cols_avx512,
    .prod_rows = prod_rows_avx512,
};

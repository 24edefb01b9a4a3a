// SPDX-License-Identifier: Apache-2.0
//
// Scan microkernels, AVX2: 4 columns (or row lanes) per 256-bit vector of
// doubles, 8 columns per step (two accumulators); fp32 loads widened with
// cvtps_pd and results narrowed with cvtpd_ps (round to nearest, as the
// scalar cast). Tails use masked loads and stores: nothing past a row or
// column block is touched. Semantics in scan.h.
#include <immintrin.h>

#include "ops_optimized/scan/scan.h"

#define ALWAYS_INLINE static inline __attribute__((always_inline))

// Lanes [0, count) of a 4-float vector set, the rest 0 (count <= 4).
ALWAYS_INLINE __m128i mask4(size_t count) {
  static const int32_t kMask[8] = {-1, -1, -1, -1, 0, 0, 0, 0};
  return _mm_loadu_si128((const __m128i *)(kMask + 4 - count));
}

// Columns i .. i + 4 V - 1 down the rows: V running sums of 4 doubles
// (V a constant after inlining).
static inline __attribute__((always_inline)) void cumsum_strip(
    size_t r, size_t stride, const float *x, float *y, size_t i,
    const int V) {
  __m256d a[12];
#pragma GCC unroll 12
  for (int k = 0; k < V; ++k) {
    a[k] = _mm256_setzero_pd();
  }
  for (size_t j = 0; j < r; ++j) {
    const float *row = x + j * stride + i;
    float *out = y + j * stride + i;
#pragma GCC unroll 12
    for (int k = 0; k < V; ++k) {
      a[k] = _mm256_add_pd(a[k], _mm256_cvtps_pd(_mm_loadu_ps(row + 4 * k)));
      _mm_storeu_ps(out + 4 * k, _mm256_cvtpd_ps(a[k]));
    }
  }
}

// Strips of 48 columns (12 running sums of 4 doubles: three lines of a
// row) down the rows, then of 8, then of 4, as cumsum_cols_avx512 does
// with its wider strips (there 26 -> 4.1 us on the bench's 64 x 1024).
static void cumsum_cols_avx2(size_t r, size_t n, size_t stride,
                             const float *x, float *y) {
  size_t i = 0;
  for (; i + 48 <= n; i += 48) {
    cumsum_strip(r, stride, x, y, i, 12);
  }
  for (; i + 8 <= n; i += 8) {
    cumsum_strip(r, stride, x, y, i, 2);
  }
  for (; i < n; i += 4) {
    size_t count = n - i < 4 ? n - i : 4;
    __m128i m = mask4(count);
    __m256d a = _mm256_setzero_pd();
    for (size_t j = 0; j < r; ++j) {
      a = _mm256_add_pd(
          a, _mm256_cvtps_pd(_mm_maskload_ps(x + j * stride + i, m)));
      _mm_maskstore_ps(y + j * stride + i, m, _mm256_cvtpd_ps(a));
    }
  }
}

static void prod_cols_avx2(size_t r, size_t n, size_t stride,
                           const float *x, double *y) {
  const __m256d one = _mm256_set1_pd(1.0);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256d p0 = one;
    __m256d p1 = one;
    for (size_t j = 0; j < r; ++j) {
      const float *row = x + j * stride + i;
      p0 = _mm256_mul_pd(p0, _mm256_cvtps_pd(_mm_loadu_ps(row)));
      p1 = _mm256_mul_pd(p1, _mm256_cvtps_pd(_mm_loadu_ps(row + 4)));
    }
    _mm256_storeu_pd(y + i, p0);
    _mm256_storeu_pd(y + i + 4, p1);
  }
  for (; i < n; i += 4) {
    size_t count = n - i < 4 ? n - i : 4;
    __m128i m = mask4(count);
    __m256d p = one;
    for (size_t j = 0; j < r; ++j) {
      p = _mm256_mul_pd(
          p, _mm256_cvtps_pd(_mm_maskload_ps(x + j * stride + i, m)));
    }
    double lanes[4];
    _mm256_storeu_pd(lanes, p);
    for (size_t k = 0; k < count; ++k) {
      y[i + k] = lanes[k];
    }
  }
}

// Lane k multiplies elements k, k + 4, ...; the tail's missing lanes are
// 1; lanes combine as (l0 * l1) * (l2 * l3) like the scalar kernel.
static void prod_rows_avx2(size_t rows, size_t n, const float *x,
                           double *y) {
  const __m256d one = _mm256_set1_pd(1.0);
  for (size_t o = 0; o < rows; ++o) {
    const float *row = x + o * n;
    __m256d p = one;
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
      p = _mm256_mul_pd(p, _mm256_cvtps_pd(_mm_loadu_ps(row + i)));
    }
    if (i < n) {
      __m128i m = mask4(n - i);
      __m128 v = _mm_blendv_ps(_mm_set1_ps(1.0f),
                               _mm_maskload_ps(row + i, m),
                               _mm_castsi128_ps(m));
      p = _mm256_mul_pd(p, _mm256_cvtps_pd(v));
    }
    double lanes[4];
    _mm256_storeu_pd(lanes, p);
    y[o] = (lanes[0] * lanes[1]) * (lanes[2] * lanes[3]);
  }
}

const etr_scan_kernels_t etr_scan_kernels_avx2 = {
    .cumsum_cols = cumsum_cols_avx2,
    .prod_cols = prod_cols_avx2,
    .prod_rows = prod_rows_avx2,
};

// SPDX-License-Identifier: Apache-2.0
//
// Row-distance microkernels, AVX2: 8 floats per step widened to two
// 4-double vectors (two accumulators), the tail through masked loads (the
// missing lanes read 0 on both rows, so d = 0 adds nothing and never wins
// the max). MAXPD returns its second operand when the first is NaN, which
// is the reference's "ignore NaN" rule with the running max second.
// Semantics in distance.h.
#include <immintrin.h>

#include "ops_optimized/distance/distance.h"

#define ALWAYS_INLINE static inline __attribute__((always_inline))

ALWAYS_INLINE __m128i mask4(size_t count) {
  static const int32_t kMask[8] = {-1, -1, -1, -1, 0, 0, 0, 0};
  return _mm_loadu_si128((const __m128i *)(kMask + 4 - count));
}

// The differences of elements [i, i + 4) (count of them valid) in double.
ALWAYS_INLINE __m256d diff4(const float *a, const float *b, size_t count) {
  if (count >= 4) {
    return _mm256_sub_pd(_mm256_cvtps_pd(_mm_loadu_ps(a)),
                         _mm256_cvtps_pd(_mm_loadu_ps(b)));
  }
  __m128i m = mask4(count);
  return _mm256_sub_pd(_mm256_cvtps_pd(_mm_maskload_ps(a, m)),
                       _mm256_cvtps_pd(_mm_maskload_ps(b, m)));
}

ALWAYS_INLINE __m256d abs4(__m256d v) {
  return _mm256_andnot_pd(_mm256_set1_pd(-0.0), v);
}

ALWAYS_INLINE double hsum(__m256d v) {
  double lanes[4];
  _mm256_storeu_pd(lanes, v);
  return (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
}

static double sum_sq_avx2(size_t n, const float *a, const float *b) {
  __m256d s0 = _mm256_setzero_pd();
  __m256d s1 = _mm256_setzero_pd();
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256d d0 = diff4(a + i, b + i, 4);
    __m256d d1 = diff4(a + i + 4, b + i + 4, 4);
    s0 = _mm256_add_pd(s0, _mm256_mul_pd(d0, d0));
    s1 = _mm256_add_pd(s1, _mm256_mul_pd(d1, d1));
  }
  for (; i < n; i += 4) {
    __m256d d = diff4(a + i, b + i, n - i);
    s0 = _mm256_add_pd(s0, _mm256_mul_pd(d, d));
  }
  return hsum(_mm256_add_pd(s0, s1));
}

static double sum_abs_avx2(size_t n, const float *a, const float *b) {
  __m256d s0 = _mm256_setzero_pd();
  __m256d s1 = _mm256_setzero_pd();
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    s0 = _mm256_add_pd(s0, abs4(diff4(a + i, b + i, 4)));
    s1 = _mm256_add_pd(s1, abs4(diff4(a + i + 4, b + i + 4, 4)));
  }
  for (; i < n; i += 4) {
    s0 = _mm256_add_pd(s0, abs4(diff4(a + i, b + i, n - i)));
  }
  return hsum(_mm256_add_pd(s0, s1));
}

static double max_abs_avx2(size_t n, const float *a, const float *b) {
  __m256d m = _mm256_setzero_pd();
  for (size_t i = 0; i < n; i += 4) {
    m = _mm256_max_pd(abs4(diff4(a + i, b + i, n - i)), m);
  }
  double lanes[4];
  _mm256_storeu_pd(lanes, m);
  double total = 0.0;
  for (int k = 0; k < 4; ++k) {
    total = lanes[k] > total ? lanes[k] : total;
  }
  return total;
}

// pairs_block's columns [c0, c0 + 8) for ROWS (<= 4, a constant once
// inlined) rows: per element i, two vectors of the transposed rows and
// one broadcast per row, 2 ROWS accumulators (of the 16 registers, 8 for
// the sums). `count`: how many of the 8 columns to store.
ALWAYS_INLINE void pairs_rows(etr_distance_norm_t norm, size_t rows,
                              size_t count, size_t n, const double *a,
                              const double *bt, size_t ld, float *y,
                              size_t y_stride) {
  __m256d acc[4][2];
#pragma GCC unroll 4
  for (size_t r = 0; r < rows; ++r) {
    acc[r][0] = _mm256_setzero_pd();
    acc[r][1] = _mm256_setzero_pd();
  }
  for (size_t i = 0; i < n; ++i) {
    __m256d b0 = _mm256_loadu_pd(bt + i * ld);
    __m256d b1 = _mm256_loadu_pd(bt + i * ld + 4);
#pragma GCC unroll 4
    for (size_t r = 0; r < rows; ++r) {
      __m256d x = _mm256_set1_pd(a[r * n + i]);
      __m256d d0 = _mm256_sub_pd(x, b0);
      __m256d d1 = _mm256_sub_pd(x, b1);
      if (norm == ETR_DISTANCE_P2) {
        acc[r][0] = _mm256_fmadd_pd(d0, d0, acc[r][0]);
        acc[r][1] = _mm256_fmadd_pd(d1, d1, acc[r][1]);
      } else if (norm == ETR_DISTANCE_P1) {
        acc[r][0] = _mm256_add_pd(acc[r][0], abs4(d0));
        acc[r][1] = _mm256_add_pd(acc[r][1], abs4(d1));
      } else {
        acc[r][0] = _mm256_max_pd(abs4(d0), acc[r][0]);
        acc[r][1] = _mm256_max_pd(abs4(d1), acc[r][1]);
      }
    }
  }
  __m128i low = mask4(count >= 4 ? 4 : count);
  __m128i high = mask4(count <= 4 ? 0 : count - 4);
#pragma GCC unroll 4
  for (size_t r = 0; r < rows; ++r) {
    __m256d v0 = acc[r][0];
    __m256d v1 = acc[r][1];
    if (norm == ETR_DISTANCE_P2) {
      v0 = _mm256_sqrt_pd(v0);
      v1 = _mm256_sqrt_pd(v1);
    }
    _mm_maskstore_ps(y + r * y_stride, low, _mm256_cvtpd_ps(v0));
    _mm_maskstore_ps(y + r * y_stride + 4, high, _mm256_cvtpd_ps(v1));
  }
}

ETR_DISTANCE_PAIRS_ROWS_FOR(4)
ETR_DISTANCE_PAIRS_ROWS_FOR(2)
ETR_DISTANCE_PAIRS_ROWS_FOR(1)

// The 16 columns as two halves of 8, the rows as 4, 2 and 1.
static void pairs_block_avx2(etr_distance_norm_t norm, size_t rows,
                             size_t count, size_t n, const double *a,
                             const double *bt, size_t ld, float *y,
                             size_t y_stride) {
  for (size_t c0 = 0; c0 < count; c0 += 8) {
    size_t half = count - c0 < 8 ? count - c0 : 8;
    size_t r0 = 0;
    for (; r0 + 4 <= rows; r0 += 4) {
      pairs_rows_4(norm, half, n, a + r0 * n, bt + c0, ld,
                   y + r0 * y_stride + c0, y_stride);
    }
    if (rows - r0 >= 2) {
      pairs_rows_2(norm, half, n, a + r0 * n, bt + c0, ld,
                   y + r0 * y_stride + c0, y_stride);
      r0 += 2;
    }
    if (r0 < rows) {
      pairs_rows_1(norm, half, n, a + r0 * n, bt + c0, ld,
                   y + r0 * y_stride + c0, y_stride);
    }
  }
}

const etr_distance_kernels_t etr_distance_kernels_avx2 = {
    .sum_sq = sum_sq_avx2,
    .sum_abs = sum_abs_avx2,
    .max_abs = max_abs_avx2,
    .pairs_block = pairs_block_avx2,
};

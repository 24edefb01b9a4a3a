// SPDX-License-Identifier: Apache-2.0
//
// Row-distance microkernels, AVX-512: 16 floats per step widened to two
// 8-double vectors (two accumulators), the tail through masked loads (the
// missing lanes read 0 on both rows: d = 0 adds nothing and never wins
// the max). VMAXPD returns its second operand when the first is NaN: the
// reference's "ignore NaN" with the running max second. Semantics in
// distance.h.
#include <immintrin.h>

#include "ops_optimized/distance/distance.h"

#define ALWAYS_INLINE static inline __attribute__((always_inline))

ALWAYS_INLINE __m512d diff8(const float *a, const float *b, size_t count) {
  if (count >= 8) {
    return _mm512_sub_pd(_mm512_cvtps_pd(_mm256_loadu_ps(a)),
                         _mm512_cvtps_pd(_mm256_loadu_ps(b)));
  }
  __mmask8 m = (__mmask8)((1u << count) - 1u);
  return _mm512_sub_pd(_mm512_cvtps_pd(_mm256_maskz_loadu_ps(m, a)),
                       _mm512_cvtps_pd(_mm256_maskz_loadu_ps(m, b)));
}

ALWAYS_INLINE __m512d abs8(__m512d v) {
  return _mm512_castsi512_pd(_mm512_andnot_si512(
      _mm512_castpd_si512(_mm512_set1_pd(-0.0)), _mm512_castpd_si512(v)));
}

static double sum_sq_avx512(size_t n, const float *a, const float *b) {
  __m512d s0 = _mm512_setzero_pd();
  __m512d s1 = _mm512_setzero_pd();
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m512d d0 = diff8(a + i, b + i, 8);
    __m512d d1 = diff8(a + i + 8, b + i + 8, 8);
    s0 = _mm512_add_pd(s0, _mm512_mul_pd(d0, d0));
    s1 = _mm512_add_pd(s1, _mm512_mul_pd(d1, d1));
  }
  for (; i < n; i += 8) {
    __m512d d = diff8(a + i, b + i, n - i);
    s0 = _mm512_add_pd(s0, _mm512_mul_pd(d, d));
  }
  return _mm512_reduce_add_pd(_mm512_add_pd(s0, s1));
}

static double sum_abs_avx512(size_t n, const float *a, const float *b) {
  __m512d s0 = _mm512_setzero_pd();
  __m512d s1 = _mm512_setzero_pd();
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    s0 = _mm512_add_pd(s0, abs8(diff8(a + i, b + i, 8)));
    s1 = _mm512_add_pd(s1, abs8(diff8(a + i + 8, b + i + 8, 8)));
  }
  for (; i < n; i += 8) {
    s0 = _mm512_add_pd(s0, abs8(diff8(a + i, b + i, n - i)));
  }
  return _mm512_reduce_add_pd(_mm512_add_pd(s0, s1));
}

static double max_abs_avx512(size_t n, const float *a, const float *b) {
  __m512d m = _mm512_setzero_pd();
  for (size_t i = 0; i < n; i += 8) {
    m = _mm512_max_pd(abs8(diff8(a + i, b + i, n - i)), m);
  }
  double lanes[8];
  _mm512_storeu_pd(lanes, m);
  double total = 0.0;
  for (int k = 0; k < 8; ++k) {
    total = lanes[k] > total ? lanes[k] : total;
  }
  return total;
}

// pairs_block for ROWS rows (a constant once inlined): per element i,
// two vectors of the 16 transposed rows and one broadcast per row of a,
// 2 ROWS independent accumulators. The max ignores NaN as max_abs does.
ALWAYS_INLINE void pairs_rows(etr_distance_norm_t norm, size_t rows,
                              size_t count, size_t n, const double *a,
                              const double *bt, size_t ld, float *y,
                              size_t y_stride) {
  __m512d acc[8][2];
#pragma GCC unroll 8
  for (size_t r = 0; r < rows; ++r) {
    acc[r][0] = _mm512_setzero_pd();
    acc[r][1] = _mm512_setzero_pd();
  }
  for (size_t i = 0; i < n; ++i) {
    __m512d b0 = _mm512_loadu_pd(bt + i * ld);
    __m512d b1 = _mm512_loadu_pd(bt + i * ld + 8);
#pragma GCC unroll 8
    for (size_t r = 0; r < rows; ++r) {
      __m512d x = _mm512_set1_pd(a[r * n + i]);
      __m512d d0 = _mm512_sub_pd(x, b0);
      __m512d d1 = _mm512_sub_pd(x, b1);
      if (norm == ETR_DISTANCE_P2) {
        acc[r][0] = _mm512_fmadd_pd(d0, d0, acc[r][0]);
        acc[r][1] = _mm512_fmadd_pd(d1, d1, acc[r][1]);
      } else if (norm == ETR_DISTANCE_P1) {
        acc[r][0] = _mm512_add_pd(acc[r][0], abs8(d0));
        acc[r][1] = _mm512_add_pd(acc[r][1], abs8(d1));
      } else {
        acc[r][0] = _mm512_max_pd(abs8(d0), acc[r][0]);
        acc[r][1] = _mm512_max_pd(abs8(d1), acc[r][1]);
      }
    }
  }
  __mmask8 low = count >= 8 ? 0xff : (__mmask8)((1u << count) - 1u);
  __mmask8 high = count <= 8 ? 0 : (__mmask8)((1u << (count - 8)) - 1u);
#pragma GCC unroll 8
  for (size_t r = 0; r < rows; ++r) {
    __m512d v0 = acc[r][0];
    __m512d v1 = acc[r][1];
    if (norm == ETR_DISTANCE_P2) {
      v0 = _mm512_sqrt_pd(v0);
      v1 = _mm512_sqrt_pd(v1);
    }
    _mm256_mask_storeu_ps(y + r * y_stride, low, _mm512_cvtpd_ps(v0));
    _mm256_mask_storeu_ps(y + r * y_stride + 8, high, _mm512_cvtpd_ps(v1));
  }
}

ETR_DISTANCE_PAIRS_ROWS_FOR(8)
ETR_DISTANCE_PAIRS_ROWS_FOR(4)
ETR_DISTANCE_PAIRS_ROWS_FOR(2)
ETR_DISTANCE_PAIRS_ROWS_FOR(1)

// rows as 8, 4, 2 and 1.
static void pairs_block_avx512(etr_distance_norm_t norm, size_t rows,
                               size_t count, size_t n, const double *a,
                               const double *bt, size_t ld, float *y,
                               size_t y_stride) {
  for (size_t part = 8; part > 0; part /= 2) {
    if (rows & part) {
      rows -= part;
      const double *at = a + rows * n;
      float *yt = y + rows * y_stride;
      switch (part) {
        case 8:
          pairs_rows_8(norm, count, n, at, bt, ld, yt, y_stride);
          break;
        case 4:
          pairs_rows_4(norm, count, n, at, bt, ld, yt, y_stride);
          break;
        case 2:
          pairs_rows_2(norm, count, n, at, bt, ld, yt, y_stride);
          break;
        default:
          pairs_rows_1(norm, count, n, at, bt, ld, yt, y_stride);
          break;
      }
    }
  }
}

const etr_distance_kernels_t etr_distance_kernels_avx512 = {
    .sum_sq = sum_sq_avx512,
    .sum_abs = sum_abs_avx512,
    .max_abs = max_abs_avx512,
    .pairs_block = pairs_block_avx512,
};

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

const etr_distance_kernels_t etr_distance_kernels_avx512 = {
    .sum_sq = sum_sq_avx512,
    .sum_abs = sum_abs_avx512,
    .max_abs = max_abs_avx512,
};

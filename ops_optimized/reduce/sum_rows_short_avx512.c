// SPDX-License-Identifier: Apache-2.0
//
// Double sums of short fp32 rows (at most 16 elements), AVX-512: eight
// rows at a time. Each row widens into one 8-lane double vector (two
// masked loads, lanes past the row zero), and the eight vectors are
// reduced together (pairwise unpacks, then two rounds of 128-bit lane
// shuffles) into one vector of the eight sums: 14 shuffles for eight rows
// where a horizontal sum per row costs 4 each, and no per-row scalar
// tail. The spatial mean of MobileNetV2's head ([1, 128, 4, 4] over H, W:
// rows of 16) is the case this is for. The sums are exact double sums
// in another order than the reference's (see reduce.h).
#include <immintrin.h>

#include "ops_optimized/reduce/reduce.h"

#define ALWAYS_INLINE static inline __attribute__((always_inline))

ALWAYS_INLINE __mmask8 mask8(size_t count) {
  return count >= 8 ? (__mmask8)0xff : (__mmask8)((1u << count) - 1u);
}

// One row of n <= 16 floats as 8 double partial sums.
ALWAYS_INLINE __m512d row_partials(const float *p, __mmask8 lo,
                                   __mmask8 hi) {
  __m512d a = _mm512_cvtps_pd(_mm256_maskz_loadu_ps(lo, p));
  __m512d b = _mm512_cvtps_pd(_mm256_maskz_loadu_ps(hi, p + 8));
  return _mm512_add_pd(a, b);
}

// Lane k of the result: the sum of v[k]'s lanes.
ALWAYS_INLINE __m512d sum_eight(const __m512d v[8]) {
  // s[i], 128-bit lane L: (pair L of v[2i], pair L of v[2i + 1]) summed.
  __m512d s[4];
#pragma GCC unroll 4
  for (int i = 0; i < 4; ++i) {
    s[i] = _mm512_add_pd(_mm512_unpacklo_pd(v[2 * i], v[2 * i + 1]),
                         _mm512_unpackhi_pd(v[2 * i], v[2 * i + 1]));
  }
  // a: lanes [s0 L0+L1, s0 L2+L3, s1 L0+L1, s1 L2+L3]; b likewise for s2, s3.
  __m512d a = _mm512_add_pd(_mm512_shuffle_f64x2(s[0], s[1], 0x88),
                            _mm512_shuffle_f64x2(s[0], s[1], 0xDD));
  __m512d b = _mm512_add_pd(_mm512_shuffle_f64x2(s[2], s[3], 0x88),
                            _mm512_shuffle_f64x2(s[2], s[3], 0xDD));
  return _mm512_add_pd(_mm512_shuffle_f64x2(a, b, 0x88),
                       _mm512_shuffle_f64x2(a, b, 0xDD));
}

size_t etr_reduce_sum_short_rows_avx512(size_t rows, size_t n,
                                        const float *x, double *y) {
  __mmask8 lo = mask8(n);
  __mmask8 hi = n > 8 ? mask8(n - 8) : 0;
  size_t o = 0;
  for (; o + 8 <= rows; o += 8, x += 8 * n) {
    __m512d v[8];
#pragma GCC unroll 8
    for (int k = 0; k < 8; ++k) {
      v[k] = row_partials(x + (size_t)k * n, lo, hi);
    }
    _mm512_storeu_pd(y + o, sum_eight(v));
  }
  return o;
}

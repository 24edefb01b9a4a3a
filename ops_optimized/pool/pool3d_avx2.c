// SPDX-License-Identifier: Apache-2.0
//
// avg_pool3d's 2x2x2 stride-2 windows, AVX2 (pool.h's
// avg_volumes_2x2x2s2): vectors of four outputs, lane l the window at
// output column ow + l, two such vectors a step (8 windows). Each of the
// windows' four input rows (two rows of two depth slices) is two loads of
// 8 columns, each put in even | odd order by one permute and widened to
// doubles; the eight taps are then added to +0.0 in the reference's
// row-major order (depth, row, column), each add rounded in double as its
// scalar loop rounds it, and the sum times the exact inverse of a
// power-of-two divisor or divided by any other, then rounded to float:
// bit for bit the reference's value. The two vectors' chains of eight
// dependent adds interleave, as in pool3d_avx512.c.
#include <immintrin.h>

#include "ops_optimized/pool/pool.h"

// Lanes below `n` (at most 8) set, as AVX2's masked loads and stores read
// them.
static inline __attribute__((always_inline)) __m256i lanes_below(size_t n) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)n),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

// Half h of x as doubles.
static inline __attribute__((always_inline)) __m256d widen(__m256 x,
                                                           const int h) {
  return _mm256_cvtps_pd(h == 0 ? _mm256_castps256_ps128(x)
                                : _mm256_extractf128_ps(x, 1));
}

// The 8 windows from output column ow (`lanes` of them, 1 to 8) of
// rows[0..3]: two chains of eight adds, one per half.
static inline __attribute__((always_inline)) void windows8(
    const float *const *rows, size_t ow, size_t lanes, __m256d divisor,
    __m256d inverse, bool by_inverse, float *out) {
  const __m256i split = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
  const __m256i low = lanes_below(2 * lanes);
  const __m256i high = lanes_below(lanes > 4 ? 2 * lanes - 8 : 0);
  __m256d sum[2] = {_mm256_setzero_pd(), _mm256_setzero_pd()};
#pragma GCC unroll 4
  for (int r = 0; r < 4; ++r) {
    const __m256 a = _mm256_permutevar8x32_ps(
        _mm256_maskload_ps(rows[r] + 2 * ow, low), split);
    const __m256 b = _mm256_permutevar8x32_ps(
        _mm256_maskload_ps(rows[r] + 2 * ow + 8, high), split);
    sum[0] = _mm256_add_pd(sum[0], widen(a, 0));
    sum[1] = _mm256_add_pd(sum[1], widen(b, 0));
    sum[0] = _mm256_add_pd(sum[0], widen(a, 1));
    sum[1] = _mm256_add_pd(sum[1], widen(b, 1));
  }
#pragma GCC unroll 2
  for (int h = 0; h < 2; ++h) {
    const __m256d q = by_inverse ? _mm256_mul_pd(sum[h], inverse)
                                 : _mm256_div_pd(sum[h], divisor);
    const size_t rest = lanes > 4 * (size_t)h ? lanes - 4 * (size_t)h : 0;
    _mm_maskstore_ps(out + ow + 4 * h,
                     _mm256_castsi256_si128(lanes_below(rest)),
                     _mm256_cvtpd_ps(q));
  }
}

// Every output row of the call; `by_inverse` a constant after inlining.
static inline __attribute__((always_inline)) void volumes(
    const float *in, const etr_pool_volumes_t *v, bool by_inverse,
    float *out) {
  const __m256d divisor = _mm256_set1_pd(v->divisor);
  const __m256d inverse = _mm256_set1_pd(v->inverse);
  const size_t hw = v->height * v->width;
  const size_t full = v->out_width / 8 * 8;
  for (size_t volume = 0; volume < v->volumes; ++volume) {
    for (size_t od = 0; od < v->out_depth; ++od) {
      const float *slice = in + (volume * v->depth + 2 * od) * hw;
      for (size_t oh = 0; oh < v->out_height; ++oh) {
        const float *top = slice + 2 * oh * v->width;
        const float *rows[4] = {top, top + v->width, top + hw,
                                top + hw + v->width};
        for (size_t ow = 0; ow < full; ow += 8) {
          windows8(rows, ow, 8, divisor, inverse, by_inverse, out);
        }
        if (full < v->out_width) {
          windows8(rows, full, v->out_width - full, divisor, inverse,
                   by_inverse, out);
        }
        out += v->out_width;
      }
    }
  }
}

void etr_pool_avg_volumes_2x2x2s2_avx2(const float *in,
                                       const etr_pool_volumes_t *v,
                                       float *out) {
  if (v->inverse != 0.0) {
    volumes(in, v, true, out);
  } else {
    volumes(in, v, false, out);
  }
}

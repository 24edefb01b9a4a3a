// SPDX-License-Identifier: Apache-2.0
//
// 2x2 stride-2 pooling rows, AVX2: the window the CNNs use most
// (max_pool2d(2) and avg_pool2d(2)). 8 outputs take the 16 input columns
// of each of the two rows in two loads and split them into even and odd
// columns with one shuffle each, so each tap is one register with no
// reload (the general row kernel in pool_avx2.c loads every tap). The
// shuffles leave the lanes in the order [0 1 4 5 | 2 3 6 7]; the taps are
// combined in that order and one vpermpd per result restores it. Tails are
// masked loads/stores (vmaskmov) limited to the 2 * count columns the
// outputs need. Max walks the taps in the reference's row-major order with
// ATen's rule (greater, or NaN); the average sums them in that order from
// +0.0 (so all -0.0 taps give +0.0, as the reference's double sum).
// Semantics in pool.h.
#include <immintrin.h>

#include "ops_optimized/common/mask_avx2.h"
#include "ops_optimized/pool/pool.h"

#define ALWAYS_INLINE static inline __attribute__((always_inline))

ALWAYS_INLINE __m256i mask8(size_t count) {
  int32_t c = count >= 8 ? 8 : (int32_t)count;
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(c),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

// Even and odd columns of the 2 * lanes floats at p (lanes <= 8), lanes
// in the order [0 1 4 5 | 2 3 6 7].
typedef struct columns {
  __m256 even;
  __m256 odd;
} columns_t;

ALWAYS_INLINE columns_t load_pairs(const float *p, __m256i lo, __m256i hi) {
  __m256 a = _mm256_maskload_ps(p, lo);
  __m256 b = _mm256_maskload_ps(p + 8, hi);
  columns_t c = {_mm256_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0)),
                 _mm256_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1))};
  return c;
}

// [0 1 4 5 | 2 3 6 7] -> [0 .. 7] (64-bit pairs 0 2 1 3).
ALWAYS_INLINE __m256 in_order(__m256 v) {
  return _mm256_castpd_ps(
      _mm256_permute4x64_pd(_mm256_castps_pd(v), _MM_SHUFFLE(3, 1, 2, 0)));
}

ALWAYS_INLINE __m256 replaces(__m256 v, __m256 best) {
  return _mm256_or_ps(_mm256_cmp_ps(v, best, _CMP_GT_OQ),
                      _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
}

ALWAYS_INLINE __m256i blend_index(__m256i index, __m256i candidate,
                                  __m256 m) {
  return _mm256_castps_si256(_mm256_blendv_ps(
      _mm256_castsi256_ps(index), _mm256_castsi256_ps(candidate), m));
}

void etr_pool_max_row_2x2s2_avx2(const float *plane, size_t width,
                                 size_t h0, size_t w0, size_t count,
                                 float *out, int64_t *indices) {
  const float *top = plane + h0 * width + w0;
  const __m256i right = _mm256_set1_epi32(1);
  const __m256i below = _mm256_set1_epi32((int32_t)width);
  const __m256i below_right = _mm256_set1_epi32((int32_t)width + 1);
  // Lane l's window corner is 2 l past the block's.
  __m256i corner =
      _mm256_add_epi32(_mm256_set1_epi32((int32_t)(h0 * width + w0)),
                       _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14));
  for (size_t k = 0; k < count; k += 8) {
    size_t lanes = count - k < 8 ? count - k : 8;
    __m256i active = mask8(lanes);
    __m256i lo = mask8(2 * lanes);
    __m256i hi = lanes > 4 ? mask8(2 * lanes - 8) : _mm256_setzero_si256();
    columns_t r0 = load_pairs(top + 2 * k, lo, hi);
    columns_t r1 = load_pairs(top + width + 2 * k, lo, hi);
    __m256 best = r0.even;
    __m256i offset = _mm256_setzero_si256();
    __m256 m = replaces(r0.odd, best);
    best = _mm256_blendv_ps(best, r0.odd, m);
    offset = blend_index(offset, right, m);
    m = replaces(r1.even, best);
    best = _mm256_blendv_ps(best, r1.even, m);
    offset = blend_index(offset, below, m);
    m = replaces(r1.odd, best);
    best = _mm256_blendv_ps(best, r1.odd, m);
    offset = blend_index(offset, below_right, m);
    etr_avx2_maskstore_ps(out + k, active, in_order(best));
    if (indices != NULL) {
      __m256i index = _mm256_add_epi32(
          corner, _mm256_castps_si256(in_order(_mm256_castsi256_ps(offset))));
      etr_avx2_maskstore_epi64(
          (long long *)(indices + k),
          _mm256_cvtepi32_epi64(_mm256_castsi256_si128(active)),
          _mm256_cvtepi32_epi64(_mm256_castsi256_si128(index)));
      etr_avx2_maskstore_epi64(
          (long long *)(indices + k + 4),
          _mm256_cvtepi32_epi64(_mm256_extracti128_si256(active, 1)),
          _mm256_cvtepi32_epi64(_mm256_extracti128_si256(index, 1)));
    }
    corner = _mm256_add_epi32(corner, _mm256_set1_epi32(16));
  }
}

bool etr_pool_avg_row_2x2s2_avx2(const float *plane, size_t width,
                                 size_t h0, size_t w0, size_t count,
                                 float divisor, float *out) {
  const float *top = plane + h0 * width + w0;
  const __m256 d = _mm256_set1_ps(divisor);
  const __m256 abs_mask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
  const __m256 infinity = _mm256_set1_ps(__builtin_inff());
  __m256 bad = _mm256_setzero_ps();  // lanes past a tail hold 0 / divisor
  for (size_t k = 0; k < count; k += 8) {
    size_t lanes = count - k < 8 ? count - k : 8;
    __m256i lo = mask8(2 * lanes);
    __m256i hi = lanes > 4 ? mask8(2 * lanes - 8) : _mm256_setzero_si256();
    columns_t r0 = load_pairs(top + 2 * k, lo, hi);
    columns_t r1 = load_pairs(top + width + 2 * k, lo, hi);
    __m256 sum = _mm256_add_ps(_mm256_setzero_ps(), r0.even);
    sum = _mm256_add_ps(sum, r0.odd);
    sum = _mm256_add_ps(sum, r1.even);
    sum = _mm256_add_ps(sum, r1.odd);
    __m256 q = _mm256_div_ps(sum, d);
    bad = _mm256_or_ps(bad, _mm256_cmp_ps(_mm256_and_ps(q, abs_mask),
                                          infinity, _CMP_NLT_UQ));
    etr_avx2_maskstore_ps(out + k, mask8(lanes), in_order(q));
  }
  return _mm256_movemask_ps(bad) == 0;
}

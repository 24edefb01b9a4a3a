// SPDX-License-Identifier: Apache-2.0
//
// 2x2 stride-2 pooling rows, AVX-512 (F, BW, DQ, VL): the window the CNNs
// use most (max_pool2d(2) and avg_pool2d(2)). 16 outputs take the 32
// input columns of each of the two rows in two loads and split them into
// even and odd columns with vpermt2ps, so each tap is one register with no
// reload (the general row kernel in pool_avx512.c loads every tap). Tails
// are masked to the 2 * count columns the outputs need. Max walks the taps
// in the reference's row-major order with ATen's rule (greater, or NaN);
// the average sums them in that order from +0.0 (so all -0.0 taps give
// +0.0, as the reference's double sum). Semantics in pool.h.
#include <immintrin.h>

#include "ops_optimized/pool/pool.h"

#define ALWAYS_INLINE static inline __attribute__((always_inline))

ALWAYS_INLINE __mmask16 mask16(size_t count) {
  return count >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << count) - 1u);
}

// Even and odd columns of the 2 * lanes floats at p (lanes <= 16).
typedef struct columns {
  __m512 even;
  __m512 odd;
} columns_t;

ALWAYS_INLINE columns_t load_pairs(const float *p, __mmask16 lo,
                                   __mmask16 hi) {
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18,
                                         20, 22, 24, 26, 28, 30);
  const __m512i odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19,
                                        21, 23, 25, 27, 29, 31);
  __m512 a = _mm512_maskz_loadu_ps(lo, p);
  __m512 b = _mm512_maskz_loadu_ps(hi, p + 16);
  columns_t c = {_mm512_permutex2var_ps(a, even, b),
                 _mm512_permutex2var_ps(a, odd, b)};
  return c;
}

ALWAYS_INLINE __mmask16 replaces(__m512 v, __m512 best) {
  return _mm512_cmp_ps_mask(v, best, _CMP_GT_OQ) |
         _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
}

void etr_pool_max_row_2x2s2_avx512(const float *plane, size_t width,
                                   size_t h0, size_t w0, size_t count,
                                   float *out, int64_t *indices) {
  const float *top = plane + h0 * width + w0;
  // Tap offsets from the window's top-left corner, in the reference's
  // order; lane l's corner is 2 l past the block's.
  const __m512i right = _mm512_set1_epi32(1);
  const __m512i below = _mm512_set1_epi32((int32_t)width);
  const __m512i below_right = _mm512_set1_epi32((int32_t)width + 1);
  __m512i corner = _mm512_add_epi32(
      _mm512_set1_epi32((int32_t)(h0 * width + w0)),
      _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26,
                        28, 30));
  for (size_t k = 0; k < count; k += 16) {
    size_t lanes = count - k < 16 ? count - k : 16;
    __mmask16 active = mask16(lanes);
    __mmask16 lo = mask16(2 * lanes);
    __mmask16 hi = lanes > 8 ? mask16(2 * lanes - 16) : 0;
    columns_t r0 = load_pairs(top + 2 * k, lo, hi);
    columns_t r1 = load_pairs(top + width + 2 * k, lo, hi);
    __m512 best = r0.even;
    __m512i offset = _mm512_setzero_si512();
    __mmask16 m = replaces(r0.odd, best);
    best = _mm512_mask_mov_ps(best, m, r0.odd);
    offset = _mm512_mask_mov_epi32(offset, m, right);
    m = replaces(r1.even, best);
    best = _mm512_mask_mov_ps(best, m, r1.even);
    offset = _mm512_mask_mov_epi32(offset, m, below);
    m = replaces(r1.odd, best);
    best = _mm512_mask_mov_ps(best, m, r1.odd);
    offset = _mm512_mask_mov_epi32(offset, m, below_right);
    _mm512_mask_storeu_ps(out + k, active, best);
    if (indices != NULL) {
      __m512i index = _mm512_add_epi32(corner, offset);
      _mm512_mask_storeu_epi64(
          indices + k, (__mmask8)(active & 0xff),
          _mm512_cvtepi32_epi64(_mm512_castsi512_si256(index)));
      _mm512_mask_storeu_epi64(
          indices + k + 8, (__mmask8)(active >> 8),
          _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(index, 1)));
    }
    corner = _mm512_add_epi32(corner, _mm512_set1_epi32(32));
  }
}

bool etr_pool_avg_row_2x2s2_avx512(const float *plane, size_t width,
                                   size_t h0, size_t w0, size_t count,
                                   float divisor, float *out) {
  const float *top = plane + h0 * width + w0;
  const __m512 d = _mm512_set1_ps(divisor);
  __mmask16 not_finite = 0;
  for (size_t k = 0; k < count; k += 16) {
    size_t lanes = count - k < 16 ? count - k : 16;
    __mmask16 active = mask16(lanes);
    __mmask16 lo = mask16(2 * lanes);
    __mmask16 hi = lanes > 8 ? mask16(2 * lanes - 16) : 0;
    columns_t r0 = load_pairs(top + 2 * k, lo, hi);
    columns_t r1 = load_pairs(top + width + 2 * k, lo, hi);
    __m512 sum = _mm512_add_ps(_mm512_setzero_ps(), r0.even);
    sum = _mm512_add_ps(sum, r0.odd);
    sum = _mm512_add_ps(sum, r1.even);
    sum = _mm512_add_ps(sum, r1.odd);
    __m512 q = _mm512_div_ps(sum, d);
    // 0x99: QNaN, SNaN, +inf, -inf.
    not_finite |= _mm512_mask_fpclass_ps_mask(active, q, 0x99);
    _mm512_mask_storeu_ps(out + k, active, q);
  }
  return not_finite == 0;
}

// SPDX-License-Identifier: Apache-2.0
//
// Evens, AVX-512: two vectors of source elements, one two-source permute
// (vpermt2d/q) picks the even lanes of both. The last step reads the
// source with masked loads, so nothing past the last even element is read
// (the last odd element may lie outside the tensor).
#include <immintrin.h>

#include "ops_optimized/movement/movement.h"

void etr_move_evens_x32_avx512(void *dst, const void *src, size_t count) {
  const __m512i evens = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18,
                                          20, 22, 24, 26, 28, 30);
  uint32_t *out = (uint32_t *)dst;
  const uint32_t *in = (const uint32_t *)src;
  size_t i = 0;
  for (; i + 16 < count; i += 16) {  // reads in[2i .. 2i + 31]
    __m512i a = _mm512_loadu_si512(in + 2 * i);
    __m512i b = _mm512_loadu_si512(in + 2 * i + 16);
    _mm512_storeu_si512(out + i, _mm512_permutex2var_epi32(a, evens, b));
  }
  size_t left = count - i;  // 0..16 outputs; 2 * left - 1 inputs
  if (left > 0) {
    size_t reads = 2 * left - 1;
    __mmask16 low = (__mmask16)(reads >= 16 ? 0xffffu : (1u << reads) - 1);
    __mmask16 high = (__mmask16)(reads > 16 ? (1u << (reads - 16)) - 1 : 0);
    __m512i a = _mm512_maskz_loadu_epi32(low, in + 2 * i);
    __m512i b = _mm512_maskz_loadu_epi32(high, in + 2 * i + 16);
    __mmask16 lanes = (__mmask16)(left >= 16 ? 0xffffu : (1u << left) - 1);
    _mm512_mask_storeu_epi32(out + i, lanes,
                             _mm512_permutex2var_epi32(a, evens, b));
  }
}

void etr_move_evens_x64_avx512(void *dst, const void *src, size_t count) {
  const __m512i evens = _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14);
  uint64_t *out = (uint64_t *)dst;
  const uint64_t *in = (const uint64_t *)src;
  size_t i = 0;
  for (; i + 8 < count; i += 8) {  // reads in[2i .. 2i + 15]
    __m512i a = _mm512_loadu_si512(in + 2 * i);
    __m512i b = _mm512_loadu_si512(in + 2 * i + 8);
    _mm512_storeu_si512(out + i, _mm512_permutex2var_epi64(a, evens, b));
  }
  size_t left = count - i;  // 0..8 outputs; 2 * left - 1 inputs
  if (left > 0) {
    size_t reads = 2 * left - 1;
    __mmask8 low = (__mmask8)(reads >= 8 ? 0xffu : (1u << reads) - 1);
    __mmask8 high = (__mmask8)(reads > 8 ? (1u << (reads - 8)) - 1 : 0);
    __m512i a = _mm512_maskz_loadu_epi64(low, in + 2 * i);
    __m512i b = _mm512_maskz_loadu_epi64(high, in + 2 * i + 8);
    __mmask8 lanes = (__mmask8)(left >= 8 ? 0xffu : (1u << left) - 1);
    _mm512_mask_storeu_epi64(out + i, lanes,
                             _mm512_permutex2var_epi64(a, evens, b));
  }
}

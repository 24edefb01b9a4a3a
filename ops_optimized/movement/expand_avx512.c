// SPDX-License-Identifier: Apache-2.0
//
// Expand, AVX-512 (movement.h's etr_move_expand_fn): per vector of
// destination elements, one compare makes the mask bytes a lane mask, one
// load takes the next source elements (masked to those the lanes need, so
// nothing past them is read) and vpexpandd/q spreads them over the True
// lanes; the count of True lanes moves the source on.
#include <immintrin.h>

#include "ops_optimized/movement/movement.h"

size_t etr_move_expand_x32_avx512(void *dst, const uint8_t *mask,
                                  const void *src, size_t count) {
  uint32_t *out = (uint32_t *)dst;
  const uint32_t *in = (const uint32_t *)src;
  size_t taken = 0;
  for (size_t i = 0; i < count; i += 16) {
    const size_t left = count - i;
    const __mmask16 lanes =
        left >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << left) - 1u);
    const __mmask16 trues = _mm_mask_test_epi8_mask(
        lanes, _mm_maskz_loadu_epi8(lanes, mask + i), _mm_set1_epi8(-1));
    const unsigned n = (unsigned)__builtin_popcount(trues);
    const __m512i next = _mm512_maskz_loadu_epi32(
        (__mmask16)((1u << n) - 1u), in + taken);
    _mm512_mask_storeu_epi32(out + i, trues,
                             _mm512_maskz_expand_epi32(trues, next));
    taken += n;
  }
  return taken;
}

size_t etr_move_expand_x64_avx512(void *dst, const uint8_t *mask,
                                  const void *src, size_t count) {
  uint64_t *out = (uint64_t *)dst;
  const uint64_t *in = (const uint64_t *)src;
  size_t taken = 0;
  for (size_t i = 0; i < count; i += 8) {
    const size_t left = count - i;
    const __mmask16 lanes =
        left >= 8 ? (__mmask16)0xff : (__mmask16)((1u << left) - 1u);
    const __mmask8 trues = (__mmask8)_mm_mask_test_epi8_mask(
        lanes, _mm_maskz_loadu_epi8(lanes, mask + i), _mm_set1_epi8(-1));
    const unsigned n = (unsigned)__builtin_popcount(trues);
    const __m512i next = _mm512_maskz_loadu_epi64(
        (__mmask8)((1u << n) - 1u), in + taken);
    _mm512_mask_storeu_epi64(out + i, trues,
                             _mm512_maskz_expand_epi64(trues, next));
    taken += n;
  }
  return taken;
}

size_t etr_move_count_trues_avx512(const uint8_t *mask, size_t count) {
  size_t trues = 0;
  for (size_t i = 0; i < count; i += 64) {
    const size_t left = count - i;
    const __mmask64 lanes = left >= 64 ? ~(__mmask64)0
                                       : (((__mmask64)1 << left) - 1);
    trues += (size_t)__builtin_popcountll(_mm512_mask_test_epi8_mask(
        lanes, _mm512_maskz_loadu_epi8(lanes, mask + i),
        _mm512_set1_epi8(-1)));
  }
  return trues;
}

// SPDX-License-Identifier: Apache-2.0
//
// Reverse, AVX-512 (movement.h's etr_move_reverse_fn): each vector of
// destination elements is one load of the source run that ends where it
// starts, and one permute that reverses the lanes. The last step loads
// with a mask, so nothing before the run's first element is read.
#include <immintrin.h>

#include "ops_optimized/movement/movement.h"

void etr_move_reverse_x32_avx512(void *dst, const void *src, size_t count) {
  const __m512i reverse = _mm512_setr_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7,
                                            6, 5, 4, 3, 2, 1, 0);
  uint32_t *out = (uint32_t *)dst;
  const uint32_t *last = (const uint32_t *)src;  // out[i] = last[-i]
  size_t i = 0;
  for (; i + 16 <= count; i += 16) {
    const __m512i v = _mm512_loadu_si512(last - i - 15);
    _mm512_storeu_si512(out + i, _mm512_permutexvar_epi32(reverse, v));
  }
  const size_t left = count - i;  // 0..15
  if (left > 0) {
    // The run's first `left` elements: the top lanes of the load.
    const __mmask16 top = (__mmask16)(0xffffu << (16 - left));
    const __m512i v = _mm512_maskz_loadu_epi32(top, last - i - 15);
    _mm512_mask_storeu_epi32(out + i, (__mmask16)((1u << left) - 1),
                             _mm512_permutexvar_epi32(reverse, v));
  }
}

void etr_move_reverse_x64_avx512(void *dst, const void *src, size_t count) {
  const __m512i reverse = _mm512_setr_epi64(7, 6, 5, 4, 3, 2, 1, 0);
  uint64_t *out = (uint64_t *)dst;
  const uint64_t *last = (const uint64_t *)src;
  size_t i = 0;
  for (; i + 8 <= count; i += 8) {
    const __m512i v = _mm512_loadu_si512(last - i - 7);
    _mm512_storeu_si512(out + i, _mm512_permutexvar_epi64(reverse, v));
  }
  const size_t left = count - i;  // 0..7
  if (left > 0) {
    const __mmask8 top = (__mmask8)(0xffu << (8 - left));
    const __m512i v = _mm512_maskz_loadu_epi64(top, last - i - 7);
    _mm512_mask_storeu_epi64(out + i, (__mmask8)((1u << left) - 1),
                             _mm512_permutexvar_epi64(reverse, v));
  }
}

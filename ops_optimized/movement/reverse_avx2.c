// SPDX-License-Identifier: Apache-2.0
//
// Reverse, AVX2 (movement.h's etr_move_reverse_fn): each vector of
// destination elements is one load of the source run that ends where it
// starts and one permute that reverses the lanes; the last elements of
// the run (fewer than a vector) one at a time, so nothing before its
// first element is read.
#include <immintrin.h>
#include <string.h>

#include "ops_optimized/movement/movement.h"

void etr_move_reverse_x32_avx2(void *dst, const void *src, size_t count) {
  const __m256i reverse = _mm256_setr_epi32(7, 6, 5, 4, 3, 2, 1, 0);
  uint32_t *out = (uint32_t *)dst;
  const uint32_t *last = (const uint32_t *)src;  // out[i] = last[-i]
  size_t i = 0;
  for (; i + 8 <= count; i += 8) {
    const __m256i v = _mm256_loadu_si256((const __m256i *)(last - i - 7));
    _mm256_storeu_si256((__m256i *)(out + i),
                        _mm256_permutevar8x32_epi32(v, reverse));
  }
  for (; i < count; ++i) {
    memcpy(out + i, last - i, sizeof(*out));  // any alignment
  }
}

void etr_move_reverse_x64_avx2(void *dst, const void *src, size_t count) {
  uint64_t *out = (uint64_t *)dst;
  const uint64_t *last = (const uint64_t *)src;
  size_t i = 0;
  for (; i + 4 <= count; i += 4) {
    const __m256i v = _mm256_loadu_si256((const __m256i *)(last - i - 3));
    _mm256_storeu_si256((__m256i *)(out + i),
                        _mm256_permute4x64_epi64(v, 0x1b));  // 3, 2, 1, 0
  }
  for (; i < count; ++i) {
    memcpy(out + i, last - i, sizeof(*out));  // any alignment
  }
}

// SPDX-License-Identifier: Apache-2.0
//
// Fill, AVX2: the element is repeated into a 16-byte pattern (element
// sizes 1, 2, 4, 8, 16 divide it), broadcast to 32 bytes and stored four
// registers per iteration; the last bytes come from the pattern with one
// 16-byte store and a memcpy, so nothing past the end is written. Other
// element sizes use the portable kernel.
#include <immintrin.h>
#include <string.h>

#include "ops_optimized/movement/fill_pattern_x86.h"
#include "ops_optimized/movement/movement.h"

void etr_move_fill_avx2(void *dst, size_t count, size_t element_size,
                        const void *element) {
  if (element_size == 0 || element_size > 16 || 16 % element_size != 0) {
    etr_move_fill_scalar(dst, count, element_size, element);
    return;
  }
  const __m128i half = etr_move_pattern128(element, element_size);
  const __m256i value = _mm256_broadcastsi128_si256(half);
  uint8_t *out = (uint8_t *)dst;
  size_t total = count * element_size;
  size_t i = 0;
  for (; i + 128 <= total; i += 128) {
    _mm256_storeu_si256((__m256i *)(out + i), value);
    _mm256_storeu_si256((__m256i *)(out + i + 32), value);
    _mm256_storeu_si256((__m256i *)(out + i + 64), value);
    _mm256_storeu_si256((__m256i *)(out + i + 96), value);
  }
  for (; i + 32 <= total; i += 32) {
    _mm256_storeu_si256((__m256i *)(out + i), value);
  }
  if (i + 16 <= total) {
    _mm_storeu_si128((__m128i *)(out + i), half);
    i += 16;
  }
  // i is a multiple of 16, so the pattern starts over here.
  uint8_t pattern[16];
  _mm_storeu_si128((__m128i *)pattern, half);
  memcpy(out + i, pattern, total - i);
}

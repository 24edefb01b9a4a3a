// SPDX-License-Identifier: Apache-2.0
//
// Replicate, AVX2: `rows` copies of one row of `bytes` bytes, copied 128
// bytes per iteration from the source (in L1 after the first row); the
// last bytes of a row go through one 16-byte copy and a memcpy, so
// nothing outside the rows is read or written. Rows are written last to
// first, so the first rows, where the next op starts reading, are the
// ones still in the L2 (see replicate_avx512.c).
#include <immintrin.h>
#include <string.h>

#include "ops_optimized/movement/movement.h"

void etr_move_replicate_avx2(void *dst, size_t dst_stride, size_t rows,
                             const void *src, size_t bytes) {
  const uint8_t *in = (const uint8_t *)src;
  for (size_t r = rows; r-- > 0;) {
    uint8_t *out = (uint8_t *)dst + r * dst_stride;
    size_t i = 0;
    for (; i + 128 <= bytes; i += 128) {
      __m256i a = _mm256_loadu_si256((const __m256i *)(in + i));
      __m256i b = _mm256_loadu_si256((const __m256i *)(in + i + 32));
      __m256i c = _mm256_loadu_si256((const __m256i *)(in + i + 64));
      __m256i d = _mm256_loadu_si256((const __m256i *)(in + i + 96));
      _mm256_storeu_si256((__m256i *)(out + i), a);
      _mm256_storeu_si256((__m256i *)(out + i + 32), b);
      _mm256_storeu_si256((__m256i *)(out + i + 64), c);
      _mm256_storeu_si256((__m256i *)(out + i + 96), d);
    }
    for (; i + 32 <= bytes; i += 32) {
      _mm256_storeu_si256((__m256i *)(out + i),
                          _mm256_loadu_si256((const __m256i *)(in + i)));
    }
    if (i + 16 <= bytes) {
      _mm_storeu_si128((__m128i *)(out + i),
                       _mm_loadu_si128((const __m128i *)(in + i)));
      i += 16;
    }
    memcpy(out + i, in + i, bytes - i);
  }
}

// SPDX-License-Identifier: Apache-2.0
//
// Replicate, AVX2: `rows` copies of one row of `bytes` bytes, copied 128
// bytes per iteration from the source, 8 KiB of every row at a time (so
// the source chunk is in L1 after the first row); the last bytes of a
// span go through one 16-byte copy and a memcpy, so nothing outside the
// rows is read or written. Chunks and rows are written last to first, as
// in replicate_avx512.c. Strided rows (etr_move_rows_avx2) copy each row
// the same way.
#include <immintrin.h>
#include <string.h>

#include "ops_optimized/movement/movement.h"

// Copies `bytes` bytes, 128 a step, then 32, 16 and a memcpy of the rest.
static inline void copy_span(uint8_t *out, const uint8_t *in, size_t bytes) {
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
  if (i < bytes) {
    memcpy(out + i, in + i, bytes - i);
  }
}

// Long rows a chunk at a time through every row, as replicate_avx512.c.
#define CHUNK_BYTES 8192

void etr_move_replicate_avx2(void *dst, size_t dst_stride, size_t rows,
                             const void *src, size_t bytes) {
  const uint8_t *in = (const uint8_t *)src;
  for (size_t chunk = (bytes + CHUNK_BYTES - 1) / CHUNK_BYTES; chunk-- > 0;) {
    size_t offset = chunk * CHUNK_BYTES;
    size_t span = bytes - offset < CHUNK_BYTES ? bytes - offset : CHUNK_BYTES;
    for (size_t r = rows; r-- > 0;) {
      copy_span((uint8_t *)dst + r * dst_stride + offset, in + offset, span);
    }
  }
}

void etr_move_rows_avx2(void *dst, size_t dst_stride, const void *src,
                        ptrdiff_t src_stride, size_t rows, size_t bytes) {
  uint8_t *out = (uint8_t *)dst;
  const uint8_t *in = (const uint8_t *)src;
  for (size_t r = 0; r < rows; ++r, out += dst_stride, in += src_stride) {
    copy_span(out, in, bytes);
  }
}

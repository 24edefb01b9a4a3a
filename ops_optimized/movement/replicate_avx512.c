// SPDX-License-Identifier: Apache-2.0
//
// Replicate, AVX-512: `rows` copies of one row of `bytes` bytes. A row of
// at most 256 bytes is loaded once into four registers (masked loads, so
// nothing past the source is read) and stored to every destination row
// with masked stores; a longer row is copied 256 bytes per iteration, 8
// KiB of every row at a time (below), with a masked tail. Plain stores:
// the destination of an expand is read next and, up to the L3, is found
// in cache (non-temporal stores measured 3x slower on a 4 MiB output
// here). Chunks are written last to first and, within a chunk, rows last
// to first, so when the output is larger than the L2 the first bytes of
// its rows, where the next op starts reading, are the ones still in it.
// Strided rows (etr_move_rows_avx512): rows of at most 256 bytes with
// four masked loads and stores each, longer ones as above.
#include <immintrin.h>

#include "ops_optimized/movement/movement.h"

// The lanes of the first `bytes` (< 64) bytes of a register.
static inline __mmask64 head_lanes(size_t bytes) {
  return bytes >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << bytes) - 1);
}

// A row of at most 256 bytes held in registers.
static void replicate_short(uint8_t *dst, size_t dst_stride, size_t rows,
                            const uint8_t *src, size_t bytes) {
  __mmask64 lanes[4];
  __m512i row[4];
  for (size_t r = 0; r < 4; ++r) {
    size_t start = r * 64;
    lanes[r] = start < bytes ? head_lanes(bytes - start) : 0;
    row[r] = _mm512_maskz_loadu_epi8(lanes[r], src + start);
  }
  for (size_t r = rows; r-- > 0;) {
    uint8_t *out = dst + r * dst_stride;
    _mm512_mask_storeu_epi8(out, lanes[0], row[0]);
    _mm512_mask_storeu_epi8(out + 64, lanes[1], row[1]);
    _mm512_mask_storeu_epi8(out + 128, lanes[2], row[2]);
    _mm512_mask_storeu_epi8(out + 192, lanes[3], row[3]);
  }
}

// Copies `bytes` bytes, 256 a step, then 64, then a masked tail.
static inline void copy_span(uint8_t *out, const uint8_t *in, size_t bytes) {
  size_t i = 0;
  for (; i + 256 <= bytes; i += 256) {
    __m512i a = _mm512_loadu_si512(in + i);
    __m512i b = _mm512_loadu_si512(in + i + 64);
    __m512i c = _mm512_loadu_si512(in + i + 128);
    __m512i d = _mm512_loadu_si512(in + i + 192);
    _mm512_storeu_si512(out + i, a);
    _mm512_storeu_si512(out + i + 64, b);
    _mm512_storeu_si512(out + i + 128, c);
    _mm512_storeu_si512(out + i + 192, d);
  }
  for (; i + 64 <= bytes; i += 64) {
    _mm512_storeu_si512(out + i, _mm512_loadu_si512(in + i));
  }
  if (i < bytes) {
    __mmask64 lanes = head_lanes(bytes - i);
    _mm512_mask_storeu_epi8(out + i, lanes,
                            _mm512_maskz_loadu_epi8(lanes, in + i));
  }
}

// Long rows go CHUNK_BYTES at a time through every row (the last chunk
// first), so each chunk of the source is read from L2 or memory once and
// from L1 for the other rows: repeat 64x1024 x(4,1) (four 256 KiB rows)
// went 25.9 -> 19.9 us, the speed of glibc's memcpy of each row
// (bench_movement, Intel Xeon); 2, 4 and 16 KiB chunks ran within 5%.
#define CHUNK_BYTES 8192

void etr_move_replicate_avx512(void *dst, size_t dst_stride, size_t rows,
                               const void *src, size_t bytes) {
  const uint8_t *in = (const uint8_t *)src;
  if (bytes <= 256) {
    replicate_short((uint8_t *)dst, dst_stride, rows, in, bytes);
    return;
  }
  for (size_t chunk = (bytes + CHUNK_BYTES - 1) / CHUNK_BYTES; chunk-- > 0;) {
    size_t offset = chunk * CHUNK_BYTES;
    size_t span = bytes - offset < CHUNK_BYTES ? bytes - offset : CHUNK_BYTES;
    for (size_t r = rows; r-- > 0;) {
      copy_span((uint8_t *)dst + r * dst_stride + offset, in + offset, span);
    }
  }
}

// Rows of at most 256 bytes: four masked loads and stores each.
void etr_move_rows_avx512(void *dst, size_t dst_stride, const void *src,
                          ptrdiff_t src_stride, size_t rows, size_t bytes) {
  uint8_t *out = (uint8_t *)dst;
  const uint8_t *in = (const uint8_t *)src;
  if (bytes > 256) {
    for (size_t r = 0; r < rows; ++r, out += dst_stride, in += src_stride) {
      copy_span(out, in, bytes);
    }
    return;
  }
  if (bytes == 64) {
    // One whole vector a row (a [.., 16, 16] float permute's rows): no
    // byte masks.
    for (size_t r = 0; r < rows; ++r, out += dst_stride, in += src_stride) {
      _mm512_storeu_si512(out, _mm512_loadu_si512(in));
    }
    return;
  }
  __mmask64 lanes[4];
  for (size_t v = 0; v < 4; ++v) {
    size_t start = v * 64;
    lanes[v] = start < bytes ? head_lanes(bytes - start) : 0;
  }
  for (size_t r = 0; r < rows; ++r, out += dst_stride, in += src_stride) {
    _mm512_mask_storeu_epi8(out, lanes[0],
                            _mm512_maskz_loadu_epi8(lanes[0], in));
    if (lanes[1] != 0) {
      _mm512_mask_storeu_epi8(out + 64, lanes[1],
                              _mm512_maskz_loadu_epi8(lanes[1], in + 64));
      _mm512_mask_storeu_epi8(out + 128, lanes[2],
                              _mm512_maskz_loadu_epi8(lanes[2], in + 128));
      _mm512_mask_storeu_epi8(out + 192, lanes[3],
                              _mm512_maskz_loadu_epi8(lanes[3], in + 192));
    }
  }
}

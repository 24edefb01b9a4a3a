// SPDX-License-Identifier: Apache-2.0
//
// Transposes of 32-bit elements, AVX-512 (see movement.h): 16 x 16 tiles
// (unpack, shuffle_ps, two shuffle_f32x4 rounds), each destination row
// getting 64 contiguous bytes. The AVX-512 table uses the AVX2 kernels for
// 1-, 2- and 8-byte elements: 512-bit tiles for those measured no faster
// than AVX2 at cache-resident sizes and slower at power-of-two strides,
// where the 32 or 64 destination rows of a column group fall into too few
// L1 sets (bench_movement --transpose).
// Full tiles use plain loads and stores (masked ones measured ~30% slower
// on DRAM-bound transposes here); edge tiles use the same code with lane
// masks: rows past the block are never loaded (zeros stand in), columns
// past it are masked off on load and their destination rows are never
// stored, and every store is masked to the block's rows, so nothing
// outside the block is touched. Blocks narrower than 8 either way are
// mostly edge and go to the portable kernel. Shuffles move bits only (NaN
// payloads and -0.0 are kept).
#include <immintrin.h>

#include "ops_optimized/movement/movement.h"

#define AT(base, offset) ((const char *)(base) + (offset))
#define OUT(base, offset) ((char *)(base) + (offset))

static inline size_t min_size(size_t a, size_t b) { return a < b ? a : b; }

// ---------------------------------------------------------------------------
// 32-bit elements.

static inline void tile_16x16_x32(const void *src, size_t src_stride,
                                  void *dst, size_t dst_stride, size_t rows,
                                  size_t columns) {
  __mmask16 column_mask = (__mmask16)((1u << columns) - 1);  // columns <= 16
  __mmask16 row_mask = (__mmask16)((1u << rows) - 1);
  bool full = rows == 16 && columns == 16;
  __m512 r[16];
  for (size_t i = 0; i < 16; ++i) {
    const void *row = AT(src, i * src_stride);
    r[i] = full       ? _mm512_castsi512_ps(_mm512_loadu_si512(row))
           : i < rows ? _mm512_castsi512_ps(
                            _mm512_maskz_loadu_epi32(column_mask, row))
                      : _mm512_setzero_ps();
  }
  __m512 t[16];
  for (int i = 0; i < 8; ++i) {
    t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
  // u[4g + j], lane l: rows 4g..4g+3 of column 4l + j.
  __m512 u[16];
  for (int g = 0; g < 4; ++g) {
    u[4 * g + 0] = _mm512_shuffle_ps(t[4 * g], t[4 * g + 2], 0x44);
    u[4 * g + 1] = _mm512_shuffle_ps(t[4 * g], t[4 * g + 2], 0xEE);
    u[4 * g + 2] = _mm512_shuffle_ps(t[4 * g + 1], t[4 * g + 3], 0x44);
    u[4 * g + 3] = _mm512_shuffle_ps(t[4 * g + 1], t[4 * g + 3], 0xEE);
  }
  for (int j = 0; j < 4; ++j) {
    __m512 v0 = _mm512_shuffle_f32x4(u[j], u[4 + j], 0x88);
    __m512 v1 = _mm512_shuffle_f32x4(u[j], u[4 + j], 0xDD);
    __m512 w0 = _mm512_shuffle_f32x4(u[8 + j], u[12 + j], 0x88);
    __m512 w1 = _mm512_shuffle_f32x4(u[8 + j], u[12 + j], 0xDD);
    __m512 column[4] = {_mm512_shuffle_f32x4(v0, w0, 0x88),   // j
                        _mm512_shuffle_f32x4(v1, w1, 0x88),   // 4 + j
                        _mm512_shuffle_f32x4(v0, w0, 0xDD),   // 8 + j
                        _mm512_shuffle_f32x4(v1, w1, 0xDD)};  // 12 + j
    for (size_t l = 0; l < 4; ++l) {
      size_t c = 4 * l + (size_t)j;
      if (full) {
        _mm512_storeu_si512(OUT(dst, c * dst_stride),
                            _mm512_castps_si512(column[l]));
      } else if (c < columns) {
        _mm512_mask_storeu_epi32(OUT(dst, c * dst_stride), row_mask,
                                 _mm512_castps_si512(column[l]));
      }
    }
  }
}

static void x32_tiles(size_t rows, size_t columns,
                      const void *src, size_t src_stride,
                      void *dst, size_t dst_stride) {
  for (size_t r = 0; r < rows; r += 16) {
    for (size_t c = 0; c < columns; c += 16) {
      tile_16x16_x32(AT(src, r * src_stride + c * 4), src_stride,
                     OUT(dst, c * dst_stride + r * 4), dst_stride,
                     min_size(rows - r, 16), min_size(columns - c, 16));
    }
  }
}

void etr_move_transpose_x32_avx512(size_t rows, size_t columns,
                                   const void *src, size_t src_stride,
                                   void *dst, size_t dst_stride) {
  if (rows < 8 || columns < 8) {  // mostly edges: the portable loop
    etr_move_transpose_x32_scalar(rows, columns, src, src_stride, dst,
                                  dst_stride);
    return;
  }
  etr_move_transpose_blocks(x32_tiles, 4, rows, columns, src, src_stride,
                            dst, dst_stride);
}


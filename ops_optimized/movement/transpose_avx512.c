// SPDX-License-Identifier: Apache-2.0
//
// Transposes, AVX-512 (see movement.h). Register tiles:
//   x32  16 x 16 (unpack, shuffle_ps, two shuffle_f32x4 rounds): each
//        destination row gets 64 contiguous bytes;
//   x64  8 x 8 (unpack, two shuffle_f64x2 rounds), 64 bytes per row;
//   x16  8 rows x 32 columns: four 8 x 8 tiles in the four 128-bit lanes;
//   x8   16 rows x 64 columns: four 16 x 16 tiles in the lanes.
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

// ---------------------------------------------------------------------------
// 64-bit elements.

static inline void tile_8x8_x64(const void *src, size_t src_stride,
                                void *dst, size_t dst_stride, size_t rows,
                                size_t columns) {
  __mmask8 column_mask = (__mmask8)((1u << columns) - 1);  // columns <= 8
  __mmask8 row_mask = (__mmask8)((1u << rows) - 1);
  bool full = rows == 8 && columns == 8;
  __m512d r[8];
  for (size_t i = 0; i < 8; ++i) {
    const void *row = AT(src, i * src_stride);
    r[i] = full       ? _mm512_castsi512_pd(_mm512_loadu_si512(row))
           : i < rows ? _mm512_castsi512_pd(
                            _mm512_maskz_loadu_epi64(column_mask, row))
                      : _mm512_setzero_pd();
  }
  // t[2g + j], lane l: rows 2g, 2g+1 of column 2l + j.
  __m512d t[8];
  for (int g = 0; g < 4; ++g) {
    t[2 * g] = _mm512_unpacklo_pd(r[2 * g], r[2 * g + 1]);
    t[2 * g + 1] = _mm512_unpackhi_pd(r[2 * g], r[2 * g + 1]);
  }
  for (int j = 0; j < 2; ++j) {
    __m512d v0 = _mm512_shuffle_f64x2(t[j], t[2 + j], 0x88);
    __m512d v1 = _mm512_shuffle_f64x2(t[j], t[2 + j], 0xDD);
    __m512d w0 = _mm512_shuffle_f64x2(t[4 + j], t[6 + j], 0x88);
    __m512d w1 = _mm512_shuffle_f64x2(t[4 + j], t[6 + j], 0xDD);
    __m512d column[4] = {_mm512_shuffle_f64x2(v0, w0, 0x88),   // j
                         _mm512_shuffle_f64x2(v1, w1, 0x88),   // 2 + j
                         _mm512_shuffle_f64x2(v0, w0, 0xDD),   // 4 + j
                         _mm512_shuffle_f64x2(v1, w1, 0xDD)};  // 6 + j
    for (size_t l = 0; l < 4; ++l) {
      size_t c = 2 * l + (size_t)j;
      if (full) {
        _mm512_storeu_si512(OUT(dst, c * dst_stride),
                            _mm512_castpd_si512(column[l]));
      } else if (c < columns) {
        _mm512_mask_storeu_epi64(OUT(dst, c * dst_stride), row_mask,
                                 _mm512_castpd_si512(column[l]));
      }
    }
  }
}

static void x64_tiles(size_t rows, size_t columns,
                      const void *src, size_t src_stride,
                      void *dst, size_t dst_stride) {
  for (size_t r = 0; r < rows; r += 8) {
    for (size_t c = 0; c < columns; c += 8) {
      tile_8x8_x64(AT(src, r * src_stride + c * 8), src_stride,
                   OUT(dst, c * dst_stride + r * 8), dst_stride,
                   min_size(rows - r, 8), min_size(columns - c, 8));
    }
  }
}

// ---------------------------------------------------------------------------
// 16-bit elements: 8 rows x 32 columns, lane L holding columns 8L..8L+7.

// Lane `lane` (a constant after inlining) of v.
static inline __m128i lane_of(__m512i v, int lane) {
  switch (lane) {
    case 0:
      return _mm512_castsi512_si128(v);
    case 1:
      return _mm512_extracti32x4_epi32(v, 1);
    case 2:
      return _mm512_extracti32x4_epi32(v, 2);
    default:
      return _mm512_extracti32x4_epi32(v, 3);
  }
}

static inline void tile_8x32_x16(const void *src, size_t src_stride,
                                 void *dst, size_t dst_stride, size_t rows,
                                 size_t columns) {
  __mmask32 column_mask = (__mmask32)((1ull << columns) - 1);  // <= 32
  __mmask8 row_mask = (__mmask8)((1u << rows) - 1);
  bool full = rows == 8 && columns == 32;
  __m512i r[8];
  for (size_t i = 0; i < 8; ++i) {
    const void *row = AT(src, i * src_stride);
    r[i] = full       ? _mm512_loadu_si512(row)
           : i < rows ? _mm512_maskz_loadu_epi16(column_mask, row)
                      : _mm512_setzero_si512();
  }
  __m512i a[8];
  for (int i = 0; i < 4; ++i) {
    a[2 * i] = _mm512_unpacklo_epi16(r[2 * i], r[2 * i + 1]);
    a[2 * i + 1] = _mm512_unpackhi_epi16(r[2 * i], r[2 * i + 1]);
  }
  // b[4g + j]: rows 4g..4g+3, columns 2j, 2j+1 (per lane).
  __m512i b[8];
  for (int g = 0; g < 2; ++g) {
    b[4 * g + 0] = _mm512_unpacklo_epi32(a[4 * g], a[4 * g + 2]);
    b[4 * g + 1] = _mm512_unpackhi_epi32(a[4 * g], a[4 * g + 2]);
    b[4 * g + 2] = _mm512_unpacklo_epi32(a[4 * g + 1], a[4 * g + 3]);
    b[4 * g + 3] = _mm512_unpackhi_epi32(a[4 * g + 1], a[4 * g + 3]);
  }
  for (int j = 0; j < 4; ++j) {
    __m512i pair[2] = {_mm512_unpacklo_epi64(b[j], b[4 + j]),
                       _mm512_unpackhi_epi64(b[j], b[4 + j])};
    for (int lane = 0; lane < 4; ++lane) {
      for (int k = 0; k < 2; ++k) {
        size_t c = (size_t)(8 * lane + 2 * j + k);
        if (full) {
          _mm_storeu_si128((__m128i *)OUT(dst, c * dst_stride),
                           lane_of(pair[k], lane));
        } else if (c < columns) {
          _mm_mask_storeu_epi16(OUT(dst, c * dst_stride), row_mask,
                                lane_of(pair[k], lane));
        }
      }
    }
  }
}

static void x16_tiles(size_t rows, size_t columns,
                      const void *src, size_t src_stride,
                      void *dst, size_t dst_stride) {
  for (size_t r = 0; r < rows; r += 8) {
    for (size_t c = 0; c < columns; c += 32) {
      tile_8x32_x16(AT(src, r * src_stride + c * 2), src_stride,
                    OUT(dst, c * dst_stride + r * 2), dst_stride,
                    min_size(rows - r, 8), min_size(columns - c, 32));
    }
  }
}

// ---------------------------------------------------------------------------
// 8-bit elements: 16 rows x 64 columns, lane L holding columns 16L..16L+15.

static inline void tile_16x64_x8(const void *src, size_t src_stride,
                                 void *dst, size_t dst_stride, size_t rows,
                                 size_t columns) {
  __mmask64 column_mask =
      columns >= 64 ? ~0ull : (__mmask64)((1ull << columns) - 1);
  __mmask16 row_mask = (__mmask16)((1u << rows) - 1);
  bool full = rows == 16 && columns == 64;
  __m512i x[16];
  for (size_t i = 0; i < 16; ++i) {
    const void *row = AT(src, i * src_stride);
    x[i] = full       ? _mm512_loadu_si512(row)
           : i < rows ? _mm512_maskz_loadu_epi8(column_mask, row)
                      : _mm512_setzero_si512();
  }
  __m512i y[16];
  for (int i = 0; i < 8; ++i) {
    y[2 * i] = _mm512_unpacklo_epi8(x[2 * i], x[2 * i + 1]);
    y[2 * i + 1] = _mm512_unpackhi_epi8(x[2 * i], x[2 * i + 1]);
  }
  // x[4g + q]: rows 4g..4g+3, columns 4q..4q+3 (per lane).
  for (int g = 0; g < 4; ++g) {
    x[4 * g + 0] = _mm512_unpacklo_epi16(y[4 * g], y[4 * g + 2]);
    x[4 * g + 1] = _mm512_unpackhi_epi16(y[4 * g], y[4 * g + 2]);
    x[4 * g + 2] = _mm512_unpacklo_epi16(y[4 * g + 1], y[4 * g + 3]);
    x[4 * g + 3] = _mm512_unpackhi_epi16(y[4 * g + 1], y[4 * g + 3]);
  }
  // y[8h + p]: rows 8h..8h+7, columns 2p, 2p+1.
  for (int h = 0; h < 2; ++h) {
    for (int q = 0; q < 4; ++q) {
      y[8 * h + 2 * q] =
          _mm512_unpacklo_epi32(x[8 * h + q], x[8 * h + 4 + q]);
      y[8 * h + 2 * q + 1] =
          _mm512_unpackhi_epi32(x[8 * h + q], x[8 * h + 4 + q]);
    }
  }
  for (int p = 0; p < 8; ++p) {
    __m512i pair[2] = {_mm512_unpacklo_epi64(y[p], y[8 + p]),
                       _mm512_unpackhi_epi64(y[p], y[8 + p])};
    for (int lane = 0; lane < 4; ++lane) {
      for (int k = 0; k < 2; ++k) {
        size_t c = (size_t)(16 * lane + 2 * p + k);
        if (full) {
          _mm_storeu_si128((__m128i *)OUT(dst, c * dst_stride),
                           lane_of(pair[k], lane));
        } else if (c < columns) {
          _mm_mask_storeu_epi8(OUT(dst, c * dst_stride), row_mask,
                               lane_of(pair[k], lane));
        }
      }
    }
  }
}

static void x8_tiles(size_t rows, size_t columns,
                     const void *src, size_t src_stride,
                     void *dst, size_t dst_stride) {
  for (size_t r = 0; r < rows; r += 16) {
    for (size_t c = 0; c < columns; c += 64) {
      tile_16x64_x8(AT(src, r * src_stride + c), src_stride,
                    OUT(dst, c * dst_stride + r), dst_stride,
                    min_size(rows - r, 16), min_size(columns - c, 64));
    }
  }
}

void etr_move_transpose_x8_avx512(size_t rows, size_t columns,
                                  const void *src, size_t src_stride,
                                  void *dst, size_t dst_stride) {
  if (rows < 8 || columns < 8) {  // mostly edges: the portable loop
    etr_move_transpose_x8_scalar(rows, columns, src, src_stride, dst,
                                 dst_stride);
    return;
  }
  etr_move_transpose_blocks(x8_tiles, 1, rows, columns, src, src_stride,
                            dst, dst_stride);
}

void etr_move_transpose_x16_avx512(size_t rows, size_t columns,
                                   const void *src, size_t src_stride,
                                   void *dst, size_t dst_stride) {
  if (rows < 8 || columns < 8) {  // mostly edges: the portable loop
    etr_move_transpose_x16_scalar(rows, columns, src, src_stride, dst,
                                  dst_stride);
    return;
  }
  etr_move_transpose_blocks(x16_tiles, 2, rows, columns, src, src_stride,
                            dst, dst_stride);
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

void etr_move_transpose_x64_avx512(size_t rows, size_t columns,
                                   const void *src, size_t src_stride,
                                   void *dst, size_t dst_stride) {
  if (rows < 8 || columns < 8) {  // mostly edges: the portable loop
    etr_move_transpose_x64_scalar(rows, columns, src, src_stride, dst,
                                  dst_stride);
    return;
  }
  etr_move_transpose_blocks(x64_tiles, 8, rows, columns, src, src_stride,
                            dst, dst_stride);
}

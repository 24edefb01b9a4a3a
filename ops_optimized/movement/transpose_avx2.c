// SPDX-License-Identifier: Apache-2.0
//
// Transposes, AVX2 (see movement.h). Register tiles:
//   x32  8 x 8 (unpack, shuffle, permute2f128), two tiles stacked so each
//        destination row gets 64 contiguous bytes;
//   x64  4 x 4 (unpack, permute2f128), two tiles stacked likewise;
//   x16  8 rows x 16 columns: two 8 x 8 tiles side by side in the two
//        128-bit lanes (unpack epi16/epi32/epi64 per lane); four row tiles
//        run per column group, so each destination row gets 64 bytes;
//   x8   16 rows x 32 columns: two 16 x 16 tiles side by side, four row
//        tiles per column group likewise.
// Shuffles move bits only, so NaN payloads and -0.0 are kept. The rows and
// columns no tile covers go to the portable kernel, which touches nothing
// outside the block.
#include <immintrin.h>

#include "ops_optimized/movement/movement.h"

#define AT(base, offset) ((const char *)(base) + (offset))
#define OUT(base, offset) ((char *)(base) + (offset))

// The parts of a rows x columns block outside its first `full_rows` x
// `full_columns` (both multiples of the tile), by the portable kernel.
static void edges(etr_move_transpose_fn scalar, size_t element_size,
                  size_t rows, size_t columns, size_t full_rows,
                  size_t full_columns, const void *src, size_t src_stride,
                  void *dst, size_t dst_stride) {
  // Right strip: every row, the columns past full_columns.
  scalar(rows, columns - full_columns, AT(src, full_columns * element_size),
         src_stride, OUT(dst, full_columns * dst_stride), dst_stride);
  // Bottom strip: the rows past full_rows, the tiled columns.
  scalar(rows - full_rows, full_columns, AT(src, full_rows * src_stride),
         src_stride, OUT(dst, full_rows * element_size), dst_stride);
}

// ---------------------------------------------------------------------------
// 32-bit elements.

static inline void tile_8x8_x32(const void *src, size_t src_stride,
                                void *dst, size_t dst_stride) {
  __m256 r[8];
  for (int i = 0; i < 8; ++i) {
    r[i] = _mm256_castsi256_ps(
        _mm256_loadu_si256((const __m256i *)AT(src, i * src_stride)));
  }
  __m256 t[8];
  for (int i = 0; i < 4; ++i) {
    t[2 * i] = _mm256_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm256_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
  __m256 u[8];
  for (int g = 0; g < 2; ++g) {  // rows 0-3, rows 4-7
    __m256 lo0 = t[4 * g], hi0 = t[4 * g + 1];
    __m256 lo1 = t[4 * g + 2], hi1 = t[4 * g + 3];
    u[4 * g + 0] = _mm256_shuffle_ps(lo0, lo1, _MM_SHUFFLE(1, 0, 1, 0));
    u[4 * g + 1] = _mm256_shuffle_ps(lo0, lo1, _MM_SHUFFLE(3, 2, 3, 2));
    u[4 * g + 2] = _mm256_shuffle_ps(hi0, hi1, _MM_SHUFFLE(1, 0, 1, 0));
    u[4 * g + 3] = _mm256_shuffle_ps(hi0, hi1, _MM_SHUFFLE(3, 2, 3, 2));
  }
  for (int k = 0; k < 4; ++k) {
    __m256 low = _mm256_permute2f128_ps(u[k], u[4 + k], 0x20);
    __m256 high = _mm256_permute2f128_ps(u[k], u[4 + k], 0x31);
    _mm256_storeu_si256((__m256i *)OUT(dst, k * dst_stride),
                        _mm256_castps_si256(low));
    _mm256_storeu_si256((__m256i *)OUT(dst, (k + 4) * dst_stride),
                        _mm256_castps_si256(high));
  }
}

static void x32_tiles(size_t rows, size_t columns,
                      const void *src, size_t src_stride,
                      void *dst, size_t dst_stride) {
  size_t full_rows = rows / 8 * 8;
  size_t full_columns = columns / 8 * 8;
  for (size_t r = 0; r < full_rows; r += 16) {
    bool pair = r + 16 <= full_rows;
    for (size_t c = 0; c < full_columns; c += 8) {
      const char *in = AT(src, r * src_stride + c * 4);
      char *out = OUT(dst, c * dst_stride + r * 4);
      tile_8x8_x32(in, src_stride, out, dst_stride);
      if (pair) {
        tile_8x8_x32(in + 8 * src_stride, src_stride, out + 32, dst_stride);
      }
    }
  }
  edges(etr_move_transpose_x32_scalar, 4, rows, columns, full_rows,
        full_columns, src, src_stride, dst, dst_stride);
}

// ---------------------------------------------------------------------------
// 64-bit elements.

static inline void tile_4x4_x64(const void *src, size_t src_stride,
                                void *dst, size_t dst_stride) {
  __m256d r[4];
  for (int i = 0; i < 4; ++i) {
    r[i] = _mm256_castsi256_pd(
        _mm256_loadu_si256((const __m256i *)AT(src, i * src_stride)));
  }
  __m256d t0 = _mm256_unpacklo_pd(r[0], r[1]);
  __m256d t1 = _mm256_unpackhi_pd(r[0], r[1]);
  __m256d t2 = _mm256_unpacklo_pd(r[2], r[3]);
  __m256d t3 = _mm256_unpackhi_pd(r[2], r[3]);
  __m256d o[4] = {_mm256_permute2f128_pd(t0, t2, 0x20),
                  _mm256_permute2f128_pd(t1, t3, 0x20),
                  _mm256_permute2f128_pd(t0, t2, 0x31),
                  _mm256_permute2f128_pd(t1, t3, 0x31)};
  for (int k = 0; k < 4; ++k) {
    _mm256_storeu_si256((__m256i *)OUT(dst, k * dst_stride),
                        _mm256_castpd_si256(o[k]));
  }
}

static void x64_tiles(size_t rows, size_t columns,
                      const void *src, size_t src_stride,
                      void *dst, size_t dst_stride) {
  size_t full_rows = rows / 4 * 4;
  size_t full_columns = columns / 4 * 4;
  for (size_t r = 0; r < full_rows; r += 8) {
    bool pair = r + 8 <= full_rows;
    for (size_t c = 0; c < full_columns; c += 4) {
      const char *in = AT(src, r * src_stride + c * 8);
      char *out = OUT(dst, c * dst_stride + r * 8);
      tile_4x4_x64(in, src_stride, out, dst_stride);
      if (pair) {
        tile_4x4_x64(in + 4 * src_stride, src_stride, out + 32, dst_stride);
      }
    }
  }
  edges(etr_move_transpose_x64_scalar, 8, rows, columns, full_rows,
        full_columns, src, src_stride, dst, dst_stride);
}

// ---------------------------------------------------------------------------
// 16-bit elements: 8 rows x 16 columns, lane j holding columns 8j..8j+7.

static inline void tile_8x16_x16(const void *src, size_t src_stride,
                                 void *dst, size_t dst_stride) {
  __m256i r[8];
  for (int i = 0; i < 8; ++i) {
    r[i] = _mm256_loadu_si256((const __m256i *)AT(src, i * src_stride));
  }
  __m256i a[8];
  for (int i = 0; i < 4; ++i) {
    a[2 * i] = _mm256_unpacklo_epi16(r[2 * i], r[2 * i + 1]);
    a[2 * i + 1] = _mm256_unpackhi_epi16(r[2 * i], r[2 * i + 1]);
  }
  // b[4g + j]: rows 4g..4g+3, columns 2j, 2j+1 (per lane).
  __m256i b[8];
  for (int g = 0; g < 2; ++g) {
    b[4 * g + 0] = _mm256_unpacklo_epi32(a[4 * g], a[4 * g + 2]);
    b[4 * g + 1] = _mm256_unpackhi_epi32(a[4 * g], a[4 * g + 2]);
    b[4 * g + 2] = _mm256_unpacklo_epi32(a[4 * g + 1], a[4 * g + 3]);
    b[4 * g + 3] = _mm256_unpackhi_epi32(a[4 * g + 1], a[4 * g + 3]);
  }
  for (int j = 0; j < 4; ++j) {
    __m256i even = _mm256_unpacklo_epi64(b[j], b[4 + j]);  // column 2j
    __m256i odd = _mm256_unpackhi_epi64(b[j], b[4 + j]);   // column 2j+1
    _mm_storeu_si128((__m128i *)OUT(dst, (2 * j) * dst_stride),
                     _mm256_castsi256_si128(even));
    _mm_storeu_si128((__m128i *)OUT(dst, (2 * j + 1) * dst_stride),
                     _mm256_castsi256_si128(odd));
    _mm_storeu_si128((__m128i *)OUT(dst, (2 * j + 8) * dst_stride),
                     _mm256_extracti128_si256(even, 1));
    _mm_storeu_si128((__m128i *)OUT(dst, (2 * j + 9) * dst_stride),
                     _mm256_extracti128_si256(odd, 1));
  }
}

static void x16_tiles(size_t rows, size_t columns,
                      const void *src, size_t src_stride,
                      void *dst, size_t dst_stride) {
  size_t full_rows = rows / 8 * 8;
  size_t full_columns = columns / 16 * 16;
  for (size_t r0 = 0; r0 < full_rows; r0 += 32) {  // 64 bytes per dst row
    size_t r1 = full_rows - r0 < 32 ? full_rows : r0 + 32;
    for (size_t c = 0; c < full_columns; c += 16) {
      for (size_t r = r0; r < r1; r += 8) {
        tile_8x16_x16(AT(src, r * src_stride + c * 2), src_stride,
                      OUT(dst, c * dst_stride + r * 2), dst_stride);
      }
    }
  }
  edges(etr_move_transpose_x16_scalar, 2, rows, columns, full_rows,
        full_columns, src, src_stride, dst, dst_stride);
}

// ---------------------------------------------------------------------------
// 8-bit elements: 16 rows x 32 columns, lane j holding columns 16j..16j+15.

static inline void tile_16x32_x8(const void *src, size_t src_stride,
                                 void *dst, size_t dst_stride) {
  __m256i x[16];
  for (int i = 0; i < 16; ++i) {
    x[i] = _mm256_loadu_si256((const __m256i *)AT(src, i * src_stride));
  }
  __m256i y[16];
  // Rows 2i, 2i+1 interleaved: y[2i] columns 0-7, y[2i+1] columns 8-15.
  for (int i = 0; i < 8; ++i) {
    y[2 * i] = _mm256_unpacklo_epi8(x[2 * i], x[2 * i + 1]);
    y[2 * i + 1] = _mm256_unpackhi_epi8(x[2 * i], x[2 * i + 1]);
  }
  // Rows 4g..4g+3: x[4g + q] holds columns 4q..4q+3.
  for (int g = 0; g < 4; ++g) {
    x[4 * g + 0] = _mm256_unpacklo_epi16(y[4 * g], y[4 * g + 2]);
    x[4 * g + 1] = _mm256_unpackhi_epi16(y[4 * g], y[4 * g + 2]);
    x[4 * g + 2] = _mm256_unpacklo_epi16(y[4 * g + 1], y[4 * g + 3]);
    x[4 * g + 3] = _mm256_unpackhi_epi16(y[4 * g + 1], y[4 * g + 3]);
  }
  // Rows 8h..8h+7: y[8h + p] holds columns 2p, 2p+1.
  for (int h = 0; h < 2; ++h) {
    for (int q = 0; q < 4; ++q) {
      y[8 * h + 2 * q] =
          _mm256_unpacklo_epi32(x[8 * h + q], x[8 * h + 4 + q]);
      y[8 * h + 2 * q + 1] =
          _mm256_unpackhi_epi32(x[8 * h + q], x[8 * h + 4 + q]);
    }
  }
  // All 16 rows: column 2p from the low halves, 2p+1 from the high ones.
  for (int p = 0; p < 8; ++p) {
    __m256i even = _mm256_unpacklo_epi64(y[p], y[8 + p]);
    __m256i odd = _mm256_unpackhi_epi64(y[p], y[8 + p]);
    _mm_storeu_si128((__m128i *)OUT(dst, (2 * p) * dst_stride),
                     _mm256_castsi256_si128(even));
    _mm_storeu_si128((__m128i *)OUT(dst, (2 * p + 1) * dst_stride),
                     _mm256_castsi256_si128(odd));
    _mm_storeu_si128((__m128i *)OUT(dst, (2 * p + 16) * dst_stride),
                     _mm256_extracti128_si256(even, 1));
    _mm_storeu_si128((__m128i *)OUT(dst, (2 * p + 17) * dst_stride),
                     _mm256_extracti128_si256(odd, 1));
  }
}

static void x8_tiles(size_t rows, size_t columns,
                     const void *src, size_t src_stride,
                     void *dst, size_t dst_stride) {
  size_t full_rows = rows / 16 * 16;
  size_t full_columns = columns / 32 * 32;
  for (size_t r0 = 0; r0 < full_rows; r0 += 64) {  // 64 bytes per dst row
    size_t r1 = full_rows - r0 < 64 ? full_rows : r0 + 64;
    for (size_t c = 0; c < full_columns; c += 32) {
      for (size_t r = r0; r < r1; r += 16) {
        tile_16x32_x8(AT(src, r * src_stride + c), src_stride,
                      OUT(dst, c * dst_stride + r), dst_stride);
      }
    }
  }
  edges(etr_move_transpose_x8_scalar, 1, rows, columns, full_rows,
        full_columns, src, src_stride, dst, dst_stride);
}

void etr_move_transpose_x8_avx2(size_t rows, size_t columns,
                                const void *src, size_t src_stride,
                                void *dst, size_t dst_stride) {
  etr_move_transpose_blocks(x8_tiles, 1, rows, columns, src, src_stride,
                            dst, dst_stride);
}

void etr_move_transpose_x16_avx2(size_t rows, size_t columns,
                                 const void *src, size_t src_stride,
                                 void *dst, size_t dst_stride) {
  etr_move_transpose_blocks(x16_tiles, 2, rows, columns, src, src_stride,
                            dst, dst_stride);
}

void etr_move_transpose_x32_avx2(size_t rows, size_t columns,
                                 const void *src, size_t src_stride,
                                 void *dst, size_t dst_stride) {
  etr_move_transpose_blocks(x32_tiles, 4, rows, columns, src, src_stride,
                            dst, dst_stride);
}

void etr_move_transpose_x64_avx2(size_t rows, size_t columns,
                                 const void *src, size_t src_stride,
                                 void *dst, size_t dst_stride) {
  etr_move_transpose_blocks(x64_tiles, 8, rows, columns, src, src_stride,
                            dst, dst_stride);
}

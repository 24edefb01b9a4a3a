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

// One 16 x 16 tile, fully unrolled (GCC kept the generic loops rolled,
// spilling the 16 registers to the stack: 3x slower on the 10-row weight
// transpose of the datasets' CNN). `full` is a compile-time constant at
// each call, so the full tile has no masks and no branches.
#define UNROLL _Pragma("GCC unroll 16")

static inline __attribute__((always_inline)) void tile_16x16_x32(
    const void *src, size_t src_stride, void *dst, size_t dst_stride,
    size_t rows, size_t columns, bool full) {
  __mmask16 column_mask = (__mmask16)((1u << columns) - 1);  // columns <= 16
  __mmask16 row_mask = (__mmask16)((1u << rows) - 1);
  __m512 r[16];
  UNROLL
  for (size_t i = 0; i < 16; ++i) {
    if (full) {
      r[i] = _mm512_castsi512_ps(_mm512_loadu_si512(AT(src, i * src_stride)));
    } else {
      // Rows past the block: a zero mask (nothing loaded) at a valid
      // address.
      bool inside = i < rows;
      const void *row = AT(src, (inside ? i : 0) * src_stride);
      r[i] = _mm512_castsi512_ps(
          _mm512_maskz_loadu_epi32(inside ? column_mask : 0, row));
    }
  }
  __m512 t[16];
  UNROLL
  for (int i = 0; i < 8; ++i) {
    t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
  // u[4g + j], lane l: rows 4g..4g+3 of column 4l + j.
  __m512 u[16];
  UNROLL
  for (int g = 0; g < 4; ++g) {
    u[4 * g + 0] = _mm512_shuffle_ps(t[4 * g], t[4 * g + 2], 0x44);
    u[4 * g + 1] = _mm512_shuffle_ps(t[4 * g], t[4 * g + 2], 0xEE);
    u[4 * g + 2] = _mm512_shuffle_ps(t[4 * g + 1], t[4 * g + 3], 0x44);
    u[4 * g + 3] = _mm512_shuffle_ps(t[4 * g + 1], t[4 * g + 3], 0xEE);
  }
  UNROLL
  for (int j = 0; j < 4; ++j) {
    __m512 v0 = _mm512_shuffle_f32x4(u[j], u[4 + j], 0x88);
    __m512 v1 = _mm512_shuffle_f32x4(u[j], u[4 + j], 0xDD);
    __m512 w0 = _mm512_shuffle_f32x4(u[8 + j], u[12 + j], 0x88);
    __m512 w1 = _mm512_shuffle_f32x4(u[8 + j], u[12 + j], 0xDD);
    __m512 column[4] = {_mm512_shuffle_f32x4(v0, w0, 0x88),   // j
                        _mm512_shuffle_f32x4(v1, w1, 0x88),   // 4 + j
                        _mm512_shuffle_f32x4(v0, w0, 0xDD),   // 8 + j
                        _mm512_shuffle_f32x4(v1, w1, 0xDD)};  // 12 + j
    UNROLL
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

// Full tiles at a destination stride that is a multiple of 4 KiB (the 16
// destination rows of a tile share one L1 set): the same code kept rolled
// (not inlined, no unroll pragmas). The unrolled tile measured 45% faster
// on cache-resident NCHW -> NHWC but 75% slower on the 1024 x 1024
// transpose (bench transpose-1024: 372 -> 648 us; rolled, 366 us).
static __attribute__((noinline)) void full_tile_16x16_x32(
    const void *src, size_t src_stride, void *dst, size_t dst_stride) {
  __m512 r[16];
  for (size_t i = 0; i < 16; ++i) {
    r[i] = _mm512_castsi512_ps(_mm512_loadu_si512(AT(src, i * src_stride)));
  }
  __m512 t[16];
  for (int i = 0; i < 8; ++i) {
    t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
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
    __m512 column[4] = {_mm512_shuffle_f32x4(v0, w0, 0x88),
                        _mm512_shuffle_f32x4(v1, w1, 0x88),
                        _mm512_shuffle_f32x4(v0, w0, 0xDD),
                        _mm512_shuffle_f32x4(v1, w1, 0xDD)};
    for (size_t l = 0; l < 4; ++l) {
      _mm512_storeu_si512(OUT(dst, (4 * l + (size_t)j) * dst_stride),
                          _mm512_castps_si512(column[l]));
    }
  }
}

#define EDGE_ROWS(n) \
  tile_16x16_x32(from, src_stride, to, dst_stride, n, 16, false)

static void x32_tiles(size_t rows, size_t columns,
                      const void *src, size_t src_stride,
                      void *dst, size_t dst_stride) {
  for (size_t r = 0; r < rows; r += 16) {
    size_t block_rows = min_size(rows - r, 16);
    for (size_t c = 0; c < columns; c += 16) {
      size_t block_columns = min_size(columns - c, 16);
      const void *from = AT(src, r * src_stride + c * 4);
      void *to = OUT(dst, c * dst_stride + r * 4);
      if (block_columns < 16) {
        tile_16x16_x32(from, src_stride, to, dst_stride, block_rows,
                       block_columns, false);
        continue;
      }
      // A constant row count lets the compiler drop the shuffles of the
      // zero rows (the CNN's 10-row classifier weight: 25% fewer
      // instructions, 5% less time).
      switch (block_rows) {
        case 16:
          if (dst_stride % 4096 == 0) {
            full_tile_16x16_x32(from, src_stride, to, dst_stride);
          } else {
            tile_16x16_x32(from, src_stride, to, dst_stride, 16, 16, true);
          }
          break;
        case 15: EDGE_ROWS(15); break;
        case 14: EDGE_ROWS(14); break;
        case 13: EDGE_ROWS(13); break;
        case 12: EDGE_ROWS(12); break;
        case 11: EDGE_ROWS(11); break;
        case 10: EDGE_ROWS(10); break;
        case 9: EDGE_ROWS(9); break;
        default:
          tile_16x16_x32(from, src_stride, to, dst_stride, block_rows, 16,
                         false);
          break;
      }
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


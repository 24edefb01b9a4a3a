// SPDX-License-Identifier: Apache-2.0
//
// Winograd's F(2x2, 3x3) with the 16 transform positions as the lanes of
// a vector (conv.h), for small planes: winograd_avx512.c takes the tiles
// of a tile row as lanes, which leaves lanes empty when a plane has few
// tiles (ResNet's 64x12x12 layer: 36 tiles in 48 lanes; 128x6x6: 9 in
// 16). Here every lane is a position, whatever the plane:
//
//   input   per (channel, tile) the 4x4 patch loaded as 4 rows of 4 into
//           one vector (lane 4i + j: patch row i, column j), B^T d B by
//           two 128-bit-block shuffles and two in-block permutes;
//   product per (out channel, tile), the 16 positions' sums: an
//           elementwise multiply-add over input channels of U's vector
//           (etr_conv_winograd_pack's positions layout) and the tile's
//           vector, in tiles of 8 out channels x 3 tiles (24
//           accumulators, 11 loads for 24 FMAs a channel);
//   output  A^T m A from the sums (its 4 blocks, then in-block permutes),
//           + bias, the fused post; neighbouring tiles of a tile row two
//           at a time (one vector, two stores of four columns: 0.92x the
//           time of one at a time on 64x12x12 and 8x8).
//
// Same arithmetic as winograd_avx512.c, another order of rounding (the
// patch's rows are combined before its columns here); the same range
// check and exactness on small integers. On Zen 4: ResNet's 128x6x6
// layer 113 us with the tile lanes (9 of 16 lanes), 54 here (95 direct);
// 64x12x12 68 -> 54 us, of which the input transform 6; 256x14x14 1346
// -> 1040 us.
#include <immintrin.h>
#include <stdint.h>

#include "ops_optimized/conv/conv.h"
#include "ops_optimized/conv/lanes_avx512.h"
#include "ops_optimized/conv/winograd_avx512.h"

// Input rows of at most this many columns (the row buffer's reach).
#define MAX_WIDTH 256

enum {
  kRows = 8,   // out channels per tile of sums
  kTiles = 3,  // tiles per tile of sums
};

bool etr_conv_winograd_positions_nchw_avx512_applies(
    const etr_conv2d_geometry_t *g, int64_t out_channels) {
  return winograd_geometry(g, out_channels) && g->in_w <= MAX_WIDTH &&
         g->channels * etr_conv_winograd_positions_tiles(g) <= 16384;
}

// A patch's columns (lane 4i + j: row combination i, column j) through
// the column half of B^T d B: (c0 - c2, c1 + c2, c2 - c1, c1 - c3) in
// each block.
static inline __m512 column_positions(__m512 rows) {
  const __m512 c = _mm512_permute_ps(rows, _MM_SHUFFLE(1, 2, 1, 0));
  const __m512 e = _mm512_permute_ps(rows, _MM_SHUFFLE(3, 1, 2, 2));
  return _mm512_mask_add_ps(_mm512_sub_ps(c, e), (__mmask16)0x2222, c, e);
}

static inline __m512 load_row(const float *row, int64_t x, __mmask16 mask) {
  return row != NULL ? _mm512_maskz_loadu_ps(mask, row + x)
                     : _mm512_setzero_ps();
}

enum { kRowStride = MAX_WIDTH + 32 };

// The row half of B^T d B over whole input rows 2r - 1 .. 2r + 2 of a
// plane, (r0 - r2, r1 + r2, r2 - r1, r1 - r3), into `rows` (4 rows of
// kRowStride) from column 1 on; zeros past the plane (the masked loads'),
// so the zero column 0 and those past the width stay.
static void row_positions(const etr_conv2d_geometry_t *g, const float *plane,
                          int64_t r, float *rows) {
  const int64_t stride = g->in_stride_h;
  const float *y0 = winograd_input_row(plane, stride, g->in_h, 2 * r - 1);
  const float *y1 = winograd_input_row(plane, stride, g->in_h, 2 * r);
  const float *y2 = winograd_input_row(plane, stride, g->in_h, 2 * r + 1);
  const float *y3 = winograd_input_row(plane, stride, g->in_h, 2 * r + 2);
  for (int64_t x = 0; x < g->in_w; x += 16) {
    const __mmask16 mask = first_lanes(g->in_w - x);
    const __m512 a = load_row(y0, x, mask);
    const __m512 b = load_row(y1, x, mask);
    const __m512 c = load_row(y2, x, mask);
    const __m512 d = load_row(y3, x, mask);
    _mm512_storeu_ps(rows + 1 + x, _mm512_sub_ps(a, c));
    _mm512_storeu_ps(rows + kRowStride + 1 + x, _mm512_add_ps(b, c));
    _mm512_storeu_ps(rows + 2 * kRowStride + 1 + x, _mm512_sub_ps(c, b));
    _mm512_storeu_ps(rows + 3 * kRowStride + 1 + x, _mm512_sub_ps(b, d));
  }
}

// Every channel's tiles: tile k of channel c at v[(c * tiles_padded + k)
// * 16], tiles past the plane's as zeros. Per tile row the row half of
// B^T d B (row_positions), then per tile its 4 x 4 window of those rows
// (4 loads) through the column half. Two buffers of rows, the next tile
// row's written before this one's windows are read: read right after
// their stores, the windows (128-bit loads across 512-bit stores) could
// not be forwarded from the store queue (9.3 -> ... us on 64x12x12).
static void transform_input(const etr_conv2d_geometry_t *g,
                            const float *input, int64_t tile_cols,
                            int64_t tiles, int64_t tiles_padded, float *v) {
  float rows[2][4 * kRowStride];
  for (int b = 0; b < 2; ++b) {
    for (int64_t x = 0; x < 4 * kRowStride; x += 16) {
      _mm512_storeu_ps(&rows[b][x], _mm512_setzero_ps());
    }
  }
  const int64_t tile_rows = tiles / tile_cols;
  for (int64_t c = 0; c < g->channels; ++c) {
    const float *plane = input + c * g->in_stride_c;
    float *dst = v + c * tiles_padded * 16;
    row_positions(g, plane, 0, rows[0]);
    for (int64_t r = 0; r < tile_rows; ++r) {
      if (r + 1 < tile_rows) {
        row_positions(g, plane, r + 1, rows[(r + 1) & 1]);
      }
      const float *p = rows[r & 1];
      for (int64_t t = 0; t < tile_cols; ++t, dst += 16) {
        __m512 w = _mm512_castps128_ps512(_mm_loadu_ps(p + 2 * t));
        w = _mm512_insertf32x4(w, _mm_loadu_ps(p + kRowStride + 2 * t), 1);
        w = _mm512_insertf32x4(w, _mm_loadu_ps(p + 2 * kRowStride + 2 * t),
                               2);
        w = _mm512_insertf32x4(w, _mm_loadu_ps(p + 3 * kRowStride + 2 * t),
                               3);
        _mm512_store_ps(dst, column_positions(w));
      }
    }
    for (int64_t k = tiles; k < tiles_padded; ++k, dst += 16) {
      _mm512_store_ps(dst, _mm512_setzero_ps());
    }
  }
}

// The rows of A^T m A for two tiles' sums m and n, (m0 + m1 + m2,
// m1 - m2 - m3) over their blocks: blocks (m's two, n's two). n = m for
// one tile (its rows twice).
static inline __m512 row_outputs(__m512 m, __m512 n) {
  const __m512 a = _mm512_shuffle_f32x4(m, n, _MM_SHUFFLE(1, 0, 1, 0));
  const __m512 b = _mm512_shuffle_f32x4(m, n, _MM_SHUFFLE(2, 1, 2, 1));
  const __m512 c = _mm512_shuffle_f32x4(m, n, _MM_SHUFFLE(3, 2, 3, 2));
  return _mm512_mask_blend_ps((__mmask16)0xf0f0,
                              _mm512_add_ps(_mm512_add_ps(a, b), c),
                              _mm512_sub_ps(_mm512_sub_ps(a, b), c));
}

// A^T m A over blocks of 4 positions' rows already combined (lanes 4i +
// j: row combination i, column j): columns (m0 + m1 + m2, m1 - m2 - m3)
// of each, at lanes 0 and 1 of the block.
static inline __m512 column_outputs(__m512 rows) {
  // Lane 0: (u + v) + w = m0 + m1 + m2; lane 1: (u - v) - w = m1 - m2 -
  // m3.
  const __m512 v = _mm512_permute_ps(rows, _MM_SHUFFLE(0, 3, 2, 1));
  const __m512 w = _mm512_permute_ps(rows, _MM_SHUFFLE(1, 0, 3, 2));
  return _mm512_mask_blend_ps((__mmask16)0x2222,
                              _mm512_add_ps(_mm512_add_ps(rows, v), w),
                              _mm512_sub_ps(_mm512_sub_ps(rows, v), w));
}

// One tile's 2x2 outputs from its 16 positions' sums: A^T m A (rows
// (m0 + m1 + m2, m1 - m2 - m3) over the blocks, then columns likewise in
// each), + bias, the post; `columns` of out rows 2r and (second_row)
// 2r + 1.
static inline void store_tile(__m512 m, const winograd_epilogue_t *e,
                              float *out, int64_t row_stride,
                              bool second_row, __mmask16 columns) {
  const __m512 y = winograd_finish(e, column_outputs(row_outputs(m, m)));
  _mm512_mask_storeu_ps(out, columns, y);
  if (second_row) {  // lanes 4-5 to the next row
    _mm512_mask_storeu_ps(out + row_stride - 4, (__mmask16)(columns << 4),
                          y);
  }
}

// Two neighbouring tiles of a tile row (m: the left one, n: the right),
// the same arithmetic as store_tile on both at once: `columns` of the 4
// out columns.
static inline void store_pair(__m512 m, __m512 n,
                              const winograd_epilogue_t *e, float *out,
                              int64_t row_stride, bool second_row,
                              __mmask16 columns) {
  // Out row 2r: lanes 0, 1 (m) and 8, 9 (n); row 2r + 1: 4, 5 and 12,
  // 13. Put each row's four in lanes 0-3 and 4-7.
  const __m512i order = _mm512_set_epi32(15, 14, 11, 10, 7, 6, 3, 2, 13, 12,
                                         5, 4, 9, 8, 1, 0);
  const __m512 y = _mm512_permutexvar_ps(
      order, winograd_finish(e, column_outputs(row_outputs(m, n))));
  _mm512_mask_storeu_ps(out, columns, y);
  if (second_row) {
    _mm512_mask_storeu_ps(out + row_stride - 4, (__mmask16)(columns << 4),
                          y);
  }
}

// The outputs of out channels [o, o + rows) x tiles [k, k + tiles) from
// their sums: neighbouring tiles of a tile row in pairs, else one at a
// time. Not inlined: in the product's function its constants took the
// registers the accumulators needed (moves in the FMA loop, 0.79x the
// speed on 64x12x12).
static __attribute__((noinline)) void store_sums(
    const etr_conv_winograd_args_t *a, __m512 sums[kRows][kTiles], int64_t o,
    int64_t rows, int64_t k, int tiles, int64_t tile_cols) {
  const etr_conv2d_geometry_t *g = a->g;
  for (int s = 0; s < tiles;) {
    const int64_t r = (k + s) / tile_cols;
    const int64_t t = (k + s) % tile_cols;
    const bool second_row = 2 * r + 1 < g->out_h;
    const int64_t left = g->out_w - 2 * t;  // out columns from the tile's
    float *out = a->out + 2 * r * g->out_w + 2 * t;
    const bool pair = s + 1 < tiles && t + 1 < tile_cols;
    const __mmask16 columns = first_lanes(left < (pair ? 4 : 2)
                                              ? left
                                              : (pair ? 4 : 2));
    for (int j = 0; j < rows; ++j) {
      const winograd_epilogue_t e = winograd_epilogue_of(a, o + j);
      float *plane = out + (o + j) * a->out_stride;
      if (pair) {
        store_pair(sums[j][s], sums[j][s + 1], &e, plane, g->out_w,
                   second_row, columns);
      } else {
        store_tile(sums[j][s], &e, plane, g->out_w, second_row, columns);
      }
    }
    s += pair ? 2 : 1;
  }
}

// Out channels [o, o + 8) (U's block) x tiles [k, k + TILES): the sums
// over channels, then each tile's outputs (`rows` of the 8 that exist).
static inline __attribute__((always_inline)) void product_tile(
    const etr_conv_winograd_args_t *a, const float *u, const float *v,
    int64_t tiles_padded, int64_t o, int64_t rows, int64_t k,
    int64_t tile_cols, const int tiles) {
  const etr_conv2d_geometry_t *g = a->g;
  __m512 acc[kRows][kTiles];
#pragma GCC unroll 8
  for (int j = 0; j < kRows; ++j) {
#pragma GCC unroll 3
    for (int s = 0; s < tiles; ++s) {
      acc[j][s] = _mm512_setzero_ps();
    }
  }
  const float *x = v + k * 16;
  for (int64_t c = 0; c < g->channels;
       ++c, u += kRows * 16, x += tiles_padded * 16) {
    __m512 t[kTiles];
#pragma GCC unroll 3
    for (int s = 0; s < tiles; ++s) {
      t[s] = _mm512_load_ps(x + 16 * s);
    }
#pragma GCC unroll 8
    for (int j = 0; j < kRows; ++j) {
      const __m512 w = _mm512_load_ps(u + 16 * j);
#pragma GCC unroll 3
      for (int s = 0; s < tiles; ++s) {
        acc[j][s] = fma_into(acc[j][s], w, t[s]);
      }
    }
  }
  // The sums to memory, their outputs from there (store_sums).
  __m512 sums[kRows][kTiles];
#pragma GCC unroll 8
  for (int j = 0; j < kRows; ++j) {
#pragma GCC unroll 3
    for (int s = 0; s < tiles; ++s) {
      sums[j][s] = acc[j][s];
    }
  }
  store_sums(a, sums, o, rows, k, tiles, tile_cols);
}

bool etr_conv_winograd_positions_nchw_avx512(
    const etr_conv_winograd_args_t *a) {
  const etr_conv2d_geometry_t *g = a->g;
  if (!etr_conv_winograd_input_in_range_avx512(g, a->input)) {
    return false;
  }
  const int64_t tile_cols = (g->out_w + 1) / 2;
  const int64_t tiles = ((g->out_h + 1) / 2) * tile_cols;
  const int64_t tiles_padded = etr_conv_winograd_positions_tiles(g);
  float *v = a->scratch;
  transform_input(g, a->input, tile_cols, tiles, tiles_padded, v);
  const int64_t blocks = (a->out_channels + kRows - 1) / kRows;
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t o = b * kRows;
    const int64_t rows =
        a->out_channels - o < kRows ? a->out_channels - o : kRows;
    const float *u = a->chunk;
    if (a->weight != NULL) {
      u = a->weight + b * g->channels * kRows * 16;
    } else if (!etr_conv_winograd_pack_block(a->raw_weight, g,
                                             a->out_channels, b, a->chunk)) {
      return false;  // not packed at load: this block's now
    }
    int64_t k = 0;
    for (; k + kTiles <= tiles; k += kTiles) {
      product_tile(a, u, v, tiles_padded, o, rows, k, tile_cols, kTiles);
    }
    if (tiles - k == 2) {
      product_tile(a, u, v, tiles_padded, o, rows, k, tile_cols, 2);
    } else if (tiles - k == 1) {
      product_tile(a, u, v, tiles_padded, o, rows, k, tile_cols, 1);
    }
  }
  return true;
}

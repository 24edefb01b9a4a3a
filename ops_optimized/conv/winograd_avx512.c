// SPDX-License-Identifier: Apache-2.0
//
// 3x3 stride-1 padding-1 convolution as Winograd's F(2x2, 3x3) (Lavin and
// Gray, 2016), NCHW fp32, one image and group per call (conv.h). Each 2x2
// block of outputs ("tile") reads a 4x4 input patch d; with the weight's
// transform U = G g G^T (etr_conv_winograd_pack, 16 values per (out,
// input) channel pair) the outputs are A^T [sum over c of U .* B^T d B]
// A: 16 products per tile and channel pair where the direct sum takes 36.
//
//   B^T d B    rows, then columns: (d0 - d2, d1 + d2, d2 - d1, d1 - d3)
//   A^T m A    rows, then columns: (m0 + m1 + m2, m1 - m2 - m3)
//
// The tiles of a row of them are the lanes of a vector (strips of 32
// out columns: 16 tiles; a strip reads its neighbours' edge columns), the
// 16 positions of the transform separate planes, so the product is, per
// position, a GEMM over channels with the tiles as columns and out
// channels as rows: vectors of tiles, broadcast U. Tile rows are taken in
// blocks of up to 48 tiles (3 vectors: a block's tile rows back to back
// in the lanes): 8 out channels x 3 vectors of tiles is 24 accumulators,
// the FMAs' sums for one position; the 16 positions' sums of a block go
// through a 24 KiB buffer to the out transform, which stores two out rows
// per tile row.
//
// Steps, per call: a pass over the input checking its range; then per
// (strip, block) the input transform of every channel into the scratch
// (16 planes of channels x the block's lanes), and per 8 out channels 16
// GEMMs, the out transform, + bias, the fused post, the stores. On
// ResNet's 32x24x24 layer (Zen 4): 55 us against the shifted rows' 96,
// of which the GEMMs 42 (112 GFLOP/s), the transforms 6 and 5.
//
// Rounding differs from the direct sum's (the transforms add and scale
// before and after the products); with small integer data every value is
// exact (U holds quarters of the weights' sums), so the exact-mode tests
// still match bit for bit. Non-finite or huge inputs would not: inf - inf
// in a transform turns a direct sum's inf into NaN. An input with a value
// beyond 2^40 in magnitude, inf or NaN makes the call return false having
// written nothing (the first pass), and the caller runs another kernel
// (the weights are checked when packed). Within that range no transform
// or sum overflows (|V| <= 16 2^40, |U| <= 2.25 2^40, the sums of at most
// 2^20 channels).
#include <immintrin.h>
#include <stdint.h>

#include "ops_optimized/conv/conv.h"
#include "ops_optimized/conv/lanes_avx512.h"
#include "ops_optimized/conv/winograd_avx512.h"

enum {
  kPositions = 16,  // 4x4 transform
  kRows = 8,        // out channels per GEMM tile
  kMaxVectors = 3,  // vectors of tiles per block
  kBlockLanes = ETR_CONV_WINOGRAD_BLOCK_LANES,
};
_Static_assert(kBlockLanes == 16 * kMaxVectors, "3 vectors a block");

// |x| bits of 2^40: larger (inf, NaN included) declines the call.
#define RANGE_LIMIT_BITS 0x53800000u

bool etr_conv_winograd_nchw_avx512_applies(const etr_conv2d_geometry_t *g,
                                           int64_t out_channels) {
  return winograd_geometry(g, out_channels) && g->in_w <= 4096 &&
         g->in_h <= 4096 && g->channels <= ((int64_t)1 << 20) &&
         etr_conv_winograd_utilization(g) >= 0.7;
}

static int64_t vectors_of(int64_t lanes) { return (lanes + 15) / 16; }

// An input row's column transform over the tiles of one tile row of a
// strip of at most 32 columns: tile t reads columns 2t - 1 .. 2t + 2 of
// the strip, zeros past its `width` (the image's right edge), column -1
// from the left neighbour strip when `left` (else the padding's zero),
// column 32 from the right one when `right`. `row` NULL: a padding row.
typedef struct columns {
  __m512 c0, c1, c2, c3;
} columns_t;

static inline __attribute__((always_inline)) columns_t column_transform(
    const float *row, int64_t width, bool left, bool right) {
  if (row == NULL) {
    const __m512 zero = _mm512_setzero_ps();
    return (columns_t){zero, zero, zero, zero};
  }
  const __m512i even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14,
                                        12, 10, 8, 6, 4, 2, 0);
  const __m512i one = _mm512_set1_epi32(1);
  const __m512 x0 = _mm512_maskz_loadu_ps(first_lanes(width), row);
  const __m512 x1 = _mm512_maskz_loadu_ps(first_lanes(width - 16), row + 16);
  // d0 = x[2t - 1], d1 = x[2t], d2 = x[2t + 1], d3 = x[2t + 2]; lane 0 of
  // d0 and lane 15 of d3 lie outside the 32 columns.
  __m512 d0 = _mm512_maskz_permutex2var_ps(
      (__mmask16)0xfffe, x0, _mm512_sub_epi32(even, one), x1);
  const __m512 d1 = _mm512_permutex2var_ps(x0, even, x1);
  const __m512 d2 = _mm512_permutex2var_ps(x0, _mm512_add_epi32(even, one),
                                           x1);
  __m512 d3 = _mm512_maskz_permutex2var_ps(
      (__mmask16)0x7fff, x0, _mm512_add_epi32(even, _mm512_add_epi32(one, one)),
      x1);
  if (left) {
    d0 = _mm512_mask_broadcastss_ps(d0, (__mmask16)0x0001,
                                    _mm_load_ss(row - 1));
  }
  if (right) {
    d3 = _mm512_mask_broadcastss_ps(d3, (__mmask16)0x8000,
                                    _mm_load_ss(row + 32));
  }
  return (columns_t){_mm512_sub_ps(d0, d2), _mm512_add_ps(d1, d2),
                     _mm512_sub_ps(d2, d1), _mm512_sub_ps(d1, d3)};
}

// Position (p, q) of tile row t's tiles from the column transforms of
// its input rows a, b, c, d (p: a - c, b + c, c - b, b - d).
static inline __attribute__((always_inline)) void store_positions(
    float *dst, int64_t position_stride, __mmask16 tiles, __m512 a, __m512 b,
    __m512 c, __m512 d) {
  _mm512_mask_storeu_ps(dst, tiles, _mm512_sub_ps(a, c));
  _mm512_mask_storeu_ps(dst + 4 * position_stride, tiles,
                        _mm512_add_ps(b, c));
  _mm512_mask_storeu_ps(dst + 8 * position_stride, tiles,
                        _mm512_sub_ps(c, b));
  _mm512_mask_storeu_ps(dst + 12 * position_stride, tiles,
                        _mm512_sub_ps(b, d));
}

// The input transform of one channel's strip (`plane` at its first
// column, `width` columns, neighbours as column_transform's) over a block
// of tile rows [row0, row0 + rows): position (p, q) of tile row r's tiles
// at v[(p * 4 + q) * position_stride + (r - row0) * tile_cols], the
// block's lanes past its tiles zeroed (lanes floats a position). Written
// with the columns of each input row in registers: arrays of them went
// through the stack.
static void input_transform(const float *plane, int64_t row_stride,
                            int64_t height, int64_t width, bool left,
                            bool right, int64_t row0, int64_t rows,
                            int64_t tile_cols, float *v,
                            int64_t position_stride, int64_t lanes) {
  const __mmask16 tiles = first_lanes(tile_cols);
#define ROW(y) winograd_input_row(plane, row_stride, height, (y))
  columns_t a = column_transform(ROW(2 * row0 - 1), width, left, right);
  columns_t b = column_transform(ROW(2 * row0), width, left, right);
  for (int64_t t = 0; t < rows; ++t) {
    const int64_t y = 2 * (row0 + t) + 1;
    const columns_t c = column_transform(ROW(y), width, left, right);
    const columns_t d = column_transform(ROW(y + 1), width, left, right);
    float *dst = v + t * tile_cols;
    store_positions(dst, position_stride, tiles, a.c0, b.c0, c.c0, d.c0);
    store_positions(dst + position_stride, position_stride, tiles, a.c1,
                    b.c1, c.c1, d.c1);
    store_positions(dst + 2 * position_stride, position_stride, tiles, a.c2,
                    b.c2, c.c2, d.c2);
    store_positions(dst + 3 * position_stride, position_stride, tiles, a.c3,
                    b.c3, c.c3, d.c3);
    a = c;
    b = d;
  }
#undef ROW
  // Lanes past the block's tiles (in its last vector): zeros, so the
  // GEMM's unused lanes multiply nothing odd (no NaN, no denormals).
  const int64_t used = rows * tile_cols;
  if (used < lanes) {
    const int64_t last = lanes - 16;
    const __mmask16 tail = (__mmask16)~first_lanes(used - last);
    for (int p = 0; p < kPositions; ++p) {
      _mm512_mask_storeu_ps(v + p * position_stride + last, tail,
                            _mm512_setzero_ps());
    }
  }
}

// sums[j][s] = sum over c of u[c][j] * v[c][s] for 8 out channels j and
// VECTORS vectors of tiles s, one FMA chain per sum in channel order from
// +0.0; stored at m + j * kBlockLanes + 16 s.
static inline __attribute__((always_inline)) void gemm_tile(
    const float *v, int64_t lanes, const float *u, int64_t channels,
    float *m, const int vectors) {
  __m512 acc[kRows][kMaxVectors];
#pragma GCC unroll 8
  for (int j = 0; j < kRows; ++j) {
#pragma GCC unroll 3
    for (int s = 0; s < vectors; ++s) {
      acc[j][s] = _mm512_setzero_ps();
    }
  }
  for (int64_t c = 0; c < channels; ++c, v += lanes, u += kRows) {
    __m512 x[kMaxVectors];
#pragma GCC unroll 3
    for (int s = 0; s < vectors; ++s) {
      x[s] = _mm512_loadu_ps(v + 16 * s);
    }
#pragma GCC unroll 8
    for (int j = 0; j < kRows; ++j) {
      const __m512 w = _mm512_set1_ps(u[j]);
#pragma GCC unroll 3
      for (int s = 0; s < vectors; ++s) {
        acc[j][s] = fma_into(acc[j][s], w, x[s]);
      }
    }
  }
#pragma GCC unroll 8
  for (int j = 0; j < kRows; ++j) {
#pragma GCC unroll 3
    for (int s = 0; s < vectors; ++s) {
      _mm512_storeu_ps(m + j * kBlockLanes + 16 * s, acc[j][s]);
    }
  }
}

static void gemm(const float *v, int64_t lanes, const float *u,
                 int64_t channels, float *m) {
  switch (lanes / 16) {
    case 1:
      gemm_tile(v, lanes, u, channels, m, 1);
      break;
    case 2:
      gemm_tile(v, lanes, u, channels, m, 2);
      break;
    default:
      gemm_tile(v, lanes, u, channels, m, 3);
      break;
  }
}

// Column pairs (y0[t], y1[t]) interleaved: out columns 2t and 2t + 1.
static inline void store_row(float *out, int64_t width, __m512 y0,
                             __m512 y1) {
  const __m512i lo = _mm512_set_epi32(23, 7, 22, 6, 21, 5, 20, 4, 19, 3, 18,
                                      2, 17, 1, 16, 0);
  const __m512i hi = _mm512_add_epi32(lo, _mm512_set1_epi32(8));
  _mm512_mask_storeu_ps(out, first_lanes(width),
                        _mm512_permutex2var_ps(y0, lo, y1));
  if (width > 16) {
    _mm512_mask_storeu_ps(out + 16, first_lanes(width - 16),
                          _mm512_permutex2var_ps(y0, hi, y1));
  }
}

// The out transform of one out channel over a block's tile rows from the
// 16 positions' sums (m: position p at m + p * kRows * kBlockLanes).
static void output_transform(const float *m, const winograd_epilogue_t *e,
                             int64_t row0, int64_t rows, int64_t tile_cols,
                             int64_t height, int64_t width, float *plane,
                             int64_t row_stride) {
  const __mmask16 tiles = first_lanes(tile_cols);
  const int64_t position = kRows * kBlockLanes;
  for (int64_t t = 0; t < rows; ++t) {
    const float *src = m + t * tile_cols;
    __m512 s0[4], s1[4];
#pragma GCC unroll 4
    for (int q = 0; q < 4; ++q) {
      const __m512 m0 = _mm512_maskz_loadu_ps(tiles, src + q * position);
      const __m512 m1 =
          _mm512_maskz_loadu_ps(tiles, src + (4 + q) * position);
      const __m512 m2 =
          _mm512_maskz_loadu_ps(tiles, src + (8 + q) * position);
      const __m512 m3 =
          _mm512_maskz_loadu_ps(tiles, src + (12 + q) * position);
      s0[q] = _mm512_add_ps(_mm512_add_ps(m0, m1), m2);
      s1[q] = _mm512_sub_ps(_mm512_sub_ps(m1, m2), m3);
    }
    // Out row 2t: columns (s0[0] + s0[1] + s0[2], s0[1] - s0[2] - s0[3]);
    // row 2t + 1 likewise from s1.
    const int64_t y = 2 * (row0 + t);
    float *out = plane + y * row_stride;
    const __m512 y00 = _mm512_add_ps(_mm512_add_ps(s0[0], s0[1]), s0[2]);
    const __m512 y01 = _mm512_sub_ps(_mm512_sub_ps(s0[1], s0[2]), s0[3]);
    store_row(out, width, winograd_finish(e, y00), winograd_finish(e, y01));
    if (y + 1 < height) {
      const __m512 y10 = _mm512_add_ps(_mm512_add_ps(s1[0], s1[1]), s1[2]);
      const __m512 y11 = _mm512_sub_ps(_mm512_sub_ps(s1[1], s1[2]), s1[3]);
      store_row(out + row_stride, width, winograd_finish(e, y10),
                winograd_finish(e, y11));
    }
  }
}

bool etr_conv_winograd_input_in_range_avx512(const etr_conv2d_geometry_t *g,
                                             const float *input) {
  const __m512i magnitude = _mm512_set1_epi32(0x7fffffff);
  __m512i range = _mm512_setzero_si512();
  for (int64_t c = 0; c < g->channels; ++c) {
    const float *plane = input + c * g->in_stride_c;
    for (int64_t y = 0; y < g->in_h; ++y) {
      const float *row = plane + y * g->in_stride_h;
      for (int64_t x = 0; x < g->in_w; x += 16) {
        const __m512i bits = _mm512_castps_si512(
            _mm512_maskz_loadu_ps(first_lanes(g->in_w - x), row + x));
        range = _mm512_max_epu32(range, _mm512_and_si512(bits, magnitude));
      }
    }
  }
  return _mm512_reduce_max_epu32(range) <= RANGE_LIMIT_BITS;
}

bool etr_conv_winograd_nchw_avx512(const etr_conv_winograd_args_t *a) {
  const etr_conv2d_geometry_t *g = a->g;
  if (!etr_conv_winograd_input_in_range_avx512(g, a->input)) {
    return false;
  }
  const int64_t channels = g->channels;
  const int64_t height = g->out_h;
  const int64_t width = g->out_w;
  const int64_t tile_rows = (height + 1) / 2;
  const int64_t groups8 = (a->out_channels + kRows - 1) / kRows;
  float *m = a->scratch;
  float *v = m + kPositions * kRows * kBlockLanes;
  // Strips of 32 columns (16 tiles), each like an image of its own but
  // for the columns it reads from its neighbours.
  for (int64_t col0 = 0; col0 < width; col0 += 32) {
    const int64_t strip = width - col0 < 32 ? width - col0 : 32;
    const int64_t tile_cols = (strip + 1) / 2;
    const int64_t per_block = etr_conv_winograd_block_rows(tile_cols);
    const bool left = col0 > 0;
    const bool right = width > col0 + 32;
    for (int64_t r = 0; r < tile_rows; r += per_block) {
      const int64_t rows =
          tile_rows - r < per_block ? tile_rows - r : per_block;
      const int64_t lanes = 16 * vectors_of(rows * tile_cols);
      const int64_t position_stride =
          etr_conv_winograd_position_floats(channels, lanes);
      for (int64_t c = 0; c < channels; ++c) {
        input_transform(a->input + c * g->in_stride_c + col0, g->in_stride_h,
                        height, strip, left, right, r, rows, tile_cols,
                        v + c * lanes, position_stride, lanes);
      }
      for (int64_t o8 = 0; o8 < groups8; ++o8) {
        for (int p = 0; p < kPositions; ++p) {
          gemm(v + p * position_stride, lanes,
               a->weight + (p * groups8 + o8) * channels * kRows, channels,
               m + p * kRows * kBlockLanes);
        }
        for (int j = 0; j < kRows && o8 * kRows + j < a->out_channels; ++j) {
          const int64_t oc = o8 * kRows + j;
          const winograd_epilogue_t e = winograd_epilogue_of(a, oc);
          output_transform(m + j * kBlockLanes, &e, r, rows, tile_cols,
                           height, strip,
                           a->out + oc * a->out_stride + col0, width);
        }
      }
    }
  }
  return true;
}

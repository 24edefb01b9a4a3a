// SPDX-License-Identifier: Apache-2.0
//
// 3x3 stride-1 padding-1 convolution as Winograd's F(2x2, 3x3), NCHW
// fp32, AVX2: the tile lanes of winograd_avx512.c (read it first: the
// transforms, the range check, the declines and the weight's layout are
// the same) on vectors of 8. Strips of 16 out columns (8 tiles; a strip
// reads its neighbours' edge columns through loads masked to the image)
// in blocks of 3 vectors: 3 tile rows of a full strip, a vector each, or
// as many whole tile rows of a narrower strip as fit 24 lanes, packed
// back to back (a 24-wide plane's strips of 8 and 4 tiles, a 12-wide
// one's 6: every lane a tile). Per position a GEMM of 4 out channels x 3
// vectors of tiles (12 of the 16 registers accumulate), twice per block
// of 8 out channels of U.
//
// A full strip's lanes hold its tiles in the order 0, 1, 4, 5, 2, 3, 6,
// 7: the order in which one in-lane shuffle (vshufps) splits 16 columns
// into their even and odd ones, and in which the out transform's column
// pairs, interleaved by vunpcklps / vunpckhps, come out as 16 columns in
// order, so no lane crosses a 128-bit half on the way in or out. Packed
// strips put their tiles in order (one vpermpd more a vector each way).
//
// Taken where the blocks leave at most 30% of the lanes empty
// (etr_conv_winograd_avx2_utilization) on planes of at least 4 columns
// and 5 rows: a block of one tile row has GEMMs of one vector (16 x 40 on
// 2 x 40: 3.9 -> 4.6 us against the pixel tiles), and a one-column plane
// half-empty tiles (40 x 1: 11.7 -> 18.5 us). On Zen 4 with the ISA
// forced to AVX2 (ETREF_ISA=avx2, paired.py program, one-op programs,
// median of 5 rounds, against the pixel tiles): ResNet's 32x24x24 98 ->
// 58 us, 64x12x12 98 -> 57, the cnn's 16 -> 32 16x16 23.0 -> 13.8,
// conv3x3-64-56 2.15 -> 1.12 ms, conv3x3-128-28 2.14 -> 1.03; 8 -> 8 on
// 7x7 2.4 -> 1.8 us. The GEMMs run at the FMA peak; the transforms take
// about a quarter of the time (their 256-bit stores go at about one a
// cycle, and there are twice the AVX-512 kernel's vectors).
#include <immintrin.h>
#include <stdint.h>

#include "ops_optimized/common/mask_avx2.h"
#include "ops_optimized/conv/conv.h"
#include "ops_optimized/conv/winograd.h"

enum {
  kPositions = 16,    // 4x4 transform
  kRows = 8,          // out channels per block of U (the packed layout)
  kGemmRows = 4,      // out channels per GEMM tile
  kBlockVectors = 3,  // vectors of tiles per block
  kBlockLanes = 8 * kBlockVectors,
};
_Static_assert(kBlockLanes <= ETR_CONV_WINOGRAD_BLOCK_LANES,
               "the scratch is sized for the AVX-512 blocks");

// |x| bits of 2^40: larger (inf, NaN included) declines the call.
#define RANGE_LIMIT_BITS 0x53800000

bool etr_conv_winograd_nchw_avx2_applies(const etr_conv2d_geometry_t *g,
                                         int64_t out_channels) {
  return winograd_geometry(g, out_channels) && g->in_w >= 4 &&
         g->in_h >= 5 && g->in_w <= 4096 && g->in_h <= 4096 &&
         g->channels <= ((int64_t)1 << 20) &&
         etr_conv_winograd_avx2_utilization(g) >= 0.7;
}

// Columns [start, start + 8) of an image row of `width`, zeros outside
// the image.
static inline __attribute__((always_inline)) __m256 load_columns(
    const float *row, int64_t start, int64_t width) {
  if (start >= 0 && start + 8 <= width) {
    return _mm256_loadu_ps(row + start);
  }
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  // Lane k is inside when -start <= k < width - start (both within
  // [-8, 8] or clamped there, so the int32 arithmetic is exact).
  const int64_t lo = start < -8 ? -8 : start > 8 ? 8 : start;
  const int64_t hi = width - start > 8 ? 8 : width - start;
  const __m256i inside = _mm256_and_si256(
      _mm256_cmpgt_epi32(lane, _mm256_set1_epi32((int)(-lo - 1))),
      _mm256_cmpgt_epi32(_mm256_set1_epi32((int)hi), lane));
  // The loads read nothing under a clear lane (vmaskmovps).
  return _mm256_maskload_ps(row + start, inside);
}

// An input row's column transform over the 8 tiles of the strip at
// column col0 (tile t: columns col0 + 2t - 1 .. col0 + 2t + 2, zeros
// outside the image); `row` NULL: a padding row. Scrambled tile order.
typedef struct columns {
  __m256 c0, c1, c2, c3;
} columns_t;

static inline __attribute__((always_inline)) __m256 in_order(__m256 x,
                                                             bool ordered) {
  // Lanes 0, 1, 4, 5, 2, 3, 6, 7 -> 0 .. 7 (64-bit pairs 0, 2, 1, 3).
  return ordered ? _mm256_castpd_ps(
                       _mm256_permute4x64_pd(_mm256_castps_pd(x), 0xd8))
                 : x;
}

static inline __attribute__((always_inline)) columns_t column_transform(
    const float *row, int64_t col0, int64_t width, bool ordered) {
  if (row == NULL) {
    const __m256 zero = _mm256_setzero_ps();
    return (columns_t){zero, zero, zero, zero};
  }
  // Columns col0 - 1 .. col0 + 14: even ones d0 = x[2t - 1], odd d1 =
  // x[2t]; col0 + 1 .. col0 + 16: even d2 = x[2t + 1], odd d3 = x[2t + 2].
  const __m256 a0 = load_columns(row, col0 - 1, width);
  const __m256 a1 = load_columns(row, col0 + 7, width);
  const __m256 b0 = load_columns(row, col0 + 1, width);
  const __m256 b1 = load_columns(row, col0 + 9, width);
  const __m256 d0 = _mm256_shuffle_ps(a0, a1, 0x88);
  const __m256 d1 = _mm256_shuffle_ps(a0, a1, 0xdd);
  const __m256 d2 = _mm256_shuffle_ps(b0, b1, 0x88);
  const __m256 d3 = _mm256_shuffle_ps(b0, b1, 0xdd);
  return (columns_t){in_order(_mm256_sub_ps(d0, d2), ordered),
                     in_order(_mm256_add_ps(d1, d2), ordered),
                     in_order(_mm256_sub_ps(d2, d1), ordered),
                     in_order(_mm256_sub_ps(d1, d3), ordered)};
}

// Position (p, q) of a tile row's tiles from the column transforms of
// its input rows a, b, c, d (p: a - c, b + c, c - b, b - d).
static inline __attribute__((always_inline)) void store_positions(
    float *dst, int64_t position_stride, __m256 a, __m256 b, __m256 c,
    __m256 d) {
  _mm256_storeu_ps(dst, _mm256_sub_ps(a, c));
  _mm256_storeu_ps(dst + 4 * position_stride, _mm256_add_ps(b, c));
  _mm256_storeu_ps(dst + 8 * position_stride, _mm256_sub_ps(c, b));
  _mm256_storeu_ps(dst + 12 * position_stride, _mm256_sub_ps(b, d));
}

// The input transform of one channel's strip at col0 over tile rows
// [row0, row0 + rows) of `tile_cols` tiles: position (p, q) of tile row r
// at v[(p * 4 + q) * position_stride + pitch (r - row0)]. A full strip's
// rows are a vector each (pitch 8, scrambled); a narrower strip's rows
// are packed back to back (pitch tile_cols, in order), each row's 8-lane
// stores overwriting the previous row's lanes past its tiles (the last
// row's run past the block's lanes into the next channel's, written
// after, or the position's 16 floats of slack). Lanes past the tiles hold
// the transforms of the image's zeros or of columns no out column reads,
// or (a packed block's last lanes past its last row's store, e.g. lane 15
// of two rows of 7 tiles) what the scratch held before: their sums are
// never stored.
static inline __attribute__((always_inline)) void input_transform(
    const float *plane, int64_t row_stride, int64_t height, int64_t width,
    int64_t col0, int64_t row0, int64_t rows, int64_t pitch, float *v,
    int64_t position_stride, bool ordered) {
#define ROW(y) winograd_input_row(plane, row_stride, height, (y))
  columns_t a = column_transform(ROW(2 * row0 - 1), col0, width, ordered);
  columns_t b = column_transform(ROW(2 * row0), col0, width, ordered);
  for (int64_t t = 0; t < rows; ++t) {
    const int64_t y = 2 * (row0 + t) + 1;
    const columns_t c = column_transform(ROW(y), col0, width, ordered);
    const columns_t d = column_transform(ROW(y + 1), col0, width, ordered);
    float *dst = v + pitch * t;
    store_positions(dst, position_stride, a.c0, b.c0, c.c0, d.c0);
    store_positions(dst + position_stride, position_stride, a.c1, b.c1,
                    c.c1, d.c1);
    store_positions(dst + 2 * position_stride, position_stride, a.c2, b.c2,
                    c.c2, d.c2);
    store_positions(dst + 3 * position_stride, position_stride, a.c3, b.c3,
                    c.c3, d.c3);
    a = c;
    b = d;
  }
#undef ROW
}

// sums[j][s] = sum over c of u[c][j] * v[c][s] for 4 out channels j
// (u rows kRows apart) and VECTORS vectors of tiles s, one FMA chain per
// sum in channel order from +0.0; stored at m + j * kBlockLanes + 8 s.
static inline __attribute__((always_inline)) void gemm_tile(
    const float *v, int64_t lanes, const float *u, int64_t channels,
    float *m, const int vectors) {
  __m256 acc[kGemmRows][kBlockVectors];
#pragma GCC unroll 4
  for (int j = 0; j < kGemmRows; ++j) {
#pragma GCC unroll 3
    for (int s = 0; s < vectors; ++s) {
      acc[j][s] = _mm256_setzero_ps();
    }
  }
  for (int64_t c = 0; c < channels; ++c, v += lanes, u += kRows) {
    __m256 x[kBlockVectors];
#pragma GCC unroll 3
    for (int s = 0; s < vectors; ++s) {
      x[s] = _mm256_loadu_ps(v + 8 * s);
    }
#pragma GCC unroll 4
    for (int j = 0; j < kGemmRows; ++j) {
      const __m256 w = _mm256_broadcast_ss(u + j);
#pragma GCC unroll 3
      for (int s = 0; s < vectors; ++s) {
        acc[j][s] = _mm256_fmadd_ps(w, x[s], acc[j][s]);
      }
    }
  }
#pragma GCC unroll 4
  for (int j = 0; j < kGemmRows; ++j) {
#pragma GCC unroll 3
    for (int s = 0; s < vectors; ++s) {
      _mm256_storeu_ps(m + j * kBlockLanes + 8 * s, acc[j][s]);
    }
  }
}

static void gemm(const float *v, int64_t vectors, const float *u,
                 int64_t channels, float *m) {
  switch (vectors) {
    case 1:
      gemm_tile(v, 8, u, channels, m, 1);
      break;
    case 2:
      gemm_tile(v, 16, u, channels, m, 2);
      break;
    default:
      gemm_tile(v, 24, u, channels, m, 3);
      break;
  }
}

typedef struct epilogue {
  __m256 bias;
  bool affine;
  __m256 scale, shift;
  bool clamp;
  __m256 low, high;
} epilogue_t;

// As winograd_avx512.h's: the bias (+0.0 without one) and fused post of
// out channel oc.
static epilogue_t epilogue_of(const etr_conv_winograd_args_t *a,
                              int64_t oc) {
  epilogue_t e = {.bias = _mm256_set1_ps(
                      a->bias != NULL ? a->bias[oc * a->bias_stride] : 0.0f)};
  const etr_conv_post_t *post = a->post;
  if (post != NULL) {
    const int64_t channel = a->post_channel0 + oc;
    e.affine = post->scale != NULL;
    if (e.affine) {
      e.scale = _mm256_set1_ps(post->scale[channel]);
      e.shift = _mm256_set1_ps(post->shift[channel]);
    }
    e.clamp = true;
    e.low = _mm256_set1_ps(post->low);
    e.high = _mm256_set1_ps(post->high);
  }
  return e;
}

static inline __m256 finish(const epilogue_t *e, __m256 y) {
  y = _mm256_add_ps(y, e->bias);
  if (e->affine) {
    y = _mm256_fmadd_ps(y, e->scale, e->shift);
  }
  if (e->clamp) {  // as post_avx2.c: NaN and -0.0 pass
    y = _mm256_min_ps(e->high, _mm256_max_ps(e->low, y));
  }
  return y;
}

// Out columns 2t and 2t + 1 of the strip's tiles (y0, y1; scrambled,
// or in order when `ordered`) as its first `width` columns in order.
static inline __attribute__((always_inline)) void store_row(
    float *out, int64_t width, __m256 y0, __m256 y1, bool ordered) {
  __m256 lo = _mm256_unpacklo_ps(y0, y1);  // scrambled: columns 0 .. 7
  __m256 hi = _mm256_unpackhi_ps(y0, y1);  // columns 8 .. 15
  if (ordered) {  // columns 0 .. 3 and 8 .. 11, 4 .. 7 and 12 .. 15
    const __m256 first = _mm256_permute2f128_ps(lo, hi, 0x20);
    hi = _mm256_permute2f128_ps(lo, hi, 0x31);
    lo = first;
  }
  if (width >= 8) {
    _mm256_storeu_ps(out, lo);
    etr_avx2_store_first_ps(out + 8, hi, width - 8);
  } else {
    etr_avx2_store_first_ps(out, lo, width);
  }
}

// The out transform of one out channel over a block's tile rows (`pitch`
// lanes apart, as input_transform's) from the 16 positions' sums (m:
// position p at m + p * kRows * kBlockLanes), into the strip's `width`
// columns at `plane`. A packed row's loads read on past its tiles, at
// most into the scratch's next floats (the transformed input).
static inline __attribute__((always_inline)) void output_transform(
    const float *m, const epilogue_t *e, int64_t row0, int64_t rows,
    int64_t pitch, int64_t height, int64_t width, float *plane,
    int64_t row_stride, bool ordered) {
  const int64_t position = kRows * kBlockLanes;
  for (int64_t t = 0; t < rows; ++t) {
    const float *src = m + pitch * t;
    __m256 s0[4], s1[4];
#pragma GCC unroll 4
    for (int q = 0; q < 4; ++q) {
      const __m256 m0 = _mm256_loadu_ps(src + q * position);
      const __m256 m1 = _mm256_loadu_ps(src + (4 + q) * position);
      const __m256 m2 = _mm256_loadu_ps(src + (8 + q) * position);
      const __m256 m3 = _mm256_loadu_ps(src + (12 + q) * position);
      s0[q] = _mm256_add_ps(_mm256_add_ps(m0, m1), m2);
      s1[q] = _mm256_sub_ps(_mm256_sub_ps(m1, m2), m3);
    }
    // Out row 2t: columns (s0[0] + s0[1] + s0[2], s0[1] - s0[2] - s0[3]);
    // row 2t + 1 likewise from s1.
    const int64_t y = 2 * (row0 + t);
    float *out = plane + y * row_stride;
    const __m256 y00 = _mm256_add_ps(_mm256_add_ps(s0[0], s0[1]), s0[2]);
    const __m256 y01 = _mm256_sub_ps(_mm256_sub_ps(s0[1], s0[2]), s0[3]);
    store_row(out, width, finish(e, y00), finish(e, y01), ordered);
    if (y + 1 < height) {
      const __m256 y10 = _mm256_add_ps(_mm256_add_ps(s1[0], s1[1]), s1[2]);
      const __m256 y11 = _mm256_sub_ps(_mm256_sub_ps(s1[1], s1[2]), s1[3]);
      store_row(out + row_stride, width, finish(e, y10), finish(e, y11),
                ordered);
    }
  }
}

// Whether every lane of the magnitudes' maximum is at most the limit
// (unsigned, as max_epu32).
static inline bool within_limit(__m256i range) {
  const __m256i limit = _mm256_set1_epi32(RANGE_LIMIT_BITS);
  return _mm256_movemask_epi8(_mm256_cmpeq_epi32(
             _mm256_max_epu32(range, limit), limit)) == -1;
}

bool etr_conv_winograd_input_in_range_avx2(const etr_conv2d_geometry_t *g,
                                           const float *input) {
  const __m256i magnitude = _mm256_set1_epi32(0x7fffffff);
  __m256i range = _mm256_setzero_si256();
  if (g->in_stride_h == g->in_w && g->in_stride_c == g->in_h * g->in_w) {
    // Dense planes back to back: one run of floats.
    const int64_t count = g->channels * g->in_stride_c;
    int64_t i = 0;
    for (; i + 8 <= count; i += 8) {
      const __m256i bits = _mm256_castps_si256(_mm256_loadu_ps(input + i));
      range = _mm256_max_epu32(range, _mm256_and_si256(bits, magnitude));
    }
    const __m256i bits =
        _mm256_castps_si256(load_columns(input + i, 0, count - i));
    range = _mm256_max_epu32(range, _mm256_and_si256(bits, magnitude));
    return within_limit(range);
  }
  for (int64_t c = 0; c < g->channels; ++c) {
    const float *plane = input + c * g->in_stride_c;
    for (int64_t y = 0; y < g->in_h; ++y) {
      const float *row = plane + y * g->in_stride_h;
      for (int64_t x = 0; x < g->in_w; x += 8) {
        const __m256i bits =
            _mm256_castps_si256(load_columns(row, x, g->in_w));
        range = _mm256_max_epu32(range, _mm256_and_si256(bits, magnitude));
      }
    }
  }
  return within_limit(range);
}

// One block of a strip: its input transform, then per 8 out channels the
// 16 positions' GEMMs and the out transforms. `ordered`: a packed strip.
static inline __attribute__((always_inline)) void block(
    const etr_conv_winograd_args_t *a, int64_t col0, int64_t strip,
    int64_t row0, int64_t rows, int64_t pitch, float *m, float *v,
    bool ordered) {
  const etr_conv2d_geometry_t *g = a->g;
  const int64_t channels = g->channels;
  const int64_t groups8 = (a->out_channels + kRows - 1) / kRows;
  const int64_t vectors = (rows * pitch + 7) / 8;
  const int64_t lanes = 8 * vectors;
  const int64_t position_stride =
      etr_conv_winograd_position_floats(channels, lanes);
  for (int64_t c = 0; c < channels; ++c) {
    input_transform(a->input + c * g->in_stride_c, g->in_stride_h, g->out_h,
                    g->out_w, col0, row0, rows, pitch, v + c * lanes,
                    position_stride, ordered);
  }
  for (int64_t o8 = 0; o8 < groups8; ++o8) {
    for (int p = 0; p < kPositions; ++p) {
      const float *u = a->weight + (p * groups8 + o8) * channels * kRows;
      float *sums = m + p * kRows * kBlockLanes;
      gemm(v + p * position_stride, vectors, u, channels, sums);
      gemm(v + p * position_stride, vectors, u + kGemmRows, channels,
           sums + kGemmRows * kBlockLanes);
    }
    for (int j = 0; j < kRows && o8 * kRows + j < a->out_channels; ++j) {
      const int64_t oc = o8 * kRows + j;
      const epilogue_t e = epilogue_of(a, oc);
      output_transform(m + j * kBlockLanes, &e, row0, rows, pitch, g->out_h,
                       strip, a->out + oc * a->out_stride + col0, g->out_w,
                       ordered);
    }
  }
}

bool etr_conv_winograd_nchw_avx2(const etr_conv_winograd_args_t *a) {
  const etr_conv2d_geometry_t *g = a->g;
  if (!etr_conv_winograd_input_in_range_avx2(g, a->input)) {
    return false;
  }
  const int64_t tile_rows = (g->out_h + 1) / 2;
  float *m = a->scratch;
  float *v = m + kPositions * kRows * kBlockLanes;
  for (int64_t col0 = 0; col0 < g->out_w; col0 += 16) {
    const int64_t strip = g->out_w - col0 < 16 ? g->out_w - col0 : 16;
    const int64_t tile_cols = (strip + 1) / 2;
    // A full strip: 3 tile rows of a vector each; a narrower one: as many
    // whole tile rows as fit 3 vectors, packed.
    const int64_t per_block = etr_conv_winograd_avx2_block_rows(tile_cols);
    for (int64_t r = 0; r < tile_rows; r += per_block) {
      const int64_t rows =
          tile_rows - r < per_block ? tile_rows - r : per_block;
      if (tile_cols == 8) {
        block(a, col0, strip, r, rows, 8, m, v, false);
      } else {
        block(a, col0, strip, r, rows, tile_cols, m, v, true);
      }
    }
  }
  return true;
}

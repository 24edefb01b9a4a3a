// SPDX-License-Identifier: Apache-2.0
//
// A CNN's first layer on small images, NCHW, AVX-512 (conv.h): 3x3,
// dilation 1, stride 1 or 2 both ways, at most 3 input channels, rows of
// 8 to 48 outputs (64 and up: stem_avx512.c), padding of at most 16
// columns, unit column stride: the cnn stem (3x32x32 -> 16) and
// mobilenet_v2's (3x64x64 -> 16, stride 2). At stride 1 also layers of up
// to 16 input channels on rows of 16, 32 or 48 outputs (the cnn's second
// layer, 16x16x16 -> 32: 12.7 -> 10.9 us against im2col and the GEMM,
// whose packing took a fifth of the time).
//
// The input rows of 8 output rows (4 past 3 input channels) are copied
// once into a stack band (at most 33 KB): zeros for the padding, at
// stride 2 split into even and odd columns, read with cache-line aligned
// loads whose masks are worked out once per call. Every out channel then
// reads the band. Weights are broadcast from where they are when each out
// channel's are dense (padding 1; else from a table, built per block of
// out channels: at 32 x 144 weights building it took 15% of the time). A
// tile is 4
// out channels by 4 output rows by 16 columns (16 accumulators): each tap
// is 4 unmasked loads at constant offsets and 4 weight broadcasts for 16
// FMAs. The row-by-row direct kernel (direct_avx512.c) spent 3 times as
// many instructions as FMAs on masks, spills and index arithmetic here:
// 4.8 -> 4.2 us (stride 1) and 5.6 -> 4.6 us (stride 2) in gemm_bench.
// Tiles of 8 x 3 spilled (GCC hoists a tap's 8 broadcasts ahead of its
// FMAs: 24 + 3 + 8 registers), and the FMA's own {1to16} broadcast of the
// weight ran at half the speed.
//
// The band's zeros stand for the padding taps, which add nothing: padded
// convolutions with a non-finite weight never come here
// (op_convolution.c). Rows of the band below the image are zeros, and the
// outputs they feed (past the last output row) are not stored.
#include <immintrin.h>

#include "ops_optimized/conv/conv.h"
#include "ops_optimized/conv/lanes_avx512.h"

#define SPAN 80                // a band row (one parity at stride 2)
#define MARGIN 16              // zeros before a band row's first column
#define MAX_OUT_W 48           // (SPAN - MARGIN - 16 read past the last)
#define BAND_OUT_ROWS 8        // output rows per band: 2 tiles
#define BAND_ROWS 17           // (BAND_OUT_ROWS - 1) * 2 + 3 at stride 2
#define MAX_CHANNELS 3         // input channels (3 x 9 <= 32 products)
#define OUT_BLOCK 64           // out channels per weight table
#define WIDE_CHANNELS 16       // at stride 1, in bands of 4 output rows
#define WIDE_BAND_OUT_ROWS 4
#define BAND_FLOATS (MAX_CHANNELS * BAND_ROWS * 2 * SPAN)
#define TABLE_FLOATS (OUT_BLOCK * MAX_CHANNELS * 9)
_Static_assert(WIDE_CHANNELS * (WIDE_BAND_OUT_ROWS + 2) * SPAN <=
                   BAND_FLOATS,
               "a wide band must fit the stem's");
#define TILE_ROWS 4
#define TILE_OUTS 4

bool etr_conv_stem3x3_narrow_nchw_avx512_applies(
    const etr_depthwise_args_t *args) {
  const etr_conv2d_geometry_t *g = args->geometry;
  return g->kernel_h == 3 && g->kernel_w == 3 && g->dilation_h == 1 &&
         g->dilation_w == 1 && g->channels >= 1 &&
         // (Many input channels on rows of other widths leave lanes of
         // every FMA idle: the GEMM's flattened pixels fill them.)
         (g->channels <= MAX_CHANNELS ||
          (g->channels <= WIDE_CHANNELS && g->stride_w == 1 &&
           g->out_w % 16 == 0)) &&
         g->stride_h == g->stride_w &&
         (g->stride_w == 1 || g->stride_w == 2) && g->in_stride_w == 1 &&
         g->out_w >= 8 && g->out_w <= MAX_OUT_W && g->pad_w >= 0 &&
         g->pad_w <= MARGIN &&
         g->pad_h >= 0;
}

// Input columns [first, first + 16) of a row that lie in [0, in_w).
static __mmask16 inside16(int64_t first, int64_t in_w) {
  int64_t lo = first < 0 ? -first : 0;
  int64_t hi = in_w - first < 16 ? in_w - first : 16;
  return hi <= lo ? 0 : (__mmask16)(((1u << (hi - lo)) - 1u) << lo);
}

// The band of output rows [oh0, oh0 + BAND_OUT_ROWS): per input channel
// BAND_ROWS rows of `row` floats; band column MARGIN + j of a row holds
// input column j (stride 1), or the even input column 2 j in [0, SPAN)
// and the odd one 2 j + 1 in [SPAN, 2 SPAN) (stride 2); the MARGIN columns
// before are zeros (the left padding). Rows are read from their first
// column, 16 columns per load (cache-line aligned when the row is: from
// the padding's column on, every load split two lines and the copy took a
// fifth of the stride-2 stem's time); `masks` holds the lanes inside the
// image of each of the `loads` loads.
static inline __attribute__((always_inline)) void copy_band(
    const etr_depthwise_args_t *args, int64_t stride, int64_t channels,
    int64_t band_out_rows, int64_t oh0, const __mmask16 *masks,
    int64_t loads, float *band) {
  const etr_conv2d_geometry_t *g = args->geometry;
  const int64_t row = stride == 1 ? SPAN : 2 * SPAN;
  const int64_t rows = (band_out_rows - 1) * stride + 3;
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18,
                                         20, 22, 24, 26, 28, 30);
  const __m512i odd = _mm512_add_epi32(even, _mm512_set1_epi32(1));
  const __m512 zero = _mm512_setzero_ps();
  for (int64_t c = 0; c < channels; ++c) {
    for (int64_t b = 0; b < rows; ++b) {
      float *to = band + (c * rows + b) * row;
      const int64_t ih = oh0 * stride - g->pad_h + b;
      if (ih < 0 || ih >= g->in_h) {
        for (int64_t j = 0; j < row; j += 16) {
          _mm512_storeu_ps(to + j, zero);
        }
        continue;
      }
      const float *from =
          args->input + c * g->in_stride_c + ih * g->in_stride_h;
      _mm512_storeu_ps(to, zero);
      if (stride == 1) {
        for (int64_t i = 0; i < loads; ++i) {
          _mm512_storeu_ps(to + MARGIN + 16 * i,
                           _mm512_maskz_loadu_ps(masks[i], from + 16 * i));
        }
        continue;
      }
      _mm512_storeu_ps(to + SPAN, zero);
      for (int64_t i = 0; i < loads; i += 2) {
        const __m512 lo = _mm512_maskz_loadu_ps(masks[i], from + 16 * i);
        const __m512 hi =
            _mm512_maskz_loadu_ps(masks[i + 1], from + 16 * i + 16);
        _mm512_storeu_ps(to + MARGIN + 8 * i,
                         _mm512_permutex2var_ps(lo, even, hi));
        _mm512_storeu_ps(to + SPAN + MARGIN + 8 * i,
                         _mm512_permutex2var_ps(lo, odd, hi));
      }
    }
  }
}

// One tile: out channels [0, outs) (outs <= TILE_OUTS) of `out`, rows
// [0, rows) (rows <= TILE_ROWS; the band has zeros for the others),
// `lanes` of 16 columns, from the band (moved to the tile's first column);
// w[o] points at out channel o's weight of tap (0, 0, 0), the next taps
// (c, kh, kw) following every `step` floats; `bias` (NULL: none) holds
// the channels' biases.
static inline __attribute__((always_inline)) void tile(
    const float *band, const float *const *w, int64_t step,
    const float *bias, float *out, int64_t out_stride_c,
    int64_t out_stride_h, int64_t stride, int64_t pad, int64_t channels,
    int64_t plane_rows, int64_t outs, int64_t rows, __mmask16 lanes) {
  __m512 acc[TILE_ROWS][TILE_OUTS];
#pragma GCC unroll 4
  for (int r = 0; r < TILE_ROWS; ++r) {
#pragma GCC unroll 8
    for (int o = 0; o < TILE_OUTS; ++o) {
      acc[r][o] = _mm512_setzero_ps();
    }
  }
  const int64_t row = stride == 1 ? SPAN : 2 * SPAN;
  // One (channel, kernel row) per trip, its 3 columns unrolled (all 27
  // taps unrolled, GCC hoists their loads and spills). The row's address
  // is made opaque so that GCC keeps it in a register and reads the taps
  // at constant displacements from it; left to itself it indexed the
  // stack band with offsets it kept on the stack (3 instructions per FMA).
  const float *wk[TILE_OUTS];
#pragma GCC unroll 8
  for (int o = 0; o < TILE_OUTS; ++o) {
    wk[o] = w[o];
  }
#pragma GCC unroll 1
  for (int64_t c = 0; c < channels; ++c) {
#pragma GCC unroll 1
    for (int64_t kh = 0; kh < 3; ++kh) {
      const float *at = band + (c * plane_rows + kh) * row;
      __asm__("" : "+r"(at));
#pragma GCC unroll 4
      for (int64_t kw = 0; kw < 3; ++kw) {
        // Input column (output column) * stride + d, d = kw - pad: at
        // stride 2 parity d & 1, floor(d / 2) columns on.
        const int64_t d = kw - pad;
        const int64_t column =
            stride == 1 ? MARGIN + d : (d & 1) * SPAN + MARGIN + (d >> 1);
        __m512 x[TILE_ROWS];
#pragma GCC unroll 4
        for (int r = 0; r < TILE_ROWS; ++r) {
          x[r] = _mm512_loadu_ps(at + column + r * stride * row);
        }
#pragma GCC unroll 8
        for (int o = 0; o < TILE_OUTS; ++o) {
          const __m512 wv = _mm512_set1_ps(wk[o][kw * step]);
#pragma GCC unroll 4
          for (int r = 0; r < TILE_ROWS; ++r) {
            acc[r][o] = _mm512_fmadd_ps(wv, x[r], acc[r][o]);
          }
        }
      }
#pragma GCC unroll 8
      for (int o = 0; o < TILE_OUTS; ++o) {
        wk[o] += 3 * step;
      }
    }
  }
#pragma GCC unroll 4
  for (int r = 0; r < TILE_ROWS; ++r) {
    if (r >= rows) {
      break;
    }
#pragma GCC unroll 8
    for (int o = 0; o < TILE_OUTS; ++o) {
      if (o >= outs) {
        break;
      }
      __m512 v = acc[r][o];
      if (bias != NULL) {
        v = _mm512_add_ps(v, _mm512_set1_ps(bias[o]));
      }
      _mm512_mask_storeu_ps(out + o * out_stride_c + r * out_stride_h, lanes,
                            v);
    }
  }
}

// All tiles of out channels [oc0, oc0 + outs) (outs <= OUT_BLOCK), the
// weights read in place (`in_place`: each out channel's (c, kh, kw) dense)
// or from a table (outs * channels * 9 <= TABLE_FLOATS).
static inline __attribute__((always_inline)) void block(
    const etr_depthwise_args_t *args, int64_t stride, int64_t pad,
    int64_t channels, bool in_place, int64_t oc0, int64_t outs) {
  const etr_conv2d_geometry_t *g = args->geometry;
  const int64_t band_out_rows =
      channels <= MAX_CHANNELS ? BAND_OUT_ROWS : WIDE_BAND_OUT_ROWS;
  const int64_t plane_rows = (band_out_rows - 1) * stride + 3;
  // Else weights of TILE_OUTS out channels per (c, kh, kw), zeros past
  // the last one; and the biases in a row.
  _Alignas(64) float weights[TABLE_FLOATS];
  _Alignas(64) float biases[OUT_BLOCK];
  const int64_t taps = channels * 9;
  for (int64_t o = 0; o < (outs + TILE_OUTS - 1) / TILE_OUTS * TILE_OUTS;
       ++o) {
    if (in_place) {
      break;
    }
    float *w = weights + o / TILE_OUTS * TILE_OUTS * taps + o % TILE_OUTS;
    if (o >= outs) {
      for (int64_t t = 0; t < taps; ++t) {
        w[t * TILE_OUTS] = 0.0f;
      }
      continue;
    }
    const float *from = args->weight + (oc0 + o) * g->w_stride_oc;
    for (int64_t c = 0; c < channels; ++c) {
      for (int64_t kh = 0; kh < 3; ++kh) {
        for (int64_t kw = 0; kw < 3; ++kw, w += TILE_OUTS) {
          *w = from[c * g->w_stride_c + kh * g->w_stride_h +
                    kw * g->w_stride_w];
        }
      }
    }
  }
  for (int64_t o = 0; o < outs && args->bias != NULL; ++o) {
    biases[o] = args->bias[(oc0 + o) * args->bias_stride];
  }
  // The input columns the tiles read: up to (16-column vectors of output
  // columns - 1) * stride + 2 - pad, 16 per load; pairs at stride 2.
  const int64_t padded_w = (g->out_w + 15) / 16 * 16;
  const int64_t needed = stride * (padded_w - 1) + 3 - pad;
  const int64_t per = 16 * stride;
  const int64_t loads = (needed + per - 1) / per * stride;
  __mmask16 masks[2 * SPAN / 16];
  for (int64_t i = 0; i < loads; ++i) {
    masks[i] = inside16(16 * i, g->in_w);
  }
  _Alignas(64) float band[BAND_FLOATS];
  const int64_t out_stride_c = args->out_stride_c;
  const int64_t out_stride_h = args->out_stride_h;
  for (int64_t oh0 = 0; oh0 < g->out_h; oh0 += band_out_rows) {
    copy_band(args, stride, channels, band_out_rows, oh0, masks, loads,
              band);
    const int64_t row = stride == 1 ? SPAN : 2 * SPAN;
    for (int64_t o8 = 0; o8 < outs; o8 += TILE_OUTS) {
      const int64_t n = outs - o8 < TILE_OUTS ? outs - o8 : TILE_OUTS;
      // Channels past the last (not stored) read the last one's weights.
      const float *w[TILE_OUTS];
      for (int64_t o = 0; o < TILE_OUTS; ++o) {
        w[o] = in_place ? args->weight + (oc0 + o8 + (o < n ? o : n - 1)) *
                                             g->w_stride_oc
                        : weights + o8 * taps + o;
      }
      for (int64_t r = 0; r < band_out_rows && oh0 + r < g->out_h;
           r += TILE_ROWS) {
        const int64_t rows = g->out_h - oh0 - r;
        float *out = args->out + (oc0 + o8) * out_stride_c +
                     (oh0 + r) * out_stride_h;
        for (int64_t ow = 0; ow < g->out_w; ow += 16) {
          tile(band + r * stride * row + ow, w, in_place ? 1 : TILE_OUTS,
               args->bias != NULL ? biases + o8 : NULL, out + ow,
               out_stride_c, out_stride_h, stride, pad, channels,
               plane_rows, n, rows,
               first_lanes(g->out_w - ow));
        }
      }
    }
  }
}

void etr_conv_stem3x3_narrow_nchw_avx512(const etr_depthwise_args_t *args) {
  const etr_conv2d_geometry_t *g = args->geometry;
  // Weights read in place: each out channel's dense, and padding 1 (the
  // specialized variants); else from a table.
  const bool in_place = g->w_stride_w == 1 && g->w_stride_h == 3 &&
                        (g->channels == 1 || g->w_stride_c == 9) &&
                        g->pad_w == 1 &&
                        (g->channels == 3 || g->stride_w == 1);
  // Out channels per block: 64, fewer for a table of many input channels.
  const int64_t per_block =
      in_place || g->channels <= MAX_CHANNELS
          ? OUT_BLOCK
          : TABLE_FLOATS / (g->channels * 9) / TILE_OUTS * TILE_OUTS;
  for (int64_t oc0 = 0; oc0 < args->channels; oc0 += per_block) {
    const int64_t outs = args->channels - oc0 < per_block
                             ? args->channels - oc0
                             : per_block;
    // Constant stride, padding and channels: every loop of a tile
    // unrolled, every tap at a constant offset.
    if (in_place && g->channels == 3) {
      if (g->stride_w == 1) {
        block(args, 1, 1, 3, true, oc0, outs);
      } else {
        block(args, 2, 1, 3, true, oc0, outs);
      }
    } else if (in_place) {
      block(args, 1, 1, g->channels, true, oc0, outs);
    } else if (g->stride_w == 1) {
      block(args, 1, g->pad_w, g->channels, false, oc0, outs);
    } else {
      block(args, 2, g->pad_w, g->channels, false, oc0, outs);
    }
  }
}

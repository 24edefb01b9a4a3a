// SPDX-License-Identifier: Apache-2.0
//
// A CNN's first layer, NCHW, AVX-512 (conv.h): square k x k kernels, k from
// 2 to 7 (VGG/MobileNet 3x3, ResNet's 7x7), dilation 1, stride 1 or 2
// both ways, at most 3 input channels, unit column stride; 3x3 on rows of
// at least 64 outputs (on 32-column 3x3 stems the copy costs more than it
// saves: 6.5 against 4.4 us for 3x32x32 -> 16, so they stay in
// direct_avx512.c and stem3x3_narrow_avx512.c), larger kernels on rows of
// at least 8 (a 7x7 output is 147 products on 3 channels: im2col and the
// GEMM took twice as long). The rows a tile of 3 output rows (2 for
// the 3x3 stride-2 stem) reads ((rows - 1) stride + k) are first copied,
// per input channel and chunk of 128 output columns, into a stack band
// (38 KB for 7x7): padded with zeros, and at stride 2 split into even and
// odd columns. Every tap of the tile
// is then one unmasked load at a constant offset from the band (no mask,
// no permute), shared by the FMAs of 8 out channels, and the band by all
// out channels. The band's zeros stand for the padding taps, which add
// nothing: padded convolutions with a non-finite weight never come here
// (op_convolution.c). Rows of the band below the image are zeros, and the
// outputs they feed (past the last output row) are not stored.
#include <immintrin.h>

#include "ops_optimized/conv/conv.h"
#include "ops_optimized/conv/lanes_avx512.h"

#define CHUNK 128              // output columns per band (64: 6% slower)
#define SPAN (CHUNK + 16)      // a band row (one parity at stride 2)
#define MAX_K 7
#define TILE_ROWS 3
#define BAND_ROWS ((TILE_ROWS - 1) * 2 + MAX_K)  // at stride 2
#define MAX_CHANNELS 3
#define OUT_BLOCK 64           // out channels per weight table (3x3)
#define OUT_BLOCK_LARGE 32     // (larger kernels: the table on the stack)
#define TILE_OUTS 8
#define WEIGHTS (OUT_BLOCK_LARGE * MAX_CHANNELS * MAX_K * MAX_K)

bool etr_conv_stem_nchw_avx512_applies(const etr_depthwise_args_t *args) {
  const etr_conv2d_geometry_t *g = args->geometry;
  const int64_t k = g->kernel_w;
  return g->kernel_h == k && k >= 2 && k <= MAX_K && g->dilation_h == 1 &&
         g->dilation_w == 1 && g->channels >= 1 &&
         g->channels <= MAX_CHANNELS && g->stride_h == g->stride_w &&
         (g->stride_w == 1 || g->stride_w == 2) && g->in_stride_w == 1 &&
         g->out_w >= (k == 3 ? 64 : 8) && g->pad_w >= 0 && g->pad_h >= 0;
}

// Input columns [first, first + 32) of a row that lie in [0, in_w).
static inline __mmask32 inside32(int64_t first, int64_t in_w) {
  int64_t lo = first < 0 ? -first : 0;
  int64_t hi = in_w - first < 32 ? in_w - first : 32;
  if (hi <= lo) {
    return 0;
  }
  uint64_t span = hi - lo >= 32 ? 0xffffffffull : (1ull << (hi - lo)) - 1u;
  return (__mmask32)(span << lo);
}

// Band row of input row `ih` (zeros outside the image) for the output
// columns [ow_c, ow_c + span) (span a multiple of 16, at most SPAN): at
// stride 1 input columns ow_c - pad + j,
// at stride 2 the even ones 2 (ow_c + j) - pad in row[j] and the odd ones
// in row[SPAN + j].
static void copy_row(const etr_conv2d_geometry_t *g, const float *plane,
                     int64_t ih, int64_t ow_c, int64_t span, int64_t rows,
                     float *row) {
  const int64_t stride = g->stride_w;
  const bool inside = ih >= 0 && ih < g->in_h;
  const float *from = plane + (inside ? ih * g->in_stride_h : 0);
  const int64_t first = ow_c * stride - g->pad_w;
  const int64_t ahead = 2 * rows * stride * g->in_stride_h;
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18,
                                         20, 22, 24, 26, 28, 30);
  const __m512i odd = _mm512_add_epi32(even, _mm512_set1_epi32(1));
  for (int64_t j = 0; j < span; j += 16) {
    const int64_t at = first + j * stride;
    // Vectors wholly inside the row load unmasked: a masked load across
    // two cache lines (every one here when the padding is odd) cost the
    // copy alone of 3x224x224 at stride 2 22 us, unmasked 14 (the copy
    // timed without the tiles). Masked-off lanes are not read: `from +
    // at` may point before the row.
    const bool whole = inside && at >= 0 && at + 16 * stride <= g->in_w;
    const __mmask32 m = inside ? inside32(at, g->in_w) : 0;
    __m512 lo = whole ? _mm512_loadu_ps(from + at)
                      : _mm512_maskz_loadu_ps((__mmask16)m, from + at);
    // The band after next reads 2 * rows * stride rows further
    // down: prefetched into L2, as a band's tiles store more than L1
    // holds (32 out channels x 3 rows of 112: 43 KB) before the next one,
    // which evicted the T0 prefetch of the next band's rows (stem 3x224
    // s2 +5.7%, paired gemm_bench runs). A prefetch never faults, even
    // past the image.
    _mm_prefetch((const char *)(from + at + ahead), _MM_HINT_T1);
    if (stride == 1) {
      _mm512_storeu_ps(row + j, lo);
      continue;
    }
    __m512 hi = whole ? _mm512_loadu_ps(from + at + 16)
                      : _mm512_maskz_loadu_ps((__mmask16)(m >> 16),
                                              from + at + 16);
    _mm_prefetch((const char *)(from + at + 16 + ahead), _MM_HINT_T1);
    _mm512_storeu_ps(row + j, _mm512_permutex2var_ps(lo, even, hi));
    _mm512_storeu_ps(row + SPAN + j, _mm512_permutex2var_ps(lo, odd, hi));
  }
}

// The k taps of one (channel, kernel row) of a tile: `at` the band row,
// wk the 8 channels' weights of each of its k columns.
static inline __attribute__((always_inline)) void taps_row(
    __m512 acc[TILE_ROWS][TILE_OUTS], const float *at, const float *wk,
    int R, int64_t k, int64_t stride) {
  const int64_t row = stride == 1 ? SPAN : 2 * SPAN;
#pragma GCC unroll 7
  for (int64_t kw = 0; kw < k; ++kw) {
    const int64_t column = stride == 1 ? kw : (kw & 1) * SPAN + kw / 2;
    __m512 x[TILE_ROWS];
#pragma GCC unroll 3
    for (int r = 0; r < R; ++r) {
      x[r] = _mm512_loadu_ps(at + column + r * stride * row);
    }
#pragma GCC unroll 8
    for (int o = 0; o < TILE_OUTS; ++o) {
      const __m512 wv = _mm512_set1_ps(wk[kw * TILE_OUTS + o]);
#pragma GCC unroll 3
      for (int r = 0; r < R; ++r) {
        acc[r][o] = _mm512_fmadd_ps(wv, x[r], acc[r][o]);
      }
    }
  }
}

// Out channels [oc, oc + outs) (outs <= 8), rows [oh0, oh0 + R) (R <= 3),
// columns
// [ow, ow + count), from the band (moved to column ow) of a k x k kernel;
// w holds the 8 channels' weights of each (c, kh, kw) side by side.
static inline __attribute__((always_inline)) void tile(
    const etr_depthwise_args_t *args, const float *band, const float *w,
    int R, int64_t k, int64_t stride, int64_t channels, int64_t oc,
    int64_t outs, int64_t oh0, int64_t ow, int64_t count) {
  const etr_conv2d_geometry_t *g = args->geometry;
  // The sums start from the bias (24 adds fewer per tile than adding it
  // at the end; channels past `outs` start from 0 and are not stored).
  __m512 acc[TILE_ROWS][TILE_OUTS];
#pragma GCC unroll 8
  for (int o = 0; o < TILE_OUTS; ++o) {
    const __m512 start =
        args->bias != NULL && o < outs
            ? _mm512_set1_ps(args->bias[(oc + o) * args->bias_stride])
            : _mm512_setzero_ps();
#pragma GCC unroll 3
    for (int r = 0; r < R; ++r) {
      acc[r][o] = start;
    }
  }
  const int64_t row = stride == 1 ? SPAN : 2 * SPAN;
  if (k == 3 && stride == 2) {
    // A channel's 9 taps per trip, the band row and weights stepped by
    // pointer: the one-row trips below cost this stem a division by 3
    // per trip and left GCC short of registers for the addresses (kept
    // in vector registers, moved back per row): 3x224x224 -> 32 took
    // 188-194 us so, 176-185 this way (paired conv_kernel_bench runs,
    // with the copies of 2026-12-06). ResNet's 7x7 went 138-148 ->
    // 170-177 us this way, its 49 taps per trip.
#pragma GCC unroll 1
    for (int64_t c = 0; c < channels; ++c) {
      const float *at = band + c * BAND_ROWS * row;
      const float *wk = w + c * 9 * TILE_OUTS;
#pragma GCC unroll 3
      for (int64_t kh = 0; kh < 3; ++kh) {
        taps_row(acc, at + kh * row, wk + kh * 3 * TILE_OUTS, R, 3, 2);
      }
    }
  } else {
    // One (channel, kernel row) per trip, its k columns unrolled:
    // unrolling all 27 taps of a 3x3 made GCC hoist their loads and
    // spill.
#pragma GCC unroll 1
    for (int64_t ck = 0; ck < channels * k; ++ck) {
      taps_row(acc, band + (ck / k * BAND_ROWS + ck % k) * row,
               w + ck * k * TILE_OUTS, R, k, stride);
    }
  }
  const __mmask16 lanes = first_lanes(count);
#pragma GCC unroll 3
  for (int r = 0; r < R; ++r) {
    if (oh0 + r >= g->out_h) {
      break;
    }
#pragma GCC unroll 8
    for (int o = 0; o < TILE_OUTS; ++o) {
      if (o >= outs) {
        break;
      }
      _mm512_mask_storeu_ps(args->out + (oc + o) * args->out_stride_c +
                                (oh0 + r) * args->out_stride_h + ow,
                            lanes, acc[r][o]);
    }
  }
}

// All tiles of out channels [oc0, oc0 + outs) (outs * channels * k * k
// <= WEIGHTS).
static inline __attribute__((always_inline)) void block(
    const etr_depthwise_args_t *args, int R, int64_t k, int64_t stride,
    int64_t channels, int64_t oc0, int64_t outs) {
  const etr_conv2d_geometry_t *g = args->geometry;
  const int64_t taps = k * k;
  // Weights of 8 out channels per (c, kh, kw), zeros past the last one.
  _Alignas(64) float weights[WEIGHTS];
  for (int64_t o8 = 0; o8 < outs; o8 += TILE_OUTS) {
    float *w = weights + o8 * channels * taps;
    for (int64_t c = 0; c < channels; ++c) {
      for (int64_t kh = 0; kh < k; ++kh) {
        for (int64_t kw = 0; kw < k; ++kw, w += TILE_OUTS) {
          const float *from = args->weight + (oc0 + o8) * g->w_stride_oc +
                              c * g->w_stride_c + kh * g->w_stride_h +
                              kw * g->w_stride_w;
          for (int64_t o = 0; o < TILE_OUTS; ++o) {
            w[o] = o8 + o < outs ? from[o * g->w_stride_oc] : 0.0f;
          }
        }
      }
    }
  }
  const int64_t row = stride == 1 ? SPAN : 2 * SPAN;
  _Alignas(64) float band[MAX_CHANNELS * BAND_ROWS * 2 * SPAN];
  const int64_t band_rows = (R - 1) * stride + k;
  for (int64_t ow_c = 0; ow_c < g->out_w; ow_c += CHUNK) {
    const int64_t width = g->out_w - ow_c < CHUNK ? g->out_w - ow_c : CHUNK;
    // The columns the tiles read: 16 past their last vector.
    const int64_t span = (width + 15) / 16 * 16 + 16;
    for (int64_t oh0 = 0; oh0 < g->out_h; oh0 += R) {
      for (int64_t c = 0; c < channels; ++c) {
        for (int64_t b = 0; b < band_rows; ++b) {
          copy_row(g, args->input + c * g->in_stride_c,
                   oh0 * stride - g->pad_h + b, ow_c, span, R,
                   band + (c * BAND_ROWS + b) * row);
        }
      }
      for (int64_t o8 = 0; o8 < outs; o8 += TILE_OUTS) {
        const int64_t n = outs - o8 < TILE_OUTS ? outs - o8 : TILE_OUTS;
        for (int64_t ow = 0; ow < width; ow += 16) {
          tile(args, band + ow, weights + o8 * channels * taps, R, k,
               stride, channels, oc0 + o8, n, oh0, ow_c + ow,
               width - ow < 16 ? width - ow : 16);
        }
      }
    }
  }
}

void etr_conv_stem_nchw_avx512(const etr_depthwise_args_t *args) {
  const etr_conv2d_geometry_t *g = args->geometry;
  const int64_t k = g->kernel_w;
  const int64_t out_block = k <= 3 ? OUT_BLOCK : OUT_BLOCK_LARGE;
  for (int64_t oc0 = 0; oc0 < args->channels; oc0 += out_block) {
    const int64_t outs = args->channels - oc0 < out_block
                             ? args->channels - oc0
                             : out_block;
    // Constant kernel, stride and channels: every loop of a tile unrolled
    // (the 3x3 stems and ResNet's 7x7 stride 2 on 3 channels).
    // The 3x3 stride-2 stem in tiles of 2 rows: 16 sums left GCC room
    // for its registers, and it ran 5% faster (3x224x224 -> 32, paired
    // conv_kernel_bench rounds, Intel Xeon); the 7x7 lost 8% so.
    if (k == 3 && g->stride_w == 1 && g->channels == 3) {
      block(args, TILE_ROWS, 3, 1, 3, oc0, outs);
    } else if (k == 3 && g->channels == 3) {
      block(args, 2, 3, 2, 3, oc0, outs);
    } else if (k == 7 && g->stride_w == 2 && g->channels == 3) {
      block(args, TILE_ROWS, 7, 2, 3, oc0, outs);
    } else if (g->stride_w == 1) {
      block(args, TILE_ROWS, k, 1, g->channels, oc0, outs);
    } else {
      block(args, TILE_ROWS, k, 2, g->channels, oc0, outs);
    }
  }
}

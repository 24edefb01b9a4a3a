// SPDX-License-Identifier: Apache-2.0
//
// Direct NCHW convolution for few input channels, AVX-512 (conv.h): the
// first layer of a CNN (3 input channels, a 3x3 kernel: K = 27) spends
// longer packing an im2col panel than multiplying it, so this kernel reads
// each tap's 16 input pixels once per input channel and multiplies them
// into 16 output channels at a time (16 accumulators, the weight
// broadcast from a small stack table). Taps are read as in the depthwise
// kernels: a constant shift of the flat plane (stride 1, rows as wide as
// the output's) or a masked gather; FMAs are masked to the lanes whose tap
// is inside the image, so padded taps are skipped as in the reference.
// Rows of 8 or more outputs at stride 1 or 2 (unit column stride) are
// read row by row instead (by_rows_tiled): one masked load, or two and a
// permute, per tap, row and 16 columns, no per-tap index arithmetic; that
// is what lets the op send stride-2 stems here too.
#include <immintrin.h>

#include "ops_optimized/conv/conv.h"
#include "ops_optimized/conv/lanes_avx512.h"

#define MAX_PRODUCTS 32  // input channels x taps (the op checks)

#define OUTS(X)                                                            \
  X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12)      \
  X(13) X(14) X(15)

// How one tap's 16 lanes are read from any input channel's plane.
typedef struct tap_reader {
  int mode;          // 1: shifted load, 0: gather
  __mmask16 valid;   // lanes inside the image
  int64_t offset;    // 1: start of the shifted window (may be negative)
  __m512i index;     // 0: gather indices; 1 with offset < 0: the raise
} tap_reader_t;

static void plan_tap(const etr_conv2d_geometry_t *g, int mode, int64_t p0,
                     __mmask16 lanes, __m512i oh, __m512i ow, int64_t kh,
                     int64_t kw, tap_reader_t *r) {
  const __m512i iota =
      _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  int64_t dh = kh * g->dilation_h - g->pad_h;
  int64_t dw = kw * g->dilation_w - g->pad_w;
  __m512i ih = _mm512_add_epi32(
      _mm512_mullo_epi32(oh, _mm512_set1_epi32((int32_t)g->stride_h)),
      _mm512_set1_epi32((int32_t)dh));
  __m512i iw = _mm512_add_epi32(
      _mm512_mullo_epi32(ow, _mm512_set1_epi32((int32_t)g->stride_w)),
      _mm512_set1_epi32((int32_t)dw));
  r->valid = inside(inside(lanes, ih, g->in_h), iw, g->in_w);
  r->mode = mode;
  r->offset = 0;
  if (r->valid == 0) {
    return;
  }
  if (mode == 1) {
    r->offset = p0 + dh * g->in_w + dw;
    r->index = _mm512_add_epi32(iota, _mm512_set1_epi32((int32_t)r->offset));
    return;
  }
  r->index = _mm512_add_epi32(
      _mm512_mullo_epi32(ih, _mm512_set1_epi32((int32_t)g->in_stride_h)),
      _mm512_mullo_epi32(iw, _mm512_set1_epi32((int32_t)g->in_stride_w)));
}

static inline __m512 read_tap(const tap_reader_t *r, const float *plane) {
  if (r->mode == 1) {
    if (r->offset >= 0) {
      return _mm512_maskz_loadu_ps(r->valid, plane + r->offset);
    }
    // Valid lanes j have offset + j >= 0: load the plane's start and move
    // it up into those lanes.
    __mmask16 source = (__mmask16)(r->valid >> -r->offset);
    return _mm512_maskz_permutexvar_ps(r->valid, r->index,
                                       _mm512_maskz_loadu_ps(source, plane));
  }
  return _mm512_mask_i32gather_ps(_mm512_setzero_ps(), r->valid, r->index,
                                  plane, 4);
}

#define ZERO(o) __m512 acc##o = _mm512_setzero_ps();
#define FMA(o)                                                             \
  acc##o = _mm512_mask3_fmadd_ps(_mm512_set1_ps(w[o]), x, acc##o, r.valid);
#define STORE(o)                                                           \
  if (oc0 + (o) < args->channels) {                                        \
    __m512 v = acc##o;                                                     \
    if (args->bias != NULL) {                                              \
      v = _mm512_add_ps(                                                   \
          v, _mm512_set1_ps(args->bias[(oc0 + (o)) * args->bias_stride])); \
    }                                                                      \
    _mm512_mask_storeu_ps(                                                 \
        args->out + (oc0 + (o)) * args->out_stride_c + p0, lanes, v);      \
  }

// Input columns [first, first + count) of a row that lie in [0, in_w), as
// a 32-lane mask of the elements from `first` on.
static inline __mmask32 columns_inside(int64_t first, int64_t count,
                                       int64_t in_w) {
  int64_t lo = first < 0 ? -first : 0;
  int64_t hi = in_w - first < count ? in_w - first : count;
  if (hi <= lo) {
    return 0;
  }
  uint64_t span = hi - lo >= 32 ? 0xffffffffull : (1ull << (hi - lo)) - 1u;
  return (__mmask32)(span << lo);
}

// The 16 output columns' inputs of one tap: the row's elements from `from`
// on (stride 1) or every other one of them (stride 2).
static inline __attribute__((always_inline)) __m512 row_tap(
    const float *from, __mmask32 valid, int64_t stride) {
  if (stride == 1) {
    return _mm512_maskz_loadu_ps((__mmask16)valid, from);
  }
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18,
                                         20, 22, 24, 26, 28, 30);
  __m512 lo = _mm512_maskz_loadu_ps((__mmask16)valid, from);
  __m512 hi = _mm512_maskz_loadu_ps((__mmask16)(valid >> 16), from + 16);
  return _mm512_permutex2var_ps(lo, even, hi);
}

// Along output rows, 16 columns per vector (stride 1 or 2 along rows of
// unit stride, rows of at least 8 outputs), 8 output channels by 3 output
// rows at a time: each tap is one masked load (stride 1) or two and a
// permute (stride 2) per row, its column mask worked out once per column
// block, and each weight broadcast feeds the three rows' FMAs (24
// accumulators; one row of 16 channels ran at two thirds of the speed).
// Rows outside the image read nothing; taps in the padding load zeros,
// which add nothing: padded convolutions with a non-finite weight never
// come here (op_convolution.c).
#define TILE_OUTS 8
#define TILE_ROWS 3
static inline __attribute__((always_inline)) void by_rows_tiled(
    const etr_depthwise_args_t *args, const float *weights, int64_t oc0,
    int64_t stride, int64_t columns, int64_t in_channels) {
  const etr_conv2d_geometry_t *g = args->geometry;
  const int64_t taps = g->kernel_h * g->kernel_w;
  const int64_t outs = args->channels - oc0 < TILE_OUTS
                           ? args->channels - oc0
                           : TILE_OUTS;
  for (int64_t ow0 = 0; ow0 < g->out_w; ow0 += 16) {
    const int64_t count = g->out_w - ow0 < 16 ? g->out_w - ow0 : 16;
    const __mmask16 lanes = first_lanes(count);
    const int64_t first = ow0 * stride - g->pad_w;  // kw = 0, lane 0
    __mmask32 valid[MAX_PRODUCTS];
    for (int64_t kw = 0; kw < g->kernel_w; ++kw) {
      valid[kw] = columns_inside(first + kw * g->dilation_w,
                                 stride * (count - 1) + 1, g->in_w);
    }
    for (int64_t oh0 = 0; oh0 < g->out_h; oh0 += TILE_ROWS) {
      __m512 acc[TILE_ROWS][TILE_OUTS];
#pragma GCC unroll 3
      for (int r = 0; r < TILE_ROWS; ++r) {
#pragma GCC unroll 8
        for (int o = 0; o < TILE_OUTS; ++o) {
          acc[r][o] = _mm512_setzero_ps();
        }
      }
      for (int64_t kh = 0; kh < g->kernel_h; ++kh) {
        // Row r's input row, or a masked-off read when it is outside the
        // image or past the last output row.
        int64_t offset[TILE_ROWS];
        __mmask32 row_ok[TILE_ROWS];
#pragma GCC unroll 3
        for (int r = 0; r < TILE_ROWS; ++r) {
          int64_t ih = (oh0 + r) * g->stride_h - g->pad_h +
                       kh * g->dilation_h;
          bool inside_rows = oh0 + r < g->out_h && ih >= 0 && ih < g->in_h;
          row_ok[r] = inside_rows ? 0xffffffffu : 0;
          offset[r] = inside_rows ? ih * g->in_stride_h + first : 0;
        }
        // Kernel columns: `columns` when it is a constant (3, unrolled,
        // with the lane masks of every (kw, row) kept out of the channel
        // loop), else the geometry's.
        const int64_t kernel_w = columns > 0 ? columns : g->kernel_w;
        __mmask32 lanes_of[3][TILE_ROWS];
#pragma GCC unroll 3
        for (int64_t kw = 0; kw < 3 && columns > 0; ++kw) {
#pragma GCC unroll 3
          for (int r = 0; r < TILE_ROWS; ++r) {
            lanes_of[kw][r] = valid[kw] & row_ok[r];
          }
        }
        const int64_t planes = in_channels > 0 ? in_channels : g->channels;
        // Every row inside (all but the first and last tiles): the lane
        // masks are the 3 columns' alone. Nine (kw, row) masks outnumber
        // the mask registers, and their spills and reloads made the
        // stride-2 stem issue 4 instructions per FMA.
        __mmask32 rows_ok = 0xffffffffu;
#pragma GCC unroll 3
        for (int r = 0; r < TILE_ROWS; ++r) {
          rows_ok &= row_ok[r];
        }
        const bool all_rows = columns > 0 && rows_ok != 0;
#define DIRECT_CHANNEL_LOOP(MASK)                                          \
  for (int64_t c = 0; c < planes; ++c) {                                   \
    const float *plane = args->input + c * g->in_stride_c;                 \
    _Pragma("GCC unroll 3") for (int64_t kw = 0; kw < kernel_w; ++kw) {    \
      const float *w = weights + (c * taps + kh * kernel_w + kw) * 16;     \
      __m512 x[TILE_ROWS];                                                 \
      _Pragma("GCC unroll 3") for (int r = 0; r < TILE_ROWS; ++r) {        \
        x[r] = row_tap(plane + offset[r] + kw * g->dilation_w, MASK,       \
                       stride);                                            \
      }                                                                    \
      _Pragma("GCC unroll 8") for (int o = 0; o < TILE_OUTS; ++o) {        \
        const __m512 wv = _mm512_set1_ps(w[o]);                            \
        _Pragma("GCC unroll 3") for (int r = 0; r < TILE_ROWS; ++r) {      \
          acc[r][o] = _mm512_fmadd_ps(wv, x[r], acc[r][o]);                \
        }                                                                  \
      }                                                                    \
    }                                                                      \
  }
        if (all_rows) {
#pragma GCC unroll 3
          DIRECT_CHANNEL_LOOP(valid[kw])
        } else {
#pragma GCC unroll 3
          DIRECT_CHANNEL_LOOP(columns > 0 ? lanes_of[kw][r]
                                          : valid[kw] & row_ok[r])
        }
#undef DIRECT_CHANNEL_LOOP
      }
#pragma GCC unroll 3
      for (int r = 0; r < TILE_ROWS; ++r) {
        if (oh0 + r >= g->out_h) {
          break;
        }
#pragma GCC unroll 8
        for (int o = 0; o < TILE_OUTS; ++o) {
          if (o >= outs) {
            break;
          }
          __m512 v = acc[r][o];
          if (args->bias != NULL) {
            v = _mm512_add_ps(
                v, _mm512_set1_ps(args->bias[(oc0 + o) * args->bias_stride]));
          }
          _mm512_mask_storeu_ps(args->out + (oc0 + o) * args->out_stride_c +
                                    (oh0 + r) * args->out_stride_h + ow0,
                                lanes, v);
        }
      }
    }
  }
}

// A stride-2 stem (3 channels, 3x3, dilation 1): 16 out channels by one
// output row of 16 columns, each tap's vector (two masked loads and a
// permute) feeding 16 FMAs, weights broadcast from the table: per FMA
// half the loads, permutes and instructions of the 8 x 3 tiles, 4-5%
// faster on the 3x64x64 stem in gemm_bench (at stride 1, no faster).
// Rows outside the image are skipped; padding columns load zeros.
static void by_rows_stem_s2(const etr_depthwise_args_t *args,
                            const float *weights) {
  const etr_conv2d_geometry_t *g = args->geometry;
  const int64_t outs = args->channels < 16 ? args->channels : 16;
  for (int64_t ow0 = 0; ow0 < g->out_w; ow0 += 16) {
    const int64_t count = g->out_w - ow0 < 16 ? g->out_w - ow0 : 16;
    const int64_t first = ow0 * 2 - g->pad_w;  // kw = 0, lane 0
    __mmask32 valid[3];
    for (int64_t kw = 0; kw < 3; ++kw) {
      valid[kw] = columns_inside(first + kw, 2 * count - 1, g->in_w);
    }
    for (int64_t oh = 0; oh < g->out_h; ++oh) {
      __m512 acc[16];
#pragma GCC unroll 16
      for (int o = 0; o < 16; ++o) {
        acc[o] = _mm512_setzero_ps();
      }
      for (int64_t kh = 0; kh < 3; ++kh) {
        const int64_t ih = oh * g->stride_h - g->pad_h + kh;
        if (ih < 0 || ih >= g->in_h) {
          continue;
        }
#pragma GCC unroll 3
        for (int64_t c = 0; c < 3; ++c) {
          const float *row =
              args->input + c * g->in_stride_c + ih * g->in_stride_h + first;
#pragma GCC unroll 3
          for (int64_t kw = 0; kw < 3; ++kw) {
            const __m512 x = row_tap(row + kw, valid[kw], 2);
            const float *w = weights + (c * 9 + kh * 3 + kw) * 16;
#pragma GCC unroll 16
            for (int o = 0; o < 16; ++o) {
              acc[o] = _mm512_fmadd_ps(_mm512_set1_ps(w[o]), x, acc[o]);
            }
          }
        }
      }
      float *out = args->out + oh * args->out_stride_h + ow0;
      const float *bias = args->bias;
      const int64_t bias_stride = args->bias_stride;
#pragma GCC unroll 16
      for (int o = 0; o < 16; ++o) {  // (constant indices: acc in registers)
        if (o >= outs) {
          break;
        }
        const __m512 v =
            bias != NULL
                ? _mm512_add_ps(acc[o], _mm512_set1_ps(bias[o * bias_stride]))
                : acc[o];
        _mm512_mask_storeu_ps(out + o * args->out_stride_c,
                              first_lanes(count), v);
      }
    }
  }
}

void etr_conv_direct_nchw_avx512(const etr_depthwise_args_t *args) {
  const etr_conv2d_geometry_t *g = args->geometry;
  if (etr_conv_stem_nchw_avx512_applies(args)) {
    etr_conv_stem_nchw_avx512(args);
    return;
  }
  // Rows of 8 to 48 (the models' 32-column stems): by_rows_stem_s2 and
  // by_rows_tiled below keep 49 to 63 and the other shapes.
  if (etr_conv_stem3x3_narrow_nchw_avx512_applies(args)) {
    etr_conv_stem3x3_narrow_nchw_avx512(args);
    return;
  }
  const int64_t pixels = g->out_h * g->out_w;
  const bool rows = (g->stride_w == 1 || g->stride_w == 2) &&
                    g->in_stride_w == 1 && g->out_w >= 8;
  int mode = 0;
  if (g->stride_h == 1 && g->stride_w == 1 && g->in_w == g->out_w &&
      g->in_stride_w == 1 && g->in_stride_h == g->in_w) {
    mode = 1;
  }
  // The 16 out channels' weights of each (c, tap), side by side (the op
  // checks channels * taps <= MAX_PRODUCTS), zeros past the last channel.
  _Alignas(64) float weights[MAX_PRODUCTS * 16];
  int64_t taps = g->kernel_h * g->kernel_w;
  for (int64_t oc0 = 0; oc0 < args->channels; oc0 += 16) {
    // No divisions here: at a stem's size this table used to cost as much
    // as a third of the convolution.
    const int64_t outs = args->channels - oc0 < 16 ? args->channels - oc0
                                                   : 16;
    float *w = weights;
    for (int64_t c = 0; c < g->channels; ++c) {
      for (int64_t kh = 0; kh < g->kernel_h; ++kh) {
        for (int64_t kw = 0; kw < g->kernel_w; ++kw, w += 16) {
          const float *from = args->weight + oc0 * g->w_stride_oc +
                              c * g->w_stride_c + kh * g->w_stride_h +
                              kw * g->w_stride_w;
          for (int64_t o = 0; o < 16; ++o) {
            w[o] = o < outs ? from[o * g->w_stride_oc] : 0.0f;
          }
        }
      }
    }
    if (rows && g->stride_w == 2 && g->channels == 3 && g->kernel_h == 3 &&
        g->kernel_w == 3 && g->dilation_h == 1 && g->dilation_w == 1) {
      etr_depthwise_args_t block = *args;
      block.out = args->out + oc0 * args->out_stride_c;
      block.bias =
          args->bias != NULL ? args->bias + oc0 * args->bias_stride : NULL;
      block.channels = args->channels - oc0;
      by_rows_stem_s2(&block, weights);
      continue;
    }
    if (rows) {
      for (int64_t half = 0; half < 16 && oc0 + half < args->channels;
           half += TILE_OUTS) {
        // A stem's 3x3 over 3 channels: every loop over (c, kw) unrolled.
        const bool three = g->kernel_w == 3;
        const bool stem = three && g->channels == 3;
        if (g->stride_w == 1) {
          if (stem) {
            by_rows_tiled(args, weights + half, oc0 + half, 1, 3, 3);
          } else if (three) {
            by_rows_tiled(args, weights + half, oc0 + half, 1, 3, 0);
          } else {
            by_rows_tiled(args, weights + half, oc0 + half, 1, 0, 0);
          }
        } else if (three) {  // (stride-2 stems: by_rows_stem_s2)
          by_rows_tiled(args, weights + half, oc0 + half, 2, 3, 0);
        } else {
          by_rows_tiled(args, weights + half, oc0 + half, 2, 0, 0);
        }
      }
      continue;
    }
    for (int64_t p0 = 0; p0 < pixels; p0 += 16) {
      __mmask16 lanes = lanes_between(0, pixels - p0);
      __m512i oh;
      __m512i ow;
      lane_coordinates(p0, g->out_w, &oh, &ow);
      OUTS(ZERO)
      for (int64_t kh = 0; kh < g->kernel_h; ++kh) {
        for (int64_t kw = 0; kw < g->kernel_w; ++kw) {
          tap_reader_t r;
          plan_tap(g, mode, p0, lanes, oh, ow, kh, kw, &r);
          if (r.valid == 0) {
            continue;
          }
          for (int64_t c = 0; c < g->channels; ++c) {
            const __m512 x = read_tap(&r, args->input + c * g->in_stride_c);
            const float *w = weights + (c * taps + kh * g->kernel_w + kw) * 16;
            OUTS(FMA)
          }
        }
      }
      OUTS(STORE)
    }
  }
}

// SPDX-License-Identifier: Apache-2.0
//
// Depthwise convolution of tiny NCHW planes, AVX-512 (conv.h): at most 16
// outputs (MobileNetV3's 5x5 layers on 4x4 maps; 16 channels or more of
// the shapes depthwise_channel_planes_avx512.c compiles go there) from at
// most 64 inputs, one vector of outputs per channel. The input plane is
// held in one to four registers and every tap is a permutation of them:
// lane l (out position l) takes input (oh s + kh d - pad, ow s + kw d -
// pad) or, in the padding, zero. The permutations (indices and the lanes in the
// plane) depend only on the geometry and are built once per call with
// vector arithmetic; each is read once for a group of 4 or 8 channels,
// so a channel costs a few loads and, per tap, one to three permutes and
// blends, a broadcast weight and an FMA. The phase kernel
// (depthwise_padded_avx512.c) copied each channel into zero-padded phase
// planes first and spent about 200 cycles a channel on that and its
// bookkeeping.
//
// Padding taps multiply zeros (an inf or NaN weight gives PyTorch's NaN
// border). The taps are summed in (kh, kw) order from +0.0, then the
// bias is added.
#include <immintrin.h>

#include "ops_optimized/conv/conv.h"
#include "ops_optimized/conv/lanes_avx512.h"

#define MAX_TAPS 49    // 7x7
#define MAX_IN 64      // input floats of a plane: four vectors
#define MAX_OUT 16     // outputs of a plane: one vector

bool etr_depthwise_tiny_nchw_avx512_applies(const etr_conv2d_geometry_t *g) {
  return g->out_h >= 1 && g->out_w >= 1 && g->out_h * g->out_w <= MAX_OUT &&
         g->in_h >= 1 && g->in_w >= 1 && g->in_h * g->in_w <= MAX_IN &&
         g->kernel_h >= 1 && g->kernel_w >= 1 &&
         g->kernel_h * g->kernel_w <= MAX_TAPS && g->stride_h >= 1 &&
         g->stride_w >= 1 && g->dilation_h >= 1 && g->dilation_w >= 1 &&
         g->pad_h >= 0 && g->pad_w >= 0 && g->in_stride_w == 1 &&
         // the lanes' positions are worked out in 32-bit lanes
         g->stride_h <= MAX_IN && g->stride_w <= MAX_IN &&
         g->dilation_h <= MAX_IN && g->dilation_w <= MAX_IN &&
         g->pad_h <= MAX_IN && g->pad_w <= MAX_IN;
}

// One tap's permutation: lane l reads input element idx[l] (of the plane
// flattened row by row) where `inside` has bit l; `upper` marks the
// lanes whose element is in the third or fourth vector.
typedef struct tap {
  __m512i idx;
  __mmask16 inside;
  __mmask16 upper;
  int64_t weight_at;
} tap_t;

// The lanes of v in [0, n): unsigned, a negative v is past every n.
static inline __mmask16 below(__m512i v, int64_t n) {
  return _mm512_cmplt_epu32_mask(v, _mm512_set1_epi32((int32_t)n));
}

// The taps' permutations for the geometry.
static int64_t build_taps(const etr_conv2d_geometry_t *g, tap_t *taps) {
  const int64_t count = g->out_h * g->out_w;
  // Out row and column of each lane (lanes past the plane: row out_h).
  int32_t rows[16];
  int32_t columns[16];
  for (int l = 0; l < 16; ++l) {
    rows[l] = (int32_t)(l < count ? l / g->out_w : g->out_h);
    columns[l] = (int32_t)(l < count ? l % g->out_w : 0);
  }
  const __m512i oh = _mm512_loadu_si512(rows);
  const __m512i ow = _mm512_loadu_si512(columns);
  const __m512i base_h =
      _mm512_mullo_epi32(oh, _mm512_set1_epi32((int32_t)g->stride_h));
  const __m512i base_w =
      _mm512_mullo_epi32(ow, _mm512_set1_epi32((int32_t)g->stride_w));
  const __mmask16 real = first_lanes(count);
  int64_t n = 0;
  for (int64_t kh = 0; kh < g->kernel_h; ++kh) {
    const __m512i ih = _mm512_add_epi32(
        base_h,
        _mm512_set1_epi32((int32_t)(kh * g->dilation_h - g->pad_h)));
    const __mmask16 row_in = below(ih, g->in_h);
    for (int64_t kw = 0; kw < g->kernel_w; ++kw, ++n) {
      const __m512i iw = _mm512_add_epi32(
          base_w,
          _mm512_set1_epi32((int32_t)(kw * g->dilation_w - g->pad_w)));
      const __mmask16 column_in = below(iw, g->in_w);
      const __mmask16 inside = real & row_in & column_in;
      const __m512i idx = _mm512_maskz_add_epi32(
          inside,
          _mm512_mullo_epi32(ih, _mm512_set1_epi32((int32_t)g->in_w)), iw);
      taps[n].idx = idx;
      taps[n].inside = inside;
      taps[n].upper =
          _mm512_cmpge_epi32_mask(idx, _mm512_set1_epi32(32)) & inside;
      taps[n].weight_at = kh * g->w_stride_h + kw * g->w_stride_w;
    }
  }
  return n;
}

// One tap's values from a plane held in V vectors.
static inline __attribute__((always_inline)) __m512 tap_values(
    const int V, const tap_t *t, const __m512 *x) {
  if (V == 1) {
    return _mm512_maskz_permutexvar_ps(t->inside, t->idx, x[0]);
  }
  const __m512 lo = _mm512_maskz_permutex2var_ps(
      (__mmask16)(t->inside & ~t->upper), x[0], t->idx, x[1]);
  if (V == 2) {
    return lo;
  }
  // vpermt2ps reads index bits 0-4: elements 32.. come from x[2..3].
  return _mm512_mask_mov_ps(lo, t->upper,
                            _mm512_permutex2var_ps(x[2], t->idx, x[3]));
}

// The plane of input channel ic in V vectors (gathered into `plane`
// first when its rows lie apart).
static inline __attribute__((always_inline)) void load_plane(
    const int V, const etr_depthwise_args_t *args, int64_t ic, float *plane,
    __m512 *x) {
  const etr_conv2d_geometry_t *g = args->geometry;
  const int64_t in_count = g->in_h * g->in_w;
  const float *src = args->input + ic * g->in_stride_c;
  if (g->in_stride_h != g->in_w && g->in_h > 1) {
    for (int64_t r = 0; r < g->in_h; ++r) {
      for (int64_t c = 0; c < g->in_w; ++c) {
        plane[r * g->in_w + c] = src[r * g->in_stride_h + c];
      }
    }
    src = plane;
  }
#pragma GCC unroll 4
  for (int v = 0; v < V; ++v) {
    x[v] = _mm512_maskz_loadu_ps(first_lanes(in_count - 16 * v),
                                 src + 16 * v);
  }
}

// G out channels from oc0, their planes in V vectors each: per tap, its
// permutation read once and applied to every channel (G independent FMA
// chains, each summing the taps in (kh, kw) order).
static inline __attribute__((always_inline)) void group(
    const int V, const int G, const etr_depthwise_args_t *args,
    const tap_t *taps, int64_t tap_count, int64_t oc0) {
  const etr_conv2d_geometry_t *g = args->geometry;
  const int64_t count = g->out_h * g->out_w;
  _Alignas(64) float plane[MAX_IN];
  __m512 x[G][V];
  __m512 acc[G];
  const float *w[G];
#pragma GCC unroll 8
  for (int j = 0; j < G; ++j) {
    load_plane(V, args, (oc0 + j) / args->multiplier, plane, x[j]);
    w[j] = args->weight + (oc0 + j) * g->w_stride_oc;
    acc[j] = _mm512_setzero_ps();
  }
  for (int64_t t = 0; t < tap_count; ++t) {
    const tap_t tap = taps[t];
#pragma GCC unroll 8
    for (int j = 0; j < G; ++j) {
      acc[j] = _mm512_fmadd_ps(_mm512_set1_ps(w[j][tap.weight_at]),
                               tap_values(V, &tap, x[j]), acc[j]);
    }
  }
#pragma GCC unroll 8
  for (int j = 0; j < G; ++j) {
    const int64_t oc = oc0 + j;
    __m512 sum = acc[j];
    if (args->bias != NULL) {
      sum = _mm512_add_ps(sum,
                          _mm512_set1_ps(args->bias[oc * args->bias_stride]));
    }
    float *out = args->out + oc * args->out_stride_c;
    if (args->out_stride_h == g->out_w || g->out_h == 1) {
      _mm512_mask_storeu_ps(out, first_lanes(count), sum);
    } else {
      for (int64_t r = 0; r < g->out_h; ++r) {
        const __mmask16 row =
            (__mmask16)(first_lanes(g->out_w) << (r * g->out_w));
        _mm512_mask_storeu_ps(out + r * args->out_stride_h,
                              first_lanes(g->out_w),
                              _mm512_maskz_compress_ps(row, sum));
      }
    }
  }
}

// Every channel in groups of G, then one at a time.
static inline __attribute__((always_inline)) void channels(
    const int V, const int G, const etr_depthwise_args_t *args,
    const tap_t *taps, int64_t tap_count) {
  int64_t oc = 0;
  for (; oc + G <= args->channels; oc += G) {
    group(V, G, args, taps, tap_count, oc);
  }
  for (; oc < args->channels; ++oc) {
    group(V, 1, args, taps, tap_count, oc);
  }
}

void etr_depthwise_tiny_nchw_avx512(const etr_depthwise_args_t *args) {
  const etr_conv2d_geometry_t *g = args->geometry;
  tap_t taps[MAX_TAPS];
  const int64_t tap_count = build_taps(g, taps);
  const int64_t in_count = g->in_h * g->in_w;
  if (in_count <= 16) {
    channels(1, 8, args, taps, tap_count);
  } else if (in_count <= 32) {
    channels(2, 4, args, taps, tap_count);
  } else {
    channels(4, 4, args, taps, tap_count);
  }
}

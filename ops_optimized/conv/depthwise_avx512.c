// SPDX-License-Identifier: Apache-2.0
//
// Depthwise convolution, AVX-512 (conv.h).
//
// NCHW: 16 output columns of one row at a time; each tap (kh, kw) covers
// the lanes whose input column is inside the row (a lane mask from the
// tap's valid range), and the FMA is masked to those lanes, so taps in the
// padding are skipped as in the reference. Stride-1 rows are read with
// masked loads (an expand-load when the first lanes fall in the left
// padding, so no address before the row is formed); other strides gather.
// NHWC: 16 channels of one pixel at a time, taps outside the image skipped
// whole; the 16 channels' weights for every tap are gathered once per
// channel block into a small stack table (at most 64 taps: the op checks).
#include <immintrin.h>

#include "ops_optimized/conv/conv.h"

#define MAX_TAPS 64

static inline __mmask16 lanes_between(int64_t lo, int64_t hi) {
  lo = lo < 0 ? 0 : lo;
  hi = hi > 16 ? 16 : hi;
  if (hi <= lo) {
    return 0;
  }
  return (__mmask16)(((1u << (hi - lo)) - 1u) << lo);
}

void etr_depthwise_nchw_avx512(const etr_depthwise_args_t *args) {
  const etr_conv2d_geometry_t *g = args->geometry;
  int64_t first[MAX_TAPS];
  int64_t end[MAX_TAPS];
  for (int64_t kw = 0; kw < g->kernel_w && kw < MAX_TAPS; ++kw) {
    etr_conv_valid_range(g->out_w, g->in_w, g->stride_w, g->pad_w,
                         kw * g->dilation_w, &first[kw], &end[kw]);
  }
  const bool unit = g->stride_w == 1 && g->in_stride_w == 1;
  const __m512i step = _mm512_mullo_epi32(
      _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
      _mm512_set1_epi32((int32_t)(g->stride_w * g->in_stride_w)));
  for (int64_t oc = 0; oc < args->channels; ++oc) {
    const float *in = args->input + oc / args->multiplier * g->in_stride_c;
    const float *w = args->weight + oc * g->w_stride_oc;
    float *plane = args->out + oc * args->out_stride_c;
    const __m512 bias = _mm512_set1_ps(
        args->bias != NULL ? args->bias[oc * args->bias_stride] : 0.0f);
    for (int64_t oh = 0; oh < g->out_h; ++oh) {
      for (int64_t ow0 = 0; ow0 < g->out_w; ow0 += 16) {
        __mmask16 lanes = lanes_between(0, g->out_w - ow0);
        __m512 acc = _mm512_setzero_ps();
        for (int64_t kh = 0; kh < g->kernel_h; ++kh) {
          int64_t ih = oh * g->stride_h - g->pad_h + kh * g->dilation_h;
          if (ih < 0 || ih >= g->in_h) {
            continue;
          }
          const float *row = in + ih * g->in_stride_h;
          for (int64_t kw = 0; kw < g->kernel_w; ++kw) {
            __mmask16 valid =
                lanes & lanes_between(first[kw] - ow0, end[kw] - ow0);
            if (valid == 0) {
              continue;
            }
            const __m512 wv =
                _mm512_set1_ps(w[kh * g->w_stride_h + kw * g->w_stride_w]);
            int64_t iw0 = ow0 * g->stride_w - g->pad_w + kw * g->dilation_w;
            __m512 x;
            if (unit && (valid & 1)) {
              x = _mm512_maskz_loadu_ps(valid, row + iw0);
            } else if (unit) {
              int64_t skip = __builtin_ctz(valid);
              x = _mm512_maskz_expandloadu_ps(valid, row + iw0 + skip);
            } else {
              __m512i index = _mm512_add_epi32(
                  _mm512_set1_epi32((int32_t)(iw0 * g->in_stride_w)), step);
              x = _mm512_mask_i32gather_ps(_mm512_setzero_ps(), valid, index,
                                           row, 4);
            }
            acc = _mm512_mask3_fmadd_ps(wv, x, acc, valid);
          }
        }
        if (args->bias != NULL) {
          acc = _mm512_add_ps(acc, bias);
        }
        _mm512_mask_storeu_ps(plane + oh * args->out_stride_h + ow0, lanes,
                              acc);
      }
    }
  }
}

void etr_depthwise_nhwc_avx512(const etr_depthwise_args_t *args) {
  const etr_conv2d_geometry_t *g = args->geometry;
  int64_t taps = g->kernel_h * g->kernel_w;
  _Alignas(64) float weights[MAX_TAPS * 16];
  _Alignas(64) float biases[16];
  for (int64_t c0 = 0; c0 < args->channels; c0 += 16) {
    int64_t count = args->channels - c0 < 16 ? args->channels - c0 : 16;
    __mmask16 lanes = lanes_between(0, count);
    for (int64_t t = 0; t < taps && t < MAX_TAPS; ++t) {
      int64_t offset = t / g->kernel_w * g->w_stride_h +
                       t % g->kernel_w * g->w_stride_w;
      for (int64_t j = 0; j < 16; ++j) {
        weights[t * 16 + j] =
            j < count ? args->weight[(c0 + j) * g->w_stride_oc + offset]
                      : 0.0f;
      }
    }
    for (int64_t j = 0; j < 16; ++j) {
      biases[j] = args->bias != NULL && j < count
                      ? args->bias[(c0 + j) * args->bias_stride]
                      : 0.0f;
    }
    const __m512 bias = _mm512_load_ps(biases);
    for (int64_t oh = 0; oh < g->out_h; ++oh) {
      for (int64_t ow = 0; ow < g->out_w; ++ow) {
        __m512 acc = _mm512_setzero_ps();
        for (int64_t kh = 0; kh < g->kernel_h; ++kh) {
          int64_t ih = oh * g->stride_h - g->pad_h + kh * g->dilation_h;
          if (ih < 0 || ih >= g->in_h) {
            continue;
          }
          for (int64_t kw = 0; kw < g->kernel_w; ++kw) {
            int64_t iw = ow * g->stride_w - g->pad_w + kw * g->dilation_w;
            if (iw < 0 || iw >= g->in_w) {
              continue;
            }
            const __m512 x = _mm512_maskz_loadu_ps(
                lanes, args->input + ih * g->in_stride_h +
                           iw * g->in_stride_w + c0);
            acc = _mm512_fmadd_ps(
                _mm512_load_ps(weights + (kh * g->kernel_w + kw) * 16), x,
                acc);
          }
        }
        if (args->bias != NULL) {
          acc = _mm512_add_ps(acc, bias);
        }
        _mm512_mask_storeu_ps(args->out + oh * args->out_stride_h +
                                  ow * args->out_stride_w + c0,
                              lanes, acc);
      }
    }
  }
}

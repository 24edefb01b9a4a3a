// SPDX-License-Identifier: Apache-2.0
//
// Depthwise convolution, AVX2 + FMA (conv.h).
//
// NCHW: 8 output columns of one row at a time; each tap covers the lanes
// whose input column is inside the row, and only those lanes take the FMA
// (a blend), so taps in the padding are skipped as in the reference.
// Stride-1 rows with every lane valid are plain loads; edge blocks and
// other strides use a masked gather (masked-out lanes are never read).
// NHWC: 8 channels of one pixel at a time, taps outside the image skipped
// whole, channel tails read and written with vmaskmovps; the channels'
// weights per tap are gathered once per channel block into a stack table
// (at most 64 taps: the op checks).
#include <immintrin.h>
#include <stdint.h>

#include "ops_optimized/conv/conv.h"

#define MAX_TAPS 64

// All-ones in lanes j with lo <= j < hi (of 8).
static inline __m256i lanes_between(int64_t lo, int64_t hi) {
  const __m256i index = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  lo = lo < 0 ? 0 : lo > 8 ? 8 : lo;
  hi = hi < 0 ? 0 : hi > 8 ? 8 : hi;
  __m256i above = _mm256_cmpgt_epi32(index,
                                     _mm256_set1_epi32((int32_t)lo - 1));
  __m256i below = _mm256_cmpgt_epi32(_mm256_set1_epi32((int32_t)hi), index);
  return _mm256_and_si256(above, below);
}

void etr_depthwise_nchw_avx2(const etr_depthwise_args_t *args) {
  const etr_conv2d_geometry_t *g = args->geometry;
  int64_t first[MAX_TAPS];
  int64_t end[MAX_TAPS];
  for (int64_t kw = 0; kw < g->kernel_w && kw < MAX_TAPS; ++kw) {
    etr_conv_valid_range(g->out_w, g->in_w, g->stride_w, g->pad_w,
                         kw * g->dilation_w, &first[kw], &end[kw]);
  }
  const bool unit = g->stride_w == 1 && g->in_stride_w == 1;
  const __m256i step = _mm256_mullo_epi32(
      _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
      _mm256_set1_epi32((int32_t)(g->stride_w * g->in_stride_w)));
  for (int64_t oc = 0; oc < args->channels; ++oc) {
    const float *in = args->input + oc / args->multiplier * g->in_stride_c;
    const float *w = args->weight + oc * g->w_stride_oc;
    float *plane = args->out + oc * args->out_stride_c;
    const __m256 bias = _mm256_set1_ps(
        args->bias != NULL ? args->bias[oc * args->bias_stride] : 0.0f);
    for (int64_t oh = 0; oh < g->out_h; ++oh) {
      for (int64_t ow0 = 0; ow0 < g->out_w; ow0 += 8) {
        int64_t count = g->out_w - ow0 < 8 ? g->out_w - ow0 : 8;
        __m256i lanes = lanes_between(0, count);
        __m256 acc = _mm256_setzero_ps();
        for (int64_t kh = 0; kh < g->kernel_h; ++kh) {
          int64_t ih = oh * g->stride_h - g->pad_h + kh * g->dilation_h;
          if (ih < 0 || ih >= g->in_h) {
            continue;
          }
          const float *row = in + ih * g->in_stride_h;
          for (int64_t kw = 0; kw < g->kernel_w; ++kw) {
            int64_t lo = first[kw] - ow0;
            int64_t hi = (end[kw] < ow0 + count ? end[kw] : ow0 + count) -
                         ow0;
            if (hi <= lo || hi <= 0) {
              continue;
            }
            const __m256 wv =
                _mm256_set1_ps(w[kh * g->w_stride_h + kw * g->w_stride_w]);
            int64_t iw0 = ow0 * g->stride_w - g->pad_w + kw * g->dilation_w;
            if (unit && lo <= 0 && hi >= 8) {
              acc = _mm256_fmadd_ps(wv, _mm256_loadu_ps(row + iw0), acc);
              continue;
            }
            __m256i valid = lanes_between(lo, hi);
            __m256i index = _mm256_add_epi32(
                _mm256_set1_epi32((int32_t)(iw0 * g->in_stride_w)), step);
            __m256 x = _mm256_mask_i32gather_ps(_mm256_setzero_ps(), row,
                                                index,
                                                _mm256_castsi256_ps(valid), 4);
            acc = _mm256_blendv_ps(acc, _mm256_fmadd_ps(wv, x, acc),
                                   _mm256_castsi256_ps(valid));
          }
        }
        if (args->bias != NULL) {
          acc = _mm256_add_ps(acc, bias);
        }
        float *target = plane + oh * args->out_stride_h + ow0;
        if (count == 8) {
          _mm256_storeu_ps(target, acc);
        } else {
          _mm256_maskstore_ps(target, lanes, acc);
        }
      }
    }
  }
}

void etr_depthwise_nhwc_avx2(const etr_depthwise_args_t *args) {
  const etr_conv2d_geometry_t *g = args->geometry;
  int64_t taps = g->kernel_h * g->kernel_w;
  _Alignas(32) float weights[MAX_TAPS * 8];
  _Alignas(32) float biases[8];
  for (int64_t c0 = 0; c0 < args->channels; c0 += 8) {
    int64_t count = args->channels - c0 < 8 ? args->channels - c0 : 8;
    __m256i lanes = lanes_between(0, count);
    for (int64_t t = 0; t < taps && t < MAX_TAPS; ++t) {
      int64_t offset = t / g->kernel_w * g->w_stride_h +
                       t % g->kernel_w * g->w_stride_w;
      for (int64_t j = 0; j < 8; ++j) {
        weights[t * 8 + j] =
            j < count ? args->weight[(c0 + j) * g->w_stride_oc + offset]
                      : 0.0f;
      }
    }
    for (int64_t j = 0; j < 8; ++j) {
      biases[j] = args->bias != NULL && j < count
                      ? args->bias[(c0 + j) * args->bias_stride]
                      : 0.0f;
    }
    const __m256 bias = _mm256_load_ps(biases);
    for (int64_t oh = 0; oh < g->out_h; ++oh) {
      for (int64_t ow = 0; ow < g->out_w; ++ow) {
        __m256 acc = _mm256_setzero_ps();
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
            const float *x = args->input + ih * g->in_stride_h +
                             iw * g->in_stride_w + c0;
            acc = _mm256_fmadd_ps(
                _mm256_load_ps(weights + (kh * g->kernel_w + kw) * 8),
                count == 8 ? _mm256_loadu_ps(x) : _mm256_maskload_ps(x, lanes),
                acc);
          }
        }
        if (args->bias != NULL) {
          acc = _mm256_add_ps(acc, bias);
        }
        float *target = args->out + oh * args->out_stride_h +
                        ow * args->out_stride_w + c0;
        if (count == 8) {
          _mm256_storeu_ps(target, acc);
        } else {
          _mm256_maskstore_ps(target, lanes, acc);
        }
      }
    }
  }
}

// SPDX-License-Identifier: Apache-2.0
//
// Depthwise convolution, AVX2 + FMA (conv.h).
//
// NCHW: the output plane is taken flat, 8 pixels per vector whatever the
// row width, four channels at a time (four independent FMA chains sharing
// the lane masks). Each tap's lanes are those whose input pixel is inside
// the image, and only those take the FMA (a blend), so taps in the padding
// are skipped as in the reference. With stride 1 and rows as wide as the
// output's, a tap is a constant shift of the flat input plane: one
// vmaskmovps per channel (masked-out lanes are never read; a gather when
// the shift would start before the plane); other geometries gather. The
// out plane must be dense and indices fit 32 bits (the op checks).
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

// Lane coordinates (row, column) of output pixels p0 .. p0 + 7 of a plane
// `width` columns wide.
static inline void lane_coordinates(int64_t p0, int64_t width, __m256i *row,
                                    __m256i *column) {
  const __m256i iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i w = _mm256_set1_epi32((int32_t)width);
  const __m256i last = _mm256_set1_epi32((int32_t)width - 1);
  const __m256i one = _mm256_set1_epi32(1);
  __m256i r = _mm256_set1_epi32((int32_t)(p0 / width));
  __m256i c = _mm256_add_epi32(_mm256_set1_epi32((int32_t)(p0 % width)), iota);
  __m256i wrap = _mm256_cmpgt_epi32(c, last);
  while (!_mm256_testz_si256(wrap, wrap)) {
    c = _mm256_sub_epi32(c, _mm256_and_si256(wrap, w));
    r = _mm256_add_epi32(r, _mm256_and_si256(wrap, one));
    wrap = _mm256_cmpgt_epi32(c, last);
  }
  *row = r;
  *column = c;
}

// Lanes of `lanes` whose coordinate v satisfies 0 <= v < size.
static inline __m256i inside(__m256i lanes, __m256i v, int64_t size) {
  __m256i low = _mm256_cmpgt_epi32(v, _mm256_set1_epi32(-1));
  __m256i high = _mm256_cmpgt_epi32(_mm256_set1_epi32((int32_t)size), v);
  return _mm256_and_si256(lanes, _mm256_and_si256(low, high));
}

void etr_depthwise_nchw_avx2(const etr_depthwise_args_t *args) {
  const etr_conv2d_geometry_t *g = args->geometry;
  const int64_t pixels = g->out_h * g->out_w;
  // Stride 1 with out and in rows of one width: every tap is one constant
  // shift of the flattened plane.
  const bool shifted = g->stride_h == 1 && g->stride_w == 1 &&
                       g->in_w == g->out_w && g->in_stride_w == 1 &&
                       g->in_stride_h == g->in_w;
  const __m256i stride_h = _mm256_set1_epi32((int32_t)g->stride_h);
  const __m256i stride_w = _mm256_set1_epi32((int32_t)g->stride_w);
  for (int64_t oc0 = 0; oc0 < args->channels; oc0 += 4) {
    const float *in[4];
    const float *w[4];
    float *out[4];
    float bias[4];
    for (int64_t c = 0; c < 4; ++c) {  // past the end: the last channel
      int64_t oc = oc0 + c < args->channels ? oc0 + c : args->channels - 1;
      in[c] = args->input + oc / args->multiplier * g->in_stride_c;
      w[c] = args->weight + oc * g->w_stride_oc;
      out[c] = args->out + oc * args->out_stride_c;
      bias[c] = args->bias != NULL ? args->bias[oc * args->bias_stride] : 0;
    }
    for (int64_t p0 = 0; p0 < pixels; p0 += 8) {
      int64_t count = pixels - p0 < 8 ? pixels - p0 : 8;
      __m256i lanes = lanes_between(0, count);
      __m256i oh;
      __m256i ow;
      lane_coordinates(p0, g->out_w, &oh, &ow);
      __m256 acc[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(),
                       _mm256_setzero_ps(), _mm256_setzero_ps()};
      for (int64_t kh = 0; kh < g->kernel_h; ++kh) {
        int64_t dh = kh * g->dilation_h - g->pad_h;
        __m256i ih = _mm256_add_epi32(_mm256_mullo_epi32(oh, stride_h),
                                      _mm256_set1_epi32((int32_t)dh));
        __m256i rows = inside(lanes, ih, g->in_h);
        if (_mm256_testz_si256(rows, rows)) {
          continue;
        }
        __m256i row_index =
            _mm256_mullo_epi32(ih, _mm256_set1_epi32((int32_t)g->in_stride_h));
        for (int64_t kw = 0; kw < g->kernel_w; ++kw) {
          int64_t dw = kw * g->dilation_w - g->pad_w;
          __m256i iw = _mm256_add_epi32(_mm256_mullo_epi32(ow, stride_w),
                                        _mm256_set1_epi32((int32_t)dw));
          __m256i valid = inside(rows, iw, g->in_w);
          if (_mm256_testz_si256(valid, valid)) {
            continue;
          }
          __m256 valid_ps = _mm256_castsi256_ps(valid);
          int64_t shift = dh * g->in_w + dw;
          bool load = shifted && p0 + shift >= 0;
          __m256i index = _mm256_add_epi32(
              row_index,
              _mm256_mullo_epi32(iw,
                                 _mm256_set1_epi32((int32_t)g->in_stride_w)));
          int64_t tap = kh * g->w_stride_h + kw * g->w_stride_w;
#pragma GCC unroll 4
          for (int c = 0; c < 4; ++c) {
            __m256 x = load ? _mm256_maskload_ps(in[c] + p0 + shift, valid)
                            : _mm256_mask_i32gather_ps(_mm256_setzero_ps(),
                                                       in[c], index,
                                                       valid_ps, 4);
            acc[c] = _mm256_blendv_ps(
                acc[c], _mm256_fmadd_ps(_mm256_set1_ps(w[c][tap]), x, acc[c]),
                valid_ps);
          }
        }
      }
      for (int64_t c = 0; c < 4 && oc0 + c < args->channels; ++c) {
        __m256 v = args->bias != NULL
                       ? _mm256_add_ps(acc[c], _mm256_set1_ps(bias[c]))
                       : acc[c];
        if (count == 8) {
          _mm256_storeu_ps(out[c] + p0, v);
        } else {
          _mm256_maskstore_ps(out[c] + p0, lanes, v);
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

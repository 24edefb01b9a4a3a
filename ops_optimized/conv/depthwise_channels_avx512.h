// SPDX-License-Identifier: Apache-2.0
//
// What the depthwise kernels that put 16 channels in a vector share
// (depthwise_channels_avx512.c, depthwise_channel_planes_avx512.c): rows
// of 16 channels loaded and transposed, the taps' and the bias's
// vectors. Include only from *_avx512.c files.
#ifndef ETR_OPS_OPTIMIZED_CONV_DEPTHWISE_CHANNELS_AVX512_H
#define ETR_OPS_OPTIMIZED_CONV_DEPTHWISE_CHANNELS_AVX512_H

#include <immintrin.h>

#include "ops_optimized/conv/conv.h"
#include "ops_optimized/conv/lanes_avx512.h"
#include "ops_optimized/gemm/transpose_avx512.h"

// Row c of 16 channels (c < count, zeros past it) as v[c]: the `lanes`
// floats from `from` + c * channel_stride. Transposed, v[x] then holds
// float x of the 16 rows, one per channel.
static inline __attribute__((always_inline)) void load_channel_rows(
    const float *from, int64_t channel_stride, int64_t count,
    __mmask16 lanes, __m512 *v) {
#pragma GCC unroll 16
  for (int c = 0; c < 16; ++c) {
    v[c] = c < count ? _mm512_maskz_loadu_ps(lanes, from + c * channel_stride)
                     : _mm512_setzero_ps();
  }
  etr_transpose16x16_avx512(v);
}

// Tap t's weights of channels [c0, c0 + count) as weights[t] (zeros past
// the last channel): each channel's taps loaded as a row (16 at a time),
// the rows transposed. Dense weight planes only; else one by one.
static inline void tap_weights(const etr_depthwise_args_t *args,
                               int64_t c0, int64_t count, __m512 *weights) {
  const etr_conv2d_geometry_t *g = args->geometry;
  const int64_t taps = g->kernel_h * g->kernel_w;
  if (g->w_stride_w == 1 && g->w_stride_h == g->kernel_w) {
    for (int64_t t0 = 0; t0 < taps; t0 += 16) {
      __m512 v[16];
      load_channel_rows(args->weight + c0 * g->w_stride_oc + t0,
                        g->w_stride_oc, count, first_lanes(taps - t0), v);
      for (int64_t t = t0; t < taps && t < t0 + 16; ++t) {
        weights[t] = v[t - t0];
      }
    }
    return;
  }
  for (int64_t t = 0; t < taps; ++t) {
    _Alignas(64) float lanes[16] = {0};
    for (int64_t c = 0; c < count; ++c) {
      lanes[c] = args->weight[(c0 + c) * g->w_stride_oc +
                              t / g->kernel_w * g->w_stride_h +
                              t % g->kernel_w * g->w_stride_w];
    }
    weights[t] = _mm512_load_ps(lanes);
  }
}

// Group c0's tap vectors: those packed at load (args->taps, 64-byte
// aligned: etr_depthwise_taps_pack) or, without them, tap_weights' into
// `buffer`. The same values either way.
static inline const __m512 *group_taps(const etr_depthwise_args_t *args,
                                       int64_t c0, int64_t count,
                                       __m512 *buffer) {
  const etr_conv2d_geometry_t *g = args->geometry;
  if (args->taps != NULL) {
    return (const __m512 *)(args->taps + c0 * g->kernel_h * g->kernel_w);
  }
  tap_weights(args, c0, count, buffer);
  return buffer;
}

// The 16 channels' bias (zeros past the last channel, or no bias).
static inline __m512 group_bias(const etr_depthwise_args_t *args,
                                int64_t c0, int64_t count) {
  if (args->bias != NULL && args->bias_stride == 1) {
    return _mm512_maskz_loadu_ps(first_lanes(count), args->bias + c0);
  }
  _Alignas(64) float lanes[16] = {0};
  for (int64_t c = 0; args->bias != NULL && c < count; ++c) {
    lanes[c] = args->bias[(c0 + c) * args->bias_stride];
  }
  return _mm512_load_ps(lanes);
}

#endif  // ETR_OPS_OPTIMIZED_CONV_DEPTHWISE_CHANNELS_AVX512_H

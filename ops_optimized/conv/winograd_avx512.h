// SPDX-License-Identifier: Apache-2.0
//
// What the two AVX-512 Winograd F(2x2, 3x3) kernels share
// (winograd_avx512.c, winograd_positions_avx512.c): the geometry both
// take (winograd.h), and the epilogue of an out channel (+ bias, the
// fused post) on a vector of its outputs. Include only from those files.
#ifndef ETR_OPS_OPTIMIZED_CONV_WINOGRAD_AVX512_H
#define ETR_OPS_OPTIMIZED_CONV_WINOGRAD_AVX512_H

#include <immintrin.h>
#include <stdbool.h>
#include <stdint.h>

#include "ops_optimized/conv/conv.h"
#include "ops_optimized/conv/winograd.h"

typedef struct winograd_epilogue {
  __m512 bias;
  bool affine;
  __m512 scale, shift;
  bool clamp;
  __m512 low, high;
} winograd_epilogue_t;

// The bias (+0.0 without one: the sums are never -0.0, since every one
// starts from +0.0, so adding it changes no bits) and fused post of out
// channel oc.
static inline winograd_epilogue_t winograd_epilogue_of(
    const etr_conv_winograd_args_t *a, int64_t oc) {
  winograd_epilogue_t e = {.bias = _mm512_set1_ps(
                               a->bias != NULL ? a->bias[oc * a->bias_stride]
                                               : 0.0f)};
  const etr_conv_post_t *post = a->post;
  if (post != NULL) {
    const int64_t channel = a->post_channel0 + oc;
    e.affine = post->scale != NULL;
    if (e.affine) {
      e.scale = _mm512_set1_ps(post->scale[channel]);
      e.shift = _mm512_set1_ps(post->shift[channel]);
    }
    e.clamp = true;
    e.low = _mm512_set1_ps(post->low);
    e.high = _mm512_set1_ps(post->high);
  }
  return e;
}

static inline __m512 winograd_finish(const winograd_epilogue_t *e,
                                     __m512 y) {
  y = _mm512_add_ps(y, e->bias);
  if (e->affine) {
    y = _mm512_fmadd_ps(y, e->scale, e->shift);
  }
  if (e->clamp) {  // as post_avx512.c: NaN and -0.0 pass
    y = _mm512_min_ps(e->high, _mm512_max_ps(e->low, y));
  }
  return y;
}

#endif  // ETR_OPS_OPTIMIZED_CONV_WINOGRAD_AVX512_H

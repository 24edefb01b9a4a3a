// SPDX-License-Identifier: Apache-2.0
//
// What the stride-2 depthwise 3x3 kernels on parity-split rows share
// (depthwise3x3_s2_plane_avx512.c, depthwise3x3_s2_rows_avx512.c): the
// bias a sum starts from and the nine taps of one output vector.
#ifndef ETR_OPS_OPTIMIZED_CONV_DEPTHWISE3X3_S2_AVX512_H
#define ETR_OPS_OPTIMIZED_CONV_DEPTHWISE3X3_S2_AVX512_H

#include <immintrin.h>

#include "ops_optimized/conv/conv.h"

// Out channel oc's bias in every lane (+0.0 without one), to start a sum
// with: + 0.0 makes a -0.0 bias add as the +0.0 start of an unbiased sum
// does, which is what adding it last gave.
static inline __m512 channel_bias(const etr_depthwise_args_t *args,
                                  int64_t oc) {
  return _mm512_set1_ps(
      args->bias != NULL ? args->bias[oc * args->bias_stride] + 0.0f : 0.0f);
}

// The nine taps of one stride-2 output vector from the even and odd
// columns of its own input row and the rows above and below: kernel
// columns 1 and 2 in one chain from `start` (*y12, at the even positions'
// lanes), column 0 in another from +0.0 (*y0, one lane later), the own row
// first.
static inline __attribute__((always_inline)) void s2_taps(
    const __m512 *weights, __m512 start, __m512 even, __m512 odd,
    __m512 above_even, __m512 above_odd, __m512 below_even,
    __m512 below_odd, __m512 *y12, __m512 *y0) {
  const __m512 zero = _mm512_setzero_ps();
  __m512 a = _mm512_fmadd_ps(weights[4], even, start);
  __m512 b = _mm512_fmadd_ps(weights[3], odd, zero);
  a = _mm512_fmadd_ps(weights[5], odd, a);
  b = _mm512_fmadd_ps(weights[0], above_odd, b);
  a = _mm512_fmadd_ps(weights[1], above_even, a);
  b = _mm512_fmadd_ps(weights[6], below_odd, b);
  a = _mm512_fmadd_ps(weights[2], above_odd, a);
  a = _mm512_fmadd_ps(weights[7], below_even, a);
  *y12 = _mm512_fmadd_ps(weights[8], below_odd, a);
  *y0 = b;
}

#endif  // ETR_OPS_OPTIMIZED_CONV_DEPTHWISE3X3_S2_AVX512_H

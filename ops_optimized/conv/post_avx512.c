// SPDX-License-Identifier: Apache-2.0
//
// The fused convolution epilogue (conv.h), AVX-512: per row (out channel)
// fma(v, alpha, beta) then the clamp of hardtanh/relu as max/min (see
// clamp below), masked tails (nothing past `cols` is read or written).
#include <immintrin.h>

#include "ops_optimized/conv/conv.h"

// max(low, v) is v < low ? low : v bit for bit: MAXPS returns its second
// operand when either is NaN or both are zeros, so NaN and -0.0 pass as in
// the selection; likewise min(high, v) for v > high ? high : v.
static inline __m512 clamp(__m512 v, __m512 low, __m512 high) {
  return _mm512_min_ps(high, _mm512_max_ps(low, v));
}

void etr_conv_post_rows_avx512(const etr_conv_post_t *post, size_t channel0,
                               float *c, ptrdiff_t stride, size_t rows,
                               size_t cols) {
  __m512 low = _mm512_set1_ps(post->low);
  __m512 high = _mm512_set1_ps(post->high);
  size_t full = cols & ~(size_t)15;
  __mmask16 tail = (__mmask16)((1u << (cols - full)) - 1u);
  if (post->scale == NULL) {
    for (size_t r = 0; r < rows; ++r, c += stride) {
      for (size_t j = 0; j < full; j += 16) {
        _mm512_storeu_ps(c + j, clamp(_mm512_loadu_ps(c + j), low, high));
      }
      if (tail != 0) {
        _mm512_mask_storeu_ps(
            c + full, tail,
            clamp(_mm512_maskz_loadu_ps(tail, c + full), low, high));
      }
    }
    return;
  }
  const float *scale = post->scale + channel0;
  const float *shift = post->shift + channel0;
  for (size_t r = 0; r < rows; ++r, c += stride) {
    __m512 alpha = _mm512_set1_ps(scale[r]);
    __m512 beta = _mm512_set1_ps(shift[r]);
    for (size_t j = 0; j < full; j += 16) {
      __m512 v = _mm512_fmadd_ps(_mm512_loadu_ps(c + j), alpha, beta);
      _mm512_storeu_ps(c + j, clamp(v, low, high));
    }
    if (tail != 0) {
      __m512 v = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(tail, c + full), alpha,
                                 beta);
      _mm512_mask_storeu_ps(c + full, tail, clamp(v, low, high));
    }
  }
}

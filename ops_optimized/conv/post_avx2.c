// SPDX-License-Identifier: Apache-2.0
//
// The fused convolution epilogue (conv.h), AVX2 + FMA: per row (out
// channel) fma(v, alpha, beta) then the two ordered selections of
// hardtanh/relu; the tail is scalar (nothing past `cols` is touched).
#include <immintrin.h>
#include <math.h>

#include "ops_optimized/conv/conv.h"

static inline __m256 post_vector(__m256 v, bool affine, __m256 alpha,
                                 __m256 beta, __m256 low, __m256 high) {
  if (affine) {
    v = _mm256_fmadd_ps(v, alpha, beta);
  }
  // max(low, v) is v < low ? low : v bit for bit (MAXPS returns its
  // second operand for NaN and for two zeros); min(high, v) likewise.
  return _mm256_min_ps(high, _mm256_max_ps(low, v));
}

void etr_conv_post_rows_avx2(const etr_conv_post_t *post, size_t channel0,
                             float *c, ptrdiff_t stride, size_t rows,
                             size_t cols) {
  bool affine = post->scale != NULL;
  __m256 low = _mm256_set1_ps(post->low);
  __m256 high = _mm256_set1_ps(post->high);
  for (size_t r = 0; r < rows; ++r, c += stride) {
    float a = affine ? post->scale[channel0 + r] : 1.0f;
    float b = affine ? post->shift[channel0 + r] : 0.0f;
    __m256 alpha = _mm256_set1_ps(a);
    __m256 beta = _mm256_set1_ps(b);
    size_t j = 0;
    for (; j + 8 <= cols; j += 8) {
      _mm256_storeu_ps(c + j, post_vector(_mm256_loadu_ps(c + j), affine,
                                          alpha, beta, low, high));
    }
    for (; j < cols; ++j) {
      float v = affine ? fmaf(c[j], a, b) : c[j];
      v = v < post->low ? post->low : v;
      c[j] = v > post->high ? post->high : v;
    }
  }
}

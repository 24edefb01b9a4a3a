// SPDX-License-Identifier: Apache-2.0
//
// Evens, AVX2: two vectors of source elements; a shuffle takes the even
// lanes of each 128-bit half of both and a cross-lane permute puts the
// halves in order. The last steps (fewer than a vector's worth past the
// last even element) go element by element, reading nothing beyond it.
#include <immintrin.h>
#include <string.h>

#include "ops_optimized/movement/movement.h"

void etr_move_evens_x32_avx2(void *dst, const void *src, size_t count) {
  float *out = (float *)dst;  // bytes moved as floats: shuffles only
  const float *in = (const float *)src;
  size_t i = 0;
  for (; i + 8 < count; i += 8) {  // reads in[2i .. 2i + 15]
    __m256 a = _mm256_loadu_ps(in + 2 * i);
    __m256 b = _mm256_loadu_ps(in + 2 * i + 8);
    // a0 a2 b0 b2 | a4 a6 b4 b6, then the middle 64-bit pairs swapped.
    __m256 pairs = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0));
    __m256d ordered = _mm256_permute4x64_pd(_mm256_castps_pd(pairs),
                                            _MM_SHUFFLE(3, 1, 2, 0));
    _mm256_storeu_pd((double *)(void *)(out + i), ordered);
  }
  etr_move_evens_x32_scalar(out + i, in + 2 * i, count - i);
}

void etr_move_evens_x64_avx2(void *dst, const void *src, size_t count) {
  double *out = (double *)dst;
  const double *in = (const double *)src;
  size_t i = 0;
  for (; i + 4 < count; i += 4) {  // reads in[2i .. 2i + 7]
    __m256d a = _mm256_loadu_pd(in + 2 * i);
    __m256d b = _mm256_loadu_pd(in + 2 * i + 4);
    // a0 b0 | a2 b2, then the middle elements swapped.
    __m256d pairs = _mm256_unpacklo_pd(a, b);
    _mm256_storeu_pd(out + i,
                     _mm256_permute4x64_pd(pairs, _MM_SHUFFLE(3, 1, 2, 0)));
  }
  etr_move_evens_x64_scalar(out + i, in + 2 * i, count - i);
}

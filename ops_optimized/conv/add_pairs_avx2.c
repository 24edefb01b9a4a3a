// SPDX-License-Identifier: Apache-2.0
//
// out[2i] += a[i], out[2i + 1] += b[i] (conv.h), and the storing twin
// out[2i] = (a[i] + 0) + bias, AVX2: 8 of a and b interleaved
// (unpacklo/hi within 128-bit lanes, then the lanes swapped into place)
// into 16 outs; then 4 with 128-bit vectors; the last 3 or fewer in C.
#include <immintrin.h>

#include "ops_optimized/conv/conv.h"

void etr_conv_add_pairs_avx2(size_t n, const float *a, const float *b,
                             float *out) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 va = _mm256_loadu_ps(a + i);
    __m256 vb = _mm256_loadu_ps(b + i);
    __m256 lo = _mm256_unpacklo_ps(va, vb);  // a0 b0 a1 b1 | a4 b4 a5 b5
    __m256 hi = _mm256_unpackhi_ps(va, vb);  // a2 b2 a3 b3 | a6 b6 a7 b7
    float *o = out + 2 * i;
    _mm256_storeu_ps(o, _mm256_add_ps(_mm256_loadu_ps(o),
                                      _mm256_permute2f128_ps(lo, hi, 0x20)));
    _mm256_storeu_ps(o + 8,
                     _mm256_add_ps(_mm256_loadu_ps(o + 8),
                                   _mm256_permute2f128_ps(lo, hi, 0x31)));
  }
  // Four more with 128-bit vectors: UNet's rows of 28 (3 x 8 + 4) spent
  // a third of this function's time on the scalar tail.
  if (i + 4 <= n) {
    __m128 va = _mm_loadu_ps(a + i);
    __m128 vb = _mm_loadu_ps(b + i);
    float *o = out + 2 * i;
    _mm_storeu_ps(o, _mm_add_ps(_mm_loadu_ps(o), _mm_unpacklo_ps(va, vb)));
    _mm_storeu_ps(o + 4,
                  _mm_add_ps(_mm_loadu_ps(o + 4), _mm_unpackhi_ps(va, vb)));
    i += 4;
  }
  for (; i < n; ++i) {
    out[2 * i] += a[i];
    out[2 * i + 1] += b[i];
  }
}

void etr_conv_put_pairs_avx2(size_t n, const float *a, const float *b,
                             float bias, float *out) {
  const __m256 zero = _mm256_setzero_ps();
  const __m256 vbias = _mm256_set1_ps(bias);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    // (a + 0) + bias before the interleave: the same bits lane by lane.
    __m256 va = _mm256_add_ps(_mm256_add_ps(_mm256_loadu_ps(a + i), zero),
                              vbias);
    __m256 vb = _mm256_add_ps(_mm256_add_ps(_mm256_loadu_ps(b + i), zero),
                              vbias);
    __m256 lo = _mm256_unpacklo_ps(va, vb);
    __m256 hi = _mm256_unpackhi_ps(va, vb);
    _mm256_storeu_ps(out + 2 * i, _mm256_permute2f128_ps(lo, hi, 0x20));
    _mm256_storeu_ps(out + 2 * i + 8, _mm256_permute2f128_ps(lo, hi, 0x31));
  }
  if (i + 4 <= n) {
    const __m128 z = _mm_setzero_ps();
    const __m128 vb4 = _mm_set1_ps(bias);
    __m128 va = _mm_add_ps(_mm_add_ps(_mm_loadu_ps(a + i), z), vb4);
    __m128 vb = _mm_add_ps(_mm_add_ps(_mm_loadu_ps(b + i), z), vb4);
    _mm_storeu_ps(out + 2 * i, _mm_unpacklo_ps(va, vb));
    _mm_storeu_ps(out + 2 * i + 4, _mm_unpackhi_ps(va, vb));
    i += 4;
  }
  for (; i < n; ++i) {
    out[2 * i] = (a[i] + 0.0f) + bias;
    out[2 * i + 1] = (b[i] + 0.0f) + bias;
  }
}

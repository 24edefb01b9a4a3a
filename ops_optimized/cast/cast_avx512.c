// SPDX-License-Identifier: Apache-2.0
//
// Float <-> int64 / int32 conversions, AVX-512 (F, DQ, VL): 8 or 16
// elements a step, masked tails, nothing past n touched. VCVTQQ2PS rounds
// an int64 to float once (round to nearest even, as C's (float)x); the
// truncating VCVTTPS2QQ gives INT64_MIN for NaN and anything outside
// [-2^63, 2^63), exactly etr_double_to_int64, and VPMOVQD wraps that to 32
// bits as the reference's int32 store does.
#include <immintrin.h>

#include "ops_optimized/cast/cast.h"

static inline __mmask8 mask8(size_t count) {
  return (__mmask8)((1u << count) - 1u);
}

static inline __mmask16 mask16(size_t count) {
  return (__mmask16)((1u << count) - 1u);
}

static void i64_to_f32_avx512(size_t n, const int64_t *x, float *y) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    _mm256_storeu_ps(y + i, _mm512_cvtepi64_ps(_mm512_loadu_si512(x + i)));
  }
  if (i < n) {
    __mmask8 mask = mask8(n - i);
    __m512i v = _mm512_maskz_loadu_epi64(mask, x + i);
    _mm256_mask_storeu_ps(y + i, mask, _mm512_cvtepi64_ps(v));
  }
}

static void i32_to_f32_avx512(size_t n, const int32_t *x, float *y) {
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    _mm512_storeu_ps(y + i, _mm512_cvtepi32_ps(_mm512_loadu_si512(x + i)));
  }
  if (i < n) {
    __mmask16 mask = mask16(n - i);
    __m512i v = _mm512_maskz_loadu_epi32(mask, x + i);
    _mm512_mask_storeu_ps(y + i, mask, _mm512_cvtepi32_ps(v));
  }
}

static void f32_to_i64_avx512(size_t n, const float *x, int64_t *y) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    _mm512_storeu_si512(y + i, _mm512_cvttps_epi64(_mm256_loadu_ps(x + i)));
  }
  if (i < n) {
    __mmask8 mask = mask8(n - i);
    __m512i v = _mm512_cvttps_epi64(_mm256_maskz_loadu_ps(mask, x + i));
    _mm512_mask_storeu_epi64(y + i, mask, v);
  }
}

static void f32_to_i32_avx512(size_t n, const float *x, int32_t *y) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m512i wide = _mm512_cvttps_epi64(_mm256_loadu_ps(x + i));
    _mm256_storeu_si256((__m256i *)(y + i), _mm512_cvtepi64_epi32(wide));
  }
  if (i < n) {
    __mmask8 mask = mask8(n - i);
    __m512i wide = _mm512_cvttps_epi64(_mm256_maskz_loadu_ps(mask, x + i));
    _mm512_mask_cvtepi64_storeu_epi32(y + i, mask, wide);
  }
}

const etr_cast_kernels_t etr_cast_kernels_avx512 = {
    i64_to_f32_avx512, i32_to_f32_avx512, f32_to_i64_avx512,
    f32_to_i32_avx512};

// SPDX-License-Identifier: Apache-2.0
//
// Float <-> int32 conversions, AVX2: 8 elements a step, the tail in C.
// float -> int32 truncates with CVTTPS2DQ only when every lane of the step
// is inside (-2^31, 2^31) (NaN is not), where that is the reference's
// result; other steps go through etr_cast_f32_to_i32_one. AVX2 has no
// int64 <-> float instructions: those pairs use the portable loops.
#include <immintrin.h>

#include "ops_optimized/cast/cast.h"

static void i32_to_f32_avx2(size_t n, const int32_t *x, float *y) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256i v = _mm256_loadu_si256((const __m256i *)(x + i));
    _mm256_storeu_ps(y + i, _mm256_cvtepi32_ps(v));
  }
  for (; i < n; ++i) {
    y[i] = (float)x[i];
  }
}

static void f32_to_i32_avx2(size_t n, const float *x, int32_t *y) {
  const __m256 limit = _mm256_set1_ps(2147483648.0f);
  const __m256 magnitude = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 v = _mm256_loadu_ps(x + i);
    __m256 inside =
        _mm256_cmp_ps(_mm256_and_ps(v, magnitude), limit, _CMP_LT_OQ);
    if (_mm256_movemask_ps(inside) == 0xff) {
      _mm256_storeu_si256((__m256i *)(y + i), _mm256_cvttps_epi32(v));
    } else {
      for (size_t j = i; j < i + 8; ++j) {
        y[j] = etr_cast_f32_to_i32_one(x[j]);
      }
    }
  }
  for (; i < n; ++i) {
    y[i] = etr_cast_f32_to_i32_one(x[i]);
  }
}

const etr_cast_kernels_t etr_cast_kernels_avx2 = {
    NULL, i32_to_f32_avx2, NULL, f32_to_i32_avx2};

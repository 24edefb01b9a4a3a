// SPDX-License-Identifier: Apache-2.0
//
// The bytewise microkernels (bitwise.h) for AVX2: 32 bytes a vector, two
// vectors a step, the last < 32 bytes one at a time.
#include <immintrin.h>

#include "ops_optimized/bitwise/bitwise.h"

#define BYTES_KERNELS(name, INTRINSIC, OP)                                \
  static void name##_vv(size_t n, const uint8_t *a, const uint8_t *b,     \
                        uint8_t *y) {                                     \
    size_t i = 0;                                                         \
    for (; i + 64 <= n; i += 64) {                                        \
      __m256i r0 = INTRINSIC(_mm256_loadu_si256((const __m256i *)(a + i)), \
                             _mm256_loadu_si256((const __m256i *)(b + i))); \
      __m256i r1 =                                                        \
          INTRINSIC(_mm256_loadu_si256((const __m256i *)(a + i + 32)),    \
                    _mm256_loadu_si256((const __m256i *)(b + i + 32)));   \
      _mm256_storeu_si256((__m256i *)(y + i), r0);                        \
      _mm256_storeu_si256((__m256i *)(y + i + 32), r1);                   \
    }                                                                     \
    for (; i + 32 <= n; i += 32) {                                        \
      _mm256_storeu_si256(                                                \
          (__m256i *)(y + i),                                             \
          INTRINSIC(_mm256_loadu_si256((const __m256i *)(a + i)),         \
                    _mm256_loadu_si256((const __m256i *)(b + i))));       \
    }                                                                     \
    for (; i < n; ++i) {                                                  \
      y[i] = (uint8_t)(a[i] OP b[i]);                                     \
    }                                                                     \
  }                                                                       \
  static void name##_vp(size_t n, const uint8_t *a,                       \
                        const uint8_t *pattern, uint8_t *y) {             \
    const __m256i p = _mm256_loadu_si256((const __m256i *)pattern);       \
    size_t i = 0;                                                         \
    for (; i + 64 <= n; i += 64) {                                        \
      __m256i r0 =                                                        \
          INTRINSIC(_mm256_loadu_si256((const __m256i *)(a + i)), p);     \
      __m256i r1 =                                                        \
          INTRINSIC(_mm256_loadu_si256((const __m256i *)(a + i + 32)), p); \
      _mm256_storeu_si256((__m256i *)(y + i), r0);                        \
      _mm256_storeu_si256((__m256i *)(y + i + 32), r1);                   \
    }                                                                     \
    for (; i + 32 <= n; i += 32) {                                        \
      _mm256_storeu_si256(                                                \
          (__m256i *)(y + i),                                             \
          INTRINSIC(_mm256_loadu_si256((const __m256i *)(a + i)), p));    \
    }                                                                     \
    for (; i < n; ++i) {                                                  \
      y[i] = (uint8_t)(a[i] OP pattern[i % ETR_BYTES_PATTERN]);           \
    }                                                                     \
  }

BYTES_KERNELS(and, _mm256_and_si256, &)
BYTES_KERNELS(or, _mm256_or_si256, |)
BYTES_KERNELS(xor, _mm256_xor_si256, ^)
#undef BYTES_KERNELS

const etr_bytes_kernels_t etr_bytes_avx2 = {
    .vv = {and_vv, or_vv, xor_vv},
    .vp = {and_vp, or_vp, xor_vp},
};

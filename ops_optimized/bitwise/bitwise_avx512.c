// SPDX-License-Identifier: Apache-2.0
//
// The bytewise microkernels (bitwise.h) for AVX-512 (F, BW): 64 bytes a
// vector, the tail one masked load and store (nothing past n touched).
#include <immintrin.h>

#include "ops_optimized/bitwise/bitwise.h"

static inline __mmask64 first_bytes(size_t n) {
  return n >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << n) - 1);
}

#define BYTES_KERNELS(name, INTRINSIC)                                    \
  static void name##_vv(size_t n, const uint8_t *a, const uint8_t *b,     \
                        uint8_t *y) {                                     \
    size_t i = 0;                                                         \
    for (; i + 128 <= n; i += 128) {                                      \
      __m512i r0 = INTRINSIC(_mm512_loadu_si512(a + i),                   \
                             _mm512_loadu_si512(b + i));                  \
      __m512i r1 = INTRINSIC(_mm512_loadu_si512(a + i + 64),              \
                             _mm512_loadu_si512(b + i + 64));             \
      _mm512_storeu_si512(y + i, r0);                                     \
      _mm512_storeu_si512(y + i + 64, r1);                                \
    }                                                                     \
    for (; i < n; i += 64) {                                              \
      __mmask64 m = first_bytes(n - i);                                   \
      __m512i r = INTRINSIC(_mm512_maskz_loadu_epi8(m, a + i),            \
                            _mm512_maskz_loadu_epi8(m, b + i));           \
      _mm512_mask_storeu_epi8(y + i, m, r);                               \
    }                                                                     \
  }                                                                       \
  static void name##_vp(size_t n, const uint8_t *a,                       \
                        const uint8_t *pattern, uint8_t *y) {             \
    const __m512i p = _mm512_loadu_si512(pattern);                        \
    size_t i = 0;                                                         \
    for (; i + 128 <= n; i += 128) {                                      \
      __m512i r0 = INTRINSIC(_mm512_loadu_si512(a + i), p);               \
      __m512i r1 = INTRINSIC(_mm512_loadu_si512(a + i + 64), p);          \
      _mm512_storeu_si512(y + i, r0);                                     \
      _mm512_storeu_si512(y + i + 64, r1);                                \
    }                                                                     \
    for (; i < n; i += 64) {                                              \
      __mmask64 m = first_bytes(n - i);                                   \
      _mm512_mask_storeu_epi8(                                            \
          y + i, m, INTRINSIC(_mm512_maskz_loadu_epi8(m, a + i), p));     \
    }                                                                     \
  }

BYTES_KERNELS(and, _mm512_and_si512)
BYTES_KERNELS(or, _mm512_or_si512)
BYTES_KERNELS(xor, _mm512_xor_si512)
#undef BYTES_KERNELS

const etr_bytes_kernels_t etr_bytes_avx512 = {
    .vv = {and_vv, or_vv, xor_vv},
    .vp = {and_vp, or_vp, xor_vp},
};

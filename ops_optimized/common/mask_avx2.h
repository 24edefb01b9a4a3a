// SPDX-License-Identifier: Apache-2.0
//
// Stores under a lane mask for the AVX2 kernels: a mask with every lane
// set takes the plain store. vmaskmovps / vpmaskmov stores are microcoded
// on AMD's Zen 2 (about ten times a plain store's cost), and kernels that
// masked every vector of a row ran there at half speed (layer_norm over
// rows of 768: 0.76x ExecuTorch's kernel). Masked-out lanes are never
// written either way. Include only from *_avx2.c files.
#ifndef ETR_OPS_OPTIMIZED_COMMON_MASK_AVX2_H
#define ETR_OPS_OPTIMIZED_COMMON_MASK_AVX2_H

#include <immintrin.h>
#include <stdbool.h>
#include <stdint.h>

// Lanes 0 .. count - 1 of a vector of 8 set (count may be <= 0 or > 8).
static inline __attribute__((always_inline)) __m256i etr_avx2_first_lanes(
    int64_t count) {
  const int32_t n = count < 0 ? 0 : count > 8 ? 8 : (int32_t)count;
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(n),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

static inline __attribute__((always_inline)) bool etr_avx2_all_lanes(
    __m256i mask) {
  return _mm256_movemask_epi8(mask) == -1;
}

static inline __attribute__((always_inline)) void etr_avx2_maskstore_ps(
    float *p, __m256i mask, __m256 v) {
  if (etr_avx2_all_lanes(mask)) {
    _mm256_storeu_ps(p, v);
  } else {
    _mm256_maskstore_ps(p, mask, v);
  }
}

// The first n (0 to 8) lanes of v at dst in plain stores (at most a
// 128-bit, a 64-bit and a 32-bit one), for rows whose every store is
// partial (narrow planes), where a masked store each would cost most.
static inline __attribute__((always_inline)) void etr_avx2_store_first_ps(
    float *dst, __m256 v, int64_t n) {
  if (n == 8) {
    _mm256_storeu_ps(dst, v);
    return;
  }
  __m128 x = _mm256_castps256_ps128(v);
  if (n & 4) {
    _mm_storeu_ps(dst, x);
    dst += 4;
    x = _mm256_extractf128_ps(v, 1);
  }
  if (n & 2) {
    _mm_storel_pi((__m64 *)dst, x);
    dst += 2;
    x = _mm_movehl_ps(x, x);
  }
  if (n & 1) {
    _mm_store_ss(dst, x);
  }
}

static inline __attribute__((always_inline)) void etr_avx2_maskstore_pd(
    double *p, __m256i mask, __m256d v) {
  if (etr_avx2_all_lanes(mask)) {
    _mm256_storeu_pd(p, v);
  } else {
    _mm256_maskstore_pd(p, mask, v);
  }
}

static inline __attribute__((always_inline)) void etr_avx2_maskstore_epi64(
    long long *p, __m256i mask, __m256i v) {
  if (etr_avx2_all_lanes(mask)) {
    _mm256_storeu_si256((__m256i *)p, v);
  } else {
    _mm256_maskstore_epi64(p, mask, v);
  }
}

#endif  // ETR_OPS_OPTIMIZED_COMMON_MASK_AVX2_H

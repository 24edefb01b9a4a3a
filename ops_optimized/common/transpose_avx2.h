// SPDX-License-Identifier: Apache-2.0
//
// The 8 x 8 float transpose the AVX2 conv kernels share (pixels_avx2.c's
// staged tiles, pointwise_avx2.c's one-pixel weight blocks; also
// norm_avx512.c's row blocks): unpacks, in-lane shuffles, then 128-bit
// lane swaps, 24 shuffles. Include only from *_avx2.c and *_avx512.c
// files.
#ifndef ETR_OPS_OPTIMIZED_COMMON_TRANSPOSE_AVX2_H
#define ETR_OPS_OPTIMIZED_COMMON_TRANSPOSE_AVX2_H

#include <immintrin.h>

// Transposes r[0..7] in place (afterwards r[j][i] is the old r[i][j]).
static inline __attribute__((always_inline)) void etr_avx2_transpose8x8(
    __m256 r[8]) {
  __m256 t[8];
#pragma GCC unroll 4
  for (int i = 0; i < 8; i += 2) {
    t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
  }
  __m256 u[8];
#pragma GCC unroll 2
  for (int q = 0; q < 2; ++q) {  // rows 0-3, rows 4-7
    u[4 * q] = _mm256_shuffle_ps(t[4 * q], t[4 * q + 2], 0x44);
    u[4 * q + 1] = _mm256_shuffle_ps(t[4 * q], t[4 * q + 2], 0xee);
    u[4 * q + 2] = _mm256_shuffle_ps(t[4 * q + 1], t[4 * q + 3], 0x44);
    u[4 * q + 3] = _mm256_shuffle_ps(t[4 * q + 1], t[4 * q + 3], 0xee);
  }
#pragma GCC unroll 4
  for (int k = 0; k < 4; ++k) {
    r[k] = _mm256_permute2f128_ps(u[k], u[4 + k], 0x20);
    r[k + 4] = _mm256_permute2f128_ps(u[k], u[4 + k], 0x31);
  }
}

#endif  // ETR_OPS_OPTIMIZED_COMMON_TRANSPOSE_AVX2_H

// SPDX-License-Identifier: Apache-2.0
//
// A 16 x 16 fp32 transpose in AVX-512 registers, for the packers that turn
// rows contiguous along K into panel rows (gemm_pack_avx512.c,
// conv/im2col_avx512.c). Include only from *_avx512.c files.
#ifndef ETR_OPS_OPTIMIZED_GEMM_TRANSPOSE_AVX512_H
#define ETR_OPS_OPTIMIZED_GEMM_TRANSPOSE_AVX512_H

#include <immintrin.h>

// Transposes r[0..15] in place (afterwards r[j][i] is the old r[i][j]):
// four shuffle stages of 16 shuffles each.
static inline __attribute__((always_inline)) void etr_transpose16x16_avx512(
    __m512 r[16]) {
  __m512 t[16];
#pragma GCC unroll 16
  for (int i = 0; i < 16; i += 2) {
    t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
  }
#pragma GCC unroll 16
  for (int i = 0; i < 16; i += 4) {
    r[i] = _mm512_shuffle_ps(t[i], t[i + 2], 0x44);
    r[i + 1] = _mm512_shuffle_ps(t[i], t[i + 2], 0xee);
    r[i + 2] = _mm512_shuffle_ps(t[i + 1], t[i + 3], 0x44);
    r[i + 3] = _mm512_shuffle_ps(t[i + 1], t[i + 3], 0xee);
  }
  // r[4q + c] lane L now holds column 4L + c of rows 4q..4q+3.
#pragma GCC unroll 16
  for (int c = 0; c < 4; ++c) {
    t[c] = _mm512_shuffle_f32x4(r[c], r[4 + c], 0x88);
    t[4 + c] = _mm512_shuffle_f32x4(r[c], r[4 + c], 0xdd);
    t[8 + c] = _mm512_shuffle_f32x4(r[8 + c], r[12 + c], 0x88);
    t[12 + c] = _mm512_shuffle_f32x4(r[8 + c], r[12 + c], 0xdd);
  }
#pragma GCC unroll 16
  for (int c = 0; c < 8; ++c) {
    r[c] = _mm512_shuffle_f32x4(t[c], t[8 + c], 0x88);
    r[8 + c] = _mm512_shuffle_f32x4(t[c], t[8 + c], 0xdd);
  }
}

#endif  // ETR_OPS_OPTIMIZED_GEMM_TRANSPOSE_AVX512_H

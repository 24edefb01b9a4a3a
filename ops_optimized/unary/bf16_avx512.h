// SPDX-License-Identifier: Apache-2.0
//
// fp32 -> BFloat16 of 16 lanes with AVX-512 (F, BW) integer arithmetic,
// exactly etr_float_to_bfloat16 (core/scalar_type.h): round to nearest
// even on the bits, NaN -> its upper half | 0x40 (quiet). Shared by
// convert_avx512.c and convert_bf16_avx512.c (the blocks holding a
// denormal, which VCVTNE2PS2BF16 would flush). Include only from
// *_avx512*.c files.
#ifndef ETR_OPS_OPTIMIZED_UNARY_BF16_AVX512_H
#define ETR_OPS_OPTIMIZED_UNARY_BF16_AVX512_H

#include <immintrin.h>

static inline __m256i etr_to_bf16_16_avx512(__m512 v) {
  __m512i bits = _mm512_castps_si512(v);
  __m512i upper = _mm512_srli_epi32(bits, 16);
  __m512i bias = _mm512_add_epi32(
      _mm512_and_si512(upper, _mm512_set1_epi32(1)), _mm512_set1_epi32(0x7fff));
  __m512i rounded = _mm512_srli_epi32(_mm512_add_epi32(bits, bias), 16);
  __mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
  rounded = _mm512_mask_mov_epi32(
      rounded, nan, _mm512_or_si512(upper, _mm512_set1_epi32(0x40)));
  return _mm512_cvtepi32_epi16(rounded);
}

#endif  // ETR_OPS_OPTIMIZED_UNARY_BF16_AVX512_H

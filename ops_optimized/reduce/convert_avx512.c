// SPDX-License-Identifier: Apache-2.0
//
// fp32 <-> Half/BFloat16 conversions, AVX-512 (F, BW, VL): 16 elements per
// step, the tail under a lane mask, so nothing past n is touched.
// Bit-identical to core/scalar_type.h (vcvtps2ph rounds to nearest even
// and keeps NaNs quiet with their upper payload bits).
#include <immintrin.h>

#include "ops_optimized/reduce/reduce.h"

static inline __mmask16 mask16(size_t count) {
  return count >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << count) - 1u);
}

static void f16_to_f32_avx512(size_t n, const uint16_t *x, float *y) {
  for (size_t i = 0; i < n; i += 16) {
    __mmask16 m = mask16(n - i);
    _mm512_mask_storeu_ps(y + i, m,
                          _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(m, x + i)));
  }
}

static void bf16_to_f32_avx512(size_t n, const uint16_t *x, float *y) {
  for (size_t i = 0; i < n; i += 16) {
    __mmask16 m = mask16(n - i);
    __m512i wide = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, x + i));
    _mm512_mask_storeu_ps(y + i, m,
                          _mm512_castsi512_ps(_mm512_slli_epi32(wide, 16)));
  }
}

static void f32_to_f16_avx512(size_t n, const float *x, uint16_t *y) {
  for (size_t i = 0; i < n; i += 16) {
    __mmask16 m = mask16(n - i);
    __m256i h = _mm512_cvtps_ph(_mm512_maskz_loadu_ps(m, x + i),
                                _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    _mm256_mask_storeu_epi16(y + i, m, h);
  }
}

static void f32_to_bf16_avx512(size_t n, const float *x, uint16_t *y) {
  const __m512i one = _mm512_set1_epi32(1);
  const __m512i bias = _mm512_set1_epi32(0x7fff);
  const __m512i quiet_bit = _mm512_set1_epi32(0x40);
  for (size_t i = 0; i < n; i += 16) {
    __mmask16 m = mask16(n - i);
    __m512 v = _mm512_maskz_loadu_ps(m, x + i);
    __m512i bits = _mm512_castps_si512(v);
    __m512i upper = _mm512_srli_epi32(bits, 16);
    __m512i rounded = _mm512_srli_epi32(
        _mm512_add_epi32(bits,
                         _mm512_add_epi32(bias, _mm512_and_si512(upper, one))),
        16);
    __mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
    __m512i result = _mm512_mask_or_epi32(rounded, nan, upper, quiet_bit);
    _mm256_mask_storeu_epi16(y + i, m, _mm512_cvtepi32_epi16(result));
  }
}

const etr_convert_kernels_t etr_convert_kernels_avx512 = {
    .f16_to_f32 = f16_to_f32_avx512,
    .bf16_to_f32 = bf16_to_f32_avx512,
    .f32_to_f16 = f32_to_f16_avx512,
    .f32_to_bf16 = f32_to_bf16_avx512,
};

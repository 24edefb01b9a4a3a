// SPDX-License-Identifier: Apache-2.0
//
// Quantize / dequantize microkernels, AVX-512 (F, BW, VL): 16 elements a
// step, the tail with masked loads and stores, so nothing past n is
// touched. The arithmetic is quant.h's, bit for bit; VPMOVDB narrows by
// truncation, exact here since every lane is already within [low, high].
#include <immintrin.h>

#include "ops_optimized/quant/quant.h"

static inline __mmask16 tail_mask(size_t count) {
  return (__mmask16)((1u << count) - 1u);
}

static inline __m512i quantize_16(__m512 x,
                                  const etr_quantize_f32_params_t *p) {
  __m512 scaled = _mm512_mul_ps(x, _mm512_set1_ps(p->inverse_scale));
  __m512 rounded = _mm512_roundscale_ps(
      scaled, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 shifted = _mm512_add_ps(rounded, _mm512_set1_ps(p->zero_point));
  // VMAXPS returns its second operand when the first is NaN: NaN -> low.
  __m512 clamped = _mm512_min_ps(_mm512_max_ps(shifted, _mm512_set1_ps(p->low)),
                                 _mm512_set1_ps(p->high));
  return _mm512_cvtps_epi32(clamped);
}

// int8 and uint8 lanes are both the low byte of the int32 result.
static void quantize_bytes(size_t n, const float *x, void *y,
                           const etr_quantize_f32_params_t *params) {
  uint8_t *bytes = (uint8_t *)y;
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m512i q = quantize_16(_mm512_loadu_ps(x + i), params);
    _mm_storeu_si128((__m128i *)(bytes + i), _mm512_cvtepi32_epi8(q));
  }
  if (i < n) {
    __mmask16 mask = tail_mask(n - i);
    __m512i q = quantize_16(_mm512_maskz_loadu_ps(mask, x + i), params);
    _mm512_mask_cvtepi32_storeu_epi8(bytes + i, mask, q);
  }
}

static void quantize_s8_avx512(size_t n, const float *x, int8_t *y,
                               const etr_quantize_f32_params_t *params) {
  quantize_bytes(n, x, y, params);
}

static void quantize_u8_avx512(size_t n, const float *x, uint8_t *y,
                               const etr_quantize_f32_params_t *params) {
  quantize_bytes(n, x, y, params);
}

static inline __m512 dequantize_16(__m512i q, int32_t zero_point,
                                   float scale) {
  __m512i difference = _mm512_sub_epi32(q, _mm512_set1_epi32(zero_point));
  return _mm512_mul_ps(_mm512_cvtepi32_ps(difference), _mm512_set1_ps(scale));
}

static void dequantize_s8_avx512(size_t n, const int8_t *x, float *y,
                                 int32_t zero_point, float scale) {
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m512i q = _mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)(x + i)));
    _mm512_storeu_ps(y + i, dequantize_16(q, zero_point, scale));
  }
  if (i < n) {
    __mmask16 mask = tail_mask(n - i);
    __m512i q = _mm512_cvtepi8_epi32(_mm_maskz_loadu_epi8(mask, x + i));
    _mm512_mask_storeu_ps(y + i, mask, dequantize_16(q, zero_point, scale));
  }
}

static void dequantize_u8_avx512(size_t n, const uint8_t *x, float *y,
                                 int32_t zero_point, float scale) {
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m512i q = _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(x + i)));
    _mm512_storeu_ps(y + i, dequantize_16(q, zero_point, scale));
  }
  if (i < n) {
    __mmask16 mask = tail_mask(n - i);
    __m512i q = _mm512_cvtepu8_epi32(_mm_maskz_loadu_epi8(mask, x + i));
    _mm512_mask_storeu_ps(y + i, mask, dequantize_16(q, zero_point, scale));
  }
}

const etr_quant_kernels_t etr_quant_kernels_avx512 = {
    quantize_s8_avx512, quantize_u8_avx512, dequantize_s8_avx512,
    dequantize_u8_avx512};

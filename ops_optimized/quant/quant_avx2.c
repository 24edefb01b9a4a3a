// SPDX-License-Identifier: Apache-2.0
//
// Quantize / dequantize microkernels, AVX2: 8 elements a step; the tail
// (fewer than 8) goes through a stack buffer, so nothing past n is
// touched. The arithmetic is quant.h's, bit for bit.
#include <immintrin.h>
#include <string.h>

#include "ops_optimized/quant/quant.h"

// 8 floats -> 8 integral floats in [low, high] as int32 (exact).
static inline __m256i quantize_8(const float *x,
                                 const etr_quantize_f32_params_t *p) {
  __m256 scaled =
      _mm256_mul_ps(_mm256_loadu_ps(x), _mm256_set1_ps(p->inverse_scale));
  __m256 rounded =
      _mm256_round_ps(scaled, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 shifted = _mm256_add_ps(rounded, _mm256_set1_ps(p->zero_point));
  // MAXPS returns its second operand when the first is NaN: NaN -> low.
  __m256 clamped = _mm256_min_ps(_mm256_max_ps(shifted, _mm256_set1_ps(p->low)),
                                 _mm256_set1_ps(p->high));
  return _mm256_cvtps_epi32(clamped);
}

// Every lane is within the int8 (or uint8) range, so the saturating packs
// only narrow.
static inline void quantize_s8_8(const float *x, int8_t *y,
                                 const etr_quantize_f32_params_t *p) {
  __m256i q = quantize_8(x, p);
  __m128i words = _mm_packs_epi32(_mm256_castsi256_si128(q),
                                  _mm256_extracti128_si256(q, 1));
  _mm_storel_epi64((__m128i *)y, _mm_packs_epi16(words, words));
}

static inline void quantize_u8_8(const float *x, uint8_t *y,
                                 const etr_quantize_f32_params_t *p) {
  __m256i q = quantize_8(x, p);
  __m128i words = _mm_packs_epi32(_mm256_castsi256_si128(q),
                                  _mm256_extracti128_si256(q, 1));
  _mm_storel_epi64((__m128i *)y, _mm_packus_epi16(words, words));
}

static inline void dequantize_s8_8(const int8_t *x, float *y,
                                   int32_t zero_point, float scale) {
  __m256i q = _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)x));
  __m256i difference = _mm256_sub_epi32(q, _mm256_set1_epi32(zero_point));
  _mm256_storeu_ps(y, _mm256_mul_ps(_mm256_cvtepi32_ps(difference),
                                    _mm256_set1_ps(scale)));
}

static inline void dequantize_u8_8(const uint8_t *x, float *y,
                                   int32_t zero_point, float scale) {
  __m256i q = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)x));
  __m256i difference = _mm256_sub_epi32(q, _mm256_set1_epi32(zero_point));
  _mm256_storeu_ps(y, _mm256_mul_ps(_mm256_cvtepi32_ps(difference),
                                    _mm256_set1_ps(scale)));
}

static void quantize_s8_avx2(size_t n, const float *x, int8_t *y,
                             const etr_quantize_f32_params_t *params) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    quantize_s8_8(x + i, y + i, params);
  }
  if (i < n) {
    float in[8] = {0};
    int8_t out[8];
    memcpy(in, x + i, (n - i) * sizeof(float));
    quantize_s8_8(in, out, params);
    memcpy(y + i, out, n - i);
  }
}

static void quantize_u8_avx2(size_t n, const float *x, uint8_t *y,
                             const etr_quantize_f32_params_t *params) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    quantize_u8_8(x + i, y + i, params);
  }
  if (i < n) {
    float in[8] = {0};
    uint8_t out[8];
    memcpy(in, x + i, (n - i) * sizeof(float));
    quantize_u8_8(in, out, params);
    memcpy(y + i, out, n - i);
  }
}

static void dequantize_s8_avx2(size_t n, const int8_t *x, float *y,
                               int32_t zero_point, float scale) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    dequantize_s8_8(x + i, y + i, zero_point, scale);
  }
  if (i < n) {
    int8_t in[8] = {0};
    float out[8];
    memcpy(in, x + i, n - i);
    dequantize_s8_8(in, out, zero_point, scale);
    memcpy(y + i, out, (n - i) * sizeof(float));
  }
}

static void dequantize_u8_avx2(size_t n, const uint8_t *x, float *y,
                               int32_t zero_point, float scale) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    dequantize_u8_8(x + i, y + i, zero_point, scale);
  }
  if (i < n) {
    uint8_t in[8] = {0};
    float out[8];
    memcpy(in, x + i, n - i);
    dequantize_u8_8(in, out, zero_point, scale);
    memcpy(y + i, out, (n - i) * sizeof(float));
  }
}

const etr_quant_kernels_t etr_quant_kernels_avx2 = {
    quantize_s8_avx2, quantize_u8_avx2, dequantize_s8_avx2,
    dequantize_u8_avx2};

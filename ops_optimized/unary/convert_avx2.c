// SPDX-License-Identifier: Apache-2.0
//
// fp32 <-> Half/BFloat16 conversions, AVX2 + F16C: 8 elements a step; the
// tail (fewer than 8) goes through a stack buffer, so nothing past n is
// touched. Bit-identical to core/scalar_type.h (see convert_avx512.c).
#include <immintrin.h>
#include <string.h>

#include "ops_optimized/unary/unary.h"

static inline __m256 from_f16_8(const uint16_t *x) {
  return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)x));
}

static inline __m256 from_bf16_8(const uint16_t *x) {
  __m256i wide = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)x));
  return _mm256_castsi256_ps(_mm256_slli_epi32(wide, 16));
}

static inline void to_f16_8(const float *x, uint16_t *y) {
  _mm_storeu_si128((__m128i *)y,
                   _mm256_cvtps_ph(_mm256_loadu_ps(x),
                                   _MM_FROUND_TO_NEAREST_INT |
                                       _MM_FROUND_NO_EXC));
}

static inline void to_bf16_8(const float *x, uint16_t *y) {
  __m256 v = _mm256_loadu_ps(x);
  __m256i bits = _mm256_castps_si256(v);
  __m256i upper = _mm256_srli_epi32(bits, 16);
  __m256i bias = _mm256_add_epi32(
      _mm256_and_si256(upper, _mm256_set1_epi32(1)), _mm256_set1_epi32(0x7fff));
  __m256i rounded = _mm256_srli_epi32(_mm256_add_epi32(bits, bias), 16);
  __m256i quiet = _mm256_or_si256(upper, _mm256_set1_epi32(0x40));
  __m256i nan = _mm256_castps_si256(_mm256_cmp_ps(v, v, _CMP_UNORD_Q));
  rounded = _mm256_blendv_epi8(rounded, quiet, nan);
  // Every lane is <= 0xffff, so unsigned saturation only packs.
  __m128i packed = _mm_packus_epi32(_mm256_castsi256_si128(rounded),
                                    _mm256_extracti128_si256(rounded, 1));
  _mm_storeu_si128((__m128i *)y, packed);
}

// The loops: whole steps of 8, then the tail through buffers.
#define ETR_CONVERT_LOOP(name, in_type, out_type, STEP)      \
  static void name(size_t n, const in_type *x, out_type *y) { \
    size_t i = 0;                                             \
    for (; i + 8 <= n; i += 8) {                              \
      STEP(x + i, y + i);                                     \
    }                                                         \
    if (i < n) {                                              \
      in_type in[8] = {0};                                    \
      out_type out[8];                                        \
      memcpy(in, x + i, (n - i) * sizeof(in_type));           \
      STEP(in, out);                                          \
      memcpy(y + i, out, (n - i) * sizeof(out_type));         \
    }                                                         \
  }

#define FROM_F16_STEP(x, y) _mm256_storeu_ps((y), from_f16_8(x))
#define FROM_BF16_STEP(x, y) _mm256_storeu_ps((y), from_bf16_8(x))
ETR_CONVERT_LOOP(from_f16_avx2, uint16_t, float, FROM_F16_STEP)
ETR_CONVERT_LOOP(from_bf16_avx2, uint16_t, float, FROM_BF16_STEP)
ETR_CONVERT_LOOP(to_f16_avx2, float, uint16_t, to_f16_8)
ETR_CONVERT_LOOP(to_bf16_avx2, float, uint16_t, to_bf16_8)
#undef FROM_F16_STEP
#undef FROM_BF16_STEP
#undef ETR_CONVERT_LOOP

const etr_f32_convert_kernels_t etr_f32_convert_avx2 = {
    from_f16_avx2, from_bf16_avx2, to_f16_avx2, to_bf16_avx2};

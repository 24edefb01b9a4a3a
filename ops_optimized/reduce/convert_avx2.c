// SPDX-License-Identifier: Apache-2.0
//
// fp32 <-> Half/BFloat16 conversions, AVX2 + F16C: 8 (Half) or 16
// (BFloat16 packing) elements per step, scalar tails (core's conversions),
// so nothing past n is touched. Bit-identical to core/scalar_type.h:
// vcvtps2ph rounds to nearest even and keeps NaNs quiet with their upper
// payload bits, as etr_float_to_half does.
#include <immintrin.h>

#include "core/scalar_type.h"
#include "ops_optimized/reduce/reduce.h"

static void f16_to_f32_avx2(size_t n, const uint16_t *x, float *y) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m128i h = _mm_loadu_si128((const __m128i *)(x + i));
    _mm256_storeu_ps(y + i, _mm256_cvtph_ps(h));
  }
  for (; i < n; ++i) {
    y[i] = etr_half_to_float(x[i]);
  }
}

static void bf16_to_f32_avx2(size_t n, const uint16_t *x, float *y) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256i wide =
        _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(x + i)));
    _mm256_storeu_ps(y + i, _mm256_castsi256_ps(_mm256_slli_epi32(wide, 16)));
  }
  for (; i < n; ++i) {
    y[i] = etr_bfloat16_to_float(x[i]);
  }
}

static void f32_to_f16_avx2(size_t n, const float *x, uint16_t *y) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    _mm_storeu_si128((__m128i *)(y + i),
                     _mm256_cvtps_ph(_mm256_loadu_ps(x + i),
                                     _MM_FROUND_TO_NEAREST_INT |
                                         _MM_FROUND_NO_EXC));
  }
  for (; i < n; ++i) {
    y[i] = etr_float_to_half(x[i]);
  }
}

// Round to nearest even on bit 16; NaN: the upper half with the quiet bit.
static inline __m256i to_bf16_bits(__m256 v) {
  __m256i bits = _mm256_castps_si256(v);
  __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(bits, 16),
                                 _mm256_set1_epi32(1));
  __m256i rounded = _mm256_srli_epi32(
      _mm256_add_epi32(bits, _mm256_add_epi32(lsb, _mm256_set1_epi32(0x7fff))),
      16);
  __m256i quiet = _mm256_or_si256(_mm256_srli_epi32(bits, 16),
                                  _mm256_set1_epi32(0x40));
  __m256i is_nan = _mm256_castps_si256(_mm256_cmp_ps(v, v, _CMP_UNORD_Q));
  return _mm256_blendv_epi8(rounded, quiet, is_nan);
}

static void f32_to_bf16_avx2(size_t n, const float *x, uint16_t *y) {
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m256i lo = to_bf16_bits(_mm256_loadu_ps(x + i));
    __m256i hi = to_bf16_bits(_mm256_loadu_ps(x + i + 8));
    __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(lo, hi),
                                              0xd8);
    _mm256_storeu_si256((__m256i *)(y + i), packed);
  }
  for (; i < n; ++i) {
    y[i] = etr_float_to_bfloat16(x[i]);
  }
}

const etr_convert_kernels_t etr_convert_kernels_avx2 = {
    .f16_to_f32 = f16_to_f32_avx2,
    .bf16_to_f32 = bf16_to_f32_avx2,
    .f32_to_f16 = f32_to_f16_avx2,
    .f32_to_bf16 = f32_to_bf16_avx2,
};

// SPDX-License-Identifier: Apache-2.0
//
// fp32 <-> Half/BFloat16 conversions, AVX-512 (F, BW, VL): 16 elements a
// step, the tail under a lane mask (nothing past n is touched). vcvtps2ph
// rounds to nearest even and keeps NaNs quiet with their upper payload
// bits, as etr_float_to_half; BFloat16 rounds with integer arithmetic
// exactly as etr_float_to_bfloat16 (NaN -> its upper half | 0x40), or
// with AVX512_BF16 where the CPU has it (convert_bf16_avx512.c).
#include <immintrin.h>

#include "ops_optimized/unary/unary.h"

static inline __mmask16 first_lanes(size_t n) {
  return n >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << n) - 1u);
}

static inline __m512 from_f16_16(__m256i h) { return _mm512_cvtph_ps(h); }

static inline __m512 from_bf16_16(__m256i h) {
  return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
}

static inline __m256i to_f16_16(__m512 v) {
  return _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}

static inline __m256i to_bf16_16(__m512 v) {
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

// Whole vectors with plain loads and stores (masked 16-bit moves are
// slower on every step), then the tail under a mask.
#define ETR_WIDEN_LOOP(name, CONVERT)                                      \
  static void name(size_t n, const uint16_t *x, float *y) {               \
    size_t i = 0;                                                         \
    for (; i + 16 <= n; i += 16) {                                        \
      __m256i h = _mm256_loadu_si256((const __m256i *)(x + i));           \
      _mm512_storeu_ps(y + i, CONVERT(h));                                \
    }                                                                     \
    if (i < n) {                                                          \
      __mmask16 lanes = first_lanes(n - i);                               \
      _mm512_mask_storeu_ps(y + i, lanes,                                 \
                            CONVERT(_mm256_maskz_loadu_epi16(lanes, x + i))); \
    }                                                                     \
  }
#define ETR_NARROW_LOOP(name, CONVERT)                                     \
  static void name(size_t n, const float *x, uint16_t *y) {               \
    size_t i = 0;                                                         \
    for (; i + 16 <= n; i += 16) {                                        \
      __m256i h = CONVERT(_mm512_loadu_ps(x + i));                        \
      _mm256_storeu_si256((__m256i *)(y + i), h);                         \
    }                                                                     \
    if (i < n) {                                                          \
      __mmask16 lanes = first_lanes(n - i);                               \
      _mm256_mask_storeu_epi16(y + i, lanes,                              \
                               CONVERT(_mm512_maskz_loadu_ps(lanes, x + i))); \
    }                                                                     \
  }

ETR_WIDEN_LOOP(from_f16_avx512, from_f16_16)
ETR_WIDEN_LOOP(from_bf16_avx512, from_bf16_16)
ETR_NARROW_LOOP(to_f16_avx512, to_f16_16)
ETR_NARROW_LOOP(to_bf16_avx512, to_bf16_16)
#undef ETR_WIDEN_LOOP
#undef ETR_NARROW_LOOP

const etr_f32_convert_kernels_t etr_f32_convert_avx512 = {
    from_f16_avx512, from_bf16_avx512, to_f16_avx512, to_bf16_avx512};
// With AVX512_BF16 (etr_isa_has_avx512_bf16): its fp32 -> BFloat16.
const etr_f32_convert_kernels_t etr_f32_convert_avx512_bf16 = {
    from_f16_avx512, from_bf16_avx512, to_f16_avx512,
    etr_f32_to_bf16_avx512_bf16};

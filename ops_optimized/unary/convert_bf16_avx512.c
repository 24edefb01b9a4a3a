// SPDX-License-Identifier: Apache-2.0
//
// fp32 -> BFloat16 with AVX512_BF16: VCVTNE2PS2BF16 turns two vectors of
// 16 floats into one of 32 BFloat16, rounding to nearest even and making
// a NaN its upper half with the quiet bit set, the bits of
// etr_float_to_bfloat16, except that it flushes denormal inputs to a
// signed zero where the reference rounds them like any other value. A
// block of 32 that holds a denormal (VFPCLASSPS) goes to the integer
// AVX-512 kernel of convert_avx512.c instead, as do the last 31 or fewer
// elements.
// 1.7-2.0x the integer kernel's rate on 4K (L1) to 200K (L2) elements,
// the two interleaved in one process, medians of 21 rounds (Intel Xeon,
// family 6 model 207); the kernel benchmark's to-f32-bf16-64x56 row is
// the op on 200K elements. Nothing past n is touched. Only this function
// is compiled for AVX512_BF16 (the target attribute): the rest of the
// AVX-512 library runs on CPUs without it, and unary/convert_scalar.c
// hands this kernel out only where etr_isa_has_avx512_bf16().
#include <immintrin.h>

#include "ops_optimized/unary/unary.h"

#define DENORMAL_CLASS 0x20  // VFPCLASSPS imm8 bit 5: denormal, either sign

__attribute__((target("avx512bf16"))) void etr_f32_to_bf16_avx512_bf16(
    size_t n, const float *x, uint16_t *y) {
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m512 low = _mm512_loadu_ps(x + i);
    const __m512 high = _mm512_loadu_ps(x + i + 16);
    const __mmask16 denormal =
        _mm512_fpclass_ps_mask(low, DENORMAL_CLASS) |
        _mm512_fpclass_ps_mask(high, DENORMAL_CLASS);
    if (denormal == 0) {
      // Lanes 0..15 from the second operand, 16..31 from the first.
      const __m512bh both = _mm512_cvtne2ps_pbh(high, low);
      _mm512_storeu_si512((void *)(y + i), (__m512i)both);
    } else {
      etr_f32_convert_avx512.to_bf16(32, x + i, y + i);
    }
  }
  etr_f32_convert_avx512.to_bf16(n - i, x + i, y + i);
}

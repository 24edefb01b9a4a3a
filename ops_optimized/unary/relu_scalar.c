// SPDX-License-Identifier: Apache-2.0
//
// fp32 relu, portable C, and the per-ISA selection of the relu microkernel;
// relu of Half and BFloat16 bits.
#include "ops_optimized/unary/unary.h"

// The 16-bit loop is written for the compiler to vectorize, which GCC 12
// does at -O2 only for loops that need no scalar epilogue: ask for it
// (clang vectorizes at -O2 already).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("tree-vectorize")
#endif

void etr_f32_relu_scalar(size_t n, const float *x, float *y) {
  for (size_t i = 0; i < n; ++i) {
    // x < 0 is false for NaN and -0.0, which relu keeps, as PyTorch does.
    y[i] = x[i] < 0.0f ? 0.0f : x[i];
  }
}

void etr_relu_16bit(size_t n, const uint16_t *x, uint16_t *y,
                    uint16_t infinity) {
  for (size_t i = 0; i < n; ++i) {
    // Below zero: the sign set and a magnitude in [1, infinity] (not 0,
    // not NaN), which becomes +0 (all bits clear).
    uint16_t magnitude = (uint16_t)(x[i] & 0x7fffu);
    bool negative = (x[i] & 0x8000u) != 0 &&
                    (uint16_t)(magnitude - 1u) < infinity;
    y[i] = negative ? 0 : x[i];
  }
}

etr_f32_unary_fn etr_f32_relu_for(etr_isa_t isa) {
  switch (isa) {
#if defined(__x86_64__)
    case ETR_ISA_AVX512:
      return etr_f32_relu_avx512;
    case ETR_ISA_AVX2:
      return etr_f32_relu_avx2;
#endif
#if defined(__aarch64__)
    case ETR_ISA_NEON:
      return etr_f32_relu_neon;
#endif
    default:
      return etr_f32_relu_scalar;
  }
}

// SPDX-License-Identifier: Apache-2.0
//
// fp32 relu, portable C, and the per-ISA selection of the relu microkernel.
#include "ops_optimized/unary/unary.h"

void etr_f32_relu_scalar(size_t n, const float *x, float *y) {
  for (size_t i = 0; i < n; ++i) {
    // x < 0 is false for NaN and -0.0, which relu keeps, as PyTorch does.
    y[i] = x[i] < 0.0f ? 0.0f : x[i];
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

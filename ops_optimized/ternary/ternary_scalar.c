// SPDX-License-Identifier: Apache-2.0
//
// The three-input microkernels (ternary.h) in portable C (ternary_kernels.h
// one element at a time through ../unary/simd_scalar.h), and the per-ISA
// selection of those kernels.
#include "ops_optimized/unary/simd_scalar.h"

#define ETR_TERNARY_KERNELS etr_ternary_scalar
#include "ops_optimized/ternary/ternary_kernels.h"

const etr_ternary_kernels_t *etr_ternary_for(etr_isa_t isa) {
  switch (isa) {
#if defined(__x86_64__)
    case ETR_ISA_AVX512:
      return &etr_ternary_avx512;
    case ETR_ISA_AVX2:
      return &etr_ternary_avx2;
#endif
#if defined(__aarch64__)
    case ETR_ISA_NEON:
      return &etr_ternary_neon;
#endif
    default:
      return &etr_ternary_scalar;
  }
}

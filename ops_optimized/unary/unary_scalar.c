// SPDX-License-Identifier: Apache-2.0
//
// The table-driven fp32 unary microkernels (unary.h) in portable C (the
// algorithms of unary_kernels.h and vmath.h one element at a time through
// simd_scalar.h), and the per-ISA selection of those kernels.
#include "ops_optimized/unary/simd_scalar.h"

#define ETR_UNARY_TABLE etr_f32_unary_ops_scalar
#include "ops_optimized/unary/unary_kernels.h"

etr_f32_unary_op_fn etr_f32_unary_op_for(etr_unary_op_t op, etr_isa_t isa) {
  if ((unsigned)op >= ETR_UNARY_NUM_OPS) {
    return NULL;
  }
  switch (isa) {
#if defined(__x86_64__)
    case ETR_ISA_AVX512:
      if ((op == ETR_UNARY_GELU_ERF || op == ETR_UNARY_GELU_TANH) &&
          etr_isa_narrow_lookups()) {
        return etr_f32_gelu_narrow_avx512[op == ETR_UNARY_GELU_TANH];
      }
      return etr_f32_unary_ops_avx512[op];
    case ETR_ISA_AVX2:
      return etr_f32_unary_ops_avx2[op];
#endif
#if defined(__aarch64__)
    case ETR_ISA_NEON:
      return etr_f32_unary_ops_neon[op];
#endif
    default:
      return etr_f32_unary_ops_scalar[op];
  }
}

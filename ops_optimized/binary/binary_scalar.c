// SPDX-License-Identifier: Apache-2.0
//
// The fp32 binary and comparison microkernels (binary.h) in portable C
// (binary_kernels.h one element at a time through ../unary/simd_scalar.h),
// and the per-ISA selection of those kernels.
#include "ops_optimized/unary/simd_scalar.h"

#define ETR_BINARY_KERNELS etr_f32_binary_scalar
#include "ops_optimized/binary/binary_kernels.h"

const etr_f32_binary_kernels_t *etr_f32_binary_for(etr_isa_t isa) {
  switch (isa) {
#if defined(__x86_64__)
    case ETR_ISA_AVX512:
      return etr_isa_split_wide_divide() ? &etr_f32_binary_avx512_split_divide
                                         : &etr_f32_binary_avx512;
    case ETR_ISA_AVX2:
      return &etr_f32_binary_avx2;
#endif
#if defined(__aarch64__)
    case ETR_ISA_NEON:
      return &etr_f32_binary_neon;
#endif
    default:
      return &etr_f32_binary_scalar;
  }
}

etr_compare_op_t etr_compare_mirror(etr_compare_op_t op) {
  switch (op) {
    case ETR_COMPARE_OP_LT:
      return ETR_COMPARE_OP_GT;
    case ETR_COMPARE_OP_LE:
      return ETR_COMPARE_OP_GE;
    case ETR_COMPARE_OP_GT:
      return ETR_COMPARE_OP_LT;
    case ETR_COMPARE_OP_GE:
      return ETR_COMPARE_OP_LE;
    default:
      return op;
  }
}

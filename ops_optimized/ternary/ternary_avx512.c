// SPDX-License-Identifier: Apache-2.0
//
// The three-input microkernels (ternary.h) for AVX-512:
// ternary_kernels.h on ../unary/simd_avx512.h's 16 lanes.
#include "ops_optimized/unary/simd_avx512.h"

#define ETR_TERNARY_KERNELS etr_ternary_avx512
#include "ops_optimized/ternary/ternary_kernels.h"

// SPDX-License-Identifier: Apache-2.0
//
// The three-input microkernels (ternary.h) for AVX2 + FMA:
// ternary_kernels.h on ../unary/simd_avx2.h's 8 lanes.
#include "ops_optimized/unary/simd_avx2.h"

#define ETR_TERNARY_KERNELS etr_ternary_avx2
#include "ops_optimized/ternary/ternary_kernels.h"

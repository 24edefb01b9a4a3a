// SPDX-License-Identifier: Apache-2.0
//
// The table-driven fp32 unary microkernels (unary.h) for AVX2 + FMA: the
// algorithms of unary_kernels.h and vmath.h on simd_avx2.h's 8 lanes.
#include "ops_optimized/unary/simd_avx2.h"

#define ETR_UNARY_TABLE etr_f32_unary_ops_avx2
#include "ops_optimized/unary/unary_kernels.h"

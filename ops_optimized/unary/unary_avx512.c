// SPDX-License-Identifier: Apache-2.0
//
// The table-driven fp32 unary microkernels (unary.h) for AVX-512: the
// algorithms of unary_kernels.h and vmath.h on simd_avx512.h's 16 lanes.
#include "ops_optimized/unary/simd_avx512.h"

#define ETR_UNARY_TABLE etr_f32_unary_ops_avx512
#define ETR_UNARY_NARROW_GELU etr_f32_gelu_narrow_avx512
#include "ops_optimized/unary/unary_kernels.h"

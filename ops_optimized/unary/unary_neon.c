// SPDX-License-Identifier: Apache-2.0
//
// The table-driven fp32 unary microkernels (unary.h) for AArch64 NEON: the
// algorithms of unary_kernels.h and vmath.h on simd_neon.h's 4 lanes.
#include "ops_optimized/unary/simd_neon.h"

#define ETR_UNARY_TABLE etr_f32_unary_ops_neon
#include "ops_optimized/unary/unary_kernels.h"

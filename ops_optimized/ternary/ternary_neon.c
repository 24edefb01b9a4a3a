// SPDX-License-Identifier: Apache-2.0
//
// The three-input microkernels (ternary.h) for AArch64 NEON:
// ternary_kernels.h on ../unary/simd_neon.h's 4 lanes.
#include "ops_optimized/unary/simd_neon.h"

#define ETR_TERNARY_KERNELS etr_ternary_neon
#include "ops_optimized/ternary/ternary_kernels.h"

// SPDX-License-Identifier: Apache-2.0
//
// The fp32 binary and comparison microkernels (binary.h) for AArch64 NEON:
// binary_kernels.h on ../unary/simd_neon.h's 4 lanes.
#include "ops_optimized/unary/simd_neon.h"

#define ETR_BINARY_KERNELS etr_f32_binary_neon
#include "ops_optimized/binary/binary_kernels.h"

// SPDX-License-Identifier: Apache-2.0
//
// The fp32 binary and comparison microkernels (binary.h) for AVX2 + FMA:
// binary_kernels.h on ../unary/simd_avx2.h's 8 lanes.
#include "ops_optimized/unary/simd_avx2.h"

#define ETR_BINARY_KERNELS etr_f32_binary_avx2
#include "ops_optimized/binary/binary_kernels.h"

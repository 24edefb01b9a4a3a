// SPDX-License-Identifier: Apache-2.0
//
// The fp32 binary and comparison microkernels (binary.h) for AVX-512:
// binary_kernels.h on ../unary/simd_avx512.h's 16 lanes.
#include "ops_optimized/unary/simd_avx512.h"

#define ETR_BINARY_KERNELS etr_f32_binary_avx512
#define ETR_BINARY_KERNELS_SPLIT_DIVIDE etr_f32_binary_avx512_split_divide
#include "ops_optimized/binary/binary_kernels.h"

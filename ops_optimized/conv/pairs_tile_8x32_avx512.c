// SPDX-License-Identifier: Apache-2.0
//
// etr_conv_pairs_tile_8x32_avx512 (conv.h, pairs_tile_avx512.h): the
// exact-pairs transposed convolution tile on a weight packed for the
// 8 x 32 GEMM microkernel.
#include <immintrin.h>
#include <stdbool.h>

#include "ops_optimized/conv/conv.h"

#define MR 8
#define NR 32

#define ROWS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)
#define PAIRS(X) X(0, 1) X(2, 3) X(4, 5) X(6, 7)

#include "ops_optimized/gemm/ukernel_avx512.h"
#include "ops_optimized/conv/pairs_tile_avx512.h"

PAIRS_TILE_ENTRY(_8x32)

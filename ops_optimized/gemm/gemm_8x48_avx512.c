// SPDX-License-Identifier: Apache-2.0
//
// fp32 GEMM microkernel, AVX-512, 8 x 48: the 8-row tile (M = 8, 16, 32,
// 64: gemm_narrow_avx512.c) three vectors wide, 24 accumulators. Per k
// step: 8 broadcasts and three B vectors for 24 FMAs, where 8 x 32 does 8
// and two for 16: 11 loads per 24 FMAs, as the 12 x 32 tile's 14. The
// driver takes it for products whose columns it pads little more than
// 32-column panels do, when 8-row panels pad M no more than 12-row ones
// (or much less); on the Intel Xeon of 2026-11-29 the microkernel alone
// ran 8x48 200 against 8x32 177-190 GFLOP/s (M = 64, N = 240 and 480,
// K = 256, data in cache), and products from mm 512^3 to 1024^3 2-6%
// faster than on 12 x 32 (gemm.c).
#include <immintrin.h>

#include "ops_optimized/gemm/gemm.h"

// The tile, for ukernel_avx512.h.
#define MR 8
#define NR 48

#define ROWS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)

#include "ops_optimized/gemm/ukernel_avx512.h"

UKERNEL_ENTRIES(_8x48)

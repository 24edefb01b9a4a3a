// SPDX-License-Identifier: Apache-2.0
//
// fp32 GEMM microkernel, AVX-512, 8 x 32: the same body as the 12 x 32 one
// (ukernel_avx512.h) with 16 accumulators, for row counts that a 12-row
// tile would pad badly (M = 8, 16, 32: a transformer's 16 tokens, a
// convolution's 16 or 32 out channels); the driver picks the tile that
// pads fewer rows. Per k step: 8 broadcasts, two B vectors, 16 FMAs.
#include <immintrin.h>

#include "ops_optimized/gemm/gemm.h"

// The tile height and its rows, for ukernel_avx512.h.
#define MR 8
#define NR 32

#define ROWS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)

#include "ops_optimized/gemm/ukernel_avx512.h"

UKERNEL_ENTRIES(_8x32)

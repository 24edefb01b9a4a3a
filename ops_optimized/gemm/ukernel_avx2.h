// SPDX-License-Identifier: Apache-2.0
//
// The k loop of the AVX2 fp32 GEMM microkernel's 6 x 16 tile
// (gemm_avx2.c), shared with the transposed convolution's pairs tile
// (conv/pairs_tile_avx2.c): the includer defines A_ROW(i) (the address of
// A[i][k] for the loop's k step) and A_STEP (advances A one step) around
// each use. Include only from *_avx2.c files, once.
#ifndef ETR_OPS_OPTIMIZED_GEMM_UKERNEL_AVX2_H
#define ETR_OPS_OPTIMIZED_GEMM_UKERNEL_AVX2_H

#include <immintrin.h>

#define MR 6

#define ROWS(X) X(0) X(1) X(2) X(3) X(4) X(5)

#define DECLARE(i)                      \
  __m256 c##i##a = _mm256_setzero_ps(); \
  __m256 c##i##b = _mm256_setzero_ps();

#define STEP_FULL(i)                                \
  {                                                 \
    const __m256 x = _mm256_broadcast_ss(A_ROW(i)); \
    c##i##a = _mm256_fmadd_ps(x, b0, c##i##a);      \
    c##i##b = _mm256_fmadd_ps(x, b1, c##i##b);      \
  }

#define STEP_HALF(i) \
  c##i##a = _mm256_fmadd_ps(_mm256_broadcast_ss(A_ROW(i)), b0, c##i##a);

// The k loop with the given loads of the two B vectors, unrolled 4 times
// (its counter, pointer and branch uops took FMA ports: mm 512^3 and conv
// 64x56^2 k3 +8-9% with --isa avx2, paired gemm_bench runs, Intel Xeon).
#define K_LOOP(LOAD0, LOAD1, STEP)                         \
  _Pragma("GCC unroll 4") for (size_t k = 0; k < kc; ++k) { \
    const __m256 b0 = LOAD0;                               \
    const __m256 b1 = LOAD1;                               \
    (void)b1;                                              \
    ROWS(STEP)                                             \
    A_STEP;                                                \
    b += b_stride;                                         \
  }

#endif  // ETR_OPS_OPTIMIZED_GEMM_UKERNEL_AVX2_H

// SPDX-License-Identifier: Apache-2.0
//
// Small dense products, AVX-512 (gemm.h's etr_gemm_small_f32_avx512): C =
// A B with B at most 16 columns wide, so that a row of B or C is one
// vector. Rows of C go 8 at a time (then 4, 2, 1): per k, one masked load
// of B's row k and, per row, a broadcast of A's element and an FMA into
// the row's sum, k in order from 0. No packing, blocking or scratch: the
// transformer's attention products ([4, 16, 16] x [4, 16, 16]) spent most
// of their 380 ns in the general driver's planning and in an 8 x 32 tile
// that computed 16 columns of zeros.
#include <immintrin.h>

#include "ops_optimized/gemm/gemm.h"

// R rows of C from row `row`: A rows k apart, B and C rows n apart.
static inline __attribute__((always_inline)) void rows_of(
    const int R, size_t k, const float *a, const float *b, __mmask16 lanes,
    size_t n, float *c) {
  __m512 sum[8];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) {
    sum[r] = _mm512_setzero_ps();
  }
  for (size_t j = 0; j < k; ++j) {
    const __m512 row = _mm512_maskz_loadu_ps(lanes, b + j * n);
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      sum[r] = _mm512_fmadd_ps(_mm512_set1_ps(a[(size_t)r * k + j]), row,
                               sum[r]);
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) {
    _mm512_mask_storeu_ps(c + (size_t)r * n, lanes, sum[r]);
  }
}

void etr_gemm_small_f32_avx512(size_t batch, size_t m, size_t n, size_t k,
                               const float *a, const float *b, float *c) {
  const __mmask16 lanes = (__mmask16)((1u << n) - 1u);
  for (size_t item = 0; item < batch; ++item) {
    const float *ai = a + item * m * k;
    const float *bi = b + item * k * n;
    float *ci = c + item * m * n;
    size_t row = 0;
    for (; row + 8 <= m; row += 8) {
      rows_of(8, k, ai + row * k, bi, lanes, n, ci + row * n);
    }
    if (row + 4 <= m) {
      rows_of(4, k, ai + row * k, bi, lanes, n, ci + row * n);
      row += 4;
    }
    if (row + 2 <= m) {
      rows_of(2, k, ai + row * k, bi, lanes, n, ci + row * n);
      row += 2;
    }
    if (row < m) {
      rows_of(1, k, ai + row * k, bi, lanes, n, ci + row * n);
    }
  }
}

// SPDX-License-Identifier: Apache-2.0
//
// fp32 GEMV for a narrow dense B, AVX-512: c[j] = alpha * sum_k a[k] *
// B[k][j] + beta * bias[j] for N < 16 with B's rows packed end to end
// (b_stride == N) and a contiguous row a: a classifier head ([1, 2048] x
// [2048, 10] in the cnn model). Reading B one row per step (what
// etr_gemm_f32_gemv_avx512 does) loads N of 16 lanes, a load split
// across two cache lines every few rows, and runs one FMA per k; here B
// is read as the flat array it is, in full 16-float vectors.
//
// Flat float f of B is B[f / N][f % N]. A period of R = 16 / gcd(N, 16)
// rows is P = N / gcd(N, 16) whole vectors (N = 10: 8 rows in 5
// vectors), and lane l of the period's vector v holds row (16v + l) / N
// of the period. So one load of the R entries of a, expanded per vector
// by a lane permute (vpermps) into the matching a[k] of every lane,
// feeds P FMAs into P accumulators whose lanes each sum a fixed (row of
// the period, column) pair. At the end the accumulators, stored as R
// rows of N floats, are added row by row into the N column sums; rows
// past the last whole period run one masked row per step. Every lane
// holds a real product (no padding), so NaN and inf propagate exactly as
// in the reference; integer data (every partial sum exact) gives
// bit-identical results.
#include <immintrin.h>

#include "ops_optimized/gemm/gemm.h"

// P accumulators of U periods each keep at least four FMA chains in
// flight (the FMA latency) when a period has fewer than four vectors.
static inline __attribute__((always_inline)) void gemv_flat(
    size_t kc, const float *a, const float *b, float *c,
    const etr_gemm_epilogue_t *epilogue, const size_t n) {
  const size_t group = (n & 1) ? 1 : (n & 3) ? 2 : (n & 7) ? 4 : 8;
  const size_t vectors = n / group;   // P
  const size_t rows = 16 / group;     // R
  const size_t unroll = vectors >= 4 ? 1 : vectors == 3 ? 2 : 4;
  const __mmask16 row_mask = (__mmask16)((1u << rows) - 1u);
  const __mmask16 column_mask = (__mmask16)((1u << n) - 1u);

  __m512i expand[15];
  _Alignas(64) int32_t lanes[16];
#pragma GCC unroll 16
  for (size_t v = 0; v < vectors; ++v) {
#pragma GCC unroll 16
    for (size_t l = 0; l < 16; ++l) {
      lanes[l] = (int32_t)((16 * v + l) / n);
    }
    expand[v] = _mm512_load_si512(lanes);
  }
  __m512 sums[16];
#pragma GCC unroll 16
  for (size_t s = 0; s < unroll * vectors; ++s) {
    sums[s] = _mm512_setzero_ps();
  }

  size_t k = 0;
  for (; k + unroll * rows <= kc; k += unroll * rows) {
#pragma GCC unroll 4
    for (size_t u = 0; u < unroll; ++u) {
      const __m512 x = _mm512_maskz_loadu_ps(row_mask, a + k + u * rows);
      const float *period = b + (k + u * rows) * n;
#pragma GCC unroll 16
      for (size_t v = 0; v < vectors; ++v) {
        sums[u * vectors + v] =
            _mm512_fmadd_ps(_mm512_permutexvar_ps(expand[v], x),
                            _mm512_loadu_ps(period + 16 * v),
                            sums[u * vectors + v]);
      }
    }
  }
  for (; k + rows <= kc; k += rows) {
    const __m512 x = _mm512_maskz_loadu_ps(row_mask, a + k);
    const float *period = b + k * n;
#pragma GCC unroll 16
    for (size_t v = 0; v < vectors; ++v) {
      sums[v] = _mm512_fmadd_ps(_mm512_permutexvar_ps(expand[v], x),
                                _mm512_loadu_ps(period + 16 * v), sums[v]);
    }
  }
  // The last rows < R, one masked row each.
  __m512 total = _mm512_setzero_ps();
  for (; k < kc; ++k) {
    total = _mm512_fmadd_ps(_mm512_set1_ps(a[k]),
                            _mm512_maskz_loadu_ps(column_mask, b + k * n),
                            total);
  }
  _Alignas(64) float flat[16 * 15];
#pragma GCC unroll 16
  for (size_t v = 0; v < vectors; ++v) {
    __m512 sum = sums[v];
#pragma GCC unroll 4
    for (size_t u = 1; u < unroll; ++u) {
      sum = _mm512_add_ps(sum, sums[u * vectors + v]);
    }
    _mm512_store_ps(flat + 16 * v, sum);
  }
#pragma GCC unroll 16
  for (size_t r = 0; r < rows; ++r) {
    total = _mm512_add_ps(total,
                          _mm512_maskz_loadu_ps(column_mask, flat + r * n));
  }

  __m512 result = _mm512_mul_ps(_mm512_set1_ps(epilogue->alpha), total);
  if (epilogue->bias != NULL) {
    const __m512 bias =
        epilogue->bias_per_row
            ? _mm512_set1_ps(epilogue->bias[0])
            : _mm512_maskz_loadu_ps(column_mask, epilogue->bias);
    result = _mm512_fmadd_ps(_mm512_set1_ps(epilogue->beta), bias, result);
  }
  _mm512_mask_storeu_ps(c, column_mask, result);
}

#define GEMV_FLAT_CASE(width)                  \
  case width:                                  \
    gemv_flat(kc, a, b, c, epilogue, width);   \
    return true;

bool etr_gemm_f32_gemv_narrow_avx512(size_t kc, size_t n, const float *a,
                                     ptrdiff_t a_stride, const float *b,
                                     ptrdiff_t b_stride, float *c,
                                     const etr_gemm_epilogue_t *epilogue) {
  if (a_stride != 1 || b_stride != (ptrdiff_t)n) {
    return false;
  }
  switch (n) {
    GEMV_FLAT_CASE(1)
    GEMV_FLAT_CASE(2)
    GEMV_FLAT_CASE(3)
    GEMV_FLAT_CASE(4)
    GEMV_FLAT_CASE(5)
    GEMV_FLAT_CASE(6)
    GEMV_FLAT_CASE(7)
    GEMV_FLAT_CASE(8)
    GEMV_FLAT_CASE(9)
    GEMV_FLAT_CASE(10)
    GEMV_FLAT_CASE(11)
    GEMV_FLAT_CASE(12)
    GEMV_FLAT_CASE(13)
    GEMV_FLAT_CASE(14)
    GEMV_FLAT_CASE(15)
    default:
      return false;
  }
}

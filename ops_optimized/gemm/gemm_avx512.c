// SPDX-License-Identifier: Apache-2.0
//
// fp32 GEMM microkernel, AVX-512: a 12 x 32 tile of C in 24 zmm accumulators;
// per k step two vectors of B (32 columns) and 12 broadcasts of packed A, 24
// FMAs (2 per cycle on two FMA ports: 12 cycles, with the 14 loads well within
// two load ports). 12 rows rather than 14 (which runs as fast) because the
// models' row counts (16, 24, 48, 72, 96, 144, 192 channels or tokens) waste
// fewer rows in the last panel. Tiles with nr <= 16 run a half-width loop.
// Column edges use lane masks for B (so an unpacked B is never read past its nr
// columns), C and the bias; row edges compute on the zero-padded packed A and
// store only rows < mr, except that a packed tile of at most 4 or 8 rows
// runs only 4 or 8 (ROWS_4, ROWS_8). A second entry reads a row-major A in
// place (twelve row pointers, rows past mr repeating the last one): as fast
// as packed A, and it saves the packing, which costs as much as the
// product when N is small.
#include <immintrin.h>

#include "ops_optimized/gemm/gemm.h"

// The tile height and its rows, for ukernel_avx512.h.
#define MR 12
#define NR 32

#define ROWS(X) \
  X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)
#define ROWS_4(X) X(0) X(1) X(2) X(3)
#define ROWS_8(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)

#include "ops_optimized/gemm/ukernel_avx512.h"

UKERNEL_ENTRIES()

// y = alpha * a^T B + beta * bias for one row a (M = 1): 32 columns at a
// time, K split over four independent pairs of accumulators (an FMA chain
// per k would wait on the FMA latency), summed at the end. A narrow B
// stored densely goes to gemv_narrow_avx512.c.
void etr_gemm_f32_gemv_avx512(size_t kc, size_t n, const float *a,
                              ptrdiff_t a_stride, const float *b,
                              ptrdiff_t b_stride, float *c,
                              const etr_gemm_epilogue_t *epilogue) {
  if (n < 16 && etr_gemm_f32_gemv_narrow_avx512(kc, n, a, a_stride, b,
                                                b_stride, c, epilogue)) {
    return;
  }
  for (size_t j = 0; j < n; j += 32) {
    size_t nr = n - j < 32 ? n - j : 32;
    const __mmask16 m0 =
        nr >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << nr) - 1u);
    const __mmask16 m1 =
        nr >= 32 ? (__mmask16)0xffff
                 : nr > 16 ? (__mmask16)((1u << (nr - 16)) - 1u) : 0;
    const float *column = b + j;
    __m512 s0a = _mm512_setzero_ps();
    __m512 s0b = _mm512_setzero_ps();
    __m512 s1a = _mm512_setzero_ps();
    __m512 s1b = _mm512_setzero_ps();
    __m512 s2a = _mm512_setzero_ps();
    __m512 s2b = _mm512_setzero_ps();
    __m512 s3a = _mm512_setzero_ps();
    __m512 s3b = _mm512_setzero_ps();
#define GEMV_STEP(r)                                                        \
  {                                                                         \
    const __m512 x = _mm512_set1_ps(a[(ptrdiff_t)(k + (r)) * a_stride]);    \
    const float *row = column + (ptrdiff_t)(k + (r)) * b_stride;            \
    s##r##a = _mm512_fmadd_ps(x, _mm512_maskz_loadu_ps(m0, row), s##r##a);  \
    if (m1 != 0) {                                                          \
      s##r##b = _mm512_fmadd_ps(x, _mm512_maskz_loadu_ps(m1, row + 16),     \
                                s##r##b);                                   \
    }                                                                       \
  }
    size_t k = 0;
    for (; k + 4 <= kc; k += 4) {
      GEMV_STEP(0)
      GEMV_STEP(1)
      GEMV_STEP(2)
      GEMV_STEP(3)
    }
    for (; k < kc; ++k) {
      GEMV_STEP(0)
    }
#undef GEMV_STEP
    __m512 va = _mm512_add_ps(_mm512_add_ps(s0a, s1a),
                              _mm512_add_ps(s2a, s3a));
    __m512 vb = _mm512_add_ps(_mm512_add_ps(s0b, s1b),
                              _mm512_add_ps(s2b, s3b));
    const __m512 alpha = _mm512_set1_ps(epilogue->alpha);
    va = _mm512_mul_ps(alpha, va);
    vb = _mm512_mul_ps(alpha, vb);
    if (epilogue->bias != NULL) {
      const __m512 beta = _mm512_set1_ps(epilogue->beta);
      __m512 ba;
      __m512 bb;
      if (epilogue->bias_per_row) {
        ba = bb = _mm512_set1_ps(epilogue->bias[0]);
      } else {
        ba = _mm512_maskz_loadu_ps(m0, epilogue->bias + j);
        bb = m1 != 0 ? _mm512_maskz_loadu_ps(m1, epilogue->bias + j + 16)
                     : _mm512_setzero_ps();
      }
      va = _mm512_fmadd_ps(beta, ba, va);
      vb = _mm512_fmadd_ps(beta, bb, vb);
    }
    _mm512_mask_storeu_ps(c + j, m0, va);
    _mm512_mask_storeu_ps(c + j + 16, m1, vb);
  }
}

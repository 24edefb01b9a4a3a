// SPDX-License-Identifier: Apache-2.0
//
// fp32 GEMM microkernel, AVX-512: a 12 x 32 tile of C in 24 zmm
// accumulators; per k step two vectors of B (32 columns) and 12 broadcasts
// of packed A, 24 FMAs (2 per cycle on two FMA ports: 12 cycles, with the
// 14 loads well within two load ports). 12 rows rather than 14 (which
// runs as fast) because the models' row counts (16, 24, 48, 72, 96, 144,
// 192 channels or tokens) waste fewer rows in the last panel. Tiles with nr <= 16 run a
// half-width loop. Column edges use lane masks for B (so an unpacked B is
// never read past its nr columns), C and the bias; row edges compute on
// the zero-padded packed A and store only rows < mr.
#include <immintrin.h>

#include "ops_optimized/gemm/gemm.h"

#define MR 12

#define ROWS(X) \
  X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)

#define DECLARE(i)                    \
  __m512 c##i##a = _mm512_setzero_ps(); \
  __m512 c##i##b = _mm512_setzero_ps();

#define STEP_FULL(i)                                \
  {                                                 \
    const __m512 x = _mm512_set1_ps(a[i]);          \
    c##i##a = _mm512_fmadd_ps(x, b0, c##i##a);      \
    c##i##b = _mm512_fmadd_ps(x, b1, c##i##b);      \
  }

#define STEP_HALF(i) \
  c##i##a = _mm512_fmadd_ps(_mm512_set1_ps(a[i]), b0, c##i##a);

// Stores row i: optional C accumulation, alpha, beta * bias, masked store.
#define STORE(i)                                                           \
  if (i < mr) {                                                            \
    float *row = c + (ptrdiff_t)(i) * c_stride;                            \
    __m512 va = c##i##a;                                                   \
    __m512 vb = c##i##b;                                                   \
    if (accumulate) {                                                      \
      va = _mm512_add_ps(_mm512_maskz_loadu_ps(m0, row), va);              \
      vb = _mm512_add_ps(_mm512_maskz_loadu_ps(m1, row + 16), vb);         \
    }                                                                      \
    if (finish) {                                                          \
      va = _mm512_mul_ps(alpha, va);                                       \
      vb = _mm512_mul_ps(alpha, vb);                                       \
      if (bias != NULL) {                                                  \
        const float *bias_row = bias + (ptrdiff_t)(i) * bias_row_stride;   \
        __m512 ba;                                                         \
        __m512 bb;                                                         \
        if (bias_per_row) {                                                \
          ba = bb = _mm512_set1_ps(bias_row[0]);                           \
        } else {                                                           \
          ba = _mm512_maskz_loadu_ps(m0, bias_row);                        \
          bb = _mm512_maskz_loadu_ps(m1, bias_row + 16);                   \
        }                                                                  \
        va = _mm512_fmadd_ps(beta, ba, va);                                \
        vb = _mm512_fmadd_ps(beta, bb, vb);                                \
      }                                                                    \
    }                                                                      \
    _mm512_mask_storeu_ps(row, m0, va);                                    \
    _mm512_mask_storeu_ps(row + 16, m1, vb);                               \
  }

void etr_gemm_f32_ukernel_avx512(size_t kc, const float *a, const float *b,
                                 ptrdiff_t b_stride, float *c,
                                 ptrdiff_t c_stride, size_t mr, size_t nr,
                                 unsigned flags,
                                 const etr_gemm_epilogue_t *epilogue) {
  const __mmask16 m0 =
      nr >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << nr) - 1u);
  const __mmask16 m1 =
      nr >= 32 ? (__mmask16)0xffff
               : nr > 16 ? (__mmask16)((1u << (nr - 16)) - 1u) : 0;
  ROWS(DECLARE)
  if (flags & ETR_GEMM_ACCUMULATE) {  // C is read at the end: fetch it now
    for (size_t i = 0; i < mr; ++i) {
      _mm_prefetch((const char *)(c + (ptrdiff_t)i * c_stride), _MM_HINT_T0);
      _mm_prefetch((const char *)(c + (ptrdiff_t)i * c_stride + 16),
                   _MM_HINT_T0);
    }
  }
  if (nr > 16) {
    for (size_t k = 0; k < kc; ++k) {
      const __m512 b0 = _mm512_maskz_loadu_ps(m0, b);
      const __m512 b1 = _mm512_maskz_loadu_ps(m1, b + 16);
      ROWS(STEP_FULL)
      a += MR;
      b += b_stride;
    }
  } else {
    for (size_t k = 0; k < kc; ++k) {
      const __m512 b0 = _mm512_maskz_loadu_ps(m0, b);
      ROWS(STEP_HALF)
      a += MR;
      b += b_stride;
    }
  }
  const bool accumulate = (flags & ETR_GEMM_ACCUMULATE) != 0;
  const bool finish = (flags & ETR_GEMM_EPILOGUE) != 0;
  const __m512 alpha = _mm512_set1_ps(epilogue->alpha);
  const __m512 beta = _mm512_set1_ps(epilogue->beta);
  const float *bias = epilogue->bias;
  const ptrdiff_t bias_row_stride = epilogue->bias_row_stride;
  const bool bias_per_row = epilogue->bias_per_row;
  ROWS(STORE)
}

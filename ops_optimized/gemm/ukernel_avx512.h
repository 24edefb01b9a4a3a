// SPDX-License-Identifier: Apache-2.0
//
// The body of the AVX-512 fp32 GEMM microkernels, shared by the 12 x 32
// (gemm_avx512.c), 8 x 32 (gemm_narrow_avx512.c) and 8 x 48
// (gemm_8x48_avx512.c) tiles: the includer defines MR, NR (32 or 48: two
// or three vectors of columns) and ROWS(X) (X applied to each row index),
// then UKERNEL_ENTRIES(TAG) (at the end) defines the tile's entry points.
// Include only from *_avx512.c files, once.
#ifndef ETR_OPS_OPTIMIZED_GEMM_UKERNEL_AVX512_H
#define ETR_OPS_OPTIMIZED_GEMM_UKERNEL_AVX512_H

#include <immintrin.h>

#include "ops_optimized/gemm/gemm.h"

#if NR == 48
#define DECLARE(i)                      \
  __m512 c##i##a = _mm512_setzero_ps(); \
  __m512 c##i##b = _mm512_setzero_ps(); \
  __m512 c##i##c = _mm512_setzero_ps();
#else
#define DECLARE(i)                      \
  __m512 c##i##a = _mm512_setzero_ps(); \
  __m512 c##i##b = _mm512_setzero_ps();
#endif

// One k step of row i: A[i][k] (ROW(i) its address) broadcast, times B's
// vectors b0, b1, b2 (as many as the tile has) into row i's accumulators.
#define STEP_WIDE(i, ROW)                           \
  {                                                 \
    const __m512 x = _mm512_set1_ps(*ROW(i));       \
    c##i##a = _mm512_fmadd_ps(x, b0, c##i##a);      \
    c##i##b = _mm512_fmadd_ps(x, b1, c##i##b);      \
    c##i##c = _mm512_fmadd_ps(x, b2, c##i##c);      \
  }
#define STEP_FULL(i, ROW)                           \
  {                                                 \
    const __m512 x = _mm512_set1_ps(*ROW(i));       \
    c##i##a = _mm512_fmadd_ps(x, b0, c##i##a);      \
    c##i##b = _mm512_fmadd_ps(x, b1, c##i##b);      \
  }
#define STEP_HALF(i, ROW) \
  c##i##a = _mm512_fmadd_ps(_mm512_set1_ps(*ROW(i)), b0, c##i##a);

// Where A[i][k] is, per way of reading A (the MODE of UKERNEL_BODY): P, a
// packed panel (a advances MR a step); D, rows read in place (row
// pointers a0.. from ROW_POINTER, `step` the k index).
#define A_ROW_P(i) (a + (i))
#define A_ROW_D(i) (a##i + step)
#define STEP_WIDE_P(i) STEP_WIDE(i, A_ROW_P)
#define STEP_WIDE_D(i) STEP_WIDE(i, A_ROW_D)
#define STEP_FULL_P(i) STEP_FULL(i, A_ROW_P)
#define STEP_FULL_D(i) STEP_FULL(i, A_ROW_D)
#define STEP_HALF_P(i) STEP_HALF(i, A_ROW_P)
#define STEP_HALF_D(i) STEP_HALF(i, A_ROW_D)

// Stores one vector of row i's sums (`value`, the lanes of `mask`, at
// column `offset` of the tile): optional C accumulation, alpha, beta *
// bias, the fused post (gemm.h; max/min are the clamp's selections bit for
// bit), masked store.
#define STORE_VECTOR(i, value, mask, offset)                             \
  {                                                                      \
    float *row = c + (ptrdiff_t)(i) * c_stride + (offset);               \
    __m512 v = (value);                                                  \
    if (accumulate) {                                                    \
      v = _mm512_add_ps(_mm512_maskz_loadu_ps(mask, row), v);            \
    }                                                                    \
    if (finish) {                                                        \
      v = _mm512_mul_ps(alpha, v);                                       \
      if (bias != NULL) {                                                \
        const float *bias_row = bias + (ptrdiff_t)(i) * bias_row_stride; \
        const __m512 bv =                                                \
            bias_per_row ? _mm512_set1_ps(bias_row[0])                   \
                         : _mm512_maskz_loadu_ps(mask, bias_row + (offset)); \
        v = _mm512_fmadd_ps(beta, bv, v);                                \
      }                                                                  \
      if (post_scale != NULL) {                                          \
        v = _mm512_fmadd_ps(v, _mm512_set1_ps(post_scale[i]),            \
                            _mm512_set1_ps(post_shift[i]));              \
      }                                                                  \
      if (post_clamp) {                                                  \
        v = _mm512_min_ps(post_high, _mm512_max_ps(post_low, v));        \
      }                                                                  \
    }                                                                    \
    _mm512_mask_storeu_ps(row, mask, v);                                 \
  }

// Stores row i (its rows past mr are not stored).
#if NR == 48
#define STORE(i)                        \
  if (i < mr) {                         \
    STORE_VECTOR(i, c##i##a, m0, 0)     \
    STORE_VECTOR(i, c##i##b, m1, 16)    \
    if (m2 != 0) {                      \
      STORE_VECTOR(i, c##i##c, m2, 32)  \
    }                                   \
  }
#else
#define STORE(i)                        \
  if (i < mr) {                         \
    STORE_VECTOR(i, c##i##a, m0, 0)     \
    STORE_VECTOR(i, c##i##b, m1, 16)    \
  }
#endif

// One k loop over the tile's B vectors b0, b1, b2 (loaded by the
// expressions LOAD0..LOAD2; a narrower tile repeats b0 for those it does
// not use), ROW_STEP for each row. Full vectors are loaded unmasked: on
// the Intel Xeon of 2026-12-03 (family 6 model 167) a masked load in the
// loop cost mm 256^3 8%, 512^3 to 1024^3 3% (paired gemm_bench rounds).
#define K_LOOP(RS, ROW_STEP, A_STEP, USED, LOAD0, LOAD1, LOAD2)     \
  _Pragma("GCC unroll 4") for (size_t k = 0; k < kc; ++k) {        \
    const __m512 b0 = LOAD0;                                       \
    const __m512 b1 = LOAD1;                                       \
    const __m512 b2 = LOAD2;                                       \
    (void)b1;                                                      \
    (void)b2;                                                      \
    PACK_ROW USED                                                  \
    RS(ROW_STEP)                                                   \
    A_STEP;                                                        \
    b += b_stride;                                                 \
  }

// With three vectors of columns: the loops over all three when the tile
// has more than 32 columns (the two-vector and one-vector loops below
// take the narrower tiles), and the third vector's lane mask.
#if NR == 48
#define WIDE_MASK                                                  \
  const __mmask16 m2 =                                             \
      nr >= 48 ? (__mmask16)0xffff                                 \
               : nr > 32 ? (__mmask16)((1u << (nr - 32)) - 1u) : 0;
#define WIDE_LOOP(RS, MODE, A_STEP)                                \
  if (nr == 48) {                                                  \
    K_LOOP(RS, STEP_WIDE_##MODE, A_STEP, (b0, b1, b2),             \
           _mm512_loadu_ps(b), _mm512_loadu_ps(b + 16),            \
           _mm512_loadu_ps(b + 32))                                \
  } else if (nr > 32) {                                            \
    K_LOOP(RS, STEP_WIDE_##MODE, A_STEP, (b0, b1, b2),             \
           _mm512_loadu_ps(b), _mm512_loadu_ps(b + 16),            \
           _mm512_maskz_loadu_ps(m2, b + 32))                      \
  } else
#else
#define WIDE_MASK
#define WIDE_LOOP(RS, MODE, A_STEP)
#endif

// The two- and three-vector k loops are unrolled 4 times: the loop's own
// counter, pointer and branch uops per k step competed with the FMAs for
// their ports (mm 512^3 and 1024^3 +3%, conv nchw 64x56^2 k3 +5%: old and
// new gemm_bench run at once on the two CPUs, swapped each round, medians
// of 6 paired ratios, Intel Xeon; unrolling 8 times gained nothing more,
// prefetching B's rows 8 steps ahead lost 1-3%).
// The microkernel body: MODE (P or D above) says how A is read,
// A_STEP advances it by one k step. PACK is NULL, or where to write the B
// rows read (an NR-wide packed panel, zeros past nr): the packing of B
// fused into the first row panel's products (gemm.c), each row
// prefetched PACK_AHEAD rows before its use.
#define PACK_AHEAD 16
#define PACK_ROW(...)                                                      \
  if (pack != NULL) {                                                      \
    const __m512 row_vectors[NR / 16] = {__VA_ARGS__};                     \
    _Pragma("GCC unroll 3") for (int v = 0; v < NR / 16; ++v) {            \
      _mm_prefetch((const char *)(b + PACK_AHEAD * b_stride + 16 * v),     \
                   _MM_HINT_T0);                                           \
      _mm512_storeu_ps(pack + 16 * v, row_vectors[v]);                     \
    }                                                                      \
    pack += NR;                                                            \
  }
// The lane masks of the tile's column vectors (nr columns): m0, m1 and,
// three vectors wide, m2.
#define COLUMN_MASKS                                                       \
  const __mmask16 m0 =                                                     \
      nr >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << nr) - 1u);         \
  const __mmask16 m1 =                                                     \
      nr >= 32 ? (__mmask16)0xffff                                         \
               : nr > 16 ? (__mmask16)((1u << (nr - 16)) - 1u) : 0;        \
  WIDE_MASK

// The k loop for the tile's columns: three, two (full or masked) or one
// vector of B per step; `pack` (NULL or the B panel to write) in scope.
#define K_LOOPS(RS, MODE, A_STEP)                                          \
  WIDE_LOOP(RS, MODE, A_STEP)                                              \
  if (nr == 32) {                                                          \
    K_LOOP(RS, STEP_FULL_##MODE, A_STEP, (b0, b1), _mm512_loadu_ps(b),     \
           _mm512_loadu_ps(b + 16), b0)                                    \
  } else if (nr > 16) {                                                    \
    K_LOOP(RS, STEP_FULL_##MODE, A_STEP, (b0, b1),                         \
           _mm512_maskz_loadu_ps(m0, b), _mm512_maskz_loadu_ps(m1, b + 16),  \
           b0)                                                             \
  } else {                                                                 \
    for (size_t k = 0; k < kc; ++k) {                                      \
      const __m512 b0 = _mm512_maskz_loadu_ps(m0, b);                      \
      PACK_ROW(b0)                                                         \
      RS(STEP_HALF_##MODE)                                                 \
      A_STEP;                                                              \
      b += b_stride;                                                       \
    }                                                                      \
  }

#define UKERNEL_BODY(RS, MODE, A_STEP, PACK)                               \
  COLUMN_MASKS                                                             \
  float *pack = (PACK);                                                    \
  RS(DECLARE)                                                              \
  if (flags & ETR_GEMM_ACCUMULATE) { /* C is read at the end */            \
    for (size_t i = 0; i < mr; ++i) {                                      \
      _mm_prefetch((const char *)(c + (ptrdiff_t)i * c_stride),            \
                   _MM_HINT_T0);                                           \
      _mm_prefetch((const char *)(c + (ptrdiff_t)i * c_stride + 16),       \
                   _MM_HINT_T0);                                           \
    }                                                                      \
  }                                                                        \
  K_LOOPS(RS, MODE, A_STEP)                                                \
  const bool accumulate = (flags & ETR_GEMM_ACCUMULATE) != 0;              \
  const bool finish = (flags & ETR_GEMM_EPILOGUE) != 0;                    \
  const __m512 alpha = _mm512_set1_ps(epilogue->alpha);                    \
  const __m512 beta = _mm512_set1_ps(epilogue->beta);                      \
  const float *bias = epilogue->bias;                                      \
  const ptrdiff_t bias_row_stride = epilogue->bias_row_stride;             \
  const bool bias_per_row = epilogue->bias_per_row;                        \
  const float *post_scale = epilogue->post_scale;                          \
  const float *post_shift = epilogue->post_shift;                          \
  const bool post_clamp = epilogue->post_clamp;                            \
  const __m512 post_low = _mm512_set1_ps(epilogue->post_low);              \
  const __m512 post_high = _mm512_set1_ps(epilogue->post_high);            \
  RS(STORE)

// A tile of a packed A's last row panel with few rows (ROWS_4 and ROWS_8,
// where the includer defines them: the 12-row tile) runs only those rows
// of the panel, still MR apart, instead of all MR on its zero padding: mm
// 256^3's last panel has 4 rows of 12 (3% of its FMAs wasted), 512^3's 8.
#ifdef ROWS_4
#define PACKED_SHORT_TILES                                                  \
  if (mr <= 4) {                                                            \
    UKERNEL_BODY(ROWS_4, P, a += MR, NULL)                                  \
    return;                                                                 \
  }                                                                         \
  if (mr <= 8) {                                                            \
    UKERNEL_BODY(ROWS_8, P, a += MR, NULL)                                  \
    return;                                                                 \
  }
#else
#define PACKED_SHORT_TILES
#endif

// Row i of A read in place (rows past mr repeat row mr - 1, so nothing
// outside A is read; their sums are not stored).
#define ROW_POINTER(i)                                                      \
  const float *a##i = a + (ptrdiff_t)((i) < mr ? (i) : mr - 1) * a_stride;

// A tile of A read in place with at most 4 rows runs only those 4 rows
// (rows past mr repeat row mr - 1 and are not stored, but the full tile
// computed them): the MLP's 4-row products ([4, 64] x [64, 64] + bias)
// ran all 8 rows of the 8 x 32 tile, half its FMAs on copies.
#define DIRECT_ROWS_4(X) X(0) X(1) X(2) X(3)
#define DIRECT_SHORT_TILES                     \
  if (mr <= 4) {                               \
    DIRECT_ROWS_4(ROW_POINTER)                 \
    size_t step = 0;                           \
    UKERNEL_BODY(DIRECT_ROWS_4, D, ++step, NULL) \
    return;                                    \
  }

// The tile's three entry points (gemm.h), etr_gemm_f32_ukernel<TAG>_avx512
// and its _pack_b and _direct_a forms: packed A and B; packed A with B
// read in place and written to `packed`; A read in place.
#define UKERNEL_ENTRIES(TAG)                                                 \
  void etr_gemm_f32_ukernel##TAG##_avx512(                                   \
      size_t kc, const float *a, const float *b, ptrdiff_t b_stride,         \
      float *c, ptrdiff_t c_stride, size_t mr, size_t nr, unsigned flags,    \
      const etr_gemm_epilogue_t *epilogue) {                                 \
    PACKED_SHORT_TILES                                                       \
    UKERNEL_BODY(ROWS, P, a += MR, NULL)                                     \
  }                                                                          \
  void etr_gemm_f32_ukernel##TAG##_pack_b_avx512(                            \
      size_t kc, const float *a, const float *b, ptrdiff_t b_stride,         \
      float *c, ptrdiff_t c_stride, size_t mr, size_t nr, unsigned flags,    \
      const etr_gemm_epilogue_t *epilogue, float *packed) {                  \
    UKERNEL_BODY(ROWS, P, a += MR, packed)                                   \
  }                                                                          \
  void etr_gemm_f32_ukernel##TAG##_direct_a_avx512(                          \
      size_t kc, const float *a, ptrdiff_t a_stride, const float *b,         \
      ptrdiff_t b_stride, float *c, ptrdiff_t c_stride, size_t mr,           \
      size_t nr, unsigned flags, const etr_gemm_epilogue_t *epilogue) {      \
    DIRECT_SHORT_TILES                                                       \
    ROWS(ROW_POINTER)                                                        \
    size_t step = 0;                                                         \
    UKERNEL_BODY(ROWS, D, ++step, NULL)                                      \
  }

#endif  // ETR_OPS_OPTIMIZED_GEMM_UKERNEL_AVX512_H

// SPDX-License-Identifier: Apache-2.0
//
// etr_conv_pairs_tile_fn (conv.h), AVX-512: the GEMM microkernel's k loop
// (gemm/ukernel_avx512.h) on the packed weight and the input read in
// place, then each (oc, i)'s two rows (taps j = 0 and 1) interleaved by
// two vpermt2ps per vector of pixels and stored under the runs' lane
// masks straight into the out. A 2x2 stride-2 up-sampling layer otherwise
// stores its sums to a cols block and reads them back to interleave them
// (put_pairs: 14% of 64 -> 32 channels on 28x28 in perf) and packs the
// input for the GEMM.
//
// The includer defines MR, NR and ROWS(X) as for ukernel_avx512.h and
// PAIRS(X) (X(i, i + 1) for each pair of rows), includes
// gemm/ukernel_avx512.h, then this header, then writes
// PAIRS_TILE_ENTRY(TAG). Include only from *_avx512.c files, once.
#ifndef ETR_OPS_OPTIMIZED_CONV_PAIRS_TILE_AVX512_H
#define ETR_OPS_OPTIMIZED_CONV_PAIRS_TILE_AVX512_H

#include <immintrin.h>

#include "ops_optimized/conv/conv.h"

// Stores vector v of a pair's interleaved outs (`value`) at `base`.
static inline void put_runs(float *base, const etr_conv_pairs_runs_t *runs,
                            int v, __m512 value) {
  for (int r = 0; r < runs->count[v]; ++r) {
    _mm512_mask_storeu_ps(base + runs->offset[v][r],
                          (__mmask16)runs->mask[v][r], value);
  }
}

// The sums of the K blocks before the last, as etr_gemm keeps them in C:
// the first block's stored, each later one's added (C + chain).
#define SAVE_VECTOR(i, v, offset)                                         \
  if (!first) {                                                           \
    c##i##v = _mm512_add_ps(_mm512_loadu_ps(partial + (i) * NR + (offset)), \
                            c##i##v);                                     \
  }                                                                       \
  if (!last) {                                                            \
    _mm512_storeu_ps(partial + (i) * NR + (offset), c##i##v);             \
  }
#if NR == 48
#define SAVE_PARTIAL(i) \
  SAVE_VECTOR(i, a, 0) SAVE_VECTOR(i, b, 16) SAVE_VECTOR(i, c, 32)
#else
#define SAVE_PARTIAL(i) SAVE_VECTOR(i, a, 0) SAVE_VECTOR(i, b, 16)
#endif

// One vector of pixels of rows i (tap j = 0) and j (tap 1): (sum + 0) +
// bias lane by lane, then interleaved into vectors v and v + 1.
#define PUT_VECTOR(x, y, v)                                              \
  {                                                                      \
    const __m512 even = _mm512_add_ps(_mm512_add_ps(x, zero), bias);     \
    const __m512 odd = _mm512_add_ps(_mm512_add_ps(y, zero), bias);      \
    put_runs(base, runs, (v), _mm512_permutex2var_ps(even, low, odd));   \
    put_runs(base, runs, (v) + 1, _mm512_permutex2var_ps(even, high, odd)); \
  }
#if NR == 48
#define PUT_THIRD(i, j) PUT_VECTOR(c##i##c, c##j##c, 4)
#else
#define PUT_THIRD(i, j)
#endif
// Rows i and j = i + 1: out channel oc, kernel row r, taps 0 and 1.
#define PUT_PAIR(i, j)                                                   \
  if ((i) < mr) {                                                        \
    float bias_value;                                                    \
    float *base = etr_conv_pairs_base(t, row0 + (i), &bias_value);       \
    const __m512 bias = _mm512_set1_ps(bias_value);                      \
    PUT_VECTOR(c##i##a, c##j##a, 0)                                      \
    PUT_VECTOR(c##i##b, c##j##b, 2)                                      \
    PUT_THIRD(i, j)                                                      \
  }

#define PAIRS_TILE_ENTRY(TAG)                                              \
  void etr_conv_pairs_tile##TAG##_avx512(                                  \
      const etr_conv_pairs_tile_t *t, size_t row0, size_t mr, size_t p0,   \
      size_t nr, const etr_conv_pairs_runs_t *runs) {                      \
    COLUMN_MASKS                                                           \
    float *pack = NULL;                                                    \
    const ptrdiff_t b_stride = t->b_stride;                                \
    const float *b = t->b + p0;                                            \
    float partial[MR * NR];                                                \
    for (size_t pc = 0; pc < t->k;) {                                      \
      const size_t kc = t->k - pc < t->kc ? t->k - pc : t->kc;             \
      const float *a = t->panels + pc * t->rows + row0 * kc;               \
      const bool first = pc == 0;                                          \
      pc += kc;                                                            \
      const bool last = pc >= t->k;                                        \
      ROWS(DECLARE)                                                        \
      K_LOOPS(ROWS, P, a += MR)                                            \
      ROWS(SAVE_PARTIAL)                                                   \
      if (last) {                                                          \
        const __m512i low = _mm512_setr_epi32(                             \
            0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);       \
        const __m512i high = _mm512_add_epi32(low, _mm512_set1_epi32(8));  \
        const __m512 zero = _mm512_setzero_ps();                           \
        PAIRS(PUT_PAIR)                                                    \
      }                                                                    \
    }                                                                      \
  }

#endif  // ETR_OPS_OPTIMIZED_CONV_PAIRS_TILE_AVX512_H

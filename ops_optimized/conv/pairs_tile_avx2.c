// SPDX-License-Identifier: Apache-2.0
//
// etr_conv_pairs_tile_6x16_avx2 (conv.h): the exact-pairs transposed
// convolution tile on a weight packed for the AVX2 6 x 16 GEMM
// microkernel (gemm/ukernel_avx2.h's k loop, the input read in place),
// each (oc, i)'s two tap rows interleaved in registers (unpack, then
// lane-half permutes) and stored straight into the out: whole vectors
// where a run covers them, vmaskmovps for the rest. The AVX-512 tiles are
// pairs_tile_avx512.h's.
#include <immintrin.h>
#include <stdbool.h>
#include <stdint.h>

#include "ops_optimized/conv/conv.h"
#include "ops_optimized/gemm/ukernel_avx2.h"

// Lanes of the 8-bit mask m as a vmaskmovps mask.
static inline __m256i lanes_of(unsigned m) {
  const __m256i bits = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
  return _mm256_cmpeq_epi32(
      _mm256_and_si256(_mm256_set1_epi32((int32_t)m), bits), bits);
}

// Lanes `m` of `value` to at[lane]: a whole store, or vmaskmovps. Storing
// a partial run float by float instead made 64 -> 32 channels on 28x28
// 11% slower on the Intel Xeon (ETREF_ISA=avx2); AMD Zen, where
// vmaskmovps stores are slow, is not measured.
static inline void put8(float *at, unsigned m, __m256 value) {
  if (m == 0xffu) {
    _mm256_storeu_ps(at, value);
  } else if (m != 0) {
    _mm256_maskstore_ps(at, lanes_of(m), value);
  }
}

// Vector v (8 pixels, 16 outs: `low` and `high`) of a pair's interleaved
// outs stored at `base`.
static inline void put_runs(float *base, const etr_conv_pairs_runs_t *runs,
                            int v, __m256 low, __m256 high) {
  for (int r = 0; r < runs->count[v]; ++r) {
    float *at = base + runs->offset[v][r];
    const unsigned m = runs->mask[v][r];
    put8(at, m & 0xffu, low);
    put8(at + 8, m >> 8, high);
  }
}

// 8 pixels of rows i (tap 0, x) and i + 1 (tap 1, y): (sum + 0) + bias
// lane by lane, then interleaved.
static inline void put_vector(float *base, const etr_conv_pairs_runs_t *runs,
                              int v, __m256 x, __m256 y, __m256 bias) {
  const __m256 zero = _mm256_setzero_ps();
  const __m256 even = _mm256_add_ps(_mm256_add_ps(x, zero), bias);
  const __m256 odd = _mm256_add_ps(_mm256_add_ps(y, zero), bias);
  const __m256 lo = _mm256_unpacklo_ps(even, odd);  // pixels 0, 1 | 4, 5
  const __m256 hi = _mm256_unpackhi_ps(even, odd);  // pixels 2, 3 | 6, 7
  put_runs(base, runs, v, _mm256_permute2f128_ps(lo, hi, 0x20),
           _mm256_permute2f128_ps(lo, hi, 0x31));
}

#define SAVE_PARTIAL(i)                                                  \
  if (!first) {                                                          \
    c##i##a = _mm256_add_ps(_mm256_loadu_ps(partial + (i) * 16), c##i##a); \
    c##i##b =                                                            \
        _mm256_add_ps(_mm256_loadu_ps(partial + (i) * 16 + 8), c##i##b);  \
  }                                                                      \
  if (!last) {                                                           \
    _mm256_storeu_ps(partial + (i) * 16, c##i##a);                       \
    _mm256_storeu_ps(partial + (i) * 16 + 8, c##i##b);                   \
  }

#define PUT_PAIR(i, j)                                                   \
  if ((i) < mr) {                                                        \
    float bias_value;                                                    \
    float *base = etr_conv_pairs_base(t, row0 + (i), &bias_value);       \
    const __m256 bias = _mm256_set1_ps(bias_value);                      \
    put_vector(base, runs, 0, c##i##a, c##j##a, bias);                   \
    put_vector(base, runs, 1, c##i##b, c##j##b, bias);                   \
  }

#define A_ROW(i) (a + (i))
#define A_STEP a += MR

void etr_conv_pairs_tile_6x16_avx2(const etr_conv_pairs_tile_t *t,
                                   size_t row0, size_t mr, size_t p0,
                                   size_t nr,
                                   const etr_conv_pairs_runs_t *runs) {
  const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i k0 =
      _mm256_cmpgt_epi32(_mm256_set1_epi32((int32_t)nr), lanes);
  const __m256i k1 =
      _mm256_cmpgt_epi32(_mm256_set1_epi32((int32_t)nr - 8), lanes);
  const ptrdiff_t b_stride = t->b_stride;
  const float *b = t->b + p0;
  float partial[MR * 16];
  for (size_t pc = 0; pc < t->k;) {
    const size_t kc = t->k - pc < t->kc ? t->k - pc : t->kc;
    const float *a = t->panels + pc * t->rows + row0 * kc;
    const bool first = pc == 0;
    pc += kc;
    const bool last = pc >= t->k;
    ROWS(DECLARE)
    if (nr == 16) {
      K_LOOP(_mm256_loadu_ps(b), _mm256_loadu_ps(b + 8), STEP_FULL)
    } else if (nr > 8) {
      K_LOOP(_mm256_maskload_ps(b, k0), _mm256_maskload_ps(b + 8, k1),
             STEP_FULL)
    } else {
      K_LOOP(_mm256_maskload_ps(b, k0), b0, STEP_HALF)
    }
    ROWS(SAVE_PARTIAL)
    if (last) {
      PUT_PAIR(0, 1)
      PUT_PAIR(2, 3)
      PUT_PAIR(4, 5)
    }
  }
}

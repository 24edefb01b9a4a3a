// SPDX-License-Identifier: Apache-2.0
//
// Reduction microkernels, AVX-512 (F, BW, DQ, VL): 16 fp32 lanes, sums in
// 8-lane double accumulators, every tail a lane mask (nothing past a row
// or a column block is touched). Semantics in reduce.h.
#include <immintrin.h>
#include <math.h>

#include "ops_optimized/reduce/reduce.h"

#define ALWAYS_INLINE static inline __attribute__((always_inline))

ALWAYS_INLINE __mmask16 mask16(size_t count) {
  return count >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << count) - 1u);
}

ALWAYS_INLINE __mmask8 mask8(size_t count) {
  return count >= 8 ? (__mmask8)0xff : (__mmask8)((1u << count) - 1u);
}

// --- sums in double -------------------------------------------------------

ALWAYS_INLINE __m512d widen(__mmask8 m, const float *p) {
  return _mm512_cvtps_pd(_mm256_maskz_loadu_ps(m, p));
}

static void sum_rows_avx512(size_t rows, size_t n, const float *x,
                            double *y) {
  size_t o = 0;
  if (n <= 16) {  // eight short rows at a time (sum_rows_short_avx512.c)
    o = etr_reduce_sum_short_rows_avx512(rows, n, x, y);
    x += o * n;
  }
  for (; o < rows; ++o, x += n) {
    __m512d a0 = _mm512_setzero_pd();
    __m512d a1 = _mm512_setzero_pd();
    __m512d a2 = _mm512_setzero_pd();
    __m512d a3 = _mm512_setzero_pd();
    size_t j = 0;
    for (; j + 32 <= n; j += 32) {
      a0 = _mm512_add_pd(a0, _mm512_cvtps_pd(_mm256_loadu_ps(x + j)));
      a1 = _mm512_add_pd(a1, _mm512_cvtps_pd(_mm256_loadu_ps(x + j + 8)));
      a2 = _mm512_add_pd(a2, _mm512_cvtps_pd(_mm256_loadu_ps(x + j + 16)));
      a3 = _mm512_add_pd(a3, _mm512_cvtps_pd(_mm256_loadu_ps(x + j + 24)));
    }
    for (; j < n; j += 8) {
      a0 = _mm512_add_pd(a0, widen(mask8(n - j), x + j));
    }
    y[o] = _mm512_reduce_add_pd(
        _mm512_add_pd(_mm512_add_pd(a0, a1), _mm512_add_pd(a2, a3)));
  }
}

static void sum_cols_avx512(size_t r, size_t n, size_t stride,
                            const float *x, double *y) {
  for (size_t i = 0; i < n; i += 32) {
    size_t left = n - i;
    __mmask8 m0 = mask8(left);
    __mmask8 m1 = left > 8 ? mask8(left - 8) : 0;
    __mmask8 m2 = left > 16 ? mask8(left - 16) : 0;
    __mmask8 m3 = left > 24 ? mask8(left - 24) : 0;
    __m512d a0 = _mm512_setzero_pd();
    __m512d a1 = _mm512_setzero_pd();
    __m512d a2 = _mm512_setzero_pd();
    __m512d a3 = _mm512_setzero_pd();
    const float *p = x + i;
    for (size_t j = 0; j < r; ++j, p += stride) {
      a0 = _mm512_add_pd(a0, widen(m0, p));
      a1 = _mm512_add_pd(a1, widen(m1, p + 8));
      a2 = _mm512_add_pd(a2, widen(m2, p + 16));
      a3 = _mm512_add_pd(a3, widen(m3, p + 24));
    }
    _mm512_mask_storeu_pd(y + i, m0, a0);
    _mm512_mask_storeu_pd(y + i + 8, m1, a1);
    _mm512_mask_storeu_pd(y + i + 16, m2, a2);
    _mm512_mask_storeu_pd(y + i + 24, m3, a3);
  }
}

ALWAYS_INLINE __m512d square_dev(__m512d acc, __mmask8 m, const float *p,
                                 __m512d mean) {
  __m512d d = _mm512_maskz_sub_pd(m, widen(m, p), mean);
  return _mm512_fmadd_pd(d, d, acc);
}

static void sumsq_rows_avx512(size_t rows, size_t n, const float *x,
                              const double *mean, double *y) {
  for (size_t o = 0; o < rows; ++o, x += n) {
    __m512d mu = _mm512_set1_pd(mean[o]);
    __m512d a0 = _mm512_setzero_pd();
    __m512d a1 = _mm512_setzero_pd();
    __m512d a2 = _mm512_setzero_pd();
    __m512d a3 = _mm512_setzero_pd();
    size_t j = 0;
    for (; j + 32 <= n; j += 32) {
      a0 = square_dev(a0, 0xff, x + j, mu);
      a1 = square_dev(a1, 0xff, x + j + 8, mu);
      a2 = square_dev(a2, 0xff, x + j + 16, mu);
      a3 = square_dev(a3, 0xff, x + j + 24, mu);
    }
    for (; j < n; j += 8) {
      a0 = square_dev(a0, mask8(n - j), x + j, mu);
    }
    y[o] = _mm512_reduce_add_pd(
        _mm512_add_pd(_mm512_add_pd(a0, a1), _mm512_add_pd(a2, a3)));
  }
}

static void sumsq_cols_avx512(size_t r, size_t n, size_t stride,
                              const float *x, const double *mean,
                              double *y) {
  for (size_t i = 0; i < n; i += 32) {
    size_t left = n - i;
    __mmask8 m0 = mask8(left);
    __mmask8 m1 = left > 8 ? mask8(left - 8) : 0;
    __mmask8 m2 = left > 16 ? mask8(left - 16) : 0;
    __mmask8 m3 = left > 24 ? mask8(left - 24) : 0;
    __m512d mu0 = _mm512_maskz_loadu_pd(m0, mean + i);
    __m512d mu1 = _mm512_maskz_loadu_pd(m1, mean + i + 8);
    __m512d mu2 = _mm512_maskz_loadu_pd(m2, mean + i + 16);
    __m512d mu3 = _mm512_maskz_loadu_pd(m3, mean + i + 24);
    __m512d a0 = _mm512_setzero_pd();
    __m512d a1 = _mm512_setzero_pd();
    __m512d a2 = _mm512_setzero_pd();
    __m512d a3 = _mm512_setzero_pd();
    const float *p = x + i;
    for (size_t j = 0; j < r; ++j, p += stride) {
      a0 = square_dev(a0, m0, p, mu0);
      a1 = square_dev(a1, m1, p + 8, mu1);
      a2 = square_dev(a2, m2, p + 16, mu2);
      a3 = square_dev(a3, m3, p + 24, mu3);
    }
    _mm512_mask_storeu_pd(y + i, m0, a0);
    _mm512_mask_storeu_pd(y + i + 8, m1, a1);
    _mm512_mask_storeu_pd(y + i + 16, m2, a2);
    _mm512_mask_storeu_pd(y + i + 24, m3, a3);
  }
}

// --- max / min --------------------------------------------------------------

// Lanes where `v` replaces `best` in a sequential scan (within `active`):
// best is not NaN and v is better or NaN (NLE_UQ / NGE_UQ hold for NaN).
ALWAYS_INLINE __mmask16 replaces(__mmask16 active, __m512 v, __m512 best,
                                 bool is_max) {
  __mmask16 ordered =
      _mm512_mask_cmp_ps_mask(active, best, best, _CMP_ORD_Q);
  return is_max ? _mm512_mask_cmp_ps_mask(ordered, v, best, _CMP_NLE_UQ)
                : _mm512_mask_cmp_ps_mask(ordered, v, best, _CMP_NGE_UQ);
}

ALWAYS_INLINE __m512 pick(__m512 a, __m512 b, bool is_max) {
  return is_max ? _mm512_max_ps(a, b) : _mm512_min_ps(a, b);
}

// The value only: vector max/min, NaNs noted on the side; NaN and zero
// results are settled by a scalar rescan (see etr_reduce_extremum_fixup).
ALWAYS_INLINE float extremum_value(size_t n, const float *x, bool is_max) {
  __m512 init = _mm512_set1_ps(is_max ? -INFINITY : INFINITY);
  __m512 a0 = init;
  __m512 a1 = init;
  __m512 a2 = init;
  __m512 a3 = init;
  __mmask16 nan = 0;
  size_t j = 0;
  for (; j + 64 <= n; j += 64) {
    __m512 v0 = _mm512_loadu_ps(x + j);
    __m512 v1 = _mm512_loadu_ps(x + j + 16);
    __m512 v2 = _mm512_loadu_ps(x + j + 32);
    __m512 v3 = _mm512_loadu_ps(x + j + 48);
    nan |= _mm512_cmp_ps_mask(v0, v1, _CMP_UNORD_Q) |
           _mm512_cmp_ps_mask(v2, v3, _CMP_UNORD_Q);
    a0 = pick(a0, v0, is_max);
    a1 = pick(a1, v1, is_max);
    a2 = pick(a2, v2, is_max);
    a3 = pick(a3, v3, is_max);
  }
  for (; j < n; j += 16) {
    __mmask16 m = mask16(n - j);
    __m512 v = _mm512_mask_loadu_ps(init, m, x + j);
    nan |= _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
    a0 = pick(a0, v, is_max);
  }
  __m512 a = pick(pick(a0, a1, is_max), pick(a2, a3, is_max), is_max);
  float result = is_max ? _mm512_reduce_max_ps(a) : _mm512_reduce_min_ps(a);
  if (nan != 0 || result == 0.0f) {
    return etr_reduce_extremum_fixup(n, x, result, nan != 0);
  }
  return result;
}

// Value and index: four sets of 16 lanes, each lane keeping the first
// occurrence of its best (strict comparisons; a NaN replaces and stays),
// as a sequential scan of its positions would. Every lane starts at
// (x[0], 0), which is where a sequential scan starts. Then the first
// position among the lanes that hold a NaN, else among those equal to the
// best value (-0.0 and 0.0 tie, as in the scan's comparisons), is the
// scan's answer, and the value is x at it. The two compares of a step
// both read the lane's best, so a step's chain is one compare, a mask and
// and a blend; before, two sets of lanes waited on a masked compare that
// took the other's mask, and etr_reduce_merge_candidates merged the 32
// candidates one at a time: the bench's argmax of 1024 rows of 1024,
// AMD Zen 5, 136 us.
ALWAYS_INLINE void extremum_index(size_t n, const float *x, bool is_max,
                                  float *value, int64_t *index) {
  __m512 b[4];
  __m512i at[4];
  __m512i cur[4];
  const __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
                                         11, 12, 13, 14, 15);
#pragma GCC unroll 4
  for (int k = 0; k < 4; ++k) {
    b[k] = _mm512_set1_ps(x[0]);
    at[k] = _mm512_setzero_si512();
    cur[k] = _mm512_add_epi32(iota, _mm512_set1_epi32(16 * k));
  }
  size_t j = 0;
  for (; j + 64 <= n; j += 64) {
#pragma GCC unroll 4
    for (int k = 0; k < 4; ++k) {
      const __m512 v = _mm512_loadu_ps(x + j + 16 * (size_t)k);
      // Best not NaN, and v better or NaN (NLE_UQ / NGE_UQ hold for NaN).
      const __mmask16 m =
          _mm512_cmp_ps_mask(b[k], b[k], _CMP_ORD_Q) &
          (is_max ? _mm512_cmp_ps_mask(v, b[k], _CMP_NLE_UQ)
                  : _mm512_cmp_ps_mask(v, b[k], _CMP_NGE_UQ));
      b[k] = _mm512_mask_mov_ps(b[k], m, v);
      at[k] = _mm512_mask_mov_epi32(at[k], m, cur[k]);
      cur[k] = _mm512_add_epi32(cur[k], _mm512_set1_epi32(64));
    }
  }
  // The rest, 16 at a time, in the first set (its lanes' positions stay
  // increasing).
  __m512i rest = _mm512_add_epi32(iota, _mm512_set1_epi32((int32_t)j));
  for (; j < n; j += 16) {
    const __mmask16 active = mask16(n - j);
    const __m512 v = _mm512_maskz_loadu_ps(active, x + j);
    const __mmask16 m = replaces(active, v, b[0], is_max);
    b[0] = _mm512_mask_mov_ps(b[0], m, v);
    at[0] = _mm512_mask_mov_epi32(at[0], m, rest);
    rest = _mm512_add_epi32(rest, _mm512_set1_epi32(16));
  }
  __mmask16 nan[4];
  bool any_nan = false;
#pragma GCC unroll 4
  for (int k = 0; k < 4; ++k) {
    nan[k] = _mm512_cmp_ps_mask(b[k], b[k], _CMP_UNORD_Q);
    any_nan |= nan[k] != 0;
  }
  __mmask16 first[4];
  if (any_nan) {
#pragma GCC unroll 4
    for (int k = 0; k < 4; ++k) {
      first[k] = nan[k];
    }
  } else {
    const __m512 best = pick(pick(b[0], b[1], is_max),
                             pick(b[2], b[3], is_max), is_max);
    const __m512 all = _mm512_set1_ps(is_max ? _mm512_reduce_max_ps(best)
                                             : _mm512_reduce_min_ps(best));
#pragma GCC unroll 4
    for (int k = 0; k < 4; ++k) {
      first[k] = _mm512_cmp_ps_mask(b[k], all, _CMP_EQ_OQ);
    }
  }
  int32_t position = INT32_MAX;
#pragma GCC unroll 4
  for (int k = 0; k < 4; ++k) {
    if (first[k] != 0) {
      const int32_t p = _mm512_mask_reduce_min_epi32(first[k], at[k]);
      position = p < position ? p : position;
    }
  }
  *index = position;
  *value = x[position];
}

// The first j < n with x[j] == b (or, `nan`, x[j] unordered), 64
// elements a step; n when there is none.
ALWAYS_INLINE size_t first_match(size_t n, const float *x, __m512 b,
                                 bool nan) {
  size_t j = 0;
  for (; j + 64 <= n; j += 64) {
    __mmask16 m[4];
#pragma GCC unroll 4
    for (int k = 0; k < 4; ++k) {
      const __m512 v = _mm512_loadu_ps(x + j + 16 * (size_t)k);
      m[k] = nan ? _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q)
                 : _mm512_cmp_ps_mask(v, b, _CMP_EQ_OQ);
    }
    if ((m[0] | m[1] | m[2] | m[3]) != 0) {
      const uint64_t all = (uint64_t)m[0] | (uint64_t)m[1] << 16 |
                           (uint64_t)m[2] << 32 | (uint64_t)m[3] << 48;
      return j + (size_t)__builtin_ctzll(all);
    }
  }
  for (; j < n; j += 16) {
    const __mmask16 active = mask16(n - j);
    const __m512 v = _mm512_maskz_loadu_ps(active, x + j);
    const __mmask16 hit =
        nan ? _mm512_mask_cmp_ps_mask(active, v, v, _CMP_UNORD_Q)
            : _mm512_mask_cmp_ps_mask(active, v, b, _CMP_EQ_OQ);
    if (hit != 0) {
      return j + (size_t)__builtin_ctz(hit);
    }
  }
  return n;
}

// Value and index in two passes: the value (extremum_value's vector
// maxima, NaNs noted), then the first position that holds it -- the first
// NaN when it is NaN, else the first element equal to it (-0.0 and 0.0
// equal, as the sequential scan's strict comparisons tie them) -- which
// is the sequential scan's answer; the value is x at it. The second pass
// stops there, in a row the first just brought to L1, 64 elements a
// step. extremum_index's one pass carries positions in every step's
// chain: argmax-rows-1024 (AMD Zen 5, paired bench_server rounds, medians
// of 7) 74.3 -> 45.2 us, amax's time; AVX2 170 -> 73 us. (A second pass
// testing one vector a step, both predicates computed, ran 73.3.)
ALWAYS_INLINE void extremum_two_pass(size_t n, const float *x, bool is_max,
                                     float *value, int64_t *index) {
  const float best = extremum_value(n, x, is_max);
  const __m512 b = _mm512_set1_ps(best);
  const size_t position = best != best ? first_match(n, x, b, true)
                                       : first_match(n, x, b, false);
  if (position < n) {
    *index = (int64_t)position;
    *value = x[position];
    return;
  }
  extremum_index(n, x, is_max, value, index);  // (best is an element)
}

static void extremum_rows_avx512(size_t rows, size_t n, const float *x,
                                 bool is_max, float *values,
                                 int64_t *indices) {
  for (size_t o = 0; o < rows; ++o, x += n) {
    if (indices == NULL) {
      values[o] = is_max ? extremum_value(n, x, true)
                         : extremum_value(n, x, false);
      continue;
    }
    float value;
    if (is_max) {
      extremum_two_pass(n, x, true, &value, &indices[o]);
    } else {
      extremum_two_pass(n, x, false, &value, &indices[o]);
    }
    if (values != NULL) {
      values[o] = value;
    }
  }
}

ALWAYS_INLINE void store_indices(int64_t *p, __mmask16 m, __m512i index) {
  _mm512_mask_storeu_epi64(
      p, (__mmask8)(m & 0xff),
      _mm512_cvtepi32_epi64(_mm512_castsi512_si256(index)));
  _mm512_mask_storeu_epi64(
      p + 8, (__mmask8)(m >> 8),
      _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(index, 1)));
}

// Columns: each lane scans its column in order (first occurrence kept).
ALWAYS_INLINE void extremum_cols_body(size_t r, size_t n, size_t stride,
                                      const float *x, bool is_max,
                                      float *values, int64_t *indices) {
  for (size_t i = 0; i < n; i += 32) {
    size_t left = n - i;
    __mmask16 m0 = mask16(left);
    __mmask16 m1 = left > 16 ? mask16(left - 16) : 0;
    __m512 b0 = _mm512_maskz_loadu_ps(m0, x + i);
    __m512 b1 = _mm512_maskz_loadu_ps(m1, x + i + 16);
    __m512i i0 = _mm512_setzero_si512();
    __m512i i1 = i0;
    const float *p = x + i + stride;
    for (size_t j = 1; j < r; ++j, p += stride) {
      __m512 v0 = _mm512_maskz_loadu_ps(m0, p);
      __m512 v1 = _mm512_maskz_loadu_ps(m1, p + 16);
      __m512i row = _mm512_set1_epi32((int32_t)j);
      __mmask16 u0 = replaces(m0, v0, b0, is_max);
      __mmask16 u1 = replaces(m1, v1, b1, is_max);
      b0 = _mm512_mask_mov_ps(b0, u0, v0);
      i0 = _mm512_mask_mov_epi32(i0, u0, row);
      b1 = _mm512_mask_mov_ps(b1, u1, v1);
      i1 = _mm512_mask_mov_epi32(i1, u1, row);
    }
    if (values != NULL) {
      _mm512_mask_storeu_ps(values + i, m0, b0);
      _mm512_mask_storeu_ps(values + i + 16, m1, b1);
    }
    if (indices != NULL) {
      store_indices(indices + i, m0, i0);
      store_indices(indices + i + 16, m1, i1);
    }
  }
}

static void extremum_cols_avx512(size_t r, size_t n, size_t stride,
                                 const float *x, bool is_max, float *values,
                                 int64_t *indices) {
  if (is_max) {
    extremum_cols_body(r, n, stride, x, true, values, indices);
  } else {
    extremum_cols_body(r, n, stride, x, false, values, indices);
  }
}

// --- any ---------------------------------------------------------------------

static void any_rows_avx512(size_t rows, size_t n, const float *x, bool *y) {
  const __m512 zero = _mm512_setzero_ps();
  for (size_t o = 0; o < rows; ++o, x += n) {
    __mmask16 any = 0;
    for (size_t j = 0; j < n && any == 0; j += 16) {
      __mmask16 m = mask16(n - j);
      any = _mm512_mask_cmp_ps_mask(m, _mm512_maskz_loadu_ps(m, x + j), zero,
                                    _CMP_NEQ_UQ);
    }
    y[o] = any != 0;
  }
}

static void any_cols_avx512(size_t r, size_t n, size_t stride,
                            const float *x, bool *y) {
  const __m512 zero = _mm512_setzero_ps();
  for (size_t i = 0; i < n; i += 16) {
    __mmask16 m = mask16(n - i);
    __mmask16 any = 0;
    for (size_t j = 0; j < r && any != m; ++j) {
      any |= _mm512_mask_cmp_ps_mask(
          m, _mm512_maskz_loadu_ps(m, x + j * stride + i), zero, _CMP_NEQ_UQ);
    }
    for (size_t k = 0; k < 16 && i + k < n; ++k) {
      y[i + k] = (any >> k) & 1u;
    }
  }
}

ALWAYS_INLINE __mmask64 mask64(size_t count) {
  return count >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << count) - 1u);
}

static void any_rows_u8_avx512(size_t rows, size_t n, const uint8_t *x,
                               bool *y) {
  for (size_t o = 0; o < rows; ++o, x += n) {
    __mmask64 any = 0;
    for (size_t j = 0; j < n && any == 0; j += 64) {
      __m512i v = _mm512_maskz_loadu_epi8(mask64(n - j), x + j);
      any = _mm512_test_epi8_mask(v, v);
    }
    y[o] = any != 0;
  }
}

static void any_cols_u8_avx512(size_t r, size_t n, size_t stride,
                               const uint8_t *x, bool *y) {
  for (size_t i = 0; i < n; i += 64) {
    __mmask64 m = mask64(n - i);
    __m512i acc = _mm512_setzero_si512();
    for (size_t j = 0; j < r; ++j) {
      acc = _mm512_or_si512(acc,
                            _mm512_maskz_loadu_epi8(m, x + j * stride + i));
    }
    __mmask64 any = _mm512_test_epi8_mask(acc, acc);
    _mm512_mask_storeu_epi8(y + i, m,
                            _mm512_maskz_mov_epi8(any, _mm512_set1_epi8(1)));
  }
}

static inline __mmask16 topk_enter16(__m512 v, __m512 bound, int test) {
  switch (test) {
    case ETR_TOPK_ABOVE:
      return _mm512_cmp_ps_mask(v, bound, _CMP_NLE_UQ);
    case ETR_TOPK_BELOW:
      return _mm512_cmp_ps_mask(v, bound, _CMP_LT_OQ);
    default:
      return _mm512_cmp_ps_mask(v, v, _CMP_ORD_Q);
  }
}

// Two vectors a step: most of a long slice enters nowhere.
static size_t topk_first_entering_avx512(size_t first, size_t n,
                                         const float *x, float bound,
                                         bool largest) {
  const int test = etr_topk_test(bound, largest);
  if (test < 0) {
    return n;
  }
  const __m512 b = _mm512_set1_ps(bound);
  size_t i = first;
  for (; i + 32 <= n; i += 32) {
    uint32_t m = topk_enter16(_mm512_loadu_ps(x + i), b, test) |
                 (uint32_t)topk_enter16(_mm512_loadu_ps(x + i + 16), b, test)
                     << 16;
    if (m != 0) {
      return i + (size_t)__builtin_ctz(m);
    }
  }
  for (; i < n; i += 16) {
    __mmask16 live = n - i >= 16 ? 0xffff : (__mmask16)((1u << (n - i)) - 1);
    __mmask16 m =
        live & topk_enter16(_mm512_maskz_loadu_ps(live, x + i), b, test);
    if (m != 0) {
      return i + (size_t)__builtin_ctz(m);
    }
  }
  return n;
}

static inline __mmask16 nonzero16(__mmask16 live, const float *x) {
  return _mm512_mask_cmp_ps_mask(live, _mm512_maskz_loadu_ps(live, x),
                                 _mm512_setzero_ps(), _CMP_NEQ_UQ);
}

static size_t count_nonzero_avx512(size_t n, const float *x) {
  size_t count = 0;
  for (size_t i = 0; i < n; i += 16) {
    __mmask16 live = n - i >= 16 ? 0xffff : (__mmask16)((1u << (n - i)) - 1);
    count += (size_t)__builtin_popcount(nonzero16(live, x + i));
  }
  return count;
}

// The positions of mask's `parts` bytes (8 elements each, from
// *position on) compressed and stored at y + count, as many as each
// byte has; returns the new count, *position moved past them.
static inline size_t store_positions(uint64_t mask, int parts,
                                     __m512i *position, int64_t *y,
                                     size_t count) {
  const __m512i step = _mm512_set1_epi64(8);
  for (int part = 0; part < parts; ++part) {
    __mmask8 h = (__mmask8)(mask >> (8 * part));
    int taken = __builtin_popcount(h);
    _mm512_mask_storeu_epi64(y + count, (__mmask8)((1u << taken) - 1),
                             _mm512_maskz_compress_epi64(h, *position));
    count += (size_t)taken;
    *position = _mm512_add_epi64(*position, step);
  }
  return count;
}

// Each half of a 16-float step's mask compresses its 8 positions and
// stores as many as it has.
static size_t nonzero_positions_avx512(size_t n, const float *x,
                                       int64_t *y) {
  size_t count = 0;
  __m512i position = _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7);
  for (size_t i = 0; i < n; i += 16) {
    __mmask16 live = n - i >= 16 ? 0xffff : (__mmask16)((1u << (n - i)) - 1);
    count = store_positions(nonzero16(live, x + i), 2, &position, y, count);
  }
  return count;
}

// Bit k set where byte k of the (up to 64) at x is not 0.
static inline __mmask64 nonzero64_u8(size_t left, const uint8_t *x) {
  __mmask64 live = left >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << left) - 1);
  __m512i v = _mm512_maskz_loadu_epi8(live, x);
  return _mm512_test_epi8_mask(v, v);
}

static size_t count_nonzero_u8_avx512(size_t n, const uint8_t *x) {
  size_t count = 0;
  for (size_t i = 0; i < n; i += 64) {
    count += (size_t)__builtin_popcountll(nonzero64_u8(n - i, x + i));
  }
  return count;
}

// Each eighth of a 64-byte step's mask compresses its 8 positions and
// stores as many as it has, as nonzero_positions_avx512 does.
static size_t nonzero_positions_u8_avx512(size_t n, const uint8_t *x,
                                          int64_t *y) {
  size_t count = 0;
  __m512i position = _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7);
  for (size_t i = 0; i < n; i += 64) {
    count = store_positions(nonzero64_u8(n - i, x + i), 8, &position, y,
                            count);
  }
  return count;
}

static void accumulate_f64_avx512(size_t n, const float *x, double *y) {
  for (size_t i = 0; i < n; i += 8) {
    __mmask8 m = n - i >= 8 ? (__mmask8)0xff : (__mmask8)((1u << (n - i)) - 1);
    __m512d v = _mm512_cvtps_pd(_mm256_maskz_loadu_ps(m, x + i));
    _mm512_mask_storeu_pd(y + i, m,
                          _mm512_add_pd(_mm512_maskz_loadu_pd(m, y + i), v));
  }
}

static void round_f64_avx512(size_t n, const double *y, float *z) {
  for (size_t i = 0; i < n; i += 8) {
    __mmask8 m = n - i >= 8 ? (__mmask8)0xff : (__mmask8)((1u << (n - i)) - 1);
    _mm256_mask_storeu_ps(z + i, m,
                          _mm512_cvtpd_ps(_mm512_maskz_loadu_pd(m, y + i)));
  }
}

const etr_reduce_kernels_t etr_reduce_kernels_avx512 = {
    .sum_rows = sum_rows_avx512,
    .sum_cols = sum_cols_avx512,
    .sumsq_rows = sumsq_rows_avx512,
    .sumsq_cols = sumsq_cols_avx512,
    .extremum_rows = extremum_rows_avx512,
    .extremum_cols = extremum_cols_avx512,
    .any_rows = any_rows_avx512,
    .any_cols = any_cols_avx512,
    .any_rows_u8 = any_rows_u8_avx512,
    .any_cols_u8 = any_cols_u8_avx512,
    .topk_first_entering = topk_first_entering_avx512,
    .count_nonzero = count_nonzero_avx512,
    .nonzero_positions = nonzero_positions_avx512,
    .count_nonzero_u8 = count_nonzero_u8_avx512,
    .nonzero_positions_u8 = nonzero_positions_u8_avx512,
    .accumulate_f64 = accumulate_f64_avx512,
    .round_f64 = round_f64_avx512,
    .int_block = etr_reduce_int_block_avx512,
    .sort_distinct = etr_sort_distinct_avx512,
    .sort_u64 = etr_sort_u64_avx512,
};

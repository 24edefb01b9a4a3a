// SPDX-License-Identifier: Apache-2.0
//
// Reduction microkernels, AVX2 + FMA: 8 fp32 lanes, sums in 4-lane double
// accumulators; tails are masked loads/stores (vmaskmov) or scalar loops,
// so nothing past a row or a column block is touched. Semantics in
// reduce.h.
#include <immintrin.h>
#include <math.h>

#include "ops_optimized/common/mask_avx2.h"
#include "ops_optimized/reduce/reduce.h"

#define ALWAYS_INLINE static inline __attribute__((always_inline))

// Lane mask (all ones in the first `count` of 8 lanes).
ALWAYS_INLINE __m256i mask8(size_t count) {
  int32_t c = count >= 8 ? 8 : (int32_t)count;
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(c),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

ALWAYS_INLINE __m128i mask4(size_t count) {
  int32_t c = count >= 4 ? 4 : (int32_t)count;
  return _mm_cmpgt_epi32(_mm_set1_epi32(c), _mm_setr_epi32(0, 1, 2, 3));
}

// --- sums in double -------------------------------------------------------

ALWAYS_INLINE __m256d widen(const float *p) {
  return _mm256_cvtps_pd(_mm_loadu_ps(p));
}

ALWAYS_INLINE __m256d widen_masked(__m128i m, const float *p) {
  return _mm256_cvtps_pd(_mm_maskload_ps(p, m));
}

static void sum_rows_avx2(size_t rows, size_t n, const float *x, double *y) {
  for (size_t o = 0; o < rows; ++o, x += n) {
    __m256d a0 = _mm256_setzero_pd();
    __m256d a1 = _mm256_setzero_pd();
    __m256d a2 = _mm256_setzero_pd();
    __m256d a3 = _mm256_setzero_pd();
    size_t j = 0;
    for (; j + 16 <= n; j += 16) {
      a0 = _mm256_add_pd(a0, widen(x + j));
      a1 = _mm256_add_pd(a1, widen(x + j + 4));
      a2 = _mm256_add_pd(a2, widen(x + j + 8));
      a3 = _mm256_add_pd(a3, widen(x + j + 12));
    }
    for (; j < n; j += 4) {
      a0 = _mm256_add_pd(a0, widen_masked(mask4(n - j), x + j));
    }
    __m256d a = _mm256_add_pd(_mm256_add_pd(a0, a1), _mm256_add_pd(a2, a3));
    __m128d s = _mm_add_pd(_mm256_castpd256_pd128(a),
                           _mm256_extractf128_pd(a, 1));
    y[o] = _mm_cvtsd_f64(_mm_add_sd(s, _mm_unpackhi_pd(s, s)));
  }
}

// Column blocks of 16 (four 4-lane double accumulators), masked at the end.
static void sum_cols_avx2(size_t r, size_t n, size_t stride, const float *x,
                          double *y) {
  for (size_t i = 0; i < n; i += 16) {
    size_t left = n - i;
    __m128i m[4];
    for (int k = 0; k < 4; ++k) {
      m[k] = left > (size_t)(4 * k) ? mask4(left - 4 * (size_t)k)
                                    : _mm_setzero_si128();
    }
    __m256d a0 = _mm256_setzero_pd();
    __m256d a1 = _mm256_setzero_pd();
    __m256d a2 = _mm256_setzero_pd();
    __m256d a3 = _mm256_setzero_pd();
    const float *p = x + i;
    for (size_t j = 0; j < r; ++j, p += stride) {
      a0 = _mm256_add_pd(a0, widen_masked(m[0], p));
      a1 = _mm256_add_pd(a1, widen_masked(m[1], p + 4));
      a2 = _mm256_add_pd(a2, widen_masked(m[2], p + 8));
      a3 = _mm256_add_pd(a3, widen_masked(m[3], p + 12));
    }
    __m256d a[4] = {a0, a1, a2, a3};
    for (int k = 0; k < 4; ++k) {
      etr_avx2_maskstore_pd(y + i + 4 * k, _mm256_cvtepi32_epi64(m[k]), a[k]);
    }
  }
}

ALWAYS_INLINE __m256d square_dev(__m256d acc, __m256d v, __m256d mean) {
  __m256d d = _mm256_sub_pd(v, mean);
  return _mm256_fmadd_pd(d, d, acc);
}

static void sumsq_rows_avx2(size_t rows, size_t n, const float *x,
                            const double *mean, double *y) {
  for (size_t o = 0; o < rows; ++o, x += n) {
    __m256d mu = _mm256_set1_pd(mean[o]);
    __m256d a0 = _mm256_setzero_pd();
    __m256d a1 = _mm256_setzero_pd();
    size_t j = 0;
    for (; j + 8 <= n; j += 8) {
      a0 = square_dev(a0, widen(x + j), mu);
      a1 = square_dev(a1, widen(x + j + 4), mu);
    }
    __m256d a = _mm256_add_pd(a0, a1);
    __m128d s = _mm_add_pd(_mm256_castpd256_pd128(a),
                           _mm256_extractf128_pd(a, 1));
    double total = _mm_cvtsd_f64(_mm_add_sd(s, _mm_unpackhi_pd(s, s)));
    for (; j < n; ++j) {
      double d = (double)x[j] - mean[o];
      total += d * d;
    }
    y[o] = total;
  }
}

static void sumsq_cols_avx2(size_t r, size_t n, size_t stride,
                            const float *x, const double *mean, double *y) {
  for (size_t i = 0; i < n; i += 8) {
    size_t left = n - i;
    __m128i m0 = mask4(left);
    __m128i m1 = left > 4 ? mask4(left - 4) : _mm_setzero_si128();
    __m256i w0 = _mm256_cvtepi32_epi64(m0);
    __m256i w1 = _mm256_cvtepi32_epi64(m1);
    __m256d mu0 = _mm256_maskload_pd(mean + i, w0);
    __m256d mu1 = _mm256_maskload_pd(mean + i + 4, w1);
    __m256d a0 = _mm256_setzero_pd();
    __m256d a1 = _mm256_setzero_pd();
    const float *p = x + i;
    for (size_t j = 0; j < r; ++j, p += stride) {
      a0 = square_dev(a0, widen_masked(m0, p), mu0);
      a1 = square_dev(a1, widen_masked(m1, p + 4), mu1);
    }
    etr_avx2_maskstore_pd(y + i, w0, a0);
    etr_avx2_maskstore_pd(y + i + 4, w1, a1);
  }
}

// --- max / min --------------------------------------------------------------

// Lanes where v replaces best in a sequential scan: best not NaN and v
// better or NaN.
ALWAYS_INLINE __m256 replaces(__m256 v, __m256 best, bool is_max) {
  __m256 ordered = _mm256_cmp_ps(best, best, _CMP_ORD_Q);
  __m256 better = is_max ? _mm256_cmp_ps(v, best, _CMP_NLE_UQ)
                         : _mm256_cmp_ps(v, best, _CMP_NGE_UQ);
  return _mm256_and_ps(ordered, better);
}

ALWAYS_INLINE __m256 pick(__m256 a, __m256 b, bool is_max) {
  return is_max ? _mm256_max_ps(a, b) : _mm256_min_ps(a, b);
}

ALWAYS_INLINE float extremum_value(size_t n, const float *x, bool is_max) {
  __m256 init = _mm256_set1_ps(is_max ? -INFINITY : INFINITY);
  __m256 a0 = init;
  __m256 a1 = init;
  __m256 nan = _mm256_setzero_ps();
  size_t j = 0;
  for (; j + 16 <= n; j += 16) {
    __m256 v0 = _mm256_loadu_ps(x + j);
    __m256 v1 = _mm256_loadu_ps(x + j + 8);
    nan = _mm256_or_ps(nan, _mm256_cmp_ps(v0, v1, _CMP_UNORD_Q));
    a0 = pick(a0, v0, is_max);
    a1 = pick(a1, v1, is_max);
  }
  for (; j < n; j += 8) {
    __m256i m = mask8(n - j);
    __m256 v = _mm256_blendv_ps(init, _mm256_maskload_ps(x + j, m),
                                _mm256_castsi256_ps(m));
    nan = _mm256_or_ps(nan, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
    a0 = pick(a0, v, is_max);
  }
  __m256 a = pick(a0, a1, is_max);
  __m128 h = is_max ? _mm_max_ps(_mm256_castps256_ps128(a),
                                 _mm256_extractf128_ps(a, 1))
                    : _mm_min_ps(_mm256_castps256_ps128(a),
                                 _mm256_extractf128_ps(a, 1));
  float lanes[4];
  _mm_storeu_ps(lanes, h);
  float result = lanes[0];
  for (int k = 1; k < 4; ++k) {
    result = is_max ? (lanes[k] > result ? lanes[k] : result)
                    : (lanes[k] < result ? lanes[k] : result);
  }
  bool saw_nan = _mm256_movemask_ps(nan) != 0;
  if (saw_nan || result == 0.0f) {
    return etr_reduce_extremum_fixup(n, x, result, saw_nan);
  }
  return result;
}

ALWAYS_INLINE __m256i blend_index(__m256i index, __m256i candidate,
                                  __m256 m) {
  return _mm256_castps_si256(_mm256_blendv_ps(
      _mm256_castsi256_ps(index), _mm256_castsi256_ps(candidate), m));
}

// Two sets of 8 lanes, each keeping the first occurrence of its best, all
// starting at (x[0], 0); merged by etr_reduce_merge_candidates.
ALWAYS_INLINE void extremum_index(size_t n, const float *x, bool is_max,
                                  float *value, int64_t *index) {
  __m256 b0 = _mm256_set1_ps(x[0]);
  __m256 b1 = b0;
  __m256i i0 = _mm256_setzero_si256();
  __m256i i1 = i0;
  __m256i cur = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i eight = _mm256_set1_epi32(8);
  size_t j = 0;
  for (; j + 16 <= n; j += 16) {
    __m256 v0 = _mm256_loadu_ps(x + j);
    __m256 v1 = _mm256_loadu_ps(x + j + 8);
    __m256 m0 = replaces(v0, b0, is_max);
    __m256 m1 = replaces(v1, b1, is_max);
    b0 = _mm256_blendv_ps(b0, v0, m0);
    i0 = blend_index(i0, cur, m0);
    cur = _mm256_add_epi32(cur, eight);
    b1 = _mm256_blendv_ps(b1, v1, m1);
    i1 = blend_index(i1, cur, m1);
    cur = _mm256_add_epi32(cur, eight);
  }
  for (; j < n; j += 8) {
    __m256i active = mask8(n - j);
    __m256 v = _mm256_maskload_ps(x + j, active);
    __m256 m = _mm256_and_ps(replaces(v, b0, is_max),
                             _mm256_castsi256_ps(active));
    b0 = _mm256_blendv_ps(b0, v, m);
    i0 = blend_index(i0, cur, m);
    cur = _mm256_add_epi32(cur, eight);
  }
  float values[16];
  int32_t indices[16];
  _mm256_storeu_ps(values, b0);
  _mm256_storeu_ps(values + 8, b1);
  _mm256_storeu_si256((__m256i *)indices, i0);
  _mm256_storeu_si256((__m256i *)(indices + 8), i1);
  etr_reduce_merge_candidates(16, values, indices, is_max, value, index);
}

// The first j < n with x[j] == b (or, `nan`, x[j] unordered), 32
// elements a step; n when there is none.
ALWAYS_INLINE size_t first_match(size_t n, const float *x, __m256 b,
                                 bool nan) {
  size_t j = 0;
  for (; j + 32 <= n; j += 32) {
    uint32_t all = 0;
#pragma GCC unroll 4
    for (int k = 0; k < 4; ++k) {
      const __m256 v = _mm256_loadu_ps(x + j + 8 * (size_t)k);
      const __m256 hit = nan ? _mm256_cmp_ps(v, v, _CMP_UNORD_Q)
                             : _mm256_cmp_ps(v, b, _CMP_EQ_OQ);
      all |= (uint32_t)_mm256_movemask_ps(hit) << (8 * k);
    }
    if (all != 0) {
      return j + (size_t)__builtin_ctz(all);
    }
  }
  for (; j < n; j += 8) {
    const __m256i active = mask8(n - j);
    const __m256 v = _mm256_maskload_ps(x + j, active);
    const __m256 hit = _mm256_and_ps(nan ? _mm256_cmp_ps(v, v, _CMP_UNORD_Q)
                                         : _mm256_cmp_ps(v, b, _CMP_EQ_OQ),
                                     _mm256_castsi256_ps(active));
    const int bits = _mm256_movemask_ps(hit);
    if (bits != 0) {
      return j + (size_t)__builtin_ctz((unsigned)bits);
    }
  }
  return n;
}

// Value and index in two passes, as reduce_avx512.c's extremum_two_pass:
// extremum_value, then the first position holding it (the first NaN when
// it is NaN, else the first element equal to it); the value is x at it.
ALWAYS_INLINE void extremum_two_pass(size_t n, const float *x, bool is_max,
                                     float *value, int64_t *index) {
  const float best = extremum_value(n, x, is_max);
  const __m256 b = _mm256_set1_ps(best);
  const size_t position = best != best ? first_match(n, x, b, true)
                                       : first_match(n, x, b, false);
  if (position < n) {
    *index = (int64_t)position;
    *value = x[position];
    return;
  }
  extremum_index(n, x, is_max, value, index);  // (best is an element)
}

static void extremum_rows_avx2(size_t rows, size_t n, const float *x,
                               bool is_max, float *values, int64_t *indices) {
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

ALWAYS_INLINE void store_indices(int64_t *p, __m256i m, __m256i index) {
  etr_avx2_maskstore_epi64((long long *)p,
                         _mm256_cvtepi32_epi64(_mm256_castsi256_si128(m)),
                         _mm256_cvtepi32_epi64(_mm256_castsi256_si128(index)));
  etr_avx2_maskstore_epi64(
      (long long *)(p + 4),
      _mm256_cvtepi32_epi64(_mm256_extracti128_si256(m, 1)),
      _mm256_cvtepi32_epi64(_mm256_extracti128_si256(index, 1)));
}

// Columns: each lane scans its column in order; blocks of 16 columns.
ALWAYS_INLINE void extremum_cols_body(size_t r, size_t n, size_t stride,
                                      const float *x, bool is_max,
                                      float *values, int64_t *indices) {
  for (size_t i = 0; i < n; i += 16) {
    size_t left = n - i;
    __m256i m0 = mask8(left);
    __m256i m1 = left > 8 ? mask8(left - 8) : _mm256_setzero_si256();
    __m256 b0 = _mm256_maskload_ps(x + i, m0);
    __m256 b1 = _mm256_maskload_ps(x + i + 8, m1);
    __m256i i0 = _mm256_setzero_si256();
    __m256i i1 = i0;
    const float *p = x + i + stride;
    for (size_t j = 1; j < r; ++j, p += stride) {
      __m256 v0 = _mm256_maskload_ps(p, m0);
      __m256 v1 = _mm256_maskload_ps(p + 8, m1);
      __m256i row = _mm256_set1_epi32((int32_t)j);
      __m256 u0 = replaces(v0, b0, is_max);  // masked lanes hold 0 vs 0
      __m256 u1 = replaces(v1, b1, is_max);
      b0 = _mm256_blendv_ps(b0, v0, u0);
      i0 = blend_index(i0, row, u0);
      b1 = _mm256_blendv_ps(b1, v1, u1);
      i1 = blend_index(i1, row, u1);
    }
    if (values != NULL) {
      etr_avx2_maskstore_ps(values + i, m0, b0);
      etr_avx2_maskstore_ps(values + i + 8, m1, b1);
    }
    if (indices != NULL) {
      store_indices(indices + i, m0, i0);
      store_indices(indices + i + 8, m1, i1);
    }
  }
}

static void extremum_cols_avx2(size_t r, size_t n, size_t stride,
                               const float *x, bool is_max, float *values,
                               int64_t *indices) {
  if (is_max) {
    extremum_cols_body(r, n, stride, x, true, values, indices);
  } else {
    extremum_cols_body(r, n, stride, x, false, values, indices);
  }
}

// --- any ---------------------------------------------------------------------

static void any_rows_avx2(size_t rows, size_t n, const float *x, bool *y) {
  const __m256 zero = _mm256_setzero_ps();
  for (size_t o = 0; o < rows; ++o, x += n) {
    bool any = false;
    for (size_t j = 0; j < n && !any; j += 8) {
      __m256i m = mask8(n - j);
      __m256 ne = _mm256_cmp_ps(_mm256_maskload_ps(x + j, m), zero,
                                _CMP_NEQ_UQ);
      any = _mm256_movemask_ps(_mm256_and_ps(ne, _mm256_castsi256_ps(m))) !=
            0;
    }
    y[o] = any;
  }
}

static void any_cols_avx2(size_t r, size_t n, size_t stride, const float *x,
                          bool *y) {
  const __m256 zero = _mm256_setzero_ps();
  for (size_t i = 0; i < n; i += 8) {
    __m256i m = mask8(n - i);
    __m256 any = _mm256_setzero_ps();
    for (size_t j = 0; j < r; ++j) {
      __m256 v = _mm256_maskload_ps(x + j * stride + i, m);
      any = _mm256_or_ps(any, _mm256_cmp_ps(v, zero, _CMP_NEQ_UQ));
    }
    int bits = _mm256_movemask_ps(any);
    for (size_t k = 0; k < 8 && i + k < n; ++k) {
      y[i + k] = (bits >> k) & 1;
    }
  }
}

static void any_rows_u8_avx2(size_t rows, size_t n, const uint8_t *x,
                             bool *y) {
  const __m256i zero = _mm256_setzero_si256();
  for (size_t o = 0; o < rows; ++o, x += n) {
    bool any = false;
    size_t j = 0;
    for (; j + 32 <= n && !any; j += 32) {
      __m256i v = _mm256_loadu_si256((const __m256i *)(x + j));
      any = _mm256_movemask_epi8(_mm256_cmpeq_epi8(v, zero)) != -1;
    }
    for (; j < n && !any; ++j) {
      any = x[j] != 0;
    }
    y[o] = any;
  }
}

static void any_cols_u8_avx2(size_t r, size_t n, size_t stride,
                             const uint8_t *x, bool *y) {
  const __m256i zero = _mm256_setzero_si256();
  const __m256i one = _mm256_set1_epi8(1);
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    __m256i acc = zero;
    for (size_t j = 0; j < r; ++j) {
      acc = _mm256_or_si256(
          acc, _mm256_loadu_si256((const __m256i *)(x + j * stride + i)));
    }
    __m256i is_zero = _mm256_cmpeq_epi8(acc, zero);
    _mm256_storeu_si256((__m256i *)(y + i), _mm256_andnot_si256(is_zero, one));
  }
  for (; i < n; ++i) {
    bool any = false;
    for (size_t j = 0; j < r && !any; ++j) {
      any = x[j * stride + i] != 0;
    }
    y[i] = any;
  }
}

static inline unsigned topk_enter8(__m256 v, __m256 bound, int test) {
  switch (test) {
    case ETR_TOPK_ABOVE:
      return (unsigned)_mm256_movemask_ps(_mm256_cmp_ps(v, bound, _CMP_NLE_UQ));
    case ETR_TOPK_BELOW:
      return (unsigned)_mm256_movemask_ps(_mm256_cmp_ps(v, bound, _CMP_LT_OQ));
    default:
      return (unsigned)_mm256_movemask_ps(_mm256_cmp_ps(v, v, _CMP_ORD_Q));
  }
}

static size_t topk_first_entering_avx2(size_t first, size_t n,
                                       const float *x, float bound,
                                       bool largest) {
  const int test = etr_topk_test(bound, largest);
  if (test < 0) {
    return n;
  }
  const __m256 b = _mm256_set1_ps(bound);
  size_t i = first;
  for (; i + 16 <= n; i += 16) {
    unsigned m = topk_enter8(_mm256_loadu_ps(x + i), b, test) |
                 topk_enter8(_mm256_loadu_ps(x + i + 8), b, test) << 8;
    if (m != 0) {
      return i + (size_t)__builtin_ctz(m);
    }
  }
  while (i < n && !etr_topk_enters(x[i], bound, largest)) {
    ++i;
  }
  return i;
}

static inline unsigned nonzero8(const float *x) {
  return (unsigned)_mm256_movemask_ps(
      _mm256_cmp_ps(_mm256_loadu_ps(x), _mm256_setzero_ps(), _CMP_NEQ_UQ));
}

static size_t count_nonzero_avx2(size_t n, const float *x) {
  size_t count = 0;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    count += (size_t)__builtin_popcount(nonzero8(x + i));
  }
  return count + etr_reduce_count_nonzero_scalar(n - i, x + i);
}

// The set bits of each 8-float step's mask, lowest first.
static size_t nonzero_positions_avx2(size_t n, const float *x, int64_t *y) {
  size_t count = 0;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    for (unsigned m = nonzero8(x + i); m != 0; m &= m - 1) {
      y[count++] = (int64_t)(i + (size_t)__builtin_ctz(m));
    }
  }
  size_t tail = etr_reduce_nonzero_positions_scalar(n - i, x + i, y + count);
  for (size_t t = 0; t < tail; ++t) {
    y[count + t] += (int64_t)i;
  }
  return count + tail;
}

static void accumulate_f64_avx2(size_t n, const float *x, double *y) {
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    __m256d v = _mm256_cvtps_pd(_mm_loadu_ps(x + i));
    _mm256_storeu_pd(y + i, _mm256_add_pd(_mm256_loadu_pd(y + i), v));
  }
  etr_reduce_accumulate_f64_scalar(n - i, x + i, y + i);
}

static void round_f64_avx2(size_t n, const double *y, float *z) {
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    _mm_storeu_ps(z + i, _mm256_cvtpd_ps(_mm256_loadu_pd(y + i)));
  }
  etr_reduce_round_f64_scalar(n - i, y + i, z + i);
}

// Bit k set where byte k of the 32 at x is not 0.
static inline uint32_t nonzero32_u8(const uint8_t *x) {
  __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)x);
  return ~(uint32_t)_mm256_movemask_epi8(
      _mm256_cmpeq_epi8(v, _mm256_setzero_si256()));
}

static size_t count_nonzero_u8_avx2(size_t n, const uint8_t *x) {
  size_t count = 0;
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    count += (size_t)__builtin_popcount(nonzero32_u8(x + i));
  }
  return count + etr_reduce_count_nonzero_u8_scalar(n - i, x + i);
}

// The set bits of each 32-byte step's mask, lowest first.
static size_t nonzero_positions_u8_avx2(size_t n, const uint8_t *x,
                                        int64_t *y) {
  size_t count = 0;
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    for (uint32_t m = nonzero32_u8(x + i); m != 0; m &= m - 1) {
      y[count++] = (int64_t)(i + (size_t)__builtin_ctz(m));
    }
  }
  size_t tail =
      etr_reduce_nonzero_positions_u8_scalar(n - i, x + i, y + count);
  for (size_t t = 0; t < tail; ++t) {
    y[count + t] += (int64_t)i;
  }
  return count + tail;
}

const etr_reduce_kernels_t etr_reduce_kernels_avx2 = {
    .sum_rows = sum_rows_avx2,
    .sum_cols = sum_cols_avx2,
    .sumsq_rows = sumsq_rows_avx2,
    .sumsq_cols = sumsq_cols_avx2,
    .extremum_rows = extremum_rows_avx2,
    .extremum_cols = extremum_cols_avx2,
    .any_rows = any_rows_avx2,
    .any_cols = any_cols_avx2,
    .any_rows_u8 = any_rows_u8_avx2,
    .any_cols_u8 = any_cols_u8_avx2,
    .topk_first_entering = topk_first_entering_avx2,
    .count_nonzero = count_nonzero_avx2,
    .nonzero_positions = nonzero_positions_avx2,
    .count_nonzero_u8 = count_nonzero_u8_avx2,
    .nonzero_positions_u8 = nonzero_positions_u8_avx2,
    .accumulate_f64 = accumulate_f64_avx2,
    .round_f64 = round_f64_avx2,
    .int_block = etr_reduce_int_block_avx2,
};

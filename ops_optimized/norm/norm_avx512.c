// SPDX-License-Identifier: Apache-2.0
//
// Softmax and normalization microkernels, AVX-512 (F, BW, DQ, VL): 16
// lanes, tails under lane masks (nothing past n or a column block is
// touched). exp is Cephes' expf polynomial after reducing by n ln 2
// (ln 2 split in two), scaled with vscalefps, which also rounds the
// subnormal results (once); NaN propagates. Semantics in norm.h.
#include <immintrin.h>
#include <math.h>

#include "ops_optimized/common/stream.h"
#include "ops_optimized/common/transpose_avx2.h"
#include "ops_optimized/norm/norm.h"

#define ALWAYS_INLINE static inline __attribute__((always_inline))

ALWAYS_INLINE __mmask16 mask16(size_t count) {
  return count >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << count) - 1u);
}

// e^x for x <= 0 or NaN: every caller passes x - max (NaN when the row
// holds one, or is all -inf), so there is no overflow to clamp, and the
// underflow is vscalefps's: x is capped below at -104 (e^-104 rounds to
// 0), n >= -150, and p 2^n is rounded once, a subnormal result too. (Was:
// a clamp above, a compare and a flush to 0 below 2^-126; 3 of 16
// operations. A 64 x 1024 softmax, kernels alone: 14.3 -> 12.4 us.)
ALWAYS_INLINE __m512 exp16(__m512 x) {
  // max returns its second operand when one is NaN: NaN passes.
  x = _mm512_max_ps(_mm512_set1_ps(-104.0f), x);
  __m512 n = _mm512_roundscale_ps(
      _mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)),
      _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), x);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f), r);
  __m512 p = _mm512_set1_ps(1.9875691500e-4f);
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.3981999507e-3f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.3334519073e-3f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.1665795894e-2f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.6666665459e-1f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(5.0000001201e-1f));
  p = _mm512_fmadd_ps(p, _mm512_mul_ps(r, r),
                      _mm512_add_ps(r, _mm512_set1_ps(1.0f)));
  return _mm512_scalef_ps(p, n);
}

static float max_avx512(size_t n, const float *x) {
  __m512 m0 = _mm512_set1_ps(x[0]);
  __m512 m1 = m0;
  __mmask16 nan = 0;
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    __m512 a = _mm512_loadu_ps(x + i);
    __m512 b = _mm512_loadu_ps(x + i + 16);
    nan |= _mm512_cmp_ps_mask(a, b, _CMP_UNORD_Q);
    m0 = _mm512_max_ps(m0, a);
    m1 = _mm512_max_ps(m1, b);
  }
  for (; i < n; i += 16) {
    __mmask16 m = mask16(n - i);
    __m512 a = _mm512_mask_loadu_ps(m0, m, x + i);
    nan |= _mm512_cmp_ps_mask(a, a, _CMP_UNORD_Q);
    m0 = _mm512_max_ps(m0, a);
  }
  if (nan != 0) {
    return NAN;
  }
  return _mm512_reduce_max_ps(_mm512_max_ps(m0, m1));
}

static float exp_sum_avx512(size_t n, const float *x, float m, float *y) {
  __m512 mv = _mm512_set1_ps(m);
  __m512 s0 = _mm512_setzero_ps();
  __m512 s1 = _mm512_setzero_ps();
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    __m512 e0 = exp16(_mm512_sub_ps(_mm512_loadu_ps(x + i), mv));
    __m512 e1 = exp16(_mm512_sub_ps(_mm512_loadu_ps(x + i + 16), mv));
    _mm512_storeu_ps(y + i, e0);
    _mm512_storeu_ps(y + i + 16, e1);
    s0 = _mm512_add_ps(s0, e0);
    s1 = _mm512_add_ps(s1, e1);
  }
  for (; i < n; i += 16) {
    __mmask16 k = mask16(n - i);
    __m512 e = exp16(_mm512_sub_ps(_mm512_maskz_loadu_ps(k, x + i), mv));
    _mm512_mask_storeu_ps(y + i, k, e);
    s0 = _mm512_mask_add_ps(s0, k, s0, e);
  }
  return _mm512_reduce_add_ps(_mm512_add_ps(s0, s1));
}

static float exp_sum_only_avx512(size_t n, const float *x, float m) {
  __m512 mv = _mm512_set1_ps(m);
  __m512 s0 = _mm512_setzero_ps();
  __m512 s1 = _mm512_setzero_ps();
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    s0 = _mm512_add_ps(s0, exp16(_mm512_sub_ps(_mm512_loadu_ps(x + i), mv)));
    s1 = _mm512_add_ps(
        s1, exp16(_mm512_sub_ps(_mm512_loadu_ps(x + i + 16), mv)));
  }
  for (; i < n; i += 16) {
    __mmask16 k = mask16(n - i);
    __m512 e = exp16(_mm512_sub_ps(_mm512_maskz_loadu_ps(k, x + i), mv));
    s0 = _mm512_mask_add_ps(s0, k, s0, e);
  }
  return _mm512_reduce_add_ps(_mm512_add_ps(s0, s1));
}

// Softmax of `count` <= SHORT_ROWS rows of n <= 16, each stage for all
// of them before the next (their chains side by side in program order,
// so the scheduler holds several rows' work at once). Eight rows a group
// on Zen 5 (bench_server, the transformer's 64 rows of 16, builds
// alternated, 7 rounds): 404 ns with four, 362 with eight, 455 with two.
#define SHORT_ROWS 8
#define EACH_ROW \
  _Pragma("GCC unroll 8") for (size_t j = 0; j < SHORT_ROWS; ++j)

ALWAYS_INLINE void softmax_rows16(size_t count, size_t n, const float *x,
                                  float *y) {
  const __mmask16 k = mask16(n);
  const __m512 zero = _mm512_setzero_ps();
  // (Zeros in the rows past count, which are never read: GCC's
  // maybe-uninitialized analysis does not follow the j < count tests.)
  __m512 v[SHORT_ROWS];
  __m512 e[SHORT_ROWS];
  float m[SHORT_ROWS] = {0.0f};
  float sum[SHORT_ROWS] = {0.0f};
  EACH_ROW {
    e[j] = zero;
  }
  EACH_ROW {
    if (j < count) {
      const __m512 first = _mm512_set1_ps(x[j * n]);
      v[j] = _mm512_mask_loadu_ps(first, k, x + j * n);
      m[j] = _mm512_cmp_ps_mask(v[j], v[j], _CMP_UNORD_Q) != 0
                 ? NAN
                 : _mm512_reduce_max_ps(
                       _mm512_max_ps(_mm512_max_ps(first, v[j]), first));
    }
  }
  EACH_ROW {
    if (j < count) {
      e[j] = exp16(_mm512_sub_ps(_mm512_maskz_loadu_ps(k, x + j * n),
                                 _mm512_set1_ps(m[j])));
      sum[j] = _mm512_reduce_add_ps(
          _mm512_add_ps(_mm512_mask_add_ps(zero, k, zero, e[j]), zero));
    }
  }
  EACH_ROW {
    if (j < count) {
      const __m512 scale = _mm512_set1_ps((float)(1.0 / (double)sum[j]));
      _mm512_mask_storeu_ps(y + j * n, k, _mm512_mul_ps(e[j], scale));
    }
  }
}

// max_avx512, exp_sum_avx512 and scale_avx512 of one vector per row,
// inline: the same operations in the same order (the max from a load
// whose lanes past n hold x[0], the sum of the masked exponentials plus
// zeros), so the same bits. The transformer's 4 x 16 x 16 attention
// softmax, whose row-by-row calls left each row's reductions waiting on
// the last: 1.03 -> 0.62 us (paired.py program --instr 15; one row at a
// time inline 0.75-0.9, eight rows side by side 0.58).
static void softmax_short_rows_avx512(size_t rows, size_t n, const float *x,
                                      float *y) {
  size_t o = 0;
  for (; o + SHORT_ROWS <= rows; o += SHORT_ROWS) {
    softmax_rows16(SHORT_ROWS, n, x + o * n, y + o * n);
  }
  if (o < rows) {
    softmax_rows16(rows - o, n, x + o * n, y + o * n);
  }
}
#undef EACH_ROW
#undef SHORT_ROWS

// Whole vectors unmasked, two per step, then one masked tail (a mask per
// vector cost a 64 x 1024 softmax 1.3 of its 12.4 us).
static void scale_avx512(size_t n, float *y, float s) {
  __m512 sv = _mm512_set1_ps(s);
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    __m512 a = _mm512_mul_ps(_mm512_loadu_ps(y + i), sv);
    __m512 b = _mm512_mul_ps(_mm512_loadu_ps(y + i + 16), sv);
    _mm512_storeu_ps(y + i, a);
    _mm512_storeu_ps(y + i + 16, b);
  }
  for (; i < n; i += 16) {
    __mmask16 k = mask16(n - i);
    _mm512_mask_storeu_ps(y + i, k,
                          _mm512_mul_ps(_mm512_maskz_loadu_ps(k, y + i), sv));
  }
}

static void sub2_avx512(size_t n, const float *x, float a, float b,
                        float *y) {
  __m512 av = _mm512_set1_ps(a);
  __m512 bv = _mm512_set1_ps(b);
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {  // (as scale: no mask per vector)
    _mm512_storeu_ps(
        y + i, _mm512_sub_ps(_mm512_sub_ps(_mm512_loadu_ps(x + i), av), bv));
  }
  for (; i < n; i += 16) {
    __mmask16 k = mask16(n - i);
    __m512 v = _mm512_maskz_loadu_ps(k, x + i);
    _mm512_mask_storeu_ps(y + i, k,
                          _mm512_sub_ps(_mm512_sub_ps(v, av), bv));
  }
}

// One block of up to 16 columns: max, then exp and its sum (stored for
// softmax), then the scaling or the log-softmax subtraction. Reads of a
// row happen before its writes, so y may be x.
static void softmax_cols_avx512(size_t r, size_t n, size_t stride,
                                const float *x, float *y, bool log) {
  for (size_t i = 0; i < n; i += 16) {
    __mmask16 k = mask16(n - i);
    __m512 m = _mm512_maskz_loadu_ps(k, x + i);
    __mmask16 nan = _mm512_cmp_ps_mask(m, m, _CMP_UNORD_Q);
    for (size_t j = 1; j < r; ++j) {
      __m512 v = _mm512_maskz_loadu_ps(k, x + j * stride + i);
      nan |= _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
      m = _mm512_max_ps(m, v);
    }
    m = _mm512_mask_mov_ps(m, nan, _mm512_set1_ps(NAN));
    __m512 sum = _mm512_setzero_ps();
    for (size_t j = 0; j < r; ++j) {
      __m512 e =
          exp16(_mm512_sub_ps(_mm512_maskz_loadu_ps(k, x + j * stride + i), m));
      if (!log) {
        _mm512_mask_storeu_ps(y + j * stride + i, k, e);
      }
      sum = _mm512_add_ps(sum, e);
    }
    if (log) {
      float sums[16];
      _mm512_storeu_ps(sums, sum);
      for (int lane = 0; lane < 16; ++lane) {
        sums[lane] = logf(sums[lane]);
      }
      __m512 log_sum = _mm512_loadu_ps(sums);
      for (size_t j = 0; j < r; ++j) {
        __m512 v = _mm512_maskz_loadu_ps(k, x + j * stride + i);
        _mm512_mask_storeu_ps(y + j * stride + i, k,
                              _mm512_sub_ps(_mm512_sub_ps(v, m), log_sum));
      }
    } else {
      __m512 inverse = _mm512_div_ps(_mm512_set1_ps(1.0f), sum);
      for (size_t j = 0; j < r; ++j) {
        float *p = y + j * stride + i;
        _mm512_mask_storeu_ps(
            p, k, _mm512_mul_ps(_mm512_maskz_loadu_ps(k, p), inverse));
      }
    }
  }
}

static void normalize_avx512(size_t n, const float *x, float mean_hi,
                             float mean_lo, float scale, float shift,
                             float *y) {
  __m512 hi = _mm512_set1_ps(mean_hi);
  __m512 lo = _mm512_set1_ps(mean_lo);
  __m512 sv = _mm512_set1_ps(scale);
  __m512 tv = _mm512_set1_ps(shift);
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {  // whole vectors unmasked (as scale)
    __m512 d = _mm512_sub_ps(_mm512_sub_ps(_mm512_loadu_ps(x + i), hi), lo);
    _mm512_storeu_ps(y + i, _mm512_fmadd_ps(d, sv, tv));
  }
  if (i < n) {
    __mmask16 k = mask16(n - i);
    __m512 d = _mm512_sub_ps(_mm512_sub_ps(_mm512_maskz_loadu_ps(k, x + i), hi),
                             lo);
    _mm512_mask_storeu_ps(y + i, k, _mm512_fmadd_ps(d, sv, tv));
  }
}

// normalize_affine's lanes `k` of the vector at i (whole vectors, k the
// constant 0xffff, load unmasked).
ALWAYS_INLINE __m512 normalize_lanes(const float *x, const float *w,
                                     const float *b, size_t i, __mmask16 k,
                                     __m512 hi, __m512 lo, __m512 rv) {
  const bool whole = k == 0xffff;
  __m512 v = whole ? _mm512_loadu_ps(x + i) : _mm512_maskz_loadu_ps(k, x + i);
  __m512 t = _mm512_mul_ps(_mm512_sub_ps(_mm512_sub_ps(v, hi), lo), rv);
  __m512 wv = w == NULL ? _mm512_set1_ps(1.0f)
              : whole   ? _mm512_loadu_ps(w + i)
                        : _mm512_maskz_loadu_ps(k, w + i);
  __m512 bv = b == NULL ? _mm512_setzero_ps()
              : whole   ? _mm512_loadu_ps(b + i)
                        : _mm512_maskz_loadu_ps(k, b + i);
  return _mm512_fmadd_ps(t, wv, bv);
}

static void normalize_affine_avx512(size_t n, const float *x, float mean_hi,
                                    float mean_lo, float rstd,
                                    const float *w, const float *b,
                                    float *y) {
  __m512 hi = _mm512_set1_ps(mean_hi);
  __m512 lo = _mm512_set1_ps(mean_lo);
  __m512 rv = _mm512_set1_ps(rstd);
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {  // whole vectors unmasked (as scale)
    _mm512_storeu_ps(y + i, normalize_lanes(x, w, b, i, 0xffff, hi, lo, rv));
  }
  if (i < n) {
    __mmask16 k = mask16(n - i);
    _mm512_mask_storeu_ps(y + i, k, normalize_lanes(x, w, b, i, k, hi, lo, rv));
  }
}

// From y's first 64-byte boundary, whole vectors go out with streaming
// stores; the lanes before it and the tail with masked ordinary ones.
static void scale_stream_avx512(size_t n, const float *x, float s,
                                float *y) {
  __m512 sv = _mm512_set1_ps(s);
  size_t head = etr_stream_head(y, 64);
  head = head < n ? head : n;
  __mmask16 first = mask16(head);
  _mm512_mask_storeu_ps(y, first,
                        _mm512_mul_ps(_mm512_maskz_loadu_ps(first, x), sv));
  size_t i = head;
  for (; i + 16 <= n; i += 16) {
    _mm512_stream_ps(y + i, _mm512_mul_ps(_mm512_loadu_ps(x + i), sv));
  }
  if (i < n) {
    __mmask16 k = mask16(n - i);
    _mm512_mask_storeu_ps(y + i, k,
                          _mm512_mul_ps(_mm512_maskz_loadu_ps(k, x + i), sv));
  }
}

static void normalize_affine_stream_avx512(size_t n, const float *x,
                                           float mean_hi, float mean_lo,
                                           float rstd, const float *w,
                                           const float *b, float *y) {
  __m512 hi = _mm512_set1_ps(mean_hi);
  __m512 lo = _mm512_set1_ps(mean_lo);
  __m512 rv = _mm512_set1_ps(rstd);
  size_t head = etr_stream_head(y, 64);
  head = head < n ? head : n;
  __mmask16 first = mask16(head);
  _mm512_mask_storeu_ps(y, first,
                        normalize_lanes(x, w, b, 0, first, hi, lo, rv));
  size_t i = head;
  for (; i + 16 <= n; i += 16) {
    _mm512_stream_ps(y + i, normalize_lanes(x, w, b, i, 0xffff, hi, lo, rv));
  }
  if (i < n) {
    __mmask16 k = mask16(n - i);
    _mm512_mask_storeu_ps(y + i, k, normalize_lanes(x, w, b, i, k, hi, lo, rv));
  }
}

static void affine_avx512(size_t n, const float *x, float alpha, float beta,
                          float *y) {
  __m512 av = _mm512_set1_ps(alpha);
  __m512 bv = _mm512_set1_ps(beta);
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    __m512 a = _mm512_loadu_ps(x + i);
    __m512 b = _mm512_loadu_ps(x + i + 16);
    _mm512_storeu_ps(y + i, _mm512_fmadd_ps(a, av, bv));
    _mm512_storeu_ps(y + i + 16, _mm512_fmadd_ps(b, av, bv));
  }
  for (; i < n; i += 16) {
    __mmask16 k = mask16(n - i);
    _mm512_mask_storeu_ps(
        y + i, k, _mm512_fmadd_ps(_mm512_maskz_loadu_ps(k, x + i), av, bv));
  }
}

static void affine_channels_avx512(size_t pixels, size_t c, const float *x,
                                   const float *alpha, const float *beta,
                                   float *y) {
  if (c <= 16) {  // one vector of parameters, kept in registers
    __mmask16 k = mask16(c);
    __m512 av = _mm512_maskz_loadu_ps(k, alpha);
    __m512 bv = _mm512_maskz_loadu_ps(k, beta);
    for (size_t p = 0; p < pixels; ++p, x += c, y += c) {
      _mm512_mask_storeu_ps(
          y, k, _mm512_fmadd_ps(_mm512_maskz_loadu_ps(k, x), av, bv));
    }
    return;
  }
  for (size_t p = 0; p < pixels; ++p, x += c, y += c) {
    for (size_t i = 0; i < c; i += 16) {
      __mmask16 k = mask16(c - i);
      __m512 v = _mm512_maskz_loadu_ps(k, x + i);
      _mm512_mask_storeu_ps(
          y + i, k,
          _mm512_fmadd_ps(v, _mm512_maskz_loadu_ps(k, alpha + i),
                          _mm512_maskz_loadu_ps(k, beta + i)));
    }
  }
}

static void affine_planes_avx512(size_t c, size_t inner, const float *x,
                                 const float *alpha, const float *beta,
                                 float *y) {
  if (inner > 16) {
    for (size_t k = 0; k < c; ++k) {
      affine_avx512(inner, x + k * inner, alpha[k], beta[k], y + k * inner);
    }
    return;
  }
  __mmask16 m = mask16(inner);  // small planes: one masked vector each
  for (size_t k = 0; k < c; ++k, x += inner, y += inner) {
    __m512 v = _mm512_maskz_loadu_ps(m, x);
    _mm512_mask_storeu_ps(y, m,
                          _mm512_fmadd_ps(v, _mm512_set1_ps(alpha[k]),
                                          _mm512_set1_ps(beta[k])));
  }
}

// Eight channels at a time in double: sqrt, divide, multiply and subtract
// are each correctly rounded, as in etr_norm_bn_params_scalar.
static void bn_params_avx512(size_t c, const float *w, const float *b,
                             const float *m, const float *v, double eps,
                             float *alpha, float *beta) {
  const __m512d one = _mm512_set1_pd(1.0);
  const __m512d zero = _mm512_setzero_pd();
  const __m512d ev = _mm512_set1_pd(eps);
  for (size_t k = 0; k < c; k += 8) {
    __mmask8 n = c - k >= 8 ? (__mmask8)0xff : (__mmask8)((1u << (c - k)) - 1u);
    __m512d vv = v != NULL ? _mm512_cvtps_pd(_mm256_maskz_loadu_ps(n, v + k))
                           : one;
    __m512d wv = w != NULL ? _mm512_cvtps_pd(_mm256_maskz_loadu_ps(n, w + k))
                           : one;
    __m512d bv = b != NULL ? _mm512_cvtps_pd(_mm256_maskz_loadu_ps(n, b + k))
                           : zero;
    __m512d mv = m != NULL ? _mm512_cvtps_pd(_mm256_maskz_loadu_ps(n, m + k))
                           : zero;
    __m512d invstd = _mm512_div_pd(one, _mm512_sqrt_pd(_mm512_add_pd(vv, ev)));
    __m512d a = _mm512_mul_pd(wv, invstd);
    __m512d t = _mm512_sub_pd(bv, _mm512_mul_pd(mv, a));
    _mm256_mask_storeu_ps(alpha + k, n, _mm512_cvtpd_ps(a));
    _mm256_mask_storeu_ps(beta + k, n, _mm512_cvtpd_ps(t));
  }
}

// Eight rows at a time, a row a lane: 8 x 8 blocks of dy and x transposed
// so that each column step adds one element of every row, in index order
// as the scalar kernel (and the reference) adds them.
static void ln_backward_sums_avx512(size_t rows, size_t n, const float *dy,
                                    const float *x, const float *gamma,
                                    double *ds, double *db) {
  size_t r = 0;
  for (; r + 8 <= rows; r += 8) {
    const float *dy8 = dy + r * n;
    const float *x8 = x + r * n;
    __m512d s = _mm512_setzero_pd();
    __m512d b = _mm512_setzero_pd();
    size_t j = 0;
    for (; j + 8 <= n; j += 8) {
      __m256 d[8];
      __m256 v[8];
      for (int i = 0; i < 8; ++i) {
        d[i] = _mm256_loadu_ps(dy8 + (size_t)i * n + j);
        v[i] = _mm256_loadu_ps(x8 + (size_t)i * n + j);
      }
      etr_avx2_transpose8x8(d);
      etr_avx2_transpose8x8(v);
      for (int k = 0; k < 8; ++k) {
        __m512d g = _mm512_cvtps_pd(d[k]);
        if (gamma != NULL) {
          g = _mm512_mul_pd(g, _mm512_set1_pd((double)gamma[j + (size_t)k]));
        }
        s = _mm512_add_pd(s, _mm512_mul_pd(g, _mm512_cvtps_pd(v[k])));
        b = _mm512_add_pd(b, g);
      }
    }
    for (; j < n; ++j) {
      const float *d = dy8 + j;
      const float *e = x8 + j;
      __m512d g = _mm512_cvtps_pd(_mm256_setr_ps(
          d[0], d[n], d[2 * n], d[3 * n], d[4 * n], d[5 * n], d[6 * n],
          d[7 * n]));
      if (gamma != NULL) {
        g = _mm512_mul_pd(g, _mm512_set1_pd((double)gamma[j]));
      }
      __m512d xv = _mm512_cvtps_pd(_mm256_setr_ps(
          e[0], e[n], e[2 * n], e[3 * n], e[4 * n], e[5 * n], e[6 * n],
          e[7 * n]));
      s = _mm512_add_pd(s, _mm512_mul_pd(g, xv));
      b = _mm512_add_pd(b, g);
    }
    _mm512_storeu_pd(ds + r, s);
    _mm512_storeu_pd(db + r, b);
  }
  etr_norm_ln_backward_sums_scalar(rows - r, n, dy + r * n, x + r * n, gamma,
                                   ds + r, db + r);
}

// Eight columns a step in double: (s g) dy + b x + c, each operation
// rounded as the scalar kernel's.
static void ln_backward_dx_avx512(size_t n, const float *dy, const float *x,
                                  const float *gamma, double s, double b,
                                  double c, float *dx) {
  const __m512d sv = _mm512_set1_pd(s);
  const __m512d bv = _mm512_set1_pd(b);
  const __m512d cv = _mm512_set1_pd(c);
  for (size_t j = 0; j < n; j += 8) {
    __mmask8 m = n - j >= 8 ? (__mmask8)0xff : (__mmask8)((1u << (n - j)) - 1);
    __m512d sg = sv;
    if (gamma != NULL) {
      __m256 g = _mm256_maskz_loadu_ps(m, gamma + j);
      sg = _mm512_mul_pd(sv, _mm512_cvtps_pd(g));
    }
    __m512d dyv = _mm512_cvtps_pd(_mm256_maskz_loadu_ps(m, dy + j));
    __m512d xv = _mm512_cvtps_pd(_mm256_maskz_loadu_ps(m, x + j));
    __m512d y = _mm512_add_pd(
        _mm512_add_pd(_mm512_mul_pd(sg, dyv), _mm512_mul_pd(bv, xv)), cv);
    _mm256_mask_storeu_ps(dx + j, m, _mm512_cvtpd_ps(y));
  }
}

static void ln_backward_columns_avx512(size_t n, const float *dy,
                                       const float *x, double mean, double s,
                                       double *dweight, double *dbias) {
  const __m512d mv = _mm512_set1_pd(mean);
  const __m512d sv = _mm512_set1_pd(s);
  for (size_t j = 0; j < n; j += 8) {
    __mmask8 m = n - j >= 8 ? (__mmask8)0xff : (__mmask8)((1u << (n - j)) - 1);
    __m512d dyv = _mm512_cvtps_pd(_mm256_maskz_loadu_ps(m, dy + j));
    __m512d xv = _mm512_cvtps_pd(_mm256_maskz_loadu_ps(m, x + j));
    __m512d w = _mm512_mul_pd(_mm512_mul_pd(dyv, _mm512_sub_pd(xv, mv)), sv);
    __m512d wsum = _mm512_add_pd(_mm512_maskz_loadu_pd(m, dweight + j), w);
    __m512d bsum = _mm512_add_pd(_mm512_maskz_loadu_pd(m, dbias + j), dyv);
    _mm512_mask_storeu_pd(dweight + j, m, wsum);
    _mm512_mask_storeu_pd(dbias + j, m, bsum);
  }
}

// Eight rows at a time: the scalar divide and square root of each row,
// one after the other, were a sixth of the transformer's 16 x 64 layer
// norm (about 50 of its 330 ns).
static void ln_rstd_avx512(size_t count, double n, double eps,
                           double *variance, double *inverse) {
  const __m512d nv = _mm512_set1_pd(n);
  const __m512d ev = _mm512_set1_pd(eps);
  const __m512d one = _mm512_set1_pd(1.0);
  for (size_t o = 0; o < count; o += 8) {
    const __mmask8 m =
        count - o >= 8 ? (__mmask8)0xff : (__mmask8)((1u << (count - o)) - 1);
    const __m512d v =
        _mm512_div_pd(_mm512_maskz_loadu_pd(m, variance + o), nv);
    _mm512_mask_storeu_pd(variance + o, m, v);
    _mm512_mask_storeu_pd(
        inverse + o, m,
        _mm512_div_pd(one, _mm512_sqrt_pd(_mm512_add_pd(v, ev))));
  }
}

const etr_norm_kernels_t etr_norm_kernels_avx512 = {
    .max = max_avx512,
    .exp_sum = exp_sum_avx512,
    .exp_sum_only = exp_sum_only_avx512,
    .scale = scale_avx512,
    .sub2 = sub2_avx512,
    .softmax_short_rows = softmax_short_rows_avx512,
    .softmax_cols = softmax_cols_avx512,
    .normalize = normalize_avx512,
    .normalize_affine = normalize_affine_avx512,
    .scale_stream = scale_stream_avx512,
    .normalize_affine_stream = normalize_affine_stream_avx512,
    .affine = affine_avx512,
    .affine_channels = affine_channels_avx512,
    .affine_planes = affine_planes_avx512,
    .bn_params = bn_params_avx512,
    .ln_rstd = ln_rstd_avx512,
    .ln_backward_sums = ln_backward_sums_avx512,
    .ln_backward_dx = ln_backward_dx_avx512,
    .ln_backward_columns = ln_backward_columns_avx512,
};

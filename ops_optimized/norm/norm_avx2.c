// SPDX-License-Identifier: Apache-2.0
//
// Softmax and normalization microkernels, AVX2 + FMA: 8 lanes, tails as
// masked loads/stores (vmaskmov), so nothing past n or a column block is
// touched. exp is Cephes' expf polynomial after reducing by n ln 2 (ln 2
// split in two), scaled by 2^n built in the exponent field (n in
// [-126, 127] after clamping); NaN propagates and inputs below
// ln(2^-126) give 0. Semantics in norm.h.
#include <immintrin.h>
#include <math.h>

#include "ops_optimized/common/mask_avx2.h"
#include "ops_optimized/common/stream.h"
#include "ops_optimized/norm/norm.h"

#define ALWAYS_INLINE static inline __attribute__((always_inline))

// A load or store under an etr_avx2_first_lanes mask: whole vectors take
// the plain instruction (common/mask_avx2.h: layer_norm over rows of 768
// ran at 0.76x ExecuTorch's kernel on Zen 2 with every vector masked).
ALWAYS_INLINE __m256 load8(const float *p, __m256i k) {
  return etr_avx2_all_lanes(k) ? _mm256_loadu_ps(p)
                               : _mm256_maskload_ps(p, k);
}
ALWAYS_INLINE void store8(float *p, __m256i k, __m256 v) {
  etr_avx2_maskstore_ps(p, k, v);
}

ALWAYS_INLINE __m256 exp8(__m256 x) {
  const __m256 low = _mm256_set1_ps(-87.3365402f);  // ln(2^-126)
  __m256 underflow = _mm256_cmp_ps(x, low, _CMP_LT_OQ);
  // min/max return their second operand when one is NaN: NaN passes.
  x = _mm256_min_ps(_mm256_set1_ps(88.3762626f), x);
  x = _mm256_max_ps(low, x);
  __m256 n = _mm256_round_ps(
      _mm256_mul_ps(x, _mm256_set1_ps(1.44269504088896341f)),
      _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), x);
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), r);
  __m256 p = _mm256_set1_ps(1.9875691500e-4f);
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.3981999507e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894e-2f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459e-1f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201e-1f));
  p = _mm256_fmadd_ps(p, _mm256_mul_ps(r, r),
                      _mm256_add_ps(r, _mm256_set1_ps(1.0f)));
  __m256i exponent = _mm256_slli_epi32(
      _mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
  __m256 y = _mm256_mul_ps(p, _mm256_castsi256_ps(exponent));
  return _mm256_andnot_ps(underflow, y);
}

ALWAYS_INLINE float hsum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v),
                        _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

static float max_avx2(size_t n, const float *x) {
  __m256 m0 = _mm256_set1_ps(x[0]);
  __m256 m1 = m0;
  __m256 nan = _mm256_setzero_ps();
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m256 a = _mm256_loadu_ps(x + i);
    __m256 b = _mm256_loadu_ps(x + i + 8);
    nan = _mm256_or_ps(nan, _mm256_cmp_ps(a, b, _CMP_UNORD_Q));
    m0 = _mm256_max_ps(m0, a);
    m1 = _mm256_max_ps(m1, b);
  }
  for (; i < n; ++i) {
    if (isnan(x[i])) {
      return NAN;
    }
    m0 = _mm256_max_ps(m0, _mm256_set1_ps(x[i]));
  }
  if (_mm256_movemask_ps(nan) != 0) {
    return NAN;
  }
  __m256 m = _mm256_max_ps(m0, m1);
  __m128 h = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
  h = _mm_max_ps(h, _mm_movehl_ps(h, h));
  h = _mm_max_ss(h, _mm_movehdup_ps(h));
  return _mm_cvtss_f32(h);
}

static float exp_sum_avx2(size_t n, const float *x, float m, float *y) {
  __m256 mv = _mm256_set1_ps(m);
  __m256 s0 = _mm256_setzero_ps();
  __m256 s1 = _mm256_setzero_ps();
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m256 e0 = exp8(_mm256_sub_ps(_mm256_loadu_ps(x + i), mv));
    __m256 e1 = exp8(_mm256_sub_ps(_mm256_loadu_ps(x + i + 8), mv));
    _mm256_storeu_ps(y + i, e0);
    _mm256_storeu_ps(y + i + 8, e1);
    s0 = _mm256_add_ps(s0, e0);
    s1 = _mm256_add_ps(s1, e1);
  }
  for (; i < n; i += 8) {
    __m256i k = etr_avx2_first_lanes((int64_t)(n - i));
    __m256 e = exp8(_mm256_sub_ps(load8(x + i, k), mv));
    e = _mm256_and_ps(e, _mm256_castsi256_ps(k));
    store8(y + i, k, e);
    s0 = _mm256_add_ps(s0, e);
  }
  return hsum(_mm256_add_ps(s0, s1));
}

static float exp_sum_only_avx2(size_t n, const float *x, float m) {
  __m256 mv = _mm256_set1_ps(m);
  __m256 s0 = _mm256_setzero_ps();
  __m256 s1 = _mm256_setzero_ps();
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    s0 = _mm256_add_ps(s0, exp8(_mm256_sub_ps(_mm256_loadu_ps(x + i), mv)));
    s1 = _mm256_add_ps(s1,
                       exp8(_mm256_sub_ps(_mm256_loadu_ps(x + i + 8), mv)));
  }
  for (; i < n; i += 8) {
    __m256i k = etr_avx2_first_lanes((int64_t)(n - i));
    __m256 e = exp8(_mm256_sub_ps(load8(x + i, k), mv));
    s0 = _mm256_add_ps(s0, _mm256_and_ps(e, _mm256_castsi256_ps(k)));
  }
  return hsum(_mm256_add_ps(s0, s1));
}

static void scale_avx2(size_t n, float *y, float s) {
  __m256 sv = _mm256_set1_ps(s);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    _mm256_storeu_ps(y + i, _mm256_mul_ps(_mm256_loadu_ps(y + i), sv));
  }
  if (i < n) {
    __m256i k = etr_avx2_first_lanes((int64_t)(n - i));
    store8(y + i, k, _mm256_mul_ps(load8(y + i, k), sv));
  }
}

static void sub2_avx2(size_t n, const float *x, float a, float b, float *y) {
  __m256 av = _mm256_set1_ps(a);
  __m256 bv = _mm256_set1_ps(b);
  for (size_t i = 0; i < n; i += 8) {
    __m256i k = etr_avx2_first_lanes((int64_t)(n - i));
    __m256 v = load8(x + i, k);
    store8(y + i, k, _mm256_sub_ps(_mm256_sub_ps(v, av), bv));
  }
}

// One block of up to 8 columns at a time (see the AVX-512 file).
static void softmax_cols_avx2(size_t r, size_t n, size_t stride,
                              const float *x, float *y, bool log) {
  for (size_t i = 0; i < n; i += 8) {
    __m256i k = etr_avx2_first_lanes((int64_t)(n - i));
    __m256 m = load8(x + i, k);
    __m256 nan = _mm256_cmp_ps(m, m, _CMP_UNORD_Q);
    for (size_t j = 1; j < r; ++j) {
      __m256 v = load8(x + j * stride + i, k);
      nan = _mm256_or_ps(nan, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
      m = _mm256_max_ps(m, v);
    }
    m = _mm256_blendv_ps(m, _mm256_set1_ps(NAN), nan);
    __m256 sum = _mm256_setzero_ps();
    for (size_t j = 0; j < r; ++j) {
      __m256 e = exp8(_mm256_sub_ps(load8(x + j * stride + i, k),
                                    m));
      if (!log) {
        store8(y + j * stride + i, k, e);
      }
      sum = _mm256_add_ps(sum, e);
    }
    if (log) {
      float sums[8];
      _mm256_storeu_ps(sums, sum);
      for (int lane = 0; lane < 8; ++lane) {
        sums[lane] = logf(sums[lane]);
      }
      __m256 log_sum = _mm256_loadu_ps(sums);
      for (size_t j = 0; j < r; ++j) {
        __m256 v = load8(x + j * stride + i, k);
        store8(y + j * stride + i, k,
               _mm256_sub_ps(_mm256_sub_ps(v, m), log_sum));
      }
    } else {
      __m256 inverse = _mm256_div_ps(_mm256_set1_ps(1.0f), sum);
      for (size_t j = 0; j < r; ++j) {
        float *p = y + j * stride + i;
        store8(p, k, _mm256_mul_ps(load8(p, k), inverse));
      }
    }
  }
}

static void normalize_avx2(size_t n, const float *x, float mean_hi,
                           float mean_lo, float scale, float shift,
                           float *y) {
  __m256 hi = _mm256_set1_ps(mean_hi);
  __m256 lo = _mm256_set1_ps(mean_lo);
  __m256 sv = _mm256_set1_ps(scale);
  __m256 tv = _mm256_set1_ps(shift);
  for (size_t i = 0; i < n; i += 8) {
    __m256i k = etr_avx2_first_lanes((int64_t)(n - i));
    __m256 d = _mm256_sub_ps(_mm256_sub_ps(load8(x + i, k), hi),
                             lo);
    store8(y + i, k, _mm256_fmadd_ps(d, sv, tv));
  }
}

// normalize_affine's lanes `k` of the vector at i.
ALWAYS_INLINE __m256 normalize_lanes(const float *x, const float *w,
                                     const float *b, size_t i, __m256i k,
                                     __m256 hi, __m256 lo, __m256 rv) {
  __m256 d = _mm256_sub_ps(_mm256_sub_ps(load8(x + i, k), hi), lo);
  __m256 t = _mm256_mul_ps(d, rv);
  __m256 wv = w != NULL ? load8(w + i, k) : _mm256_set1_ps(1.0f);
  __m256 bv = b != NULL ? load8(b + i, k) : _mm256_setzero_ps();
  return _mm256_fmadd_ps(t, wv, bv);
}

static void normalize_affine_avx2(size_t n, const float *x, float mean_hi,
                                  float mean_lo, float rstd, const float *w,
                                  const float *b, float *y) {
  __m256 hi = _mm256_set1_ps(mean_hi);
  __m256 lo = _mm256_set1_ps(mean_lo);
  __m256 rv = _mm256_set1_ps(rstd);
  for (size_t i = 0; i < n; i += 8) {
    __m256i k = etr_avx2_first_lanes((int64_t)(n - i));
    store8(y + i, k, normalize_lanes(x, w, b, i, k, hi, lo, rv));
  }
}

// From y's first 32-byte boundary, whole vectors go out with streaming
// stores; the lanes before it and the tail with masked ordinary ones.
static void scale_stream_avx2(size_t n, const float *x, float s, float *y) {
  __m256 sv = _mm256_set1_ps(s);
  size_t head = etr_stream_head(y, 32);
  head = head < n ? head : n;
  __m256i first = etr_avx2_first_lanes((int64_t)head);
  store8(y, first, _mm256_mul_ps(load8(x, first), sv));
  size_t i = head;
  for (; i + 8 <= n; i += 8) {
    _mm256_stream_ps(y + i, _mm256_mul_ps(_mm256_loadu_ps(x + i), sv));
  }
  if (i < n) {
    __m256i k = etr_avx2_first_lanes((int64_t)(n - i));
    store8(y + i, k, _mm256_mul_ps(load8(x + i, k), sv));
  }
}

static void normalize_affine_stream_avx2(size_t n, const float *x,
                                         float mean_hi, float mean_lo,
                                         float rstd, const float *w,
                                         const float *b, float *y) {
  __m256 hi = _mm256_set1_ps(mean_hi);
  __m256 lo = _mm256_set1_ps(mean_lo);
  __m256 rv = _mm256_set1_ps(rstd);
  size_t head = etr_stream_head(y, 32);
  head = head < n ? head : n;
  __m256i first = etr_avx2_first_lanes((int64_t)head);
  store8(y, first, normalize_lanes(x, w, b, 0, first, hi, lo, rv));
  const __m256i all = _mm256_set1_epi32(-1);
  size_t i = head;
  for (; i + 8 <= n; i += 8) {
    _mm256_stream_ps(y + i, normalize_lanes(x, w, b, i, all, hi, lo, rv));
  }
  if (i < n) {
    __m256i k = etr_avx2_first_lanes((int64_t)(n - i));
    store8(y + i, k, normalize_lanes(x, w, b, i, k, hi, lo, rv));
  }
}

static void affine_avx2(size_t n, const float *x, float alpha, float beta,
                        float *y) {
  __m256 av = _mm256_set1_ps(alpha);
  __m256 bv = _mm256_set1_ps(beta);
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m256 a = _mm256_loadu_ps(x + i);
    __m256 b = _mm256_loadu_ps(x + i + 8);
    _mm256_storeu_ps(y + i, _mm256_fmadd_ps(a, av, bv));
    _mm256_storeu_ps(y + i + 8, _mm256_fmadd_ps(b, av, bv));
  }
  for (; i < n; i += 8) {
    __m256i k = etr_avx2_first_lanes((int64_t)(n - i));
    store8(y + i, k, _mm256_fmadd_ps(load8(x + i, k), av, bv));
  }
}

static void affine_channels_avx2(size_t pixels, size_t c, const float *x,
                                 const float *alpha, const float *beta,
                                 float *y) {
  for (size_t p = 0; p < pixels; ++p, x += c, y += c) {
    for (size_t i = 0; i < c; i += 8) {
      __m256i k = etr_avx2_first_lanes((int64_t)(c - i));
      __m256 v = load8(x + i, k);
      store8(y + i, k,
             _mm256_fmadd_ps(v, load8(alpha + i, k),
                             load8(beta + i, k)));
    }
  }
}

static void affine_planes_avx2(size_t c, size_t inner, const float *x,
                               const float *alpha, const float *beta,
                               float *y) {
  for (size_t k = 0; k < c; ++k) {
    affine_avx2(inner, x + k * inner, alpha[k], beta[k], y + k * inner);
  }
}

// Four channels at a time in double, each step correctly rounded as in
// etr_norm_bn_params_scalar; the tail is that function.
static void bn_params_avx2(size_t c, const float *w, const float *b,
                           const float *m, const float *v, double eps,
                           float *alpha, float *beta) {
  const __m256d one = _mm256_set1_pd(1.0);
  const __m256d zero = _mm256_setzero_pd();
  const __m256d ev = _mm256_set1_pd(eps);
  size_t k = 0;
  for (; k + 4 <= c; k += 4) {
    __m256d vv = v != NULL ? _mm256_cvtps_pd(_mm_loadu_ps(v + k)) : one;
    __m256d wv = w != NULL ? _mm256_cvtps_pd(_mm_loadu_ps(w + k)) : one;
    __m256d bv = b != NULL ? _mm256_cvtps_pd(_mm_loadu_ps(b + k)) : zero;
    __m256d mv = m != NULL ? _mm256_cvtps_pd(_mm_loadu_ps(m + k)) : zero;
    __m256d invstd = _mm256_div_pd(one, _mm256_sqrt_pd(_mm256_add_pd(vv, ev)));
    __m256d a = _mm256_mul_pd(wv, invstd);
    __m256d t = _mm256_sub_pd(bv, _mm256_mul_pd(mv, a));
    _mm_storeu_ps(alpha + k, _mm256_cvtpd_ps(a));
    _mm_storeu_ps(beta + k, _mm256_cvtpd_ps(t));
  }
  etr_norm_bn_params_scalar(c - k, w != NULL ? w + k : NULL,
                            b != NULL ? b + k : NULL,
                            m != NULL ? m + k : NULL,
                            v != NULL ? v + k : NULL, eps, alpha + k,
                            beta + k);
}

const etr_norm_kernels_t etr_norm_kernels_avx2 = {
    .max = max_avx2,
    .exp_sum = exp_sum_avx2,
    .exp_sum_only = exp_sum_only_avx2,
    .scale = scale_avx2,
    .sub2 = sub2_avx2,
    .softmax_cols = softmax_cols_avx2,
    .normalize = normalize_avx2,
    .normalize_affine = normalize_affine_avx2,
    .scale_stream = scale_stream_avx2,
    .normalize_affine_stream = normalize_affine_stream_avx2,
    .affine = affine_avx2,
    .affine_channels = affine_channels_avx2,
    .affine_planes = affine_planes_avx2,
    .bn_params = bn_params_avx2,
    .ln_backward_sums = etr_norm_ln_backward_sums_scalar,
    .ln_backward_dx = etr_norm_ln_backward_dx_scalar,
    .ln_backward_columns = etr_norm_ln_backward_columns_scalar,
};

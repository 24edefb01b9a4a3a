// SPDX-License-Identifier: Apache-2.0
//
// SplitMix64 draws, AVX2: 4 counters per vector; AVX2 has no 64-bit
// multiply, so each product is lo*lo + ((lo*hi + hi*lo) << 32) from three
// VPMULUDQ (the low 64 bits, exactly). Tails through a stack buffer.
// Semantics in random.h.
#include <immintrin.h>
#include <string.h>

#include "ops_optimized/common/mask_avx2.h"
#include "ops_optimized/random/random.h"

static inline __m256i mullo64(__m256i a, __m256i b) {
  __m256i low = _mm256_mul_epu32(a, b);
  __m256i cross = _mm256_add_epi64(
      _mm256_mul_epu32(_mm256_srli_epi64(a, 32), b),
      _mm256_mul_epu32(a, _mm256_srli_epi64(b, 32)));
  return _mm256_add_epi64(low, _mm256_slli_epi64(cross, 32));
}

static void draws_avx2(uint64_t state, size_t n, uint64_t *out) {
  const __m256i gamma4 =
      _mm256_set1_epi64x((long long)(ETR_RANDOM_GAMMA * 4));
  const __m256i m1 =
      _mm256_set1_epi64x((long long)UINT64_C(0xbf58476d1ce4e5b9));
  const __m256i m2 =
      _mm256_set1_epi64x((long long)UINT64_C(0x94d049bb133111eb));
  __m256i z0 = _mm256_setr_epi64x((long long)(state + 1 * ETR_RANDOM_GAMMA),
                                  (long long)(state + 2 * ETR_RANDOM_GAMMA),
                                  (long long)(state + 3 * ETR_RANDOM_GAMMA),
                                  (long long)(state + 4 * ETR_RANDOM_GAMMA));
  for (size_t k = 0; k < n; k += 4) {
    __m256i z = z0;
    z = mullo64(_mm256_xor_si256(z, _mm256_srli_epi64(z, 30)), m1);
    z = mullo64(_mm256_xor_si256(z, _mm256_srli_epi64(z, 27)), m2);
    z = _mm256_xor_si256(z, _mm256_srli_epi64(z, 31));
    if (n - k >= 4) {
      _mm256_storeu_si256((__m256i *)(out + k), z);
    } else {
      uint64_t lanes[4];
      _mm256_storeu_si256((__m256i *)lanes, z);
      memcpy(out + k, lanes, (n - k) * sizeof(uint64_t));
    }
    z0 = _mm256_add_epi64(z0, gamma4);
  }
}

// Four elements a step: the draws compared with the threshold as
// integers (k < 2^53: the signed compare is exact), x widened to double,
// times the kept 1.0 or 0.0, times the scale, narrowed; the mask bytes
// from the compare's lanes. The last n % 4 one at a time.
static void dropout_avx2(const uint64_t *draws, size_t n, uint64_t threshold,
                         double scale, const float *x, float *y,
                         uint8_t *m) {
  const __m256i limit = _mm256_set1_epi64x((long long)threshold);
  const __m256d s = _mm256_set1_pd(scale);
  const __m256d one = _mm256_set1_pd(1.0);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const __m256i k = _mm256_srli_epi64(
        _mm256_loadu_si256((const __m256i *)(draws + i)), 11);
    const __m256i keep = _mm256_cmpgt_epi64(limit, k);
    const __m256d kept = _mm256_and_pd(_mm256_castsi256_pd(keep), one);
    const __m256d v = _mm256_cvtps_pd(_mm_loadu_ps(x + i));
    _mm_storeu_ps(y + i,
                  _mm256_cvtpd_ps(_mm256_mul_pd(_mm256_mul_pd(v, kept), s)));
    const int bits = _mm256_movemask_pd(_mm256_castsi256_pd(keep));
    for (int b = 0; b < 4; ++b) {
      m[i + (size_t)b] = (uint8_t)((bits >> b) & 1);
    }
  }
  for (; i < n; ++i) {
    const bool keep = (draws[i] >> 11) < threshold;
    const double kept = keep ? 1.0 : 0.0;
    y[i] = (float)((double)x[i] * kept * scale);
    m[i] = keep ? 1 : 0;
  }
}

// u = (d >> 11) 2^-52 - 1 of four draws (lanes `m`), with no 64-bit
// conversion: k = d >> 11 < 2^53, its low 52 bits as the mantissa of a
// double in [1, 2) give m = 1 + (k mod 2^52) 2^-52, and u = m - 1 when
// bit 52 of k is set, m - 2 when not: both differences exact (Sterbenz),
// as the reference's value is, so the same double.
static __m256d uniform_pm1(const uint64_t *d, __m256i m) {
  const __m256i k =
      _mm256_srli_epi64(_mm256_maskload_epi64((const long long *)d, m), 11);
  const __m256i mantissa = _mm256_set1_epi64x((long long)0xfffffffffffff);
  const __m256d one_two = _mm256_castsi256_pd(_mm256_or_si256(
      _mm256_and_si256(k, mantissa), _mm256_castpd_si256(_mm256_set1_pd(1))));
  const __m256i top = _mm256_srli_epi64(k, 52);  // 0 or 1
  const __m256d minus = _mm256_blendv_pd(
      _mm256_set1_pd(2.0), _mm256_set1_pd(1.0),
      _mm256_castsi256_pd(_mm256_sub_epi64(_mm256_setzero_si256(), top)));
  return _mm256_sub_pd(one_two, minus);
}

// Four attempts a step (random.h): the two draws of each pair split out
// of two vectors, q = u * u + v * v never fused, and the accepted lanes
// stored one by one from the compare's bits (AVX2 has no compress).
static size_t polar_accept_avx2(const uint64_t *draws, size_t pairs,
                                double *u, double *v, double *q,
                                uint32_t *at) {
  const __m256d one = _mm256_set1_pd(1.0);
  const __m256d zero = _mm256_setzero_pd();
  size_t count = 0;
  for (size_t j = 0; j < pairs; j += 4) {
    // The draws left, as 64-bit lanes (two of etr_avx2_first_lanes' each).
    const int64_t left = (int64_t)(2 * (pairs - j));
    const __m256d a =
        uniform_pm1(draws + 2 * j, etr_avx2_first_lanes(2 * left));
    const __m256d b =
        uniform_pm1(draws + 2 * j + 4, etr_avx2_first_lanes(2 * (left - 4)));
    // (a0, b0, a2, b2) and (a1, b1, a3, b3) into pair order.
    const __m256d uj =
        _mm256_permute4x64_pd(_mm256_unpacklo_pd(a, b), 0xd8);
    const __m256d vj =
        _mm256_permute4x64_pd(_mm256_unpackhi_pd(a, b), 0xd8);
    const __m256d qj =
        _mm256_add_pd(_mm256_mul_pd(uj, uj), _mm256_mul_pd(vj, vj));
    const __m256d ok = _mm256_and_pd(_mm256_cmp_pd(qj, one, _CMP_LT_OQ),
                                     _mm256_cmp_pd(qj, zero, _CMP_NEQ_OQ));
    const size_t lanes = pairs - j < 4 ? pairs - j : 4;
    unsigned take = (unsigned)_mm256_movemask_pd(ok) & ((1u << lanes) - 1u);
    if (take == 0) {
      continue;
    }
    double us[4], vs[4], qs[4];
    _mm256_storeu_pd(us, uj);
    _mm256_storeu_pd(vs, vj);
    _mm256_storeu_pd(qs, qj);
    for (; take != 0; take &= take - 1) {
      const unsigned l = (unsigned)__builtin_ctz(take);
      u[count] = us[l];
      v[count] = vs[l];
      q[count] = qs[l];
      at[count] = (uint32_t)(j + l);
      ++count;
    }
  }
  return count;
}

static void polar_finish_avx2(size_t n, const double *u, const double *v,
                              const double *q, const double *lq,
                              double *first, double *second) {
  const __m256d minus_two = _mm256_set1_pd(-2.0);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const __m256d f = _mm256_sqrt_pd(_mm256_div_pd(
        _mm256_mul_pd(minus_two, _mm256_loadu_pd(lq + i)),
        _mm256_loadu_pd(q + i)));
    _mm256_storeu_pd(first + i, _mm256_mul_pd(_mm256_loadu_pd(u + i), f));
    _mm256_storeu_pd(second + i, _mm256_mul_pd(_mm256_loadu_pd(v + i), f));
  }
  for (; i < n; ++i) {  // the same operations, one lane
    const __m128d f = _mm_sqrt_sd(
        _mm_setzero_pd(),
        _mm_div_sd(_mm_mul_sd(_mm_set_sd(-2.0), _mm_set_sd(lq[i])),
                   _mm_set_sd(q[i])));
    first[i] = _mm_cvtsd_f64(_mm_mul_sd(_mm_set_sd(u[i]), f));
    second[i] = _mm_cvtsd_f64(_mm_mul_sd(_mm_set_sd(v[i]), f));
  }
}

const etr_random_kernels_t etr_random_kernels_avx2 = {
    .draws = draws_avx2,
    .dropout = dropout_avx2,
    .polar_accept = polar_accept_avx2,
    .polar_finish = polar_finish_avx2,
};

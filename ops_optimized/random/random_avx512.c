// SPDX-License-Identifier: Apache-2.0
//
// SplitMix64 draws, AVX-512: 8 counters per vector, VPMULLQ (AVX-512DQ)
// for the two 64-bit multiplies; the tail through a masked store.
// Semantics in random.h.
#include <immintrin.h>

#include "ops_optimized/random/random.h"

static void draws_avx512(uint64_t state, size_t n, uint64_t *out) {
  const __m512i gamma8 =
      _mm512_set1_epi64((long long)(ETR_RANDOM_GAMMA * 8));
  const __m512i m1 =
      _mm512_set1_epi64((long long)UINT64_C(0xbf58476d1ce4e5b9));
  const __m512i m2 =
      _mm512_set1_epi64((long long)UINT64_C(0x94d049bb133111eb));
  __m512i z0 = _mm512_setr_epi64(
      (long long)(state + 1 * ETR_RANDOM_GAMMA),
      (long long)(state + 2 * ETR_RANDOM_GAMMA),
      (long long)(state + 3 * ETR_RANDOM_GAMMA),
      (long long)(state + 4 * ETR_RANDOM_GAMMA),
      (long long)(state + 5 * ETR_RANDOM_GAMMA),
      (long long)(state + 6 * ETR_RANDOM_GAMMA),
      (long long)(state + 7 * ETR_RANDOM_GAMMA),
      (long long)(state + 8 * ETR_RANDOM_GAMMA));
  for (size_t k = 0; k < n; k += 8) {
    __m512i z = z0;
    z = _mm512_mullo_epi64(_mm512_xor_si512(z, _mm512_srli_epi64(z, 30)),
                           m1);
    z = _mm512_mullo_epi64(_mm512_xor_si512(z, _mm512_srli_epi64(z, 27)),
                           m2);
    z = _mm512_xor_si512(z, _mm512_srli_epi64(z, 31));
    size_t count = n - k < 8 ? n - k : 8;
    _mm512_mask_storeu_epi64(out + k, (__mmask8)((1u << count) - 1u), z);
    z0 = _mm512_add_epi64(z0, gamma8);
  }
}

// Eight elements a step: the draws compared with the threshold as
// integers (k < 2^53: a signed compare is exact), x widened to double,
// times the kept 1.0 or 0.0, times the scale, narrowed; the mask bytes
// from the compare's lanes.
static void dropout_avx512(const uint64_t *draws, size_t n,
                           uint64_t threshold, double scale, const float *x,
                           float *y, uint8_t *m) {
  const __m512i limit = _mm512_set1_epi64((long long)threshold);
  const __m512d s = _mm512_set1_pd(scale);
  const __m512d one = _mm512_set1_pd(1.0);
  for (size_t i = 0; i < n; i += 8) {
    const size_t left = n - i;
    const __mmask8 lanes =
        left >= 8 ? (__mmask8)0xff : (__mmask8)((1u << left) - 1u);
    const __m512i k =
        _mm512_srli_epi64(_mm512_maskz_loadu_epi64(lanes, draws + i), 11);
    const __mmask8 keep = _mm512_cmplt_epi64_mask(k, limit);
    const __m512d kept = _mm512_maskz_mov_pd(keep, one);
    const __m512d v = _mm512_cvtps_pd(_mm256_maskz_loadu_ps(lanes, x + i));
    _mm256_mask_storeu_ps(y + i, lanes,
                          _mm512_cvtpd_ps(_mm512_mul_pd(
                              _mm512_mul_pd(v, kept), s)));
    _mm_mask_storeu_epi8(m + i, lanes,
                         _mm_maskz_mov_epi8(keep, _mm_set1_epi8(1)));
  }
}

// u = (d >> 11) 2^-52 - 1 of eight draws (exact: the conversion of a
// 53-bit integer, a product by a power of two, a difference Sterbenz or
// the grid of 2^-52 keeps exact), as the reference computes it.
static __m512d uniform_pm1(const uint64_t *d, __mmask8 lanes) {
  const __m512i k = _mm512_srli_epi64(_mm512_maskz_loadu_epi64(lanes, d), 11);
  return _mm512_sub_pd(_mm512_mul_pd(_mm512_cvtepu64_pd(k),
                                     _mm512_set1_pd(0x1p-52)),
                       _mm512_set1_pd(1.0));
}

// Eight attempts a step: the pairs' first and second draws split out of
// two vectors of interleaved draws, q = u * u + v * v (two products and a
// sum, never fused: the reference's rounding), the accepted lanes
// compressed to the outs in order.
static size_t polar_accept_avx512(const uint64_t *draws, size_t pairs,
                                  double *u, double *v, double *q,
                                  uint32_t *at) {
  const __m512i evens = _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14);
  const __m512i odds = _mm512_setr_epi64(1, 3, 5, 7, 9, 11, 13, 15);
  const __m512d one = _mm512_set1_pd(1.0);
  const __m512d zero = _mm512_setzero_pd();
  __m256i index = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  size_t count = 0;
  for (size_t j = 0; j < pairs; j += 8) {
    const size_t left = 2 * (pairs - j);
    const __mmask8 lo =
        left >= 8 ? (__mmask8)0xff : (__mmask8)((1u << left) - 1u);
    const __mmask8 hi = left >= 16  ? (__mmask8)0xff
                        : left <= 8 ? (__mmask8)0
                                    : (__mmask8)((1u << (left - 8)) - 1u);
    const __m512d a = uniform_pm1(draws + 2 * j, lo);
    const __m512d b = uniform_pm1(draws + 2 * j + 8, hi);
    const __m512d uj = _mm512_permutex2var_pd(a, evens, b);
    const __m512d vj = _mm512_permutex2var_pd(a, odds, b);
    const __m512d qj =
        _mm512_add_pd(_mm512_mul_pd(uj, uj), _mm512_mul_pd(vj, vj));
    const __mmask8 lanes = pairs - j >= 8
                               ? (__mmask8)0xff
                               : (__mmask8)((1u << (pairs - j)) - 1u);
    const __mmask8 take = _mm512_mask_cmp_pd_mask(lanes, qj, one, _CMP_LT_OQ) &
                          _mm512_cmp_pd_mask(qj, zero, _CMP_NEQ_OQ);
    _mm512_mask_compressstoreu_pd(u + count, take, uj);
    _mm512_mask_compressstoreu_pd(v + count, take, vj);
    _mm512_mask_compressstoreu_pd(q + count, take, qj);
    _mm256_mask_compressstoreu_epi32(at + count, take, index);
    index = _mm256_add_epi32(index, _mm256_set1_epi32(8));
    count += (size_t)__builtin_popcount(take);
  }
  return count;
}

static void polar_finish_avx512(size_t n, const double *u, const double *v,
                                const double *q, const double *lq,
                                double *first, double *second) {
  const __m512d minus_two = _mm512_set1_pd(-2.0);
  for (size_t i = 0; i < n; i += 8) {
    const __mmask8 lanes =
        n - i >= 8 ? (__mmask8)0xff : (__mmask8)((1u << (n - i)) - 1u);
    const __m512d f = _mm512_sqrt_pd(
        _mm512_div_pd(_mm512_mul_pd(minus_two, _mm512_maskz_loadu_pd(lanes,
                                                                     lq + i)),
                      _mm512_mask_loadu_pd(_mm512_set1_pd(1.0), lanes,
                                           q + i)));
    _mm512_mask_storeu_pd(first + i, lanes,
                          _mm512_mul_pd(_mm512_maskz_loadu_pd(lanes, u + i),
                                        f));
    _mm512_mask_storeu_pd(second + i, lanes,
                          _mm512_mul_pd(_mm512_maskz_loadu_pd(lanes, v + i),
                                        f));
  }
}

const etr_random_kernels_t etr_random_kernels_avx512 = {
    .draws = draws_avx512,
    .dropout = dropout_avx512,
    .polar_accept = polar_accept_avx512,
    .polar_finish = polar_finish_avx512,
};

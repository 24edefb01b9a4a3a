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

const etr_random_kernels_t etr_random_kernels_avx512 = {
    .draws = draws_avx512,
    .dropout = dropout_avx512,
};

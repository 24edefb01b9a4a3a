// SPDX-License-Identifier: Apache-2.0
//
// SplitMix64 draws, AVX2: 4 counters per vector; AVX2 has no 64-bit
// multiply, so each product is lo*lo + ((lo*hi + hi*lo) << 32) from three
// VPMULUDQ (the low 64 bits, exactly). Tails through a stack buffer.
// Semantics in random.h.
#include <immintrin.h>
#include <string.h>

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

const etr_random_kernels_t etr_random_kernels_avx2 = {
    .draws = draws_avx2,
    .dropout = dropout_avx2,
};

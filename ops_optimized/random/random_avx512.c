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

const etr_random_kernels_t etr_random_kernels_avx512 = {
    .draws = draws_avx512,
};

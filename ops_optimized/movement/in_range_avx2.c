// SPDX-License-Identifier: Apache-2.0
//
// etr_move_in_range (movement.h), AVX2: four Long or eight Int entries a
// step, each compared (signed) below `low` and above size - 1, the
// results ORed and tested every 1024 entries; the last entries of a
// count that is not a multiple of the step one at a time.
#include <immintrin.h>

#include "ops_optimized/movement/movement.h"

bool etr_move_in_range_avx2(const void *entries, bool is_long, size_t count,
                            int64_t low, int64_t size) {
  const int64_t high = size - 1;
  const size_t step = is_long ? 4 : 8;
  const size_t whole = count / step * step;
  // Int entries against the bounds clamped to int32 (an Int entry is
  // never below INT32_MIN or above INT32_MAX).
  const int32_t low32 = low < INT32_MIN ? INT32_MIN : (int32_t)low;
  const int32_t high32 = high > INT32_MAX ? INT32_MAX : (int32_t)high;
  const __m256i below =
      is_long ? _mm256_set1_epi64x(low) : _mm256_set1_epi32(low32);
  const __m256i above =
      is_long ? _mm256_set1_epi64x(high) : _mm256_set1_epi32(high32);
  for (size_t k0 = 0; k0 < whole; k0 += 1024) {
    const size_t k1 = whole - k0 < 1024 ? whole : k0 + 1024;
    __m256i outside = _mm256_setzero_si256();
    for (size_t k = k0; k < k1; k += step) {
      const char *p = (const char *)entries + k * (is_long ? 8 : 4);
      const __m256i v = _mm256_loadu_si256((const __m256i *)p);
      if (is_long) {
        outside = _mm256_or_si256(
            outside, _mm256_or_si256(_mm256_cmpgt_epi64(below, v),
                                     _mm256_cmpgt_epi64(v, above)));
      } else {
        outside = _mm256_or_si256(
            outside, _mm256_or_si256(_mm256_cmpgt_epi32(below, v),
                                     _mm256_cmpgt_epi32(v, above)));
      }
    }
    if (!_mm256_testz_si256(outside, outside)) {
      return false;
    }
  }
  for (size_t k = whole; k < count; ++k) {
    const int64_t v = is_long ? ((const int64_t *)entries)[k]
                              : ((const int32_t *)entries)[k];
    if (v < low || v > high) {
      return false;
    }
  }
  return true;
}

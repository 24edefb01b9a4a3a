// SPDX-License-Identifier: Apache-2.0
//
// sort's slices of distinct numbers on AVX-512 (the reduce table's
// sort_distinct, see reduce.h): each value packed with its index as key
// << 32 | index (key: the float's bits in an unsigned order, sort_f32.c's
// float_key), the entries ordered by a bitonic sorting network, then
// checked and unpacked into the outs. The network is Batcher's: for k =
// 2, 4, .., n and j = k / 2, .., 1, entry i and entry i ^ j swap into
// order, ascending where i & k is 0 and descending elsewhere, so that
// every k-run is sorted when j reaches 1. Eight entries a vector; each
// compare-exchange is one unsigned min and one max. Distances of 8 or
// more pair whole vectors (one direction for both), distances 4, 2 and
// 1 pair lanes of one vector, done in registers for each k in one read
// and one write of the array, which stays in L1 (at most 4096 entries,
// 32 KiB). 64 rows of 1024 randn floats on Zen 5 (bench_server, old and
// new builds alternated): 500 us by the radix sort before its rework,
// 410 us after it (sort_f32.c), 195 us here; the network is 85% of that
// (stages now share passes over 128-entry blocks, below: 144 us).
#include <immintrin.h>

#include "ops_optimized/reduce/reduce.h"

// The lanes whose number has bit j set (j = 1, 2, 4).
static inline __mmask8 lanes_with(int j) {
  return j == 1 ? 0xaa : (j == 2 ? 0xcc : 0xf0);
}

// Each lane's partner at distance j within the vector.
static inline __m512i partner(__m512i v, int j) {
  if (j == 1) {
    return _mm512_permutex_epi64(v, 0xb1);
  }
  if (j == 2) {
    return _mm512_permutex_epi64(v, 0x4e);
  }
  return _mm512_shuffle_i64x2(v, v, 0x4e);
}

// One in-vector step at distance j: the lanes in `high` keep the larger
// of their pair, the others the smaller.
static inline __m512i step(__m512i v, int j, __mmask8 high) {
  __m512i p = partner(v, j);
  return _mm512_mask_max_epu64(_mm512_min_epu64(v, p), high, v, p);
}

// The in-vector steps of stage k >= 8 (distances 4, 2, 1) for the vector
// at entry `base`: descending ones where base & k is set.
static inline __m512i finish(__m512i v, size_t base, size_t k) {
  __mmask8 down = (base & k) != 0 ? 0xff : 0x00;
  v = step(v, 4, lanes_with(4) ^ down);
  v = step(v, 2, lanes_with(2) ^ down);
  return step(v, 1, lanes_with(1) ^ down);
}

enum { kBlockVectors = 16 };  // a block of 128 entries in registers

// Distance 8 d entries (d vectors) within a block of registers v, whose
// first entry is `base`, for stage k: each pair ascending where its
// entry & k is 0.
static inline __attribute__((always_inline)) void block_step(
    __m512i *v, size_t base, size_t k, size_t d) {
#pragma GCC unroll 16
  for (size_t a = 0; a < kBlockVectors; ++a) {
    if ((a & d) == 0) {
      const __m512i low = _mm512_min_epu64(v[a], v[a + d]);
      const __m512i high = _mm512_max_epu64(v[a], v[a + d]);
      const bool down = ((base + 8 * a) & k) != 0;
      v[a] = down ? high : low;
      v[a + d] = down ? low : high;
    }
  }
}

// Stage k's distances from min(k / 2, 64) down to 1 on the 128 entries at
// x + base, loaded once into 16 registers and stored once: every pair of
// those distances lies inside an aligned block of 128.
static void block_stages(uint64_t *x, size_t base, size_t k) {
  __m512i v[kBlockVectors];
#pragma GCC unroll 16
  for (size_t a = 0; a < kBlockVectors; ++a) {
    v[a] = _mm512_loadu_si512(x + base + 8 * a);
  }
  if (k >= 128) {
    block_step(v, base, k, 8);
  }
  if (k >= 64) {
    block_step(v, base, k, 4);
  }
  if (k >= 32) {
    block_step(v, base, k, 2);
  }
  block_step(v, base, k, 1);
#pragma GCC unroll 16
  for (size_t a = 0; a < kBlockVectors; ++a) {
    _mm512_storeu_si512(x + base + 8 * a, finish(v[a], base + 8 * a, k));
  }
}

void etr_sort_u64_avx512(uint64_t *x, size_t n) {
  // Stages 2, 4 and 8: each vector sorted, ascending at even vectors and
  // descending at odd ones (bit 3 of the entry).
  for (size_t base = 0; base < n; base += 8) {
    __m512i v = _mm512_loadu_si512(x + base);
    v = step(v, 1, lanes_with(1) ^ lanes_with(2));  // k = 2
    v = step(v, 2, lanes_with(2) ^ lanes_with(4));  // k = 4
    v = step(v, 1, lanes_with(1) ^ lanes_with(4));
    _mm512_storeu_si512(x + base, finish(v, base, 8));
  }
  for (size_t k = 16; k <= n; k *= 2) {
    // Distances of 128 and more a pass over the array each, then the
    // rest of the stage a block of 128 at a time in registers (each
    // distance its own pass had loaded and stored the whole array, 35
    // passes for 1024 entries instead of 13): op-sort-rows (64 rows of
    // 1024, Zen 5, paired bench_server rounds, medians of 11) 177 -> 144
    // us. The pairs' directions as blends instead of predictable
    // branches ran 159 us.
    const bool blocks = n >= 8 * kBlockVectors;
    const size_t last_pass = blocks ? 8 * kBlockVectors : 8;
    for (size_t j = k / 2; j >= last_pass; j /= 2) {
      for (size_t block = 0; block < n; block += 2 * j) {
        bool down = (block & k) != 0;
        for (size_t i = block; i < block + j; i += 8) {
          __m512i a = _mm512_loadu_si512(x + i);
          __m512i b = _mm512_loadu_si512(x + i + j);
          __m512i low = _mm512_min_epu64(a, b);
          __m512i high = _mm512_max_epu64(a, b);
          _mm512_storeu_si512(x + i, down ? high : low);
          _mm512_storeu_si512(x + i + j, down ? low : high);
        }
      }
    }
    if (blocks) {
      for (size_t base = 0; base < n; base += 8 * kBlockVectors) {
        block_stages(x, base, k);
      }
      continue;
    }
    for (size_t base = 0; base < n; base += 8) {
      __m512i v = _mm512_loadu_si512(x + base);
      _mm512_storeu_si512(x + base, finish(v, base, k));
    }
  }
}

// Entries x[0, n) of x's floats into e, padded with UINT64_MAX (above
// every key: a NaN's would be, but there is none) to `padded`, a power of
// two and at least 16. The lanes' order is scrambled within each 16 (the
// network does not mind). False at a NaN.
static bool pack(const float *x, size_t n, size_t padded, uint64_t *e) {
  const __m512i sign = _mm512_set1_epi32((int)0x80000000u);
  const __m512i lanes = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
                                          11, 12, 13, 14, 15);
  const __m512i ones = _mm512_set1_epi32(-1);
  for (size_t i = 0; i < n; i += 16) {
    __mmask16 m = n - i >= 16 ? 0xffff : (__mmask16)((1u << (n - i)) - 1);
    __m512 v = _mm512_maskz_loadu_ps(m, x + i);
    if (_mm512_mask_cmp_ps_mask(m, v, v, _CMP_UNORD_Q) != 0) {
      return false;
    }
    // Negative: all bits flipped; otherwise the sign bit set.
    __m512i u = _mm512_castps_si512(v);
    __m512i key = _mm512_xor_si512(
        u, _mm512_or_si512(_mm512_srai_epi32(u, 31), sign));
    __m512i index = _mm512_add_epi32(lanes, _mm512_set1_epi32((int)i));
    key = _mm512_mask_mov_epi32(ones, m, key);
    index = _mm512_mask_mov_epi32(ones, m, index);
    _mm512_storeu_si512(e + i, _mm512_unpacklo_epi32(index, key));
    _mm512_storeu_si512(e + i + 8, _mm512_unpackhi_epi32(index, key));
  }
  for (size_t i = (n + 15) / 16 * 16; i < padded; i += 8) {
    _mm512_storeu_si512(e + i, _mm512_set1_epi64(-1));
  }
  return true;
}

// Whether the sorted entries e[0, n) have distinct values: no two equal
// keys, and not -0.0's key (0x7fffffff) just before 0.0's (0x80000000).
static bool distinct(const uint64_t *e, size_t n) {
  const __m512i negative_zero = _mm512_set1_epi64(0x7fffffff);
  const __m512i zero = _mm512_set1_epi64(0x80000000);
  for (size_t i = 0; i + 1 < n; i += 8) {
    size_t pairs = n - 1 - i;
    __mmask8 m = pairs >= 8 ? 0xff : (__mmask8)((1u << pairs) - 1);
    __m512i a = _mm512_srli_epi64(_mm512_maskz_loadu_epi64(m, e + i), 32);
    __m512i b =
        _mm512_srli_epi64(_mm512_maskz_loadu_epi64(m, e + i + 1), 32);
    __mmask8 tie = _mm512_mask_cmpeq_epi64_mask(m, a, b);
    tie |= _mm512_mask_cmpeq_epi64_mask(m, a, negative_zero) &
           _mm512_mask_cmpeq_epi64_mask(m, b, zero);
    if (tie != 0) {
      return false;
    }
  }
  return true;
}

// The sorted entries into values and indices, reversed when descending.
static void unpack(const uint64_t *e, size_t n, bool descending,
                   float *values, int64_t *indices) {
  const __m512i lanes = _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i sign = _mm256_set1_epi32((int)0x80000000u);
  const __m512i low = _mm512_set1_epi64(0xffffffff);
  for (size_t i = 0; i < n; i += 8) {
    size_t left = n - i < 8 ? n - i : 8;
    __mmask8 m = (__mmask8)((1u << left) - 1);
    __m512i entry;
    if (descending) {
      // Out i + l reads e[n - 1 - i - l]: the `left` entries from
      // n - i - left, reversed.
      __m512i from = _mm512_sub_epi64(_mm512_set1_epi64((int64_t)left - 1),
                                      lanes);
      entry = _mm512_permutexvar_epi64(
          from, _mm512_maskz_loadu_epi64(m, e + n - i - left));
    } else {
      entry = _mm512_maskz_loadu_epi64(m, e + i);
    }
    __m256i key = _mm512_cvtepi64_epi32(_mm512_srli_epi64(entry, 32));
    // Keys with the sign bit set were numbers >= +0.0: clear it; the
    // others were negative: flip every bit back.
    __m256i flip = _mm256_xor_si256(_mm256_srai_epi32(key, 31),
                                    _mm256_set1_epi32(-1));
    __m256i bits = _mm256_xor_si256(key, _mm256_or_si256(flip, sign));
    _mm256_mask_storeu_ps(values + i, m, _mm256_castsi256_ps(bits));
    _mm512_mask_storeu_epi64(indices + i, m, _mm512_and_si512(entry, low));
  }
}

bool etr_sort_distinct_avx512(const float *x, size_t n, bool descending,
                              uint64_t *scratch, float *values,
                              int64_t *indices) {
  size_t padded = 16;
  while (padded < n) {
    padded *= 2;
  }
  if (!pack(x, n, padded, scratch)) {
    return false;
  }
  etr_sort_u64_avx512(scratch, padded);
  if (!distinct(scratch, n)) {
    return false;
  }
  unpack(scratch, n, descending, values, indices);
  return true;
}

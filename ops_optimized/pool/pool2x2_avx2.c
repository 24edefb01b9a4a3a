// SPDX-License-Identifier: Apache-2.0
//
// 2x2 stride-2 pooling rows, AVX2: the window the CNNs use most
// (max_pool2d(2) and avg_pool2d(2)). 8 outputs take the 16 input columns
// of each of the two rows in two loads and split them into even and odd
// columns with one shuffle each, so each tap is one register with no
// reload (the general row kernel in pool_avx2.c loads every tap). The
// shuffles leave the lanes in the order [0 1 4 5 | 2 3 6 7]; the taps are
// combined in that order and one vpermpd per result restores it. Full
// blocks of 8 outputs take plain loads and stores, tails masked ones
// (vmaskmov) limited to the 2 * count columns the outputs need. Max picks
// the tap the reference's row-major walk with ATen's rule (greater, or
// NaN) picks, as a tree; the average sums them in that order from +0.0
// (so all -0.0 taps give +0.0, as the reference's double sum). The
// planes entry points run a whole tensor in one call. Against the row
// kernel before (every block masked, the taps walked in a chain of three
// blends, the driver's row loop), bench_server forced to AVX2 on the
// Xeon of 2026-12-06: avg_pool2d(2) of 32x16x16 2.78 -> 0.72 us, max_pool2d
// with indices of 16x32x32 5.5 -> 2.7 and of 64x56x56 60 -> 36.
// Semantics in pool.h.
#include <immintrin.h>

#include "ops_optimized/common/mask_avx2.h"
#include "ops_optimized/pool/pool.h"

#define ALWAYS_INLINE static inline __attribute__((always_inline))

ALWAYS_INLINE __m256i mask8(size_t count) {
  int32_t c = count >= 8 ? 8 : (int32_t)count;
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(c),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

// Even and odd columns of the 2 * lanes floats at p (lanes <= 8), lanes
// in the order [0 1 4 5 | 2 3 6 7].
typedef struct columns {
  __m256 even;
  __m256 odd;
} columns_t;

ALWAYS_INLINE columns_t load_pairs(const float *p, __m256i lo, __m256i hi) {
  __m256 a = _mm256_maskload_ps(p, lo);
  __m256 b = _mm256_maskload_ps(p + 8, hi);
  columns_t c = {_mm256_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0)),
                 _mm256_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1))};
  return c;
}

// [0 1 4 5 | 2 3 6 7] -> [0 .. 7] (64-bit pairs 0 2 1 3).
ALWAYS_INLINE __m256 in_order(__m256 v) {
  return _mm256_castpd_ps(
      _mm256_permute4x64_pd(_mm256_castps_pd(v), _MM_SHUFFLE(3, 1, 2, 0)));
}

ALWAYS_INLINE __m256 replaces(__m256 v, __m256 best) {
  return _mm256_or_ps(_mm256_cmp_ps(v, best, _CMP_GT_OQ),
                      _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
}

// The winning tap's offset from the window's corner (0, 1, width or
// width + 1) from the pair steps' masks: right-column winners of the top
// and bottom pairs, and the lanes where the bottom pair won.
ALWAYS_INLINE __m256i tap_offsets(__m256 top_right, __m256 bottom_right,
                                  __m256 lower, __m256i below) {
  const __m256i one = _mm256_set1_epi32(1);
  __m256i top = _mm256_and_si256(_mm256_castps_si256(top_right), one);
  __m256i bottom = _mm256_add_epi32(
      below, _mm256_and_si256(_mm256_castps_si256(bottom_right), one));
  return _mm256_castps_si256(_mm256_blendv_ps(
      _mm256_castsi256_ps(top), _mm256_castsi256_ps(bottom), lower));
}

// The reference's walk over the four taps (greater, or NaN, replaces) as
// a tree, each row's pair and then the rows, as pool2x2_avx512.c's
// max_taps (which says why it picks the same tap): the best value and its
// tap's offset. Windows without NaN, most of them, take one compare a
// step (greater alone) after two that look for NaN.
ALWAYS_INLINE __m256 max_taps(columns_t r0, columns_t r1, __m256i below,
                              __m256i *offset) {
  __m256 nan = _mm256_or_ps(_mm256_cmp_ps(r0.even, r0.odd, _CMP_UNORD_Q),
                            _mm256_cmp_ps(r1.even, r1.odd, _CMP_UNORD_Q));
  const bool nan_free = _mm256_movemask_ps(nan) == 0;
  __m256 top_right;
  __m256 bottom_right;
  if (nan_free) {
    top_right = _mm256_cmp_ps(r0.odd, r0.even, _CMP_GT_OQ);
    bottom_right = _mm256_cmp_ps(r1.odd, r1.even, _CMP_GT_OQ);
  } else {
    top_right = replaces(r0.odd, r0.even);
    bottom_right = replaces(r1.odd, r1.even);
  }
  __m256 top = _mm256_blendv_ps(r0.even, r0.odd, top_right);
  __m256 bottom = _mm256_blendv_ps(r1.even, r1.odd, bottom_right);
  __m256 lower = nan_free ? _mm256_cmp_ps(bottom, top, _CMP_GT_OQ)
                          : replaces(bottom, top);
  *offset = tap_offsets(top_right, bottom_right, lower, below);
  return _mm256_blendv_ps(top, bottom, lower);
}

// ((0 + x00) + x01) + x10) + x11, the reference's order from +0.0.
ALWAYS_INLINE __m256 sum_taps(columns_t r0, columns_t r1) {
  __m256 sum = _mm256_add_ps(_mm256_setzero_ps(), r0.even);
  sum = _mm256_add_ps(sum, r0.odd);
  sum = _mm256_add_ps(sum, r1.even);
  return _mm256_add_ps(sum, r1.odd);
}

// The eight window indices of a block (corner: lane l's window corner
// 2 l past the block's, in order; offset in the shuffled order) as
// int64, plain stores for a full block.
ALWAYS_INLINE void store_indices(int64_t *p, size_t lanes, __m256i active,
                                 __m256i corner, __m256i offset) {
  __m256i index = _mm256_add_epi32(
      corner, _mm256_castps_si256(in_order(_mm256_castsi256_ps(offset))));
  __m256i low = _mm256_cvtepi32_epi64(_mm256_castsi256_si128(index));
  __m256i high = _mm256_cvtepi32_epi64(_mm256_extracti128_si256(index, 1));
  if (lanes == 8) {
    _mm256_storeu_si256((__m256i *)p, low);
    _mm256_storeu_si256((__m256i *)(p + 4), high);
    return;
  }
  etr_avx2_maskstore_epi64(
      (long long *)p, _mm256_cvtepi32_epi64(_mm256_castsi256_si128(active)),
      low);
  etr_avx2_maskstore_epi64(
      (long long *)(p + 4),
      _mm256_cvtepi32_epi64(_mm256_extracti128_si256(active, 1)), high);
}

// `count` outputs from the row pair at `top` (the window of output k at
// columns 2 k, 2 k + 1 of `top` and the row below), the indices (when
// `with_indices`) relative to `corner0`, top's offset in its plane. Full
// blocks of 8 take plain loads and stores, the tail masked ones (AMD's
// Zen 2 microcodes vmaskmov stores: common/mask_avx2.h).
ALWAYS_INLINE void max_row(const float *top, size_t width, size_t count,
                           int32_t corner0, float *out, int64_t *indices,
                           bool with_indices) {
  const __m256i below = _mm256_set1_epi32((int32_t)width);
  __m256i corner =
      _mm256_add_epi32(_mm256_set1_epi32(corner0),
                       _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14));
  const __m256i all = _mm256_set1_epi32(-1);
  size_t k = 0;
  for (; k + 8 <= count; k += 8) {
    columns_t r0 = load_pairs(top + 2 * k, all, all);
    columns_t r1 = load_pairs(top + width + 2 * k, all, all);
    __m256i offset;
    __m256 best = max_taps(r0, r1, below, &offset);
    _mm256_storeu_ps(out + k, in_order(best));
    if (with_indices) {
      store_indices(indices + k, 8, all, corner, offset);
      corner = _mm256_add_epi32(corner, _mm256_set1_epi32(16));
    }
  }
  if (k < count) {
    size_t lanes = count - k;
    __m256i active = mask8(lanes);
    __m256i lo = mask8(2 * lanes);
    __m256i hi = lanes > 4 ? mask8(2 * lanes - 8) : _mm256_setzero_si256();
    columns_t r0 = load_pairs(top + 2 * k, lo, hi);
    columns_t r1 = load_pairs(top + width + 2 * k, lo, hi);
    __m256i offset;
    __m256 best = max_taps(r0, r1, below, &offset);
    _mm256_maskstore_ps(out + k, active, in_order(best));
    if (with_indices) {
      store_indices(indices + k, lanes, active, corner, offset);
    }
  }
}

// The averages of a row pair's `count` windows; false when one is not
// finite.
ALWAYS_INLINE bool avg_row(const float *top, size_t width, size_t count,
                           __m256 d, float *out) {
  const __m256 abs_mask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
  const __m256 infinity = _mm256_set1_ps(__builtin_inff());
  const __m256i all = _mm256_set1_epi32(-1);
  __m256 bad = _mm256_setzero_ps();  // lanes past a tail hold 0 / divisor
  size_t k = 0;
  for (; k + 8 <= count; k += 8) {
    columns_t r0 = load_pairs(top + 2 * k, all, all);
    columns_t r1 = load_pairs(top + width + 2 * k, all, all);
    __m256 q = _mm256_div_ps(sum_taps(r0, r1), d);
    bad = _mm256_or_ps(bad, _mm256_cmp_ps(_mm256_and_ps(q, abs_mask),
                                          infinity, _CMP_NLT_UQ));
    _mm256_storeu_ps(out + k, in_order(q));
  }
  if (k < count) {
    size_t lanes = count - k;
    __m256i lo = mask8(2 * lanes);
    __m256i hi = lanes > 4 ? mask8(2 * lanes - 8) : _mm256_setzero_si256();
    columns_t r0 = load_pairs(top + 2 * k, lo, hi);
    columns_t r1 = load_pairs(top + width + 2 * k, lo, hi);
    __m256 q = _mm256_div_ps(sum_taps(r0, r1), d);
    bad = _mm256_or_ps(bad, _mm256_cmp_ps(_mm256_and_ps(q, abs_mask),
                                          infinity, _CMP_NLT_UQ));
    _mm256_maskstore_ps(out + k, mask8(lanes), in_order(q));
  }
  return _mm256_movemask_ps(bad) == 0;
}

void etr_pool_max_row_2x2s2_avx2(const float *plane, size_t width,
                                 size_t h0, size_t w0, size_t count,
                                 float *out, int64_t *indices) {
  const float *top = plane + h0 * width + w0;
  const int32_t corner = (int32_t)(h0 * width + w0);
  if (indices != NULL) {
    max_row(top, width, count, corner, out, indices, true);
  } else {
    max_row(top, width, count, corner, out, NULL, false);
  }
}

bool etr_pool_avg_row_2x2s2_avx2(const float *plane, size_t width,
                                 size_t h0, size_t w0, size_t count,
                                 float divisor, float *out) {
  return avg_row(plane + h0 * width + w0, width, count,
                 _mm256_set1_ps(divisor), out);
}

// Whole planes (every window inside: see pool.h), row after row with the
// row kernels inlined: through the driver's row loop, its per-row work
// was a quarter of avg_pool2d(2) on 32 planes of 16x16.
void etr_pool_max_planes_2x2s2_avx2(const float *in, size_t planes,
                                    size_t height, size_t width,
                                    size_t out_height, size_t out_width,
                                    float *out, int64_t *indices) {
  for (size_t plane = 0; plane < planes; ++plane) {
    const float *x = in + plane * height * width;
    for (size_t oh = 0; oh < out_height; ++oh) {
      const size_t corner = 2 * oh * width;
      if (indices != NULL) {
        max_row(x + corner, width, out_width, (int32_t)corner, out, indices,
                true);
        indices += out_width;
      } else {
        max_row(x + corner, width, out_width, 0, out, NULL, false);
      }
      out += out_width;
    }
  }
}

bool etr_pool_avg_planes_2x2s2_avx2(const float *in, size_t planes,
                                    size_t height, size_t width,
                                    size_t out_height, size_t out_width,
                                    float divisor, float *out) {
  const __m256 d = _mm256_set1_ps(divisor);
  bool finite = true;
  for (size_t plane = 0; plane < planes; ++plane) {
    const float *x = in + plane * height * width;
    for (size_t oh = 0; oh < out_height; ++oh, out += out_width) {
      finite &= avg_row(x + 2 * oh * width, width, out_width, d, out);
    }
  }
  return finite;
}

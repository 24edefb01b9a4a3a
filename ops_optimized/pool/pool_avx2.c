// SPDX-License-Identifier: Apache-2.0
//
// Pooling microkernels, AVX2: NCHW rows 32 output columns at a time (four
// independent 8-lane chains) (column
// stride 2 deinterleaved with shuffles from two masked loads that stop at
// the last element a window needs), NHWC pixels 8 channels at a time;
// tails are masked loads/stores (vmaskmov), so nothing past a row segment
// or a channel vector is touched. 2x2 windows at stride 2 go to
// pool2x2_avx2.c, column strides above 2 to the portable row kernels.
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

// The masks of one block of `lanes` outputs (column stride 1 or 2): for
// stride 2 the two loads stop at element 2 (lanes - 1), the last one a
// window needs.
typedef struct block_masks {
  __m256i out;  // the lanes
  __m256i lo;   // first load
  __m256i hi;   // second load (stride 2)
} block_masks_t;

ALWAYS_INLINE block_masks_t block_masks(size_t lanes, size_t stride) {
  block_masks_t m = {mask8(lanes), mask8(lanes), _mm256_setzero_si256()};
  if (stride == 2 && lanes > 0) {
    size_t needed = 2 * lanes - 1;
    m.lo = mask8(needed);
    m.hi = needed > 8 ? mask8(needed - 8) : _mm256_setzero_si256();
  }
  return m;
}

// p[k * stride] for the block's lanes (stride 1 or 2), others 0.
ALWAYS_INLINE __m256 load_columns(const float *p, size_t stride,
                                  const block_masks_t *m) {
  if (stride == 1) {
    return _mm256_maskload_ps(p, m->lo);
  }
  __m256 lo = _mm256_maskload_ps(p, m->lo);
  __m256 hi = _mm256_maskload_ps(p + 8, m->hi);
  // [lo0 lo2 hi0 hi2 | lo4 lo6 hi4 hi6] -> [lo0 lo2 lo4 lo6 hi0 ... hi6]
  __m256 even = _mm256_shuffle_ps(lo, hi, _MM_SHUFFLE(2, 0, 2, 0));
  return _mm256_castpd_ps(
      _mm256_permute4x64_pd(_mm256_castps_pd(even), _MM_SHUFFLE(3, 1, 2, 0)));
}

// ATen's rule: v > best, or v is NaN (the last NaN wins).
ALWAYS_INLINE __m256 replaces(__m256 v, __m256 best) {
  return _mm256_or_ps(_mm256_cmp_ps(v, best, _CMP_GT_OQ),
                      _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
}

ALWAYS_INLINE __m256i blend_index(__m256i index, __m256i candidate,
                                  __m256 m) {
  return _mm256_castps_si256(_mm256_blendv_ps(
      _mm256_castsi256_ps(index), _mm256_castsi256_ps(candidate), m));
}

ALWAYS_INLINE void store_indices(int64_t *p, __m256i m, __m256i index) {
  etr_avx2_maskstore_epi64((long long *)p,
                         _mm256_cvtepi32_epi64(_mm256_castsi256_si128(m)),
                         _mm256_cvtepi32_epi64(_mm256_castsi256_si128(index)));
  etr_avx2_maskstore_epi64(
      (long long *)(p + 4),
      _mm256_cvtepi32_epi64(_mm256_extracti128_si256(m, 1)),
      _mm256_cvtepi32_epi64(_mm256_extracti128_si256(index, 1)));
}

ALWAYS_INLINE size_t block_lanes(size_t left, size_t b) {
  size_t first = 8 * b;
  return left > first ? (left - first < 8 ? left - first : 8) : 0;
}

// Up to 32 outputs of a row as four 8-lane blocks with their own chains
// (one chain alone is latency-bound), in named registers.
ALWAYS_INLINE void max_block(const float *plane, size_t width, size_t h0,
                             size_t column, size_t left,
                             const etr_pool_window_t *window, size_t stride,
                             bool wide, float *out, int64_t *indices) {
  block_masks_t m0 = block_masks(block_lanes(left, 0), stride);
  block_masks_t m1 = block_masks(block_lanes(left, 1), stride);
  block_masks_t m2 = block_masks(block_lanes(left, 2), stride);
  block_masks_t m3 = block_masks(block_lanes(left, 3), stride);
  size_t step = 8 * stride;
  __m256 b0 = _mm256_setzero_ps(), b1 = b0, b2 = b0, b3 = b0;
  __m256i o0 = _mm256_setzero_si256(), o1 = o0, o2 = o0, o3 = o0;
  const __m256 all = _mm256_castsi256_ps(_mm256_set1_epi32(-1));
  for (size_t i = 0; i < window->kernel_h; ++i) {
    size_t row = (h0 + i * window->dilation_h) * width;
    for (size_t j = 0; j < window->kernel_w; ++j) {
      size_t at = row + column + j * window->dilation_w;
      const float *p = plane + at;
      bool first = i == 0 && j == 0;
      __m256i offset = _mm256_set1_epi32((int32_t)at);
      __m256 v0 = load_columns(p, stride, &m0);
      __m256 u0 = first ? all : replaces(v0, b0);
      b0 = _mm256_blendv_ps(b0, v0, u0);
      o0 = blend_index(o0, offset, u0);
      if (wide) {
        __m256 v1 = load_columns(p + step, stride, &m1);
        __m256 v2 = load_columns(p + 2 * step, stride, &m2);
        __m256 v3 = load_columns(p + 3 * step, stride, &m3);
        __m256 u1 = first ? all : replaces(v1, b1);
        __m256 u2 = first ? all : replaces(v2, b2);
        __m256 u3 = first ? all : replaces(v3, b3);
        b1 = _mm256_blendv_ps(b1, v1, u1);
        b2 = _mm256_blendv_ps(b2, v2, u2);
        b3 = _mm256_blendv_ps(b3, v3, u3);
        o1 = blend_index(o1, offset, u1);
        o2 = blend_index(o2, offset, u2);
        o3 = blend_index(o3, offset, u3);
      }
    }
  }
  // Lane l of block b sits b * 8 * stride + l * stride past its offset.
  __m256i lane = _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
                                    _mm256_set1_epi32((int32_t)stride));
  etr_avx2_maskstore_ps(out, m0.out, b0);
  if (indices != NULL) {
    store_indices(indices, m0.out, _mm256_add_epi32(o0, lane));
  }
  if (!wide) {
    return;
  }
  __m256i block = _mm256_set1_epi32((int32_t)step);
  etr_avx2_maskstore_ps(out + 8, m1.out, b1);
  etr_avx2_maskstore_ps(out + 16, m2.out, b2);
  etr_avx2_maskstore_ps(out + 24, m3.out, b3);
  if (indices != NULL) {
    lane = _mm256_add_epi32(lane, block);
    store_indices(indices + 8, m1.out, _mm256_add_epi32(o1, lane));
    lane = _mm256_add_epi32(lane, block);
    store_indices(indices + 16, m2.out, _mm256_add_epi32(o2, lane));
    lane = _mm256_add_epi32(lane, block);
    store_indices(indices + 24, m3.out, _mm256_add_epi32(o3, lane));
  }
}

ALWAYS_INLINE void max_row_body(const float *plane, size_t width, size_t h0,
                                size_t w0, size_t count,
                                const etr_pool_window_t *window,
                                size_t stride, float *out, int64_t *indices) {
  // Four blocks at a time while they are full, then one at a time (short
  // rows, like the CNN's 16 outputs, would waste three).
  size_t k = 0;
  for (; k + 32 <= count; k += 32) {
    max_block(plane, width, h0, w0 + k * stride, count - k, window, stride,
              true, out + k, indices != NULL ? indices + k : NULL);
  }
  for (; k < count; k += 8) {
    max_block(plane, width, h0, w0 + k * stride,
              count - k < 8 ? count - k : 8, window, stride, false, out + k,
              indices != NULL ? indices + k : NULL);
  }
}

static void max_row_avx2(const float *plane, size_t width, size_t h0,
                         size_t w0, size_t count,
                         const etr_pool_window_t *window, float *out,
                         int64_t *indices) {
  if (etr_pool_window_is_2x2s2(window)) {
    etr_pool_max_row_2x2s2_avx2(plane, width, h0, w0, count, out, indices);
  } else if (window->stride_w == 1) {
    max_row_body(plane, width, h0, w0, count, window, 1, out, indices);
  } else if (window->stride_w == 2) {
    max_row_body(plane, width, h0, w0, count, window, 2, out, indices);
  } else {
    etr_pool_max_row_scalar(plane, width, h0, w0, count, window, out,
                            indices);
  }
}

// Full groups of 32 outputs as four independent 8-lane sums in named
// registers (one chain alone is latency-bound), the rest 8 at a time.
ALWAYS_INLINE __m256 not_finite(__m256 v) {
  const __m256 abs_mask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
  return _mm256_cmp_ps(_mm256_and_ps(v, abs_mask),
                       _mm256_set1_ps(__builtin_inff()), _CMP_NLT_UQ);
}

ALWAYS_INLINE bool avg_row_body(const float *plane, size_t width, size_t h0,
                                size_t w0, size_t count,
                                const etr_pool_window_t *window,
                                size_t stride, float divisor, float *out) {
  __m256 d = _mm256_set1_ps(divisor);
  __m256 bad = _mm256_setzero_ps();  // lanes past a tail hold 0 / divisor
  size_t step = 8 * stride;
  block_masks_t full = block_masks(8, stride);
  size_t k = 0;
  for (; k + 32 <= count; k += 32) {
    __m256 s0 = _mm256_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
    const float *p = plane + h0 * width + w0 + k * stride;
    for (size_t i = 0; i < window->kernel_h; ++i, p += width) {
      for (size_t j = 0; j < window->kernel_w; ++j) {
        s0 = _mm256_add_ps(s0, load_columns(p + j, stride, &full));
        s1 = _mm256_add_ps(s1, load_columns(p + j + step, stride, &full));
        s2 = _mm256_add_ps(s2, load_columns(p + j + 2 * step, stride, &full));
        s3 = _mm256_add_ps(s3, load_columns(p + j + 3 * step, stride, &full));
      }
    }
    s0 = _mm256_div_ps(s0, d);
    s1 = _mm256_div_ps(s1, d);
    s2 = _mm256_div_ps(s2, d);
    s3 = _mm256_div_ps(s3, d);
    bad = _mm256_or_ps(bad, _mm256_or_ps(_mm256_or_ps(not_finite(s0),
                                                      not_finite(s1)),
                                         _mm256_or_ps(not_finite(s2),
                                                      not_finite(s3))));
    _mm256_storeu_ps(out + k, s0);
    _mm256_storeu_ps(out + k + 8, s1);
    _mm256_storeu_ps(out + k + 16, s2);
    _mm256_storeu_ps(out + k + 24, s3);
  }
  for (; k < count; k += 8) {
    block_masks_t m = block_masks(count - k < 8 ? count - k : 8, stride);
    __m256 sum = _mm256_setzero_ps();
    const float *p = plane + h0 * width + w0 + k * stride;
    for (size_t i = 0; i < window->kernel_h; ++i, p += width) {
      for (size_t j = 0; j < window->kernel_w; ++j) {
        sum = _mm256_add_ps(sum, load_columns(p + j, stride, &m));
      }
    }
    __m256 q = _mm256_div_ps(sum, d);
    bad = _mm256_or_ps(bad, not_finite(q));
    etr_avx2_maskstore_ps(out + k, m.out, q);
  }
  return _mm256_movemask_ps(bad) == 0;
}

static bool avg_row_avx2(const float *plane, size_t width, size_t h0,
                         size_t w0, size_t count,
                         const etr_pool_window_t *window, float divisor,
                         float *out) {
  if (etr_pool_window_is_2x2s2(window)) {
    return etr_pool_avg_row_2x2s2_avx2(plane, width, h0, w0, count, divisor,
                                       out);
  }
  if (window->stride_w == 1) {
    return avg_row_body(plane, width, h0, w0, count, window, 1, divisor,
                        out);
  }
  if (window->stride_w == 2) {
    return avg_row_body(plane, width, h0, w0, count, window, 2, divisor,
                        out);
  }
  return etr_pool_avg_row_scalar(plane, width, h0, w0, count, window,
                                 divisor, out);
}

static void max_pixel_avx2(const float *in, size_t channels,
                           const size_t *offsets, const int32_t *positions,
                           size_t count, float *out, int64_t *indices) {
  for (size_t c = 0; c < channels; c += 8) {
    __m256i active = mask8(channels - c);
    __m256 best = _mm256_maskload_ps(in + offsets[0] + c, active);
    __m256i best_position = _mm256_set1_epi32(positions[0]);
    for (size_t k = 1; k < count; ++k) {
      __m256 v = _mm256_maskload_ps(in + offsets[k] + c, active);
      __m256 m = replaces(v, best);
      best = _mm256_blendv_ps(best, v, m);
      best_position = blend_index(best_position,
                                  _mm256_set1_epi32(positions[k]), m);
    }
    etr_avx2_maskstore_ps(out + c, active, best);
    if (indices != NULL) {
      store_indices(indices + c, active, best_position);
    }
  }
}

static void avg_pixel_avx2(const float *in, size_t channels,
                           const size_t *offsets, size_t count,
                           float divisor, float *out) {
  __m256 d = _mm256_set1_ps(divisor);
  for (size_t c = 0; c < channels; c += 8) {
    __m256i active = mask8(channels - c);
    __m256 sum = _mm256_setzero_ps();
    for (size_t k = 0; k < count; ++k) {
      sum = _mm256_add_ps(sum, _mm256_maskload_ps(in + offsets[k] + c, active));
    }
    etr_avx2_maskstore_ps(out + c, active, _mm256_div_ps(sum, d));
  }
}

// pool.h's add_at, two gradients a step: when both land on one element
// the second adds to the first's sum (blendv), which a load of it would
// wait for. The AVX-512 table takes it too (a masked move measured the
// same). 3x3 stride-2 windows, 64 planes of 112 x 112 with the forward's
// indices (a fifth of neighbours equal), AMD Zen 4: the adds alone 128 ->
// 107 us.
int64_t etr_pool_add_at_avx2(float *target, const int64_t *index,
                             const float *grad, int64_t first,
                             int64_t count, int64_t bound) {
  const uint64_t limit = (uint64_t)bound;
  int64_t i = first;
  for (; i + 2 <= count; i += 2) {
    const uint64_t a0 = (uint64_t)index[i];
    const uint64_t a1 = (uint64_t)index[i + 1];
    if (a0 >= limit || a1 >= limit) {
      break;
    }
    const __m128 x1 = _mm_load_ss(target + a1);
    const __m128 v0 =
        _mm_add_ss(_mm_load_ss(target + a0), _mm_load_ss(grad + i));
    const __m128 same =
        _mm_castsi128_ps(_mm_cvtsi32_si128(-(int32_t)(a0 == a1)));
    const __m128 y = _mm_blendv_ps(x1, v0, same);
    _mm_store_ss(target + a0, v0);
    _mm_store_ss(target + a1, _mm_add_ss(y, _mm_load_ss(grad + i + 1)));
  }
  return etr_pool_add_at_scalar(target, index, grad, i, count, bound);
}

const etr_pool_kernels_t etr_pool_kernels_avx2 = {
    .max_row = max_row_avx2,
    .avg_row = avg_row_avx2,
    .max_pixel = max_pixel_avx2,
    .avg_pixel = avg_pixel_avx2,
    .max_planes_2x2s2 = etr_pool_max_planes_2x2s2_avx2,
    .avg_planes_2x2s2 = etr_pool_avg_planes_2x2s2_avx2,
    .avg_volumes_2x2x2s2 = etr_pool_avg_volumes_2x2x2s2_avx2,
    .add_at = etr_pool_add_at_avx2,
};

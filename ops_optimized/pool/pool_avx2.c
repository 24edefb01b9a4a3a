// SPDX-License-Identifier: Apache-2.0
//
// Pooling microkernels, AVX2: NCHW rows 8 output columns at a time (column
// stride 2 deinterleaved with shuffles from two masked loads that stop at
// the last element a window needs), NHWC pixels 8 channels at a time;
// tails are masked loads/stores (vmaskmov), so nothing past a row segment
// or a channel vector is touched. Column strides above 2 use the portable
// row kernels. Semantics in pool.h.
#include <immintrin.h>

#include "ops_optimized/pool/pool.h"

#define ALWAYS_INLINE static inline __attribute__((always_inline))

ALWAYS_INLINE __m256i mask8(size_t count) {
  int32_t c = count >= 8 ? 8 : (int32_t)count;
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(c),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

// p[k * stride] for the first `lanes` lanes (stride 1 or 2), others 0.
ALWAYS_INLINE __m256 load_columns(const float *p, size_t stride,
                                  size_t lanes) {
  if (stride == 1) {
    return _mm256_maskload_ps(p, mask8(lanes));
  }
  size_t needed = 2 * lanes - 1;
  __m256 lo = _mm256_maskload_ps(p, mask8(needed));
  __m256 hi = needed > 8 ? _mm256_maskload_ps(p + 8, mask8(needed - 8))
                         : _mm256_setzero_ps();
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
  _mm256_maskstore_epi64((long long *)p,
                         _mm256_cvtepi32_epi64(_mm256_castsi256_si128(m)),
                         _mm256_cvtepi32_epi64(_mm256_castsi256_si128(index)));
  _mm256_maskstore_epi64(
      (long long *)(p + 4),
      _mm256_cvtepi32_epi64(_mm256_extracti128_si256(m, 1)),
      _mm256_cvtepi32_epi64(_mm256_extracti128_si256(index, 1)));
}

static void max_row_avx2(const float *plane, size_t width, size_t h0,
                         size_t w0, size_t count,
                         const etr_pool_window_t *window, float *out,
                         int64_t *indices) {
  size_t stride = window->stride_w;
  if (stride > 2) {
    etr_pool_max_row_scalar(plane, width, h0, w0, count, window, out,
                            indices);
    return;
  }
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  for (size_t k = 0; k < count; k += 8) {
    size_t lanes = count - k < 8 ? count - k : 8;
    size_t column = w0 + k * stride;
    __m256 best = _mm256_setzero_ps();
    __m256i best_offset = _mm256_setzero_si256();
    for (size_t i = 0; i < window->kernel_h; ++i) {
      size_t row = (h0 + i * window->dilation_h) * width;
      for (size_t j = 0; j < window->kernel_w; ++j) {
        size_t offset = row + column + j * window->dilation_w;
        __m256 v = load_columns(plane + offset, stride, lanes);
        __m256 m = (i == 0 && j == 0)
                       ? _mm256_castsi256_ps(_mm256_set1_epi32(-1))
                       : replaces(v, best);
        best = _mm256_blendv_ps(best, v, m);
        best_offset = blend_index(best_offset,
                                  _mm256_set1_epi32((int32_t)offset), m);
      }
    }
    __m256i active = mask8(lanes);
    _mm256_maskstore_ps(out + k, active, best);
    if (indices != NULL) {
      __m256i index = _mm256_add_epi32(
          best_offset,
          _mm256_mullo_epi32(lane, _mm256_set1_epi32((int32_t)stride)));
      store_indices(indices + k, active, index);
    }
  }
}

static void avg_row_avx2(const float *plane, size_t width, size_t h0,
                         size_t w0, size_t count,
                         const etr_pool_window_t *window, float divisor,
                         float *out) {
  size_t stride = window->stride_w;
  if (stride > 2) {
    etr_pool_avg_row_scalar(plane, width, h0, w0, count, window, divisor,
                            out);
    return;
  }
  __m256 d = _mm256_set1_ps(divisor);
  for (size_t k = 0; k < count; k += 8) {
    size_t lanes = count - k < 8 ? count - k : 8;
    const float *p = plane + h0 * width + w0 + k * stride;
    __m256 sum = _mm256_setzero_ps();
    for (size_t i = 0; i < window->kernel_h; ++i, p += width) {
      for (size_t j = 0; j < window->kernel_w; ++j) {
        sum = _mm256_add_ps(sum, load_columns(p + j, stride, lanes));
      }
    }
    _mm256_maskstore_ps(out + k, mask8(lanes), _mm256_div_ps(sum, d));
  }
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
    _mm256_maskstore_ps(out + c, active, best);
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
    _mm256_maskstore_ps(out + c, active, _mm256_div_ps(sum, d));
  }
}

const etr_pool_kernels_t etr_pool_kernels_avx2 = {
    .max_row = max_row_avx2,
    .avg_row = avg_row_avx2,
    .max_pixel = max_pixel_avx2,
    .avg_pixel = avg_pixel_avx2,
};

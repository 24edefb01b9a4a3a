// SPDX-License-Identifier: Apache-2.0
//
// Pooling microkernels, AVX-512 (F, BW, DQ, VL): NCHW rows 16 output
// columns at a time (column stride 2 deinterleaved with vpermt2ps from two
// loads whose masks stop at the last element a window needs), NHWC pixels
// 16 channels at a time; every tail under a lane mask, so nothing past a
// row segment or a channel vector is read or written. Column strides above
// 2 use the portable row kernels. Semantics in pool.h.
#include <immintrin.h>

#include "ops_optimized/pool/pool.h"

#define ALWAYS_INLINE static inline __attribute__((always_inline))

ALWAYS_INLINE __mmask16 mask16(size_t count) {
  return count >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << count) - 1u);
}

// p[k * stride] for the first `lanes` lanes (stride 1 or 2), others 0.
ALWAYS_INLINE __m512 load_columns(const float *p, size_t stride,
                                  size_t lanes) {
  if (stride == 1) {
    return _mm512_maskz_loadu_ps(mask16(lanes), p);
  }
  size_t needed = 2 * lanes - 1;  // elements p[0 .. 2 (lanes - 1)]
  __m512 lo = _mm512_maskz_loadu_ps(mask16(needed), p);
  __m512 hi = _mm512_maskz_loadu_ps(needed > 16 ? mask16(needed - 16) : 0,
                                    p + 16);
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18,
                                         20, 22, 24, 26, 28, 30);
  return _mm512_permutex2var_ps(lo, even, hi);
}

// ATen's rule: v > best, or v is NaN (the last NaN wins).
ALWAYS_INLINE __mmask16 replaces(__mmask16 active, __m512 v, __m512 best) {
  return _mm512_mask_cmp_ps_mask(active, v, best, _CMP_GT_OQ) |
         _mm512_mask_cmp_ps_mask(active, v, v, _CMP_UNORD_Q);
}

ALWAYS_INLINE void store_indices(int64_t *p, __mmask16 m, __m512i index) {
  _mm512_mask_storeu_epi64(
      p, (__mmask8)(m & 0xff),
      _mm512_cvtepi32_epi64(_mm512_castsi512_si256(index)));
  _mm512_mask_storeu_epi64(
      p + 8, (__mmask8)(m >> 8),
      _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(index, 1)));
}

static void max_row_avx512(const float *plane, size_t width, size_t h0,
                           size_t w0, size_t count,
                           const etr_pool_window_t *window, float *out,
                           int64_t *indices) {
  size_t stride = window->stride_w;
  if (stride > 2) {
    etr_pool_max_row_scalar(plane, width, h0, w0, count, window, out,
                            indices);
    return;
  }
  const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
                                         11, 12, 13, 14, 15);
  for (size_t k = 0; k < count; k += 16) {
    size_t lanes = count - k < 16 ? count - k : 16;
    __mmask16 active = mask16(lanes);
    size_t column = w0 + k * stride;
    __m512 best = _mm512_setzero_ps();
    __m512i best_offset = _mm512_setzero_si512();
    for (size_t i = 0; i < window->kernel_h; ++i) {
      size_t row = (h0 + i * window->dilation_h) * width;
      for (size_t j = 0; j < window->kernel_w; ++j) {
        size_t offset = row + column + j * window->dilation_w;
        __m512 v = load_columns(plane + offset, stride, lanes);
        __mmask16 m = (i == 0 && j == 0) ? active : replaces(active, v, best);
        best = _mm512_mask_mov_ps(best, m, v);
        best_offset = _mm512_mask_mov_epi32(
            best_offset, m, _mm512_set1_epi32((int32_t)offset));
      }
    }
    _mm512_mask_storeu_ps(out + k, active, best);
    if (indices != NULL) {
      __m512i index = _mm512_add_epi32(
          best_offset, _mm512_mullo_epi32(lane, _mm512_set1_epi32(
                                                    (int32_t)stride)));
      store_indices(indices + k, active, index);
    }
  }
}

static void avg_row_avx512(const float *plane, size_t width, size_t h0,
                           size_t w0, size_t count,
                           const etr_pool_window_t *window, float divisor,
                           float *out) {
  size_t stride = window->stride_w;
  if (stride > 2) {
    etr_pool_avg_row_scalar(plane, width, h0, w0, count, window, divisor,
                            out);
    return;
  }
  __m512 d = _mm512_set1_ps(divisor);
  for (size_t k = 0; k < count; k += 16) {
    size_t lanes = count - k < 16 ? count - k : 16;
    const float *p = plane + h0 * width + w0 + k * stride;
    __m512 sum = _mm512_setzero_ps();
    for (size_t i = 0; i < window->kernel_h; ++i, p += width) {
      for (size_t j = 0; j < window->kernel_w; ++j) {
        sum = _mm512_add_ps(sum, load_columns(p + j, stride, lanes));
      }
    }
    _mm512_mask_storeu_ps(out + k, mask16(lanes), _mm512_div_ps(sum, d));
  }
}

static void max_pixel_avx512(const float *in, size_t channels,
                             const size_t *offsets, const int32_t *positions,
                             size_t count, float *out, int64_t *indices) {
  for (size_t c = 0; c < channels; c += 16) {
    __mmask16 active = mask16(channels - c);
    __m512 best = _mm512_maskz_loadu_ps(active, in + offsets[0] + c);
    __m512i best_position = _mm512_set1_epi32(positions[0]);
    for (size_t k = 1; k < count; ++k) {
      __m512 v = _mm512_maskz_loadu_ps(active, in + offsets[k] + c);
      __mmask16 m = replaces(active, v, best);
      best = _mm512_mask_mov_ps(best, m, v);
      best_position = _mm512_mask_mov_epi32(best_position, m,
                                            _mm512_set1_epi32(positions[k]));
    }
    _mm512_mask_storeu_ps(out + c, active, best);
    if (indices != NULL) {
      store_indices(indices + c, active, best_position);
    }
  }
}

static void avg_pixel_avx512(const float *in, size_t channels,
                             const size_t *offsets, size_t count,
                             float divisor, float *out) {
  __m512 d = _mm512_set1_ps(divisor);
  for (size_t c = 0; c < channels; c += 16) {
    __mmask16 active = mask16(channels - c);
    __m512 sum = _mm512_setzero_ps();
    for (size_t k = 0; k < count; ++k) {
      sum = _mm512_add_ps(sum,
                          _mm512_maskz_loadu_ps(active, in + offsets[k] + c));
    }
    _mm512_mask_storeu_ps(out + c, active, _mm512_div_ps(sum, d));
  }
}

const etr_pool_kernels_t etr_pool_kernels_avx512 = {
    .max_row = max_row_avx512,
    .avg_row = avg_row_avx512,
    .max_pixel = max_pixel_avx512,
    .avg_pixel = avg_pixel_avx512,
};

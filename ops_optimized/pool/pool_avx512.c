// SPDX-License-Identifier: Apache-2.0
//
// Pooling microkernels, AVX-512 (F, BW, DQ, VL): NCHW rows 64 output
// columns at a time (four independent 16-lane chains; column stride 2
// deinterleaved with vpermt2ps from two loads whose masks stop at the last
// element a window needs), NHWC pixels 16 channels at a time; every tail
// under a lane mask, so nothing past a row segment or a channel vector is
// read or written. 2x2 windows at stride 2 go to pool2x2_avx512.c, column
// strides above 2 to the portable row kernels. Semantics in pool.h.
#include <immintrin.h>

#include "ops_optimized/pool/pool.h"

#define ALWAYS_INLINE static inline __attribute__((always_inline))

ALWAYS_INLINE __mmask16 mask16(size_t count) {
  return count >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << count) - 1u);
}

// The masks of one block of `lanes` outputs (column stride 1 or 2): for
// stride 2 the two loads stop at element 2 (lanes - 1), the last one a
// window needs.
typedef struct block_masks {
  __mmask16 out;  // the lanes
  __mmask16 lo;   // first load
  __mmask16 hi;   // second load (stride 2)
} block_masks_t;

ALWAYS_INLINE block_masks_t block_masks(size_t lanes, size_t stride) {
  block_masks_t m = {mask16(lanes), mask16(lanes), 0};
  if (stride == 2 && lanes > 0) {
    size_t needed = 2 * lanes - 1;
    m.lo = mask16(needed);
    m.hi = needed > 16 ? mask16(needed - 16) : 0;
  }
  return m;
}

// p[k * stride] for the block's lanes (stride 1 or 2), others 0.
ALWAYS_INLINE __m512 load_columns(const float *p, size_t stride,
                                  block_masks_t m) {
  if (stride == 1) {
    return _mm512_maskz_loadu_ps(m.lo, p);
  }
  __m512 lo = _mm512_maskz_loadu_ps(m.lo, p);
  __m512 hi = _mm512_maskz_loadu_ps(m.hi, p + 16);
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18,
                                         20, 22, 24, 26, 28, 30);
  return _mm512_permutex2var_ps(lo, even, hi);
}

// The lanes where v takes over: v > best or v is NaN (PyTorch's rule).
// The two masks are ORed in a mask register (KORW): written as `|`, GCC
// moved both to general registers and back, steps on the chain each tap
// waits for.
ALWAYS_INLINE __mmask16 replaces(__mmask16 active, __m512 v, __m512 best) {
  return _kor_mask16(_mm512_mask_cmp_ps_mask(active, v, best, _CMP_GT_OQ),
                     _mm512_mask_cmp_ps_mask(active, v, v, _CMP_UNORD_Q));
}

ALWAYS_INLINE void store_indices(int64_t *p, __mmask16 m, __m512i index) {
  _mm512_mask_storeu_epi64(
      p, (__mmask8)(m & 0xff),
      _mm512_cvtepi32_epi64(_mm512_castsi512_si256(index)));
  _mm512_mask_storeu_epi64(
      p + 8, (__mmask8)(m >> 8),
      _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(index, 1)));
}

// Up to 64 outputs of a row as `blocks` (1, 2 or 4, a constant) 16-lane
// blocks with their own chains (one chain alone is latency-bound), in
// named registers. The first `whole` (a constant: 0, 1 or 3) blocks are
// known whole, their masks constants (fewer masks to keep in the eight
// mask registers: four general blocks' twelve went through the stack
// every tap).
ALWAYS_INLINE void max_block(const float *plane, size_t width, size_t h0,
                             size_t column, size_t left,
                             const etr_pool_window_t *window, size_t stride,
                             int blocks, int whole, float *out,
                             int64_t *indices) {
  const bool wide = blocks == 4;
  block_masks_t m0 =
      block_masks(whole >= 1 || left >= 16 ? 16 : left, stride);
  block_masks_t m1 = block_masks(
      whole >= 2 ? 16 : left > 16 ? (left < 32 ? left - 16 : 16) : 0, stride);
  block_masks_t m2 = block_masks(
      whole >= 3 ? 16 : left > 32 ? (left < 48 ? left - 32 : 16) : 0, stride);
  block_masks_t m3 = block_masks(left > 48 ? (left < 64 ? left - 48 : 16) : 0,
                                 stride);
  size_t step = 16 * stride;
  // The first tap starts the maxima (every lane takes it), the others
  // replace where they win: no per-tap test of "first", which GCC turned
  // into mask moves through general registers on each compare's chain.
  const float *p = plane + h0 * width + column;
  __m512 b0 = load_columns(p, stride, m0);
  __m512 b1 = _mm512_setzero_ps(), b2 = b1, b3 = b1;
  if (blocks >= 2) {
    b1 = load_columns(p + step, stride, m1);
  }
  if (wide) {
    b2 = load_columns(p + 2 * step, stride, m2);
    b3 = load_columns(p + 3 * step, stride, m3);
  }
  __m512i first = _mm512_set1_epi32((int32_t)(h0 * width + column));
  __m512i o0 = first, o1 = first, o2 = first, o3 = first;
  for (size_t i = 0; i < window->kernel_h; ++i) {
    size_t row = (h0 + i * window->dilation_h) * width;
    for (size_t j = i == 0 ? 1 : 0; j < window->kernel_w; ++j) {
      size_t at = row + column + j * window->dilation_w;
      p = plane + at;
      __m512i offset = _mm512_set1_epi32((int32_t)at);
      __m512 v0 = load_columns(p, stride, m0);
      __mmask16 u0 = replaces(m0.out, v0, b0);
      b0 = _mm512_mask_mov_ps(b0, u0, v0);
      o0 = _mm512_mask_mov_epi32(o0, u0, offset);
      if (blocks >= 2) {
        __m512 v1 = load_columns(p + step, stride, m1);
        __mmask16 u1 = replaces(m1.out, v1, b1);
        b1 = _mm512_mask_mov_ps(b1, u1, v1);
        o1 = _mm512_mask_mov_epi32(o1, u1, offset);
      }
      if (wide) {
        __m512 v2 = load_columns(p + 2 * step, stride, m2);
        __m512 v3 = load_columns(p + 3 * step, stride, m3);
        __mmask16 u2 = replaces(m2.out, v2, b2);
        __mmask16 u3 = replaces(m3.out, v3, b3);
        b2 = _mm512_mask_mov_ps(b2, u2, v2);
        b3 = _mm512_mask_mov_ps(b3, u3, v3);
        o2 = _mm512_mask_mov_epi32(o2, u2, offset);
        o3 = _mm512_mask_mov_epi32(o3, u3, offset);
      }
    }
  }
  // Lane l of block b sits b * 16 * stride + l * stride past its offset.
  __m512i lane = _mm512_mullo_epi32(
      _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
      _mm512_set1_epi32((int32_t)stride));
  _mm512_mask_storeu_ps(out, m0.out, b0);
  if (indices != NULL) {
    store_indices(indices, m0.out, _mm512_add_epi32(o0, lane));
  }
  if (blocks == 1) {
    return;
  }
  __m512i block = _mm512_set1_epi32((int32_t)step);
  lane = _mm512_add_epi32(lane, block);
  _mm512_mask_storeu_ps(out + 16, m1.out, b1);
  if (indices != NULL) {
    store_indices(indices + 16, m1.out, _mm512_add_epi32(o1, lane));
  }
  if (blocks == 2) {
    return;
  }
  _mm512_mask_storeu_ps(out + 32, m2.out, b2);
  _mm512_mask_storeu_ps(out + 48, m3.out, b3);
  if (indices != NULL) {
    lane = _mm512_add_epi32(lane, block);
    store_indices(indices + 32, m2.out, _mm512_add_epi32(o2, lane));
    lane = _mm512_add_epi32(lane, block);
    store_indices(indices + 48, m3.out, _mm512_add_epi32(o3, lane));
  }
}

ALWAYS_INLINE void max_row_body(const float *plane, size_t width, size_t h0,
                                size_t w0, size_t count,
                                const etr_pool_window_t *window,
                                size_t stride, float *out, int64_t *indices) {
  // Four blocks at a time while more than 48 outputs are left (three of
  // them whole), then four, two or one for the rest (short rows, like the
  // CNN's 16 outputs, would waste three). A row of 55 outputs in blocks
  // of one (ResNet's 3x3 stride-2 pool on 112x112) waited on one chain:
  // maxpool3x3s2-64x112 870 -> 340-390 us (etref run, AMD Zen 5); with
  // the whole blocks' masks constant 405 -> 315 us (Zen 4, bench_server,
  // builds alternated).
  size_t k = 0;
  for (; k + 48 < count; k += 64) {
    max_block(plane, width, h0, w0 + k * stride, count - k, window, stride,
              4, 3, out + k, indices != NULL ? indices + k : NULL);
  }
  if (k + 32 < count) {
    max_block(plane, width, h0, w0 + k * stride, count - k, window, stride,
              4, 2, out + k, indices != NULL ? indices + k : NULL);
    return;
  }
  // 17 to 32 left (ResNet's 48 -> 24 rows): two blocks, not four with
  // two empty ones.
  if (k + 16 < count) {
    max_block(plane, width, h0, w0 + k * stride, count - k, window, stride,
              2, 1, out + k, indices != NULL ? indices + k : NULL);
    return;
  }
  if (k < count) {
    max_block(plane, width, h0, w0 + k * stride, count - k, window, stride,
              1, 0, out + k, indices != NULL ? indices + k : NULL);
  }
}

static void max_row_avx512(const float *plane, size_t width, size_t h0,
                           size_t w0, size_t count,
                           const etr_pool_window_t *window, float *out,
                           int64_t *indices) {
  if (etr_pool_window_is_2x2s2(window)) {
    etr_pool_max_row_2x2s2_avx512(plane, width, h0, w0, count, out, indices);
  } else if (window->stride_w == 1) {
    max_row_body(plane, width, h0, w0, count, window, 1, out, indices);
  } else if (window->stride_w == 2) {
    max_row_body(plane, width, h0, w0, count, window, 2, out, indices);
  } else {
    etr_pool_max_row_scalar(plane, width, h0, w0, count, window, out,
                            indices);
  }
}

// Full groups of 64 outputs as four independent 16-lane sums in named
// registers (one chain alone is latency-bound), the rest 16 at a time.
ALWAYS_INLINE bool avg_row_body(const float *plane, size_t width, size_t h0,
                                size_t w0, size_t count,
                                const etr_pool_window_t *window,
                                size_t stride, float divisor, float *out) {
  __m512 d = _mm512_set1_ps(divisor);
  __mmask16 not_finite = 0;  // 0x99 below: QNaN, SNaN, +inf, -inf
  size_t step = 16 * stride;
  block_masks_t full = block_masks(16, stride);
  size_t k = 0;
  for (; k + 64 <= count; k += 64) {
    __m512 s0 = _mm512_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
    const float *p = plane + h0 * width + w0 + k * stride;
    for (size_t i = 0; i < window->kernel_h; ++i, p += width) {
      for (size_t j = 0; j < window->kernel_w; ++j) {
        s0 = _mm512_add_ps(s0, load_columns(p + j, stride, full));
        s1 = _mm512_add_ps(s1, load_columns(p + j + step, stride, full));
        s2 = _mm512_add_ps(s2, load_columns(p + j + 2 * step, stride, full));
        s3 = _mm512_add_ps(s3, load_columns(p + j + 3 * step, stride, full));
      }
    }
    s0 = _mm512_div_ps(s0, d);
    s1 = _mm512_div_ps(s1, d);
    s2 = _mm512_div_ps(s2, d);
    s3 = _mm512_div_ps(s3, d);
    not_finite |= _mm512_fpclass_ps_mask(s0, 0x99) |
                  _mm512_fpclass_ps_mask(s1, 0x99) |
                  _mm512_fpclass_ps_mask(s2, 0x99) |
                  _mm512_fpclass_ps_mask(s3, 0x99);
    _mm512_storeu_ps(out + k, s0);
    _mm512_storeu_ps(out + k + 16, s1);
    _mm512_storeu_ps(out + k + 32, s2);
    _mm512_storeu_ps(out + k + 48, s3);
  }
  // The rest (fewer than 64: a 56-wide plane's 54 interior outputs are
  // all here) as up to four masked blocks side by side: one block at a
  // time waited on its chain of additions and its divide, 3.6 cycles an
  // output on avgpool3x3s1-64x56.
  if (k < count) {
    const size_t left = count - k;
    block_masks_t m[4];
    __m512 s[4];
#pragma GCC unroll 4
    for (int b = 0; b < 4; ++b) {
      const size_t first = 16 * (size_t)b;
      m[b] = block_masks(
          left > first ? (left - first < 16 ? left - first : 16) : 0, stride);
      s[b] = _mm512_setzero_ps();
    }
    const float *p = plane + h0 * width + w0 + k * stride;
    for (size_t i = 0; i < window->kernel_h; ++i, p += width) {
      for (size_t j = 0; j < window->kernel_w; ++j) {
#pragma GCC unroll 4
        for (int b = 0; b < 4; ++b) {
          s[b] = _mm512_add_ps(s[b],
                               load_columns(p + j + b * step, stride, m[b]));
        }
      }
    }
#pragma GCC unroll 4
    for (int b = 0; b < 4; ++b) {
      const __m512 q = _mm512_div_ps(s[b], d);
      not_finite |= _mm512_mask_fpclass_ps_mask(m[b].out, q, 0x99);
      _mm512_mask_storeu_ps(out + k + 16 * (size_t)b, m[b].out, q);
    }
  }
  return not_finite == 0;
}

static bool avg_row_avx512(const float *plane, size_t width, size_t h0,
                           size_t w0, size_t count,
                           const etr_pool_window_t *window, float divisor,
                           float *out) {
  if (etr_pool_window_is_2x2s2(window)) {
    return etr_pool_avg_row_2x2s2_avx512(plane, width, h0, w0, count,
                                         divisor, out);
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
    .max_planes_2x2s2 = etr_pool_max_planes_2x2s2_avx512,
    .avg_planes_2x2s2 = etr_pool_avg_planes_2x2s2_avx512,
    .max_planes_values = etr_pool_max_planes_values_avx512,
    .avg_planes_values = etr_pool_avg_planes_values_avx512,
    .avg_volumes_2x2x2s2 = etr_pool_avg_volumes_2x2x2s2_avx512,
    .adaptive_uniform = etr_pool_adaptive_uniform_avx512,
    .add_at = etr_pool_add_at_avx2,  // SSE4.1 blendv: nothing wider
};

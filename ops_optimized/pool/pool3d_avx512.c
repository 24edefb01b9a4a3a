// SPDX-License-Identifier: Apache-2.0
//
// avg_pool3d's 2x2x2 stride-2 windows, AVX-512 (pool.h's
// avg_volumes_2x2x2s2): vectors of eight outputs, lane l the window at
// output column ow + l, two such vectors a step (16 windows). Each of the
// windows' four input rows (two rows of two depth slices) is two loads of
// 16 columns, split into even and odd columns by two permutes and widened
// to doubles; the eight taps are then added to +0.0 in the reference's
// row-major order (depth, row, column), each add rounded in double as its
// scalar loop rounds it, and the sum times the exact inverse of a
// power-of-two divisor or divided by any other, then rounded to float:
// bit for bit the reference's value. The two vectors' chains of eight
// dependent adds interleave (16 channels of 16 x 32 x 32, AMD Zen 5: 141
// us walking the windows, 23 us one vector a step, 17 two).
#include <immintrin.h>

#include "ops_optimized/pool/pool.h"

static inline __attribute__((always_inline)) __mmask16 mask16(size_t n) {
  return n >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << n) - 1u);
}

// Half h of x as doubles.
static inline __attribute__((always_inline)) __m512d widen(__m512 x,
                                                           const int h) {
  return _mm512_cvtps_pd(h == 0 ? _mm512_castps512_ps256(x)
                                : _mm512_extractf32x8_ps(x, 1));
}

// The 16 windows from output column ow (`lanes` of them, 1 to 16) of
// rows[0..3]: two chains of eight adds, one per half.
static inline __attribute__((always_inline)) void windows16(
    const float *const *rows, size_t ow, size_t lanes, __m512d divisor,
    __m512d inverse, bool by_inverse, float *out) {
  const __m512i even =
      _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26,
                        28, 30);
  const __m512i odd = _mm512_add_epi32(even, _mm512_set1_epi32(1));
  const __mmask16 low = mask16(2 * lanes);
  const __mmask16 high = lanes > 8 ? mask16(2 * lanes - 16) : 0;
  __m512d sum[2] = {_mm512_setzero_pd(), _mm512_setzero_pd()};
#pragma GCC unroll 4
  for (int r = 0; r < 4; ++r) {
    const __m512 a = _mm512_maskz_loadu_ps(low, rows[r] + 2 * ow);
    const __m512 b = _mm512_maskz_loadu_ps(high, rows[r] + 2 * ow + 16);
    const __m512 e = _mm512_permutex2var_ps(a, even, b);
    const __m512 o = _mm512_permutex2var_ps(a, odd, b);
    sum[0] = _mm512_add_pd(sum[0], widen(e, 0));
    sum[1] = _mm512_add_pd(sum[1], widen(e, 1));
    sum[0] = _mm512_add_pd(sum[0], widen(o, 0));
    sum[1] = _mm512_add_pd(sum[1], widen(o, 1));
  }
#pragma GCC unroll 2
  for (int h = 0; h < 2; ++h) {
    const __m512d q = by_inverse ? _mm512_mul_pd(sum[h], inverse)
                                 : _mm512_div_pd(sum[h], divisor);
    const size_t rest = lanes > 8 * (size_t)h ? lanes - 8 * (size_t)h : 0;
    _mm256_mask_storeu_ps(out + ow + 8 * h, (__mmask8)mask16(rest),
                          _mm512_cvtpd_ps(q));
  }
}

// Every output row of the call; `by_inverse` a constant after inlining.
static inline __attribute__((always_inline)) void volumes(
    const float *in, const etr_pool_volumes_t *v, bool by_inverse,
    float *out) {
  const __m512d divisor = _mm512_set1_pd(v->divisor);
  const __m512d inverse = _mm512_set1_pd(v->inverse);
  const size_t hw = v->height * v->width;
  const size_t full = v->out_width / 16 * 16;
  for (size_t volume = 0; volume < v->volumes; ++volume) {
    for (size_t od = 0; od < v->out_depth; ++od) {
      const float *slice = in + (volume * v->depth + 2 * od) * hw;
      for (size_t oh = 0; oh < v->out_height; ++oh) {
        const float *top = slice + 2 * oh * v->width;
        const float *rows[4] = {top, top + v->width, top + hw,
                                top + hw + v->width};
        for (size_t ow = 0; ow < full; ow += 16) {
          windows16(rows, ow, 16, divisor, inverse, by_inverse, out);
        }
        if (full < v->out_width) {
          windows16(rows, full, v->out_width - full, divisor, inverse,
                    by_inverse, out);
        }
        out += v->out_width;
      }
    }
  }
}

void etr_pool_avg_volumes_2x2x2s2_avx512(const float *in,
                                         const etr_pool_volumes_t *v,
                                         float *out) {
  if (v->inverse != 0.0) {
    volumes(in, v, true, out);
  } else {
    volumes(in, v, false, out);
  }
}

// The uniform windows of _adaptive_avg_pool3d (pool.h's
// adaptive_uniform): 64 outputs a step, lane l of four vectors the window
// of output o0 + l (all of one extent, so one walk serves every lane).
// Each window element is a gather of the 16 lanes' floats at their
// windows' starts plus the element's offset, widened to doubles and added
// to its lane's sum: each lane adds its window's floats in the
// reference's order, eight chains of dependent adds side by side. (A
// window walked one float at a time is one chain: 16 channels of 16 x 32
// x 32 into 4 x 4 x 4, AMD Zen 5: 142 us.)
void etr_pool_adaptive_uniform_avx512(const float *in,
                                      const etr_pool_uniform_t *u,
                                      float *out) {
  const size_t hw = u->height * u->width;
  const size_t volume = u->depth * hw;
  const size_t kd = u->kernel_depth;
  const size_t kh = u->kernel_height;
  const size_t kw = u->kernel_width;
  const __m512d size = _mm512_set1_pd((double)(kd * kh * kw));
  size_t v = 0, od = 0, oh = 0, ow = 0;  // output o0's indices
  int32_t start[64];
  for (size_t o0 = 0; o0 < u->outputs; o0 += 64) {
    size_t count = u->outputs - o0 < 64 ? u->outputs - o0 : 64;
    for (size_t l = 0; l < 64; ++l) {
      start[l] = 0;
      if (l >= count) {
        continue;
      }
      start[l] = (int32_t)(v * volume + od * kd * hw + oh * kh * u->width +
                           ow * kw);
      if (++ow == u->out_width) {
        ow = 0;
        if (++oh == u->out_height) {
          oh = 0;
          if (++od == u->out_depth) {
            od = 0;
            ++v;
          }
        }
      }
    }
    __m512i at[4];
    __mmask16 live[4];
    __m512d sum[8];
    for (int q = 0; q < 4; ++q) {
      at[q] = _mm512_loadu_si512(start + 16 * q);
      live[q] = mask16(count > 16 * (size_t)q ? count - 16 * (size_t)q : 0);
      sum[2 * q] = _mm512_setzero_pd();
      sum[2 * q + 1] = _mm512_setzero_pd();
    }
    for (size_t d = 0; d < kd; ++d) {
      for (size_t h = 0; h < kh; ++h) {
        const float *row = in + d * hw + h * u->width;
        for (size_t k = 0; k < kw; ++k) {
          for (int q = 0; q < 4; ++q) {
            __m512 x = _mm512_mask_i32gather_ps(_mm512_setzero_ps(), live[q],
                                                at[q], row + k, 4);
            sum[2 * q] = _mm512_add_pd(sum[2 * q], widen(x, 0));
            sum[2 * q + 1] = _mm512_add_pd(sum[2 * q + 1], widen(x, 1));
          }
        }
      }
    }
    for (int q = 0; q < 4; ++q) {
      __m256 low = _mm512_cvtpd_ps(_mm512_div_pd(sum[2 * q], size));
      __m256 high = _mm512_cvtpd_ps(_mm512_div_pd(sum[2 * q + 1], size));
      _mm512_mask_storeu_ps(
          out + o0 + 16 * (size_t)q, live[q],
          _mm512_insertf32x8(_mm512_castps256_ps512(low), high, 1));
    }
  }
}

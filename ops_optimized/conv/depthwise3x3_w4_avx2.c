// SPDX-License-Identifier: Apache-2.0
//
// Depthwise 3x3, stride 1, padding 1, NCHW, AVX2 + FMA (conv.h), on rows
// of 4 (mobilenet_v2's 144 and 192 channels of 4x4): a row is one 128-bit
// lane, so a vector holds two rows and every tap is an in-lane shift.
// The blocked kernel (depthwise_blocked_avx2.c) transposed 8 channels'
// planes into a tile and back, the rows kernel copied each row into a
// zero-padded stack row: on 4x4 planes both ran at a fifth of the AVX-512
// kernels' rate (conv_kernel_bench with ETREF_ISA=avx2 on Zen 4: 192x4x4
// 2.97 us against 0.56). This kernel: 144x4x4 and 192x4x4 2.2x the
// blocked kernel (paired.py run, 9 rounds; 1.95x before the arguments
// were copied and the input plane stepped without a division, 1.3x
// before that), mobilenet_v2 fused 0.98x the time.
//
// Out rows 2 k and 2 k + 1 are one vector: the input rows above them
// (2 k - 1, 2 k), their own (2 k, 2 k + 1) and those below (2 k + 1,
// 2 k + 2), each two 128-bit loads (a zero lane for a row outside the
// plane); the rows below are the next pair's rows above. Kernel columns 0
// and 2 read those vectors shifted one float right and left inside each
// lane (vpslldq, vpsrldq), which shifts in the padding's zeros. Each out
// is one FMA chain over the taps in (kh, kw) order from +0.0, then +
// bias, as conv.h's other depthwise kernels: the padding's taps add w * 0
// to a chain that is never -0.0, which changes nothing (padded
// convolutions with a non-finite weight never come here,
// op_convolution.c). Then the post as post_avx2.c applies it.
//
// The stride-2 twin takes input rows of 8 (out rows of 4, mobilenet_v2's
// 96 channels of 8x8): per kernel row, input rows 2 k - 1 + kh and
// 2 k + 1 + kh as the two lanes (vperm2f128) split into their even and
// odd columns (vshufps): kernel columns 1 and 2 read those, column 0 the
// odd ones one float on. 96x8x8 2.0x the blocked kernel (paired.py run,
// 11 rounds). Planes of 4 rows (stride 1) and 8 (stride 2) have their
// rows unrolled: the range checks on the rows cost 1.15x.
//
// Rows of 8 and 16 at stride 1 (the 8x8 and 16x16 layers of
// mobilenet_v2 and v3) are here too, for the channel loop: an out row is
// one or two vectors, kernel row kh reads input row r - 1 + kh at columns
// c - 1, c and c + 1 (masked loads where a first or last lane is the
// padding; rows outside the plane are skipped, as the reference chain
// skips their taps). 96x8x8 1.67x the blocked kernel, 4x8x8 3.9x the rows
// kernel, 72x16x16 1.62x the blocked kernel, 4x16x16 1.60x the rows
// kernel (paired.py run, 7 rounds).
#include <immintrin.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "ops_optimized/conv/conv.h"

// 3x3, padding 1, dilation 1, `stride` both ways, on input rows of
// `in_w` read at unit stride, with the out size this geometry gives.
static bool narrow_applies(const etr_conv2d_geometry_t *g, int64_t stride,
                           int64_t in_w) {
  return g->kernel_h == 3 && g->kernel_w == 3 && g->stride_h == stride &&
         g->stride_w == stride && g->dilation_h == 1 &&
         g->dilation_w == 1 && g->pad_h == 1 && g->pad_w == 1 &&
         g->in_w == in_w && g->out_w == (in_w - 1) / stride + 1 &&
         g->in_h >= 1 && g->out_h == (g->in_h - 1) / stride + 1 &&
         g->in_stride_w == 1;
}

bool etr_depthwise3x3_w4_nchw_avx2_applies(const etr_conv2d_geometry_t *g) {
  return narrow_applies(g, 1, 4);
}

bool etr_depthwise3x3_s2_w4_nchw_avx2_applies(
    const etr_conv2d_geometry_t *g) {
  return narrow_applies(g, 2, 8);
}

bool etr_depthwise3x3_w8_nchw_avx2_applies(const etr_conv2d_geometry_t *g) {
  return narrow_applies(g, 1, 8) || narrow_applies(g, 1, 16);
}

// Input row r of a plane of `h` rows of 8 (zeros outside it).
static inline __attribute__((always_inline)) __m256 row8(
    const float *plane, int64_t stride_h, int64_t h, int64_t r) {
  return r >= 0 && r < h ? _mm256_loadu_ps(plane + r * stride_h)
                         : _mm256_setzero_ps();
}

// Input rows r and r + 1 of a plane of `h` rows (zeros outside it).
static inline __attribute__((always_inline)) __m256 two_rows(
    const float *plane, int64_t stride_h, int64_t h, int64_t r) {
  const __m128 zero = _mm_setzero_ps();
  const __m128 low = r >= 0 && r < h ? _mm_loadu_ps(plane + r * stride_h)
                                     : zero;
  const __m128 high = r + 1 >= 0 && r + 1 < h
                          ? _mm_loadu_ps(plane + (r + 1) * stride_h)
                          : zero;
  return _mm256_insertf128_ps(_mm256_castps128_ps256(low), high, 1);
}

// Each row of v one float on: lane c holds column c - 1 (0 at c = 0).
static inline __m256 column_before(__m256 v) {
  return _mm256_castsi256_ps(_mm256_slli_si256(_mm256_castps_si256(v), 4));
}

// Lane c holds column c + 1 (0 at c = 3).
static inline __m256 column_after(__m256 v) {
  return _mm256_castsi256_ps(_mm256_srli_si256(_mm256_castps_si256(v), 4));
}

// v + bias, then with POST the post as post_avx2.c applies it.
static inline __attribute__((always_inline)) __m256 finish(
    __m256 v, __m256 bias, __m256 scale, __m256 shift, __m256 low,
    __m256 high, const bool POST) {
  v = _mm256_add_ps(v, bias);
  if (POST) {
    v = _mm256_fmadd_ps(v, scale, shift);
    // v < low ? low : v, then v > high ? high : v.
    v = _mm256_min_ps(high, _mm256_max_ps(low, v));
  }
  return v;
}

// Out rows r and, below `rows`, r + 1: the two lanes of v.
static inline __attribute__((always_inline)) void store_rows(
    float *out, int64_t stride_h, int64_t rows, int64_t r, __m256 v) {
  _mm_storeu_ps(out + r * stride_h, _mm256_castps256_ps128(v));
  if (r + 1 < rows) {
    _mm_storeu_ps(out + (r + 1) * stride_h, _mm256_extractf128_ps(v, 1));
  }
}

// The arguments are copied so that the compiler knows the stores leave
// them alone (it reloaded the strides after every store).
static inline __attribute__((always_inline)) void channels(
    const etr_depthwise_args_t *args, const etr_conv_post_t *post,
    const bool S2, const int W8, const bool FOUR, const bool POST) {
  // FOUR: planes of 4 rows at stride 1 (8 with W8), of 8 at stride 2 (4
  // out rows).
  const etr_depthwise_args_t a = *args;
  const etr_conv2d_geometry_t g = *args->geometry;
  const bool affine = POST && post->scale != NULL;
  const __m256 low = _mm256_set1_ps(POST ? post->low : -INFINITY);
  const __m256 high = _mm256_set1_ps(POST ? post->high : INFINITY);
  const float *plane = a.input;  // the input plane of out channel oc
  int64_t repeat = 0;            // out channels so far of that plane
  for (int64_t oc = 0; oc < a.channels; ++oc) {
    const float *wp = a.weight + oc * g.w_stride_oc;
    __m256 w[9];
#pragma GCC unroll 9
    for (int t = 0; t < 9; ++t) {
      w[t] = _mm256_broadcast_ss(wp + (t / 3) * g.w_stride_h +
                                 (t % 3) * g.w_stride_w);
    }
    const __m256 bias = a.bias != NULL
                            ? _mm256_broadcast_ss(a.bias + oc * a.bias_stride)
                            : _mm256_setzero_ps();
    // Without batch norm, fma(v, 1, -0.0) is v bit for bit (-0.0 too).
    const __m256 scale = _mm256_set1_ps(affine ? post->scale[oc] : 1.0f);
    const __m256 shift = _mm256_set1_ps(affine ? post->shift[oc] : -0.0f);
    float *out = a.out + oc * a.out_stride_c;
    if (W8) {
      // Each out row one vector (two on rows of 16): kernel row kh reads
      // input row r - 1 + kh (none outside the plane) at columns c - 1, c
      // and c + 1, masked loads where a first or last lane is the padding.
      const __m256i from1 = _mm256_setr_epi32(0, -1, -1, -1, -1, -1, -1, -1);
      const __m256i to6 = _mm256_setr_epi32(-1, -1, -1, -1, -1, -1, -1, 0);
      const int64_t h = FOUR ? 8 : g.in_h;
      for (int64_t r = 0; W8 == 2 && r < g.in_h; ++r) {
        // Rows of 16: two vectors, columns 7 .. 15 and 1 .. 8 inside.
        __m256 v = _mm256_setzero_ps();
        __m256 u = _mm256_setzero_ps();
#pragma GCC unroll 3
        for (int kh = 0; kh < 3; ++kh) {
          const int64_t row = r - 1 + kh;
          if (row < 0 || row >= g.in_h) {
            continue;
          }
          const float *p = plane + row * g.in_stride_h;
          v = _mm256_fmadd_ps(w[3 * kh], _mm256_maskload_ps(p - 1, from1),
                              v);
          u = _mm256_fmadd_ps(w[3 * kh], _mm256_loadu_ps(p + 7), u);
          v = _mm256_fmadd_ps(w[3 * kh + 1], _mm256_loadu_ps(p), v);
          u = _mm256_fmadd_ps(w[3 * kh + 1], _mm256_loadu_ps(p + 8), u);
          v = _mm256_fmadd_ps(w[3 * kh + 2], _mm256_loadu_ps(p + 1), v);
          u = _mm256_fmadd_ps(w[3 * kh + 2],
                              _mm256_maskload_ps(p + 9, to6), u);
        }
        _mm256_storeu_ps(out + r * a.out_stride_h,
                         finish(v, bias, scale, shift, low, high, POST));
        _mm256_storeu_ps(out + r * a.out_stride_h + 8,
                         finish(u, bias, scale, shift, low, high, POST));
      }
#pragma GCC unroll 8
      for (int64_t r = 0; W8 == 1 && r < h; ++r) {
        __m256 v = _mm256_setzero_ps();
#pragma GCC unroll 3
        for (int kh = 0; kh < 3; ++kh) {
          const int64_t row = r - 1 + kh;
          if (row < 0 || row >= h) {
            continue;
          }
          const float *p = plane + row * g.in_stride_h;
          v = _mm256_fmadd_ps(w[3 * kh], _mm256_maskload_ps(p - 1, from1),
                              v);
          v = _mm256_fmadd_ps(w[3 * kh + 1], _mm256_loadu_ps(p), v);
          v = _mm256_fmadd_ps(w[3 * kh + 2], _mm256_maskload_ps(p + 1, to6),
                              v);
        }
        _mm256_storeu_ps(out + r * a.out_stride_h,
                         finish(v, bias, scale, shift, low, high, POST));
      }
    } else if (S2) {
      // Out rows r and r + 1 from input rows 2 r - 1 .. 2 r + 3: per
      // kernel row, rows 2 r - 1 + kh and 2 r + 1 + kh split into their
      // even and odd columns, each a lane (vperm2f128, then vshufps);
      // column 2 c - 1 is the odd columns one on.
      const int64_t in_h = FOUR ? 8 : g.in_h;
      const int64_t out_h = FOUR ? 4 : g.out_h;
#pragma GCC unroll 2
      for (int64_t r = 0; r < out_h; r += 2) {
        __m256 x[5];
#pragma GCC unroll 5
        for (int i = 0; i < 5; ++i) {
          x[i] = row8(plane, g.in_stride_h, in_h, 2 * r - 1 + i);
        }
        __m256 v = _mm256_setzero_ps();
#pragma GCC unroll 3
        for (int kh = 0; kh < 3; ++kh) {
          const __m256 lo = _mm256_permute2f128_ps(x[kh], x[kh + 2], 0x20);
          const __m256 hi = _mm256_permute2f128_ps(x[kh], x[kh + 2], 0x31);
          const __m256 even = _mm256_shuffle_ps(lo, hi, 0x88);
          const __m256 odd = _mm256_shuffle_ps(lo, hi, 0xdd);
          v = _mm256_fmadd_ps(w[3 * kh], column_before(odd), v);
          v = _mm256_fmadd_ps(w[3 * kh + 1], even, v);
          v = _mm256_fmadd_ps(w[3 * kh + 2], odd, v);
        }
        store_rows(out, a.out_stride_h, out_h, r,
                   finish(v, bias, scale, shift, low, high, POST));
      }
    } else {
      const int64_t h = FOUR ? 4 : g.in_h;
      __m256 above = two_rows(plane, g.in_stride_h, h, -1);
#pragma GCC unroll 2
      for (int64_t r = 0; r < h; r += 2) {
        const __m256 own = two_rows(plane, g.in_stride_h, h, r);
        const __m256 below = two_rows(plane, g.in_stride_h, h, r + 1);
        __m256 v = _mm256_fmadd_ps(w[0], column_before(above),
                                   _mm256_setzero_ps());
        v = _mm256_fmadd_ps(w[1], above, v);
        v = _mm256_fmadd_ps(w[2], column_after(above), v);
        v = _mm256_fmadd_ps(w[3], column_before(own), v);
        v = _mm256_fmadd_ps(w[4], own, v);
        v = _mm256_fmadd_ps(w[5], column_after(own), v);
        v = _mm256_fmadd_ps(w[6], column_before(below), v);
        v = _mm256_fmadd_ps(w[7], below, v);
        v = _mm256_fmadd_ps(w[8], column_after(below), v);
        store_rows(out, a.out_stride_h, h, r,
                   finish(v, bias, scale, shift, low, high, POST));
        above = below;
      }
    }
    if (++repeat == a.multiplier) {
      repeat = 0;
      plane += g.in_stride_c;
    }
  }
}

void etr_depthwise3x3_w4_nchw_avx2(const etr_depthwise_args_t *args,
                                   const etr_conv_post_t *post) {
  const bool four = args->geometry->in_h == 4;  // 4x4 planes unrolled
  if (post != NULL) {
    if (four) {
      channels(args, post, false, 0, true, true);
    } else {
      channels(args, post, false, 0, false, true);
    }
  } else if (four) {
    channels(args, NULL, false, 0, true, false);
  } else {
    channels(args, NULL, false, 0, false, false);
  }
}

void etr_depthwise3x3_s2_w4_nchw_avx2(const etr_depthwise_args_t *args,
                                      const etr_conv_post_t *post) {
  const bool eight = args->geometry->in_h == 8;  // 8x8 planes unrolled
  if (post != NULL) {
    if (eight) {
      channels(args, post, true, 0, true, true);
    } else {
      channels(args, post, true, 0, false, true);
    }
  } else if (eight) {
    channels(args, NULL, true, 0, true, false);
  } else {
    channels(args, NULL, true, 0, false, false);
  }
}

void etr_depthwise3x3_w8_nchw_avx2(const etr_depthwise_args_t *args,
                                   const etr_conv_post_t *post) {
  const etr_conv2d_geometry_t *g = args->geometry;
  const bool eight = g->in_h == 8;  // 8x8 planes unrolled
  if (g->in_w == 16) {
    if (post != NULL) {
      channels(args, post, false, 2, false, true);
    } else {
      channels(args, NULL, false, 2, false, false);
    }
  } else if (post != NULL) {
    if (eight) {
      channels(args, post, false, 1, true, true);
    } else {
      channels(args, post, false, 1, false, true);
    }
  } else if (eight) {
    channels(args, NULL, false, 1, true, false);
  } else {
    channels(args, NULL, false, 1, false, false);
  }
}

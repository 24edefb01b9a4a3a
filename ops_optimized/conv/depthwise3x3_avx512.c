// SPDX-License-Identifier: Apache-2.0
//
// Depthwise 3x3 convolution along rows, NCHW, AVX-512 (conv.h): stride 1
// or 2, dilation 1, any padding, unit column stride, rows of at least 8
// outputs (narrower planes fill a vector better flattened:
// depthwise_avx512.c; at 8 the half-empty vectors still win). Each
// channel's nine weights stay in registers and an output row is taken 16
// columns per vector; a kernel row's three taps are, at stride 1, one
// whole load of the input row and its two neighbouring elements shifted
// in (blocks whose 18 columns lie inside the row: masked loads, which
// cross cache lines, measured 15% slower) or three masked loads (the
// others), or at stride 2 three loads of its 33 elements and their even,
// odd and shifted-even elements picked by permutes. No
// index arithmetic per tap: the column masks of a block are worked out
// once for all its rows. Each input row's taps are read once: stride 1
// down the columns keeps the last two rows' taps for the next output
// rows, stride 2 the last row's (an output row's third input row is the
// next one's first).
//
// Taps outside the image load zeros through their lane masks and the rows
// outside it are skipped, so every output sums only its in-bounds products
// (from +0.0, bias last) as the reference does; a zero product added to a
// sum cannot change it here because padded convolutions with non-finite
// weights never reach this kernel (op_convolution.c). The sum runs in two
// chains (kernel rows 0 and 2, row 1) added at the end: the order differs
// from the reference's, within the tolerance of its tests, exact for exact
// data.
#include <immintrin.h>

#include "ops_optimized/conv/conv.h"
#include "ops_optimized/conv/lanes_avx512.h"

// Input columns [first, first + count) of a row that lie in [0, in_w), as
// a 32-lane mask of the elements from `first` on.
static inline __mmask32 columns_inside(int64_t first, int64_t count,
                                       int64_t in_w) {
  int64_t lo = first < 0 ? -first : 0;
  int64_t hi = in_w - first < count ? in_w - first : count;
  if (hi <= lo) {
    return 0;
  }
  uint64_t span = hi - lo >= 32 ? 0xffffffffull : (1ull << (hi - lo)) - 1u;
  return (__mmask32)(span << lo);
}

bool etr_depthwise3x3_nchw_avx512_applies(const etr_conv2d_geometry_t *g) {
  return g->kernel_h == 3 && g->kernel_w == 3 && g->dilation_h == 1 &&
         g->dilation_w == 1 && (g->stride_w == 1 || g->stride_w == 2) &&
         g->in_stride_w == 1 && g->out_w >= 8;
}

// The three taps of one input row for the block's 16 outputs, from the
// row's element `r` (tap kw = 0 of lane 0) on. Stride 1: one masked load
// per tap (masks v0..v2). Stride 2: elements 0..32 in three loads (mask
// `pair`, the 33 elements' inside-the-image bits), taps as their even,
// odd and shifted-even elements.
static inline __attribute__((always_inline)) void row_taps(
    const float *r, __mmask32 v0, __mmask32 v1, __mmask32 v2, uint64_t pair,
    int64_t stride, bool whole, __m512 *x0, __m512 *x1, __m512 *x2) {
  if (whole && stride == 1) {
    // Elements 0 .. 17 inside the row: one whole vector (1 .. 16) and
    // elements 0 and 17 shifted in from broadcasts.
    const __m512 middle = _mm512_loadu_ps(r + 1);
    *x0 = _mm512_castsi512_ps(
        _mm512_alignr_epi32(_mm512_castps_si512(middle),
                            _mm512_castps_si512(_mm512_set1_ps(r[0])), 15));
    *x1 = middle;
    *x2 = _mm512_castsi512_ps(
        _mm512_alignr_epi32(_mm512_castps_si512(_mm512_set1_ps(r[17])),
                            _mm512_castps_si512(middle), 1));
    return;
  }
  if (stride == 1) {
    *x0 = _mm512_maskz_loadu_ps((__mmask16)v0, r);
    *x1 = _mm512_maskz_loadu_ps((__mmask16)v1, r + 1);
    *x2 = _mm512_maskz_loadu_ps((__mmask16)v2, r + 2);
    return;
  }
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18,
                                         20, 22, 24, 26, 28, 30);
  const __m512i odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19,
                                        21, 23, 25, 27, 29, 31);
  __m512 lo = _mm512_maskz_loadu_ps((__mmask16)pair, r);
  __m512 hi = _mm512_maskz_loadu_ps((__mmask16)(pair >> 16), r + 16);
  __m512 last = _mm512_maskz_loadu_ps((__mmask16)((pair >> 32) & 1), r + 32);
  *x0 = _mm512_permutex2var_ps(lo, even, hi);
  *x1 = _mm512_permutex2var_ps(lo, odd, hi);
  // Elements 2, 4, .., 32: the even ones moved down a lane, element 32
  // (lane 0 of `last`) into the top.
  *x2 = _mm512_castsi512_ps(_mm512_alignr_epi32(
      _mm512_castps_si512(last), _mm512_castps_si512(*x0), 1));
}

// One channel's plane; stride_w (1 or 2) a constant after inlining.
static inline __attribute__((always_inline)) void channel_plane(
    const etr_conv2d_geometry_t *g, const float *in, const float *w,
    bool has_bias, float bias_value, float *plane, int64_t out_stride_h,
    int64_t stride) {
  const int64_t in_h = g->in_h;
  const int64_t in_w = g->in_w;
  const int64_t out_h = g->out_h;
  const int64_t out_w = g->out_w;
  const int64_t in_stride_h = g->in_stride_h;
  const int64_t stride_h = g->stride_h;
  const int64_t pad_h = g->pad_h;
  const __m512 w00 = _mm512_set1_ps(w[0]);
  const __m512 w01 = _mm512_set1_ps(w[g->w_stride_w]);
  const __m512 w02 = _mm512_set1_ps(w[2 * g->w_stride_w]);
  const __m512 w10 = _mm512_set1_ps(w[g->w_stride_h]);
  const __m512 w11 = _mm512_set1_ps(w[g->w_stride_h + g->w_stride_w]);
  const __m512 w12 = _mm512_set1_ps(w[g->w_stride_h + 2 * g->w_stride_w]);
  const __m512 w20 = _mm512_set1_ps(w[2 * g->w_stride_h]);
  const __m512 w21 = _mm512_set1_ps(w[2 * g->w_stride_h + g->w_stride_w]);
  const __m512 w22 =
      _mm512_set1_ps(w[2 * g->w_stride_h + 2 * g->w_stride_w]);
  const __m512 bias = _mm512_set1_ps(bias_value);
  for (int64_t ow0 = 0; ow0 < out_w; ow0 += 16) {
    const int64_t count = out_w - ow0 < 16 ? out_w - ow0 : 16;
    const __mmask16 lanes = first_lanes(count);
    const int64_t first = ow0 * stride - g->pad_w;  // tap kw = 0, lane 0
    // The elements each kw reads from first + kw on: count of them
    // (stride 1) or every other one of 2 * count - 1 (stride 2).
    const int64_t span = stride * (count - 1) + 1;
    const __mmask32 v0 = columns_inside(first, span, in_w);
    const __mmask32 v1 = columns_inside(first + 1, span, in_w);
    const __mmask32 v2 = columns_inside(first + 2, span, in_w);
    // Stride 2: elements 0 .. 2 * count of the row from `first`.
    uint64_t pair = 0;
    if (stride == 2) {
      int64_t lo = first < 0 ? -first : 0;
      int64_t hi = g->in_w - first < 2 * count + 1 ? g->in_w - first
                                                   : 2 * count + 1;
      pair = hi > lo ? ((1ull << (hi - lo)) - 1u) << lo : 0;
    }
    // Stride 1, elements first .. first + 17 of every row inside it.
    // (Stride 2 measured 6% slower with whole loads and a broadcast.)
    const bool whole =
        stride == 1 && count == 16 && first >= 0 && first + 18 <= in_w;
    const float *column = in + first;
    if (stride_h == 1) {
      // Each input row's taps serve three output rows: read it once and
      // keep the last two rows' taps in registers (zeros outside the
      // image, which add nothing, as above).
      __m512 a0, a1, a2, b0, b1, b2, c0, c1, c2;
      const __m512 zero = _mm512_setzero_ps();
      a0 = a1 = a2 = b0 = b1 = b2 = zero;
      if (-pad_h >= 0 && -pad_h < in_h) {
        row_taps(column - pad_h * in_stride_h, v0, v1, v2, pair, stride,
                 whole, &a0, &a1, &a2);
      }
      if (1 - pad_h >= 0 && 1 - pad_h < in_h) {
        row_taps(column + (1 - pad_h) * in_stride_h, v0, v1, v2, pair,
                 stride, whole, &b0, &b1, &b2);
      }
      for (int64_t oh = 0; oh < out_h; ++oh) {
        const int64_t ih = oh + 2 - pad_h;
        c0 = c1 = c2 = zero;
        if (ih >= 0 && ih < in_h) {
          row_taps(column + ih * in_stride_h, v0, v1, v2, pair, stride,
                   whole, &c0, &c1, &c2);
        }
        // From +0.0 as the reference sums (a product alone may be -0.0).
        __m512 top = _mm512_fmadd_ps(w00, a0, zero);
        top = _mm512_fmadd_ps(w01, a1, top);
        top = _mm512_fmadd_ps(w02, a2, top);
        __m512 middle = _mm512_fmadd_ps(w10, b0, zero);
        middle = _mm512_fmadd_ps(w11, b1, middle);
        middle = _mm512_fmadd_ps(w12, b2, middle);
        top = _mm512_fmadd_ps(w20, c0, top);
        top = _mm512_fmadd_ps(w21, c1, top);
        top = _mm512_fmadd_ps(w22, c2, top);
        __m512 sum = _mm512_add_ps(top, middle);
        if (has_bias) {
          sum = _mm512_add_ps(sum, bias);
        }
        _mm512_mask_storeu_ps(plane + oh * out_stride_h + ow0, lanes, sum);
        a0 = b0;
        a1 = b1;
        a2 = b2;
        b0 = c0;
        b1 = c1;
        b2 = c2;
      }
      continue;
    }
    // Stride 2 (or more) down the columns: with stride 2 an output row's
    // last input row is the next one's first, whose taps are kept.
    __m512 carried0 = _mm512_setzero_ps();
    __m512 carried1 = _mm512_setzero_ps();
    __m512 carried2 = _mm512_setzero_ps();
    bool carried = false;
    for (int64_t oh = 0; oh < out_h; ++oh) {
      const int64_t ih = oh * stride_h - pad_h;
      __m512 top = _mm512_setzero_ps();
      __m512 middle = _mm512_setzero_ps();
      __m512 x0;
      __m512 x1;
      __m512 x2;
      if (carried) {
        top = _mm512_fmadd_ps(w00, carried0, top);
        top = _mm512_fmadd_ps(w01, carried1, top);
        top = _mm512_fmadd_ps(w02, carried2, top);
      } else if (ih >= 0 && ih < in_h) {
        row_taps(column + ih * in_stride_h, v0, v1, v2, pair, stride,
                 whole, &x0, &x1, &x2);
        top = _mm512_fmadd_ps(w00, x0, top);
        top = _mm512_fmadd_ps(w01, x1, top);
        top = _mm512_fmadd_ps(w02, x2, top);
      }
      if (ih + 1 >= 0 && ih + 1 < in_h) {
        row_taps(column + (ih + 1) * in_stride_h, v0, v1, v2, pair, stride,
                 whole, &x0, &x1, &x2);
        middle = _mm512_fmadd_ps(w10, x0, middle);
        middle = _mm512_fmadd_ps(w11, x1, middle);
        middle = _mm512_fmadd_ps(w12, x2, middle);
      }
      carried = false;
      if (ih + 2 >= 0 && ih + 2 < in_h) {
        row_taps(column + (ih + 2) * in_stride_h, v0, v1, v2, pair, stride,
                 whole, &x0, &x1, &x2);
        top = _mm512_fmadd_ps(w20, x0, top);
        top = _mm512_fmadd_ps(w21, x1, top);
        top = _mm512_fmadd_ps(w22, x2, top);
        carried0 = x0;
        carried1 = x1;
        carried2 = x2;
        carried = stride_h == 2;
      }
      __m512 sum = _mm512_add_ps(top, middle);
      if (has_bias) {
        sum = _mm512_add_ps(sum, bias);
      }
      _mm512_mask_storeu_ps(plane + oh * out_stride_h + ow0, lanes, sum);
    }
  }
}

void etr_depthwise3x3_nchw_avx512(const etr_depthwise_args_t *args) {
  // Copies, which the stores cannot change: nothing is reloaded per row.
  const etr_depthwise_args_t arguments = *args;
  const etr_conv2d_geometry_t geometry = *args->geometry;
  const etr_conv2d_geometry_t *g = &geometry;
  args = &arguments;
  int64_t ic = 0;      // the input channel of out channel oc
  int64_t repeat = 0;  // out channels so far of input channel ic
  for (int64_t oc = 0; oc < args->channels; ++oc) {
    const float *in = args->input + ic * g->in_stride_c;
    const float *w = args->weight + oc * g->w_stride_oc;
    const bool has_bias = args->bias != NULL;
    float bias = has_bias ? args->bias[oc * args->bias_stride] : 0.0f;
    float *plane = args->out + oc * args->out_stride_c;
    if (g->stride_w == 1) {
      channel_plane(g, in, w, has_bias, bias, plane, args->out_stride_h, 1);
    } else {
      channel_plane(g, in, w, has_bias, bias, plane, args->out_stride_h, 2);
    }
    if (++repeat == args->multiplier) {
      repeat = 0;
      ++ic;
    }
  }
}

// Small planes (at most 64 outputs) at stride 1 with rows as wide as the
// output's, taken flat: 16 output pixels per vector whatever the row
// width, so 4x4 and 8x8 planes fill whole vectors, and every tap is a
// constant shift of the flat input plane. The lanes and shifts of every
// (block, tap) depend only on the geometry, so they are worked out once
// per call; per channel there remain nine weights in registers and one
// masked load and FMA per block and tap. (The same with gathers for
// stride 2 measured slower than depthwise_avx512.c's paired reads.)
#define SMALL_BLOCKS 4

bool etr_depthwise3x3_small_nchw_avx512_applies(
    const etr_conv2d_geometry_t *g) {
  return g->kernel_h == 3 && g->kernel_w == 3 &&
         g->out_h * g->out_w <= 16 * SMALL_BLOCKS && g->stride_h == 1 &&
         g->stride_w == 1 && g->in_w == g->out_w && g->in_stride_w == 1 &&
         g->in_stride_h == g->in_w;
}

void etr_depthwise3x3_small_nchw_avx512(const etr_depthwise_args_t *args) {
  const etr_conv2d_geometry_t *g = args->geometry;
  const int64_t pixels = g->out_h * g->out_w;
  const int blocks = (int)((pixels + 15) / 16);
  __mmask16 valid[SMALL_BLOCKS][9];
  int64_t shift[SMALL_BLOCKS][9];
  __mmask16 lanes[SMALL_BLOCKS];
  for (int b = 0; b < blocks; ++b) {
    int64_t p0 = 16 * (int64_t)b;
    lanes[b] = lanes_between(0, pixels - p0);
    __m512i oh;
    __m512i ow;
    lane_coordinates(p0, g->out_w, &oh, &ow);
    for (int t = 0; t < 9; ++t) {
      int64_t dh = (t / 3) * g->dilation_h - g->pad_h;
      int64_t dw = (t % 3) * g->dilation_w - g->pad_w;
      __m512i ih = _mm512_add_epi32(oh, _mm512_set1_epi32((int32_t)dh));
      __m512i iw = _mm512_add_epi32(ow, _mm512_set1_epi32((int32_t)dw));
      valid[b][t] = inside(inside(lanes[b], ih, g->in_h), iw, g->in_w);
      shift[b][t] = p0 + dh * g->in_w + dw;
    }
  }
  for (int64_t oc = 0; oc < args->channels; ++oc) {
    const float *in = args->input + oc / args->multiplier * g->in_stride_c;
    const float *w = args->weight + oc * g->w_stride_oc;
    __m512 weights[9];
    broadcast_taps3x3(w, g->w_stride_h, g->w_stride_w, weights);
    const __m512 bias = _mm512_set1_ps(
        args->bias != NULL ? args->bias[oc * args->bias_stride] : 0.0f);
    float *plane = args->out + oc * args->out_stride_c;
    for (int b = 0; b < blocks; ++b) {
      __m512 even = _mm512_setzero_ps();
      __m512 odd = _mm512_setzero_ps();
#pragma GCC unroll 9
      for (int t = 0; t < 9; ++t) {
        __m512 x = _mm512_maskz_loadu_ps(valid[b][t], in + shift[b][t]);
        if (t % 2 == 0) {
          even = _mm512_fmadd_ps(weights[t], x, even);
        } else {
          odd = _mm512_fmadd_ps(weights[t], x, odd);
        }
      }
      __m512 sum = _mm512_add_ps(even, odd);
      if (args->bias != NULL) {
        sum = _mm512_add_ps(sum, bias);
      }
      _mm512_mask_storeu_ps(plane + 16 * (int64_t)b, lanes[b], sum);
    }
  }
}

// Planes whose input fits four vectors (at most 64 elements, dense) and
// whose output fits one (at most 16), at any stride: the input plane is
// loaded once per channel and each tap's 16 inputs are picked from the
// registers by two permutes and a blend, with lane indices and masks
// worked out once per call (the stride-2 8x8 -> 4x4 layers, which the
// paired reads of depthwise_avx512.c run at a tenth of this speed).
bool etr_depthwise3x3_tiny_nchw_avx512_applies(
    const etr_conv2d_geometry_t *g) {
  return g->kernel_h == 3 && g->kernel_w == 3 && g->in_h * g->in_w <= 64 &&
         g->out_h * g->out_w <= 16 && g->in_stride_w == 1 &&
         g->in_stride_h == g->in_w;
}

void etr_depthwise3x3_tiny_nchw_avx512(const etr_depthwise_args_t *args) {
  const etr_conv2d_geometry_t *g = args->geometry;
  const int64_t plane_size = g->in_h * g->in_w;
  const __mmask16 lanes = first_lanes(g->out_h * g->out_w);
  __m512i oh;
  __m512i ow;
  lane_coordinates(0, g->out_w, &oh, &ow);
  __m512i index[9];
  __mmask16 valid[9];
  __mmask16 upper[9];  // lanes reading elements 32..63
  // Multiplications once, not per tap (a per-plane call pays this setup).
  const __m512i ih0 = _mm512_sub_epi32(
      _mm512_mullo_epi32(oh, _mm512_set1_epi32((int32_t)g->stride_h)),
      _mm512_set1_epi32((int32_t)g->pad_h));
  const __m512i iw0 = _mm512_sub_epi32(
      _mm512_mullo_epi32(ow, _mm512_set1_epi32((int32_t)g->stride_w)),
      _mm512_set1_epi32((int32_t)g->pad_w));
  const __m512i base =
      _mm512_mullo_epi32(ih0, _mm512_set1_epi32((int32_t)g->in_w));
#pragma GCC unroll 9
  for (int t = 0; t < 9; ++t) {
    const int64_t dh = (t / 3) * g->dilation_h;
    const int64_t dw = (t % 3) * g->dilation_w;
    __m512i ih = _mm512_add_epi32(ih0, _mm512_set1_epi32((int32_t)dh));
    __m512i iw = _mm512_add_epi32(iw0, _mm512_set1_epi32((int32_t)dw));
    valid[t] = inside(inside(lanes, ih, g->in_h), iw, g->in_w);
    index[t] = _mm512_maskz_add_epi32(
        valid[t], base,
        _mm512_add_epi32(iw0,
                         _mm512_set1_epi32((int32_t)(dh * g->in_w + dw))));
    upper[t] = _mm512_mask_cmpge_epi32_mask(valid[t], index[t],
                                            _mm512_set1_epi32(32));
  }
  for (int64_t oc = 0; oc < args->channels; ++oc) {
    const float *in = args->input + oc / args->multiplier * g->in_stride_c;
    const float *w = args->weight + oc * g->w_stride_oc;
    const __m512 v0 = _mm512_maskz_loadu_ps(first_lanes(plane_size), in);
    const __m512 v1 =
        _mm512_maskz_loadu_ps(first_lanes(plane_size - 16), in + 16);
    const __m512 v2 =
        _mm512_maskz_loadu_ps(first_lanes(plane_size - 32), in + 32);
    const __m512 v3 =
        _mm512_maskz_loadu_ps(first_lanes(plane_size - 48), in + 48);
    __m512 even = _mm512_setzero_ps();
    __m512 odd = _mm512_setzero_ps();
#pragma GCC unroll 9
    for (int t = 0; t < 9; ++t) {
      // permutex2var reads bits 0..4 of the index: elements 0..31 from
      // (v0, v1), 32..63 from (v2, v3).
      __m512 low = _mm512_maskz_permutex2var_ps(valid[t], v0, index[t], v1);
      __m512 high = _mm512_permutex2var_ps(v2, index[t], v3);
      __m512 x = _mm512_mask_mov_ps(low, upper[t], high);
      const __m512 wt = _mm512_set1_ps(
          w[(t / 3) * g->w_stride_h + (t % 3) * g->w_stride_w]);
      if (t % 2 == 0) {
        even = _mm512_fmadd_ps(wt, x, even);
      } else {
        odd = _mm512_fmadd_ps(wt, x, odd);
      }
    }
    __m512 sum = _mm512_add_ps(even, odd);
    if (args->bias != NULL) {
      sum = _mm512_add_ps(
          sum, _mm512_set1_ps(args->bias[oc * args->bias_stride]));
    }
    _mm512_mask_storeu_ps(args->out + oc * args->out_stride_c, lanes, sum);
  }
}

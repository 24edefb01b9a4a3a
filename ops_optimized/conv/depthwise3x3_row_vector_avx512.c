// SPDX-License-Identifier: Apache-2.0
//
// Depthwise 3x3, stride 1, padding 1, dilation 1, NCHW, AVX-512 (conv.h),
// rows of 8..16 as one vector each, any height (mobilenet_v2's 16x16
// layer; planes of at most 64 elements take depthwise3x3_plane_avx512.c):
// the rows are walked down with the last two kept in registers, so each
// input row is one load, and the output row is the kernel columns' sums
// down the three rows
//   y_kw = w[1][kw] * row + w[0][kw] * above + w[2][kw] * below
// combined with two lane shifts, y_1 + y_0 of the column on the left +
// y_2 of the column on the right (zeros shifted in at both ends of the
// row, and past its end the masked load's zeros), in place of the row
// kernel's three masked loads per row, split over cache lines. Two
// channels go down their planes side by side: each row's sums are a
// chain of three FMAs, and one channel's rows alone left the FMA units
// idle (16x16 planes measured 19% faster so).
//
// Taps outside the image add zeros, which change nothing: padded
// convolutions with a non-finite weight never come here
// (op_convolution.c). The sums run from +0.0 down each kernel column,
// then (y_1 + y_0) + y_2, bias last: an order other than the
// reference's, within its tests' tolerance, exact for exact data.
#include <immintrin.h>

#include "ops_optimized/conv/conv.h"
#include "ops_optimized/conv/lanes_avx512.h"

bool etr_depthwise3x3_row_vector_nchw_avx512_applies(
    const etr_conv2d_geometry_t *g) {
  return g->kernel_h == 3 && g->kernel_w == 3 && g->stride_h == 1 &&
         g->stride_w == 1 && g->dilation_h == 1 && g->dilation_w == 1 &&
         g->pad_h == 1 && g->pad_w == 1 && g->in_w >= 8 && g->in_w <= 16 &&
         g->out_w == g->in_w && g->out_h == g->in_h && g->in_stride_w == 1;
}

// One channel's weights and bias, broadcast, and where its rows are.
typedef struct vector_plane {
  __m512 weights[9];
  __m512 bias;
  const float *in;
  float *out;
} vector_plane_t;

// Output row `oh` of plane `p` from its input rows (the rows above and
// below absent at the image's edges: has_above, has_below).
static inline __attribute__((always_inline)) void vector_row(
    const vector_plane_t *p, __m512 above, __m512 row, __m512 below,
    int64_t oh, int64_t out_stride_h, __mmask16 lanes, bool has_above,
    bool has_below, bool has_bias) {
  const __m512 zero = _mm512_setzero_ps();
  __m512 y[3];
#pragma GCC unroll 3
  for (int kw = 0; kw < 3; ++kw) {
    y[kw] = _mm512_fmadd_ps(p->weights[3 + kw], row, zero);
    if (has_above) {
      y[kw] = _mm512_fmadd_ps(p->weights[kw], above, y[kw]);
    }
    if (has_below) {
      y[kw] = _mm512_fmadd_ps(p->weights[6 + kw], below, y[kw]);
    }
  }
  // Lane i: kernel column 0's sum of column i - 1, column 2's of column
  // i + 1.
  const __m512 left = _mm512_castsi512_ps(_mm512_alignr_epi32(
      _mm512_castps_si512(y[0]), _mm512_castps_si512(zero), 15));
  const __m512 right = _mm512_castsi512_ps(_mm512_alignr_epi32(
      _mm512_castps_si512(zero), _mm512_castps_si512(y[2]), 1));
  __m512 sum = _mm512_add_ps(_mm512_add_ps(y[1], left), right);
  if (has_bias) {
    sum = _mm512_add_ps(sum, p->bias);
  }
  _mm512_mask_storeu_ps(p->out + oh * out_stride_h, lanes, sum);
}

// `count` (1 or 2, a constant after inlining) planes side by side, the
// first and last rows peeled so that the loop has no branches. The loads
// stay out of the FMAs (an empty asm): folded, each row would be loaded
// three times.
static inline __attribute__((always_inline)) void vector_planes(
    const vector_plane_t p[2], int count, const etr_conv2d_geometry_t *g,
    int64_t out_stride_h, __mmask16 lanes, bool has_bias) {
  const __m512 zero = _mm512_setzero_ps();
  const int64_t h = g->in_h;
  const int64_t step = g->in_stride_h;
  __m512 above[2];
  __m512 row[2];
  __m512 below[2];
#pragma GCC unroll 2
  for (int c = 0; c < count; ++c) {
    row[c] = _mm512_maskz_loadu_ps(lanes, p[c].in);
    if (h == 1) {
      vector_row(&p[c], zero, row[c], zero, 0, out_stride_h, lanes, false,
                 false, has_bias);
      continue;
    }
    below[c] = _mm512_maskz_loadu_ps(lanes, p[c].in + step);
    __asm__("" : "+v"(row[c]), "+v"(below[c]));
    vector_row(&p[c], zero, row[c], below[c], 0, out_stride_h, lanes, false,
               true, has_bias);
    above[c] = row[c];
    row[c] = below[c];
  }
  if (h == 1) {
    return;
  }
  for (int64_t oh = 1; oh + 1 < h; ++oh) {
#pragma GCC unroll 2
    for (int c = 0; c < count; ++c) {
      below[c] = _mm512_maskz_loadu_ps(lanes, p[c].in + (oh + 1) * step);
      __asm__("" : "+v"(below[c]));
      vector_row(&p[c], above[c], row[c], below[c], oh, out_stride_h, lanes,
                 true, true, has_bias);
      above[c] = row[c];
      row[c] = below[c];
    }
  }
#pragma GCC unroll 2
  for (int c = 0; c < count; ++c) {
    vector_row(&p[c], above[c], row[c], zero, h - 1, out_stride_h, lanes,
               true, false, has_bias);
  }
}

// Out channels oc .. oc + count - 1 (count 1 or 2, a constant after
// inlining, so that the weights stay in registers) reading input planes
// in[0 .. count - 1].
static inline __attribute__((always_inline)) void channel_group(
    const etr_depthwise_args_t *a, const etr_conv2d_geometry_t *g,
    int64_t oc, const float *const in[2], int count, __mmask16 lanes,
    bool has_bias) {
  vector_plane_t p[2];
#pragma GCC unroll 2
  for (int c = 0; c < count; ++c) {
    const float *w = a->weight + (oc + c) * g->w_stride_oc;
    broadcast_taps3x3(w, g->w_stride_h, g->w_stride_w, p[c].weights);
    p[c].bias =
        _mm512_set1_ps(has_bias ? a->bias[(oc + c) * a->bias_stride] : 0.0f);
    p[c].in = in[c];
    p[c].out = a->out + (oc + c) * a->out_stride_c;
  }
  vector_planes(p, count, g, a->out_stride_h, lanes, has_bias);
}

void etr_depthwise3x3_row_vector_nchw_avx512(
    const etr_depthwise_args_t *args) {
  // Copies, which the stores cannot change: nothing is reloaded per row.
  const etr_depthwise_args_t a = *args;
  const etr_conv2d_geometry_t g = *args->geometry;
  const __mmask16 lanes = first_lanes(g.in_w);
  int64_t ic = 0;      // the input channel of out channel oc
  int64_t repeat = 0;  // out channels so far of input channel ic
  for (int64_t oc = 0; oc < a.channels; oc += 2) {
    const float *in[2];
    const int count = a.channels - oc < 2 ? 1 : 2;
    for (int c = 0; c < count; ++c) {
      in[c] = a.input + ic * g.in_stride_c;
      if (++repeat == a.multiplier) {
        repeat = 0;
        ++ic;
      }
    }
    if (count == 1) {
      channel_group(&a, &g, oc, in, 1, lanes, a.bias != NULL);
    } else if (a.bias != NULL) {
      channel_group(&a, &g, oc, in, 2, lanes, true);
    } else {
      channel_group(&a, &g, oc, in, 2, lanes, false);
    }
  }
}

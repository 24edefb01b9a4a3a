// SPDX-License-Identifier: Apache-2.0
//
// Depthwise 3x3, stride 1, padding 1, dilation 1, NCHW, AVX-512 (conv.h),
// for rows wider than one vector (mobilenet_v2's 32x32 layer, the
// 112x112 one of the benchmark): the plane is walked row by row, 16
// columns per vector, so input and out stream through the caches in
// address order, two output rows per pass. Per block each of the four
// input rows of a pass is one plain load (aligned when the rows are),
// and the kernel columns' sums down them
//   y_kw = w[1][kw] * row + w[0][kw] * above + w[2][kw] * below
// cost nine FMAs per output row; the output is y_1 plus y_0 of the
// column on its left plus y_2 of the column on its right: two lane
// shifts (valignd) across the neighbouring blocks' sums, the next block
// computed one step ahead. That is two loads per 16 outputs where taking
// each tap from a shifted load needs nine, most of them split over two
// cache lines. Against the column strips of depthwise3x3_avx512.c
// (the kernels alone, 64-byte aligned planes): [32,112,112] from L3
// 40.5 -> 34.5 us, [4,112,112] in L2 4.0 -> 3.6 us, [16,32,32] 1.45 ->
// 1.18 us. From L3 the kernel waits on the data: software prefetch of
// the rows 1..4 passes ahead or of the out lines measured slower.
//
// Rows outside the image are skipped (the first and last output rows
// sum two kernel rows); columns outside it are the zero vectors shifted
// in at the row's ends and the zeros the masked loads return past its
// end. Zeros add nothing because padded convolutions with a non-finite
// weight never come here (op_convolution.c). The sums run from +0.0
// down each kernel column, then (y_1 + y_0) + y_2, bias last: an order
// other than the reference's, within its tests' tolerance, exact for
// exact data.
#include <immintrin.h>

#include "ops_optimized/conv/conv.h"
#include "ops_optimized/conv/lanes_avx512.h"

bool etr_depthwise3x3_s1_rows_nchw_avx512_applies(
    const etr_conv2d_geometry_t *g) {
  return g->kernel_h == 3 && g->kernel_w == 3 && g->stride_h == 1 &&
         g->stride_w == 1 && g->dilation_h == 1 && g->dilation_w == 1 &&
         g->pad_h == 1 && g->pad_w == 1 && g->in_w > 16 &&
         g->out_w == g->in_w && g->out_h == g->in_h && g->in_stride_w == 1;
}

// A channel's nine weights and bias, broadcast.
typedef struct channel_weights {
  __m512 w[9];
  __m512 bias;
  bool has_bias;
} channel_weights_t;

// One pass makes `rows` (1 or 2) output rows from input rows in[0] (the
// row above the first, absent at the image's top: has_above) to
// in[rows + 1] (the row below the last, absent at its bottom: has_below);
// an absent row's pointer is any row's, never read.
typedef struct pass {
  const float *in[4];
  float *out[2];
} pass_t;

// The kernel columns' sums y[r][kw] of one block (16 columns from
// `offset`) for each output row r of the pass.
typedef struct column_sums {
  __m512 y[2][3];
} column_sums_t;

static inline __attribute__((always_inline)) column_sums_t block_sums(
    const channel_weights_t *k, const pass_t *p, int64_t offset,
    __mmask16 lanes, int rows, bool has_above, bool has_below) {
  const __m512 zero = _mm512_setzero_ps();
  __m512 x[4];
#pragma GCC unroll 4
  for (int i = 0; i < rows + 2; ++i) {
    const bool absent =
        (i == 0 && !has_above) || (i == rows + 1 && !has_below);
    x[i] = absent ? zero : _mm512_maskz_loadu_ps(lanes, p->in[i] + offset);
  }
  // In registers: folded into the FMAs each row would be loaded thrice
  // (measured a third slower).
  __asm__("" : "+v"(x[0]), "+v"(x[1]), "+v"(x[2]));
  if (rows == 2) {
    __asm__("" : "+v"(x[3]));
  }
  column_sums_t s;
#pragma GCC unroll 2
  for (int r = 0; r < rows; ++r) {
#pragma GCC unroll 3
    for (int kw = 0; kw < 3; ++kw) {
      __m512 sum = _mm512_fmadd_ps(k->w[3 + kw], x[r + 1], zero);
      if (r > 0 || has_above) {
        sum = _mm512_fmadd_ps(k->w[kw], x[r], sum);
      }
      if (r + 1 < rows || has_below) {
        sum = _mm512_fmadd_ps(k->w[6 + kw], x[r + 2], sum);
      }
      s.y[r][kw] = sum;
    }
  }
  return s;
}

// Out block = y_1 + y_0 shifted up a lane (lane 0 from `before`, the
// block on the left) + y_2 shifted down (lane 15 from `after`, the block
// on the right), plus the bias.
static inline __attribute__((always_inline)) __m512 combine(
    const channel_weights_t *k, __m512 before, const __m512 y[3],
    __m512 after) {
  const __m512 left = _mm512_castsi512_ps(_mm512_alignr_epi32(
      _mm512_castps_si512(y[0]), _mm512_castps_si512(before), 15));
  const __m512 right = _mm512_castsi512_ps(_mm512_alignr_epi32(
      _mm512_castps_si512(after), _mm512_castps_si512(y[2]), 1));
  __m512 sum = _mm512_add_ps(_mm512_add_ps(y[1], left), right);
  if (k->has_bias) {
    sum = _mm512_add_ps(sum, k->bias);
  }
  return sum;
}

// One pass over rows of `width` (> 16) columns, the next block's sums
// computed a step ahead. (Blocks aligned to the input's cache lines
// where its rows are not measured slower: a partial block more per row.)
static inline __attribute__((always_inline)) void output_rows(
    const channel_weights_t *k, const pass_t *p, int64_t width, int rows,
    bool has_above, bool has_below) {
  const __mmask16 all = (__mmask16)0xffff;
  const __m512 zero = _mm512_setzero_ps();
  const int64_t last = 16 * ((width - 1) / 16);  // the last block, >= 16
  const __mmask16 tail = first_lanes(width - last);
  __m512 before[2] = {zero, zero};  // y_0 of the block on the left
  column_sums_t current =
      block_sums(k, p, 0, all, rows, has_above, has_below);
  int64_t o = 0;  // the current block's first column
  for (; o + 16 < last; o += 16) {
    const column_sums_t next =
        block_sums(k, p, o + 16, all, rows, has_above, has_below);
#pragma GCC unroll 2
    for (int r = 0; r < rows; ++r) {
      _mm512_storeu_ps(p->out[r] + o,
                       combine(k, before[r], current.y[r], next.y[r][2]));
      before[r] = current.y[r][0];
    }
    current = next;
  }
  const column_sums_t final =
      block_sums(k, p, last, tail, rows, has_above, has_below);
#pragma GCC unroll 2
  for (int r = 0; r < rows; ++r) {
    _mm512_storeu_ps(p->out[r] + o,
                     combine(k, before[r], current.y[r], final.y[r][2]));
    _mm512_mask_storeu_ps(p->out[r] + last, tail,
                          combine(k, current.y[r][0], final.y[r], zero));
  }
}

void etr_depthwise3x3_s1_rows_nchw_avx512(const etr_depthwise_args_t *args) {
  // Copies, which the stores cannot change: nothing is reloaded per row.
  const etr_depthwise_args_t a = *args;
  const etr_conv2d_geometry_t g = *args->geometry;
  const int64_t height = g.in_h;
  const int64_t width = g.in_w;
  int64_t ic = 0;      // the input channel of out channel oc
  int64_t repeat = 0;  // out channels so far of input channel ic
  for (int64_t oc = 0; oc < a.channels; ++oc) {
    const float *in = a.input + ic * g.in_stride_c;
    const float *w = a.weight + oc * g.w_stride_oc;
    channel_weights_t k;
    broadcast_taps3x3(w, g.w_stride_h, g.w_stride_w, k.w);
    k.has_bias = a.bias != NULL;
    k.bias = _mm512_set1_ps(k.has_bias ? a.bias[oc * a.bias_stride] : 0.0f);
    float *plane = a.out + oc * a.out_stride_c;
    // Pairs of output rows from the top; the last row alone when the
    // height is odd. Row oh's pass reads input rows oh - 1 .. oh + rows.
    int64_t oh = 0;
    for (; oh + 1 < height; oh += 2) {
      const float *row = in + oh * g.in_stride_h;
      const bool top = oh == 0;
      const bool bottom = oh + 2 == height;
      const pass_t p = {
          .in = {top ? row : row - g.in_stride_h, row, row + g.in_stride_h,
                 bottom ? row : row + 2 * g.in_stride_h},
          .out = {plane + oh * a.out_stride_h,
                  plane + (oh + 1) * a.out_stride_h}};
      if (top && bottom) {
        output_rows(&k, &p, width, 2, false, false);
      } else if (top) {
        output_rows(&k, &p, width, 2, false, true);
      } else if (bottom) {
        output_rows(&k, &p, width, 2, true, false);
      } else {
        output_rows(&k, &p, width, 2, true, true);
      }
    }
    if (oh < height) {  // the last row, oh > 0 unless the height is 1
      const float *row = in + oh * g.in_stride_h;
      const pass_t p = {.in = {oh > 0 ? row - g.in_stride_h : row, row, row,
                               row},
                        .out = {plane + oh * a.out_stride_h, NULL}};
      if (oh > 0) {
        output_rows(&k, &p, width, 1, true, false);
      } else {
        output_rows(&k, &p, width, 1, false, false);
      }
    }
    if (++repeat == a.multiplier) {
      repeat = 0;
      ++ic;
    }
  }
}

// SPDX-License-Identifier: Apache-2.0
//
// Depthwise 3x3, stride 2, padding 1, NCHW, AVX-512 (conv.h), rows of at
// most 16 inputs and 8 outputs (mobilenet_v2's 16x16 -> 8x8 layer): two
// output rows per vector, lanes [0, out_w) the first and [out_w,
// 2 out_w) the second, stored with one masked store (dense out planes, as
// for the flat kernels of depthwise_avx512.c: the op checks). Each input
// row is one masked load; output rows oh and oh + 1 read input rows
// 2 oh - 1 .. 2 oh + 3, and kernel row kh of the pair is rows 2 oh - 1 +
// kh (the first output row) and 2 oh + 1 + kh (the second), split into
// even and odd columns by one in-lane shuffle each (vshufps of the two
// rows: lane 4 k + j holds column pair 2 k + j of the first row for
// j < 2, 2 k + j - 2 of the second else). Kernel column 1 reads the even
// columns, column 2 the odd ones, column 0 the odd column before; the
// sums down the rows are put back in order by two permutes, the one of
// kernel column 0 taking it one output back (zero in the first column).
// Two cross-lane permutes per 16 outputs in place of nine (one per tap:
// depthwise3x3_plane_avx512.c's two-rows kernel, which takes the
// unpadded and wider-stepped cases still): on this machine (Zen 5)
// cross-lane permutes compete with the FMAs for their pipes, in-lane
// shuffles do not. The last row of a pair is kept for the next. Dense
// 16x16 planes (the model's layer) go through an unrolled loop that reads
// a plane skewed from a 64-byte line (16-byte aligned tensors) as whole
// lines put together by valignd, in place of loads split over two lines:
// 72 channels 0.87 -> 0.69 us.
//
// Taps outside the image contribute zeros (masked loads), which add
// nothing: padded convolutions with a non-finite weight never come here
// (op_convolution.c). The sums run from the bias (+0.0 without one), the
// own row first, kernel columns 1 and 2 in one chain (one add fewer than
// three chains, and faster) and column 0 from +0.0 in another, then
// added: an order other than the reference's, within its tests'
// tolerance, exact for exact data.
#include <immintrin.h>

#include "ops_optimized/conv/conv.h"
#include "ops_optimized/conv/lanes_avx512.h"

bool etr_depthwise3x3_s2_narrow_nchw_avx512_applies(
    const etr_conv2d_geometry_t *g) {
  return g->kernel_h == 3 && g->kernel_w == 3 && g->stride_h == 2 &&
         g->stride_w == 2 && g->dilation_h == 1 && g->dilation_w == 1 &&
         g->pad_h == 1 && g->pad_w == 1 && g->in_w <= 16 &&
         g->in_stride_w == 1;
}

// Input row `row` of a channel's plane, zeros outside the image.
static inline __m512 input_row(const etr_conv2d_geometry_t *g,
                               const float *in, __mmask16 lanes,
                               int64_t row) {
  // Masked off (no fault, no read) below the image: no branch.
  const bool inside_image = row < g->in_h;
  return _mm512_maskz_loadu_ps(inside_image ? lanes : 0,
                               in + (inside_image ? row : 0) * g->in_stride_h);
}

// What one channel's pairs of rows share.
typedef struct narrow_channel {
  __m512 weights[9];
  __m512 bias;
  __m512i natural;  // lane m: the scrambled lane of output m
  __m512i before;   // lane m: that of output m - 1 in its row
  __mmask16 has_before;  // lanes not in the first column
} narrow_channel_t;

// Output rows oh and oh + 1 from input rows 2 oh - 1 (`kept`) .. 2 oh + 3.
static inline __attribute__((always_inline)) void pair_of_rows(
    const narrow_channel_t *c, __m512 kept, __m512 row0, __m512 row1,
    __m512 row2, __m512 row3, __mmask16 lanes, float *out) {
  const __m512 zero = _mm512_setzero_ps();
  const __m512 even = _mm512_shuffle_ps(row0, row2, 0x88);
  const __m512 odd = _mm512_shuffle_ps(row0, row2, 0xdd);
  const __m512 above_even = _mm512_shuffle_ps(kept, row1, 0x88);
  const __m512 above_odd = _mm512_shuffle_ps(kept, row1, 0xdd);
  const __m512 below_even = _mm512_shuffle_ps(row1, row3, 0x88);
  const __m512 below_odd = _mm512_shuffle_ps(row1, row3, 0xdd);
  const __m512 *w = c->weights;
  // Kernel columns 1 and 2 in one chain, the own row first.
  __m512 y12 = _mm512_fmadd_ps(w[4], even, c->bias);
  __m512 y0 = _mm512_fmadd_ps(w[3], odd, zero);
  y12 = _mm512_fmadd_ps(w[5], odd, y12);
  y0 = _mm512_fmadd_ps(w[0], above_odd, y0);
  y12 = _mm512_fmadd_ps(w[1], above_even, y12);
  y0 = _mm512_fmadd_ps(w[6], below_odd, y0);
  y12 = _mm512_fmadd_ps(w[2], above_odd, y12);
  y12 = _mm512_fmadd_ps(w[7], below_even, y12);
  y12 = _mm512_fmadd_ps(w[8], below_odd, y12);
  const __m512 sum =
      _mm512_add_ps(_mm512_permutexvar_ps(c->natural, y12),
                    _mm512_maskz_permutexvar_ps(c->has_before, c->before, y0));
  _mm512_mask_storeu_ps(out, lanes, sum);
}

// Lanes 16 - k .. 31 - k of (hi, lo): the 16 floats k after lo's start.
#define NARROW_ALIGN(hi, lo, k)                                        \
  _mm512_castsi512_ps(_mm512_alignr_epi32(_mm512_castps_si512(hi),      \
                                          _mm512_castps_si512(lo), k))

// Row r of a 16x16 plane at `in`, `skew` floats (0, 4, 8 or 12, a
// constant after inlining) past a 64-byte line: one load, or for a skewed
// plane lines r and r + 1 (`line`, the plane's first line, and the
// masks of its first and last) put together by valignd, since a skewed
// row split over two lines costs more than a valignd.
static inline __attribute__((always_inline)) __m512 sixteen_row(
    const float *in, int skew, int r) {
  if (skew == 0) {
    return _mm512_loadu_ps(in + 16 * r);
  }
  const float *line = in - skew + 16 * r;
  const __m512 lo =
      r == 0 ? _mm512_maskz_loadu_ps((__mmask16)(0xffffu << skew), line)
             : _mm512_loadu_ps(line);
  const __m512 hi =
      r == 15 ? _mm512_maskz_loadu_ps((__mmask16)((1u << skew) - 1u),
                                      line + 16)
              : _mm512_loadu_ps(line + 16);
  if (skew == 4) {
    return NARROW_ALIGN(hi, lo, 4);
  }
  if (skew == 8) {
    return NARROW_ALIGN(hi, lo, 8);
  }
  return NARROW_ALIGN(hi, lo, 12);
}

// 16x16 planes -> 8x8, dense planes, weights and out, one out channel per
// input channel (mobilenet_v2's layer), planes `skew` floats past a line:
// the four pairs of rows unrolled, pointers stepped by constants.
static inline __attribute__((always_inline)) void sixteen_dense_skewed(
    const etr_depthwise_args_t *args, const narrow_channel_t *shared,
    int skew) {
  const float *in = args->input;
  const float *weight = args->weight;
  const float *bias = args->bias;
  float *out = args->out;
  const __m512 zero = _mm512_setzero_ps();
  for (int64_t oc = 0; oc < args->channels; ++oc) {
    narrow_channel_t c = *shared;
    broadcast_taps3x3(weight, 3, 1, c.weights);
    c.bias = _mm512_set1_ps(bias != NULL ? bias[oc] + 0.0f : 0.0f);
    // The plane two channels on, from L2 on a large layer (never a
    // fault).
#pragma GCC unroll 5
    for (int line = 0; line < 5; ++line) {
      _mm_prefetch((const char *)(in + 2 * 256 + 16 * line), _MM_HINT_T0);
    }
    __m512 kept = zero;
#pragma GCC unroll 4
    for (int pair = 0; pair < 4; ++pair) {
      const __m512 row3 = sixteen_row(in, skew, 4 * pair + 3);
      pair_of_rows(&c, kept, sixteen_row(in, skew, 4 * pair),
                   sixteen_row(in, skew, 4 * pair + 1),
                   sixteen_row(in, skew, 4 * pair + 2), row3,
                   (__mmask16)0xffff, out + 16 * pair);
      kept = row3;
    }
    in += 256;
    weight += 9;
    out += 64;
  }
}

static void sixteen_dense(const etr_depthwise_args_t *args,
                          const narrow_channel_t *shared) {
  // Planes of 256 floats: every one is as far past a line as the first.
  switch ((uintptr_t)args->input % 64) {
    case 16:
      sixteen_dense_skewed(args, shared, 4);
      return;
    case 32:
      sixteen_dense_skewed(args, shared, 8);
      return;
    case 48:
      sixteen_dense_skewed(args, shared, 12);
      return;
    default:
      sixteen_dense_skewed(args, shared, 0);
      return;
  }
}

void etr_depthwise3x3_s2_narrow_nchw_avx512(
    const etr_depthwise_args_t *args) {
  // Copies, which the stores cannot change: nothing is reloaded per row.
  const etr_depthwise_args_t a = *args;
  const etr_conv2d_geometry_t g = *args->geometry;
  const __mmask16 lanes = first_lanes(g.in_w);
  const __m512 zero = _mm512_setzero_ps();
  // Lane m of the out vector: row m / out_w of the pair, column c =
  // m % out_w, scrambled lane 4 (c / 2) + c % 2 + 2 row; for kernel
  // column 0 that of c - 1 (none in the first column). In vector
  // registers: scalar stores read back as a vector would stall the store
  // forwarding, which every call would pay.
  const __m512i iota =
      _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  const __m512i one = _mm512_set1_epi32(1);
  const __m512i width = _mm512_set1_epi32((int32_t)g.out_w);
  const __mmask16 second = _mm512_cmpge_epi32_mask(iota, width);
  const __m512i column = _mm512_mask_sub_epi32(iota, second, iota, width);
  const __m512i row_lane = _mm512_maskz_mov_epi32(second, _mm512_set1_epi32(2));
  const __m512i natural = _mm512_add_epi32(
      _mm512_add_epi32(_mm512_slli_epi32(_mm512_srli_epi32(column, 1), 2),
                       _mm512_and_si512(column, one)),
      row_lane);
  const __m512i before_column = _mm512_sub_epi32(column, one);
  const __m512i before = _mm512_add_epi32(
      _mm512_add_epi32(
          _mm512_slli_epi32(_mm512_srai_epi32(before_column, 1), 2),
          _mm512_and_si512(before_column, one)),
      row_lane);
  const __mmask16 has_before =
      _mm512_cmpgt_epi32_mask(column, _mm512_setzero_si512());
  const int64_t out_w = g.out_w;
  const __mmask16 two_rows = first_lanes(2 * out_w);
  const int64_t plane_bytes = g.in_h * g.in_stride_h * (int64_t)sizeof(float);
  if (g.in_h == 16 && g.in_w == 16 && g.in_stride_h == 16 &&
      g.in_stride_c == 256 && a.multiplier == 1 && g.w_stride_oc == 9 &&
      g.w_stride_h == 3 && g.w_stride_w == 1 && a.out_stride_c == 64 &&
      (a.bias == NULL || a.bias_stride == 1)) {
    narrow_channel_t shared;
    shared.natural = natural;
    shared.before = before;
    shared.has_before = has_before;
    sixteen_dense(&a, &shared);
    return;
  }
  int64_t ic = 0;      // the input channel of out channel oc
  int64_t repeat = 0;  // out channels so far of input channel ic
  for (int64_t oc = 0; oc < a.channels; ++oc) {
    const float *in = a.input + ic * g.in_stride_c;
    const float *w = a.weight + oc * g.w_stride_oc;
    narrow_channel_t c;
    broadcast_taps3x3(w, g.w_stride_h, g.w_stride_w, c.weights);
    // The bias starts the chain of kernel columns 1 and 2, + 0.0 so that
    // a -0.0 bias adds as the +0.0 start of an unbiased chain does.
    c.bias = _mm512_set1_ps(
        a.bias != NULL ? a.bias[oc * a.bias_stride] + 0.0f : 0.0f);
    c.natural = natural;
    c.before = before;
    c.has_before = has_before;
    float *plane = a.out + oc * a.out_stride_c;
    // Planes of a large layer come from L2: fetching the plane two channels
    // on (never a fault) took 72 channels of 16x16 from 1.15 to 0.95 us.
    const char *ahead = (const char *)(in + 2 * g.in_stride_c);
    for (int64_t b = 0; b < plane_bytes; b += 64) {
      _mm_prefetch(ahead + b, _MM_HINT_T0);
    }
    // Pairs whose five input rows are all inside the image, then the
    // last pair, if any, with rows past the image read as zeros and
    // perhaps one output row.
    __m512 kept = zero;  // input row 2 oh - 1 (none above row 0)
    const float *row = in;
    float *out = plane;
    int64_t oh = 0;
    for (; 2 * oh + 3 < g.in_h && oh + 1 < g.out_h; oh += 2) {
      const __m512 row0 = _mm512_maskz_loadu_ps(lanes, row);
      const __m512 row1 = _mm512_maskz_loadu_ps(lanes, row + g.in_stride_h);
      const __m512 row2 =
          _mm512_maskz_loadu_ps(lanes, row + 2 * g.in_stride_h);
      const __m512 row3 =
          _mm512_maskz_loadu_ps(lanes, row + 3 * g.in_stride_h);
      pair_of_rows(&c, kept, row0, row1, row2, row3, two_rows, out);
      kept = row3;
      row += 4 * g.in_stride_h;
      out += 2 * out_w;
    }
    if (oh < g.out_h) {
      pair_of_rows(&c, kept, input_row(&g, in, lanes, 2 * oh),
                   input_row(&g, in, lanes, 2 * oh + 1),
                   input_row(&g, in, lanes, 2 * oh + 2),
                   input_row(&g, in, lanes, 2 * oh + 3),
                   first_lanes((g.out_h - oh < 2 ? 1 : 2) * out_w), out);
    }
    if (++repeat == a.multiplier) {
      repeat = 0;
      ++ic;
    }
  }
}

// SPDX-License-Identifier: Apache-2.0
//
// Depthwise 3x3, stride 2, padding 1, NCHW, AVX-512 (conv.h), for rows
// spanning several vectors (33 or more inputs; the bench's 112x112 ->
// 56x56 layer). The plane is walked row by row, 16 outputs (32 inputs)
// per block; output row oh reads input rows 2 oh - 1, 2 oh and 2 oh + 1,
// each as two loads split into even and odd columns by two in-lane
// shuffles (vshufps), which leave them in a scrambled lane order (lane
// 4 k + j holds column pair 2 k + j for j < 2, 8 + 2 k + j - 2 else) that
// the FMAs do not mind. Kernel column 1 reads the even columns, column 2
// the odd ones, column 0 the odd column before: kernel column 0's sum
// down the rows, taken one output back (the previous block's last for
// output 0) by the same permute that restores the order; columns 1 and
// 2's sums are put back in order by one more. On this machine (Zen 5)
// cross-lane permutes compete with the FMAs for their pipes and in-lane
// shuffles do not: two permutes per 16 outputs in place of the row
// kernel's six (depthwise3x3_avx512.c: three loads per row, split over
// cache lines, two permutes and a shift) took 8 channels of 112x112 in L2
// from 4.5 to 3.7 us. Output rows are taken two at a time: rows oh and
// oh + 1 share input row 2 oh + 1, so five row splits serve two blocks in
// place of six (the bench's 96x112x112 layer on Zen 4, where the loads,
// shuffles and stores cost about what the FMAs do: 0.88x the time,
// paired.py program, 7 rounds); a last odd row goes alone. The input of a
// large layer streams from L3: the next pair's four rows are prefetched.
//
// Taps outside the image contribute zeros (masked loads), which add
// nothing: padded convolutions with a non-finite weight never come here
// (op_convolution.c). The sums run down each kernel column (the own row
// first), column 1's from the bias and the others from +0.0, then (y_1 +
// y_2) + y_0: an order other than the reference's, within its tests'
// tolerance, exact for exact data.
#include <immintrin.h>

#include "ops_optimized/conv/conv.h"
#include "ops_optimized/conv/lanes_avx512.h"

bool etr_depthwise3x3_s2_wide_nchw_avx512_applies(
    const etr_conv2d_geometry_t *g) {
  return g->kernel_h == 3 && g->kernel_w == 3 && g->stride_h == 2 &&
         g->stride_w == 2 && g->dilation_h == 1 && g->dilation_w == 1 &&
         g->pad_h == 1 && g->pad_w == 1 && g->in_w >= 33 &&
         g->in_stride_w == 1;
}

// What stays the same for every block of a channel.
typedef struct wide_channel {
  __m512 weights[9];
  __m512 bias;
  __m512i natural;  // lane m: the scrambled lane of output m
  __m512i shifted;  // lane m: that of output m - 1 (16 +: previous block)
} wide_channel_t;

// Kernel rows 0..2 (`top` .. `bottom`, each split) of one block into the
// sums of kernel columns 1 and 2 (in order, bias included) and of column
// 0 (scrambled, for the next block), and the block's outputs.
static inline __attribute__((always_inline)) void wide_sums(
    const wide_channel_t *c, __m512 top_even, __m512 top_odd,
    __m512 own_even, __m512 own_odd, __m512 bottom_even, __m512 bottom_odd,
    __m512 *left, __mmask16 out_lanes, float *out) {
  const __m512 zero = _mm512_setzero_ps();
  const __m512 *w = c->weights;
  __m512 y1 = _mm512_fmadd_ps(w[4], own_even, c->bias);
  __m512 y2 = _mm512_fmadd_ps(w[5], own_odd, zero);
  __m512 y0 = _mm512_fmadd_ps(w[3], own_odd, zero);
  y1 = _mm512_fmadd_ps(w[1], top_even, y1);
  y2 = _mm512_fmadd_ps(w[2], top_odd, y2);
  y0 = _mm512_fmadd_ps(w[0], top_odd, y0);
  y1 = _mm512_fmadd_ps(w[7], bottom_even, y1);
  y2 = _mm512_fmadd_ps(w[8], bottom_odd, y2);
  y0 = _mm512_fmadd_ps(w[6], bottom_odd, y0);
  // Back in order; kernel column 0's sum of the odd column before each
  // output (the previous block's last for output 0).
  const __m512 middle =
      _mm512_permutexvar_ps(c->natural, _mm512_add_ps(y1, y2));
  const __m512 before = _mm512_permutex2var_ps(y0, c->shifted, *left);
  *left = y0;
  _mm512_mask_storeu_ps(out, out_lanes, _mm512_add_ps(middle, before));
}

// One block of an output row from input rows `up`, `own` and `below`
// (`up_lanes` and `below_lanes` 0 outside the image). `left` carries
// kernel column 0's sums (scrambled) from block to block.
static inline __attribute__((always_inline)) void wide_block(
    const wide_channel_t *c, const float *up, const float *own,
    const float *below, __mmask16 up_lanes, __mmask16 below_lanes,
    parity_masks_t m, __m512 *left, float *out) {
  __m512 even, odd, above_even, above_odd, below_even, below_odd;
  split_parity(own, m.low, m.high, &even, &odd);
  split_parity(up, m.low & up_lanes, m.high & up_lanes, &above_even,
               &above_odd);
  split_parity(below, m.low & below_lanes, m.high & below_lanes,
               &below_even, &below_odd);
  wide_sums(c, above_even, above_odd, even, odd, below_even, below_odd,
            left, m.out, out);
}

// One block of two output rows, oh (from input rows `up`, `own`,
// `shared`) and oh + 1 (from `shared`, `next`, `below`): five row splits
// in place of six; `below_lanes` 0 past the image.
static inline __attribute__((always_inline)) void wide_block2(
    const wide_channel_t *c, const float *up, const float *own,
    const float *shared, const float *next, const float *below,
    __mmask16 up_lanes, __mmask16 below_lanes, parity_masks_t m,
    __m512 *left0, __m512 *left1, float *out0, float *out1) {
  __m512 e0, o0, e1, o1, e2, o2, e3, o3, e4, o4;
  split_parity(up, m.low & up_lanes, m.high & up_lanes, &e0, &o0);
  split_parity(own, m.low, m.high, &e1, &o1);
  split_parity(shared, m.low, m.high, &e2, &o2);
  split_parity(next, m.low, m.high, &e3, &o3);
  split_parity(below, m.low & below_lanes, m.high & below_lanes, &e4,
               &o4);
  wide_sums(c, e0, o0, e1, o1, e2, o2, left0, m.out, out0);
  wide_sums(c, e2, o2, e3, o3, e4, o4, left1, m.out, out1);
}

static void wide_plane(const etr_conv2d_geometry_t *g, const float *in,
                       const float *weight, float bias, float *plane,
                       int64_t out_stride_h) {
  wide_channel_t c;
  broadcast_taps3x3(weight, g->w_stride_h, g->w_stride_w, c.weights);
  c.bias = _mm512_set1_ps(bias);
  c.natural = _mm512_setr_epi32(0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10,
                                11, 14, 15);
  // Output 0 reads the previous block's output 15 (lane 15, + 16).
  c.shifted = _mm512_setr_epi32(31, 0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7,
                                10, 11, 14);
  const int64_t in_w = g->in_w;
  const int64_t full = in_w / 32;  // blocks of 32 inputs and 16 outputs
  const int64_t rest = in_w - 32 * full;
  const parity_masks_t all = {0xffff, 0xffff, 0xffff};
  const parity_masks_t tail = parity_tail_masks(rest);
  const int64_t row_stride = g->in_stride_h;
  int64_t oh = 0;
  // Two output rows at a time while both exist: their input rows 2 oh -
  // 1 .. 2 oh + 3, of which the first is above the image for oh = 0 and
  // the last may be below it (zero lanes).
  for (; oh + 1 < g->out_h; oh += 2) {
    const float *own = in + 2 * oh * row_stride;
    const bool has_up = oh > 0;
    const bool has_below = 2 * oh + 3 < g->in_h;
    const float *up = has_up ? own - row_stride : own;
    const float *shared = own + row_stride;
    const float *next = own + 2 * row_stride;
    const float *below = has_below ? own + 3 * row_stride : own;
    const __mmask16 up_lanes = has_up ? 0xffff : 0;
    const __mmask16 below_lanes = has_below ? 0xffff : 0;
    // The next pair's new rows, 2 oh + 4 .. 2 oh + 7, prefetched.
    const int64_t ahead = 2 * oh + 7 < g->in_h ? 4 : 0;
    const float *pre = own + ahead * row_stride;
    const int64_t pre_stride = ahead > 0 ? row_stride : 0;
    float *out0 = plane + oh * out_stride_h;
    float *out1 = out0 + out_stride_h;
    __m512 left0 = _mm512_setzero_ps();
    __m512 left1 = _mm512_setzero_ps();
    int64_t b = 0;
    for (; b < full; ++b) {
#pragma GCC unroll 4
      for (int r = 0; r < 4; ++r) {
        _mm_prefetch((const char *)(pre + r * pre_stride + 32 * b),
                     _MM_HINT_T0);
        _mm_prefetch((const char *)(pre + r * pre_stride + 32 * b + 16),
                     _MM_HINT_T0);
      }
      wide_block2(&c, up + 32 * b, own + 32 * b, shared + 32 * b,
                  next + 32 * b, below + 32 * b, up_lanes, below_lanes, all,
                  &left0, &left1, out0 + 16 * b, out1 + 16 * b);
    }
    if (rest > 0) {
      wide_block2(&c, up + 32 * b, own + 32 * b, shared + 32 * b,
                  next + 32 * b, below + 32 * b, up_lanes, below_lanes,
                  tail, &left0, &left1, out0 + 16 * b, out1 + 16 * b);
    }
  }
  for (; oh < g->out_h; ++oh) {
    const float *own = in + 2 * oh * row_stride;
    const bool has_up = oh > 0;
    const bool has_below = 2 * oh + 1 < g->in_h;
    const float *up = has_up ? own - row_stride : own;
    const float *below = has_below ? own + row_stride : own;
    const __mmask16 up_lanes = has_up ? 0xffff : 0;
    const __mmask16 below_lanes = has_below ? 0xffff : 0;
    float *out = plane + oh * out_stride_h;
    __m512 left = _mm512_setzero_ps();
    int64_t b = 0;
    for (; b < full; ++b) {
      wide_block(&c, up + 32 * b, own + 32 * b, below + 32 * b, up_lanes,
                 below_lanes, all, &left, out + 16 * b);
    }
    if (rest > 0) {
      wide_block(&c, up + 32 * b, own + 32 * b, below + 32 * b, up_lanes,
                 below_lanes, tail, &left, out + 16 * b);
    }
  }
}

void etr_depthwise3x3_s2_wide_nchw_avx512(const etr_depthwise_args_t *args) {
  const etr_depthwise_args_t a = *args;
  const etr_conv2d_geometry_t g = *args->geometry;
  int64_t ic = 0;      // the input channel of out channel oc
  int64_t repeat = 0;  // out channels so far of input channel ic
  for (int64_t oc = 0; oc < a.channels; ++oc) {
    wide_plane(&g, a.input + ic * g.in_stride_c, a.weight + oc * g.w_stride_oc,
               a.bias != NULL ? a.bias[oc * a.bias_stride] : 0.0f,
               a.out + oc * a.out_stride_c, a.out_stride_h);
    if (++repeat == a.multiplier) {
      repeat = 0;
      ++ic;
    }
  }
}

// SPDX-License-Identifier: Apache-2.0
//
// Depthwise 3x3, NCHW, AVX-512 (conv.h): stride 2, padding 1, rows of
// 17..32 inputs and 9..16 outputs, any height (mobilenet_v2's 32x32 ->
// 16x16 layer): an output row is one vector.
// Each input row is two loads split into even and odd columns by two
// in-lane shuffles (vshufps), which leave them in a scrambled lane order
// (lane 4 k + j holds column pair 2 k + j for j < 2, 8 + 2 k + j - 2
// else) that the FMAs do not mind; kernel column 1 reads the even part,
// columns 2 and 0 the odd one (0 the odd column before), and the sums down
// the rows are put back in order by two permutes, kernel column 0's taken
// one output back with a zero in the first. Output row oh reads input
// rows 2 oh - 1 (the previous output row's last, kept), 2 oh and 2 oh + 1.
// Two cross-lane permutes per row in place of five (two per input row
// and a shift): on this machine (Zen 5) cross-lane permutes compete with
// the FMAs for their pipes, in-lane shuffles do not. Kernel columns 1 and
// 2 sum in one chain (the own row first), column 0 in another: one add
// fewer per row.
//
// Taps outside the image contribute zeros, which add nothing: padded
// convolutions with a non-finite weight never come here
// (op_convolution.c). The sums run in an order other than the
// reference's, within its tests' tolerance, exact for exact data.
#include <immintrin.h>

#include "ops_optimized/conv/conv.h"
#include "ops_optimized/conv/depthwise3x3_s2_avx512.h"
#include "ops_optimized/conv/lanes_avx512.h"

bool etr_depthwise3x3_s2_row_vector_nchw_avx512_applies(
    const etr_conv2d_geometry_t *g) {
  return g->kernel_h == 3 && g->kernel_w == 3 && g->stride_h == 2 &&
         g->stride_w == 2 && g->dilation_h == 1 && g->dilation_w == 1 &&
         g->pad_h == 1 && g->pad_w == 1 && g->in_w >= 17 && g->in_w <= 32 &&
         g->in_stride_w == 1;
}

// Columns 0..31 of an input row split by column parity (scrambled).
// `full`: rows of 32 columns, the second load unmasked (a zero-masking
// load with every lane set ran the 48 x 32 x 32 layer 12% slower on Zen
// 5, 1.66 against 1.45 us).
static inline __attribute__((always_inline)) void split(
    const float *row, __mmask16 high_lanes, const bool full, __m512 *even,
    __m512 *odd) {
  const __m512 lo = _mm512_loadu_ps(row);
  const __m512 hi = full ? _mm512_loadu_ps(row + 16)
                         : _mm512_maskz_loadu_ps(high_lanes, row + 16);
  *even = _mm512_shuffle_ps(lo, hi, 0x88);
  *odd = _mm512_shuffle_ps(lo, hi, 0xdd);
}

static inline __attribute__((always_inline)) void row_vector(
    const etr_depthwise_args_t *args, const bool full) {
  // Copies, which the stores cannot change: nothing is reloaded per row.
  const etr_depthwise_args_t a = *args;
  const etr_conv2d_geometry_t g = *args->geometry;
  const __mmask16 high_lanes = first_lanes(g.in_w - 16);
  const __mmask16 lanes = first_lanes(g.out_w);
  const __m512 zero = _mm512_setzero_ps();
  // Lane m: the scrambled lane of output m, and of output m - 1.
  const __m512i natural = _mm512_setr_epi32(0, 1, 4, 5, 8, 9, 12, 13, 2, 3,
                                            6, 7, 10, 11, 14, 15);
  const __m512i before = _mm512_setr_epi32(0, 0, 1, 4, 5, 8, 9, 12, 13, 2,
                                           3, 6, 7, 10, 11, 14);
  int64_t ic = 0;      // the input channel of out channel oc
  int64_t repeat = 0;  // out channels so far of input channel ic
  for (int64_t oc = 0; oc < a.channels; ++oc) {
    const float *in = a.input + ic * g.in_stride_c;
    const float *w = a.weight + oc * g.w_stride_oc;
    __m512 weights[9];
    broadcast_taps3x3(w, g.w_stride_h, g.w_stride_w, weights);
    const __m512 bias = channel_bias(&a, oc);
    float *plane = a.out + oc * a.out_stride_c;
    __m512 above_even = zero;  // row 2 oh - 1 (none above row 0)
    __m512 above_odd = zero;
    // Rows whose input rows are all inside the image, then the last one
    // (odd heights), whose row below is padding.
    const int64_t inside_rows = g.in_h / 2;
    for (int64_t oh = 0; oh < g.out_h; ++oh) {
      __m512 even;
      __m512 odd;
      __m512 below_even;
      __m512 below_odd;
      const float *r = in + 2 * oh * g.in_stride_h;
      split(r, high_lanes, full, &even, &odd);
      if (oh < inside_rows) {
        split(r + g.in_stride_h, high_lanes, full, &below_even,
              &below_odd);
      } else {
        below_even = below_odd = zero;
      }
      __m512 y12;
      __m512 y0;
      s2_taps(weights, bias, even, odd, above_even, above_odd, below_even,
              below_odd, &y12, &y0);
      const __m512 sum = _mm512_add_ps(
          _mm512_permutexvar_ps(natural, y12),
          _mm512_maskz_permutexvar_ps((__mmask16)0xfffe, before, y0));
      _mm512_mask_storeu_ps(plane + oh * a.out_stride_h, lanes, sum);
      above_even = below_even;
      above_odd = below_odd;
    }
    if (++repeat == a.multiplier) {
      repeat = 0;
      ++ic;
    }
  }
}

void etr_depthwise3x3_s2_row_vector_nchw_avx512(
    const etr_depthwise_args_t *args) {
  if (args->geometry->in_w == 32) {
    row_vector(args, true);
  } else {
    row_vector(args, false);
  }
}

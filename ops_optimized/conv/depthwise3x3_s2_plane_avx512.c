// SPDX-License-Identifier: Apache-2.0
//
// Depthwise 3x3, stride 2, padding 1, NCHW, AVX-512 (conv.h), from planes
// of even sizes (twice the output's) of at most 64 elements held in
// registers (mobilenet_v2's 8x8 -> 4x4 layer): the output plane is one
// vector, lane j at (oh, ow). The input plane is loaded once and split by
// row and column parity into four vectors, lane j of each holding
// x[2 oh + p][2 ow + q] (two permutes and a blend each, or one permute for
// planes of at most 32); an output reads row 2 oh (p = 0), row 2 oh + 1
// (p = 1) and row 2 oh - 1, which is the odd-row vectors moved down an
// output row (one permute), and columns 2 ow (q = 0), 2 ow + 1 (q = 1) and
// 2 ow - 1, which is kernel column 0's sum moved one lane, as in the
// stride-1 plane kernel (depthwise3x3_plane_avx512.c). Fifteen shuffles
// per channel in place of the tiny kernel's 27 (depthwise3x3_avx512.c),
// which measured 1.6x slower on the 8x8 layer. The same parity split for
// rows of 17..32 inputs is in depthwise3x3_s2_rows_avx512.c.
//
// Taps outside the image contribute zeros, which add nothing: padded
// convolutions with a non-finite weight never come here
// (op_convolution.c). The sums run from +0.0 down each kernel column (the
// own row first), then (y_1 + y_0) + y_2, bias last (the 8x8 and row
// kernels below start kernel columns 1 and 2's chain from the bias): an
// order other than the reference's, within its tests' tolerance, exact
// for exact data.
#include <immintrin.h>

#include "ops_optimized/conv/conv.h"
#include "ops_optimized/conv/depthwise3x3_s2_avx512.h"
#include "ops_optimized/conv/lanes_avx512.h"

bool etr_depthwise3x3_s2_plane_nchw_avx512_applies(
    const etr_conv2d_geometry_t *g) {
  return g->kernel_h == 3 && g->kernel_w == 3 && g->stride_h == 2 &&
         g->stride_w == 2 && g->dilation_h == 1 && g->dilation_w == 1 &&
         g->pad_h == 1 && g->pad_w == 1 && g->in_h == 2 * g->out_h &&
         g->in_w == 2 * g->out_w && g->in_h * g->in_w <= 64 &&
         g->in_stride_w == 1 && g->in_stride_h == g->in_w;
}

// What one call works out once.
typedef struct s2_plan {
  __m512i pick[4];   // input element of lane j, parities (p, q) = 2 p + q
  __mmask16 upper[4];         // lanes whose element is 32 or more
  __m512i up;                 // lane j - out_w: the output row above
  __mmask16 below_first_row;  // oh >= 1
  __mmask16 after_first_column;  // ow >= 1
  __mmask16 lanes;            // the output plane's
} s2_plan_t;

// One channel; `wide` (planes of more than 32 elements) a constant after
// inlining.
static inline __attribute__((always_inline)) void s2_channel(
    const etr_depthwise_args_t *args, const etr_conv2d_geometry_t *g,
    const s2_plan_t *plan, int64_t oc, int64_t ic, bool wide) {
  const int64_t pixels = g->in_h * g->in_w;
  const float *in = args->input + ic * g->in_stride_c;
  const float *w = args->weight + oc * g->w_stride_oc;
  const __m512 zero = _mm512_setzero_ps();
  const __m512 v0 = _mm512_maskz_loadu_ps(first_lanes(pixels), in);
  const __m512 v1 = _mm512_maskz_loadu_ps(first_lanes(pixels - 16), in + 16);
  __m512 parts[4];
#pragma GCC unroll 4
  for (int k = 0; k < 4; ++k) {
    parts[k] = _mm512_permutex2var_ps(v0, plan->pick[k], v1);
  }
  if (wide) {
    const __m512 v2 =
        _mm512_maskz_loadu_ps(first_lanes(pixels - 32), in + 32);
    const __m512 v3 =
        _mm512_maskz_loadu_ps(first_lanes(pixels - 48), in + 48);
#pragma GCC unroll 4
    for (int k = 0; k < 4; ++k) {
      parts[k] = _mm512_mask_mov_ps(
          parts[k], plan->upper[k],
          _mm512_permutex2var_ps(v2, plan->pick[k], v3));
    }
  }
  // Rows 2 oh (even), 2 oh + 1 (odd) and 2 oh - 1 (odd, a row up).
  const __m512 odd_even_up = _mm512_maskz_permutexvar_ps(
      plan->below_first_row, plan->up, parts[2]);
  const __m512 odd_odd_up = _mm512_maskz_permutexvar_ps(
      plan->below_first_row, plan->up, parts[3]);
  __m512 weights[9];
  broadcast_taps3x3(w, g->w_stride_h, g->w_stride_w, weights);
  // Kernel column 1 reads the even columns, 0 and 2 the odd ones (0 a
  // lane to the left); the own row first.
  __m512 y1 = _mm512_fmadd_ps(weights[4], parts[0], zero);
  __m512 y2 = _mm512_fmadd_ps(weights[5], parts[1], zero);
  __m512 y0 = _mm512_fmadd_ps(weights[3], parts[1], zero);
  y1 = _mm512_fmadd_ps(weights[1], odd_even_up, y1);
  y2 = _mm512_fmadd_ps(weights[2], odd_odd_up, y2);
  y0 = _mm512_fmadd_ps(weights[0], odd_odd_up, y0);
  y1 = _mm512_fmadd_ps(weights[7], parts[2], y1);
  y2 = _mm512_fmadd_ps(weights[8], parts[3], y2);
  y0 = _mm512_fmadd_ps(weights[6], parts[3], y0);
  const __m512 left = _mm512_castsi512_ps(_mm512_maskz_alignr_epi32(
      plan->after_first_column, _mm512_castps_si512(y0),
      _mm512_castps_si512(zero), 15));
  __m512 sum = _mm512_add_ps(_mm512_add_ps(y1, left), y2);
  if (args->bias != NULL) {
    sum = _mm512_add_ps(sum,
                        _mm512_set1_ps(args->bias[oc * args->bias_stride]));
  }
  _mm512_mask_storeu_ps(args->out + oc * args->out_stride_c, plan->lanes,
                        sum);
}

// The arguments and plan are copied so that the compiler knows the stores
// leave them alone; the channels go as in the stride-1 plane kernel
// (DEPTHWISE_CHANNELS, lanes_avx512.h).
#define S2_CHANNELS(name, wide)                                         \
  static void name(const etr_depthwise_args_t *args,                    \
                   const s2_plan_t *plan) {                             \
    const etr_depthwise_args_t a = *args;                               \
    const etr_conv2d_geometry_t g = *args->geometry;                    \
    const s2_plan_t p = *plan;                                          \
    const bool w = wide;                                                \
    DEPTHWISE_CHANNELS(a.channels, a.multiplier, S2_CHANNEL);           \
  }
#define S2_CHANNEL(oc, ic) s2_channel(&a, &g, &p, oc, ic, w)
S2_CHANNELS(s2_channels_narrow, false)
S2_CHANNELS(s2_channels_wide, true)

// The 8x8 plane (mobilenet_v2's 8x8 -> 4x4 layer) split by in-lane
// shuffles: vector v holds input rows 2 v and 2 v + 1, and vshufps of
// (v0, v2) and (v1, v3) takes the even (or odd) columns of rows 0, 4, 1, 5
// and 2, 6, 3, 7, a 128-bit lane each half; three 128-bit-lane shuffles
// (vshuff32x4) gather the own rows 0, 2, 4, 6, the rows below and, with
// a byte shift inside the lanes for the zero above row 0, the rows above.
// Output (r, c) sits in lane 4 (2 (r % 2) + c / 2) + c % 2 + 2 (r / 2);
// two permutes restore the order, kernel column 0's taking it one output
// back. Eight cross-lane shuffles per channel, six of them whole 128-bit
// lanes, in place of eleven and four blends: 96 channels 0.29 -> 0.22 us.
typedef struct s2_eight_plan {
  __m512i natural;  // lane m: the lane of output m
  __m512i before;   // lane m: that of output m - 1 in its row
} s2_eight_plan_t;

// Even (0x88) or odd (0xdd) columns of the own rows, the rows below and
// the rows above.
#define S2_EIGHT_SPLIT(parity, own, below, above)                          \
  {                                                                         \
    const __m512 x = _mm512_shuffle_ps(v0, v2, parity);                     \
    const __m512 y = _mm512_shuffle_ps(v1, v3, parity);                     \
    own = _mm512_shuffle_f32x4(x, y, _MM_SHUFFLE(1, 0, 1, 0));              \
    below = _mm512_shuffle_f32x4(x, y, _MM_SHUFFLE(3, 2, 3, 2));            \
    above = _mm512_shuffle_f32x4(                                           \
        _mm512_castsi512_ps(_mm512_bslli_epi128(_mm512_castps_si512(y), 8)), \
        x, _MM_SHUFFLE(3, 2, 3, 2));                                        \
  }

// Lanes 16 - k .. 31 - k of (hi, lo): the 16 floats k after lo's start.
#define S2_ALIGN(hi, lo, k)                                            \
  _mm512_castsi512_ps(_mm512_alignr_epi32(_mm512_castps_si512(hi),      \
                                          _mm512_castps_si512(lo), k))

// S2_EIGHT_SPLIT of a plane 8 floats past a line, from the five lines
// a0 .. a4 it touches: pairs p of 128-bit lanes (rows r and r + 4) sit
// two lanes on, (p + 2) / 4 = j in shufps(a_j, a_j+2), so the own rows
// (pairs 0, 1, 4, 5), the rows below (2, 3, 6, 7) and above (the rows
// below a row back) come from those directly: six lane shuffles per
// channel in place of ten.
#define S2_EIGHT_SPLIT_HALF(parity, own, below, above)                  \
  {                                                                      \
    const __m512 x0 = _mm512_shuffle_ps(a0, a2, parity);                 \
    const __m512 x1 = _mm512_shuffle_ps(a1, a3, parity);                 \
    const __m512 x2 = _mm512_shuffle_ps(a2, a4, parity);                 \
    own = _mm512_shuffle_f32x4(x0, x1, _MM_SHUFFLE(3, 2, 3, 2));         \
    below = _mm512_shuffle_f32x4(x1, x2, _MM_SHUFFLE(1, 0, 1, 0));       \
    above = _mm512_shuffle_f32x4(                                        \
        _mm512_castsi512_ps(                                             \
            _mm512_bslli_epi128(_mm512_castps_si512(x2), 8)),            \
        x1, _MM_SHUFFLE(1, 0, 1, 0));                                    \
  }

// One channel: the plane at `in`, `skew` floats past a 64-byte line (0,
// 4, 8 or 12, a constant after inlining; 0 also for any plane the loads
// may split), weights at `w` (row stride `stride_h`, column stride
// `stride_w`), the 16 outputs to `out`. A skewed plane is read as the five
// lines it touches (the first and last masked to it) put together by
// valignd: tensors 16-byte aligned (the test tensors, say) split every
// load over two lines otherwise, which took 96 channels from 0.24 to
// 0.36 us; four valignd per channel brought that back to 0.30 us.
static inline __attribute__((always_inline)) void s2_eight_plane(
    const s2_eight_plan_t *plan, const float *in, const float *w,
    int64_t stride_h, int64_t stride_w, __m512 bias, float *out, int skew) {
  __m512 even, below_even, above_even, odd, below_odd, above_odd;
  if (skew == 0) {
    const __m512 v0 = _mm512_loadu_ps(in);
    const __m512 v1 = _mm512_loadu_ps(in + 16);
    const __m512 v2 = _mm512_loadu_ps(in + 32);
    const __m512 v3 = _mm512_loadu_ps(in + 48);
    S2_EIGHT_SPLIT(0x88, even, below_even, above_even)
    S2_EIGHT_SPLIT(0xdd, odd, below_odd, above_odd)
  } else {
    const float *line = in - skew;
    const __m512 a0 =
        _mm512_maskz_loadu_ps((__mmask16)(0xffffu << skew), line);
    const __m512 a1 = _mm512_loadu_ps(line + 16);
    const __m512 a2 = _mm512_loadu_ps(line + 32);
    const __m512 a3 = _mm512_loadu_ps(line + 48);
    const __m512 a4 =
        _mm512_maskz_loadu_ps((__mmask16)((1u << skew) - 1u), line + 64);
    if (skew == 8) {
      // Half a line: vshufps of lines j and j + 2 pairs the 128-bit
      // lanes the split pairs (rows r and r + 4), two lanes on, so the
      // lane shuffles take them from the lines' pairs directly.
      S2_EIGHT_SPLIT_HALF(0x88, even, below_even, above_even)
      S2_EIGHT_SPLIT_HALF(0xdd, odd, below_odd, above_odd)
    } else {
      // valignd takes its count as an immediate.
      __m512 v0, v1, v2, v3;
      if (skew == 4) {
        v0 = S2_ALIGN(a1, a0, 4);
        v1 = S2_ALIGN(a2, a1, 4);
        v2 = S2_ALIGN(a3, a2, 4);
        v3 = S2_ALIGN(a4, a3, 4);
      } else {
        v0 = S2_ALIGN(a1, a0, 12);
        v1 = S2_ALIGN(a2, a1, 12);
        v2 = S2_ALIGN(a3, a2, 12);
        v3 = S2_ALIGN(a4, a3, 12);
      }
      S2_EIGHT_SPLIT(0x88, even, below_even, above_even)
      S2_EIGHT_SPLIT(0xdd, odd, below_odd, above_odd)
    }
  }
  __m512 weights[9];
  broadcast_taps3x3(w, stride_h, stride_w, weights);
  __m512 y12;
  __m512 y0;
  s2_taps(weights, bias, even, odd, above_even, above_odd, below_even,
          below_odd, &y12, &y0);
  const __m512 sum = _mm512_add_ps(
      _mm512_permutexvar_ps(plan->natural, y12),
      _mm512_maskz_permutexvar_ps((__mmask16)0xeeee, plan->before, y0));
  _mm512_storeu_ps(out, sum);
}

static inline __attribute__((always_inline)) void s2_eight_channel(
    const etr_depthwise_args_t *args, const etr_conv2d_geometry_t *g,
    const s2_eight_plan_t *plan, int64_t oc, int64_t ic) {
  s2_eight_plane(plan, args->input + ic * g->in_stride_c,
                 args->weight + oc * g->w_stride_oc, g->w_stride_h,
                 g->w_stride_w, channel_bias(args, oc),
                 args->out + oc * args->out_stride_c, 0);
}

// Dense planes, weights and out, one out channel per input channel (the
// model's case), planes `skew` floats past a line (a constant after
// inlining): pointers stepped by constants, weights read at constant
// offsets, two channels per step as in DEPTHWISE_CHANNELS.
static inline __attribute__((always_inline)) void s2_eight_dense_skewed(
    const etr_depthwise_args_t *args, const s2_eight_plan_t *plan,
    int skew) {
  const s2_eight_plan_t p = *plan;
  const float *in = args->input;
  const float *w = args->weight;
  const float *bias = args->bias;
  float *out = args->out;
  const int64_t channels = args->channels;
  int64_t c = 0;
  for (; c + 1 < channels; c += 2) {
    const __m512 b0 = _mm512_set1_ps(bias != NULL ? bias[c] + 0.0f : 0.0f);
    const __m512 b1 =
        _mm512_set1_ps(bias != NULL ? bias[c + 1] + 0.0f : 0.0f);
    s2_eight_plane(&p, in, w, 3, 1, b0, out, skew);
    s2_eight_plane(&p, in + 64, w + 9, 3, 1, b1, out + 16, skew);
    in += 128;
    w += 18;
    out += 32;
  }
  if (c < channels) {
    s2_eight_plane(&p, in, w, 3, 1,
                   _mm512_set1_ps(bias != NULL ? bias[c] + 0.0f : 0.0f), out,
                   skew);
  }
}

static void s2_eight_dense(const etr_depthwise_args_t *args,
                           const s2_eight_plan_t *plan) {
  // Planes of 64 floats: every one is as far past a line as the first.
  switch ((uintptr_t)args->input % 64) {
    case 16:
      s2_eight_dense_skewed(args, plan, 4);
      return;
    case 32:
      s2_eight_dense_skewed(args, plan, 8);
      return;
    case 48:
      s2_eight_dense_skewed(args, plan, 12);
      return;
    default:
      s2_eight_dense_skewed(args, plan, 0);
      return;
  }
}

static void s2_eight(const etr_depthwise_args_t *args) {
  const etr_depthwise_args_t a = *args;
  const etr_conv2d_geometry_t g = *args->geometry;
  s2_eight_plan_t p;
  p.natural = _mm512_setr_epi32(0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11,
                                14, 15);
  p.before = _mm512_setr_epi32(0, 0, 1, 4, 0, 8, 9, 12, 0, 2, 3, 6, 0, 10,
                               11, 14);
  if (a.multiplier == 1 && g.in_stride_c == 64 && g.w_stride_oc == 9 &&
      g.w_stride_h == 3 && g.w_stride_w == 1 && a.out_stride_c == 16 &&
      (a.bias == NULL || a.bias_stride == 1)) {
    s2_eight_dense(&a, &p);
    return;
  }
  int64_t ic = 0;
  int64_t repeat = 0;  // out channels so far of input channel ic
  int64_t oc = 0;
  if (a.multiplier == 1) {  // two channels per iteration, as below
    for (; oc + 1 < a.channels; oc += 2) {
      s2_eight_channel(&a, &g, &p, oc, oc);
      s2_eight_channel(&a, &g, &p, oc + 1, oc + 1);
    }
    ic = oc;
  }
  for (; oc < a.channels; ++oc) {
    s2_eight_channel(&a, &g, &p, oc, ic);
    if (++repeat == a.multiplier) {
      repeat = 0;
      ++ic;
    }
  }
}

void etr_depthwise3x3_s2_plane_nchw_avx512(const etr_depthwise_args_t *args) {
  if (args->geometry->in_h == 8 && args->geometry->in_w == 8) {
    s2_eight(args);
    return;
  }
  const etr_conv2d_geometry_t *g = args->geometry;
  const __m512i iota =
      _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  __m512i oh;
  __m512i ow;
  lane_coordinates(0, g->out_w, &oh, &ow);
  s2_plan_t plan;
  plan.lanes = first_lanes(g->out_h * g->out_w);
  // x[2 oh + p][2 ow + q] at (2 oh + p) in_w + 2 ow + q.
  const __m512i row_pair = _mm512_add_epi32(
      _mm512_mullo_epi32(oh, _mm512_set1_epi32((int32_t)(2 * g->in_w))),
      _mm512_add_epi32(ow, ow));
#pragma GCC unroll 4
  for (int k = 0; k < 4; ++k) {
    plan.pick[k] = _mm512_maskz_add_epi32(
        plan.lanes, row_pair,
        _mm512_set1_epi32((int32_t)((k / 2) * g->in_w + k % 2)));
    plan.upper[k] =
        _mm512_cmpge_epi32_mask(plan.pick[k], _mm512_set1_epi32(32));
  }
  plan.up = _mm512_sub_epi32(iota, _mm512_set1_epi32((int32_t)g->out_w));
  plan.below_first_row =
      _mm512_mask_cmpgt_epi32_mask(plan.lanes, oh, _mm512_setzero_si512());
  plan.after_first_column =
      _mm512_mask_cmpgt_epi32_mask(plan.lanes, ow, _mm512_setzero_si512());
  if (g->in_h * g->in_w > 32) {
    s2_channels_wide(args, &plan);
  } else {
    s2_channels_narrow(args, &plan);
  }
}

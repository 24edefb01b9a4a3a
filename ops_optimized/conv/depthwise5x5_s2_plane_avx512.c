// SPDX-License-Identifier: Apache-2.0
//
// Depthwise 5x5, stride 2, padding 2, NCHW, AVX-512 (conv.h), from planes
// of even sizes (twice the output's) of at most 64 elements held in
// registers (mobilenet_v3's 96 x 8x8 -> 4x4 layer): the output plane is
// one vector, lane j at (oh, ow). As the 3x3 kernel of the same shape
// (depthwise3x3_s2_plane_avx512.c), the input plane is loaded once and
// split by row and column parity into four vectors, lane j of each
// holding x[2 oh + p][2 ow + q]. Kernel row ky reads input row 2 oh + ky
// - 2: rows 0 and 1 the even and odd rows an output row up, 2 and 3 the
// own ones, 4 the even rows an output row down (six permutes per channel
// for the shifted ones, zeros past the plane's edge); kernel column kx
// likewise column 2 ow + kx - 2, so columns 0 and 1 sum on the parity
// vectors and move one lane right, column 4 one lane left, 2 and 3 stay.
// 25 FMAs and about 20 shuffles per channel, where the 16-channel
// transposing kernel (depthwise_channel_planes_avx512.c) took 1.5 us for
// 96 channels on Zen 4 (conv_kernel_bench "dw 96x8x8 5x5 s2").
//
// Taps outside the image contribute zeros, which add nothing: padded
// convolutions with a non-finite weight never come here
// (op_convolution.c). Each kernel column sums in its own chain from +0.0
// (column 2 from the bias + 0.0) down the kernel rows, the own rows
// first (2, 3, 0, 1, 4); then ((y2 + y3) + right(y0 + y1)) + left(y4):
// an order other than the reference's, within its tests' tolerance,
// exact for exact data.
#include <immintrin.h>

#include "ops_optimized/conv/conv.h"
#include "ops_optimized/conv/depthwise3x3_s2_avx512.h"
#include "ops_optimized/conv/lanes_avx512.h"

bool etr_depthwise5x5_s2_plane_nchw_avx512_applies(
    const etr_conv2d_geometry_t *g) {
  return g->kernel_h == 5 && g->kernel_w == 5 && g->stride_h == 2 &&
         g->stride_w == 2 && g->dilation_h == 1 && g->dilation_w == 1 &&
         g->pad_h == 2 && g->pad_w == 2 && g->in_h == 2 * g->out_h &&
         g->in_w == 2 * g->out_w && g->in_h * g->in_w <= 64 &&
         g->in_stride_w == 1 && g->in_stride_h == g->in_w;
}

// What one call works out once.
typedef struct plan5 {
  __m512i pick[4];         // input element of lane j, parities 2 p + q
  __mmask16 upper[4];      // lanes whose element is 32 or more
  __m512i up;              // lane j - out_w: the output row above
  __m512i down;            // lane j + out_w: the output row below
  __mmask16 has_up;        // oh >= 1
  __mmask16 has_down;      // oh <= out_h - 2
  __mmask16 has_left;      // ow >= 1
  __mmask16 has_right;     // ow <= out_w - 2
  __mmask16 lanes;         // the output plane's
} plan5_t;

// The 25 taps: y[kx] kernel column kx's sum over the kernel rows, read
// from rows[kx % 2][ky], the own rows first (2, 3, 0, 1, 4); column 2's
// from the bias + 0.0, the others' from +0.0.
static inline __attribute__((always_inline)) void taps5(
    const etr_depthwise_args_t *args, int64_t stride_h, int64_t stride_w,
    const float *w, int64_t oc, __m512 rows[2][5], __m512 *y) {
  static const int kOrder[5] = {2, 3, 0, 1, 4};
#pragma GCC unroll 5
  for (int kx = 0; kx < 5; ++kx) {
    y[kx] = kx == 2 ? channel_bias(args, oc) : _mm512_setzero_ps();
#pragma GCC unroll 5
    for (int r = 0; r < 5; ++r) {
      const int ky = kOrder[r];
      y[kx] = _mm512_fmadd_ps(
          _mm512_set1_ps(w[ky * stride_h + kx * stride_w]),
          rows[kx % 2][ky], y[kx]);
    }
  }
}

// One channel; `wide` (planes of more than 32 elements) a constant after
// inlining.
static inline __attribute__((always_inline)) void channel5(
    const etr_depthwise_args_t *args, const etr_conv2d_geometry_t *g,
    const plan5_t *plan, int64_t oc, int64_t ic, bool wide) {
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
  // rows[q][ky]: what kernel row ky reads in the columns of parity q.
  __m512 rows[2][5];
#pragma GCC unroll 2
  for (int q = 0; q < 2; ++q) {
    rows[q][0] = _mm512_maskz_permutexvar_ps(plan->has_up, plan->up,
                                             parts[q]);
    rows[q][1] = _mm512_maskz_permutexvar_ps(plan->has_up, plan->up,
                                             parts[2 + q]);
    rows[q][2] = parts[q];
    rows[q][3] = parts[2 + q];
    rows[q][4] = _mm512_maskz_permutexvar_ps(plan->has_down, plan->down,
                                             parts[q]);
  }
  __m512 y[5];
  taps5(args, g->w_stride_h, g->w_stride_w, w, oc, rows, y);
  // Columns 0 and 1 read column 2 ow - 2 (-1): lane j - 1's sums; column
  // 4 reads 2 ow + 2: lane j + 1's.
  const __m512 right = _mm512_castsi512_ps(_mm512_maskz_alignr_epi32(
      plan->has_left, _mm512_castps_si512(_mm512_add_ps(y[0], y[1])),
      _mm512_castps_si512(zero), 15));
  const __m512 left = _mm512_castsi512_ps(_mm512_maskz_alignr_epi32(
      plan->has_right, _mm512_castps_si512(zero),
      _mm512_castps_si512(y[4]), 1));
  const __m512 sum =
      _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(y[2], y[3]), right), left);
  _mm512_mask_storeu_ps(args->out + oc * args->out_stride_c, plan->lanes,
                        sum);
}

// The arguments and plan are copied so that the compiler knows the stores
// leave them alone; the channels go as in the 3x3 plane kernels
// (DEPTHWISE_CHANNELS, lanes_avx512.h).
#define CHANNELS5(name, wide)                                           \
  static void name(const etr_depthwise_args_t *args,                    \
                   const plan5_t *plan) {                               \
    const etr_depthwise_args_t a = *args;                               \
    const etr_conv2d_geometry_t g = *args->geometry;                    \
    const plan5_t p = *plan;                                            \
    const bool w = wide;                                                \
    DEPTHWISE_CHANNELS(a.channels, a.multiplier, CHANNEL5);             \
  }
#define CHANNEL5(oc, ic) channel5(&a, &g, &p, oc, ic, w)
CHANNELS5(channels5_narrow, false)
CHANNELS5(channels5_wide, true)

// The 8x8 plane by in-lane shuffles, as the 3x3 kernel's (its
// s2_eight_plane): vector v holds input rows 2 v and 2 v + 1; vshufps of
// (v0, v2) and (v1, v3) takes the even (0x88) or odd (0xdd) columns of
// rows 0, 4 and 1, 5 (x) and 2, 6 and 3, 7 (y), a 128-bit lane each half;
// 128-bit-lane shuffles (vshuff32x4), with a byte shift inside the lanes
// for a zero row, gather the five row vectors a kernel column reads: rows
// 2 oh - 2 (zero, 0, 2, 4), 2 oh - 1 (zero, 1, 3, 5), 2 oh, 2 oh + 1 and
// 2 oh + 2 (2, 4, 6, zero). Output (oh, ow) sits in lane
// 4 (2 (oh % 2) + ow / 2) + 2 (oh / 2) + ow % 2; three permutes put the
// sums in order, kernel columns 0 and 1's one output back and column 4's
// one on. No two-table permutes or blends: the generic split's twelve
// were what bound it (1.13 us for 96 channels).
typedef struct eight5_plan {
  __m512i natural;  // lane m: the lane of output m
  __m512i before;   // lane m: that of output m - 1 in its row
  __m512i after;    // lane m: that of output m + 1 in its row
} eight5_plan_t;

#define EIGHT5_ROWS(parity, rows)                                          \
  {                                                                         \
    const __m512 x = _mm512_shuffle_ps(v0, v2, parity);                     \
    const __m512 y = _mm512_shuffle_ps(v1, v3, parity);                     \
    const __m512 y_up = _mm512_castsi512_ps(                                \
        _mm512_bslli_epi128(_mm512_castps_si512(y), 8));                    \
    const __m512 x_down = _mm512_castsi512_ps(                              \
        _mm512_bsrli_epi128(_mm512_castps_si512(x), 8));                    \
    (rows)[0] = _mm512_shuffle_f32x4(y_up, x, _MM_SHUFFLE(1, 0, 1, 0));     \
    (rows)[1] = _mm512_shuffle_f32x4(y_up, x, _MM_SHUFFLE(3, 2, 3, 2));     \
    (rows)[2] = _mm512_shuffle_f32x4(x, y, _MM_SHUFFLE(1, 0, 1, 0));        \
    (rows)[3] = _mm512_shuffle_f32x4(x, y, _MM_SHUFFLE(3, 2, 3, 2));        \
    (rows)[4] = _mm512_shuffle_f32x4(y, x_down, _MM_SHUFFLE(1, 0, 1, 0));   \
  }

// `dense`: weights of 25 floats row by row (the strides constants).
static inline __attribute__((always_inline)) void eight5_channel(
    const etr_depthwise_args_t *args, const etr_conv2d_geometry_t *g,
    const eight5_plan_t *plan, int64_t oc, int64_t ic, bool dense) {
  const float *in = args->input + ic * g->in_stride_c;
  const float *w = args->weight + oc * (dense ? 25 : g->w_stride_oc);
  const __m512 v0 = _mm512_loadu_ps(in);
  const __m512 v1 = _mm512_loadu_ps(in + 16);
  const __m512 v2 = _mm512_loadu_ps(in + 32);
  const __m512 v3 = _mm512_loadu_ps(in + 48);
  __m512 rows[2][5];
  EIGHT5_ROWS(0x88, rows[0])
  EIGHT5_ROWS(0xdd, rows[1])
  __m512 y[5];
  taps5(args, dense ? 5 : g->w_stride_h, dense ? 1 : g->w_stride_w, w, oc,
        rows, y);
  const __m512 sum = _mm512_add_ps(
      _mm512_add_ps(
          _mm512_permutexvar_ps(plan->natural, _mm512_add_ps(y[2], y[3])),
          _mm512_maskz_permutexvar_ps((__mmask16)0xeeee, plan->before,
                                      _mm512_add_ps(y[0], y[1]))),
      _mm512_maskz_permutexvar_ps((__mmask16)0x7777, plan->after, y[4]));
  _mm512_storeu_ps(args->out + oc * args->out_stride_c, sum);
}

static void eight5(const etr_depthwise_args_t *args) {
  const etr_depthwise_args_t a = *args;
  const etr_conv2d_geometry_t g = *args->geometry;
  _Alignas(64) int32_t natural[16];
  _Alignas(64) int32_t before[16];
  _Alignas(64) int32_t after[16];
  for (int m = 0; m < 16; ++m) {
    const int oh = m / 4;
    const int ow = m % 4;
    natural[m] = 4 * (2 * (oh % 2) + ow / 2) + 2 * (oh / 2) + ow % 2;
    const int left = ow > 0 ? ow - 1 : 0;
    const int right = ow < 3 ? ow + 1 : 3;
    before[m] = 4 * (2 * (oh % 2) + left / 2) + 2 * (oh / 2) + left % 2;
    after[m] = 4 * (2 * (oh % 2) + right / 2) + 2 * (oh / 2) + right % 2;
  }
  const eight5_plan_t p = {_mm512_load_si512(natural),
                           _mm512_load_si512(before),
                           _mm512_load_si512(after)};
  if (g.w_stride_oc == 25 && g.w_stride_h == 5 && g.w_stride_w == 1) {
#define EIGHT5_DENSE(oc, ic) eight5_channel(&a, &g, &p, oc, ic, true)
    DEPTHWISE_CHANNELS(a.channels, a.multiplier, EIGHT5_DENSE);
#undef EIGHT5_DENSE
    return;
  }
#define EIGHT5_CHANNEL(oc, ic) eight5_channel(&a, &g, &p, oc, ic, false)
  DEPTHWISE_CHANNELS(a.channels, a.multiplier, EIGHT5_CHANNEL);
#undef EIGHT5_CHANNEL
}

void etr_depthwise5x5_s2_plane_nchw_avx512(const etr_depthwise_args_t *args) {
  if (args->geometry->in_h == 8 && args->geometry->in_w == 8) {
    eight5(args);
    return;
  }
  const etr_conv2d_geometry_t *g = args->geometry;
  const __m512i iota =
      _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  __m512i oh;
  __m512i ow;
  lane_coordinates(0, g->out_w, &oh, &ow);
  plan5_t plan;
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
  const __m512i out_w = _mm512_set1_epi32((int32_t)g->out_w);
  plan.up = _mm512_sub_epi32(iota, out_w);
  plan.down = _mm512_add_epi32(iota, out_w);
  plan.has_up =
      _mm512_mask_cmpgt_epi32_mask(plan.lanes, oh, _mm512_setzero_si512());
  plan.has_down = _mm512_mask_cmplt_epi32_mask(
      plan.lanes, oh, _mm512_set1_epi32((int32_t)(g->out_h - 1)));
  plan.has_left =
      _mm512_mask_cmpgt_epi32_mask(plan.lanes, ow, _mm512_setzero_si512());
  plan.has_right = _mm512_mask_cmplt_epi32_mask(
      plan.lanes, ow, _mm512_set1_epi32((int32_t)(g->out_w - 1)));
  if (g->in_h * g->in_w > 32) {
    channels5_wide(args, &plan);
  } else {
    channels5_narrow(args, &plan);
  }
}

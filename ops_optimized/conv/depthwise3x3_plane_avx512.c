// SPDX-License-Identifier: Apache-2.0
//
// Depthwise 3x3, stride 1, padding 1, NCHW, AVX-512 (conv.h), for planes
// of at most 64 elements held in registers (mobilenet_v2's 4x4 and 8x8
// layers): the output plane is taken flat, 16 pixels per vector. Each
// channel's plane is read once, into up to four vectors between two zero
// vectors; per block, the rows above and below are one two-source permute
// each of neighbouring vectors (rows of at most 15: the row above of
// block b lies in vectors b - 1 and b, the row below in b and b + 1, so
// rows outside the image read the zero vectors or the zeroed lanes past
// the plane's end), and the three kernel columns' sums down the rows
//   y_kw = w[0][kw] * above + w[1][kw] * plane + w[2][kw] * below
// cost nine FMAs. The output is y_0 of the pixel before, plus y_1, plus
// y_2 of the pixel after: two lane shifts across the neighbouring blocks'
// sums, zeroing the lanes whose neighbour is in another row. Four
// shuffles per block in place of a permute per tap (nine), which bound
// the 8x8 layer; the indices and lanes depend only on the geometry and
// are worked out once per call. A plane of one vector (the 4x4 layers)
// takes its rows above and below with one-source permutes of itself,
// zeroing the lanes of the first (last) row: no copies of the zero
// vectors, which a two-source permute overwrites.
//
// As in the other depthwise kernels, taps outside the image contribute
// zeros, which add nothing: padded convolutions with a non-finite weight
// never come here (op_convolution.c). The sums run down kernel columns
// 0 and 2 from their first products and down column 1 from the bias (no
// add for the bias, no branch: no bias reads a zero), then
// (y_1 + y_0) + y_2: an order other than the reference's, within its
// tests' tolerance, exact for exact data. With the plan below built in
// registers and the op's cheaper weight check, mobilenet_v2's 4x4 layers
// took 11-16% less time, the 8x8 one 12% (gemm_bench --mobilenet).
// Planes that straddle two cache lines cost the 4x4 layers 10-35% more
// than aligned ones (more when the input and the out sit at different
// offsets in their lines); reading and writing whole lines instead, with
// a permute each way, measured slower: the shuffles bind first.
#include <immintrin.h>

#include "ops_optimized/conv/conv.h"
#include "ops_optimized/conv/lanes_avx512.h"

#define MAX_BLOCKS 4

bool etr_depthwise3x3_plane_nchw_avx512_applies(
    const etr_conv2d_geometry_t *g) {
  return g->kernel_h == 3 && g->kernel_w == 3 && g->stride_h == 1 &&
         g->stride_w == 1 && g->dilation_h == 1 && g->dilation_w == 1 &&
         g->pad_h == 1 && g->pad_w == 1 && g->in_w >= 2 && g->in_w <= 15 &&
         g->in_h * g->in_w <= 16 * MAX_BLOCKS && g->out_h == g->in_h &&
         g->out_w == g->in_w && g->in_stride_w == 1 &&
         g->in_stride_h == g->in_w;
}

// What one call works out once: the permute indices of the rows above
// and below, per block the lanes that have a column on their left (kernel
// column 0) and on their right (kernel column 2) inside the image.
typedef struct plane_plan {
  __m512i up;
  __m512i down;
  __mmask16 columns[MAX_BLOCKS][3];  // [b][1] unused
  // Planes of one vector: the lanes whose row above (below) is inside.
  __mmask16 above;
  __mmask16 below;
} plane_plan_t;

// Lanes `shift` .. `shift` + 15 of (low, high): one valignd.
#define shift_lanes(low, high, shift)                                   \
  _mm512_castsi512_ps(_mm512_alignr_epi32(_mm512_castps_si512(high),    \
                                          _mm512_castps_si512(low),     \
                                          (shift)))

// One channel: `blocks` (1..4) a constant after inlining, so the plane's
// vectors stay in registers. `whole` (a constant too): the plane fills
// its vectors and its rows divide 16 (2, 4 or 8 wide), so every block
// has block 0's column lanes, and the weight is dense (3 x 3 at unit
// stride): no masks on loads and stores, two column masks for all
// blocks, taps at constant offsets (4x4 planes measured 24% faster,
// 8x8 13%: without it the masks spill and the taps take registers).
// `width` (a constant): 8 for whole planes of 8-wide rows in two or more
// vectors, whose rows above and below are half a vector away: a valignd
// each (about 0.3 cycles beside the FMAs on Zen 4, tools/port_probe.c)
// in place of the two-source permute (about 1.0); 0 for the others.
// mobilenet_v2's 96 x 8x8 layer: 85.9 -> 92.2 GFLOP/s (conv_kernel_bench
// "dw 96x8x8 s1", the two builds side by side, median ratio 1.073 over 7
// rounds).
static inline __attribute__((always_inline)) void channel(
    const etr_depthwise_args_t *args, const etr_conv2d_geometry_t *g,
    const plane_plan_t *plan, int64_t oc, int64_t ic, int blocks,
    bool whole, int width) {
  const int64_t pixels = g->in_h * g->in_w;
  const float *in = args->input + ic * g->in_stride_c;
  const float *w = args->weight + oc * g->w_stride_oc;
  const int64_t w_stride_h = whole ? 3 : g->w_stride_h;
  const int64_t w_stride_w = whole ? 1 : g->w_stride_w;
  const __m512 zero = _mm512_setzero_ps();
  // v[0] and v[blocks + 1] are the zeros above and below the plane.
  __m512 v[MAX_BLOCKS + 2];
  v[0] = zero;
#pragma GCC unroll 4
  for (int b = 0; b < blocks; ++b) {
    v[b + 1] = whole ? _mm512_loadu_ps(in + 16 * b)
                     : _mm512_maskz_loadu_ps(first_lanes(pixels - 16 * b),
                                             in + 16 * b);
  }
  v[blocks + 1] = zero;
  __m512 weights[9];
  broadcast_taps3x3(w, w_stride_h, w_stride_w, weights);
  const __m512 bias = _mm512_set1_ps(args->bias[oc * args->bias_stride]);
  // Per block, the kernel columns' sums down the three rows (the own row
  // first: its vector is ready before the permuted ones); y[0] and
  // y[blocks + 1] are zeros before and after the plane.
  __m512 y[MAX_BLOCKS + 2][3];
  y[0][0] = y[0][2] = zero;
#pragma GCC unroll 4
  for (int b = 0; b < blocks; ++b) {
    __m512 up;
    __m512 down;
    if (blocks == 1) {
      up = _mm512_maskz_permutexvar_ps(plan->above, plan->up, v[1]);
      down = _mm512_maskz_permutexvar_ps(plan->below, plan->down, v[1]);
    } else if (width == 8) {
      up = shift_lanes(v[b], v[b + 1], 8);
      down = shift_lanes(v[b + 1], v[b + 2], 8);
    } else {
      up = _mm512_permutex2var_ps(v[b], plan->up, v[b + 1]);
      down = _mm512_permutex2var_ps(v[b + 1], plan->down, v[b + 2]);
    }
#pragma GCC unroll 3
    for (int kw = 0; kw < 3; ++kw) {
      __m512 sum = kw == 1 ? _mm512_fmadd_ps(weights[4], v[b + 1], bias)
                           : _mm512_mul_ps(weights[3 + kw], v[b + 1]);
      sum = _mm512_fmadd_ps(weights[kw], up, sum);
      y[b + 1][kw] = _mm512_fmadd_ps(weights[6 + kw], down, sum);
    }
  }
  y[blocks + 1][0] = y[blocks + 1][2] = zero;
  float *plane = args->out + oc * args->out_stride_c;
#pragma GCC unroll 4
  for (int b = 0; b < blocks; ++b) {
    // Lane i: kernel column 0's sum of pixel i - 1, column 2's of pixel
    // i + 1, each zero where that pixel is in another row.
    const int lanes = whole ? 0 : b;  // the block whose column lanes
    const __m512 left = _mm512_castsi512_ps(_mm512_maskz_alignr_epi32(
        plan->columns[lanes][0], _mm512_castps_si512(y[b + 1][0]),
        _mm512_castps_si512(y[b][0]), 15));
    const __m512 right = _mm512_castsi512_ps(_mm512_maskz_alignr_epi32(
        plan->columns[lanes][2], _mm512_castps_si512(y[b + 2][2]),
        _mm512_castps_si512(y[b + 1][2]), 1));
    const __m512 sum =
        _mm512_add_ps(_mm512_add_ps(y[b + 1][1], left), right);
    if (whole) {
      _mm512_storeu_ps(plane + 16 * b, sum);
    } else {
      _mm512_mask_storeu_ps(plane + 16 * b, first_lanes(pixels - 16 * b),
                            sum);
    }
  }
}

// The plan of a plane `blocks` vectors long. Worked out in the function
// that runs the channels, after inlining in registers: built in memory
// and read back it cost a 4x4 layer about 10 ns per call (the scalar
// stores of the masks stall the loads of the vectors around them).
static inline __attribute__((always_inline)) plane_plan_t plan_for(
    const etr_conv2d_geometry_t *g, int blocks) {
  const int64_t pixels = g->in_h * g->in_w;
  const __m512i iota =
      _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  plane_plan_t plan;
  // Lane i of the row above: pixel 16 b + i - in_w, lane 16 - in_w + i of
  // (v[b], v[b + 1]); of the row below: lane i + in_w of (v[b + 1],
  // v[b + 2]). A plane of one vector permutes it alone: the same indices
  // modulo 16, the rows outside the plane zeroed by `above` and `below`.
  plan.up = _mm512_add_epi32(iota, _mm512_set1_epi32((int32_t)(16 - g->in_w)));
  plan.down = _mm512_add_epi32(iota, _mm512_set1_epi32((int32_t)g->in_w));
  // Lanes of the first column read nothing on their left (kw = 0), those
  // of the last nothing on their right (kw = 2): bits of the flat plane,
  // in a register (a per-plane call cannot afford much setup).
  uint64_t first_column = 1;  // bits 0, in_w, 2 * in_w, ..., by doubling
  for (int64_t shift = g->in_w; shift < 16 * MAX_BLOCKS; shift *= 2) {
    first_column |= first_column << shift;
  }
  const uint64_t last_column = first_column << (g->in_w - 1);
#pragma GCC unroll 4
  for (int b = 0; b < blocks; ++b) {
    plan.columns[b][0] = (__mmask16)~(first_column >> (16 * b));
    plan.columns[b][2] = (__mmask16)~(last_column >> (16 * b));
  }
  plan.above = lanes_between(g->in_w, pixels);
  plan.below = first_lanes(pixels - g->in_w);
  return plan;
}

// The arguments are copied so that the compiler knows the stores leave
// them alone (reloading the plan's vectors per channel cost a fifth of a
// 4x4 layer's time). No bias reads zeros: one FMA chain for both.
static const float kZeroBias = 0.0f;

#define CHANNELS_WITH(blocks, whole, width)                             \
  static void channels_##blocks##_##whole##_##width(                    \
      const etr_depthwise_args_t *args) {                               \
    etr_depthwise_args_t a = *args;                                     \
    if (a.bias == NULL) {                                               \
      a.bias = &kZeroBias;                                              \
      a.bias_stride = 0;                                                \
    }                                                                   \
    const etr_conv2d_geometry_t g = *args->geometry;                    \
    const plane_plan_t p = plan_for(&g, blocks);                        \
    const int n = blocks;                                               \
    const bool full = whole;                                            \
    const int row = width;                                              \
    DEPTHWISE_CHANNELS(a.channels, a.multiplier, CHANNEL);              \
  }
#define CHANNEL(oc, ic) channel(&a, &g, &p, oc, ic, n, full, row)
CHANNELS_WITH(1, 0, 0)
CHANNELS_WITH(2, 0, 0)
CHANNELS_WITH(3, 0, 0)
CHANNELS_WITH(4, 0, 0)
CHANNELS_WITH(1, 1, 0)
CHANNELS_WITH(2, 1, 0)
CHANNELS_WITH(3, 1, 0)
CHANNELS_WITH(4, 1, 0)
CHANNELS_WITH(2, 1, 8)
CHANNELS_WITH(3, 1, 8)
CHANNELS_WITH(4, 1, 8)

void etr_depthwise3x3_plane_nchw_avx512(const etr_depthwise_args_t *args) {
  const etr_conv2d_geometry_t *g = args->geometry;
  const int64_t pixels = g->in_h * g->in_w;
  const int blocks = (int)((pixels + 15) / 16);
  const bool whole = pixels == 16 * blocks && 16 % g->in_w == 0 &&
                     g->w_stride_h == 3 && g->w_stride_w == 1;
  const bool eight = whole && g->in_w == 8;
  switch (blocks + (whole ? MAX_BLOCKS : 0) + (eight ? MAX_BLOCKS : 0)) {
    case 1:
      channels_1_0_0(args);
      break;
    case 2:
      channels_2_0_0(args);
      break;
    case 3:
      channels_3_0_0(args);
      break;
    case 4:
      channels_4_0_0(args);
      break;
    case 5:
      channels_1_1_0(args);
      break;
    case 6:
      channels_2_1_0(args);
      break;
    case 7:
      channels_3_1_0(args);
      break;
    case 8:
      channels_4_1_0(args);
      break;
    case 9:
      channels_1_1_0(args);  // one vector: its own permutes
      break;
    case 10:
      channels_2_1_8(args);
      break;
    case 11:
      channels_3_1_8(args);
      break;
    default:
      channels_4_1_8(args);
      break;
  }
}

// Stride 2 to rows of at most 8 outputs from rows of at most 16 inputs,
// padding other than 1 (padding 1, as mobilenet_v2's 16x16 -> 8x8
// layer, takes the parity split of depthwise3x3_s2_narrow_avx512.c; the
// row kernel of depthwise3x3_avx512.c would fill half of each vector):
// two output rows per vector, lanes [0, out_w) the first, [out_w,
// 2 * out_w) the second, stored with one masked store (out planes are
// dense, as for the flat kernels of depthwise_avx512.c: the op checks).
// Kernel row kh of output rows oh and oh + 1 reads input rows
// 2 * oh - pad + kh and two below it: one masked load each, and each tap
// is one two-source permute of the pair, zeroing the lanes whose column
// is outside the image. The five input rows of a pair of output rows
// overlap the next pair's by one, which is kept.
bool etr_depthwise3x3_s2_rows_nchw_avx512_applies(
    const etr_conv2d_geometry_t *g) {
  return g->kernel_h == 3 && g->kernel_w == 3 && g->stride_h == 2 &&
         g->stride_w == 2 && g->dilation_h == 1 && g->dilation_w == 1 &&
         g->in_w <= 16 && g->out_w <= 8 && g->in_stride_w == 1;
}

// Input row `row` of a channel's plane, zeros outside the image.
static inline __m512 input_row(const etr_conv2d_geometry_t *g,
                               const float *in, int64_t row) {
  if (row < 0 || row >= g->in_h) {
    return _mm512_setzero_ps();
  }
  return _mm512_maskz_loadu_ps(first_lanes(g->in_w), in + row * g->in_stride_h);
}

void etr_depthwise3x3_s2_rows_nchw_avx512(const etr_depthwise_args_t *args) {
  // Copies, which the stores cannot change: nothing is reloaded per row.
  const etr_depthwise_args_t arguments = *args;
  const etr_conv2d_geometry_t geometry = *args->geometry;
  const etr_conv2d_geometry_t *g = &geometry;
  args = &arguments;
  const int64_t out_w = g->out_w;
  // Per kernel column: lane j (output row j / out_w of the pair, column
  // ow = j % out_w) reads column 2 * ow + kw - pad of the first (index
  // below 16) or second row of the pair. Worked out in vector registers:
  // scalar stores read back as a vector stall the store forwarding, which
  // a per-plane call would pay every time.
  const __m512i iota =
      _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  const __m512i width = _mm512_set1_epi32((int32_t)out_w);
  const __mmask16 second = _mm512_cmpge_epi32_mask(iota, width);
  const __mmask16 used =
      _mm512_cmplt_epi32_mask(iota, _mm512_add_epi32(width, width));
  const __m512i ow = _mm512_mask_sub_epi32(iota, second, iota, width);
  __m512i index[3];
  __mmask16 columns[3];
#pragma GCC unroll 3
  for (int kw = 0; kw < 3; ++kw) {
    __m512i column = _mm512_add_epi32(
        _mm512_add_epi32(ow, ow),
        _mm512_set1_epi32((int32_t)(kw - g->pad_w)));
    columns[kw] = inside(used, column, g->in_w);
    index[kw] = _mm512_mask_add_epi32(column, second, column,
                                      _mm512_set1_epi32(16));
  }
  int64_t ic = 0;      // the input channel of out channel oc
  int64_t repeat = 0;  // out channels so far of input channel ic
  for (int64_t oc = 0; oc < args->channels; ++oc) {
    const float *in = args->input + ic * g->in_stride_c;
    const float *w = args->weight + oc * g->w_stride_oc;
    __m512 weights[9];
    broadcast_taps3x3(w, g->w_stride_h, g->w_stride_w, weights);
    const __m512 bias = _mm512_set1_ps(
        args->bias != NULL ? args->bias[oc * args->bias_stride] : 0.0f);
    float *plane = args->out + oc * args->out_stride_c;
    __m512 kept = input_row(g, in, -g->pad_h);
    for (int64_t oh = 0; oh < g->out_h; oh += 2) {
      const int64_t first = 2 * oh - g->pad_h;
      // Rows first .. first + 4; `kept` is row first.
      __m512 rows[5];
      rows[0] = kept;
#pragma GCC unroll 4
      for (int k = 1; k < 5; ++k) {
        rows[k] = input_row(g, in, first + k);
      }
      kept = rows[4];
      __m512 sums[3];
#pragma GCC unroll 3
      for (int kh = 0; kh < 3; ++kh) {
        sums[kh] = _mm512_setzero_ps();
#pragma GCC unroll 3
        for (int kw = 0; kw < 3; ++kw) {
          __m512 x = _mm512_maskz_permutex2var_ps(columns[kw], rows[kh],
                                                  index[kw], rows[kh + 2]);
          sums[kh] = _mm512_fmadd_ps(weights[3 * kh + kw], x, sums[kh]);
        }
      }
      __m512 sum = _mm512_add_ps(_mm512_add_ps(sums[0], sums[1]), sums[2]);
      if (args->bias != NULL) {
        sum = _mm512_add_ps(sum, bias);
      }
      const int64_t pair = g->out_h - oh < 2 ? 1 : 2;  // output rows here
      _mm512_mask_storeu_ps(plane + oh * out_w, first_lanes(pair * out_w),
                            sum);
    }
    if (++repeat == args->multiplier) {
      repeat = 0;
      ++ic;
    }
  }
}

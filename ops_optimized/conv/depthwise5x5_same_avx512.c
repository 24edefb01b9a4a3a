// SPDX-License-Identifier: Apache-2.0
//
// Depthwise 5x5, stride 1, padding 2, NCHW, AVX-512 (conv.h), on square
// planes of 12 to 16 (MobileNetV3-Large's and EfficientNet's 5x5 layers
// on 14x14): one vector per out row, so the whole plane's H out rows are
// H accumulators. Each input row is read straight from the input, five
// masked loads a row (kernel column kw: lane j holds input column
// j + kw - 2, the lanes outside the row masked to zero, which stand for
// the padding's columns), and each load feeds the up to five out rows
// whose windows hold the row. Kernel rows above or below the image are
// skipped. The taps of kernel rows 0 to 2 are held in registers beside
// the H sums, rows 3 and 4 broadcast from the weight in the FMA (25
// dense floats a channel, read in place: a copy of them per channel cost
// 10%). No copy of the input, no transpose: the 16-channel kernel
// (depthwise_channels_avx512.c) transposes each group's rows into cells
// and its sums back, shuffles on the port one FMA unit shares on Intel.
// Intel Xeon of 2026-12-06, conv_kernel_bench "dw 672x14x14 5x5 s1": 57
// -> 50 us. Measured no faster: the input copied into a zero-padded
// plane first (unmasked loads, but 8 us more for the copy's stores and
// reloads), each out row's sum split in two by kernel column (no
// change), the held taps broadcast in the program's order (6% slower).
//
// The sums start from the bias (+0.0) and run over the input rows in
// order, each row's kernel columns in order: an order other than the
// reference's, within its tests' tolerance, exact for exact data.
// Padding columns multiply zeros by finite taps: padded convolutions
// with a non-finite weight never come here (op_convolution.c).
#include <immintrin.h>

#include "ops_optimized/conv/conv.h"
#include "ops_optimized/conv/lanes_avx512.h"

#define MIN_SIZE 12
#define MAX_SIZE 16
#define HELD 15  // taps held in registers: kernel rows 0 to 2

bool etr_depthwise5x5_same_nchw_avx512_applies(
    const etr_conv2d_geometry_t *g) {
  return g->kernel_h == 5 && g->kernel_w == 5 && g->stride_h == 1 &&
         g->stride_w == 1 && g->dilation_h == 1 && g->dilation_w == 1 &&
         g->pad_h == 2 && g->pad_w == 2 && g->in_h == g->in_w &&
         g->in_h >= MIN_SIZE && g->in_h <= MAX_SIZE &&
         g->out_h == g->in_h && g->out_w == g->in_w && g->in_stride_w == 1 &&
         g->w_stride_h == 5 && g->w_stride_w == 1;
}

// One channel's H x H plane (H constant): `taps` row by row.
static inline __attribute__((always_inline)) void plane(
    const int H, const float *in, int64_t in_row, const float *taps,
    float bias, float *out, int64_t out_row) {
  __m512 acc[MAX_SIZE];
#pragma GCC unroll 16
  for (int o = 0; o < H; ++o) {
    acc[o] = _mm512_set1_ps(bias);
  }
  __m512 held[HELD];
#pragma GCC unroll 15
  for (int t = 0; t < HELD; ++t) {
    held[t] = _mm512_set1_ps(taps[t]);
  }
  // The input row by a pointer stepped down the plane (indexed by the
  // run-time row stride, GCC computed each load's address apart).
  const float *row = in;
#pragma GCC unroll 16
  for (int ih = 0; ih < H; ++ih, row += in_row) {
#pragma GCC unroll 5
    for (int kw = 0; kw < 5; ++kw) {
      // Masked-off lanes are not read: `row + kw - 2` may point before
      // the plane.
      const __m512 x = _mm512_maskz_loadu_ps(
          lanes_between(2 - kw, H + 2 - kw), row + kw - 2);
      // Out row o reads input row ih with kernel row ih + 2 - o.
#pragma GCC unroll 16
      for (int o = 0; o < H; ++o) {
        const int kh = ih + 2 - o;
        if (kh < 0 || kh > 4) {
          continue;
        }
        // The FMAs in the program's order (volatile): left to itself GCC
        // ran the sums of one out row together, 25 dependent FMAs.
        const int t = kh * 5 + kw;
        if (t < HELD) {
          __asm__ volatile("vfmadd231ps %2, %1, %0"
                           : "+v"(acc[o])
                           : "v"(held[t]), "v"(x));
        } else {
          __asm__ volatile("vfmadd231ps %2%{1to16%}, %1, %0"
                           : "+v"(acc[o])
                           : "v"(x), "m"(taps[t]));
        }
      }
    }
  }
  const __mmask16 lanes = first_lanes(H);
#pragma GCC unroll 16
  for (int o = 0; o < H; ++o) {
    _mm512_mask_storeu_ps(out + o * out_row, lanes, acc[o]);
  }
}

// Every out channel of one image, planes of H x H (H constant).
static inline __attribute__((always_inline)) void planes(
    const int H, const etr_depthwise_args_t *args) {
  const etr_depthwise_args_t a = *args;
  const etr_conv2d_geometry_t *g = args->geometry;
  int64_t ic = 0;      // the input channel of out channel oc
  int64_t repeat = 0;  // out channels so far of input channel ic
  for (int64_t oc = 0; oc < a.channels; ++oc) {
    const float *taps = a.weight + oc * g->w_stride_oc;
    // + 0.0: a -0.0 bias adds as the +0.0 start of an unbiased sum does.
    const float bias =
        (a.bias != NULL ? a.bias[oc * a.bias_stride] : 0.0f) + 0.0f;
    plane(H, a.input + ic * g->in_stride_c, g->in_stride_h, taps, bias,
          a.out + oc * a.out_stride_c, a.out_stride_h);
    if (++repeat == a.multiplier) {
      repeat = 0;
      ++ic;
    }
  }
}

#define PLANES(H)                                                 \
  static void planes_##H(const etr_depthwise_args_t *args) {     \
    planes(H, args);                                              \
  }
PLANES(12)
PLANES(13)
PLANES(14)
PLANES(15)
PLANES(16)

void etr_depthwise5x5_same_nchw_avx512(const etr_depthwise_args_t *args) {
  static const etr_depthwise_fn kPlanes[] = {planes_12, planes_13,
                                             planes_14, planes_15,
                                             planes_16};
  kPlanes[args->geometry->in_h - MIN_SIZE](args);
}

// SPDX-License-Identifier: Apache-2.0
//
// Depthwise convolution of whole small NCHW planes, 16 channels to a
// vector, AVX-512 (conv.h): MobileNetV3's 5x5 layer on its last maps at
// small inputs, 4x4 -> 4x4 at stride 1 (the datasets' mobilenet_v3, 120
// channels), whose 16 outputs a plane the register-plane kernel
// (depthwise_tiny_avx512.c) computed with one to three permutes and
// blends per tap and channel: 41% of the FMA peak (bench, Zen 4). Its
// 8x8 -> 4x4 stride-2 twin took 8x8 at stride 2 too until the parity
// split in registers (depthwise5x5_s2_plane_avx512.c) ran it 1.5x as
// fast (2026-12-05).
//
// Here a group of 16 channels has its input planes (dense, 16 or 64
// floats each) loaded 16 floats at a time and transposed, one vector of
// the 16 channels per input pixel, in a stack buffer; each output pixel
// keeps its sum in a register, and each input pixel is loaded once and
// multiplied into every output whose window covers it, by the vector of
// the 16 channels' weights of that tap. Taps in the padding are not
// computed at all (the shapes are constants). The 16 sums, one per
// output pixel, are transposed back, one per channel: a channel's whole
// 4x4 plane, one store. Per group: one or four 16x16 transposes for the
// input and one out (64 shuffles each) against 196 and 289 FMAs, and
// two for the taps unless the weight was packed at load as tap vectors
// (args->taps, conv.h's etr_depthwise_taps_pack), which the transposes
// and the stores of 25 vectors had cost 1.6x the time.
// conv_kernel_bench on Zen 4: 120x4x4 1.97 -> 1.13 us (85 GFLOP/s),
// 96x8x8 then 2.92 -> 1.50 us; the datasets' mobilenet_v3, fused, 0.968x
// the time (paired.py program, 7 rounds). With the taps packed at load,
// the datasets' 120x4x4 layer as a one-op program 1.20 -> 0.74 us and
// mobilenet_v3 fused 0.989x (paired.py program, 5 and 7 rounds).
//
// Taps outside the image contribute nothing, which is their zeros'
// product for a finite weight: padded convolutions with a non-finite
// weight never come here (op_convolution.c). Each sum starts from the
// bias (+0.0 without one, a -0.0 bias as +0.0) and takes the taps in
// (kh, kw) order: an order other than the reference's, within its tests'
// tolerance, exact for exact data.
#include <immintrin.h>

#include "ops_optimized/conv/conv.h"
#include "ops_optimized/conv/depthwise_channels_avx512.h"
#include "ops_optimized/conv/lanes_avx512.h"

// The shapes with a compiled kernel: square kernel K, stride S, square
// input IH x IW, padding P, each side: (K, S, IH, IW, P).
#define SHAPES(X) X(5, 1, 4, 4, 2)

#define SHAPE_MATCHES(K, S, IH, IW, P)                                    \
  if (g->kernel_h == K && g->kernel_w == K && g->stride_h == S &&         \
      g->stride_w == S && g->in_h == IH && g->in_w == IW &&               \
      g->pad_h == P && g->pad_w == P) {                                   \
    return true;                                                          \
  }

static bool shape_compiled(const etr_conv2d_geometry_t *g) {
  SHAPES(SHAPE_MATCHES)
  return false;
}

bool etr_depthwise_channel_planes_nchw_avx512_applies(
    const etr_conv2d_geometry_t *g) {
  return g->dilation_h == 1 && g->dilation_w == 1 && g->in_stride_w == 1 &&
         g->in_stride_h == g->in_w && g->out_h * g->out_w <= 16 &&
         shape_compiled(g);
}

// acc + x * *w, the weights' vector read by the FMA from memory: in
// registers, GCC kept the 25 taps and spilled the 16 sums.
static inline __attribute__((always_inline)) __m512 fma_weight(
    __m512 acc, __m512 x, const __m512 *w) {
  __asm__("vfmadd231ps %2, %1, %0" : "+v"(acc) : "v"(x), "m"(*w));
  return acc;
}

// Channels [c0, c0 + count) of one image (count <= 16): the constants
// K, S, IH, IW, P as in SHAPES.
static inline __attribute__((always_inline)) void group(
    const int K, const int S, const int IH, const int IW, const int P,
    const etr_depthwise_args_t *args, int64_t c0, int64_t count) {
  const etr_conv2d_geometry_t *g = args->geometry;
  const int OH = (IH + 2 * P - K) / S + 1;
  const int OW = (IW + 2 * P - K) / S + 1;
  _Alignas(64) __m512 buffer[K * K];
  const __m512 *weights = group_taps(args, c0, count, buffer);
  // + 0.0: a -0.0 bias adds as the +0.0 start of an unbiased sum does.
  const __m512 bias = _mm512_add_ps(group_bias(args, c0, count),
                                    _mm512_setzero_ps());
  // Pixel p of the 16 planes, one vector across them.
  _Alignas(64) __m512 pixels[IH * IW];
  const float *in = args->input + c0 * g->in_stride_c;
#pragma GCC unroll 4
  for (int q = 0; q < IH * IW; q += 16) {
    __m512 v[16];
    load_channel_rows(in + q, g->in_stride_c, count,
                      first_lanes(IH * IW - q), v);
#pragma GCC unroll 16
    for (int x = 0; x < 16; ++x) {
      if (q + x < IH * IW) {
        pixels[q + x] = v[x];
      }
    }
  }
  __m512 acc[16];
#pragma GCC unroll 16
  for (int p = 0; p < 16; ++p) {
    acc[p] = p < OH * OW ? bias : _mm512_setzero_ps();
  }
#pragma GCC unroll 8
  for (int r = 0; r < IH; ++r) {
#pragma GCC unroll 8
    for (int c = 0; c < IW; ++c) {
      __m512 v = pixels[r * IW + c];
      __asm__("" : "+v"(v));  // loaded once, not folded into each FMA
#pragma GCC unroll 4
      for (int oh = 0; oh < OH; ++oh) {
#pragma GCC unroll 4
        for (int ow = 0; ow < OW; ++ow) {
          const int kh = r + P - oh * S;
          const int kw = c + P - ow * S;
          if (kh >= 0 && kh < K && kw >= 0 && kw < K) {
            acc[oh * OW + ow] =
                fma_weight(acc[oh * OW + ow], v, &weights[kh * K + kw]);
          }
        }
      }
      // One input pixel's FMAs before the next's: left alone, GCC ran each
      // output's whole chain at once, one FMA latency per FMA.
      // (Two statements: an asm takes at most 30 operands.)
      __asm__(""
              : "+v"(acc[0]), "+v"(acc[1]), "+v"(acc[2]), "+v"(acc[3]),
                "+v"(acc[4]), "+v"(acc[5]), "+v"(acc[6]), "+v"(acc[7]));
      __asm__(""
              : "+v"(acc[8]), "+v"(acc[9]), "+v"(acc[10]), "+v"(acc[11]),
                "+v"(acc[12]), "+v"(acc[13]), "+v"(acc[14]), "+v"(acc[15]));
    }
  }
  etr_transpose16x16_avx512(acc);  // acc[c]: channel c0 + c's outputs
  float *out = args->out + c0 * args->out_stride_c;
  const __mmask16 lanes = first_lanes(OH * OW);
#pragma GCC unroll 16
  for (int c = 0; c < 16; ++c) {
    if (c < count) {
      _mm512_mask_storeu_ps(out + c * args->out_stride_c, lanes, acc[c]);
    }
  }
}

#define SHAPE_FUNCTION(K, S, IH, IW, P)                                  \
  static void group_##K##_##S##_##IH##_##IW##_##P(                       \
      const etr_depthwise_args_t *args, int64_t c0, int64_t count) {    \
    group(K, S, IH, IW, P, args, c0, count);                             \
  }
SHAPES(SHAPE_FUNCTION)

typedef void (*group_fn)(const etr_depthwise_args_t *args, int64_t c0,
                         int64_t count);

#define SHAPE_PICK(K, S, IH, IW, P)                                       \
  if (g->kernel_h == K && g->stride_h == S && g->in_h == IH &&            \
      g->in_w == IW && g->pad_h == P) {                                   \
    return group_##K##_##S##_##IH##_##IW##_##P;                           \
  }

static group_fn pick(const etr_conv2d_geometry_t *g) {
  SHAPES(SHAPE_PICK)
  return NULL;
}

// Out planes dense (out_stride_h == out_w), one out channel per input
// channel (etr_depthwise_nchw_avx512 checks both).
void etr_depthwise_channel_planes_nchw_avx512(
    const etr_depthwise_args_t *args) {
  const group_fn fn = pick(args->geometry);
  for (int64_t c0 = 0; fn != NULL && c0 < args->channels; c0 += 16) {
    fn(args, c0, args->channels - c0 < 16 ? args->channels - c0 : 16);
  }
}

// SPDX-License-Identifier: Apache-2.0
//
// Direct NCHW convolution for few input channels, AVX-512 (conv.h): the
// first layer of a CNN (3 input channels, a 3x3 kernel: K = 27) spends
// longer packing an im2col panel than multiplying it, so this kernel reads
// each tap's 16 input pixels once per input channel and multiplies them
// into 16 output channels at a time (16 accumulators, the weight
// broadcast from a small stack table). Taps are read as in the depthwise
// kernels: a constant shift of the flat plane (stride 1, rows as wide as
// the output's) or a masked gather; FMAs are masked to the lanes whose tap
// is inside the image, so padded taps are skipped as in the reference.
// The op sends only stride-1 convolutions here (with stride 2 the GEMM's
// packing is as cheap as these reads).
#include <immintrin.h>

#include "ops_optimized/conv/conv.h"
#include "ops_optimized/conv/lanes_avx512.h"

#define MAX_PRODUCTS 32  // input channels x taps (the op checks)

#define OUTS(X)                                                            \
  X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12)      \
  X(13) X(14) X(15)

// How one tap's 16 lanes are read from any input channel's plane.
typedef struct tap_reader {
  int mode;          // 1: shifted load, 0: gather
  __mmask16 valid;   // lanes inside the image
  int64_t offset;    // 1: start of the shifted window (may be negative)
  __m512i index;     // 0: gather indices; 1 with offset < 0: the raise
} tap_reader_t;

static void plan_tap(const etr_conv2d_geometry_t *g, int mode, int64_t p0,
                     __mmask16 lanes, __m512i oh, __m512i ow, int64_t kh,
                     int64_t kw, tap_reader_t *r) {
  const __m512i iota =
      _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  int64_t dh = kh * g->dilation_h - g->pad_h;
  int64_t dw = kw * g->dilation_w - g->pad_w;
  __m512i ih = _mm512_add_epi32(
      _mm512_mullo_epi32(oh, _mm512_set1_epi32((int32_t)g->stride_h)),
      _mm512_set1_epi32((int32_t)dh));
  __m512i iw = _mm512_add_epi32(
      _mm512_mullo_epi32(ow, _mm512_set1_epi32((int32_t)g->stride_w)),
      _mm512_set1_epi32((int32_t)dw));
  r->valid = inside(inside(lanes, ih, g->in_h), iw, g->in_w);
  r->mode = mode;
  r->offset = 0;
  if (r->valid == 0) {
    return;
  }
  if (mode == 1) {
    r->offset = p0 + dh * g->in_w + dw;
    r->index = _mm512_add_epi32(iota, _mm512_set1_epi32((int32_t)r->offset));
    return;
  }
  r->index = _mm512_add_epi32(
      _mm512_mullo_epi32(ih, _mm512_set1_epi32((int32_t)g->in_stride_h)),
      _mm512_mullo_epi32(iw, _mm512_set1_epi32((int32_t)g->in_stride_w)));
}

static inline __m512 read_tap(const tap_reader_t *r, const float *plane) {
  if (r->mode == 1) {
    if (r->offset >= 0) {
      return _mm512_maskz_loadu_ps(r->valid, plane + r->offset);
    }
    // Valid lanes j have offset + j >= 0: load the plane's start and move
    // it up into those lanes.
    __mmask16 source = (__mmask16)(r->valid >> -r->offset);
    return _mm512_maskz_permutexvar_ps(r->valid, r->index,
                                       _mm512_maskz_loadu_ps(source, plane));
  }
  return _mm512_mask_i32gather_ps(_mm512_setzero_ps(), r->valid, r->index,
                                  plane, 4);
}

#define ZERO(o) __m512 acc##o = _mm512_setzero_ps();
#define FMA(o)                                                             \
  acc##o = _mm512_mask3_fmadd_ps(_mm512_set1_ps(w[o]), x, acc##o, r.valid);
#define STORE(o)                                                           \
  if (oc0 + (o) < args->channels) {                                        \
    __m512 v = acc##o;                                                     \
    if (args->bias != NULL) {                                              \
      v = _mm512_add_ps(                                                   \
          v, _mm512_set1_ps(args->bias[(oc0 + (o)) * args->bias_stride])); \
    }                                                                      \
    _mm512_mask_storeu_ps(                                                 \
        args->out + (oc0 + (o)) * args->out_stride_c + p0, lanes, v);      \
  }

void etr_conv_direct_nchw_avx512(const etr_depthwise_args_t *args) {
  const etr_conv2d_geometry_t *g = args->geometry;
  const int64_t pixels = g->out_h * g->out_w;
  int mode = 0;
  if (g->stride_h == 1 && g->stride_w == 1 && g->in_w == g->out_w &&
      g->in_stride_w == 1 && g->in_stride_h == g->in_w) {
    mode = 1;
  }
  // The 16 out channels' weights of each (c, tap), side by side (the op
  // checks channels * taps <= MAX_PRODUCTS), zeros past the last channel.
  _Alignas(64) float weights[MAX_PRODUCTS * 16];
  int64_t taps = g->kernel_h * g->kernel_w;
  for (int64_t oc0 = 0; oc0 < args->channels; oc0 += 16) {
    for (int64_t c = 0; c < g->channels; ++c) {
      for (int64_t t = 0; t < taps; ++t) {
        float *w = weights + (c * taps + t) * 16;
        for (int64_t o = 0; o < 16; ++o) {
          w[o] = oc0 + o < args->channels
                     ? args->weight[(oc0 + o) * g->w_stride_oc +
                                    c * g->w_stride_c +
                                    t / g->kernel_w * g->w_stride_h +
                                    t % g->kernel_w * g->w_stride_w]
                     : 0.0f;
        }
      }
    }
    for (int64_t p0 = 0; p0 < pixels; p0 += 16) {
      __mmask16 lanes = lanes_between(0, pixels - p0);
      __m512i oh;
      __m512i ow;
      lane_coordinates(p0, g->out_w, &oh, &ow);
      OUTS(ZERO)
      for (int64_t kh = 0; kh < g->kernel_h; ++kh) {
        for (int64_t kw = 0; kw < g->kernel_w; ++kw) {
          tap_reader_t r;
          plan_tap(g, mode, p0, lanes, oh, ow, kh, kw, &r);
          if (r.valid == 0) {
            continue;
          }
          for (int64_t c = 0; c < g->channels; ++c) {
            const __m512 x = read_tap(&r, args->input + c * g->in_stride_c);
            const float *w = weights + (c * taps + kh * g->kernel_w + kw) * 16;
            OUTS(FMA)
          }
        }
      }
      OUTS(STORE)
    }
  }
}

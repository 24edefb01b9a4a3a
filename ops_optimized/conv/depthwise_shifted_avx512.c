// SPDX-License-Identifier: Apache-2.0
//
// Stride-1 depthwise convolution of NCHW planes with kernels other than
// 3x3 (EfficientNet's and MobileNetV3's 5x5, 7x7), AVX-512 (conv.h), as
// shifted rows of one zero-padded plane (the scheme of shifted_avx512.c):
// per input channel the plane is copied into a stack buffer whose rows are
// S = in_w + pad_w wide (pad_w zeros, then the row: a row's right padding
// is the next row's left one), so that tap (kh, kw) of out (oh, ow) is
// buffer[q + kh dh S + kw dw] for q = oh S + ow. Out positions q run in
// vectors of 16, up to 8 vectors at once (8 independent FMA chains); each
// tap is one broadcast weight and one unaligned load per vector, no mask,
// permute or shift. The S - out_w positions past each out row are
// computed and dropped: each vector's valid lanes are compressed into
// the out rows, which they fill contiguously.
//
// depthwise_padded_avx512.c computed four out rows of one vector each
// from aligned loads and valignd shifts, after splitting the plane with
// masked loads: on 672 channels of 14x14 (dwconv5x5-672-14) the split
// took a quarter of the time and the shifts shared the FMA's port; this
// kernel takes its stride-1 planes of more than 16 outputs.
//
// The buffer's padding cells are zeroed once per call and never written
// again (each row's copy writes whole vectors whose lanes past the row
// are zeros), so a channel costs one load and store per 16 input columns.
// Padding taps multiply those zeros (an inf or NaN weight gives PyTorch's
// NaN border). Sums run over the taps in (kh, kw) order from +0.0; the
// bias is added last.
#include <immintrin.h>
#include <string.h>

#include "ops_optimized/conv/conv.h"
#include "ops_optimized/conv/lanes_avx512.h"

#define MAX_TAPS 64
#define BUFFER 8192     // floats of the padded plane (32 KiB) and slack
#define MAX_VECTORS 128 // vectors of out positions of one plane
#define BLOCK 8         // vectors computed at once

// The padded rows' width: in_w + pad_w rounded up to whole vectors, so
// that every row starts on a vector boundary.
static int64_t row_width(const etr_conv2d_geometry_t *g) {
  return (g->in_w + g->pad_w + 15) / 16 * 16;
}

// Floats of one copy of the padded plane (whole vectors), with the rows
// the last vector's reads run past the plane.
static int64_t copy_floats(const etr_conv2d_geometry_t *g) {
  return (g->in_h + 2 * g->pad_h + 1) * row_width(g) + 16;
}

// Padded positions up to the last out element.
static int64_t positions(const etr_conv2d_geometry_t *g) {
  return (g->out_h - 1) * row_width(g) + g->out_w;
}

bool etr_depthwise_shifted_nchw_avx512_applies(
    const etr_conv2d_geometry_t *g) {
  const int64_t taps = g->kernel_h * g->kernel_w;
  if (!(g->stride_h == 1 && g->stride_w == 1 && g->kernel_w != 3 &&
        g->kernel_h >= 1 && taps >= 2 && taps <= MAX_TAPS &&
        g->in_stride_w == 1 && g->pad_h >= 0 && g->pad_w >= 0 &&
        // a tap past a row's end reads the next row's left padding
        (g->kernel_w - 1) * g->dilation_w >= g->pad_w &&
        g->out_h >= 1 && g->out_w >= 1 && g->out_h * g->out_w > 16)) {
    return false;
  }
  const int64_t vectors = (positions(g) + 15) / 16;
  // The reads of a copy run to the last vector's end plus the largest row
  // offset; a copy's source reads past its end by the largest column
  // offset.
  const int64_t reach = 16 * vectors + (g->kernel_h - 1) * g->dilation_h *
                                           row_width(g);
  return vectors <= MAX_VECTORS && reach <= copy_floats(g) &&
         (g->kernel_w - 1) * g->dilation_w <= 16 &&
         g->kernel_w * copy_floats(g) <= BUFFER &&
         // at least three quarters of the computed positions are outputs
         4 * g->out_h * g->out_w >= 3 * 16 * vectors;
}

// Copies one input plane into the buffer's rows (pad_h rows down, pad_w
// columns in), then makes copy kw (kw = 1 .. kernel_w - 1) of the padded
// plane shifted left by kw dw, so that every tap reads whole aligned
// vectors (unaligned loads, one per FMA, each split across two cache
// lines, ran at 0.6 FMA a cycle). The lanes past a row that its last
// vector writes are zeros: padding, or the next row's cells, written
// after.
static void copy_plane(const etr_conv2d_geometry_t *g, const float *src,
                       float *buffer) {
  const int64_t width = row_width(g);
  const int64_t floats = copy_floats(g);
  copy_rows_zero_tail(src, g->in_h, g->in_w, g->in_stride_h,
                      buffer + g->pad_h * width + g->pad_w, width);
  // Whole copies (the base's last 16 floats are zeros it never writes:
  // each copy reads them at most).
  for (int64_t kw = 1; kw < g->kernel_w; ++kw) {
    const float *from = buffer + kw * g->dilation_w;
    float *to = buffer + kw * floats;
    for (int64_t i = 0; i < floats - 16; i += 16) {
      _mm512_store_ps(to + i, _mm512_loadu_ps(from + i));
    }
  }
}

// V vectors of out positions from vector v0: the taps' sums, the bias,
// the valid lanes stored.
static inline __attribute__((always_inline)) void block(
    const float *buffer, const float *w, const int64_t *offsets,
    const int64_t *weight_at, int64_t taps, int64_t v0, int V, __m512 bias,
    const shifted_lanes_t *lanes, float *out) {
  __m512 acc[BLOCK];
#pragma GCC unroll 8
  for (int j = 0; j < V; ++j) {
    acc[j] = _mm512_setzero_ps();
  }
  const float *x = buffer + 16 * v0;
  for (int64_t t = 0; t < taps; ++t) {
    const __m512 wv = _mm512_set1_ps(w[weight_at[t]]);
    const float *b = x + offsets[t];
#pragma GCC unroll 8
    for (int j = 0; j < V; ++j) {
      acc[j] = _mm512_fmadd_ps(wv, _mm512_load_ps(b + 16 * j), acc[j]);
    }
  }
#pragma GCC unroll 8
  for (int j = 0; j < V; ++j) {
    const shifted_lanes_t *l = &lanes[v0 + j];
    if (l->valid != 0) {
      _mm512_mask_storeu_ps(
          out + l->dest, l->packed,
          _mm512_maskz_compress_ps(l->valid, _mm512_add_ps(acc[j], bias)));
    }
  }
}

void etr_depthwise_shifted_nchw_avx512(const etr_depthwise_args_t *args) {
  const etr_conv2d_geometry_t *g = args->geometry;
  const int64_t width = row_width(g);
  const int64_t end = positions(g);
  const int64_t vectors = (end + 15) / 16;
  int64_t offsets[MAX_TAPS];
  int64_t weight_at[MAX_TAPS];
  int64_t taps = 0;
  const int64_t floats = copy_floats(g);
  for (int64_t kh = 0; kh < g->kernel_h; ++kh) {
    for (int64_t kw = 0; kw < g->kernel_w; ++kw, ++taps) {
      offsets[taps] = kh * g->dilation_h * width + kw * floats;
      weight_at[taps] = kh * g->w_stride_h + kw * g->w_stride_w;
    }
  }
  shifted_lanes_t lanes[MAX_VECTORS];
  for (int64_t v = 0; v < vectors; ++v) {
    lanes[v] = shifted_lanes(16 * v, end, width, g->out_w);
  }
  _Alignas(64) float buffer[BUFFER];
  memset(buffer, 0, sizeof(buffer));
  for (int64_t oc = 0; oc < args->channels; ++oc) {
    const int64_t ic = oc / args->multiplier;
    // Consecutive out channels of one input channel share its copy.
    if (oc == 0 || ic != (oc - 1) / args->multiplier) {
      copy_plane(g, args->input + ic * g->in_stride_c, buffer);
    }
    const __m512 bias =
        args->bias != NULL
            ? _mm512_set1_ps(args->bias[oc * args->bias_stride])
            : _mm512_setzero_ps();
    const float *w = args->weight + oc * g->w_stride_oc;
    float *out = args->out + oc * args->out_stride_c;
    int64_t v0 = 0;
    for (; v0 + BLOCK <= vectors; v0 += BLOCK) {
      block(buffer, w, offsets, weight_at, taps, v0, BLOCK, bias, lanes, out);
    }
    switch (vectors - v0) {
      case 7:
        block(buffer, w, offsets, weight_at, taps, v0, 7, bias, lanes, out);
        break;
      case 6:
        block(buffer, w, offsets, weight_at, taps, v0, 6, bias, lanes, out);
        break;
      case 5:
        block(buffer, w, offsets, weight_at, taps, v0, 5, bias, lanes, out);
        break;
      case 4:
        block(buffer, w, offsets, weight_at, taps, v0, 4, bias, lanes, out);
        break;
      case 3:
        block(buffer, w, offsets, weight_at, taps, v0, 3, bias, lanes, out);
        break;
      case 2:
        block(buffer, w, offsets, weight_at, taps, v0, 2, bias, lanes, out);
        break;
      case 1:
        block(buffer, w, offsets, weight_at, taps, v0, 1, bias, lanes, out);
        break;
      default: break;
    }
  }
}

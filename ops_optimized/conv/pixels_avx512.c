// SPDX-License-Identifier: Apache-2.0
//
// NCHW convolution with the out pixels as the product's rows, fp32,
// AVX-512 (conv.h): a tile is 6 out pixels by up to 64 out channels (24
// accumulators, each 16 channels of one pixel). Per k = (c, kh, kw) it
// loads up to 4 vectors of a packed weight row and broadcasts each
// pixel's input value straight from the zero-padded planes, at the
// pixel's position plus the tap's offset: strides and dilations only
// change the positions, so stride-2 layers need no im2col panel, and a
// plane of 36 or 144 pixels fills its tiles where vectors of 16 pixels
// (the GEMM, the shifted rows) leave a quarter of the lanes idle.
//
// The sums are one FMA chain per out in k order from +0.0; the bias is
// added after the sum and the fused post applied (fma by scale and
// shift, then the clamp), as the shifted kernel and the GEMM's epilogue
// do. Padding taps multiply the copy's zeros, so an inf or NaN weight
// gives PyTorch's NaN borders. Tiles are staged pixel-major and reach
// the channel-major out by 16 x 16 transposes (panel).
#include <immintrin.h>

#include "ops_optimized/conv/conv.h"
#include "ops_optimized/conv/lanes_avx512.h"
#include "ops_optimized/gemm/transpose_avx512.h"

#define MR 6
#define PANEL ETR_CONV_PIXELS_PANEL_AVX512
#define STAGE 48  // pixels staged at once: 8 tiles, 3 transposes (12 KiB)

// Planes of up to 784 pixels (28x28) measured: 128x28x28 3x3, where
// the shifted rows decline (rows past L1), 11% faster than the GEMM.
bool etr_conv_pixels_nchw_avx512_applies(const etr_conv2d_geometry_t *g,
                                         int64_t out_channels) {
  int64_t taps = g->kernel_h * g->kernel_w;
  int64_t pixels = g->out_h * g->out_w;
  return !g->channels_last && g->in_stride_w == 1 &&
         taps <= ETR_CONV_SHIFTED_MAX_TAPS && g->w_stride_w == 1 &&
         (g->kernel_h == 1 || g->w_stride_h == g->kernel_w) &&
         (g->channels == 1 || g->w_stride_c == taps) &&
         g->channels * taps >= 32 && out_channels >= PANEL &&
         out_channels % 16 == 0 && pixels >= MR && pixels <= 784 &&
         etr_conv_shifted_scratch_floats(g) <=
             ETR_CONV_SHIFTED_MAX_SCRATCH_FLOATS;
}

// One tile: the MR out pixels whose windows start at pixel_at[0..MR) in
// the planes (a short tile repeats its last pixel, whose extra rows the
// unstaging skips) by out channels oc0 ..
// oc0 + 16 V - 1 of the panel at `w` (lanes past `channels` are not
// stored). KS: the kernel's size when square and known (3 at dilation 1
// along rows, or 1), else 0.
static inline __attribute__((always_inline)) void tile(
    const etr_conv_pixels_args_t *a, const etr_conv_padded_t *p,
    const float *w, int V, int KS, int64_t oc0, int64_t channels,
    const float *const *pixel_at, float *stage) {
  const etr_conv2d_geometry_t *g = a->g;
  const float *x[MR];
#pragma GCC unroll 6
  for (int r = 0; r < MR; ++r) {
    x[r] = pixel_at[r];
  }
  __m512 acc[MR][4];
#pragma GCC unroll 6
  for (int r = 0; r < MR; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) {
      acc[r][v] = _mm512_setzero_ps();
    }
  }
  const int64_t row_step = g->dilation_h * p->stride;
  for (int64_t c = 0; c < g->channels; ++c) {
    const int64_t plane = c * p->plane;
    for (int64_t kh = 0; kh < (KS > 0 ? KS : g->kernel_h); ++kh) {
      const int64_t row = plane + kh * row_step;
      const int64_t kernel_w = KS > 0 ? KS : g->kernel_w;
      const int64_t dw = KS > 0 ? 1 : g->dilation_w;
      // (Unrolled, gcc spilled accumulators: 3-5% slower on ResNet's.)
#pragma GCC unroll 1
      for (int64_t kw = 0; kw < kernel_w; ++kw, w += PANEL) {
        const int64_t offset = row + kw * dw;
        __m512 b[4];
#pragma GCC unroll 4
        for (int v = 0; v < V; ++v) {
          b[v] = _mm512_loadu_ps(w + 16 * v);
        }
#pragma GCC unroll 6
        for (int r = 0; r < MR; ++r) {
          const __m512 xv = _mm512_set1_ps(x[r][offset]);
#pragma GCC unroll 4
          for (int v = 0; v < V; ++v) {
            acc[r][v] = _mm512_fmadd_ps(xv, b[v], acc[r][v]);
          }
        }
      }
    }
  }
  // The shifted kernel's epilogue, with the out channels along the lanes.
  const etr_conv_post_t *post = a->post;
  __m512 bias[4], scale[4], shift[4];
  __mmask16 valid[4];
#pragma GCC unroll 4
  for (int v = 0; v < V; ++v) {
    int64_t o = oc0 + 16 * v;
    valid[v] = first_lanes(channels - o);
    bias[v] = _mm512_setzero_ps();
    scale[v] = _mm512_setzero_ps();
    shift[v] = _mm512_setzero_ps();
    if (a->bias != NULL) {
      if (a->bias_stride == 1) {
        bias[v] = _mm512_maskz_loadu_ps(valid[v], a->bias + o);
      } else {
        float lanes[16] = {0};
        for (int64_t j = 0; j < 16 && o + j < channels; ++j) {
          lanes[j] = a->bias[(o + j) * a->bias_stride];
        }
        bias[v] = _mm512_loadu_ps(lanes);
      }
    }
    if (post != NULL && post->scale != NULL) {
      const int64_t channel = a->post_channel0 + o;
      scale[v] = _mm512_maskz_loadu_ps(valid[v], post->scale + channel);
      shift[v] = _mm512_maskz_loadu_ps(valid[v], post->shift + channel);
    }
  }
  const __m512 low = _mm512_set1_ps(post != NULL ? post->low : 0.0f);
  const __m512 high = _mm512_set1_ps(post != NULL ? post->high : 0.0f);
#pragma GCC unroll 6
  for (int r = 0; r < MR; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) {
      __m512 value = acc[r][v];
      if (a->bias != NULL) {
        value = _mm512_add_ps(value, bias[v]);
      }
      if (post != NULL) {
        if (post->scale != NULL) {
          value = _mm512_fmadd_ps(value, scale[v], shift[v]);
        }
        value = _mm512_min_ps(high, _mm512_max_ps(low, value));
      }
      acc[r][v] = value;
    }
  }
#pragma GCC unroll 6
  for (int r = 0; r < MR; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) {
      _mm512_store_ps(stage + r * PANEL + 16 * v, acc[r][v]);
    }
  }
}

// Moves `pixels` staged rows of 16 V channels (rows PANEL floats apart)
// to the channel-major out planes: 16 x 16 transposes, then one store of
// up to 16 pixels per channel.
static inline __attribute__((always_inline)) void unstage(
    const float *stage, int64_t pixels, int V, int64_t channels,
    float *out, int64_t stride) {
  for (int64_t p0 = 0; p0 < pixels; p0 += 16) {
    const int64_t rows = pixels - p0 < 16 ? pixels - p0 : 16;
    const __mmask16 lanes = first_lanes(rows);
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) {
      __m512 r[16];
#pragma GCC unroll 16
      for (int i = 0; i < 16; ++i) {
        r[i] = i < rows ? _mm512_load_ps(stage + (p0 + i) * PANEL + 16 * v)
                        : _mm512_setzero_ps();
      }
      etr_transpose16x16_avx512(r);
#pragma GCC unroll 16
      for (int j = 0; j < 16; ++j) {
        if (16 * v + j < channels) {
          _mm512_mask_storeu_ps(out + (16 * v + j) * stride + p0, lanes,
                                r[j]);
        }
      }
    }
  }
}

// The tiles of one panel of V vectors, STAGE pixels at a time: their
// 6 x 16 blocks go to a pixel-major stage on the stack, then to the
// channel-major out by 16 x 16 transposes (scattering each block had
// taken 5-11% of ResNet's layers, masked stores of its 4x4 transposes
// 8%).
static inline __attribute__((always_inline)) void panel(
    const etr_conv_pixels_args_t *a, const etr_conv_padded_t *p,
    const float *w, int V, int KS, int64_t oc0, int64_t pixels) {
  _Alignas(64) float stage[STAGE * PANEL];
  const int64_t channels = a->out_channels - oc0;
  const etr_conv2d_geometry_t *g = a->g;
  int64_t oh = 0;  // the next tile's first pixel
  int64_t ow = 0;
  for (int64_t chunk = 0; chunk < pixels; chunk += STAGE) {
    const int64_t n = pixels - chunk < STAGE ? pixels - chunk : STAGE;
    for (int64_t i = 0; i < n; i += MR) {
      // Where each of the tile's pixels reads (past `count`, the last
      // one's again), stepping along the out rows: a division per pixel
      // had been 5% of ResNet's 1x1 stride-2 layer.
      const int64_t count = n - i < MR ? n - i : MR;
      const float *pixel_at[MR];
      for (int r = 0; r < MR; ++r) {
        pixel_at[r] = p->base + oh * g->stride_h * p->stride +
                      ow * g->stride_w;
        if (r + 1 < count && ++ow == g->out_w) {
          ow = 0;
          ++oh;
        }
      }
      if (++ow == g->out_w) {
        ow = 0;
        ++oh;
      }
      tile(a, p, w, V, KS, oc0, a->out_channels, pixel_at,
           stage + i * PANEL);
    }
    unstage(stage, n, V, channels,
            a->out + oc0 * a->out_stride + chunk, a->out_stride);
  }
}

void etr_conv_pixels_nchw_avx512(const etr_conv_pixels_args_t *a) {
  const etr_conv2d_geometry_t *g = a->g;
  etr_conv_padded_t p = etr_conv_pad_planes(g, a->input, a->scratch);
  const int64_t depth = g->channels * g->kernel_h * g->kernel_w;
  const int64_t pixels = g->out_h * g->out_w;
  // Square kernels of 3 (dilation 1 along rows) and 1 with their loops
  // unrolled; others, KS = 0, run theirs.
  const int ks = g->kernel_h == 3 && g->kernel_w == 3 && g->dilation_w == 1
                     ? 3
                 : g->kernel_h == 1 && g->kernel_w == 1 ? 1
                                                        : 0;
  for (int64_t oc0 = 0; oc0 < a->out_channels; oc0 += PANEL) {
    const float *w = a->weight + oc0 * depth;
    int64_t left = a->out_channels - oc0;
    int V = left >= 64 ? 4 : (int)((left + 15) / 16);
    if (ks == 3 && V == 4) {
      panel(a, &p, w, 4, 3, oc0, pixels);
    } else if (ks == 1 && V == 4) {
      panel(a, &p, w, 4, 1, oc0, pixels);
    } else if (V == 4) {
      panel(a, &p, w, 4, 0, oc0, pixels);
    } else if (V == 3) {
      panel(a, &p, w, 3, 0, oc0, pixels);
    } else if (V == 2) {
      panel(a, &p, w, 2, 0, oc0, pixels);
    } else {
      panel(a, &p, w, 1, 0, oc0, pixels);
    }
  }
}

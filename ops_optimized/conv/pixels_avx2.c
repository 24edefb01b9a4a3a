// SPDX-License-Identifier: Apache-2.0
//
// NCHW convolution with the out pixels as the product's rows, fp32, AVX2 +
// FMA (conv.h): the AVX2 twin of pixels_avx512.c. A tile is 6 out pixels
// by 16 out channels (12 ymm accumulators, the GEMM microkernel's 6 x 16
// shape, gemm_avx2.c); per k = (c, kh, kw) it loads the two vectors of
// one packed weight row and broadcasts each pixel's input value straight
// from the zero-padded planes at the pixel's position plus the tap's
// offset, so strides and dilations need no im2col panel (the GEMM path
// packs one per call, element by element).
//
// The weights come packed in panels of 16 out channels
// (ETR_CONV_PIXELS_PANEL_AVX2): one 64-byte row per k, the panel's rows
// consecutive, so a tile walks one contiguous stream of weights.
//
// The sums are one FMA chain per out in k order from +0.0, then + bias,
// then the fused post (fma by scale and shift, then the clamp), as the
// AVX-512 kernel and the GEMM's epilogue do: the outputs are the same
// bits on both ISAs. Padding taps multiply the copy's zeros, so an inf or
// NaN weight gives PyTorch's NaN borders. Tiles are staged pixel-major and
// reach the channel-major out by 8 x 8 transposes.
#include <immintrin.h>
#include <string.h>

#include "ops_optimized/common/mask_avx2.h"
#include "ops_optimized/common/transpose_avx2.h"
#include "ops_optimized/conv/conv.h"

#define MR 6
#define PANEL ETR_CONV_PIXELS_PANEL_AVX2
#define STAGE 48  // pixels staged at once: 8 tiles, 6 transposes (3 KiB)
#define MAX_PIXELS (112 * 112)
// The padded planes' floats at once: 768 KiB, which leaves a quarter of
// the default 1 MiB kernel scratch arena for the packed weights (a call
// without room for both runs the GEMM). More channels than fit run in
// passes (pass_t below).
#define MAX_SCRATCH_FLOATS (192 * 1024)

// The GEMM path packs im2col per call on AVX2, so the pixel tiles take
// planes up to 112x112 whose padded copy fits the scratch cap above (the
// 3-channel 7x7 stride-2 stem on 224x224: 16.4 ms as a GEMM, 2.69 here),
// and as few as 8 products per output (mobilenet_v2's 3-channel 3x3 stem:
// 77.6 us as a GEMM, 21.1 here). Not 1x1 convolutions at stride 1
// without padding, whose GEMM reads the input in place (mobilenet_v2's
// 8 -> 48 on 32x32: 19.3 us, 41.1 here).
bool etr_conv_pixels_nchw_avx2_applies(const etr_conv2d_geometry_t *g,
                                       int64_t out_channels) {
  int64_t taps = g->kernel_h * g->kernel_w;
  int64_t pixels = g->out_h * g->out_w;
  return !g->channels_last && g->in_stride_w == 1 &&
         taps <= ETR_CONV_SHIFTED_MAX_TAPS && g->w_stride_w == 1 &&
         (g->kernel_h == 1 || g->w_stride_h == g->kernel_w) &&
         (g->channels == 1 || g->w_stride_c == taps) &&
         g->channels * taps >= 8 && out_channels >= 8 &&
         !(taps == 1 && g->stride_h == 1 && g->stride_w == 1 &&
           g->pad_h == 0 && g->pad_w == 0) &&
         out_channels % 8 == 0 && pixels >= MR && pixels <= MAX_PIXELS &&
         (etr_conv_shifted_reads_in_place(g) ||
          etr_conv_shifted_plane_floats(g) <= MAX_SCRATCH_FLOATS);
}

// Input channels per pass: all of them when the input is read in place,
// else as many padded planes as fit MAX_SCRATCH_FLOATS, split evenly.
static int64_t pass_channels(const etr_conv2d_geometry_t *g) {
  if (etr_conv_shifted_reads_in_place(g)) {
    return g->channels;
  }
  const int64_t fit = MAX_SCRATCH_FLOATS / etr_conv_shifted_plane_floats(g);
  const int64_t passes = (g->channels + fit - 1) / fit;
  return (g->channels + passes - 1) / passes;
}

size_t etr_conv_pixels_nchw_avx2_scratch_floats(
    const etr_conv2d_geometry_t *g) {
  return etr_conv_shifted_reads_in_place(g)
             ? 0
             : (size_t)(pass_channels(g) * etr_conv_shifted_plane_floats(g));
}

// The zero-padded planes of `channels` channels from `input` on (conv.h's
// etr_conv_padded_t), or the input read in place when it needs no
// padding.
static etr_conv_padded_t pad_planes(const etr_conv2d_geometry_t *g,
                                    const float *input, int64_t channels,
                                    float *scratch) {
  if (etr_conv_shifted_reads_in_place(g)) {
    return (etr_conv_padded_t){input, g->in_stride_h, g->in_stride_c};
  }
  const int64_t width = etr_conv_shifted_row_width(g);
  const int64_t plane = etr_conv_shifted_plane_floats(g);
  const size_t row_bytes = (size_t)g->in_w * sizeof(float);
  const size_t pad_bytes = (size_t)g->pad_w * sizeof(float);
  for (int64_t c = 0; c < channels; ++c) {
    const float *src = input + c * g->in_stride_c;
    float *dst = scratch + c * plane;
    memset(dst, 0, (size_t)(g->pad_h * width + g->pad_w) * sizeof(float));
    dst += g->pad_h * width + g->pad_w;
    // Each row, then its right padding (the next row's left one).
    for (int64_t r = 0; r < g->in_h; ++r, dst += width) {
      memcpy(dst, src + r * g->in_stride_h, row_bytes);
      memset(dst + g->in_w, 0, pad_bytes);
    }
    // dst is at the row below the image, past its left padding.
    memset(dst, 0, (size_t)(g->pad_h * width) * sizeof(float));
  }
  return (etr_conv_padded_t){scratch, width, plane};
}

// One tile: pixels pixel0 .. pixel0 + count - 1 (count <= MR; the missing
// rows repeat the last pixel and are not stored) by the panel's out
// channels oc0 .. oc0 + 8 V - 1 (lanes past `channels` are computed on
// the packing's zeros and not stored). KS: the kernel's size when square
// and known (3 at dilation 1 along rows, or 1), else 0.
// The input channels of one pass: the padded copy holds channels c0 ..
// c0 + count - 1 (its plane 0 is channel c0). A first pass starts the
// sums from +0.0, later ones from the stage (the partial sums the pass
// before left in the out, exact floats, so the FMA chain goes on as if
// unbroken); the last one adds the bias and the post.
typedef struct pass {
  int64_t c0;
  int64_t count;
  bool first;
  bool last;
} pass_t;

static inline __attribute__((always_inline)) void tile(
    const etr_conv_pixels_args_t *a, const etr_conv_padded_t *p,
    const pass_t *pass, const float *w, int V, int KS, int64_t oc0,
    int64_t channels, int64_t pixel0, int64_t count, float *stage) {
  const etr_conv2d_geometry_t *g = a->g;
  const float *x[MR];
#pragma GCC unroll 6
  for (int r = 0; r < MR; ++r) {
    int64_t pixel = pixel0 + (r < count ? r : count - 1);
    int64_t oh = pixel / g->out_w;
    int64_t ow = pixel - oh * g->out_w;
    x[r] = p->base + oh * g->stride_h * p->stride + ow * g->stride_w;
  }
  __m256 acc[MR][2];
#pragma GCC unroll 6
  for (int r = 0; r < MR; ++r) {
#pragma GCC unroll 2
    for (int v = 0; v < V; ++v) {
      acc[r][v] = pass->first || r >= count
                      ? _mm256_setzero_ps()
                      : _mm256_load_ps(stage + r * PANEL + 8 * v);
    }
  }
  const int64_t row_step = g->dilation_h * p->stride;
  const int64_t kernel_h = KS > 0 ? KS : g->kernel_h;
  const int64_t kernel_w = KS > 0 ? KS : g->kernel_w;
  const int64_t dw = KS > 0 ? 1 : g->dilation_w;
  w += pass->c0 * g->kernel_h * g->kernel_w * PANEL;
  for (int64_t c = 0; c < pass->count; ++c) {
    const int64_t plane = c * p->plane;
    for (int64_t kh = 0; kh < kernel_h; ++kh) {
      const int64_t row = plane + kh * row_step;
#pragma GCC unroll 1
      for (int64_t kw = 0; kw < kernel_w; ++kw, w += PANEL) {
        const int64_t offset = row + kw * dw;
        __m256 b[2];
#pragma GCC unroll 2
        for (int v = 0; v < V; ++v) {
          b[v] = _mm256_loadu_ps(w + 8 * v);
        }
#pragma GCC unroll 6
        for (int r = 0; r < MR; ++r) {
          const __m256 xv = _mm256_broadcast_ss(x[r] + offset);
#pragma GCC unroll 2
          for (int v = 0; v < V; ++v) {
            acc[r][v] = _mm256_fmadd_ps(xv, b[v], acc[r][v]);
          }
        }
      }
    }
  }
  if (!pass->last) {
#pragma GCC unroll 6
    for (int r = 0; r < MR; ++r) {
#pragma GCC unroll 2
      for (int v = 0; v < V; ++v) {
        _mm256_store_ps(stage + r * PANEL + 8 * v, acc[r][v]);
      }
    }
    return;
  }
  // The AVX-512 kernel's epilogue, with the out channels along the lanes.
  const etr_conv_post_t *post = a->post;
  __m256 bias[2], scale[2], shift[2];
#pragma GCC unroll 2
  for (int v = 0; v < V; ++v) {
    const int64_t o = oc0 + 8 * v;
    const __m256i valid = etr_avx2_first_lanes(channels - o);
    bias[v] = _mm256_setzero_ps();
    scale[v] = _mm256_setzero_ps();
    shift[v] = _mm256_setzero_ps();
    if (a->bias != NULL) {
      if (a->bias_stride == 1) {
        bias[v] = _mm256_maskload_ps(a->bias + o, valid);
      } else {
        float lanes[8] = {0};
        for (int64_t j = 0; j < 8 && o + j < channels; ++j) {
          lanes[j] = a->bias[(o + j) * a->bias_stride];
        }
        bias[v] = _mm256_loadu_ps(lanes);
      }
    }
    if (post != NULL && post->scale != NULL) {
      const int64_t channel = a->post_channel0 + o;
      scale[v] = _mm256_maskload_ps(post->scale + channel, valid);
      shift[v] = _mm256_maskload_ps(post->shift + channel, valid);
    }
  }
  const __m256 low = _mm256_set1_ps(post != NULL ? post->low : 0.0f);
  const __m256 high = _mm256_set1_ps(post != NULL ? post->high : 0.0f);
#pragma GCC unroll 6
  for (int r = 0; r < MR; ++r) {
#pragma GCC unroll 2
    for (int v = 0; v < V; ++v) {
      __m256 value = acc[r][v];
      if (a->bias != NULL) {
        value = _mm256_add_ps(value, bias[v]);
      }
      if (post != NULL) {
        if (post->scale != NULL) {
          value = _mm256_fmadd_ps(value, scale[v], shift[v]);
        }
        value = _mm256_min_ps(high, _mm256_max_ps(low, value));
      }
      _mm256_store_ps(stage + r * PANEL + 8 * v, value);
    }
  }
}

// Moves `pixels` staged rows of 8 V channels (rows PANEL floats apart) to
// the channel-major out planes: 8 x 8 transposes, then one store of up to
// 8 pixels per channel.
static inline __attribute__((always_inline)) void unstage(
    const float *stage, int64_t pixels, int V, int64_t channels,
    float *out, int64_t stride) {
  for (int64_t p0 = 0; p0 < pixels; p0 += 8) {
    const int64_t rows = pixels - p0 < 8 ? pixels - p0 : 8;
    const __m256i lanes = etr_avx2_first_lanes(rows);
#pragma GCC unroll 2
    for (int v = 0; v < V; ++v) {
      __m256 r[8];
#pragma GCC unroll 8
      for (int i = 0; i < 8; ++i) {
        r[i] = i < rows ? _mm256_load_ps(stage + (p0 + i) * PANEL + 8 * v)
                        : _mm256_setzero_ps();
      }
      etr_avx2_transpose8x8(r);
#pragma GCC unroll 8
      for (int j = 0; j < 8; ++j) {
        if (8 * v + j < channels) {
          float *dst = out + (8 * v + j) * stride + p0;
          if (rows == 8) {
            _mm256_storeu_ps(dst, r[j]);
          } else {
            _mm256_maskstore_ps(dst, lanes, r[j]);
          }
        }
      }
    }
  }
}

// The inverse of unstage: the partial sums of `pixels` pixels of 8 V
// channels from the channel-major out into staged rows (8 x 8
// transposes; channels past `channels` read as zeros).
static inline __attribute__((always_inline)) void restage(
    float *stage, int64_t pixels, int V, int64_t channels, const float *out,
    int64_t stride) {
  for (int64_t p0 = 0; p0 < pixels; p0 += 8) {
    const int64_t rows = pixels - p0 < 8 ? pixels - p0 : 8;
    const __m256i lanes = etr_avx2_first_lanes(rows);
#pragma GCC unroll 2
    for (int v = 0; v < V; ++v) {
      __m256 r[8];
#pragma GCC unroll 8
      for (int j = 0; j < 8; ++j) {
        const float *src = out + (8 * v + j) * stride + p0;
        r[j] = 8 * v + j >= channels ? _mm256_setzero_ps()
               : rows == 8           ? _mm256_loadu_ps(src)
                                     : _mm256_maskload_ps(src, lanes);
      }
      etr_avx2_transpose8x8(r);
#pragma GCC unroll 8
      for (int i = 0; i < 8; ++i) {
        if (i < rows) {
          _mm256_store_ps(stage + (p0 + i) * PANEL + 8 * v, r[i]);
        }
      }
    }
  }
}

// The tiles of one panel of V vectors for one pass, STAGE pixels at a
// time.
static inline __attribute__((always_inline)) void panel(
    const etr_conv_pixels_args_t *a, const etr_conv_padded_t *p,
    const pass_t *pass, const float *w, int V, int KS, int64_t oc0,
    int64_t pixels) {
  _Alignas(32) float stage[STAGE * PANEL];
  const int64_t channels = a->out_channels - oc0;
  float *out = a->out + oc0 * a->out_stride;
  for (int64_t chunk = 0; chunk < pixels; chunk += STAGE) {
    const int64_t n = pixels - chunk < STAGE ? pixels - chunk : STAGE;
    if (!pass->first) {
      restage(stage, n, V, channels, out + chunk, a->out_stride);
    }
    for (int64_t i = 0; i < n; i += MR) {
      tile(a, p, pass, w, V, KS, oc0, a->out_channels, chunk + i,
           n - i < MR ? n - i : MR, stage + i * PANEL);
    }
    unstage(stage, n, V, channels, out + chunk, a->out_stride);
  }
}

void etr_conv_pixels_nchw_avx2(const etr_conv_pixels_args_t *a) {
  const etr_conv2d_geometry_t *g = a->g;
  const int64_t depth = g->channels * g->kernel_h * g->kernel_w;
  const int64_t pixels = g->out_h * g->out_w;
  const int64_t per_pass = pass_channels(g);
  // Square kernels of 3 (dilation 1 along rows) and 1 with their loops
  // unrolled; others, KS = 0, run theirs.
  const int ks = g->kernel_h == 3 && g->kernel_w == 3 && g->dilation_w == 1
                     ? 3
                 : g->kernel_h == 1 && g->kernel_w == 1 ? 1
                                                        : 0;
  for (int64_t c0 = 0; c0 < g->channels; c0 += per_pass) {
    const pass_t pass = {
        .c0 = c0,
        .count = g->channels - c0 < per_pass ? g->channels - c0 : per_pass,
        .first = c0 == 0,
        .last = c0 + per_pass >= g->channels,
    };
    const etr_conv_padded_t p = pad_planes(
        g, a->input + c0 * g->in_stride_c, pass.count, a->scratch);
    for (int64_t oc0 = 0; oc0 < a->out_channels; oc0 += PANEL) {
      const float *w = a->weight + oc0 * depth;
      if (a->out_channels - oc0 <= 8) {
        panel(a, &p, &pass, w, 1, 0, oc0, pixels);
      } else if (ks == 3) {
        panel(a, &p, &pass, w, 2, 3, oc0, pixels);
      } else if (ks == 1) {
        panel(a, &p, &pass, w, 2, 1, oc0, pixels);
      } else {
        panel(a, &p, &pass, w, 2, 0, oc0, pixels);
      }
    }
  }
}

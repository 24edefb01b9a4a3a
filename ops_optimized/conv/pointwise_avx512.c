// SPDX-License-Identifier: Apache-2.0
//
// Pointwise (1x1, stride 1, no padding) NCHW convolution of one image,
// fp32, AVX-512 (conv.h): out[oc][p] = sum_c W[oc][c] x[c][p] + bias[oc],
// then the fused post. The models' pointwise layers are small (K = 8..192
// input channels, 16..1024 pixels, 0.5-5 us): through the GEMM driver each
// 12 x 32 tile was a microkernel call with its own setup, alpha and bias
// passes and, past 24 out channels, a packed copy of the input. Here the
// weight and input are read in place and the whole image is one call:
// for each block of 16 * V pixels, tiles of R out channels keep R x V
// accumulators, start them at the bias (+0.0, so a -0.0 bias adds as the
// reference's sum + bias does) and run all of K before one masked store
// per row and vector. The tile shape follows the pixel count: 16 pixels
// (4x4 planes) take 24 x 16, others 12 x 32 (8 x 32 when the out channels
// are a multiple of 8 but not of 12).
//
// Exactness: one fp32 FMA chain per output in k order from the bias, so
// small-integer data (every partial sum exact) gives the reference's bits.
#include <immintrin.h>

#include "ops_optimized/conv/conv.h"
#include "ops_optimized/conv/lanes_avx512.h"

#define MAX_ROWS 12
#define MAX_VECTORS 2

// One tile: rows [i0, i0 + rows) (rows <= R; the missing rows repeat the
// last one's weights and are not stored) by pixels [j0, j0 + 16 V) masked
// to `masks`.
static inline __attribute__((always_inline)) void tile(
    const etr_conv_pointwise_args_t *a, int64_t i0, int64_t rows,
    int64_t j0, const __mmask16 *masks, int R, int V) {
  const float *w[MAX_ROWS];
  __m512 acc[MAX_ROWS][MAX_VECTORS];
#pragma GCC unroll 24
  for (int r = 0; r < R; ++r) {
    int64_t row = i0 + (r < rows ? r : rows - 1);
    w[r] = a->weight + row * a->weight_stride;
    float b = a->bias != NULL ? a->bias[row * a->bias_stride] + 0.0f : 0.0f;
#pragma GCC unroll 2
    for (int v = 0; v < V; ++v) {
      acc[r][v] = _mm512_set1_ps(b);
    }
  }
  const float *x = a->input + j0;
  for (int64_t k = 0; k < a->in_channels; ++k, x += a->input_stride) {
    __m512 xv[MAX_VECTORS];
#pragma GCC unroll 2
    for (int v = 0; v < V; ++v) {
      xv[v] = _mm512_maskz_loadu_ps(masks[v], x + 16 * v);
    }
#pragma GCC unroll 24
    for (int r = 0; r < R; ++r) {
      const __m512 wv = _mm512_set1_ps(w[r][k]);
#pragma GCC unroll 2
      for (int v = 0; v < V; ++v) {
        acc[r][v] = _mm512_fmadd_ps(wv, xv[v], acc[r][v]);
      }
    }
  }
  const etr_conv_post_t *post = a->post;
#pragma GCC unroll 24
  for (int r = 0; r < R; ++r) {
    if (r >= rows) {
      break;
    }
    float *out = a->out + (i0 + r) * a->out_stride + j0;
#pragma GCC unroll 2
    for (int v = 0; v < V; ++v) {
      __m512 value = acc[r][v];
      if (post != NULL) {  // as the GEMM microkernels' fused post
        if (post->scale != NULL) {
          value = _mm512_fmadd_ps(
              value, _mm512_set1_ps(post->scale[a->post_channel0 + i0 + r]),
              _mm512_set1_ps(post->shift[a->post_channel0 + i0 + r]));
        }
        value = _mm512_min_ps(_mm512_set1_ps(post->high),
                              _mm512_max_ps(_mm512_set1_ps(post->low),
                                            value));
      }
      _mm512_mask_storeu_ps(out + 16 * v, masks[v], value);
    }
  }
}

// All tiles of R rows by 16 V pixels.
static inline __attribute__((always_inline)) void tiles(
    const etr_conv_pointwise_args_t *a, int R, int V) {
  const int64_t m = a->out_channels;
  const int64_t n = a->pixels;
  for (int64_t i0 = 0; i0 < m; i0 += R) {
    for (int64_t j0 = 0; j0 < n; j0 += 16 * V) {
      __mmask16 masks[MAX_VECTORS];
#pragma GCC unroll 2
      for (int v = 0; v < V; ++v) {
        masks[v] = first_lanes(n - j0 - 16 * v);
      }
      tile(a, i0, m - i0 < R ? m - i0 : R, j0, masks, R, V);
    }
  }
}

// Images of at most 16 pixels (4x4 planes): each input channel is one
// vector, so R out channels (8 or 12) keep their accumulators over all of
// K while 8 input channels at a time are loaded and every weight is
// broadcast against them (a weight row is then one pointer with constant
// offsets; 24 rows of the tile kernel spilled their row pointers). Input
// rows are reloaded per group of R out channels from L1, which measured
// faster than carrying partial sums through `out`.
#define SMALL_CHANNELS 8
#define SMALL_MAX_ROWS 12
static inline __attribute__((always_inline)) void small_image_rows(
    const etr_conv_pointwise_args_t *a, int R) {
  const int64_t m = a->out_channels;
  const int64_t k = a->in_channels;
  const __mmask16 mask = first_lanes(a->pixels);
  const etr_conv_post_t *post = a->post;
  for (int64_t i0 = 0; i0 < m; i0 += R) {
    const int64_t rows = m - i0 < R ? m - i0 : R;
    const float *w[SMALL_MAX_ROWS];
    __m512 acc[SMALL_MAX_ROWS];
#pragma GCC unroll 12
    for (int r = 0; r < R; ++r) {
      const int64_t row = i0 + (r < rows ? r : rows - 1);
      w[r] = a->weight + row * a->weight_stride;
      acc[r] = _mm512_set1_ps(
          a->bias != NULL ? a->bias[row * a->bias_stride] + 0.0f : 0.0f);
    }
    const float *input = a->input;
    int64_t k0 = 0;
    for (; k0 + SMALL_CHANNELS <= k; k0 += SMALL_CHANNELS) {
      __m512 x[SMALL_CHANNELS];
#pragma GCC unroll 8
      for (int c = 0; c < SMALL_CHANNELS; ++c) {
        x[c] = _mm512_maskz_loadu_ps(mask, input + c * a->input_stride);
      }
      input += SMALL_CHANNELS * a->input_stride;
#pragma GCC unroll 8
      for (int c = 0; c < SMALL_CHANNELS; ++c) {
#pragma GCC unroll 12
        for (int r = 0; r < R; ++r) {
          acc[r] = _mm512_fmadd_ps(_mm512_set1_ps(w[r][k0 + c]), x[c],
                                   acc[r]);
        }
      }
    }
    for (; k0 < k; ++k0, input += a->input_stride) {
      const __m512 x = _mm512_maskz_loadu_ps(mask, input);
#pragma GCC unroll 12
      for (int r = 0; r < R; ++r) {
        acc[r] = _mm512_fmadd_ps(_mm512_set1_ps(w[r][k0]), x, acc[r]);
      }
    }
#pragma GCC unroll 12
    for (int r = 0; r < R; ++r) {
      if (r >= rows) {
        break;
      }
      __m512 value = acc[r];
      if (post != NULL) {  // as the GEMM microkernels' fused post
        const int64_t channel = a->post_channel0 + i0 + r;
        if (post->scale != NULL) {
          value = _mm512_fmadd_ps(value, _mm512_set1_ps(post->scale[channel]),
                                  _mm512_set1_ps(post->shift[channel]));
        }
        value = _mm512_min_ps(_mm512_set1_ps(post->high),
                              _mm512_max_ps(_mm512_set1_ps(post->low), value));
      }
      _mm512_mask_storeu_ps(a->out + (i0 + r) * a->out_stride, mask, value);
    }
  }
}

static void small_image(const etr_conv_pointwise_args_t *a) {
  if (a->out_channels % 12 == 0) {
    small_image_rows(a, 12);
  } else {
    small_image_rows(a, 8);
  }
}

void etr_conv_pointwise_nchw_avx512(const etr_conv_pointwise_args_t *a) {
  if (a->pixels <= 16) {
    small_image(a);
  } else if (a->out_channels % 12 != 0 && a->out_channels % 8 == 0) {
    tiles(a, 8, 2);
  } else {
    tiles(a, 12, 2);
  }
}

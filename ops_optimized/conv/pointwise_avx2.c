// SPDX-License-Identifier: Apache-2.0
//
// Pointwise (1x1, stride 1, no padding) NCHW convolution of one image,
// fp32, AVX2 + FMA (conv.h): out[oc][p] = sum_c W[oc][c] x[c][p] + bias[oc],
// then the fused post; pointwise_avx512.c's kernel with vectors of 8
// pixels. Through the GEMM driver the models' small 1x1 layers ran at
// 35-80 GFLOP/s on the Zen 2 runner (mobilenet_v2's 8x32x32 -> 48: 37,
// 21.5 us), each tile a microkernel call with its own setup and a packed
// copy of the input; this kernel runs that layer in 13.8 us in the fused
// model (11.6 in a direct call, where the post's 3 instructions per
// vector against 8 FMAs are most of the gap to 88 GFLOP/s without it).
// The weight and input are read in place and the whole image is one
// call: tiles of R out channels by V vectors keep R x V = 12
// accumulators (of the 16 ymm registers, with V input vectors and one
// broadcast weight), start them at the bias (+0.0, so a -0.0 bias adds as
// the reference's sum + bias does) and run all of K before one store per
// row and vector. Two tile shapes, by the image (direct calls with the
// batch-norm and clamp post, 64-byte aligned rows, Zen 2):
//   * 4 rows x 3 vectors (24 pixels): 7 loads per 12 FMAs; images of 256
//     pixels or more with fewer than 32 input channels (8x32x32 -> 48:
//     11.6 us against 12.3 us in 6 x 2; 16x32x32 -> 8: 3.7 against 4.4);
//   * 6 rows x 2 vectors (16 pixels, a cache line): smaller images, where
//     4 x 3 left the last 16 pixels in 8 accumulators (96x4x4 -> 24: 0.77
//     us against 0.95), and 32 input channels or more, where each tile
//     reads every input row's line once and the input is reread m / 6
//     times (64x32x32 -> 64: 104 us against 112; 72x16x16 -> 12: 4.44
//     against 4.56). Out channels past the 6-row blocks take 4 x 3 blocks
//     (a remainder of 1 or 2 joins the last 6: 4 + 3, 4 + 4), then 5 x 2
//     or 1-3 x 3: fewer accumulators than 10 leave the FMA pipes waiting
//     on their 5-cycle latency (256x8x8 -> 32: 10.7 us against 10.9 with
//     6 + 6 + 6 + 6 + 6 + 2).
// Pixels past the last full tile take one tile of as many vectors as they
// need, the last one masked (vmaskmovps loads: nothing past the row is
// read; stores through etr_avx2_maskstore_ps).
//
// Exactness: one fp32 FMA chain per output in k order from the bias, then
// post_avx2.c's post_vector: the bits of the AVX-512 kernel.
#include <immintrin.h>
#include <stdint.h>

#include "ops_optimized/common/mask_avx2.h"
#include "ops_optimized/common/transpose_avx2.h"
#include "ops_optimized/conv/conv.h"

#define MAX_ROWS 6
#define MAX_VECTORS 3

// One tile: rows [i0, i0 + R) by pixels [j0, j0 + 8 V). With `masked`
// the last vector is loaded and stored under masks[V - 1]; with `head`
// (j0 < 0: the image's first tile, aligned to a cache line) every vector
// v under masks[v]. `w` and `bias` hold the R rows' weight rows and
// biases.
static inline __attribute__((always_inline)) void tile(
    const etr_conv_pointwise_args_t *a, const float *const *w,
    const float *bias, int64_t i0, int64_t j0, const __m256i *masks, int R,
    int V, bool masked, bool head) {
  __m256 acc[MAX_ROWS][MAX_VECTORS];
  const float *wr[MAX_ROWS];
#pragma GCC unroll 6
  for (int r = 0; r < R; ++r) {
    wr[r] = w[r];
#pragma GCC unroll 3
    for (int v = 0; v < V; ++v) {
      acc[r][v] = _mm256_set1_ps(bias[r]);
    }
  }
  const float *x = a->input + j0;
  const int64_t k_count = a->in_channels;
  const int64_t input_stride = a->input_stride;
  for (int64_t k = 0; k < k_count; ++k, x += input_stride) {
    __m256 xv[MAX_VECTORS];
#pragma GCC unroll 3
    for (int v = 0; v < V; ++v) {
      xv[v] = (masked && v == V - 1) || head
                  ? _mm256_maskload_ps(x + 8 * v, masks[v])
                  : _mm256_loadu_ps(x + 8 * v);
    }
#pragma GCC unroll 6
    for (int r = 0; r < R; ++r) {
      const __m256 wv = _mm256_broadcast_ss(wr[r] + k);
#pragma GCC unroll 3
      for (int v = 0; v < V; ++v) {
        acc[r][v] = _mm256_fmadd_ps(wv, xv[v], acc[r][v]);
      }
    }
  }
  // The post's fields in locals, and a row's scale and shift broadcast
  // before its stores: they could alias `out`, and the compiler reloaded
  // them after every store (8x32x32 -> 48: 12.4 us, now 11.6).
  // Skipping the clamp when it is (-inf, +inf) (the same bits) measured
  // no faster without it and slower with it (8x32x32 -> 48 with a clamp:
  // 13.7 us against 11.7): the branch here cost more than the two
  // instructions.
  const etr_conv_post_t *post = a->post;
  const float *scale = post != NULL ? post->scale : NULL;
  const float *shift = post != NULL ? post->shift : NULL;
  const int64_t channel = a->post_channel0 + i0;
  const __m256 low = _mm256_set1_ps(post != NULL ? post->low : 0.0f);
  const __m256 high = _mm256_set1_ps(post != NULL ? post->high : 0.0f);
  const int64_t out_stride = a->out_stride;
  float *out = a->out + i0 * out_stride + j0;
#pragma GCC unroll 6
  for (int r = 0; r < R; ++r, out += out_stride) {
    __m256 alpha = _mm256_setzero_ps();
    __m256 beta = _mm256_setzero_ps();
    if (scale != NULL) {
      alpha = _mm256_set1_ps(scale[channel + r]);
      beta = _mm256_set1_ps(shift[channel + r]);
    }
#pragma GCC unroll 3
    for (int v = 0; v < V; ++v) {
      __m256 value = acc[r][v];
      if (post != NULL) {  // as post_avx2.c's post_vector
        if (scale != NULL) {
          value = _mm256_fmadd_ps(value, alpha, beta);
        }
        value = _mm256_min_ps(high, _mm256_max_ps(low, value));
      }
      if ((masked && v == V - 1) || head) {
        etr_avx2_maskstore_ps(out + 8 * v, masks[v], value);
      } else {
        _mm256_storeu_ps(out + 8 * v, value);
      }
    }
  }
}

// Rows [i0, i0 + R) over pixels [j_begin, j_end): from j_begin < 0 a head
// tile with the lanes before the row masked off, tiles of 8 V pixels,
// then what is left before j_end (the image's end) in one tile of as many
// vectors as it needs, the last masked.
static inline __attribute__((always_inline)) void row_block(
    const etr_conv_pointwise_args_t *a, int64_t i0, int64_t j_begin,
    int64_t j_end, int R, int V) {
  const float *w[MAX_ROWS];
  float bias[MAX_ROWS];
#pragma GCC unroll 6
  for (int r = 0; r < R; ++r) {
    w[r] = a->weight + (i0 + r) * a->weight_stride;
    bias[r] = a->bias != NULL ? a->bias[(i0 + r) * a->bias_stride] + 0.0f
                              : 0.0f;
  }
  int64_t j0 = j_begin;
  __m256i masks[MAX_VECTORS];
  if (j0 < 0) {
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
#pragma GCC unroll 3
    for (int v = 0; v < V; ++v) {  // lanes at j0 + 8 v + lane >= 0
      masks[v] = _mm256_cmpgt_epi32(
          lane, _mm256_set1_epi32((int)(-(j0 + 8 * v) - 1)));
    }
    tile(a, w, bias, i0, j0, masks, R, V, false, true);
    j0 += 8 * V;
  }
  for (; j0 + 8 * V <= j_end; j0 += 8 * V) {
    tile(a, w, bias, i0, j0, masks, R, V, false, false);
  }
  const int64_t left = j_end - j0;
  if (left > 0) {
    const int vectors = (int)((left + 7) / 8);
    masks[vectors - 1] = etr_avx2_first_lanes(left - 8 * (vectors - 1));
    if (vectors == 1) {
      tile(a, w, bias, i0, j0, masks, R, 1, true, false);
    } else if (V == 3 && vectors == 2) {
      tile(a, w, bias, i0, j0, masks, R, 2, true, false);
    } else {
      tile(a, w, bias, i0, j0, masks, R, V, true, false);
    }
  }
}

// All out channels over pixels [j_begin, j_end): with `six` blocks of 6
// rows by 2 vectors, the rest (or, without, all) in blocks of 4 by 3,
// then 5 by 2 or 1-3 by 3.
static inline __attribute__((always_inline)) void tiles(
    const etr_conv_pointwise_args_t *a, int64_t j_begin, int64_t j_end,
    bool six) {
  const int64_t m = a->out_channels;
  int64_t i0 = 0;
  if (six) {
    int64_t blocks = m / 6;
    // (Not on images of fewer than 24 pixels, where the 4 x 3 blocks have
    // only 16 pixels: 192x4x4 -> 32 ran 2.10 us in 6 + ... + 6 + 2, 2.20
    // in 6 + ... + 4 + 4.)
    if (blocks > 0 && m % 6 != 0 && m % 6 <= 2 && a->pixels >= 24) {
      --blocks;
    }
    for (; i0 < 6 * blocks; i0 += 6) {
      row_block(a, i0, j_begin, j_end, 6, 2);
    }
    if (m - i0 == 5) {
      row_block(a, i0, j_begin, j_end, 5, 2);
      return;
    }
  }
  for (; i0 + 4 <= m; i0 += 4) {
    row_block(a, i0, j_begin, j_end, 4, 3);
  }
  switch (m - i0) {
    case 1:
      row_block(a, i0, j_begin, j_end, 1, 3);
      break;
    case 2:
      row_block(a, i0, j_begin, j_end, 2, 3);
      break;
    case 3:
      row_block(a, i0, j_begin, j_end, 3, 3);
      break;
    default:
      break;
  }
}

// The 8 x 8 block rows[0..7][k0..k0 + 7] (the first `count` columns
// loaded, zeros after) as its 8 columns.
static inline __attribute__((always_inline)) void columns_of(
    const float *const *rows, int64_t k0, int64_t count, __m256 *col) {
  __m256 r[8];
  if (count == 8) {
#pragma GCC unroll 8
    for (int i = 0; i < 8; ++i) {
      r[i] = _mm256_loadu_ps(rows[i] + k0);
    }
  } else {
    const __m256i mask = etr_avx2_first_lanes(count);
#pragma GCC unroll 8
    for (int i = 0; i < 8; ++i) {
      r[i] = _mm256_maskload_ps(rows[i] + k0, mask);
    }
  }
  etr_avx2_transpose8x8(r);
#pragma GCC unroll 8
  for (int j = 0; j < 8; ++j) {
    col[j] = r[j];
  }
}

// Stores B vectors of 8 out channels from oc0 (lanes past m are not
// stored) through the fused post, as post_avx2.c's post_vector per lane.
static inline __attribute__((always_inline)) void store_pixel_blocks(
    const etr_conv_pointwise_args_t *a, int64_t oc0, const __m256 *acc,
    const int B) {
  const int64_t m = a->out_channels;
  _Alignas(32) float lanes[8];
  const etr_conv_post_t *post = a->post;
#pragma GCC unroll 8
  for (int b = 0; b < B; ++b) {
    const int64_t first = oc0 + 8 * b;
    const int64_t real = m - first < 8 ? m - first : 8;
    __m256 value = acc[b];
    if (post != NULL) {  // as post_avx2.c's post_vector, per lane
      if (post->scale != NULL && real == 8) {
        const int64_t channel = a->post_channel0 + first;
        value = _mm256_fmadd_ps(value, _mm256_loadu_ps(post->scale + channel),
                                _mm256_loadu_ps(post->shift + channel));
      } else if (post->scale != NULL) {
        _Alignas(32) float beta[8];
        for (int64_t r = 0; r < 8; ++r) {
          const int64_t channel =
              a->post_channel0 + first + (r < real ? r : real - 1);
          lanes[r] = post->scale[channel];
          beta[r] = post->shift[channel];
        }
        value = _mm256_fmadd_ps(value, _mm256_load_ps(lanes),
                                _mm256_load_ps(beta));
      }
      value = _mm256_min_ps(_mm256_set1_ps(post->high),
                            _mm256_max_ps(_mm256_set1_ps(post->low), value));
    }
    float *out = a->out + first * a->out_stride;
    if (a->out_stride == 1 && real == 8) {
      _mm256_storeu_ps(out, value);
    } else {
      _mm256_store_ps(lanes, value);
      for (int64_t r = 0; r < real; ++r) {
        out[r * a->out_stride] = lanes[r];
      }
    }
  }
}

// Out channels oc0 .. oc0 + 8 B - 1 of one pixel: B vectors of 8 out
// channels whose FMA chains interleave (one alone waits on the 5-cycle
// latency of each of its k FMAs: 30 -> 120 ran 0.93 us, 4 at a time
// 0.88), each lane S chains (conv.h; S = etr_conv_one_pixel_chains: 4 or
// 2 on at most 32 out channels, else the chain of tile() in channel order
// from bias + 0.0); the weight's 8 x 8 blocks transposed on the fly. Rows
// past m repeat the last one and are not stored.
static inline __attribute__((always_inline)) void pixel_blocks(
    const etr_conv_pointwise_args_t *a, int64_t oc0, const int B,
    const int S) {
  const int64_t m = a->out_channels;
  const int64_t k = a->in_channels;
  const float *w[4][8];
  __m256 acc[4][4];  // [chain][vector]; S x B used
  _Alignas(32) float lanes[8];
#pragma GCC unroll 4
  for (int b = 0; b < B; ++b) {
    for (int64_t r = 0; r < 8; ++r) {
      int64_t oc = oc0 + 8 * b + r;
      oc = oc < m ? oc : m - 1;
      w[b][r] = a->weight + oc * a->weight_stride;
      lanes[r] =
          a->bias != NULL ? a->bias[oc * a->bias_stride] + 0.0f : 0.0f;
    }
    acc[0][b] = _mm256_load_ps(lanes);
#pragma GCC unroll 4
    for (int c = 1; c < S; ++c) {
      acc[c][b] = _mm256_setzero_ps();
    }
  }
  // Input channel k0 + j joins chain j % S (S divides 8).
  const float *x = a->input;
  int64_t k0 = 0;
  for (; k0 + 8 <= k; k0 += 8, x += 8 * a->input_stride) {
#pragma GCC unroll 4
    for (int b = 0; b < B; ++b) {
      __m256 col[8];
      columns_of(w[b], k0, 8, col);
#pragma GCC unroll 8
      for (int j = 0; j < 8; ++j) {
        acc[j % S][b] = _mm256_fmadd_ps(
            col[j], _mm256_broadcast_ss(x + j * a->input_stride),
            acc[j % S][b]);
      }
    }
  }
  if (k0 < k) {
#pragma GCC unroll 4
    for (int b = 0; b < B; ++b) {
      __m256 col[8];
      columns_of(w[b], k0, k - k0, col);
#pragma GCC unroll 8
      for (int j = 0; j < 8; ++j) {
        if (j < k - k0) {
          acc[j % S][b] = _mm256_fmadd_ps(
              col[j], _mm256_broadcast_ss(x + j * a->input_stride),
              acc[j % S][b]);
        }
      }
    }
  }
#pragma GCC unroll 4
  for (int b = 0; b < B; ++b) {
    if (S == 2) {
      acc[0][b] = _mm256_add_ps(acc[0][b], acc[1][b]);
    } else if (S == 4) {
      acc[0][b] = _mm256_add_ps(_mm256_add_ps(acc[0][b], acc[1][b]),
                                _mm256_add_ps(acc[2][b], acc[3][b]));
    }
  }
  store_pixel_blocks(a, oc0, acc[0], B);
}

// One pixel (the squeeze-and-excitation 1x1 convolutions on [1, C, 1,
// 1]): eight out channels per vector (pixel_blocks). The tiles above
// compute one useful lane in 8 and run k dependent FMAs per 6 rows:
// mobilenet_v3's 30 -> 120 took 1.7 us there (etref run, the op alone).
static void one_pixel(const etr_conv_pointwise_args_t *a) {
  const int64_t m = a->out_channels;
  switch ((m + 7) / 8) {  // at most 32 out channels: 4 or 2 chains
    case 1:
      pixel_blocks(a, 0, 1, 4);
      return;
    case 2:
      pixel_blocks(a, 0, 2, 4);
      return;
    case 3:
      pixel_blocks(a, 0, 3, 2);
      return;
    case 4:
      pixel_blocks(a, 0, 4, 2);
      return;
    default:
      break;
  }
  int64_t oc0 = 0;
  for (; oc0 + 32 <= m; oc0 += 32) {
    pixel_blocks(a, oc0, 4, 1);
  }
  switch ((m - oc0 + 7) / 8) {  // 1 to 4 vectors left
    case 4:
      pixel_blocks(a, oc0, 4, 1);
      break;
    case 3:
      pixel_blocks(a, oc0, 3, 1);
      break;
    case 2:
      pixel_blocks(a, oc0, 2, 1);
      break;
    case 1:
      pixel_blocks(a, oc0, 1, 1);
      break;
    default:
      break;
  }
}

// One pixel with the weight as columns (etr_conv_columns_pack, packed at
// load): B vectors of 8 out channels from oc0, each lane pixel_blocks'
// S chains and post, with no transposes (one vector load per input channel
// and vector).
#define COLUMN_BLOCKS 8
#define COLUMN_CHAINS 4
static inline __attribute__((always_inline)) void column_blocks(
    const etr_conv_pointwise_args_t *a, int64_t oc0, const int B,
    const int S) {
  const int64_t m = a->out_channels;
  const int64_t pitch = etr_conv_columns_pitch(m);
  __m256 acc[COLUMN_CHAINS][COLUMN_BLOCKS];
  _Alignas(32) float values[8];
#pragma GCC unroll 8
  for (int b = 0; b < B; ++b) {
    const int64_t first = oc0 + 8 * b;
    // (A vector load where the biases are one: 8 scalar stores read back
    // as a vector stalled each block's start.)
    if (a->bias != NULL && a->bias_stride == 1) {
      const __m256i mask = _mm256_cmpgt_epi32(
          _mm256_set1_epi32((int)(m - first < 8 ? m - first : 8)),
          _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
      acc[0][b] = _mm256_add_ps(_mm256_maskload_ps(a->bias + first, mask),
                                _mm256_setzero_ps());
    } else {
      for (int64_t r = 0; r < 8; ++r) {
        values[r] = a->bias != NULL && first + r < m
                        ? a->bias[(first + r) * a->bias_stride] + 0.0f
                        : 0.0f;
      }
      acc[0][b] = _mm256_load_ps(values);
    }
#pragma GCC unroll 4
    for (int j = 1; j < S; ++j) {
      acc[j][b] = _mm256_setzero_ps();
    }
  }
  const float *x = a->input;
  const int64_t x_stride = a->input_stride;
  const int64_t in = a->in_channels;
  const float *column = a->columns + oc0;
  int64_t k = 0;
  for (; k + S <= in; k += S, column += S * pitch) {
#pragma GCC unroll 4
    for (int j = 0; j < S; ++j) {
      const __m256 xv = _mm256_broadcast_ss(x + (k + j) * x_stride);
#pragma GCC unroll 8
      for (int b = 0; b < B; ++b) {
        acc[j][b] = _mm256_fmadd_ps(
            _mm256_loadu_ps(column + j * pitch + 8 * b), xv, acc[j][b]);
      }
    }
  }
  // The last in % S channels (j a constant: a variable index would put
  // acc in memory).
#pragma GCC unroll 4
  for (int j = 0; j < S - 1; ++j) {
    if (k + j < in) {
      const __m256 xv = _mm256_broadcast_ss(x + (k + j) * x_stride);
#pragma GCC unroll 8
      for (int b = 0; b < B; ++b) {
        acc[j][b] = _mm256_fmadd_ps(
            _mm256_loadu_ps(column + j * pitch + 8 * b), xv, acc[j][b]);
      }
    }
  }
#pragma GCC unroll 8
  for (int b = 0; b < B; ++b) {
    if (S == 2) {
      acc[0][b] = _mm256_add_ps(acc[0][b], acc[1][b]);
    } else if (S == 4) {
      acc[0][b] = _mm256_add_ps(_mm256_add_ps(acc[0][b], acc[1][b]),
                                _mm256_add_ps(acc[2][b], acc[3][b]));
    }
  }
  store_pixel_blocks(a, oc0, acc[0], B);
}

static void one_pixel_columns(const etr_conv_pointwise_args_t *a) {
  const int64_t m = a->out_channels;
  switch ((m + 7) / 8) {  // at most 32 out channels: 4 or 2 chains
    case 1:
      column_blocks(a, 0, 1, 4);
      return;
    case 2:
      column_blocks(a, 0, 2, 4);
      return;
    case 3:
      column_blocks(a, 0, 3, 2);
      return;
    case 4:
      column_blocks(a, 0, 4, 2);
      return;
    default:
      break;
  }
  for (int64_t oc0 = 0; oc0 < m; oc0 += 8 * COLUMN_BLOCKS) {
    switch ((m - oc0 + 7) / 8) {
      case 1:
        column_blocks(a, oc0, 1, 1);
        break;
      case 2:
        column_blocks(a, oc0, 2, 1);
        break;
      case 3:
        column_blocks(a, oc0, 3, 1);
        break;
      case 4:
        column_blocks(a, oc0, 4, 1);
        break;
      case 5:
        column_blocks(a, oc0, 5, 1);
        break;
      case 6:
        column_blocks(a, oc0, 6, 1);
        break;
      case 7:
        column_blocks(a, oc0, 7, 1);
        break;
      default:
        column_blocks(a, oc0, COLUMN_BLOCKS, 1);
        break;
    }
  }
}

void etr_conv_pointwise_nchw_avx2(const etr_conv_pointwise_args_t *a) {
  if (a->pixels == 1 && a->columns != NULL) {
    one_pixel_columns(a);
    return;
  }
  if (a->pixels == 1) {
    one_pixel(a);
    return;
  }
  const int64_t n = a->pixels;
  const int64_t k = a->in_channels;
  const bool six = n < 256 || k >= 32;
  // On images of 512 pixels or more whose input rows all start at the
  // same offset in a cache line, the pixel blocks start at a line (the
  // first block's leading lanes masked off), as on AVX-512. With rows 32
  // bytes past a line 64x32x32 -> 64 (rows 4 KiB apart, all in one L1
  // set: a line read by two tiles was gone for the second) ran 143 us,
  // aligned 110; 16 bytes past: 113 against 100, and 16x32x32 -> 8 4.28
  // against 3.86. On smaller images the extra block cost more than that
  // (16x16x16 -> 72: 8.99 us against 7.29 unaligned).
  const int64_t lead =
      a->input_stride % 16 == 0 && n >= 512
          ? (int64_t)((uintptr_t)a->input / sizeof(float) % 16)
          : 0;
  // Inputs past 512 KiB (Zen 2's L2) in chunks of 64 KiB of pixels, each
  // read by every block of rows while it stays in L2: 64x56x56 -> 64 ran
  // 301 us in one pass, 270 in chunks.
  int64_t chunk = n + lead;
  if (k * n >= 128 * 1024) {
    chunk = 16 * 1024 / k / 48 * 48;  // a multiple of both tile widths
    chunk = chunk < 48 ? 48 : chunk;
  }
  for (int64_t j = -lead; j < n; j += chunk) {
    tiles(a, j, n - j <= chunk ? n : j + chunk, six);
  }
}

// SPDX-License-Identifier: Apache-2.0
//
// Pointwise (1x1, stride 1, no padding) NCHW convolution of one image,
// fp32, AVX-512 (conv.h): out[oc][p] = sum_c W[oc][c] x[c][p] + bias[oc],
// then the fused post. The models' pointwise layers are small (K = 8..192
// input channels, 16..1024 pixels, 0.3-5 us): through the GEMM driver each
// 12 x 32 tile was a microkernel call with its own setup, alpha and bias
// passes and, past 24 out channels, a packed copy of the input. Here the
// weight and input are read in place and the whole image is one call:
// tiles of R out channels by V vectors of 16 pixels keep R x V
// accumulators, start them at the bias (+0.0, so a -0.0 bias adds as the
// reference's sum + bias does) and run all of K before one masked store
// per row and vector. The tile shape follows the image:
//   * at most 16 pixels (4x4 planes): one vector per input channel, R =
//     16, 24, 12 or 8 out channels (the first that divides the out
//     channels; a remainder of fewer than 8 takes the general tile);
//   * otherwise 6 x 64, 8 x 48, 8 x 32 or 12 x 32 (24 or 16 accumulators),
//     whichever computes the fewest padding rows and lanes (tile_shape).
//
// Exactness: one fp32 FMA chain per output in k order from the bias, so
// small-integer data (every partial sum exact) gives the reference's bits.
#include <immintrin.h>

#include "ops_optimized/conv/conv.h"
#include "ops_optimized/conv/lanes_avx512.h"

#define MAX_ROWS 12
#define MAX_VECTORS 4

// Starts R accumulators (out channel i0 + r) at bias + 0.0, or zeros
// without a bias.
static inline __attribute__((always_inline)) void start_rows(
    const etr_conv_pointwise_args_t *a, int64_t i0, __m512 *acc, int R) {
  const __m512 zero = _mm512_setzero_ps();
  const float *bias = a->bias != NULL ? a->bias + i0 * a->bias_stride : NULL;
  const int64_t stride = a->bias_stride;
#pragma GCC unroll 24
  for (int r = 0; r < R; ++r) {
    acc[r] = bias != NULL
                 ? _mm512_add_ps(_mm512_set1_ps(bias[r * stride]), zero)
                 : zero;
  }
}

// Stores R accumulators (out channel i0 + r) through the fused post. The
// post's fields are read into locals first: its floats could alias `out`,
// and the compiler reloaded every field after each row's store.
static inline __attribute__((always_inline)) void store_rows(
    const etr_conv_pointwise_args_t *a, int64_t i0, const __m512 *acc,
    int R, __mmask16 mask) {
  float *out = a->out + i0 * a->out_stride;
  const int64_t stride = a->out_stride;
  const etr_conv_post_t *post = a->post;
  if (post == NULL) {
#pragma GCC unroll 24
    for (int r = 0; r < R; ++r) {
      _mm512_mask_storeu_ps(out + r * stride, mask, acc[r]);
    }
    return;
  }
  // As the GEMM microkernels' fused post.
  const float *scale = post->scale;
  const float *shift = post->shift;
  const int64_t channel = a->post_channel0 + i0;
  const __m512 low = _mm512_set1_ps(post->low);
  const __m512 high = _mm512_set1_ps(post->high);
#pragma GCC unroll 24
  for (int r = 0; r < R; ++r) {
    __m512 value = acc[r];
    if (scale != NULL) {
      value = _mm512_fmadd_ps(value, _mm512_set1_ps(scale[channel + r]),
                              _mm512_set1_ps(shift[channel + r]));
    }
    value = _mm512_min_ps(high, _mm512_max_ps(low, value));
    _mm512_mask_storeu_ps(out + r * stride, mask, value);
  }
}

// One tile: rows [i0, i0 + rows) (rows <= R; the missing rows repeat the
// last one's weights and are not stored) by pixels [j0, j0 + 16 V) masked
// to `masks`, one input channel per step. (Through start_rows and
// store_rows above it measured 2-5% slower on the 8x8..32x32 images.)
// `w` and `bias` hold the R rows' weight rows and biases, the same for
// every pixel block: worked out per tile, they were a quarter of a tile's
// time at 8 input channels (gemm_bench's 8x32x32 -> 48).
static inline __attribute__((always_inline)) void tile(
    const etr_conv_pointwise_args_t *a, const float *const *w,
    const float *bias, int64_t i0, int64_t rows, int64_t j0,
    const __mmask16 *masks, int R, int V) {
  __m512 acc[MAX_ROWS][MAX_VECTORS];
  const float *wr[MAX_ROWS];
#pragma GCC unroll 24
  for (int r = 0; r < R; ++r) {
    wr[r] = w[r];
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) {
      acc[r][v] = _mm512_set1_ps(bias[r]);
    }
  }
  const float *x = a->input + j0;
  const int64_t k_count = a->in_channels;
  const int64_t input_stride = a->input_stride;
  for (int64_t k = 0; k < k_count; ++k, x += input_stride) {
    __m512 xv[MAX_VECTORS];
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) {
      xv[v] = _mm512_maskz_loadu_ps(masks[v], x + 16 * v);
    }
#pragma GCC unroll 24
    for (int r = 0; r < R; ++r) {
      const __m512 wv = _mm512_set1_ps(wr[r][k]);
#pragma GCC unroll 4
      for (int v = 0; v < V; ++v) {
        acc[r][v] = _mm512_fmadd_ps(wv, xv[v], acc[r][v]);
      }
    }
  }
  const etr_conv_post_t *post = a->post;
  const int64_t out_stride = a->out_stride;
  float *out = a->out + i0 * out_stride + j0;
#pragma GCC unroll 24
  for (int r = 0; r < R; ++r, out += out_stride) {
    if (r >= rows) {
      break;
    }
#pragma GCC unroll 4
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

// The weight rows and biases (+0.0, so a -0.0 bias adds as the
// reference's sum + bias does) of rows [i0, i0 + rows) for tile(), the
// last repeated up to R.
static inline __attribute__((always_inline)) void tile_rows(
    const etr_conv_pointwise_args_t *a, int64_t i0, int64_t rows, int R,
    const float **w, float *bias) {
#pragma GCC unroll 24
  for (int r = 0; r < R; ++r) {
    int64_t row = i0 + (r < rows ? r : rows - 1);
    w[r] = a->weight + row * a->weight_stride;
    bias[r] = a->bias != NULL ? a->bias[row * a->bias_stride] + 0.0f : 0.0f;
  }
}

// All tiles of R rows by 16 V pixels. On images of 512 pixels or more
// whose input rows all start at the same offset in a cache line, the
// pixel blocks start at a line (the first block's leading lanes masked
// off): vector loads straddling two lines cost 10% on 16-byte aligned
// 32x32 images (gemm_bench's data); on smaller images the extra block
// cost more than that.
static inline __attribute__((always_inline)) void tiles(
    const etr_conv_pointwise_args_t *a, int R, int V) {
  const int64_t m = a->out_channels;
  const int64_t n = a->pixels;
  const int64_t lead =
      a->input_stride % 16 == 0 && n >= 512
          ? (int64_t)((uintptr_t)a->input / sizeof(float) % 16)
          : 0;
  for (int64_t i0 = 0; i0 < m; i0 += R) {
    const int64_t rows = m - i0 < R ? m - i0 : R;
    const float *w[MAX_ROWS];
    float bias[MAX_ROWS];
    tile_rows(a, i0, rows, R, w, bias);
    for (int64_t j0 = -lead; j0 < n; j0 += 16 * V) {
      __mmask16 masks[MAX_VECTORS];
#pragma GCC unroll 4
      for (int v = 0; v < V; ++v) {
        masks[v] = lanes_between(-(j0 + 16 * v), n - (j0 + 16 * v));
      }
      tile(a, w, bias, i0, rows, j0, masks, R, V);
    }
  }
}

// Images of at most 16 pixels (4x4 planes): each input channel is one
// vector, so R out channels keep their accumulators over all of K while
// C input channels at a time are loaded and every weight is broadcast
// against them. Input rows are reloaded per group of R out channels from
// L1, which measured faster than carrying partial sums through `out`.
//
// A full tile of R rows (a multiple of 4) from out channel i0:
// the weight rows are addressed as 4-row groups, one pointer per group
// plus the row stride times 0..3 in the addressing mode, and the input
// rows likewise (C = 4 or 8 channels per step). The empty asm makes the
// strides opaque in the loop so the compiler does not turn each of the R
// rows into a pointer of its own (it spilled them past 12 rows).
#define GROUPS_MAX 6
static inline __attribute__((always_inline)) void small_full_tile(
    const etr_conv_pointwise_args_t *a, int64_t i0, __mmask16 mask, int R,
    int C) {
  const int64_t k = a->in_channels;
  int64_t rs = a->weight_stride * (int64_t)sizeof(float);
  int64_t rs3 = 3 * rs;
  int64_t is = a->input_stride * (int64_t)sizeof(float);
  int64_t is3 = 3 * is;
  const char *q[GROUPS_MAX];
  __m512 acc[24];
#pragma GCC unroll 6
  for (int j = 0; j < R / 4; ++j) {
    q[j] = (const char *)(a->weight + (i0 + 4 * j) * a->weight_stride);
  }
  start_rows(a, i0, acc, R);
  const char *x = (const char *)a->input;
  int64_t k0 = 0;
  for (; k0 + C <= k; k0 += C) {
    __asm__("" : "+r"(rs), "+r"(rs3), "+r"(is), "+r"(is3));
    const int64_t row_offset[4] = {0, rs, 2 * rs, rs3};
    const int64_t in_offset[4] = {0, is, 2 * is, is3};
    const char *x4 = x + 4 * is;
    __m512 xv[8];
#pragma GCC unroll 8
    for (int c = 0; c < C; ++c) {
      xv[c] = _mm512_maskz_loadu_ps(
          mask, (const float *)((c < 4 ? x : x4) + in_offset[c & 3]));
    }
#pragma GCC unroll 8
    for (int c = 0; c < C; ++c) {
#pragma GCC unroll 24
      for (int r = 0; r < R; ++r) {
        const float *wp = (const float *)(q[r / 4] + row_offset[r & 3]);
        acc[r] = _mm512_fmadd_ps(_mm512_set1_ps(wp[c]), xv[c], acc[r]);
      }
    }
#pragma GCC unroll 6
    for (int j = 0; j < R / 4; ++j) {
      q[j] += C * sizeof(float);
    }
    x += C * is;
  }
  for (; k0 < k; ++k0) {
    __asm__("" : "+r"(rs), "+r"(rs3));
    const int64_t row_offset[4] = {0, rs, 2 * rs, rs3};
    const __m512 xv = _mm512_maskz_loadu_ps(mask, (const float *)x);
#pragma GCC unroll 24
    for (int r = 0; r < R; ++r) {
      const float *wp = (const float *)(q[r / 4] + row_offset[r & 3]);
      acc[r] = _mm512_fmadd_ps(_mm512_set1_ps(*wp), xv, acc[r]);
    }
#pragma GCC unroll 6
    for (int j = 0; j < R / 4; ++j) {
      q[j] += sizeof(float);
    }
    x += is;
  }
  store_rows(a, i0, acc, R, mask);
}

static inline __attribute__((always_inline)) void small_image_rows(
    const etr_conv_pointwise_args_t *a, int R, int C) {
  const int64_t m = a->out_channels;
  const __mmask16 mask = first_lanes(a->pixels);
  int64_t i0 = 0;
  for (; i0 + R <= m; i0 += R) {
    small_full_tile(a, i0, mask, R, C);
  }
  if (i0 < m) {  // fewer than 8 rows left (R = 8)
    const float *w[MAX_ROWS];
    float bias[MAX_ROWS];
    tile_rows(a, i0, m - i0, 8, w, bias);
    tile(a, w, bias, i0, m - i0, 0, &mask, 8, 1);
  }
}

static void small_image(const etr_conv_pointwise_args_t *a) {
  const int64_t m = a->out_channels;
  if (m % 16 == 0) {
    small_image_rows(a, 16, 8);
  } else if (m % 24 == 0) {
    small_image_rows(a, 24, 4);
  } else if (m % 12 == 0) {
    small_image_rows(a, 12, 8);
  } else {
    small_image_rows(a, 8, 8);
  }
}

// One pixel: B vectors of 16 out channels from oc0, each lane the S
// chains conv.h states (chain j the input channels k = j mod S; S =
// etr_conv_one_pixel_chains), then the post as store_rows applies it.
// Input channel k's weights come from the weight packed as columns
// (etr_conv_columns_pack, at load: one load per vector) or, unpacked,
// gathered from the weight rows: the same sums either way. Before,
// each out channel took a vector with one useful lane and a broadcast
// weight per input channel: mobilenet_v3's 96 -> 24 squeeze-and-excitation
// layer ran 465 ns (the bench's m-convolution-out-e483daab on the Intel
// Xeon of 2026-12-03); with columns and one chain it waited out 96
// dependent FMAs (92 ns on the Zen 4 of 2026-12-05, 66 with two).
#define COLUMN_BLOCKS 8
#define COLUMN_CHAINS 4

// acc + (weights at p) x xv. `gather`: lane l's weight at p[l * stride]
// (`lanes` of them; index[h] = (8 h + l) * stride, 64-bit: any row
// stride), else p[l]. `half`: the lanes past 8 are neither read nor
// stored; 256-bit FMAs (loading 32 columns for 24 out channels kept the
// 96 -> 24 layer at 77 ns, load-bound: 66 so).
static inline __attribute__((always_inline)) __m512 fma_column(
    const float *p, __m512 xv, __m512 acc, const bool half,
    const bool gather, const __m512i *index, __mmask16 lanes) {
  __m256 low;
  if (gather) {
    low = _mm512_mask_i64gather_ps(_mm256_setzero_ps(), (__mmask8)lanes,
                                   index[0], p, 4);
  } else {
    low = _mm256_loadu_ps(p);
  }
  if (half) {  // lanes 8..15 undefined: never stored
    return _mm512_castps256_ps512(_mm256_fmadd_ps(
        low, _mm512_castps512_ps256(xv), _mm512_castps512_ps256(acc)));
  }
  if (!gather) {
    return _mm512_fmadd_ps(_mm512_loadu_ps(p), xv, acc);
  }
  const __m256 high = _mm512_mask_i64gather_ps(
      _mm256_setzero_ps(), (__mmask8)(lanes >> 8), index[1], p, 4);
  return _mm512_fmadd_ps(
      _mm512_insertf32x8(_mm512_castps256_ps512(low), high, 1), xv, acc);
}

static inline __attribute__((always_inline)) void column_blocks(
    const etr_conv_pointwise_args_t *a, int64_t oc0, const int B,
    const int S, const bool half, const bool gather) {
  const int64_t m = a->out_channels;
  const etr_conv_post_t *post = a->post;
  // Input channel k's weights of vector b at column + b * block once
  // column has moved k steps.
  const int64_t step = gather ? 1 : etr_conv_columns_pitch(m);
  const int64_t block = gather ? 16 * a->weight_stride : 16;
  const float *column =
      gather ? a->weight + oc0 * a->weight_stride : a->columns + oc0;
  const __m512i stride = _mm512_set1_epi64(a->weight_stride);
  const __m512i index[2] = {
      _mm512_mullo_epi64(stride, _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7)),
      _mm512_mullo_epi64(stride,
                         _mm512_setr_epi64(8, 9, 10, 11, 12, 13, 14, 15))};
  __m512 acc[COLUMN_CHAINS][COLUMN_BLOCKS];
  __mmask16 lanes[COLUMN_BLOCKS];
#pragma GCC unroll 8
  for (int b = 0; b < B; ++b) {
    const int64_t first = oc0 + 16 * b;
    lanes[b] = first_lanes(m - first);
    __m512 bias = _mm512_setzero_ps();
    if (a->bias != NULL && a->bias_stride == 1) {
      bias = _mm512_maskz_loadu_ps(lanes[b], a->bias + first);
    } else if (a->bias != NULL) {
      _Alignas(64) float values[16] = {0.0f};
      for (int64_t j = 0; j < 16 && first + j < m; ++j) {
        values[j] = a->bias[(first + j) * a->bias_stride];
      }
      bias = _mm512_load_ps(values);
    }
    acc[0][b] = _mm512_add_ps(bias, _mm512_setzero_ps());
#pragma GCC unroll 4
    for (int j = 1; j < S; ++j) {
      acc[j][b] = _mm512_setzero_ps();
    }
  }
  const float *x = a->input;
  const int64_t x_stride = a->input_stride;
  const int64_t in = a->in_channels;
  // x and column move one input channel at a time (indexed from k, the
  // loop kept its counters and addresses on the stack).
  int64_t k = 0;
  for (; k + S <= in; k += S) {
#pragma GCC unroll 4
    for (int j = 0; j < S; ++j) {
      const __m512 xv = _mm512_set1_ps(*x);
#pragma GCC unroll 8
      for (int b = 0; b < B; ++b) {
        acc[j][b] = fma_column(column + b * block, xv, acc[j][b],
                               half && b == B - 1, gather, index, lanes[b]);
      }
      x += x_stride;
      column += step;
    }
  }
  // The last in % S channels (j a constant: a variable index would put
  // acc in memory).
#pragma GCC unroll 4
  for (int j = 0; j < S - 1; ++j) {
    if (k + j < in) {
      const __m512 xv = _mm512_set1_ps(*x);
#pragma GCC unroll 8
      for (int b = 0; b < B; ++b) {
        acc[j][b] = fma_column(column + b * block, xv, acc[j][b],
                               half && b == B - 1, gather, index, lanes[b]);
      }
      x += x_stride;
      column += step;
    }
  }
#pragma GCC unroll 8
  for (int b = 0; b < B; ++b) {
    const int64_t first = oc0 + 16 * b;
    __m512 value = acc[0][b];
    if (S == 2) {
      value = _mm512_add_ps(acc[0][b], acc[1][b]);
    } else if (S == 4) {
      value = _mm512_add_ps(_mm512_add_ps(acc[0][b], acc[1][b]),
                            _mm512_add_ps(acc[2][b], acc[3][b]));
    }
    if (post != NULL) {
      if (post->scale != NULL) {
        const int64_t channel = a->post_channel0 + first;
        value = _mm512_fmadd_ps(
            value, _mm512_maskz_loadu_ps(lanes[b], post->scale + channel),
            _mm512_maskz_loadu_ps(lanes[b], post->shift + channel));
      }
      value = _mm512_min_ps(_mm512_set1_ps(post->high),
                            _mm512_max_ps(_mm512_set1_ps(post->low), value));
    }
    float *out = a->out + first * a->out_stride;
    if (a->out_stride == 1) {
      _mm512_mask_storeu_ps(out, lanes[b], value);
    } else {
      _Alignas(64) float values[16];
      _mm512_store_ps(values, value);
      for (int64_t j = 0; j < 16 && first + j < m; ++j) {
        out[j * a->out_stride] = values[j];
      }
    }
  }
}

// At most 32 out channels (4 chains), the weight packed or not.
// Not inlined: inside the dispatcher with every tile kernel, the loop
// kept its addresses and counters on the stack.
static __attribute__((noinline)) void few_columns(
    const etr_conv_pointwise_args_t *a, const bool gather) {
  const int64_t m = a->out_channels;
  if (m <= 8) {
    column_blocks(a, 0, 1, 4, true, gather);
  } else if (m <= 16) {
    column_blocks(a, 0, 1, 4, false, gather);
  } else if (m <= 24) {
    column_blocks(a, 0, 2, 4, true, gather);
  } else {
    column_blocks(a, 0, 2, 4, false, gather);
  }
}

// More than 32 out channels (one chain), the weight packed.
static void many_columns(const etr_conv_pointwise_args_t *a) {
  const int64_t m = a->out_channels;
  for (int64_t oc0 = 0; oc0 < m; oc0 += 16 * COLUMN_BLOCKS) {
    switch ((m - oc0 + 15) / 16) {
      case 1:
        column_blocks(a, oc0, 1, 1, false, false);
        break;
      case 2:
        column_blocks(a, oc0, 2, 1, false, false);
        break;
      case 3:
        column_blocks(a, oc0, 3, 1, false, false);
        break;
      case 4:
        column_blocks(a, oc0, 4, 1, false, false);
        break;
      case 5:
        column_blocks(a, oc0, 5, 1, false, false);
        break;
      case 6:
        column_blocks(a, oc0, 6, 1, false, false);
        break;
      case 7:
        column_blocks(a, oc0, 7, 1, false, false);
        break;
      default:
        column_blocks(a, oc0, COLUMN_BLOCKS, 1, false, false);
        break;
    }
  }
}

// The tile for images past 16 pixels: of 6 x 4, 8 x 3, 8 x 2 and 12 x 2
// (rows x vectors of 16 pixels; 24 accumulators but for 8 x 2's 16), the
// one with the least work once the out channels are rounded up to its
// rows and the pixels to its width, 8 x 2 and 12 x 2 (14 loads a step
// for 24 FMAs where 6 x 4 takes 10) counted 10% dearer, about what they
// measured per FMA; up to 16 out channels only those two (two 6-row
// tiles read a large input twice). The rule before took 8 x 2 or 12 x 2
// alone; paired runs of the benchmark's one-layer programs
// (bench_server, AVX-512 Xeon of 2026-12-06): mobilenet_v2's 12x16x16
// -> 72 3.31 -> 3.05 us, mobilenet_v3's 16x16x16 -> 72 4.25 -> 3.97
// and 16x8x8 -> 96 1.39 -> 1.32 (6 x 4), the others the same within
// the noise (8x32x32 -> 48, 6 x 4 now, 6.4-6.8 us both ways).
typedef enum { TILE_6X4, TILE_8X3, TILE_8X2, TILE_12X2 } tile_shape_t;

// m x n rounded up to rows x width, times `weight` tenths (inlined with
// constant rows and width: no division instructions, which took 4% of
// a 16x16 -> 16 layer's 0.9 us).
static inline __attribute__((always_inline)) int64_t padded_work(
    int64_t m, int64_t n, const int64_t rows, const int64_t width,
    const int64_t weight) {
  return (m + rows - 1) / rows * rows * ((n + width - 1) / width * width) *
         weight;
}

static tile_shape_t tile_shape(int64_t m, int64_t n) {
  if (m <= 16) {
    return padded_work(m, n, 8, 32, 1) <= padded_work(m, n, 12, 32, 1)
               ? TILE_8X2
               : TILE_12X2;
  }
  const int64_t cost[4] = {
      padded_work(m, n, 6, 64, 10), padded_work(m, n, 8, 48, 10),
      padded_work(m, n, 8, 32, 11), padded_work(m, n, 12, 32, 11)};
  int best = TILE_6X4;
  for (int i = TILE_8X3; i <= TILE_12X2; ++i) {
    if (cost[i] < cost[best]) {
      best = i;
    }
  }
  return (tile_shape_t)best;
}

void etr_conv_pointwise_nchw_avx512(const etr_conv_pointwise_args_t *a) {
  if (a->pixels == 1 &&
      etr_conv_one_pixel_chains(ETR_ISA_AVX512, a->out_channels) > 1) {
    few_columns(a, a->columns == NULL);
  } else if (a->pixels == 1 && a->columns != NULL) {
    many_columns(a);
  } else if (a->pixels <= 16) {
    small_image(a);
  } else {
    switch (tile_shape(a->out_channels, a->pixels)) {
      case TILE_6X4:
        tiles(a, 6, 4);
        break;
      case TILE_8X3:
        tiles(a, 8, 3);
        break;
      case TILE_8X2:
        tiles(a, 8, 2);
        break;
      default:
        tiles(a, 12, 2);
        break;
    }
  }
}

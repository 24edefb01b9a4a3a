// SPDX-License-Identifier: Apache-2.0
//
// A CNN's first layer, NCHW, AVX2 + FMA (conv.h): square k x k kernels, k
// from 2 to 7, dilation 1, stride 1 or 2 both ways, at most 3 input
// channels, unit column stride, rows of at least 8 outputs. The AVX-512
// band kernel (stem_avx512.c) on eight-float vectors: the rows a tile of
// 3 output rows reads are first copied, per input channel and chunk of
// CHUNK output columns, into a stack band padded with zeros and, at
// stride 2, split into even and odd columns. Every tap of a tile is then
// one unaligned load at a constant offset from the band, shared by the
// FMAs of 4 out channels (12 accumulators, 3 row vectors and a broadcast
// weight: the 16 ymm registers; the taps are an assembly loop, below).
// Through the pixel tiles (pixels_avx2.c) mobilenet_v2's 3x64x64 -> 16
// stride-2 stem took 23.4 us (38 GFLOP/s): with K = 27 the transposes of
// its epilogue cost more than its FMAs. Here (conv_kernel_bench, Zen 2,
// FMA peak 92 GFLOP/s): 17.0 us (52 GFLOP/s), 3x224x224 -> 32 stride 2
// 65 GFLOP/s, ResNet's 7x7 (3x96x96 -> 32) 91 GFLOP/s. What the 3x3
// stems lose is the band copy (about a fifth of their time: an even/odd
// split per row of 8 outputs) and each tile's start and stores against
// only 27 taps.
// The band's zeros stand for the padding taps, which add nothing: padded
// convolutions with a non-finite weight never come here
// (op_convolution.c). Band rows below the image are zeros, and the
// outputs they feed (past the last output row) are not stored.
//
// Each output is one FMA chain from its bias (+0.0 without one) in
// (channel, kh, kw) order, then the fused post (post_avx2.c's bits), so
// small-integer data gives the reference's bits.
#include <immintrin.h>

#include "ops_optimized/common/mask_avx2.h"
#include "ops_optimized/conv/conv.h"

#define CHUNK 128            // output columns per band (64: 3x224 s2 5% slower)
#define SPAN (CHUNK + 8)     // a band row (one parity at stride 2)
#define MAX_K 7
#define TILE_ROWS 3
#define TILE_OUTS 4
#define BAND_ROWS ((TILE_ROWS - 1) * 2 + MAX_K)  // at stride 2
#define MAX_CHANNELS 3
#define OUT_BLOCK 32  // out channels per weight table
#define WEIGHTS (OUT_BLOCK * MAX_CHANNELS * MAX_K * MAX_K)

bool etr_conv_stem_nchw_avx2_applies(const etr_conv2d_geometry_t *g) {
  const int64_t k = g->kernel_w;
  return g->kernel_h == k && k >= 2 && k <= MAX_K && g->dilation_h == 1 &&
         g->dilation_w == 1 && g->channels >= 1 &&
         g->channels <= MAX_CHANNELS && g->stride_h == g->stride_w &&
         (g->stride_w == 1 || g->stride_w == 2) && g->in_stride_w == 1 &&
         g->out_w >= 8 && g->pad_w >= 0 && g->pad_h >= 0;
}

// Lanes t of the 8 input columns [first, first + 8) that lie in
// [0, in_w).
static inline __m256i columns_inside(int64_t first, int64_t in_w) {
  const __m256i iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const int64_t lo = first < 0 ? -first : 0;  // lanes from lo on
  const int64_t hi = in_w - first < 8 ? in_w - first : 8;  // before hi
  return _mm256_andnot_si256(
      _mm256_cmpgt_epi32(_mm256_set1_epi32((int32_t)(lo < 8 ? lo : 8)),
                         iota),
      _mm256_cmpgt_epi32(_mm256_set1_epi32((int32_t)(hi > 0 ? hi : 0)),
                         iota));
}

// Input columns [at, at + 8) of a row, zeros outside [0, in_w): masked-off
// lanes are not read (`from + at` may point before the row).
static inline __m256 load_columns(const float *from, int64_t at,
                                  int64_t in_w) {
  if (at >= 0 && at + 8 <= in_w) {
    return _mm256_loadu_ps(from + at);
  }
  return _mm256_maskload_ps(from + at, columns_inside(at, in_w));
}

// Band row of input row `ih` (zeros outside the image) for the output
// columns [ow_c, ow_c + span) (span a multiple of 8, at most SPAN): at
// stride 1 input columns ow_c - pad + j, at stride 2 the even ones
// 2 (ow_c + j) - pad in row[j] and the odd ones in row[SPAN + j].
static inline __attribute__((always_inline)) void copy_row(
    const etr_conv2d_geometry_t *g, const float *plane, int64_t ih,
    int64_t ow_c, int64_t span, float *row) {
  const int64_t stride = g->stride_w;
  const int64_t first = ow_c * stride - g->pad_w;
  if (ih < 0 || ih >= g->in_h) {
    for (int64_t j = 0; j < span; j += 8) {
      _mm256_storeu_ps(row + j, _mm256_setzero_ps());
      _mm256_storeu_ps(row + (stride - 1) * SPAN + j, _mm256_setzero_ps());
    }
    return;
  }
  const float *from = plane + ih * g->in_stride_h;
  for (int64_t j = 0; j < span; j += 8) {
    const int64_t at = first + j * stride;
    const __m256 lo = load_columns(from, at, g->in_w);
    if (stride == 1) {
      _mm256_storeu_ps(row + j, lo);
      continue;
    }
    // Even and odd columns of 16: the in-lane shuffle leaves
    // [0 2 8 10 | 4 6 12 14]; the 64-bit permute puts pairs in order.
    const __m256 hi = load_columns(from, at + 8, g->in_w);
    const __m256 even = _mm256_shuffle_ps(lo, hi, 0x88);
    const __m256 odd = _mm256_shuffle_ps(lo, hi, 0xdd);
    _mm256_storeu_ps(row + j, _mm256_castpd_ps(_mm256_permute4x64_pd(
                                  _mm256_castps_pd(even), 0xd8)));
    _mm256_storeu_ps(row + SPAN + j, _mm256_castpd_ps(_mm256_permute4x64_pd(
                                         _mm256_castps_pd(odd), 0xd8)));
  }
}

// The fused post in registers: post_avx2.c's post_vector.
typedef struct stem_post {
  bool affine;
  bool clamp;
  const float *scale;
  const float *shift;
  __m256 low;
  __m256 high;
} stem_post_t;

// All taps of a tile: for tap t, the 3 row vectors at x + offsets[t]
// bytes (row r at x_r) times the 4 weights at w + 4 t, into acc[r][o].
// In assembly: with 12 accumulators, 3 row vectors and a broadcast weight
// the tile needs all 16 ymm registers, and GCC's allocator spilled and
// shuffled accumulators for every arrangement of the intrinsics we tried
// (3x64x64 -> 16 stride 2: 23.4 us; 19.6 with -fira-algorithm=priority;
// 20.1 with one asm block per tap; 17.2 with this loop). The loop reads
// only the band and the weight table, at offsets the caller computed.
#define FMA_ROWS(o)                                       \
  "vbroadcastss " #o "*4(%[w]), %%ymm15\n\t"             \
  "vfmadd231ps %%ymm12, %%ymm15, %[a0" #o "]\n\t"        \
  "vfmadd231ps %%ymm13, %%ymm15, %[a1" #o "]\n\t"        \
  "vfmadd231ps %%ymm14, %%ymm15, %[a2" #o "]\n\t"
#define START(o)                                          \
  "vbroadcastss " #o "*4(%[start]), %[a0" #o "]\n\t"      \
  "vmovaps %[a0" #o "], %[a1" #o "]\n\t"                   \
  "vmovaps %[a0" #o "], %[a2" #o "]\n\t"
static inline __attribute__((always_inline)) void sum_taps(
    const float *start, const float *x0, const float *x1, const float *x2,
    const int64_t *offsets, int64_t count, const float *w,
    __m256 acc[TILE_ROWS][TILE_OUTS]) {
  int64_t t;
  // (The sums start from start[o] inside the block: 12 read-write
  // operands would count twice against GCC's limit of 30.)
  __asm__(
      START(0) START(1) START(2) START(3)
      "1:\n\t"
      "movq (%[off]), %[t]\n\t"
      "vmovups (%[x0],%[t]), %%ymm12\n\t"
      "vmovups (%[x1],%[t]), %%ymm13\n\t"
      "vmovups (%[x2],%[t]), %%ymm14\n\t"
      FMA_ROWS(0) FMA_ROWS(1) FMA_ROWS(2) FMA_ROWS(3)
      "addq $16, %[w]\n\t"
      "addq $8, %[off]\n\t"
      "subq $1, %[n]\n\t"
      "jnz 1b\n\t"
      : [a00] "=&x"(acc[0][0]), [a01] "=&x"(acc[0][1]),
        [a02] "=&x"(acc[0][2]), [a03] "=&x"(acc[0][3]),
        [a10] "=&x"(acc[1][0]), [a11] "=&x"(acc[1][1]),
        [a12] "=&x"(acc[1][2]), [a13] "=&x"(acc[1][3]),
        [a20] "=&x"(acc[2][0]), [a21] "=&x"(acc[2][1]),
        [a22] "=&x"(acc[2][2]), [a23] "=&x"(acc[2][3]), [w] "+r"(w),
        [off] "+r"(offsets), [n] "+r"(count), [t] "=&r"(t)
      : [start] "r"(start), [x0] "r"(x0), [x1] "r"(x1), [x2] "r"(x2)
      : "xmm12", "xmm13", "xmm14", "xmm15", "memory", "cc");
}
#undef START
#undef FMA_ROWS

// Out channels [oc, oc + outs) (outs <= 4), rows [oh0, oh0 + 3), columns
// [ow, ow + count), from the band (moved to column ow) of a k x k kernel;
// w holds the 4 channels' weights of each (c, kh, kw) side by side.
static inline __attribute__((always_inline)) void tile(
    const etr_depthwise_args_t *args, const stem_post_t *post,
    const float *band, const int64_t *offsets, const float *w, int64_t k,
    int64_t stride, int64_t channels, int64_t oc, int64_t outs, int64_t oh0,
    int64_t ow, int64_t count) {
  const etr_conv2d_geometry_t *g = args->geometry;
  __m256 acc[TILE_ROWS][TILE_OUTS];
  // The sums start from the bias + 0.0 (as the reference's sum + bias
  // adds a -0.0 bias); channels past `outs` from 0 and are not stored.
  float start[TILE_OUTS];
#pragma GCC unroll 4
  for (int o = 0; o < TILE_OUTS; ++o) {
    start[o] = args->bias != NULL && o < outs
                   ? args->bias[(oc + o) * args->bias_stride] + 0.0f
                   : 0.0f;
  }
  const int64_t row = stride == 1 ? SPAN : 2 * SPAN;
  sum_taps(start, band, band + stride * row, band + 2 * stride * row,
           offsets, channels * k * k, w, acc);
  if (post->affine || post->clamp) {
#pragma GCC unroll 4
    for (int o = 0; o < TILE_OUTS; ++o) {
      const __m256 alpha =
          _mm256_set1_ps(post->affine && o < outs ? post->scale[oc + o] : 1);
      const __m256 beta =
          _mm256_set1_ps(post->affine && o < outs ? post->shift[oc + o] : 0);
#pragma GCC unroll 3
      for (int r = 0; r < TILE_ROWS; ++r) {
        __m256 v = acc[r][o];
        if (post->affine) {
          v = _mm256_fmadd_ps(v, alpha, beta);
        }
        if (post->clamp) {
          v = _mm256_min_ps(post->high, _mm256_max_ps(post->low, v));
        }
        acc[r][o] = v;
      }
    }
  }
  const __m256i lanes = _mm256_cmpgt_epi32(
      _mm256_set1_epi32((int32_t)count),
      _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
#pragma GCC unroll 3
  for (int r = 0; r < TILE_ROWS; ++r) {
    if (oh0 + r >= g->out_h) {
      break;
    }
#pragma GCC unroll 4
    for (int o = 0; o < TILE_OUTS; ++o) {
      if (o >= outs) {
        break;
      }
      etr_avx2_maskstore_ps(args->out + (oc + o) * args->out_stride_c +
                                (oh0 + r) * args->out_stride_h + ow,
                            lanes, acc[r][o]);
    }
  }
}

// All tiles of out channels [oc0, oc0 + outs) (outs <= OUT_BLOCK).
static inline __attribute__((always_inline)) void block(
    const etr_depthwise_args_t *args, const stem_post_t *post, int64_t k,
    int64_t stride, int64_t channels, int64_t oc0, int64_t outs) {
  const etr_conv2d_geometry_t *g = args->geometry;
  const int64_t taps = k * k;
  // Weights of 4 out channels per (c, kh, kw), zeros past the last one.
  _Alignas(32) float weights[WEIGHTS];
  for (int64_t o4 = 0; o4 < outs; o4 += TILE_OUTS) {
    float *w = weights + o4 * channels * taps;
    for (int64_t c = 0; c < channels; ++c) {
      for (int64_t kh = 0; kh < k; ++kh) {
        for (int64_t kw = 0; kw < k; ++kw, w += TILE_OUTS) {
          const float *from = args->weight + (oc0 + o4) * g->w_stride_oc +
                              c * g->w_stride_c + kh * g->w_stride_h +
                              kw * g->w_stride_w;
          for (int64_t o = 0; o < TILE_OUTS; ++o) {
            w[o] = o4 + o < outs ? from[o * g->w_stride_oc] : 0.0f;
          }
        }
      }
    }
  }
  const int64_t row = stride == 1 ? SPAN : 2 * SPAN;
  // Byte offset of tap (c, kh, kw) in the band, in the weights' order.
  int64_t offsets[MAX_CHANNELS * MAX_K * MAX_K];
  for (int64_t c = 0, t = 0; c < channels; ++c) {
    for (int64_t kh = 0; kh < k; ++kh) {
      for (int64_t kw = 0; kw < k; ++kw, ++t) {
        const int64_t column = stride == 1 ? kw : (kw & 1) * SPAN + kw / 2;
        offsets[t] = ((c * BAND_ROWS + kh) * row + column) *
                     (int64_t)sizeof(float);
      }
    }
  }
  _Alignas(32) float band[MAX_CHANNELS * BAND_ROWS * 2 * SPAN];
  const int64_t band_rows = (TILE_ROWS - 1) * stride + k;
  for (int64_t ow_c = 0; ow_c < g->out_w; ow_c += CHUNK) {
    const int64_t width = g->out_w - ow_c < CHUNK ? g->out_w - ow_c : CHUNK;
    // The columns the tiles read: 8 past their last vector.
    const int64_t span = (width + 7) / 8 * 8 + 8;
    for (int64_t oh0 = 0; oh0 < g->out_h; oh0 += TILE_ROWS) {
      for (int64_t c = 0; c < channels; ++c) {
        for (int64_t b = 0; b < band_rows; ++b) {
          copy_row(g, args->input + c * g->in_stride_c,
                   oh0 * stride - g->pad_h + b, ow_c, span,
                   band + (c * BAND_ROWS + b) * row);
        }
      }
      for (int64_t o4 = 0; o4 < outs; o4 += TILE_OUTS) {
        const int64_t n = outs - o4 < TILE_OUTS ? outs - o4 : TILE_OUTS;
        for (int64_t ow = 0; ow < width; ow += 8) {
          tile(args, post, band + ow, offsets,
               weights + o4 * channels * taps, k, stride, channels, oc0 + o4,
               n, oh0, ow_c + ow, width - ow < 8 ? width - ow : 8);
        }
      }
    }
  }
}

void etr_conv_stem_nchw_avx2_post(const etr_depthwise_args_t *args,
                                  const etr_conv_post_t *post) {
  const etr_conv2d_geometry_t *g = args->geometry;
  const int64_t k = g->kernel_w;
  const stem_post_t p = {
      .affine = post != NULL && post->scale != NULL,
      .clamp = post != NULL,
      .scale = post != NULL ? post->scale : NULL,
      .shift = post != NULL ? post->shift : NULL,
      .low = _mm256_set1_ps(post != NULL ? post->low : 0.0f),
      .high = _mm256_set1_ps(post != NULL ? post->high : 0.0f),
  };
  for (int64_t oc0 = 0; oc0 < args->channels; oc0 += OUT_BLOCK) {
    const int64_t outs = args->channels - oc0 < OUT_BLOCK
                             ? args->channels - oc0
                             : OUT_BLOCK;
    // Constant kernel, stride and channels: every loop of a tile unrolled
    // (the 3x3 stems and ResNet's 7x7 stride 2 on 3 channels).
    if (k == 3 && g->stride_w == 2 && g->channels == 3) {
      block(args, &p, 3, 2, 3, oc0, outs);
    } else if (k == 3 && g->channels == 3) {
      block(args, &p, 3, 1, 3, oc0, outs);
    } else if (k == 7 && g->stride_w == 2 && g->channels == 3) {
      block(args, &p, 7, 2, 3, oc0, outs);
    } else if (g->stride_w == 1) {
      block(args, &p, k, 1, g->channels, oc0, outs);
    } else {
      block(args, &p, k, 2, g->channels, oc0, outs);
    }
  }
}

void etr_conv_stem_nchw_avx2(const etr_depthwise_args_t *args) {
  etr_conv_stem_nchw_avx2_post(args, NULL);
}

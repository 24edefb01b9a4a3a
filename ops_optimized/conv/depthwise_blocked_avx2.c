// SPDX-License-Identifier: Apache-2.0
//
// Depthwise convolution, NCHW, AVX2 + FMA, eight channels per vector
// (conv.h). The per-channel paths of depthwise_avx2.c spend most of a
// small plane's time on masks, gathers and row tails: a 4x4 out plane is
// two vectors, each tap a shuffle. Here eight channels' input planes are
// transposed once into one zero-padded tile of pixels (8 channels per
// pixel, the channels of an 8 x 8 block moved with in-lane shuffles) and
// every tap of every out pixel is then one aligned load at a constant
// offset times one vector of the eight channels' weights; up to 12 out
// pixels (1 to 3 out rows) accumulate at once, whatever the row width.
// On rows of 7 or more with 3, 5 or 7 taps a kernel row, each input
// pixel is loaded once per kernel row for all the out pixels it feeds
// (out_row_reuse): conv_kernel_bench on Zen 2, 192x28x28 s1 98 -> 82 us,
// 672x14x14 5x5 155 -> 137, 120x28x28 5x5 107 -> 85, 72x56x56 5x5 s2
// 87 -> 74; with 7 taps 32x56x56 and 32x112x112 s2 7-8% (paired.py).
// The out pixels go to a second tile and are transposed back to the
// channels' planes, the fused post (when given) applied on the way.
// Planes too large for the tiles go in bands of out rows (at least
// MIN_BAND), each band's input rows copied into the tile in turn: the
// rows two bands share are copied twice. Against the kernels that took
// such planes before (conv_kernel_bench on Zen 2, us): 72x56x56 5x5 s2
// 173 -> 85 (phase planes of depthwise_avx2.c), 32x56x56 7x7 s1 278 ->
// 180, 16x112x112 5x5 s1 307 -> 222; 144x56x56 s2 1.52x and 96x112x112
// s2 1.21x the rows kernel (paired.py, 7 rounds).
//
// The sums are those of the flat path: one FMA chain per output in (kh,
// kw) order from +0.0, then + bias, then the post. Padding taps multiply
// the tile's zeros, which leaves such a sum unchanged for the finite
// weights the op sends here (conv.h). Channel tails (channels % 8) read
// the last channel again and write only the real ones.
#include <immintrin.h>
#include <stdbool.h>
#include <stdint.h>

#include "ops_optimized/conv/conv.h"

#define TILE_FLOATS 12288  // the padded input pixels of 8 channels
#define OUT_FLOATS 8192    // their out pixels
#define MAX_TAPS 64
#define MAX_DIM 4096  // every geometry size, so products stay small
// The fewest out rows a band may have: thinner bands copy the rows they
// share with the next band too often (conv_kernel_bench on Zen 2,
// 16x224x224 s2 in bands of 2: 224 us against the rows kernel's 183).
#define MIN_BAND 4

typedef struct blocked {
  const etr_conv2d_geometry_t *g;
  int64_t rows;   // padded input rows in the tile
  int64_t width;  // padded input pixels per tile row
  int64_t taps;
  int64_t offsets[MAX_TAPS];  // tap (kh, kw), floats from the first tap
  float *tile;                // rows x width x 8
  float *outs;                // out_h x out_w x 8
  _Alignas(32) float weights[MAX_TAPS * 8];
  _Alignas(32) float bias[8];
  _Alignas(32) float scale[8];
  _Alignas(32) float shift[8];
  bool has_bias;
  bool affine;
  bool clamp;
  float low;
  float high;
  int64_t band;  // out rows per band
  bool whole;    // the whole plane in one band, every input row copied
} blocked_t;

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

// The tile's width (what the taps reach, and at least the padding plus
// the input, whose pixels are all copied) and the out rows of a band
// with its tile rows: the whole plane when it fits the tiles (rows: what
// the taps reach, and at least the padding plus the input), else as many
// out rows as fit both tiles (rows: what those out rows' taps reach).
static bool tile_size(const etr_conv2d_geometry_t *g, int64_t *rows,
                      int64_t *width, int64_t *band) {
  const int64_t dims[] = {g->in_h,     g->in_w,       g->out_h,
                          g->out_w,    g->kernel_h,   g->kernel_w,
                          g->stride_h, g->stride_w,   g->dilation_h,
                          g->dilation_w, g->pad_h,    g->pad_w};
  for (size_t i = 0; i < sizeof(dims) / sizeof(dims[0]); ++i) {
    if (dims[i] < 0 || dims[i] > MAX_DIM) {
      return false;
    }
  }
  *width = max64((g->out_w - 1) * g->stride_w +
                     (g->kernel_w - 1) * g->dilation_w + 1,
                 g->pad_w + g->in_w);
  const int64_t reach = (g->kernel_h - 1) * g->dilation_h + 1;
  const int64_t whole = max64((g->out_h - 1) * g->stride_h + reach,
                              g->pad_h + g->in_h);
  if (whole * *width * 8 <= TILE_FLOATS &&
      g->out_h * g->out_w * 8 <= OUT_FLOATS) {
    *rows = whole;
    *band = g->out_h;
    return true;
  }
  if (g->out_w * 8 > OUT_FLOATS || g->stride_h < 1 ||
      reach * *width * 8 > TILE_FLOATS) {
    return false;
  }
  int64_t n = (TILE_FLOATS / (*width * 8) - reach) / g->stride_h + 1;
  n = n < OUT_FLOATS / (g->out_w * 8) ? n : OUT_FLOATS / (g->out_w * 8);
  *band = n < g->out_h ? n : g->out_h;
  *rows = (*band - 1) * g->stride_h + reach;
  return *band >= MIN_BAND || *band == g->out_h;
}

// Whether the kernel takes the call, and then its tile sizes (tile_size).
static bool plan(const etr_conv2d_geometry_t *g, int64_t channels,
                 int64_t multiplier, int64_t *rows, int64_t *width,
                 int64_t *band) {
  return !g->channels_last && multiplier == 1 && channels >= 8 &&
         g->in_stride_w == 1 && (g->stride_w == 1 || g->stride_w == 2) &&
         g->out_h > 0 && g->out_w > 0 &&
         g->kernel_h * g->kernel_w <= MAX_TAPS &&
         tile_size(g, rows, width, band);
}

bool etr_depthwise_blocked_nchw_avx2_applies(const etr_conv2d_geometry_t *g,
                                             int64_t channels,
                                             int64_t multiplier) {
  int64_t rows = 0;
  int64_t width = 0;
  int64_t band = 0;
  return plan(g, channels, multiplier, &rows, &width, &band);
}

// a b c d (4 floats per 128-bit lane) -> their in-lane transpose.
static inline __attribute__((always_inline)) void transpose4(const __m256 *x,
                                                             __m256 *y) {
  const __m256 t0 = _mm256_unpacklo_ps(x[0], x[1]);
  const __m256 t1 = _mm256_unpackhi_ps(x[0], x[1]);
  const __m256 t2 = _mm256_unpacklo_ps(x[2], x[3]);
  const __m256 t3 = _mm256_unpackhi_ps(x[2], x[3]);
  y[0] = _mm256_shuffle_ps(t0, t2, 0x44);
  y[1] = _mm256_shuffle_ps(t0, t2, 0xEE);
  y[2] = _mm256_shuffle_ps(t1, t3, 0x44);
  y[3] = _mm256_shuffle_ps(t1, t3, 0xEE);
}

// Pixels at..at+7 of the 8 planes -> 8 pixel vectors (channel j in lane
// j): rows i and i + 4 share a vector, one per 128-bit lane, so the
// in-lane transposes finish the job.
static inline __attribute__((always_inline)) void pixels_in(
    const float *const *src, int64_t at, __m256 *v) {
  __m256 lo[4];
  __m256 hi[4];
#pragma GCC unroll 4
  for (int i = 0; i < 4; ++i) {
    lo[i] = _mm256_insertf128_ps(
        _mm256_castps128_ps256(_mm_loadu_ps(src[i] + at)),
        _mm_loadu_ps(src[i + 4] + at), 1);
    hi[i] = _mm256_insertf128_ps(
        _mm256_castps128_ps256(_mm_loadu_ps(src[i] + at + 4)),
        _mm_loadu_ps(src[i + 4] + at + 4), 1);
  }
  transpose4(lo, v);
  transpose4(hi, v + 4);
}

// Zeros over tile pixels [from, to).
static void zero_pixels(float *tile, int64_t from, int64_t to) {
  const __m256 zero = _mm256_setzero_ps();
  for (int64_t x = from; x < to; ++x) {
    _mm256_store_ps(tile + x * 8, zero);
  }
}

// The tile's padding columns, and for a whole plane its padding rows
// (the same for every channel block): zeros. Bands zero the rows of
// theirs that fall in the padding as they fill the others (fill_tile).
static void zero_padding(const blocked_t *b) {
  const etr_conv2d_geometry_t *g = b->g;
  const int64_t width = b->width;
  const int64_t top = b->whole ? g->pad_h : 0;
  const int64_t bottom = b->whole ? g->pad_h + g->in_h : b->rows;
  const int64_t left = g->pad_w;
  const int64_t right = g->pad_w + g->in_w;
  zero_pixels(b->tile, 0, top * width);
  for (int64_t y = top; y < bottom; ++y) {
    zero_pixels(b->tile, y * width, y * width + left);
    zero_pixels(b->tile, y * width + right, (y + 1) * width);
  }
  zero_pixels(b->tile, bottom * width, b->rows * width);
}

// Where each input pixel of a dense plane goes in the tile (floats from
// its start), for fill_tile's flat runs.
static void plan_positions(const blocked_t *b, int32_t *positions) {
  const etr_conv2d_geometry_t *g = b->g;
  int64_t p = 0;
  for (int64_t y = 0; y < g->in_h; ++y) {
    for (int64_t x = 0; x < g->in_w; ++x) {
      positions[p++] =
          (int32_t)(((y + g->pad_h) * b->width + x + g->pad_w) * 8);
    }
  }
}

// Whether fill_tile reads a plane as one flat run: dense, with rows
// that are not whole transposes (4x4 and 7x7 planes).
static bool flat_input(const etr_conv2d_geometry_t *g) {
  return g->in_stride_h == g->in_w && g->in_w % 8 != 0;
}

// The input planes of channels c0.. (the last real one repeated past
// `count`) into the tile, 8 pixels per transpose, the tails one pixel at
// a time: a whole plane row by row, or as one flat run (flat_input)
// through `positions`; a band (tile row 0 the padded row `top`) its
// `rows` tile rows, those in the padding zeroed.
static void fill_tile(const etr_depthwise_args_t *a, const blocked_t *b,
                      const int32_t *positions, int64_t c0, int64_t count,
                      int64_t top, int64_t rows) {
  const etr_conv2d_geometry_t *g = b->g;
  const float *src[8];
  for (int64_t j = 0; j < 8; ++j) {
    src[j] = a->input + (c0 + (j < count ? j : count - 1)) * g->in_stride_c;
  }
  float *tile = b->tile;
  if (b->whole && flat_input(g)) {
    __m256 v[8];
    const int64_t run = g->in_h * g->in_w;
    int64_t p = 0;
    for (; p + 8 <= run; p += 8) {
      pixels_in(src, p, v);
#pragma GCC unroll 8
      for (int k = 0; k < 8; ++k) {
        _mm256_store_ps(tile + positions[p + k], v[k]);
      }
    }
    for (; p < run; ++p) {
      _mm256_store_ps(tile + positions[p],
                      _mm256_setr_ps(src[0][p], src[1][p], src[2][p],
                                     src[3][p], src[4][p], src[5][p],
                                     src[6][p], src[7][p]));
    }
    return;
  }
  // A whole plane's input rows (its padding rows stay zero), or every
  // row of the band.
  const int64_t first = b->whole ? g->pad_h : 0;
  const int64_t end = b->whole ? g->pad_h + g->in_h : rows;
  const int64_t in_w = g->in_w;
  __m256 v[8];
  for (int64_t r = first; r < end; ++r) {
    const int64_t y = top + r - g->pad_h;
    float *dst = tile + (r * b->width + g->pad_w) * 8;
    if (y < 0 || y >= g->in_h) {
      zero_pixels(dst, 0, in_w);
      continue;
    }
    const int64_t base = y * g->in_stride_h;
    int64_t x = 0;
    for (; x + 8 <= in_w; x += 8) {
      pixels_in(src, base + x, v);
#pragma GCC unroll 8
      for (int k = 0; k < 8; ++k) {
        _mm256_store_ps(dst + (x + k) * 8, v[k]);
      }
    }
    for (; x < in_w; ++x) {
      const int64_t i = base + x;
      _mm256_store_ps(dst + x * 8,
                      _mm256_setr_ps(src[0][i], src[1][i], src[2][i],
                                     src[3][i], src[4][i], src[5][i],
                                     src[6][i], src[7][i]));
    }
  }
}

// A sum, + bias, then the post (those the block has; the constants as
// vectors: `post` is bias, scale, shift, low, high).
static inline __attribute__((always_inline)) __m256 finish(
    const blocked_t *b, const __m256 *post, __m256 v) {
  if (b->has_bias) {
    v = _mm256_add_ps(v, post[0]);
  }
  if (b->affine) {
    v = _mm256_fmadd_ps(v, post[1], post[2]);
  }
  if (b->clamp) {
    // As post_avx2.c: v < low ? low : v, then v > high ? high : v.
    v = _mm256_min_ps(post[4], _mm256_max_ps(post[3], v));
  }
  return v;
}

// The post constants of the channel block for finish, loaded by each
// group after its sums: held across the loops (loaded before them), the
// five vectors pushed accumulators and weights to the stack (in
// out_row_reuse's 12-wide 3-tap block, 20 stack moves -> 2; paired.py on
// conv_kernel_bench: 32x56x56 7x7 s1 1.08x, 72x16x16 s1 1.02x, the
// others within 1%).
static inline __attribute__((always_inline)) void post_of(const blocked_t *b,
                                                          __m256 *post) {
  post[0] = _mm256_load_ps(b->bias);
  post[1] = _mm256_load_ps(b->scale);
  post[2] = _mm256_load_ps(b->shift);
  post[3] = _mm256_set1_ps(b->low);
  post[4] = _mm256_set1_ps(b->high);
}

// `groups` times RH out rows x RW out pixels at column stride SW, group
// after group down the plane: `in` is the tile at the first pixel's first
// tap, out rows `row_step` floats apart there; `out` the out tile at the
// first pixel.
static inline __attribute__((always_inline)) void out_block(
    const blocked_t *b, const float *in, int64_t row_step, float *out,
    int64_t groups, const int RH, const int RW, const int SW) {
  const int64_t out_row = b->g->out_w * 8;
  const int64_t taps = b->taps;
  for (int64_t group = 0; group < groups; ++group) {
    __m256 acc[3][12];
#pragma GCC unroll 3
    for (int i = 0; i < RH; ++i) {
#pragma GCC unroll 12
      for (int j = 0; j < RW; ++j) {
        acc[i][j] = _mm256_setzero_ps();
      }
    }
    for (int64_t t = 0; t < taps; ++t) {
      const __m256 w = _mm256_load_ps(b->weights + t * 8);
      const float *p = in + b->offsets[t];
#pragma GCC unroll 3
      for (int i = 0; i < RH; ++i) {
#pragma GCC unroll 12
        for (int j = 0; j < RW; ++j) {
          acc[i][j] = _mm256_fmadd_ps(
              w, _mm256_load_ps(p + i * row_step + j * SW * 8), acc[i][j]);
        }
      }
    }
    __m256 post[5];
    post_of(b, post);
#pragma GCC unroll 3
    for (int i = 0; i < RH; ++i) {
#pragma GCC unroll 12
      for (int j = 0; j < RW; ++j) {
        _mm256_store_ps(out + i * out_row + j * 8, finish(b, post, acc[i][j]));
      }
    }
    in += RH * row_step;
    out += RH * out_row;
  }
}

// As out_block with one out row, for kernel rows of KW taps at column
// dilation 1: each input pixel of a kernel row is loaded once and taken
// by every out pixel it is a tap of (KW / SW of them), the row's KW
// weights in registers, where out_block loads a pixel per tap and out
// pixel (memory operands of the FMAs, which then ran at about 60% of the
// FMA peak). RW + KW + 1 vectors must fit the 16 registers. Each sum's
// chain keeps its (kh, kw) order: kernel rows in turn, and within one
// the pixels left to right, whose taps for a given out pixel are kw
// ascending.
static inline __attribute__((always_inline)) void out_row_reuse(
    const blocked_t *b, const float *in, int64_t row_step, float *out,
    int64_t groups, const int RW, const int SW, const int KW) {
  const int64_t out_row = b->g->out_w * 8;
  const int64_t kernel_h = b->g->kernel_h;
  const int64_t kh_step = b->g->dilation_h * b->width * 8;
  for (int64_t group = 0; group < groups; ++group) {
    __m256 acc[12];
#pragma GCC unroll 12
    for (int j = 0; j < RW; ++j) {
      acc[j] = _mm256_setzero_ps();
    }
    for (int64_t kh = 0; kh < kernel_h; ++kh) {
      const float *p = in + kh * kh_step;
      __m256 w[7];
#pragma GCC unroll 7
      for (int kw = 0; kw < KW; ++kw) {
        w[kw] = _mm256_load_ps(b->weights + (kh * KW + kw) * 8);
      }
#pragma GCC unroll 32
      for (int c = 0; c < (RW - 1) * SW + KW; ++c) {
        const __m256 x = _mm256_load_ps(p + c * 8);
#pragma GCC unroll 12
        for (int j = 0; j < RW; ++j) {
          const int kw = c - j * SW;
          if (kw >= 0 && kw < KW) {
            acc[j] = _mm256_fmadd_ps(w[kw], x, acc[j]);
          }
        }
      }
    }
    __m256 post[5];
    post_of(b, post);
#pragma GCC unroll 12
    for (int j = 0; j < RW; ++j) {
      _mm256_store_ps(out + j * 8, finish(b, post, acc[j]));
    }
    in += row_step;
    out += out_row;
  }
}

#define REUSE_CASE(KW, RW)                                              \
  case (KW) * 16 + (RW):                                                \
    if (sw == 1) {                                                      \
      out_row_reuse(b, in, row_step, out, groups, RW, 1, KW);           \
    } else {                                                            \
      out_row_reuse(b, in, row_step, out, groups, RW, 2, KW);           \
    }                                                                   \
    return true;

// out_row_reuse with its shape as constants: rows of 5 to 12 pixels for
// 3 taps a kernel row, 5 to 10 for 5, 5 to 8 for 7 (what compute() asks
// for); false for the others. (Inlined into compute(), this made 4x4
// planes, which never come here, 9% slower: conv_kernel_bench 144x4x4
// s1, paired.py.)
static __attribute__((noinline)) bool row_reuse(const blocked_t *b,
                                                const float *in,
                                                int64_t row_step, float *out,
                                                int64_t groups, int rw,
                                                int64_t sw) {
  switch (b->g->kernel_w * 16 + rw) {
    REUSE_CASE(3, 5)
    REUSE_CASE(3, 6)
    REUSE_CASE(3, 7)
    REUSE_CASE(3, 8)
    REUSE_CASE(3, 9)
    REUSE_CASE(3, 10)
    REUSE_CASE(3, 11)
    REUSE_CASE(3, 12)
    REUSE_CASE(5, 5)
    REUSE_CASE(5, 6)
    REUSE_CASE(5, 7)
    REUSE_CASE(5, 8)
    REUSE_CASE(5, 9)
    REUSE_CASE(5, 10)
    REUSE_CASE(7, 5)
    REUSE_CASE(7, 6)
    REUSE_CASE(7, 7)
    REUSE_CASE(7, 8)
    default:
      return false;
  }
}

#undef REUSE_CASE

#define BLOCK_CASE(RH, RW)                                              \
  case (RH) * 16 + (RW):                                                \
    if (sw == 1) {                                                      \
      out_block(b, in, row_step, out, groups, RH, RW, 1);               \
    } else {                                                            \
      out_block(b, in, row_step, out, groups, RH, RW, 2);               \
    }                                                                   \
    return;

// out_block with its shape as constants: 1 row of 1..12 pixels, 2 rows
// of 1..6, 3 rows of 1..4 (what compute() asks for).
static void block(const blocked_t *b, const float *in, int64_t row_step,
                  float *out, int64_t groups, int rh, int rw, int64_t sw) {
  switch (rh * 16 + rw) {
    BLOCK_CASE(1, 1)
    BLOCK_CASE(1, 2)
    BLOCK_CASE(1, 3)
    BLOCK_CASE(1, 4)
    BLOCK_CASE(1, 5)
    BLOCK_CASE(1, 6)
    BLOCK_CASE(1, 7)
    BLOCK_CASE(1, 8)
    BLOCK_CASE(1, 9)
    BLOCK_CASE(1, 10)
    BLOCK_CASE(1, 11)
    BLOCK_CASE(1, 12)
    BLOCK_CASE(2, 1)
    BLOCK_CASE(2, 2)
    BLOCK_CASE(2, 3)
    BLOCK_CASE(2, 4)
    BLOCK_CASE(2, 5)
    BLOCK_CASE(2, 6)
    BLOCK_CASE(3, 1)
    BLOCK_CASE(3, 2)
    BLOCK_CASE(3, 3)
    BLOCK_CASE(3, 4)
    default:
      return;  // not asked for
  }
}

#undef BLOCK_CASE

// The `out_h` out rows of the band into the out tile: rows of up to 4
// pixels 3 rows at a time (2 where that leaves one row over and 2 do
// not), of 5 or 6 two at a time, wider rows in column chunks of at most
// 12 (10 with 5 taps a kernel row, 8 with 7) as even as they come, down
// the band, by out_row_reuse where it has the shape; the rows left over
// one at a time.
static void compute(const blocked_t *b, int64_t out_h) {
  const etr_conv2d_geometry_t *g = b->g;
  const int64_t out_w = g->out_w;
  const int64_t row_step = g->stride_h * b->width * 8;
  const int64_t col_step = g->stride_w * 8;
  // (Rows of up to 4 in a band of 4 rows: 2 + 2 instead of 3 + 1, whose
  // last row is 4 chains: 144x4x4 s1 1.11x, 96x8x8 s2 1.06x.)
  const bool pairs = out_h % 3 == 1 && out_h % 2 == 0;
  const int rows = out_w <= 4 ? (pairs ? 2 : 3) : out_w <= 6 ? 2 : 1;
  const bool reuse = rows == 1 && g->dilation_w == 1 &&
                     (g->kernel_w == 3 || g->kernel_w == 5 ||
                      g->kernel_w == 7);
  // Accumulators, the kernel row's weights and the pixel in 16 registers.
  const int64_t widest = reuse ? 15 - g->kernel_w : 12;
  const int64_t groups = out_h / rows;
  const int64_t chunks = (out_w + widest - 1) / widest;
  int64_t ow = 0;
  for (int64_t c = 0; c < chunks; ++c) {
    const int64_t rw = (out_w - ow) / (chunks - c);
    const float *in = b->tile + ow * col_step;
    float *out = b->outs + ow * 8;
    if (!reuse ||
        !row_reuse(b, in, row_step, out, groups, (int)rw, g->stride_w)) {
      block(b, in, row_step, out, groups, rows, (int)rw, g->stride_w);
    }
    ow += rw;
  }
  const int64_t done = groups * rows;
  if (done < out_h) {
    block(b, b->tile + done * row_step, row_step, b->outs + done * out_w * 8,
          out_h - done, 1, (int)out_w, g->stride_w);
  }
}

// The out tile's pixels back to the channels' out rows oh0 .. oh0 +
// out_h - 1: 8 pixels by 8 channels per transpose (dense planes as one
// run, else row by row), the run's tail one pixel at a time; only the
// `count` real channels.
static void store_planes(const etr_depthwise_args_t *a, const blocked_t *b,
                         int64_t c0, int64_t count, int64_t oh0,
                         int64_t out_h) {
  const etr_conv2d_geometry_t *g = b->g;
  float *dst[8];
  for (int64_t j = 0; j < 8; ++j) {
    dst[j] = a->out + (c0 + (j < count ? j : count - 1)) * a->out_stride_c;
  }
  const bool dense = a->out_stride_h == g->out_w;
  const int64_t run = dense ? out_h * g->out_w : g->out_w;
  const int64_t runs = dense ? 1 : out_h;
  for (int64_t r = 0; r < runs; ++r) {
    const int64_t base = (oh0 + r) * a->out_stride_h;
    const float *src = b->outs + r * g->out_w * 8;
    int64_t p = 0;
    for (; p + 8 <= run; p += 8) {
      __m256 v[8];
#pragma GCC unroll 8
      for (int k = 0; k < 8; ++k) {
        v[k] = _mm256_load_ps(src + (p + k) * 8);
      }
      __m256 lo[4];
      __m256 hi[4];
      transpose4(v, lo);      // lane 0: pixels 0-3 of channel c, 1: c + 4
      transpose4(v + 4, hi);  // the same for pixels 4-7
      __m256 planes[8];
#pragma GCC unroll 4
      for (int c = 0; c < 4; ++c) {
        planes[c] = _mm256_permute2f128_ps(lo[c], hi[c], 0x20);
        planes[c + 4] = _mm256_permute2f128_ps(lo[c], hi[c], 0x31);
      }
      if (count == 8) {
#pragma GCC unroll 8
        for (int j = 0; j < 8; ++j) {
          _mm256_storeu_ps(dst[j] + base + p, planes[j]);
        }
      } else {
        for (int64_t j = 0; j < count; ++j) {
          _mm256_storeu_ps(dst[j] + base + p, planes[j]);
        }
      }
    }
    for (; p < run; ++p) {
      _Alignas(32) float lanes[8];
      _mm256_store_ps(lanes, _mm256_load_ps(src + p * 8));
      for (int64_t j = 0; j < count && j < 8; ++j) {
        dst[j][base + p] = lanes[j];
      }
    }
  }
}

// Channels c0..'s weights as one vector of 8 channels per tap (the last
// real channel repeated past `count`): taps stored densely per channel
// (rows kernel_w apart, unit column stride) 8 at a time by transposes,
// other layouts one weight at a time.
static void load_weights(const etr_depthwise_args_t *a, blocked_t *b,
                         int64_t c0, int64_t count) {
  const etr_conv2d_geometry_t *g = b->g;
  const float *src[8];
  for (int64_t j = 0; j < 8; ++j) {
    src[j] = a->weight + (c0 + (j < count ? j : count - 1)) * g->w_stride_oc;
  }
  if (g->w_stride_w == 1 &&
      (g->kernel_h == 1 || g->w_stride_h == g->kernel_w)) {
    int64_t t = 0;
    __m256 v[8];
    for (; t + 8 <= b->taps; t += 8) {
      pixels_in(src, t, v);
#pragma GCC unroll 8
      for (int k = 0; k < 8; ++k) {
        _mm256_store_ps(b->weights + (t + k) * 8, v[k]);
      }
    }
    for (; t < b->taps; ++t) {
      _mm256_store_ps(b->weights + t * 8,
                      _mm256_setr_ps(src[0][t], src[1][t], src[2][t],
                                     src[3][t], src[4][t], src[5][t],
                                     src[6][t], src[7][t]));
    }
    return;
  }
  for (int64_t kh = 0; kh < g->kernel_h; ++kh) {
    for (int64_t kw = 0; kw < g->kernel_w; ++kw) {
      const int64_t at = kh * g->w_stride_h + kw * g->w_stride_w;
      _mm256_store_ps(b->weights + (kh * g->kernel_w + kw) * 8,
                      _mm256_setr_ps(src[0][at], src[1][at], src[2][at],
                                     src[3][at], src[4][at], src[5][at],
                                     src[6][at], src[7][at]));
    }
  }
}

void etr_depthwise_blocked_nchw_avx2(const etr_depthwise_args_t *args,
                                     const etr_conv_post_t *post) {
  const etr_conv2d_geometry_t *g = args->geometry;
  _Alignas(32) float tile[TILE_FLOATS];
  _Alignas(32) float outs[OUT_FLOATS];
  blocked_t b;
  b.g = g;
  if (!plan(g, args->channels, args->multiplier, &b.rows, &b.width,
            &b.band)) {
    return;  // not a call _applies accepts
  }
  b.whole = b.band == g->out_h && b.rows >= g->pad_h + g->in_h;
  b.taps = g->kernel_h * g->kernel_w;
  b.tile = tile;
  b.outs = outs;
  for (int64_t kh = 0; kh < g->kernel_h; ++kh) {
    for (int64_t kw = 0; kw < g->kernel_w; ++kw) {
      b.offsets[kh * g->kernel_w + kw] =
          (kh * g->dilation_h * b.width + kw * g->dilation_w) * 8;
    }
  }
  b.has_bias = args->bias != NULL;
  b.affine = post != NULL && post->scale != NULL;
  b.clamp = post != NULL;
  b.low = post != NULL ? post->low : 0.0f;
  b.high = post != NULL ? post->high : 0.0f;
  zero_padding(&b);
  int32_t positions[TILE_FLOATS / 8];
  if (b.whole && flat_input(g)) {
    plan_positions(&b, positions);
  }
  const int64_t reach = (g->kernel_h - 1) * g->dilation_h + 1;
  for (int64_t c0 = 0; c0 < args->channels; c0 += 8) {
    const int64_t count = args->channels - c0 < 8 ? args->channels - c0 : 8;
    load_weights(args, &b, c0, count);
    for (int64_t j = 0; j < 8; ++j) {
      const int64_t oc = c0 + (j < count ? j : count - 1);
      b.bias[j] = b.has_bias ? args->bias[oc * args->bias_stride] : 0.0f;
      b.scale[j] = b.affine ? post->scale[oc] : 1.0f;
      b.shift[j] = b.affine ? post->shift[oc] : 0.0f;
    }
    for (int64_t oh0 = 0; oh0 < g->out_h; oh0 += b.band) {
      const int64_t rows = g->out_h - oh0 < b.band ? g->out_h - oh0 : b.band;
      fill_tile(args, &b, positions, c0, count, oh0 * g->stride_h,
                (rows - 1) * g->stride_h + reach);
      compute(&b, rows);
      store_planes(args, &b, c0, count, oh0, rows);
    }
  }
}

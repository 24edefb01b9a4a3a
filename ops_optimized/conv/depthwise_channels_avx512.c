// SPDX-License-Identifier: Apache-2.0
//
// Depthwise convolution of NCHW planes with 5x5 and 7x7 kernels, 16
// channels to a vector, AVX-512 (conv.h): the late layers of MobileNetV3
// and EfficientNet (5x5 on 14x14 and 8x8, 7x7 on 7x7, 5x5 stride 2 from
// 14x14), and wider rows (5x5 stride 2 from 56x56, ConvNeXt's 7x7 on 56
// and 28, any 5x5 or 7x7 on 112). Inside one plane a vector of 16 out
// columns wastes lanes on narrow rows and a 5x5 tap is a shifted load of
// each input row; across 16 channels every tap is one FMA on whole
// vectors.
//
// Per group of 16 channels the input rows are transposed (16 x 16 in
// registers, transpose_avx512.h) into a stack buffer of cells, one
// vector of the 16 channels per padded input pixel (zeros in the
// padding, written once per call). A small plane (out rows of at most
// 16, its padded window at most 576 cells) goes in whole; otherwise the
// buffer is a ring of K padded rows, each input row transposed once per
// group when the first out row reading it comes up. Kernel rows above or
// below the image are skipped, and so are the padding's columns of whole
// rows at stride 1 whose padding keeps the width (the 14x14 planes of a
// 5x5 layer lose 16% of their taps so: conv_kernel_bench on Zen 4,
// 672x14x14 83 -> 74 us; 7x7 on 192x28x28 0.96x). Each out row, in
// segments of at most 16 pixels, keeps the segment's sums in registers:
// per tap (kh, kw) the 16 channels' weights are one vector, and each
// cell of an input row is loaded once for every pixel whose window covers
// it, so a stride of 2 costs no more loads. The segment is transposed
// back and stored per channel under a lane mask. Channels past the last
// group's are zero lanes, computed and not stored.
//
// The transposes share their port with the FMAs: about 4 shuffles per
// input pixel and 4 per output pixel against K x K FMAs per output, so
// stride 2 (4 input pixels an output) gains least. Paired conv_kernel_bench
// rounds on the Intel Xeon of 2026-12-04, against the band kernel
// (depthwise_bands_avx512.c): small planes 5x5 on 120x8x8 1.51x,
// 672x14x14 1.14x, 120x10x10 1.11x; the ring 5x5 s2 on 72x56x56
// 1.02-1.07x, 144x56x56 1.19x, 7x7 on 96x56x56 1.15x, 192x28x28 1.07x,
// 32x56x56 1.11x, and on 112x112 planes (past the bands' buffer) 5x5
// 3.4x, 7x7 stride 2 5.0x (they ran at 19-34 GFLOP/s). 5x5 at
// stride 1 on rows of 17 to 47 stays with the bands (depthwise_avx512.c).
//
// Sums run over the taps in (kh, kw) order from +0.0, the bias added
// last; the padding's columns in rows that are not skipped multiply the
// buffer's zeros. Skipping padding taps needs a finite weight: padded
// convolutions with a non-finite one never come here (op_convolution.c).
// Exact data is exact in any order; random data is within the
// accumulation bound.
#include <immintrin.h>
#include <string.h>

#include "ops_optimized/conv/conv.h"
#include "ops_optimized/conv/lanes_avx512.h"
#include "ops_optimized/conv/depthwise_channels_avx512.h"

// Out rows of at least 7 pixels: on 4x4 planes (5x5, 120 channels) the
// transposes in and out outweighed the FMAs, 0.69x the register-plane
// kernel (depthwise_tiny_avx512.c); 5x5 stride 2 from 8x8 (4x4 out) ran
// as fast as the phase planes. A segment of a row is at most 16 pixels.
#define MIN_OUT_W 7
#define MAX_OUT_W 16
#define MAX_CELLS 576  // 36 KiB of cells: with the weights, in L1
// 64 KiB: the ring of a 7x7 at stride 2 on 112-wide planes (936 cells)
// spills from L1 and still ran 5x what took it before.
#define MAX_RING_CELLS 1024
#define MAX_K 7

// Cells the buffer holds: every padded row and column an out pixel reads.
static int64_t cell_rows(const etr_conv2d_geometry_t *g) {
  return (g->out_h - 1) * g->stride_h + g->kernel_h;
}
static int64_t cell_columns(const etr_conv2d_geometry_t *g) {
  return (g->out_w - 1) * g->stride_w + g->kernel_w;
}

// Out pixels a row segment computes: rows of at most 16 in one segment,
// wider ones in the fewest segments, of equal widths where they divide
// (28 as 14 + 14, 56 as 4 x 14).
static int segment_width(int64_t out_w) {
  const int64_t segments = (out_w + MAX_OUT_W - 1) / MAX_OUT_W;
  const int64_t least = (out_w + segments - 1) / segments;
  return least <= 7 ? 7 : least <= 8 ? 8 : least <= 14 ? 14 : 16;
}

// The whole padded window of a small plane fits the cells.
static bool plane_fits(const etr_conv2d_geometry_t *g) {
  return g->out_w <= MAX_OUT_W &&
         cell_rows(g) * cell_columns(g) <= MAX_CELLS;
}

// Cells of a ring row: the segments' reads (past out_w on the last) and
// the fill's whole vectors of input columns.
static int64_t ring_stride(const etr_conv2d_geometry_t *g) {
  const int64_t w = segment_width(g->out_w);
  const int64_t segments = (g->out_w + w - 1) / w;
  const int64_t reads = (segments * w - 1) * g->stride_w + g->kernel_w;
  const int64_t fill = g->pad_w + (g->in_w + 15) / 16 * 16;
  return reads > fill ? reads : fill;
}

bool etr_depthwise_channels_nchw_avx512_applies(
    const etr_conv2d_geometry_t *g) {
  if (!(g->kernel_h == g->kernel_w &&
        (g->kernel_h == 5 || g->kernel_h == 7) &&
        g->stride_h == g->stride_w &&
        (g->stride_h == 1 || g->stride_h == 2) && g->dilation_h == 1 &&
        g->dilation_w == 1 && g->pad_h >= 0 && g->pad_w >= 0 &&
        g->in_stride_w == 1 && g->out_h >= 1 && g->out_w >= MIN_OUT_W &&
        g->in_h >= 1 && g->in_w >= 1)) {
    return false;
  }
  // Every cell an out pixel reads is a padded pixel (no reads past the
  // padded plane), and the rows the cells hold fit.
  if (cell_rows(g) > g->in_h + 2 * g->pad_h ||
      cell_columns(g) > g->in_w + 2 * g->pad_w) {
    return false;
  }
  return plane_fits(g) ||
         (g->kernel_h + 1) * ring_stride(g) <= MAX_RING_CELLS;
}

// Input rows and columns that land in the plane's cells: [0, rows) x
// [0, cols).
static int64_t copied_rows(const etr_conv2d_geometry_t *g) {
  const int64_t rows = cell_rows(g) - g->pad_h;
  return rows < g->in_h ? rows : g->in_h;
}
static int64_t copied_columns(const etr_conv2d_geometry_t *g) {
  const int64_t columns = cell_columns(g) - g->pad_w;
  return columns < g->in_w ? columns : g->in_w;
}

// Columns [0, columns) of input row ih of channels [c0, c0 + count) into
// the cells from `cells` on, in whole vectors of 16 columns: those past
// `columns` are zeros (their lanes were not loaded), landing in padding
// cells, or in cells the next row's copy then writes (a copy of only the
// plane's columns became rep movsq from a spill of v).
static inline __attribute__((always_inline)) void fill_row(
    const etr_depthwise_args_t *args, int64_t c0, int64_t count, int64_t ih,
    int64_t columns, __m512 *cells) {
  const etr_conv2d_geometry_t *g = args->geometry;
  const float *row = args->input + c0 * g->in_stride_c + ih * g->in_stride_h;
  for (int64_t j0 = 0; j0 < columns; j0 += 16) {
    __m512 v[16];
    load_channel_rows(row + j0, g->in_stride_c, count,
                      first_lanes(columns - j0), v);
#pragma GCC unroll 16
    for (int x = 0; x < 16; ++x) {
      cells[j0 + x] = v[x];
    }
  }
}

// The input planes of channels [c0, c0 + count) into a small plane's
// cells.
static void fill_cells(const etr_depthwise_args_t *args, int64_t c0,
                       int64_t count, int64_t width, __m512 *cells) {
  const etr_conv2d_geometry_t *g = args->geometry;
  const int64_t rows = copied_rows(g);
  const int64_t columns = copied_columns(g);
  for (int64_t r = 0; r < rows; ++r) {
    fill_row(args, c0, count, r, columns,
             cells + (r + g->pad_h) * width + g->pad_w);
  }
}

// One out row of K x K taps at stride S: the sums of W >= out_w pixels
// in registers (those past out_w read cells past the row and are not
// stored), then transposed and stored for channels [c0, c0 + count).
// W is a constant: a run-time bound per FMA cost a compare and branch
// each, and GCC kept them.
static inline __attribute__((always_inline)) void out_row(
    const int K, const int S, const int W, const int P,
    const etr_depthwise_args_t *args,
    const __m512 *const *rows, const __m512 *weights, __m512 bias,
    int64_t c0, int64_t count, int64_t oh, int64_t ow, int64_t valid) {
  __m512 acc[MAX_OUT_W];
#pragma GCC unroll 16
  for (int x = 0; x < MAX_OUT_W; ++x) {
    acc[x] = _mm512_setzero_ps();
  }
  for (int kh = 0; kh < K; ++kh) {
    const __m512 *row = rows[kh];
    if (row == NULL) {  // a row of the padding
      continue;
    }
    __m512 wk[MAX_K];
#pragma GCC unroll 7
    for (int kw = 0; kw < K; ++kw) {
      wk[kw] = weights[kh * K + kw];
    }
    // Each cell of the row loaded once, multiplied into every pixel whose
    // window covers it (left to itself GCC kept cells live across kernel
    // columns and shuffled registers).
#pragma GCC unroll 40
    for (int c = 0; c < (W - 1) * S + K; ++c) {
      if (c < P || c >= (W - 1) * S + K - P) {  // a column of the padding
        continue;
      }
      __m512 v = row[c];
      __asm__("" : "+v"(v));
#pragma GCC unroll 7
      for (int kw = 0; kw < K; ++kw) {
        const int d = c - kw;  // S x for pixel x
        if (d >= 0 && d % S == 0 && d / S < W) {
          acc[d / S] = _mm512_fmadd_ps(wk[kw], v, acc[d / S]);
        }
      }
    }
  }
#pragma GCC unroll 16
  for (int x = 0; x < MAX_OUT_W; ++x) {
    acc[x] = _mm512_add_ps(acc[x], bias);
  }
  etr_transpose16x16_avx512(acc);
  const __mmask16 lanes = first_lanes(valid);
  float *out = args->out + c0 * args->out_stride_c +
               oh * args->out_stride_h + ow;
#pragma GCC unroll 16
  for (int c = 0; c < 16; ++c) {
    if (c < count) {
      _mm512_mask_storeu_ps(out + c * args->out_stride_c, lanes, acc[c]);
    }
  }
}

typedef void (*row_fn)(const etr_depthwise_args_t *args,
                       const __m512 *const *rows, const __m512 *weights,
                       __m512 bias, int64_t c0, int64_t count, int64_t oh,
                       int64_t ow, int64_t valid);

// Rows of 7, 8, 14 and 16 pixels (the models' 7x7, 8x8 and 14x14
// planes, and the segments of wider rows); other widths take the next
// one up. P > 0: whole rows of a small plane at stride 1 with padding P
// = (K - 1) / 2 (out_w = in_w = W), whose first and last P cells of a
// row are the padding's and are skipped.
#define ROW(K, S, W, P)                                                   \
  static void row_##K##_##S##_##W##_##P(                                  \
      const etr_depthwise_args_t *args, const __m512 *const *rows,        \
      const __m512 *weights, __m512 bias, int64_t c0, int64_t count,     \
      int64_t oh, int64_t ow, int64_t valid) {                            \
    out_row(K, S, W, P, args, rows, weights, bias, c0, count, oh, ow,     \
            valid);                                                       \
  }
#define ROWS(K, S, P) \
  ROW(K, S, 7, P) ROW(K, S, 8, P) ROW(K, S, 14, P) ROW(K, S, 16, P)
#define TABLE(K, S, P)                                               \
  {row_##K##_##S##_7_##P, row_##K##_##S##_8_##P,                     \
   row_##K##_##S##_14_##P, row_##K##_##S##_16_##P}
ROWS(5, 1, 0)
ROWS(5, 2, 0)
ROWS(7, 1, 0)
ROWS(7, 2, 0)
ROWS(5, 1, 2)
ROWS(7, 1, 3)
static const row_fn kRows[2][2][4] = {{TABLE(5, 1, 0), TABLE(5, 2, 0)},
                                      {TABLE(7, 1, 0), TABLE(7, 2, 0)}};
static const row_fn kWholeRows[2][4] = {TABLE(5, 1, 2), TABLE(7, 1, 3)};

// A whole small plane in the cells (out rows of at most 16 pixels).
static void plane(const etr_depthwise_args_t *args, row_fn row, int W) {
  const etr_conv2d_geometry_t *g = args->geometry;
  const int64_t k = g->kernel_h;
  const int64_t width = cell_columns(g);
  // The cells, then those the pixels past out_w of the last row read.
  const int64_t used = cell_rows(g) * width + (W - g->out_w) * g->stride_w;
  // Room past the cells for those reads and for the copy's whole last 16
  // columns (up to 15 cells past them).
  _Alignas(64) __m512 cells[MAX_CELLS + 2 * MAX_OUT_W];
  _Alignas(64) __m512 buffer[MAX_K * MAX_K];
  // Zeroed once: the copy writes the plane's cells, and only zeros
  // anywhere else.
  memset(cells, 0, (size_t)used * sizeof(__m512));
  for (int64_t c0 = 0; c0 < args->channels; c0 += 16) {
    const int64_t count =
        args->channels - c0 < 16 ? args->channels - c0 : 16;
    fill_cells(args, c0, count, width, cells);
    const __m512 *weights = group_taps(args, c0, count, buffer);
    const __m512 bias = group_bias(args, c0, count);
    for (int64_t oh = 0; oh < g->out_h; ++oh) {
      const __m512 *rows[MAX_K];
      for (int64_t kh = 0; kh < k; ++kh) {
        const int64_t ih = oh * g->stride_h + kh - g->pad_h;
        rows[kh] = ih >= 0 && ih < g->in_h
                       ? cells + (oh * g->stride_h + kh) * width
                       : NULL;  // the padding's: skipped
      }
      row(args, rows, weights, bias, c0, count, oh, 0, g->out_w);
    }
  }
}

// Wider rows or larger planes: the K padded rows an out row reads in a
// ring of K rows of ring_stride() cells, each input row transposed once per
// group when the first out row reaching it comes up; padding rows read
// one row of zeros. Out rows run in segments of W pixels.
static void ring(const etr_depthwise_args_t *args, row_fn row, int W) {
  const etr_conv2d_geometry_t *g = args->geometry;
  const int64_t stride = ring_stride(g);
  const int64_t k = g->kernel_h;
  const int64_t s = g->stride_h;
  _Alignas(64) __m512 cells[MAX_RING_CELLS];
  _Alignas(64) __m512 buffer[MAX_K * MAX_K];
  // Zeroed once: a ring row's fill writes its input columns (and zeros
  // up to the next 16), never its padding.
  memset(cells, 0, (size_t)(k * stride) * sizeof(__m512));
  for (int64_t c0 = 0; c0 < args->channels; c0 += 16) {
    const int64_t count =
        args->channels - c0 < 16 ? args->channels - c0 : 16;
    const __m512 *weights = group_taps(args, c0, count, buffer);
    const __m512 bias = group_bias(args, c0, count);
    int64_t filled = 0;  // padded rows [0, filled) are in the ring
    for (int64_t oh = 0; oh < g->out_h; ++oh) {
      const __m512 *rows[MAX_K];
      for (; filled < oh * s + k; ++filled) {
        const int64_t ih = filled - g->pad_h;
        if (ih >= 0 && ih < g->in_h) {
          fill_row(args, c0, count, ih, g->in_w,
                   cells + filled % k * stride + g->pad_w);
        }
      }
      for (int64_t kh = 0; kh < k; ++kh) {
        const int64_t ih = oh * s + kh - g->pad_h;
        rows[kh] = ih >= 0 && ih < g->in_h
                       ? cells + (oh * s + kh) % k * stride
                       : NULL;  // the padding's: skipped
      }
      for (int64_t ow = 0; ow < g->out_w; ow += W) {
        const __m512 *segment[MAX_K];
        for (int64_t kh = 0; kh < k; ++kh) {
          segment[kh] = rows[kh] != NULL ? rows[kh] + ow * s : NULL;
        }
        row(args, segment, weights, bias, c0, count, oh, ow,
            g->out_w - ow < W ? g->out_w - ow : W);
      }
    }
  }
}

void etr_depthwise_channels_nchw_avx512(const etr_depthwise_args_t *args) {
  const etr_conv2d_geometry_t *g = args->geometry;
  const int W = segment_width(g->out_w);
  const int w = W == 7 ? 0 : W == 8 ? 1 : W == 14 ? 2 : 3;
  const row_fn row = kRows[g->kernel_h == 7][g->stride_h == 2][w];
  // Whole rows at stride 1 with the padding that keeps the width: their
  // padding columns skipped (the 14x14 planes of a 5x5 layer, 16% of the
  // taps).
  const bool whole = g->stride_h == 1 && W == g->out_w &&
                     g->in_w == g->out_w &&
                     g->pad_w == (g->kernel_w - 1) / 2;
  if (plane_fits(g)) {
    plane(args, whole ? kWholeRows[g->kernel_h == 7][w] : row, W);
  } else {
    ring(args, row, W);
  }
}

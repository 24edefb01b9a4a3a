// SPDX-License-Identifier: Apache-2.0
//
// Depthwise convolution of NCHW planes with kernels of 5 or 7 rows
// (MobileNetV3's and EfficientNet's 5x5, ConvNeXt's 7x7) at stride 1 or
// 2, AVX-512 (conv.h), in bands: up to 16 out rows (8 at stride 2) of one
// vector of 16 out columns, each loaded input vector multiplied into every
// out row of the band whose window covers it.
//
// Per input channel the plane is copied into a stack buffer of zero-padded
// rows (pad_h zero rows above and below, pad_w zero columns each side).
// At stride 1 a row is W floats (in_w + pad_w, or out_w if wider, rounded
// up to whole vectors; a row's right padding runs on into the next row's
// left one), so that tap (kh, kw) of out (oh, ow) is buffer[(oh + kh) W +
// ow + kw dw]. At stride 2 a padded row is split by column parity into
// two halves of W2 floats, even columns first, so that out (oh, ow)'s tap
// is the half (kw dw) & 1 of row 2 oh + kh at ow + (kw dw) / 2: at either
// stride the 16 lanes of an out vector read 16 consecutive floats.
//
// For each kernel column kw a band holds that column's KH weights in
// registers and loads each input row's vector at the column's offset once:
// at stride 1 that is KH H FMAs for H + KH - 1 loads (80 for 20 at 5x5 on
// 16 rows), at stride 2 KH H for 2 H + KH - 2 (40 for 19 on 8 rows), where
// the shifted-rows kernel (depthwise_shifted_avx512.c) loads once per FMA
// and so ran at about one FMA a cycle. The band's H sums stay in registers
// across the kernel columns.
//
// Sums run over the taps in (kw, kh) order from +0.0 (exact data is exact
// in any order; random data is within the accumulation bound either way);
// the bias is added last. Padding taps multiply the buffer's zeros (an inf
// or NaN weight gives PyTorch's NaN border). Lanes past out_w are computed
// from the next cells and not stored.
#include <immintrin.h>
#include <string.h>

#include "ops_optimized/conv/conv.h"
#include "ops_optimized/conv/lanes_avx512.h"

#define BUFFER 8192   // floats of the padded plane (32 KiB), reads' slack
#define MAX_ROWS 16   // out rows of a band (16 sums + 7 weights + a load)
#define MAX_ROWS_S2 8 // at stride 2 (2 H + KH - 2 loads for KH H FMAs)
#define MAX_KW 16     // kernel columns

// Floats of one buffer row's half (stride 2) or of the row (stride 1):
// every padded column of the half and every out column, whole vectors.
static int64_t half_width(const etr_conv2d_geometry_t *g) {
  const int64_t padded = g->in_w + 2 * g->pad_w;
  const int64_t cells =
      g->stride_w == 1 ? g->in_w + g->pad_w : (padded + 1) / 2;
  const int64_t wide = cells > g->out_w ? cells : g->out_w;
  return (wide + 15) / 16 * 16;
}

// Floats from one buffer row to the next.
static int64_t pitch(const etr_conv2d_geometry_t *g) {
  return g->stride_w * half_width(g);
}

// Floats of the padded plane: its rows, one more for the reads of the
// last row's taps past its end, and a vector for the copy's last store.
static int64_t buffer_floats(const etr_conv2d_geometry_t *g) {
  return (g->in_h + 2 * g->pad_h + 1) * pitch(g) + 16;
}

// Offset of kernel column kw's cells from an out column's (row 0).
static int64_t column_offset(const etr_conv2d_geometry_t *g, int64_t kw) {
  const int64_t shift = kw * g->dilation_w;
  return g->stride_w == 1 ? shift
                          : (shift & 1) * half_width(g) + shift / 2;
}

bool etr_depthwise_bands_nchw_avx512_applies(const etr_conv2d_geometry_t *g) {
  if (!((g->stride_h == 1 || g->stride_h == 2) &&
        g->stride_w == g->stride_h && g->dilation_h == 1 &&
        (g->kernel_h == 5 || g->kernel_h == 7) && g->kernel_w >= 1 &&
        g->kernel_w <= MAX_KW && g->dilation_w >= 1 &&
        g->in_stride_w == 1 && g->pad_h >= 0 && g->pad_w >= 0 &&
        g->out_h >= 1 && g->out_w >= 1)) {
    return false;
  }
  const int64_t width = half_width(g);
  // A tap reaches at most one buffer row on; at least half of each row's
  // computed lanes are outputs (narrower planes waste most of a vector:
  // the shifted-rows and phase kernels pack them).
  return column_offset(g, g->kernel_w - 1) <= pitch(g) &&
         buffer_floats(g) <= BUFFER && 2 * g->out_w >= width &&
         g->out_h * g->out_w > 16;
}

// Copies one input plane into the buffer's rows at stride 1 (pad_h rows
// down, pad_w columns in) in whole vectors: the lanes past a row are
// zeros, landing in its right padding or the next row's left one (written
// after), so the padding cells stay as zeroed once per call.
static void copy_plane(const etr_conv2d_geometry_t *g, const float *src,
                       float *buffer) {
  const int64_t width = pitch(g);
  copy_rows_zero_tail(src, g->in_h, g->in_w, g->in_stride_h,
                      buffer + g->pad_h * width + g->pad_w, width);
}

// The same at stride 2: 32 padded columns at a time split into their
// even and odd ones (vpermt2ps), stored as whole aligned vectors at the
// same index of each half. Lanes of columns outside the plane are loaded
// as zeros, so the stores write the padding cells' zeros too and no cell
// of another chunk. The load masks of each chunk are the same for every
// row and plane: worked out once per call (`chunks`). Storing at the
// input's own column offsets, masked, put most stores across two cache
// lines: the copy of dwconv 5x5 stride 2 on 72 x 56 x 56 then took as long
// as its bands.
typedef struct chunk {
  __mmask16 load_lo;  // of padded columns 32 t .. 32 t + 15
  __mmask16 load_hi;  // 32 t + 16 .. 32 t + 31
} chunk_t;

#define MAX_CHUNKS (BUFFER / 32)

static int64_t plan_chunks(const etr_conv2d_geometry_t *g, chunk_t *chunks) {
  // Padded column c is input column c - pad_w.
  const int64_t count = half_width(g) / 16;
  for (int64_t t = 0; t < count; ++t) {
    const int64_t first = 32 * t - g->pad_w;  // input column of lane 0
    chunks[t] = (chunk_t){
        .load_lo = lanes_between(-first, g->in_w - first),
        .load_hi = lanes_between(-first - 16, g->in_w - first - 16),
    };
  }
  return count;
}

static void copy_plane_s2(const etr_conv2d_geometry_t *g, const float *src,
                          const chunk_t *chunks, int64_t count,
                          float *buffer) {
  const int64_t half = half_width(g);
  const __m512i even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14,
                                        12, 10, 8, 6, 4, 2, 0);
  const __m512i odd = _mm512_set_epi32(31, 29, 27, 25, 23, 21, 19, 17, 15,
                                       13, 11, 9, 7, 5, 3, 1);
  for (int64_t r = 0; r < g->in_h; ++r) {
    // Lane 0 of chunk t is input column 32 t - pad_w; lanes before the
    // row are masked off (never read).
    const float *from = src + r * g->in_stride_h - g->pad_w;
    float *row = buffer + (g->pad_h + r) * 2 * half;
    for (int64_t t = 0; t < count; ++t, from += 32) {
      const __m512 lo = _mm512_maskz_loadu_ps(chunks[t].load_lo, from);
      const __m512 hi = _mm512_maskz_loadu_ps(chunks[t].load_hi, from + 16);
      _mm512_store_ps(row + 16 * t, _mm512_permutex2var_ps(lo, even, hi));
      _mm512_store_ps(row + half + 16 * t,
                      _mm512_permutex2var_ps(lo, odd, hi));
    }
  }
}

// What every band of one channel shares.
typedef struct band {
  const float *weight;  // the out channel's weight plane
  int64_t w_stride_h;
  int64_t w_stride_w;
  int64_t kernel_w;
  int64_t pitch;                 // floats from one buffer row to the next
  int64_t column[MAX_KW];        // column_offset() of each kernel column
  int64_t out_stride_h;
  __m512 bias;
} band_t;

// H out rows from the buffer at x (the band's first input row, its out
// column vector's cells): the taps' sums in (kw, kh) order, the bias,
// `store` lanes of each row stored.
static inline __attribute__((always_inline)) void band_rows(
    const int KH, const int SH, const int H, const band_t *b, const float *x,
    __mmask16 store, float *out) {
  __m512 acc[MAX_ROWS];
#pragma GCC unroll 16
  for (int r = 0; r < H; ++r) {
    acc[r] = _mm512_setzero_ps();
  }
  for (int64_t kw = 0; kw < b->kernel_w; ++kw) {
    __m512 wk[7];
#pragma GCC unroll 7
    for (int kh = 0; kh < KH; ++kh) {
      wk[kh] =
          _mm512_set1_ps(b->weight[kh * b->w_stride_h + kw * b->w_stride_w]);
    }
    const float *column = x + b->column[kw];
#pragma GCC unroll 40
    for (int u = 0; u < SH * (H - 1) + KH; ++u) {
      __m512 v = _mm512_loadu_ps(column + u * b->pitch);
      // One load for all its FMAs: left to itself gcc folds the load into
      // each FMA as its memory operand, loading the vector KH times.
      __asm__("" : "+v"(v));
#pragma GCC unroll 7
      for (int kh = 0; kh < KH; ++kh) {
        const int d = u - kh;  // SH r for out row r
        if (d >= 0 && d % SH == 0 && d / SH < H) {
          acc[d / SH] = _mm512_fmadd_ps(wk[kh], v, acc[d / SH]);
        }
      }
    }
  }
#pragma GCC unroll 16
  for (int r = 0; r < H; ++r) {
    _mm512_mask_storeu_ps(out + r * b->out_stride_h, store,
                          _mm512_add_ps(acc[r], b->bias));
  }
}

typedef void (*band_fn)(const band_t *b, const float *x, __mmask16 store,
                        float *out);

#define BAND(KH, SH, H)                                                \
  static void band_##KH##_##SH##_##H(const band_t *b, const float *x,  \
                                     __mmask16 store, float *out) {    \
    band_rows(KH, SH, H, b, x, store, out);                            \
  }
#define BANDS8(KH, SH)                                                 \
  BAND(KH, SH, 1) BAND(KH, SH, 2) BAND(KH, SH, 3) BAND(KH, SH, 4)      \
  BAND(KH, SH, 5) BAND(KH, SH, 6) BAND(KH, SH, 7) BAND(KH, SH, 8)
#define BANDS16(KH, SH)                                                \
  BANDS8(KH, SH)                                                       \
  BAND(KH, SH, 9) BAND(KH, SH, 10) BAND(KH, SH, 11) BAND(KH, SH, 12)   \
  BAND(KH, SH, 13) BAND(KH, SH, 14) BAND(KH, SH, 15) BAND(KH, SH, 16)
#define TABLE8(KH, SH)                                                 \
  NULL, band_##KH##_##SH##_1, band_##KH##_##SH##_2,                    \
      band_##KH##_##SH##_3, band_##KH##_##SH##_4,                      \
      band_##KH##_##SH##_5, band_##KH##_##SH##_6,                      \
      band_##KH##_##SH##_7, band_##KH##_##SH##_8
#define TABLE16(KH, SH)                                                \
  TABLE8(KH, SH), band_##KH##_##SH##_9, band_##KH##_##SH##_10,         \
      band_##KH##_##SH##_11, band_##KH##_##SH##_12,                    \
      band_##KH##_##SH##_13, band_##KH##_##SH##_14,                    \
      band_##KH##_##SH##_15, band_##KH##_##SH##_16

BANDS16(5, 1)
BANDS16(7, 1)
BANDS8(5, 2)
BANDS8(7, 2)
static const band_fn kBands5[MAX_ROWS + 1] = {TABLE16(5, 1)};
static const band_fn kBands7[MAX_ROWS + 1] = {TABLE16(7, 1)};
static const band_fn kBands5s2[MAX_ROWS_S2 + 1] = {TABLE8(5, 2)};
static const band_fn kBands7s2[MAX_ROWS_S2 + 1] = {TABLE8(7, 2)};

void etr_depthwise_bands_nchw_avx512(const etr_depthwise_args_t *args) {
  const etr_conv2d_geometry_t *g = args->geometry;
  const bool s2 = g->stride_h == 2;
  const band_fn *bands = g->kernel_h == 5 ? (s2 ? kBands5s2 : kBands5)
                                          : (s2 ? kBands7s2 : kBands7);
  const int64_t most = s2 ? MAX_ROWS_S2 : MAX_ROWS;
  // Bands of equal height (the last one shorter by less than the band
  // count), at most `most` rows.
  const int64_t count = (g->out_h + most - 1) / most;
  const int64_t rows = (g->out_h + count - 1) / count;
  const int64_t columns = (g->out_w + 15) / 16;
  _Alignas(64) float buffer[BUFFER];
  chunk_t chunks[MAX_CHUNKS];
  const int64_t count_chunks = s2 ? plan_chunks(g, chunks) : 0;
  memset(buffer, 0, (size_t)buffer_floats(g) * sizeof(float));
  band_t b = {.w_stride_h = g->w_stride_h,
              .w_stride_w = g->w_stride_w,
              .kernel_w = g->kernel_w,
              .pitch = pitch(g),
              .out_stride_h = args->out_stride_h};
  for (int64_t kw = 0; kw < g->kernel_w; ++kw) {
    b.column[kw] = column_offset(g, kw);
  }
  for (int64_t oc = 0; oc < args->channels; ++oc) {
    const int64_t ic = oc / args->multiplier;
    // Consecutive out channels of one input channel share its copy.
    if (oc == 0 || ic != (oc - 1) / args->multiplier) {
      const float *plane = args->input + ic * g->in_stride_c;
      if (s2) {
        copy_plane_s2(g, plane, chunks, count_chunks, buffer);
      } else {
        copy_plane(g, plane, buffer);
      }
    }
    b.bias = args->bias != NULL
                 ? _mm512_set1_ps(args->bias[oc * args->bias_stride])
                 : _mm512_setzero_ps();
    b.weight = args->weight + oc * g->w_stride_oc;
    float *out = args->out + oc * args->out_stride_c;
    for (int64_t c = 0; c < columns; ++c) {
      const __mmask16 store = first_lanes(g->out_w - 16 * c);
      for (int64_t oh = 0; oh < g->out_h; oh += rows) {
        const int64_t h = g->out_h - oh < rows ? g->out_h - oh : rows;
        bands[h](&b, buffer + g->stride_h * oh * b.pitch + 16 * c, store,
                 out + oh * args->out_stride_h + 16 * c);
      }
    }
  }
}

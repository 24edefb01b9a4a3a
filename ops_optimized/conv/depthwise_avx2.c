// SPDX-License-Identifier: Apache-2.0
//
// Depthwise convolution, AVX2 + FMA (conv.h).
//
// NCHW: the output plane is taken flat, 8 pixels per vector whatever the
// row width, four channels at a time (four independent FMA chains sharing
// the lane masks). Each tap's lanes are those whose input pixel is inside
// the image, and only those take the FMA (a blend), so taps in the padding
// are skipped as in the reference. With stride 1 and rows as wide as the
// output's, a tap is a constant shift of the flat input plane: one
// vmaskmovps per channel (masked-out lanes are never read; a gather when
// the shift would start before the plane); other geometries gather. The
// out plane must be dense and indices fit 32 bits (the op checks).
// Planes whose zero-padded copy fits PADDED_FLOATS, at column stride 1
// or 2, take another path (padded_channels below): each channel's plane
// is copied once into zero-padded rows split by column parity (stride 2),
// so every tap of every out row is one unaligned load at a constant
// offset, with no masks, blends or gathers; 2 out rows by up to 4
// vectors of 8 columns run at once (8 independent FMA chains). Padding
// taps multiply the copy's zeros, which leaves a sum from +0.0 unchanged
// for the finite weights the op sends here (conv.h), so the outputs are
// those of the flat path, one FMA chain per out in (kh, kw) order.
// NHWC: 8 channels of one pixel at a time, taps outside the image skipped
// whole, channel tails read and written with vmaskmovps; the channels'
// weights per tap are gathered once per channel block into a stack table
// (at most 64 taps: the op checks).
#include <immintrin.h>
#include <stdint.h>

#include "ops_optimized/conv/conv.h"

#define MAX_TAPS 64

// All-ones in lanes j with lo <= j < hi (of 8).
static inline __m256i lanes_between(int64_t lo, int64_t hi) {
  const __m256i index = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  lo = lo < 0 ? 0 : lo > 8 ? 8 : lo;
  hi = hi < 0 ? 0 : hi > 8 ? 8 : hi;
  __m256i above = _mm256_cmpgt_epi32(index,
                                     _mm256_set1_epi32((int32_t)lo - 1));
  __m256i below = _mm256_cmpgt_epi32(_mm256_set1_epi32((int32_t)hi), index);
  return _mm256_and_si256(above, below);
}

// Lane coordinates (row, column) of output pixels p0 .. p0 + 7 of a plane
// `width` columns wide.
static inline void lane_coordinates(int64_t p0, int64_t width, __m256i *row,
                                    __m256i *column) {
  const __m256i iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i w = _mm256_set1_epi32((int32_t)width);
  const __m256i last = _mm256_set1_epi32((int32_t)width - 1);
  const __m256i one = _mm256_set1_epi32(1);
  __m256i r = _mm256_set1_epi32((int32_t)(p0 / width));
  __m256i c = _mm256_add_epi32(_mm256_set1_epi32((int32_t)(p0 % width)), iota);
  __m256i wrap = _mm256_cmpgt_epi32(c, last);
  while (!_mm256_testz_si256(wrap, wrap)) {
    c = _mm256_sub_epi32(c, _mm256_and_si256(wrap, w));
    r = _mm256_add_epi32(r, _mm256_and_si256(wrap, one));
    wrap = _mm256_cmpgt_epi32(c, last);
  }
  *row = r;
  *column = c;
}

// Lanes of `lanes` whose coordinate v satisfies 0 <= v < size.
static inline __m256i inside(__m256i lanes, __m256i v, int64_t size) {
  __m256i low = _mm256_cmpgt_epi32(v, _mm256_set1_epi32(-1));
  __m256i high = _mm256_cmpgt_epi32(_mm256_set1_epi32((int32_t)size), v);
  return _mm256_and_si256(lanes, _mm256_and_si256(low, high));
}

// The padded copy: `phases` (the column stride) planes of `rows` rows of
// `width` floats; padded column j * phases + q of a row is element j of
// phase q's row. Columns reach roundup(out_w, 8) - 1 + `reach`.
#define PADDED_FLOATS 16384
#define ROW_VECTORS 128  // vectors of a padded row, the phases together
typedef struct padded {
  int64_t phases;
  int64_t rows;
  int64_t width;
  int64_t reach;  // the last tap's column offset within a phase
} padded_t;

static bool padded_layout(const etr_conv2d_geometry_t *g, padded_t *p) {
  const int64_t s = g->stride_w;
  // Rows of 4 or fewer outputs stay flat (144x4x4: 8.1 us flat, 11.1
  // padded; 96x8x8: 12.7 and 9.7).
  if ((s != 1 && s != 2) || g->in_stride_w != 1 ||
      g->kernel_h * g->kernel_w > MAX_TAPS || g->out_w <= 4 ||
      g->out_h <= 0) {
    return false;
  }
  p->phases = s;
  p->reach = (g->kernel_w - 1) * g->dilation_w / s;
  p->width = ((g->out_w + 7) / 8 * 8 + p->reach + 7) / 8 * 8;
  p->rows = (g->out_h - 1) * g->stride_h + (g->kernel_h - 1) * g->dilation_h +
            1;
  return p->rows * p->width * s <= PADDED_FLOATS &&
         p->width * s <= 8 * ROW_VECTORS;
}

// The vectors of a padded row (8 columns each, the phases' columns
// interleaved) and how each reads its input row: every row alike, so
// worked out once per call. Padded column j is input column j - pad_w.
typedef struct row_vectors {
  int64_t count;
  int64_t first[ROW_VECTORS];   // input column of lane 0
  int8_t kind[ROW_VECTORS];     // 0: zeros, 1: 8 input columns, 2: masked
  __m256i lanes[ROW_VECTORS];   // kind 2: the lanes inside the input row
} row_vectors_t;

static void plan_row(const etr_conv2d_geometry_t *g, const padded_t *p,
                     row_vectors_t *v) {
  v->count = p->width * p->phases / 8;
  for (int64_t i = 0; i < v->count; ++i) {
    const int64_t first = 8 * i - g->pad_w;
    v->first[i] = first;
    v->lanes[i] = lanes_between(-first, g->in_w - first);
    v->kind[i] = first >= 0 && first + 8 <= g->in_w ? 1
                 : _mm256_testz_si256(v->lanes[i], v->lanes[i]) ? 0
                                                                 : 2;
  }
}

// Vector i of a padded row read from input row `src` (NULL: a padding
// row): masked-out lanes are never touched.
static inline __m256 row_vector(const row_vectors_t *v, const float *src,
                                int64_t i) {
  if (src == NULL || v->kind[i] == 0) {
    return _mm256_setzero_ps();
  }
  return v->kind[i] == 1 ? _mm256_loadu_ps(src + v->first[i])
                         : _mm256_maskload_ps(src + v->first[i], v->lanes[i]);
}

// Padded row r of `plane` (input row r - pad_h) into the phases' rows r.
// (memcpy and memset per row, and the lane masks worked out per vector,
// took most of a small plane's time.)
static void pad_row(const etr_conv2d_geometry_t *g, const padded_t *p,
                    const row_vectors_t *v, const float *plane, int64_t r,
                    float *phases) {
  const int64_t ih = r - g->pad_h;
  const float *src =
      ih >= 0 && ih < g->in_h ? plane + ih * g->in_stride_h : NULL;
  float *even = phases + r * p->width;
  if (p->phases == 1) {
    for (int64_t i = 0; i < v->count; ++i) {
      _mm256_storeu_ps(even + 8 * i, row_vector(v, src, i));
    }
    return;
  }
  // Even columns to phase 0, odd to phase 1, 16 padded columns a step.
  float *odd = even + p->rows * p->width;
  for (int64_t i = 0; i < v->count; i += 2) {
    const __m256 a = row_vector(v, src, i);
    const __m256 b = row_vector(v, src, i + 1);
    // a0 a2 b0 b2 | a4 a6 b4 b6, then 64-bit lanes 0 2 1 3.
    _mm256_storeu_ps(even + 4 * i, _mm256_castpd_ps(_mm256_permute4x64_pd(
                                       _mm256_castps_pd(_mm256_shuffle_ps(
                                           a, b, _MM_SHUFFLE(2, 0, 2, 0))),
                                       0xd8)));
    _mm256_storeu_ps(odd + 4 * i, _mm256_castpd_ps(_mm256_permute4x64_pd(
                                      _mm256_castps_pd(_mm256_shuffle_ps(
                                          a, b, _MM_SHUFFLE(3, 1, 3, 1))),
                                      0xd8)));
  }
}

// R out rows from oh by V vectors of 8 columns from ow0 of one channel
// (`wt` its taps in (kh, kw) order, `columns` each kw's offset within the
// phases), the last vector's lanes past out_w not stored.
static inline __attribute__((always_inline)) void padded_block(
    const etr_conv2d_geometry_t *g, const padded_t *p, const float *phases,
    const int64_t *columns, const float *wt, float bias, bool has_bias,
    float *out, int64_t out_stride_h, int64_t oh, int64_t ow0, int R,
    int V) {
  __m256 acc[4][4];
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) {
      acc[r][v] = _mm256_setzero_ps();
    }
  }
  for (int64_t kh = 0; kh < g->kernel_h; ++kh) {
    const float *row =
        phases + (oh * g->stride_h + kh * g->dilation_h) * p->width + ow0;
    const int64_t row_step = g->stride_h * p->width;
    for (int64_t kw = 0; kw < g->kernel_w; ++kw) {
      const float *x = row + columns[kw];
      const __m256 w = _mm256_broadcast_ss(wt + kh * g->kernel_w + kw);
#pragma GCC unroll 4
      for (int r = 0; r < R; ++r) {
#pragma GCC unroll 4
        for (int v = 0; v < V; ++v) {
          acc[r][v] = _mm256_fmadd_ps(
              w, _mm256_loadu_ps(x + r * row_step + 8 * v), acc[r][v]);
        }
      }
    }
  }
  const __m256 b = _mm256_set1_ps(bias);
  const int64_t tail = g->out_w - ow0 - 8 * (V - 1);
  const __m256i last = _mm256_cmpgt_epi32(
      _mm256_set1_epi32((int32_t)(tail < 8 ? tail : 8)),
      _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r) {
    float *dst = out + (oh + r) * out_stride_h + ow0;
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) {
      const __m256 value = has_bias ? _mm256_add_ps(acc[r][v], b) : acc[r][v];
      if (v < V - 1 || tail >= 8) {
        _mm256_storeu_ps(dst + 8 * v, value);
      } else {
        _mm256_maskstore_ps(dst + 8 * v, last, value);
      }
    }
  }
}

// R out rows from oh, every column: blocks of 4 vectors (R <= 2), then
// one block of the 1 to 4 vectors left.
static inline __attribute__((always_inline)) void padded_rows(
    const etr_conv2d_geometry_t *g, const padded_t *p, const float *phases,
    const int64_t *columns, const float *wt, float bias, bool has_bias,
    float *out, int64_t out_stride_h, int64_t oh, int R) {
  int64_t ow0 = 0;
  if (R <= 2) {
    for (; ow0 + 32 <= g->out_w; ow0 += 32) {
      padded_block(g, p, phases, columns, wt, bias, has_bias, out, out_stride_h,
                   oh, ow0, R, 4);
    }
  }
  switch ((g->out_w - ow0 + 7) / 8) {
    case 0:
      break;
    case 1:
      padded_block(g, p, phases, columns, wt, bias, has_bias, out, out_stride_h,
                   oh, ow0, R, 1);
      break;
    case 2:
      padded_block(g, p, phases, columns, wt, bias, has_bias, out, out_stride_h,
                   oh, ow0, R, 2);
      break;
    // 3 or 4 (25 to 31 columns left) for R <= 2 only: rows of 4 come
    // with at most 2 vectors.
    case 3:
      padded_block(g, p, phases, columns, wt, bias, has_bias, out, out_stride_h,
                   oh, ow0, R, R <= 2 ? 3 : 2);
      break;
    default:
      padded_block(g, p, phases, columns, wt, bias, has_bias, out, out_stride_h,
                   oh, ow0, R, R <= 2 ? 4 : 2);
      break;
  }
}

static void padded_channels(const etr_depthwise_args_t *args,
                            const padded_t *p) {
  const etr_conv2d_geometry_t *g = args->geometry;
  _Alignas(32) float phases[PADDED_FLOATS];
  row_vectors_t vectors;
  plan_row(g, p, &vectors);
  float wt[MAX_TAPS];
  // Tap column kw * dilation_w is element / phases of phase % phases.
  int64_t columns[MAX_TAPS];
  for (int64_t kw = 0; kw < g->kernel_w; ++kw) {
    const int64_t column = kw * g->dilation_w;
    columns[kw] = column % p->phases * p->rows * p->width +
                  column / p->phases;
  }
  int64_t filled = -1;  // the input channel in `phases`
  for (int64_t oc = 0; oc < args->channels; ++oc) {
    const int64_t ic = oc / args->multiplier;
    if (ic != filled) {
      const float *plane = args->input + ic * g->in_stride_c;
      for (int64_t r = 0; r < p->rows; ++r) {
        pad_row(g, p, &vectors, plane, r, phases);
      }
      filled = ic;
    }
    for (int64_t kh = 0; kh < g->kernel_h; ++kh) {
      for (int64_t kw = 0; kw < g->kernel_w; ++kw) {
        wt[kh * g->kernel_w + kw] = args->weight[oc * g->w_stride_oc +
                                                 kh * g->w_stride_h +
                                                 kw * g->w_stride_w];
      }
    }
    const bool has_bias = args->bias != NULL;
    const float bias = has_bias ? args->bias[oc * args->bias_stride] : 0.0f;
    float *out = args->out + oc * args->out_stride_c;
    // Rows of up to 16 outputs: 4 rows by 1 or 2 vectors; wider: 2 rows
    // by up to 4 (at most 8 accumulators).
    const int64_t vectors = (g->out_w + 7) / 8;
    const int rows = vectors <= 2 ? 4 : 2;
    int64_t oh = 0;
    for (; oh + rows <= g->out_h; oh += rows) {
      if (rows == 4) {
        padded_rows(g, p, phases, columns, wt, bias, has_bias, out,
                    args->out_stride_h, oh, 4);
      } else {
        padded_rows(g, p, phases, columns, wt, bias, has_bias, out,
                    args->out_stride_h, oh, 2);
      }
    }
    for (; oh < g->out_h; ++oh) {
      padded_rows(g, p, phases, columns, wt, bias, has_bias, out,
                  args->out_stride_h, oh, 1);
    }
  }
}

etr_depthwise_post_fn etr_depthwise_post_kernel_avx2(
    const etr_depthwise_args_t *args) {
  const etr_conv2d_geometry_t *g = args->geometry;
  const int64_t channels = args->channels;
  const int64_t multiplier = args->multiplier;
  if (args->out_stride_w == 1) {  // the one-channel kernels' stores
    if (etr_depthwise3x3_w4_nchw_avx2_applies(g)) {
      return etr_depthwise3x3_w4_nchw_avx2;
    }
    if (etr_depthwise3x3_s2_w4_nchw_avx2_applies(g)) {
      return etr_depthwise3x3_s2_w4_nchw_avx2;
    }
    if (etr_depthwise3x3_w8_nchw_avx2_applies(g)) {
      return etr_depthwise3x3_w8_nchw_avx2;
    }
    if (etr_depthwise3x3_s2_avx2_wins(g, channels, multiplier)) {
      return etr_depthwise3x3_s2_nchw_avx2;
    }
  }
  if (etr_depthwise_rows_avx2_wins(g, channels, multiplier)) {
    return etr_depthwise_rows_nchw_avx2;
  }
  if (etr_depthwise_blocked_nchw_avx2_applies(g, channels, multiplier)) {
    return etr_depthwise_blocked_nchw_avx2;
  }
  return NULL;
}

void etr_depthwise_nchw_avx2(const etr_depthwise_args_t *args) {
  const etr_conv2d_geometry_t *g = args->geometry;
  const etr_depthwise_post_fn kernel = etr_depthwise_post_kernel_avx2(args);
  if (kernel != NULL) {
    kernel(args, NULL);
    return;
  }
  padded_t layout;
  if (padded_layout(g, &layout)) {
    padded_channels(args, &layout);
    return;
  }
  const int64_t pixels = g->out_h * g->out_w;
  // Stride 1 with out and in rows of one width: every tap is one constant
  // shift of the flattened plane.
  const bool shifted = g->stride_h == 1 && g->stride_w == 1 &&
                       g->in_w == g->out_w && g->in_stride_w == 1 &&
                       g->in_stride_h == g->in_w;
  const __m256i stride_h = _mm256_set1_epi32((int32_t)g->stride_h);
  const __m256i stride_w = _mm256_set1_epi32((int32_t)g->stride_w);
  for (int64_t oc0 = 0; oc0 < args->channels; oc0 += 4) {
    const float *in[4];
    const float *w[4];
    float *out[4];
    float bias[4];
    for (int64_t c = 0; c < 4; ++c) {  // past the end: the last channel
      int64_t oc = oc0 + c < args->channels ? oc0 + c : args->channels - 1;
      in[c] = args->input + oc / args->multiplier * g->in_stride_c;
      w[c] = args->weight + oc * g->w_stride_oc;
      out[c] = args->out + oc * args->out_stride_c;
      bias[c] = args->bias != NULL ? args->bias[oc * args->bias_stride] : 0;
    }
    for (int64_t p0 = 0; p0 < pixels; p0 += 8) {
      int64_t count = pixels - p0 < 8 ? pixels - p0 : 8;
      __m256i lanes = lanes_between(0, count);
      __m256i oh;
      __m256i ow;
      lane_coordinates(p0, g->out_w, &oh, &ow);
      __m256 acc[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(),
                       _mm256_setzero_ps(), _mm256_setzero_ps()};
      for (int64_t kh = 0; kh < g->kernel_h; ++kh) {
        int64_t dh = kh * g->dilation_h - g->pad_h;
        __m256i ih = _mm256_add_epi32(_mm256_mullo_epi32(oh, stride_h),
                                      _mm256_set1_epi32((int32_t)dh));
        __m256i rows = inside(lanes, ih, g->in_h);
        if (_mm256_testz_si256(rows, rows)) {
          continue;
        }
        __m256i row_index =
            _mm256_mullo_epi32(ih, _mm256_set1_epi32((int32_t)g->in_stride_h));
        for (int64_t kw = 0; kw < g->kernel_w; ++kw) {
          int64_t dw = kw * g->dilation_w - g->pad_w;
          __m256i iw = _mm256_add_epi32(_mm256_mullo_epi32(ow, stride_w),
                                        _mm256_set1_epi32((int32_t)dw));
          __m256i valid = inside(rows, iw, g->in_w);
          if (_mm256_testz_si256(valid, valid)) {
            continue;
          }
          __m256 valid_ps = _mm256_castsi256_ps(valid);
          int64_t shift = dh * g->in_w + dw;
          bool load = shifted && p0 + shift >= 0;
          __m256i index = _mm256_add_epi32(
              row_index,
              _mm256_mullo_epi32(iw,
                                 _mm256_set1_epi32((int32_t)g->in_stride_w)));
          int64_t tap = kh * g->w_stride_h + kw * g->w_stride_w;
#pragma GCC unroll 4
          for (int c = 0; c < 4; ++c) {
            __m256 x = load ? _mm256_maskload_ps(in[c] + p0 + shift, valid)
                            : _mm256_mask_i32gather_ps(_mm256_setzero_ps(),
                                                       in[c], index,
                                                       valid_ps, 4);
            acc[c] = _mm256_blendv_ps(
                acc[c], _mm256_fmadd_ps(_mm256_set1_ps(w[c][tap]), x, acc[c]),
                valid_ps);
          }
        }
      }
      for (int64_t c = 0; c < 4 && oc0 + c < args->channels; ++c) {
        __m256 v = args->bias != NULL
                       ? _mm256_add_ps(acc[c], _mm256_set1_ps(bias[c]))
                       : acc[c];
        if (count == 8) {
          _mm256_storeu_ps(out[c] + p0, v);
        } else {
          _mm256_maskstore_ps(out[c] + p0, lanes, v);
        }
      }
    }
  }
}

void etr_depthwise_nhwc_avx2(const etr_depthwise_args_t *args) {
  const etr_conv2d_geometry_t *g = args->geometry;
  int64_t taps = g->kernel_h * g->kernel_w;
  _Alignas(32) float weights[MAX_TAPS * 8];
  _Alignas(32) float biases[8];
  for (int64_t c0 = 0; c0 < args->channels; c0 += 8) {
    int64_t count = args->channels - c0 < 8 ? args->channels - c0 : 8;
    __m256i lanes = lanes_between(0, count);
    for (int64_t t = 0; t < taps && t < MAX_TAPS; ++t) {
      int64_t offset = t / g->kernel_w * g->w_stride_h +
                       t % g->kernel_w * g->w_stride_w;
      for (int64_t j = 0; j < 8; ++j) {
        weights[t * 8 + j] =
            j < count ? args->weight[(c0 + j) * g->w_stride_oc + offset]
                      : 0.0f;
      }
    }
    for (int64_t j = 0; j < 8; ++j) {
      biases[j] = args->bias != NULL && j < count
                      ? args->bias[(c0 + j) * args->bias_stride]
                      : 0.0f;
    }
    const __m256 bias = _mm256_load_ps(biases);
    for (int64_t oh = 0; oh < g->out_h; ++oh) {
      for (int64_t ow = 0; ow < g->out_w; ++ow) {
        __m256 acc = _mm256_setzero_ps();
        for (int64_t kh = 0; kh < g->kernel_h; ++kh) {
          int64_t ih = oh * g->stride_h - g->pad_h + kh * g->dilation_h;
          if (ih < 0 || ih >= g->in_h) {
            continue;
          }
          for (int64_t kw = 0; kw < g->kernel_w; ++kw) {
            int64_t iw = ow * g->stride_w - g->pad_w + kw * g->dilation_w;
            if (iw < 0 || iw >= g->in_w) {
              continue;
            }
            const float *x = args->input + ih * g->in_stride_h +
                             iw * g->in_stride_w + c0;
            acc = _mm256_fmadd_ps(
                _mm256_load_ps(weights + (kh * g->kernel_w + kw) * 8),
                count == 8 ? _mm256_loadu_ps(x) : _mm256_maskload_ps(x, lanes),
                acc);
          }
        }
        if (args->bias != NULL) {
          acc = _mm256_add_ps(acc, bias);
        }
        float *target = args->out + oh * args->out_stride_h +
                        ow * args->out_stride_w + c0;
        if (count == 8) {
          _mm256_storeu_ps(target, acc);
        } else {
          _mm256_maskstore_ps(target, lanes, acc);
        }
      }
    }
  }
}

// SPDX-License-Identifier: Apache-2.0
//
// Average pooling over whole NCHW planes, AVX-512 (pool.h's
// avg_planes_values): every window position in one vector loop, borders
// included. Before, the row kernel (pool_avx512.c) took each out row's
// interior in its own call and the driver walked each border window in
// double: on avgpool3x3s1-64x56 (3x3, stride 1, padding 1) the 7168
// border windows were a third of the op's 130 us and the per-row calls
// most of the rest.
//
// Up to four 16-output blocks of one out row at a time (independent
// chains; two out rows at once, sharing their loads, where the windows
// have 3 rows and the row stride is 1: 74 -> 57 us on that layer) sum
// their windows' taps in fp32 in row-major order from +0.0,
// taps outside the plane read as +0.0 by masked loads (rows outside it
// skipped): adding +0.0 to a sum from +0.0 changes nothing, so each
// output is the row kernel's sum of the taps inside. Blocks whose taps
// all lie inside their row load unmasked (a zero-masking load with every
// lane set is slower on Zen 5). Then one division by the window's
// divisor, the rows times the columns counted (pool.h), exact in fp32.
#include <immintrin.h>

#include "ops_optimized/pool/pool.h"

#define ALWAYS_INLINE static inline __attribute__((always_inline))

#define MAX_BLOCKS 64   // 16-output blocks of a row
#define MAX_COLUMNS 16  // window columns

// Bits [lo, hi) of a 32-bit mask, clipped to [0, 32).
ALWAYS_INLINE uint32_t range32(int64_t lo, int64_t hi) {
  lo = lo < 0 ? 0 : lo;
  hi = hi > 32 ? 32 : hi;
  if (hi <= lo) {
    return 0;
  }
  return (uint32_t)((((uint64_t)1 << (hi - lo)) - 1u) << lo);
}

// One block's loads of one window column: the lanes whose element lies
// in the row (lo: elements base .. base + 15, hi: base + 16 .. base + 31
// for column stride 2).
typedef struct tap_masks {
  __mmask16 lo;
  __mmask16 hi;
} tap_masks_t;

typedef struct block {
  int64_t base;  // the element of lane 0's first tap
  tap_masks_t masks[MAX_COLUMNS];
  bool inside;  // every tap of every lane in the row, 16 lanes
  int64_t run;  // inside: the blocks from this one that are, up to 4
  __m512 columns;  // lane l: the window columns counted for its output
} block_t;

// The block's values of window column j: lanes l take element
// base + j + l * stride of the row, +0.0 outside it.
ALWAYS_INLINE __m512 tap(const float *row, const block_t *b, int64_t j,
                         int64_t stride, bool inside) {
  const float *at = row + b->base + j;
  // Masked-off lanes are not read: `at` may point before the row.
  const __m512 lo = inside ? _mm512_loadu_ps(at)
                           : _mm512_maskz_loadu_ps(b->masks[j].lo, at);
  if (stride == 1) {
    return lo;
  }
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18,
                                         20, 22, 24, 26, 28, 30);
  const __m512 hi = inside
                        ? _mm512_loadu_ps(at + 16)
                        : _mm512_maskz_loadu_ps(b->masks[j].hi, at + 16);
  return _mm512_permutex2var_ps(lo, even, hi);
}

// The window sums of `count` (1..4) blocks from `first` over window rows
// [h0, h1) of the plane: row-major, each block its own chain, in s.
// `columns`: the window's (3: a constant, the loop unrolled), or 0 for
// g->kernel_w; `window_rows` likewise h1 - h0 (3) or 0. `pair` (window
// rows 3, row stride 1): t the sums of the out row below too, whose window
// is rows [h0 + 1, h1 + 1), each row's taps loaded once for both (two
// chains per block).
#define SUM_TAP(q)                                           \
  if (count > q) {                                           \
    const __m512 v = tap(row, first + q, j, stride, inside); \
    if (i < kh) {                                            \
      s##q = _mm512_add_ps(s##q, v);                         \
    }                                                        \
    if (pair && i >= 1) {                                    \
      t##q = _mm512_add_ps(t##q, v);                         \
    }                                                        \
  }
ALWAYS_INLINE void sums(const float *x, const etr_pool_planes_t *g,
                        const block_t *first, int count, int64_t h0,
                        int64_t h1, int64_t stride, bool inside,
                        int64_t columns, int64_t window_rows, bool pair,
                        __m512 *s, __m512 *t) {
  __m512 s0 = _mm512_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
  __m512 t0 = s0, t1 = s0, t2 = s0, t3 = s0;
  const int64_t kw = columns != 0 ? columns : g->kernel_w;
  const int64_t kh = window_rows != 0 ? window_rows : h1 - h0;
#pragma GCC unroll 4
  for (int64_t i = 0; i < kh + (pair ? 1 : 0); ++i) {
    const float *row = x + (h0 + i) * g->width;
#pragma GCC unroll 4
    for (int64_t j = 0; j < kw; ++j) {
      SUM_TAP(0)
      SUM_TAP(1)
      SUM_TAP(2)
      SUM_TAP(3)
    }
  }
  s[0] = s0;
  s[1] = s1;
  s[2] = s2;
  s[3] = s3;
  t[0] = t0;
  t[1] = t1;
  t[2] = t2;
  t[3] = t3;
}
#undef SUM_TAP

// One axis of a window starting at `start` (kernel taps at unit
// dilation, `size` elements, `pad` on each side): its elements inside,
// [*first, *last), and how many a divisor counts, those inside the
// padded axis (the ceil_mode overhang past size + pad not counted) or
// inside the axis.
ALWAYS_INLINE int64_t axis_window(int64_t start, int64_t kernel,
                                  int64_t size, int64_t pad,
                                  bool include_pad, int64_t *first,
                                  int64_t *last) {
  int64_t end = start + kernel;
  end = end < size + pad ? end : size + pad;
  *first = start > 0 ? start : 0;
  *last = end < size ? end : size;
  return include_pad ? end - start : *last - *first;
}

// The rows [*h0, *h1) of out row oh's window inside the plane, and the
// rows its divisor counts (1 with an override: the columns carry it).
ALWAYS_INLINE float window_rows(const etr_pool_planes_t *g,
                                const etr_pool_avg_rule_t *rule, int64_t oh,
                                int64_t *h0, int64_t *h1) {
  const int64_t rows =
      axis_window(oh * g->stride_h - g->pad_h, g->kernel_h, g->height,
                  g->pad_h, rule->count_include_pad, h0, h1);
  return rule->has_divisor ? 1.0f : (float)rows;
}

// The window columns out column ow's divisor counts (the override, if
// any); 0 when none of its columns is inside the plane.
static int64_t window_columns(const etr_pool_planes_t *g,
                              const etr_pool_avg_rule_t *rule, int64_t ow) {
  int64_t first;
  int64_t last;
  const int64_t columns =
      axis_window(ow * g->stride_w - g->pad_w, g->kernel_w, g->width,
                  g->pad_w, rule->count_include_pad, &first, &last);
  if (last <= first) {
    return 0;
  }
  return rule->has_divisor ? rule->divisor : columns;
}

// Sums s of the blocks [b, b + count) of one out row divided and stored
// to y; *exponents keeps the largest exponent field of the outputs (all
// ones: one is not finite).
ALWAYS_INLINE void finish(const etr_pool_planes_t *g, const block_t *b,
                          int count, const __m512 *s, __m512 rows,
                          bool inside, int64_t ow, float *y,
                          __m512i *exponents) {
  const __m512i exponent = _mm512_set1_epi32(0x7f800000);
#pragma GCC unroll 4
  for (int q = 0; q < 4; ++q) {
    if (q < count) {
      const __m512 v =
          _mm512_div_ps(s[q], _mm512_mul_ps(rows, b[q].columns));
      *exponents = _mm512_max_epu32(
          *exponents, _mm512_and_si512(_mm512_castps_si512(v), exponent));
      const int64_t left = g->out_width - ow - 16 * q;
      if (inside || left >= 16) {
        _mm512_storeu_ps(y + ow + 16 * q, v);
      } else {
        _mm512_mask_storeu_ps(y + ow + 16 * q, (__mmask16)range32(0, left),
                              v);
      }
    }
  }
}

// The blocks [b, b + count) of one out row (count 1..4; `inside`: all of
// them are), and with `pair` of the row below (y + out_width).
ALWAYS_INLINE void row_blocks(const float *x, const etr_pool_planes_t *g,
                              const block_t *b, int count, int64_t h0,
                              int64_t h1, __m512 rows, int64_t stride,
                              bool inside, int64_t columns,
                              int64_t window_rows, bool pair, int64_t ow,
                              float *y, __m512i *exponents) {
  __m512 s[4];
  __m512 t[4];
  sums(x, g, b, count, h0, h1, stride, inside, columns, window_rows, pair,
       s, t);
  finish(g, b, count, s, rows, inside, ow, y, exponents);
  if (pair) {
    finish(g, b, count, t, rows, inside, ow, y + g->out_width, exponents);
  }
}

// One out row's blocks (two with `pair`): runs of blocks inside the row
// 4, 3, 2 or 1 at a time, unmasked; each other block alone, masked.
ALWAYS_INLINE void out_row(const float *x, const etr_pool_planes_t *g,
                           const block_t *blocks, int64_t num_blocks,
                           int64_t h0, int64_t h1, __m512 rows,
                           int64_t stride, int64_t columns,
                           int64_t window_rows, bool pair, float *y,
                           __m512i *exponents) {
  for (int64_t b = 0; b < num_blocks;) {
    const block_t *first = blocks + b;
    const int64_t ow = 16 * b;
    switch (first->run) {
      case 4:
        row_blocks(x, g, first, 4, h0, h1, rows, stride, true, columns,
                   window_rows, pair, ow, y, exponents);
        break;
      case 3:
        row_blocks(x, g, first, 3, h0, h1, rows, stride, true, columns,
                   window_rows, pair, ow, y, exponents);
        break;
      case 2:
        row_blocks(x, g, first, 2, h0, h1, rows, stride, true, columns,
                   window_rows, pair, ow, y, exponents);
        break;
      case 1:
        row_blocks(x, g, first, 1, h0, h1, rows, stride, true, columns,
                   window_rows, pair, ow, y, exponents);
        break;
      default:
        row_blocks(x, g, first, 1, h0, h1, rows, stride, false, columns,
                   window_rows, pair, ow, y, exponents);
        break;
    }
    b += first->run > 0 ? first->run : 1;
  }
}

// `columns`: 3 (a constant) or 0, as for sums(); windows of 3 rows inside
// the plane then take the unrolled loop too, two out rows at a time when
// the row stride is 1 and the next window's rows inside are these moved
// down one, with the same divisor.
ALWAYS_INLINE bool planes(const float *in, const etr_pool_planes_t *g,
                          const etr_pool_avg_rule_t *rule,
                          const block_t *blocks, int64_t num_blocks,
                          int64_t stride, int64_t columns, float *out) {
  __m512i exponents = _mm512_setzero_si512();
  const int64_t plane_size = g->height * g->width;
  const int64_t out_plane = g->out_height * g->out_width;
  for (size_t p = 0; p < g->planes; ++p) {
    const float *x = in + (int64_t)p * plane_size;
    float *y = out + (int64_t)p * out_plane;
    for (int64_t oh = 0; oh < g->out_height; ++oh, y += g->out_width) {
      int64_t h0;
      int64_t h1;
      const float r = window_rows(g, rule, oh, &h0, &h1);
      const __m512 rows = _mm512_set1_ps(r);
      if (columns == 3 && h1 - h0 == 3 && g->stride_h == 1 &&
          oh + 1 < g->out_height) {
        int64_t next0;
        int64_t next1;
        const float next = window_rows(g, rule, oh + 1, &next0, &next1);
        if (next0 == h0 + 1 && next1 == h1 + 1 && next == r) {
          out_row(x, g, blocks, num_blocks, h0, h1, rows, stride, columns, 3,
                  true, y, &exponents);
          ++oh;
          y += g->out_width;
          continue;
        }
      }
      if (columns == 3 && h1 - h0 == 3) {
        out_row(x, g, blocks, num_blocks, h0, h1, rows, stride, columns, 3,
                false, y, &exponents);
      } else {
        out_row(x, g, blocks, num_blocks, h0, h1, rows, stride, columns, 0,
                false, y, &exponents);
      }
    }
  }
  return _mm512_reduce_max_epu32(exponents) != 0x7f800000u;
}

bool etr_pool_avg_planes_values_avx512(const float *in,
                                       const etr_pool_planes_t *g,
                                       const etr_pool_avg_rule_t *rule,
                                       float *out, bool *finite) {
  const int64_t stride = g->stride_w;
  if (g->out_width > 16 * MAX_BLOCKS || g->kernel_w > MAX_COLUMNS ||
      (stride != 1 && stride != 2) || g->dilation_h != 1 ||
      g->dilation_w != 1) {
    return false;
  }
  // Every window keeps a row and a column inside the plane (else the
  // reference's 0.0, which a division need not give: the driver's).
  for (int64_t oh = 0; oh < g->out_height; ++oh) {
    int64_t h0;
    int64_t h1;
    window_rows(g, rule, oh, &h0, &h1);
    if (h1 <= h0) {
      return false;
    }
  }
  block_t blocks[MAX_BLOCKS];
  const int64_t num_blocks = (g->out_width + 15) / 16;
  for (int64_t b = 0; b < num_blocks; ++b) {
    block_t *k = &blocks[b];
    const int64_t ow = 16 * b;
    const int64_t lanes = g->out_width - ow < 16 ? g->out_width - ow : 16;
    k->base = ow * stride - g->pad_w;
    // The elements lane l < lanes reads of column j: base + j + l stride.
    const int64_t span = stride * (lanes - 1) + 1;
    k->inside = lanes == 16 && k->base >= 0 &&
                k->base + g->kernel_w - 1 + 16 * stride <= g->width;
    for (int64_t j = 0; j < g->kernel_w; ++j) {
      const int64_t first = k->base + j;
      const uint32_t m = range32(-first, g->width - first) & range32(0, span);
      k->masks[j] = (tap_masks_t){(__mmask16)m, (__mmask16)(m >> 16)};
    }
    _Alignas(64) float columns[16];
    for (int64_t l = 0; l < 16; ++l) {
      const int64_t count =
          l < lanes ? window_columns(g, rule, ow + l) : 1;
      if (count == 0) {
        return false;
      }
      columns[l] = (float)count;
    }
    k->columns = _mm512_load_ps(columns);
  }
  for (int64_t b = num_blocks - 1; b >= 0; --b) {
    const int64_t next = b + 1 < num_blocks ? blocks[b + 1].run : 0;
    blocks[b].run = !blocks[b].inside ? 0 : next < 4 ? next + 1 : 4;
  }
  if (stride == 1 && g->kernel_w == 3) {
    *finite = planes(in, g, rule, blocks, num_blocks, 1, 3, out);
  } else if (stride == 1) {
    *finite = planes(in, g, rule, blocks, num_blocks, 1, 0, out);
  } else if (g->kernel_w == 3) {
    *finite = planes(in, g, rule, blocks, num_blocks, 2, 3, out);
  } else {
    *finite = planes(in, g, rule, blocks, num_blocks, 2, 0, out);
  }
  return true;
}

// SPDX-License-Identifier: Apache-2.0
//
// 2x2 stride-2 pooling rows, AVX-512 (F, BW, DQ, VL): the window the CNNs
// use most (max_pool2d(2) and avg_pool2d(2)). 16 outputs take the 32
// input columns of each of the two rows in two loads and split them into
// even and odd columns with vpermt2ps, so each tap is one register with no
// reload (the general row kernel in pool_avx512.c loads every tap). Tails
// are masked to the 2 * count columns the outputs need. Max walks the taps
// in the reference's row-major order with ATen's rule (greater, or NaN);
// the average sums them in that order from +0.0 (so all -0.0 taps give
// +0.0, as the reference's double sum). The planes entry points run a
// whole tensor whose windows are all inside in one call, two rows to a
// vector when rows have at most 8 outputs (the CNN's avg_pool2d has 8).
// Semantics in pool.h.
#include <immintrin.h>

#include "ops_optimized/pool/pool.h"

#define ALWAYS_INLINE static inline __attribute__((always_inline))

ALWAYS_INLINE __mmask16 mask16(size_t count) {
  return count >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << count) - 1u);
}

// Even and odd columns of the 2 * lanes floats at p (lanes <= 16).
typedef struct columns {
  __m512 even;
  __m512 odd;
} columns_t;

ALWAYS_INLINE columns_t load_pairs(const float *p, __mmask16 lo,
                                   __mmask16 hi) {
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18,
                                         20, 22, 24, 26, 28, 30);
  const __m512i odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19,
                                        21, 23, 25, 27, 29, 31);
  __m512 a = _mm512_maskz_loadu_ps(lo, p);
  __m512 b = _mm512_maskz_loadu_ps(hi, p + 16);
  columns_t c = {_mm512_permutex2var_ps(a, even, b),
                 _mm512_permutex2var_ps(a, odd, b)};
  return c;
}

ALWAYS_INLINE __mmask16 replaces(__m512 v, __m512 best) {
  return _mm512_cmp_ps_mask(v, best, _CMP_GT_OQ) |
         _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
}

// Full vectors use plain stores: masked ones measured slower here on the
// index rows (8 bytes an output, the op's largest write).
ALWAYS_INLINE void store_indices(int64_t *p, __mmask16 m, __m512i index) {
  if (m == 0xffff) {
    _mm512_storeu_si512(p,
                        _mm512_cvtepi32_epi64(_mm512_castsi512_si256(index)));
    _mm512_storeu_si512(
        p + 8, _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(index, 1)));
    return;
  }
  _mm512_mask_storeu_epi64(
      p, (__mmask8)(m & 0xff),
      _mm512_cvtepi32_epi64(_mm512_castsi512_si256(index)));
  _mm512_mask_storeu_epi64(
      p + 8, (__mmask8)(m >> 8),
      _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(index, 1)));
}

// The winning tap's offset from the window's corner, from the pair steps'
// masks: right-column winners of the top and bottom pairs, and the lanes
// where the bottom pair won. Blends of vectors rather than mask logic
// (kandn/kor and two masked moves measured slower: mask ops bound the
// with-indices loop).
ALWAYS_INLINE __m512i tap_offsets(__mmask16 top_right, __mmask16 bottom_right,
                                  __mmask16 lower, __m512i below) {
  const __m512i one = _mm512_set1_epi32(1);
  __m512i top = _mm512_maskz_mov_epi32(top_right, one);
  __m512i bottom = _mm512_mask_add_epi32(below, bottom_right, below, one);
  return _mm512_mask_mov_epi32(top, lower, bottom);
}

// The reference's walk over the four taps (greater, or NaN, replaces):
// the best value and its tap's offset from the window's corner (0, 1,
// width, width + 1). Reduced as a tree (each row's pair, then the rows),
// which picks the same tap: the last NaN if any (a NaN in the bottom pair
// wins the final step; a NaN kept from the top pair loses to no bottom
// value), else the first maximum (the bottom pair only wins when strictly
// greater). Two short chains instead of one of three steps.
ALWAYS_INLINE __m512 max_taps(columns_t r0, columns_t r1, size_t width,
                              __m512i *offset) {
  const __m512i below = _mm512_set1_epi32((int32_t)width);
  __mmask16 top_right = replaces(r0.odd, r0.even);
  __mmask16 bottom_right = replaces(r1.odd, r1.even);
  __m512 top = _mm512_mask_mov_ps(r0.even, top_right, r0.odd);
  __m512 bottom = _mm512_mask_mov_ps(r1.even, bottom_right, r1.odd);
  __mmask16 lower = replaces(bottom, top);
  *offset = tap_offsets(top_right, bottom_right, lower, below);
  return _mm512_mask_mov_ps(top, lower, bottom);
}

// max_taps, faster for windows without NaN, which most are: one compare
// a step (greater alone) after two that look for NaN in the four taps.
ALWAYS_INLINE __m512 max_taps_checked(columns_t r0, columns_t r1,
                                      size_t width, __m512i *offset) {
  __mmask16 nan = _mm512_cmp_ps_mask(r0.even, r0.odd, _CMP_UNORD_Q) |
                  _mm512_cmp_ps_mask(r1.even, r1.odd, _CMP_UNORD_Q);
  if (nan != 0) {
    return max_taps(r0, r1, width, offset);
  }
  const __m512i below = _mm512_set1_epi32((int32_t)width);
  __mmask16 top_right = _mm512_cmp_ps_mask(r0.odd, r0.even, _CMP_GT_OQ);
  __mmask16 bottom_right = _mm512_cmp_ps_mask(r1.odd, r1.even, _CMP_GT_OQ);
  __m512 top = _mm512_mask_mov_ps(r0.even, top_right, r0.odd);
  __m512 bottom = _mm512_mask_mov_ps(r1.even, bottom_right, r1.odd);
  __mmask16 lower = _mm512_cmp_ps_mask(bottom, top, _CMP_GT_OQ);
  *offset = tap_offsets(top_right, bottom_right, lower, below);
  return _mm512_mask_mov_ps(top, lower, bottom);
}

// ((0 + x00) + x01) + x10) + x11, the reference's order from +0.0.
ALWAYS_INLINE __m512 sum_taps(columns_t r0, columns_t r1) {
  __m512 sum = _mm512_add_ps(_mm512_setzero_ps(), r0.even);
  sum = _mm512_add_ps(sum, r0.odd);
  sum = _mm512_add_ps(sum, r1.even);
  return _mm512_add_ps(sum, r1.odd);
}

void etr_pool_max_row_2x2s2_avx512(const float *plane, size_t width,
                                   size_t h0, size_t w0, size_t count,
                                   float *out, int64_t *indices) {
  const float *top = plane + h0 * width + w0;
  // Lane l's window corner is 2 l past the block's.
  __m512i corner = _mm512_add_epi32(
      _mm512_set1_epi32((int32_t)(h0 * width + w0)),
      _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26,
                        28, 30));
  for (size_t k = 0; k < count; k += 16) {
    size_t lanes = count - k < 16 ? count - k : 16;
    __mmask16 active = mask16(lanes);
    __mmask16 lo = mask16(2 * lanes);
    __mmask16 hi = lanes > 8 ? mask16(2 * lanes - 16) : 0;
    columns_t r0 = load_pairs(top + 2 * k, lo, hi);
    columns_t r1 = load_pairs(top + width + 2 * k, lo, hi);
    __m512i offset;
    __m512 best = max_taps(r0, r1, width, &offset);
    if (lanes == 16) {
      _mm512_storeu_ps(out + k, best);
    } else {
      _mm512_mask_storeu_ps(out + k, active, best);
    }
    if (indices != NULL) {
      store_indices(indices + k, active, _mm512_add_epi32(corner, offset));
    }
    corner = _mm512_add_epi32(corner, _mm512_set1_epi32(32));
  }
}

bool etr_pool_avg_row_2x2s2_avx512(const float *plane, size_t width,
                                   size_t h0, size_t w0, size_t count,
                                   float divisor, float *out) {
  const float *top = plane + h0 * width + w0;
  const __m512 d = _mm512_set1_ps(divisor);
  __mmask16 not_finite = 0;
  for (size_t k = 0; k < count; k += 16) {
    size_t lanes = count - k < 16 ? count - k : 16;
    __mmask16 active = mask16(lanes);
    __mmask16 lo = mask16(2 * lanes);
    __mmask16 hi = lanes > 8 ? mask16(2 * lanes - 16) : 0;
    columns_t r0 = load_pairs(top + 2 * k, lo, hi);
    columns_t r1 = load_pairs(top + width + 2 * k, lo, hi);
    __m512 q = _mm512_div_ps(sum_taps(r0, r1), d);
    // 0x99: QNaN, SNaN, +inf, -inf.
    not_finite |= _mm512_mask_fpclass_ps_mask(active, q, 0x99);
    _mm512_mask_storeu_ps(out + k, active, q);
  }
  return not_finite == 0;
}

// ---------------------------------------------------------------------------
// Whole planes (every window inside: see pool.h). Output rows are walked
// in memory order across planes; rows of up to 8 outputs go two to a
// vector (the rows' outputs are adjacent in `out`), wider rows to the row
// kernels above, inlined.

typedef struct row_walk {
  const float *in;
  size_t plane_size;  // height * width
  size_t width;
  size_t out_height;
  size_t plane;
  size_t oh;
} row_walk_t;

// The next output row's window corners: its top input row and the plane
// offset of its first corner (for the indices).
ALWAYS_INLINE const float *next_row(row_walk_t *w, int32_t *corner) {
  size_t offset = 2 * w->oh * w->width;
  const float *top = w->in + w->plane * w->plane_size + offset;
  *corner = (int32_t)offset;
  if (++w->oh == w->out_height) {
    w->oh = 0;
    ++w->plane;
  }
  return top;
}

// Lane l of a row pair: output l of the first row (l < out_width) or
// output l - out_width of the second, at 2 l or 2 (l - out_width) past
// its row's corner; the even tap at that column of the first load (index
// < 16) or of the second.
typedef struct pair_layout {
  __m512i even;    // vpermt2ps indices of the even (left) taps
  __m512i odd;     // of the odd (right) taps
  __m512i column;  // 2 l or 2 (l - out_width)
  __mmask16 second;  // lanes of the second row
  __mmask16 load;    // the 2 * out_width floats of a row
} pair_layout_t;

static pair_layout_t pair_layout(size_t out_width) {
  int32_t even[16];
  int32_t column[16];
  for (int32_t l = 0; l < 16; ++l) {
    int32_t k = l < (int32_t)out_width ? l : l - (int32_t)out_width;
    column[l] = 2 * k;
    even[l] = (l < (int32_t)out_width ? 0 : 16) + (2 * k & 15);
  }
  pair_layout_t p;
  p.even = _mm512_loadu_si512(even);
  p.odd = _mm512_add_epi32(p.even, _mm512_set1_epi32(1));
  p.column = _mm512_loadu_si512(column);
  p.second = (__mmask16)(mask16(2 * out_width) & ~mask16(out_width));
  p.load = mask16(2 * out_width);
  return p;
}

// One or two rows' taps (t0 and t1 the top input rows; t1 unused when
// `two` is false).
ALWAYS_INLINE void load_pair_rows(const pair_layout_t *p, const float *t0,
                                  const float *t1, bool two, size_t width,
                                  columns_t *r0, columns_t *r1) {
  __mmask16 second = two ? p->load : 0;
  __m512 a0 = _mm512_maskz_loadu_ps(p->load, t0);
  __m512 b0 = _mm512_maskz_loadu_ps(second, two ? t1 : t0);
  __m512 a1 = _mm512_maskz_loadu_ps(p->load, t0 + width);
  __m512 b1 = _mm512_maskz_loadu_ps(second, (two ? t1 : t0) + width);
  r0->even = _mm512_permutex2var_ps(a0, p->even, b0);
  r0->odd = _mm512_permutex2var_ps(a0, p->odd, b0);
  r1->even = _mm512_permutex2var_ps(a1, p->even, b1);
  r1->odd = _mm512_permutex2var_ps(a1, p->odd, b1);
}

// ---------------------------------------------------------------------------
// Values only (the fused max pool, whose indices nobody reads): full
// blocks of 16 outputs without the column split. The 8 windows of 16
// input columns sit in 64-bit lanes, the left tap in the low half and the
// right one in the high half, which a 32-bit shift right of each 64-bit
// lane brings down: a shift, not a shuffle (the split's 4 vpermt2ps bound
// it). The tree of max_taps runs in the low halves (the high halves'
// results are unused) and one vpermt2ps packs the two vectors' low halves
// into the 16 outputs. Windows without NaN take vmaxps (a > b ? a : b;
// the later tap first keeps the first of equal taps, a zero's sign
// included). (Measured for the indices too: no faster, so they keep the
// split, whose masks give them in order.)

ALWAYS_INLINE __m512 right_taps(__m512 row) {
  return _mm512_castsi512_ps(_mm512_srli_epi64(_mm512_castps_si512(row), 32));
}

// Window k's maximum in 32-bit lane 2 k.
ALWAYS_INLINE __m512 max_half(__m512 top_row, __m512 bottom_row,
                              bool nan_free) {
  __m512 top_right = right_taps(top_row);
  __m512 bottom_right = right_taps(bottom_row);
  if (nan_free) {
    return _mm512_max_ps(_mm512_max_ps(bottom_right, bottom_row),
                         _mm512_max_ps(top_right, top_row));
  }
  __m512 top = _mm512_mask_mov_ps(top_row, replaces(top_right, top_row),
                                  top_right);
  __m512 bottom = _mm512_mask_mov_ps(
      bottom_row, replaces(bottom_right, bottom_row), bottom_right);
  return _mm512_mask_mov_ps(top, replaces(bottom, top), bottom);
}

// The 16 outputs whose windows start at column 0 of `top` (the top row of
// their row pair).
ALWAYS_INLINE void max_block16_values(const float *top, size_t width,
                                      float *out) {
  const __m512i pack = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18,
                                         20, 22, 24, 26, 28, 30);
  __m512 a0 = _mm512_loadu_ps(top);
  __m512 b0 = _mm512_loadu_ps(top + 16);
  __m512 a1 = _mm512_loadu_ps(top + width);
  __m512 b1 = _mm512_loadu_ps(top + width + 16);
  bool nan_free = (_mm512_cmp_ps_mask(a0, a1, _CMP_UNORD_Q) |
                   _mm512_cmp_ps_mask(b0, b1, _CMP_UNORD_Q)) == 0;
  __m512 first;
  __m512 second;
  if (nan_free) {
    first = max_half(a0, a1, true);
    second = max_half(b0, b1, true);
  } else {
    first = max_half(a0, a1, false);
    second = max_half(b0, b1, false);
  }
  _mm512_storeu_ps(out, _mm512_permutex2var_ps(first, pack, second));
}

// Rows of more than 8 outputs: every row's full blocks of 16 outputs
// unmasked in one inlined loop, then its masked tail. `with_indices` is a
// constant in each instantiation, so the values-only loop carries no
// index work.
ALWAYS_INLINE void max_wide_rows(const float *in, size_t planes,
                                 size_t height, size_t width,
                                 size_t out_height, size_t out_width,
                                 float *out, int64_t *indices,
                                 bool with_indices) {
  const __m512i lanes2 = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18,
                                           20, 22, 24, 26, 28, 30);
  const __m512i step = _mm512_set1_epi32(32);
  size_t full = out_width / 16;
  size_t tail = out_width % 16;
  __mmask16 active = mask16(tail);
  __mmask16 lo = mask16(2 * tail);
  __mmask16 hi = tail > 8 ? mask16(2 * tail - 16) : 0;
  for (size_t plane = 0; plane < planes; ++plane) {
    const float *x = in + plane * height * width;
    for (size_t oh = 0; oh < out_height; ++oh) {
      const float *top = x + 2 * oh * width;
      __m512i corner = _mm512_add_epi32(
          _mm512_set1_epi32((int32_t)(2 * oh * width)), lanes2);
      for (size_t b = 0; b < full && !with_indices; ++b) {
        max_block16_values(top + 32 * b, width, out + 16 * b);
      }
      for (size_t b = 0; b < full && with_indices; ++b) {
        columns_t r0 = load_pairs(top + 32 * b, 0xffff, 0xffff);
        columns_t r1 = load_pairs(top + width + 32 * b, 0xffff, 0xffff);
        __m512i offset;
        __m512 best = max_taps_checked(r0, r1, width, &offset);
        _mm512_storeu_ps(out + 16 * b, best);
        store_indices(indices + 16 * b, 0xffff,
                      _mm512_add_epi32(corner, offset));
        corner = _mm512_add_epi32(corner, step);
      }
      if (tail != 0) {
        columns_t r0 = load_pairs(top + 32 * full, lo, hi);
        columns_t r1 = load_pairs(top + width + 32 * full, lo, hi);
        __m512i offset;
        __m512 best = max_taps_checked(r0, r1, width, &offset);
        _mm512_mask_storeu_ps(out + 16 * full, active, best);
        if (with_indices) {
          store_indices(indices + 16 * full, active,
                        _mm512_add_epi32(corner, offset));
        }
      }
      out += out_width;
      if (with_indices) {
        indices += out_width;
      }
    }
  }
}

void etr_pool_max_planes_2x2s2_avx512(const float *in, size_t planes,
                                      size_t height, size_t width,
                                      size_t out_height, size_t out_width,
                                      float *out, int64_t *indices) {
  if (out_width > 8) {
    if (indices != NULL) {
      max_wide_rows(in, planes, height, width, out_height, out_width, out,
                    indices, true);
    } else {
      max_wide_rows(in, planes, height, width, out_height, out_width, out,
                    NULL, false);
    }
    return;
  }
  row_walk_t walk = {in, height * width, width, out_height, 0, 0};
  size_t rows = planes * out_height;
  pair_layout_t p = pair_layout(out_width);
  for (size_t r = 0; r < rows; r += 2) {
    bool two = r + 1 < rows;
    int32_t c0;
    int32_t c1 = 0;
    const float *t0 = next_row(&walk, &c0);
    const float *t1 = two ? next_row(&walk, &c1) : t0;
    columns_t r0;
    columns_t r1;
    load_pair_rows(&p, t0, t1, two, width, &r0, &r1);
    __m512i offset;
    __m512 best = max_taps_checked(r0, r1, width, &offset);
    __mmask16 active = two ? p.load : mask16(out_width);
    _mm512_mask_storeu_ps(out + r * out_width, active, best);
    if (indices != NULL) {
      __m512i corner = _mm512_mask_blend_epi32(
          p.second, _mm512_set1_epi32(c0), _mm512_set1_epi32(c1));
      store_indices(indices + r * out_width, active,
                    _mm512_add_epi32(_mm512_add_epi32(corner, p.column),
                                     offset));
    }
  }
}

bool etr_pool_avg_planes_2x2s2_avx512(const float *in, size_t planes,
                                      size_t height, size_t width,
                                      size_t out_height, size_t out_width,
                                      float divisor, float *out) {
  row_walk_t walk = {in, height * width, width, out_height, 0, 0};
  size_t rows = planes * out_height;
  bool finite = true;
  if (out_width > 8) {
    for (size_t r = 0; r < rows; ++r) {
      int32_t corner;
      const float *top = next_row(&walk, &corner);
      finite &= etr_pool_avg_row_2x2s2_avx512(top, width, 0, 0, out_width,
                                              divisor, out + r * out_width);
    }
    return finite;
  }
  pair_layout_t p = pair_layout(out_width);
  const __m512 d = _mm512_set1_ps(divisor);
  __mmask16 not_finite = 0;
  for (size_t r = 0; r < rows; r += 2) {
    bool two = r + 1 < rows;
    int32_t corner;
    const float *t0 = next_row(&walk, &corner);
    const float *t1 = two ? next_row(&walk, &corner) : t0;
    columns_t r0;
    columns_t r1;
    load_pair_rows(&p, t0, t1, two, width, &r0, &r1);
    __m512 q = _mm512_div_ps(sum_taps(r0, r1), d);
    __mmask16 active = two ? p.load : mask16(out_width);
    not_finite |= _mm512_mask_fpclass_ps_mask(active, q, 0x99);
    _mm512_mask_storeu_ps(out + r * out_width, active, q);
  }
  return finite && not_finite == 0;
}

// SPDX-License-Identifier: Apache-2.0
//
// Resampling microkernels, AVX-512 (F, BW, DQ, VL): 16 outputs per step
// with masked gathers (vgatherdps reads only active lanes) or, for the
// bilinear rows whose taps lie within 32 columns, permutes of a window
// loaded under a mask; duplication by
// a lane permutation of 8 inputs, masked tails, so nothing past a row or
// channel vector is touched. Semantics in resample.h.
#include <immintrin.h>

#include "ops_optimized/conv/lanes_avx512.h"
#include "ops_optimized/resample/resample.h"

static inline __mmask16 mask16(size_t count) {
  return count >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << count) - 1u);
}

static inline __m512 gather(__mmask16 m, const float *base, __m512i index) {
  return _mm512_mask_i32gather_ps(_mm512_setzero_ps(), m, index, base, 4);
}

static void gather_row_avx512(const float *src, const int32_t *index,
                              size_t count, float *dst) {
  for (size_t k = 0; k < count; k += 16) {
    __mmask16 m = mask16(count - k);
    __m512i i = _mm512_maskz_loadu_epi32(m, index + k);
    _mm512_mask_storeu_ps(dst + k, m, gather(m, src, i));
  }
}

static void duplicate_row_avx512(const float *src, size_t count,
                                 float *dst) {
  const __m512i pairs = _mm512_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5,
                                          6, 6, 7, 7);
  for (size_t k = 0; k < count; k += 8) {
    size_t lanes = count - k < 8 ? count - k : 8;
    __m256 v = _mm256_maskz_loadu_ps((__mmask8)((1u << lanes) - 1u), src + k);
    _mm512_mask_storeu_ps(
        dst + 2 * k, mask16(2 * lanes),
        _mm512_permutexvar_ps(pairs, _mm512_castps256_ps512(v)));
  }
}

// The 16 outputs of one step take their inputs from a window of at most
// 32 consecutive floats of each row when the taps span fewer than 32
// columns (any upsampling, downsampling down to 1/2): the window is two
// masked loads from the first tap on (only up to the last tap: nothing
// past it is read) and the taps are two-source lane permutes, in place of
// four gathers (vgatherdps: ~6x slower than the permutes on this machine;
// 2x upsampling of [1,64,56,56] 828 -> 275 us, bench run.sh). Same values,
// same FMAs: the results are those of the gathers bit for bit. Wider
// spans gather.
// block_taps: where the 16 outputs from k (lanes m) find their
// horizontal taps, the window's masks and each tap's lane in it when
// both taps of every lane lie within 32 columns, else the gathers'
// indices.
typedef struct block_taps {
  __mmask16 m;
  bool window;
  int32_t base;
  __mmask16 lo, hi;
  __m512i a, b;  // window lanes, or gather indices
} block_taps_t;

static inline __attribute__((always_inline)) block_taps_t block_taps(
    const int32_t *i0, const int32_t *i1, size_t k, size_t count) {
  block_taps_t t;
  t.m = mask16(count - k);
  size_t last = k + (count - k < 16 ? count - k : 16) - 1;
  __m512i a = _mm512_maskz_loadu_epi32(t.m, i0 + k);
  __m512i b = _mm512_maskz_loadu_epi32(t.m, i1 + k);
  int32_t base = i0[k];
  int32_t span = i1[last] - base;  // the window's last column
  __m512i first = _mm512_set1_epi32(base);
  __m512i ra = _mm512_sub_epi32(a, first);
  __m512i rb = _mm512_sub_epi32(b, first);
  __m512i top_column = _mm512_set1_epi32(span);
  __m512i zero = _mm512_setzero_si512();
  // Every active tap inside [0, span], and span < 32.
  __mmask16 inside =
      _mm512_mask_cmpge_epi32_mask(t.m, ra, zero) &
      _mm512_mask_cmple_epi32_mask(t.m, ra, top_column) &
      _mm512_mask_cmpge_epi32_mask(t.m, rb, zero) &
      _mm512_mask_cmple_epi32_mask(t.m, rb, top_column);
  t.window = span >= 0 && span < 32 && inside == t.m;
  t.base = base;
  t.lo = first_lanes(span + 1);
  t.hi = first_lanes(span + 1 - 16);
  t.a = t.window ? ra : a;
  t.b = t.window ? rb : b;
  return t;
}

// Row r's two taps for the block: *ta lane j is r[i0[k + j]], *tb r[i1[k +
// j]].
static inline __attribute__((always_inline)) void row_taps(
    const block_taps_t *t, const float *r, __m512 *ta, __m512 *tb) {
  if (t->window) {
    __m512 lo = _mm512_maskz_loadu_ps(t->lo, r + t->base);
    __m512 hi = _mm512_maskz_loadu_ps(t->hi, r + t->base + 16);
    *ta = _mm512_permutex2var_ps(lo, t->a, hi);
    *tb = _mm512_permutex2var_ps(lo, t->b, hi);
  } else {
    *ta = gather(t->m, r, t->a);
    *tb = gather(t->m, r, t->b);
  }
}

static void bilinear_row_avx512(const float *r0, const float *r1, float h0,
                                float h1, const int32_t *i0,
                                const int32_t *i1, const float *l0,
                                const float *l1, size_t count, float *dst) {
  __m512 hv0 = _mm512_set1_ps(h0);
  __m512 hv1 = _mm512_set1_ps(h1);
  for (size_t k = 0; k < count; k += 16) {
    const block_taps_t t = block_taps(i0, i1, k, count);
    __m512 w0 = _mm512_maskz_loadu_ps(t.m, l0 + k);
    __m512 w1 = _mm512_maskz_loadu_ps(t.m, l1 + k);
    __m512 ta, tb, ba, bb;
    row_taps(&t, r0, &ta, &tb);
    row_taps(&t, r1, &ba, &bb);
    __m512 top = _mm512_fmadd_ps(w0, ta, _mm512_mul_ps(w1, tb));
    __m512 bottom = _mm512_fmadd_ps(w0, ba, _mm512_mul_ps(w1, bb));
    __m512 blend = _mm512_fmadd_ps(hv0, top, _mm512_mul_ps(hv1, bottom));
    _mm512_mask_storeu_ps(dst + k, t.m, blend);
  }
}

// Blocks outer, rows inner: a block's window and lanes are worked out
// once for all the rows.
static void interp_rows_avx512(const float *src, size_t src_stride,
                               size_t rows, const int32_t *i0,
                               const int32_t *i1, const float *l0,
                               const float *l1, size_t count, float *dst) {
  for (size_t k = 0; k < count; k += 16) {
    const block_taps_t t = block_taps(i0, i1, k, count);
    __m512 w0 = _mm512_maskz_loadu_ps(t.m, l0 + k);
    __m512 w1 = _mm512_maskz_loadu_ps(t.m, l1 + k);
    for (size_t j = 0; j < rows; ++j) {
      __m512 ta, tb;
      row_taps(&t, src + j * src_stride, &ta, &tb);
      _mm512_mask_storeu_ps(dst + j * count + k, t.m,
                            _mm512_fmadd_ps(w0, ta, _mm512_mul_ps(w1, tb)));
    }
  }
}

static void blend_rows_avx512(const float *top, const float *bottom,
                              float h0, float h1, size_t count, float *dst) {
  __m512 hv0 = _mm512_set1_ps(h0);
  __m512 hv1 = _mm512_set1_ps(h1);
  for (size_t k = 0; k < count; k += 16) {
    __mmask16 m = mask16(count - k);
    __m512 t = _mm512_maskz_loadu_ps(m, top + k);
    __m512 b = _mm512_maskz_loadu_ps(m, bottom + k);
    _mm512_mask_storeu_ps(dst + k, m,
                          _mm512_fmadd_ps(hv0, t, _mm512_mul_ps(hv1, b)));
  }
}

static void bilinear_pixel_avx512(const float *a, const float *b,
                                  const float *c, const float *d, float h0,
                                  float h1, float w0, float w1, size_t count,
                                  float *dst) {
  __m512 hv0 = _mm512_set1_ps(h0);
  __m512 hv1 = _mm512_set1_ps(h1);
  __m512 wv0 = _mm512_set1_ps(w0);
  __m512 wv1 = _mm512_set1_ps(w1);
  for (size_t k = 0; k < count; k += 16) {
    __mmask16 m = mask16(count - k);
    __m512 top = _mm512_fmadd_ps(
        wv0, _mm512_maskz_loadu_ps(m, a + k),
        _mm512_mul_ps(wv1, _mm512_maskz_loadu_ps(m, b + k)));
    __m512 bottom = _mm512_fmadd_ps(
        wv0, _mm512_maskz_loadu_ps(m, c + k),
        _mm512_mul_ps(wv1, _mm512_maskz_loadu_ps(m, d + k)));
    __m512 blend = _mm512_fmadd_ps(hv0, top, _mm512_mul_ps(hv1, bottom));
    _mm512_mask_storeu_ps(dst + k, m, blend);
  }
}

const etr_resample_kernels_t etr_resample_kernels_avx512 = {
    .gather_row = gather_row_avx512,
    .duplicate_row = duplicate_row_avx512,
    .bilinear_row = bilinear_row_avx512,
    .interp_rows = interp_rows_avx512,
    .blend_rows = blend_rows_avx512,
    .bilinear_pixel = bilinear_pixel_avx512,
};

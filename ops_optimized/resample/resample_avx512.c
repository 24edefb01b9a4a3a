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
static void bilinear_row_avx512(const float *r0, const float *r1, float h0,
                                float h1, const int32_t *i0,
                                const int32_t *i1, const float *l0,
                                const float *l1, size_t count, float *dst) {
  __m512 hv0 = _mm512_set1_ps(h0);
  __m512 hv1 = _mm512_set1_ps(h1);
  for (size_t k = 0; k < count; k += 16) {
    __mmask16 m = mask16(count - k);
    size_t last = k + (count - k < 16 ? count - k : 16) - 1;
    __m512i a = _mm512_maskz_loadu_epi32(m, i0 + k);
    __m512i b = _mm512_maskz_loadu_epi32(m, i1 + k);
    __m512 w0 = _mm512_maskz_loadu_ps(m, l0 + k);
    __m512 w1 = _mm512_maskz_loadu_ps(m, l1 + k);
    int32_t base = i0[k];
    int32_t span = i1[last] - base;  // the window's last column
    __m512i first = _mm512_set1_epi32(base);
    __m512i ra = _mm512_sub_epi32(a, first);
    __m512i rb = _mm512_sub_epi32(b, first);
    __m512i top_column = _mm512_set1_epi32(span);
    __m512i zero = _mm512_setzero_si512();
    // Every active tap inside [0, span], and span < 32.
    __mmask16 inside =
        _mm512_mask_cmpge_epi32_mask(m, ra, zero) &
        _mm512_mask_cmple_epi32_mask(m, ra, top_column) &
        _mm512_mask_cmpge_epi32_mask(m, rb, zero) &
        _mm512_mask_cmple_epi32_mask(m, rb, top_column);
    __m512 ta, tb, ba, bb;
    if (span >= 0 && span < 32 && inside == m) {
      __mmask16 lo = first_lanes(span + 1);
      __mmask16 hi = first_lanes(span + 1 - 16);
      __m512 r0lo = _mm512_maskz_loadu_ps(lo, r0 + base);
      __m512 r0hi = _mm512_maskz_loadu_ps(hi, r0 + base + 16);
      __m512 r1lo = _mm512_maskz_loadu_ps(lo, r1 + base);
      __m512 r1hi = _mm512_maskz_loadu_ps(hi, r1 + base + 16);
      ta = _mm512_permutex2var_ps(r0lo, ra, r0hi);
      tb = _mm512_permutex2var_ps(r0lo, rb, r0hi);
      ba = _mm512_permutex2var_ps(r1lo, ra, r1hi);
      bb = _mm512_permutex2var_ps(r1lo, rb, r1hi);
    } else {
      ta = gather(m, r0, a);
      tb = gather(m, r0, b);
      ba = gather(m, r1, a);
      bb = gather(m, r1, b);
    }
    __m512 top = _mm512_fmadd_ps(w0, ta, _mm512_mul_ps(w1, tb));
    __m512 bottom = _mm512_fmadd_ps(w0, ba, _mm512_mul_ps(w1, bb));
    __m512 blend = _mm512_fmadd_ps(hv0, top, _mm512_mul_ps(hv1, bottom));
    _mm512_mask_storeu_ps(dst + k, m, blend);
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
    .bilinear_pixel = bilinear_pixel_avx512,
};

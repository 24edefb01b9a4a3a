// SPDX-License-Identifier: Apache-2.0
//
// out[2i] += a[i], out[2i + 1] += b[i] (conv.h), and the storing twin
// out[2i] = (a[i] + 0) + bias, AVX-512: 16 of a and b
// interleaved by two vpermt2ps into 32 outs; the tail under lane masks
// (nothing past 2n is read or written). The plane form runs each chunk of
// 16 pairs down all rows under masks worked out once for the chunk.
#include <immintrin.h>
#include <stdint.h>

#include "ops_optimized/conv/conv.h"

// vpermt2ps indices interleaving lanes first .. first + 7 of a (even out
// lanes) with the same lanes of b (odd): first 0 gives the low 16 outs, 8
// the high 16.
static inline __m512i interleave_index(int first) {
  return _mm512_add_epi32(
      _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7,
                        23),
      _mm512_set1_epi32(first));
}

void etr_conv_add_pairs_avx512(size_t n, const float *a, const float *b,
                               float *out) {
  const __m512i low = interleave_index(0);
  const __m512i high = interleave_index(8);
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m512 va = _mm512_loadu_ps(a + i);
    __m512 vb = _mm512_loadu_ps(b + i);
    float *o = out + 2 * i;
    _mm512_storeu_ps(o, _mm512_add_ps(_mm512_loadu_ps(o),
                                      _mm512_permutex2var_ps(va, low, vb)));
    _mm512_storeu_ps(o + 16,
                     _mm512_add_ps(_mm512_loadu_ps(o + 16),
                                   _mm512_permutex2var_ps(va, high, vb)));
  }
  if (i < n) {
    size_t left = n - i;  // 1..15
    __mmask16 in = (__mmask16)((1u << left) - 1u);
    size_t outs = 2 * left;  // 2..30
    __mmask16 first =
        outs >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << outs) - 1u);
    __mmask16 second =
        outs > 16 ? (__mmask16)((1u << (outs - 16)) - 1u) : (__mmask16)0;
    __m512 va = _mm512_maskz_loadu_ps(in, a + i);
    __m512 vb = _mm512_maskz_loadu_ps(in, b + i);
    float *o = out + 2 * i;
    _mm512_mask_storeu_ps(
        o, first,
        _mm512_add_ps(_mm512_maskz_loadu_ps(first, o),
                      _mm512_permutex2var_ps(va, low, vb)));
    if (second != 0) {
      _mm512_mask_storeu_ps(
          o + 16, second,
          _mm512_add_ps(_mm512_maskz_loadu_ps(second, o + 16),
                        _mm512_permutex2var_ps(va, high, vb)));
    }
  }
}

void etr_conv_put_pairs_avx512(size_t n, const float *a, const float *b,
                               float bias, float *out) {
  const __m512i low = interleave_index(0);
  const __m512i high = interleave_index(8);
  const __m512 zero = _mm512_setzero_ps();
  const __m512 vbias = _mm512_set1_ps(bias);
  size_t i = 0;
  for (; i < n; i += 16) {
    const size_t left = n - i < 16 ? n - i : 16;
    const __mmask16 in = (__mmask16)((1u << left) - 1u);
    const size_t outs = 2 * left;  // 2..32
    const __mmask16 first =
        outs >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << outs) - 1u);
    const __mmask16 second =
        outs >= 32 ? (__mmask16)0xffff
        : outs > 16 ? (__mmask16)((1u << (outs - 16)) - 1u)
                    : (__mmask16)0;
    // (a + 0) + bias before the interleave: the same bits lane by lane.
    __m512 va = _mm512_add_ps(
        _mm512_add_ps(_mm512_maskz_loadu_ps(in, a + i), zero), vbias);
    __m512 vb = _mm512_add_ps(
        _mm512_add_ps(_mm512_maskz_loadu_ps(in, b + i), zero), vbias);
    _mm512_mask_storeu_ps(out + 2 * i, first,
                          _mm512_permutex2var_ps(va, low, vb));
    if (second != 0) {
      _mm512_mask_storeu_ps(out + 2 * i + 16, second,
                            _mm512_permutex2var_ps(va, high, vb));
    }
  }
}

// Lanes of [from, to) among t0 .. t0 + 15.
static __mmask16 range_lanes(int64_t t0, int64_t from, int64_t to) {
  int64_t lo = from > t0 ? from - t0 : 0;
  int64_t hi = to < t0 + 16 ? to - t0 : 16;
  if (hi <= lo) {
    return 0;
  }
  uint32_t span = hi - lo >= 16 ? 0xffffu : (1u << (hi - lo)) - 1u;
  return (__mmask16)(span << lo);
}

void etr_conv_add_pair_plane_avx512(const etr_conv_pair_plane_t *p) {
  const __m512i low = interleave_index(0);
  const __m512i high = interleave_index(8);
  const int64_t t_from = p->a_from < p->b_from ? p->a_from : p->b_from;
  const int64_t t_to = p->a_to > p->b_to ? p->a_to : p->b_to;
  for (int64_t t0 = t_from; t0 < t_to; t0 += 16) {
    const __mmask16 am = range_lanes(t0, p->a_from, p->a_to);
    const __mmask16 bm = range_lanes(t0, p->b_from, p->b_to);
    // Out lane 2l takes a's lane l, lane 2l + 1 b's.
    uint32_t both = 0;
    for (int l = 0; l < 16; ++l) {
      both |= (uint32_t)((am >> l) & 1u) << (2 * l);
      both |= (uint32_t)((bm >> l) & 1u) << (2 * l + 1);
    }
    const __mmask16 first = (__mmask16)both;
    const __mmask16 second = (__mmask16)(both >> 16);
    const float *a = p->a + t0;
    const float *b = p->b + t0;
    // The chunk's first out lane, 2 t0 + offset, may lie before the row
    // (a clipped lane): kept as an integer address, never dereferenced
    // there.
    uintptr_t o = (uintptr_t)p->out +
                  (uintptr_t)((2 * t0 + p->offset) *
                              (int64_t)sizeof(float));
    const uintptr_t o_step = (uintptr_t)(p->out_stride *
                                         (ptrdiff_t)sizeof(float));
    for (size_t y = 0; y < p->rows; ++y) {
      const __m512 va = _mm512_maskz_loadu_ps(am, a);
      const __m512 vb = _mm512_maskz_loadu_ps(bm, b);
      float *row = (float *)o;
      _mm512_mask_storeu_ps(
          row, first,
          _mm512_add_ps(_mm512_maskz_loadu_ps(first, row),
                        _mm512_permutex2var_ps(va, low, vb)));
      if (second != 0) {
        _mm512_mask_storeu_ps(
            (float *)(o + 16 * sizeof(float)), second,
            _mm512_add_ps(
                _mm512_maskz_loadu_ps(second,
                                      (float *)(o + 16 * sizeof(float))),
                _mm512_permutex2var_ps(va, high, vb)));
      }
      a += p->in_stride;
      b += p->in_stride;
      o += o_step;
    }
  }
}

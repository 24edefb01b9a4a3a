// SPDX-License-Identifier: Apache-2.0
//
// Max pooling without indices over whole NCHW planes, AVX-512 (pool.h's
// max_planes_values): the fused max pool whose indices nothing reads
// (fuse/fuse.h), every window position in one loop. The row kernels
// (pool_avx512.c) take the interior and leave each border output to the
// reference's per-window walk in C: on a ResNet stem's 3x3 stride-2
// padding-1 pool (32 x 48 x 48) those scalar windows and their driver were
// about as much time as the vectors.
//
// Here a 16-output block reads each tap's columns with masked loads whose
// masked-off lanes are -inf (the taps in the padding, or past the last
// output); rows outside the plane are skipped. The block starts from -inf
// and takes each tap in row-major order where it is greater or NaN, which
// is the reference's walk: -inf never wins, ties keep the earlier tap, the
// last NaN wins, and a window with no tap inside gives -inf (in a plane
// with no NaN, maxps alone does the same). Column stride 2 deinterleaves
// two masked loads with vpermt2ps. Two blocks of two out rows go at once
// (independent chains: one alone waits on each compare).
//
// A plane with neither NaN nor -0.0 (most: asked per plane) has one
// answer whatever the order of the taps, so a 3-column stride-2 window
// (ResNet's stem pool) takes the rows' maxima first and the columns after
// (plain_plane3): ResNet's stem pool (32 x 48 x 48, 3x3/2 padding 1) went
// from 14.3 to 9.6 us on AMD Zen 4, fused in the whole model.
#include <immintrin.h>
#include <math.h>

#include "ops_optimized/pool/pool.h"

#define ALWAYS_INLINE static inline __attribute__((always_inline))

// Bits [lo, hi) of a 32-bit mask, clipped to [0, 32).
ALWAYS_INLINE uint32_t range32(int64_t lo, int64_t hi) {
  lo = lo < 0 ? 0 : lo;
  hi = hi > 32 ? 32 : hi;
  if (hi <= lo) {
    return 0;
  }
  uint64_t span = ((uint64_t)1 << (hi - lo)) - 1u;
  return (uint32_t)(span << lo);
}

// Which lanes of one tap of one block read the row: stride 1, lanes l <
// count whose element base + l lies in [0, width) (`lo`); stride 2, the
// elements base + e, e <= 2 (count - 1), in [0, width), split into the
// two loads' masks. The same for every row and plane.
typedef struct tap_masks {
  __mmask16 lo;
  __mmask16 hi;
} tap_masks_t;

ALWAYS_INLINE tap_masks_t tap_masks(int64_t width, int64_t base,
                                    int64_t count, int64_t stride) {
  uint32_t m = range32(-base, width - base) &
               range32(0, stride == 1 ? count : 2 * count - 1);
  return (tap_masks_t){(__mmask16)m, (__mmask16)(m >> 16)};
}

// The block's values of one tap: lanes l < count take the row's element
// base + l * stride where it lies in [0, width), -inf elsewhere.
ALWAYS_INLINE __m512 tap(const float *row, int64_t base, tap_masks_t m,
                         int64_t stride) {
  const __m512 lowest = _mm512_set1_ps(-INFINITY);
  // Masked-off lanes are not read: `row + base` may point before the row
  // or past the plane.
  __m512 lo = _mm512_mask_loadu_ps(lowest, m.lo, row + base);
  if (stride == 1) {
    return lo;
  }
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18,
                                         20, 22, 24, 26, 28, 30);
  __m512 hi = _mm512_mask_loadu_ps(lowest, m.hi, row + base + 16);
  return _mm512_permutex2var_ps(lo, even, hi);
}

// best, or v where v > best or v is NaN (PyTorch's rule). maxps(v, best)
// is v > best ? v : best (best for ties, signed zeros and any NaN), which
// leaves only a NaN v to put in: one compare off the chain instead of two
// compares and a mask OR on it (the compares after each load were 40% of
// the kernel's time in perf).
// In a plane with no NaN (nan_free) maxps alone is the rule.
ALWAYS_INLINE __m512 take(__m512 best, __m512 v, bool nan_free) {
  if (nan_free) {
    return _mm512_max_ps(v, best);
  }
  return _mm512_mask_mov_ps(_mm512_max_ps(v, best),
                            _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q), v);
}

// What a plane holds that decides its loop: a NaN (PyTorch's rule for
// every tap), a -0.0 (maxps alone, taps in row-major order: ties keep
// the earlier tap, so +-0 ties come out as the reference's), or neither.
typedef enum plane_kind {
  PLANE_NAN,
  PLANE_SIGNED_ZERO,
  // No NaN and no -0.0: equal values are the same bits, so the maximum
  // of any taps in any order is the reference's, bit for bit.
  PLANE_PLAIN,
} plane_kind_t;

// The kind of the plane's `count` floats. Two vectors a step: one
// unordered compare of the pair for a NaN; for -0.0, the bits XOR the
// sign bit (0 only for -0.0), their unsigned minimum kept in a vector.
// 1.8 cycles a vector on AMD Zen 4, where a compare and a mask OR per
// vector per question took 3.5.
static plane_kind_t plane_kind(const float *x, int64_t count) {
  const __m512i sign = _mm512_set1_epi32((int32_t)0x80000000u);
  __mmask16 nan = 0;
  __m512i least = _mm512_set1_epi32(-1);
  int64_t i = 0;
  for (; i + 32 <= count; i += 32) {
    const __m512 a = _mm512_loadu_ps(x + i);
    const __m512 b = _mm512_loadu_ps(x + i + 16);
    nan = _kor_mask16(nan, _mm512_cmp_ps_mask(a, b, _CMP_UNORD_Q));
    least = _mm512_min_epu32(
        least,
        _mm512_min_epu32(_mm512_xor_si512(_mm512_castps_si512(a), sign),
                         _mm512_xor_si512(_mm512_castps_si512(b), sign)));
  }
  for (; i < count; i += 16) {
    // The tail's masked-off lanes read as 0.0 (XOR sign: not 0).
    const __m512 v =
        _mm512_maskz_loadu_ps((__mmask16)range32(0, count - i), x + i);
    nan = _kor_mask16(nan, _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q));
    least = _mm512_min_epu32(least,
                             _mm512_xor_si512(_mm512_castps_si512(v), sign));
  }
  if (nan != 0) {
    return PLANE_NAN;
  }
  return _mm512_reduce_min_epu32(least) == 0 ? PLANE_SIGNED_ZERO
                                             : PLANE_PLAIN;
}

#define MAX_BLOCKS 64   // 16-output blocks of a row with a mask table
#define MAX_COLUMNS 16  // window columns likewise

// The three taps of a 3-column window at column stride 2 (dilation 1)
// for one block whose first tap reads column base: columns base + 2l
// (even), base + 2l + 1 (odd) and base + 2l + 2 (the even ones moved down
// a lane, the last from column base + 32), from two loads and one
// element instead of six loads and three permutes. Columns outside
// [0, width) read as -inf; lanes past the block's outputs read columns
// of the row (or -inf) and are not stored.
ALWAYS_INLINE void row_taps3(const float *row, int64_t base,
                             tap_masks_t m, __mmask16 next, bool nan_free,
                             __m512 *best) {
  const __m512 lowest = _mm512_set1_ps(-INFINITY);
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18,
                                         20, 22, 24, 26, 28, 30);
  const __m512i odd = _mm512_add_epi32(even, _mm512_set1_epi32(1));
  // Masked-off lanes are not read: row + base may point before the row.
  const __m512 lo = _mm512_mask_loadu_ps(lowest, m.lo, row + base);
  const __m512 hi = _mm512_mask_loadu_ps(lowest, m.hi, row + base + 16);
  const __m512 last = _mm512_mask_loadu_ps(lowest, next, row + base + 32);
  const __m512 t0 = _mm512_permutex2var_ps(lo, even, hi);
  const __m512 t1 = _mm512_permutex2var_ps(lo, odd, hi);
  const __m512 t2 = _mm512_castsi512_ps(_mm512_alignr_epi32(
      _mm512_castps_si512(last), _mm512_castps_si512(t0), 1));
  *best = take(take(take(*best, t0, nan_free), t1, nan_free), t2, nan_free);
}

// One window row (input row h, skipped outside the plane) of one or two
// blocks into their maxima.
ALWAYS_INLINE void row_taps(const float *x, const etr_pool_planes_t *g,
                            int64_t h, int64_t base0, const tap_masks_t *m0,
                            const tap_masks_t *m1, bool two, int64_t stride,
                            bool nan_free, __m512 *b0, __m512 *b1) {
  if (h < 0 || h >= g->height) {
    return;
  }
  const float *row = x + h * g->width;
  if (stride == 2 && g->kernel_w == 3 && g->dilation_w == 1) {
    // m[0]: the row's columns base .. base + 31; m[1].lo: base + 32.
    row_taps3(row, base0, m0[0], m0[1].lo, nan_free, b0);
    if (two) {
      row_taps3(row, base0 + 32, m1[0], m1[1].lo, nan_free, b1);
    }
    return;
  }
  for (int64_t j = 0; j < g->kernel_w; ++j) {
    const int64_t base = base0 + j * g->dilation_w;
    *b0 = take(*b0, tap(row, base, m0[j], stride), nan_free);
    if (two) {
      *b1 = take(*b1, tap(row, base + 16 * stride, m1[j], stride),
                 nan_free);
    }
  }
}

typedef tap_masks_t block_masks_t[MAX_COLUMNS];

// One plane x into y, its taps by `take` with nan_free.
ALWAYS_INLINE void plane(const float *x, const etr_pool_planes_t *g,
                         int64_t stride, const block_masks_t *masks,
                         int64_t blocks, bool nan_free, float *y) {
  // Two out rows (or the last one alone) by two blocks at a time: four
  // independent chains, in named registers.
  for (int64_t oh = 0; oh < g->out_height; oh += 2) {
    const bool second = oh + 1 < g->out_height;
    for (int64_t b = 0; b < blocks; b += 2) {
      const bool two = b + 1 < blocks;
      const int64_t base0 = 16 * b * stride - g->pad_w;
      __m512 a0 = _mm512_set1_ps(-INFINITY);
      __m512 a1 = a0, c0 = a0, c1 = a0;
      for (int64_t i = 0; i < g->kernel_h; ++i) {
        const int64_t h = oh * g->stride_h - g->pad_h + i * g->dilation_h;
        row_taps(x, g, h, base0, masks[b], masks[b + 1], two, stride,
                 nan_free, &a0, &a1);
        if (second) {
          row_taps(x, g, h + g->stride_h, base0, masks[b], masks[b + 1],
                   two, stride, nan_free, &c0, &c1);
        }
      }
      const int64_t left = g->out_width - 16 * b;
      float *yrow = y + oh * g->out_width + 16 * b;
      _mm512_mask_storeu_ps(yrow, (__mmask16)range32(0, left), a0);
      if (two) {
        _mm512_mask_storeu_ps(yrow + 16, (__mmask16)range32(0, left - 16),
                              a1);
      }
      if (second) {
        yrow += g->out_width;
        _mm512_mask_storeu_ps(yrow, (__mmask16)range32(0, left), c0);
        if (two) {
          _mm512_mask_storeu_ps(yrow + 16, (__mmask16)range32(0, left - 16),
                                c1);
        }
      }
    }
  }
}

// A window's rows inside the plane: `count` rows from `first`, `step`
// floats apart.
typedef struct window_rows {
  const float *first;
  int64_t count;
  int64_t step;
} window_rows_t;

ALWAYS_INLINE window_rows_t window_rows(const float *x,
                                        const etr_pool_planes_t *g,
                                        int64_t oh) {
  window_rows_t r = {x, 0, g->dilation_h * g->width};
  for (int64_t i = 0; i < g->kernel_h; ++i) {
    const int64_t h = oh * g->stride_h - g->pad_h + i * g->dilation_h;
    if (h >= 0 && h < g->height) {
      r.first = r.count == 0 ? x + h * g->width : r.first;
      ++r.count;
    }
  }
  return r;
}

// The maximum over the rows of columns [c, c + 16), lanes m (the columns
// inside the row); -inf in the others.
ALWAYS_INLINE __m512 column_max(window_rows_t r, int64_t c, __mmask16 m) {
  const __m512 lowest = _mm512_set1_ps(-INFINITY);
  // Masked-off lanes are not read: the rows may end before c + 16.
  const float *at = r.first + c;
  if (r.count == 3) {
    const __m512 a = _mm512_mask_loadu_ps(lowest, m, at);
    const __m512 b = _mm512_mask_loadu_ps(lowest, m, at + r.step);
    return _mm512_max_ps(
        _mm512_max_ps(a, b), _mm512_mask_loadu_ps(lowest, m, at + 2 * r.step));
  }
  __m512 best = lowest;
  for (int64_t k = 0; k < r.count; ++k, at += r.step) {
    best = _mm512_max_ps(_mm512_mask_loadu_ps(lowest, m, at), best);
  }
  return best;
}

// One block of one out row from the window rows' maxima of its 32
// columns (lo, hi), with padding pad1 ? 1 : 0: the 16 outputs to store,
// in place of `carry` and `pending` (padding 1: the odd columns of the
// block before, column -1 in lane 15 first; padding 0: the even columns
// of the block before and its maximum so far, which wait for this
// block's first column and are the outputs returned).
ALWAYS_INLINE __m512 block3(__m512 lo, __m512 hi, bool pad1, __m512 *carry,
                            __m512 *pending) {
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18,
                                         20, 22, 24, 26, 28, 30);
  const __m512i odd = _mm512_add_epi32(even, _mm512_set1_epi32(1));
  const __m512 e = _mm512_permutex2var_ps(lo, even, hi);
  const __m512 o = _mm512_permutex2var_ps(lo, odd, hi);
  if (pad1) {
    // Lane l: columns 2 (16 b + l) - 1, + 0 and + 1.
    const __m512 left = _mm512_castsi512_ps(_mm512_alignr_epi32(
        _mm512_castps_si512(o), _mm512_castps_si512(*carry), 15));
    *carry = o;
    return _mm512_max_ps(_mm512_max_ps(left, e), o);
  }
  // Lane l of the block before: columns 2 (16 (b - 1) + l) + 0 and + 1
  // (pending), and + 2: its even ones moved down a lane, this block's
  // first in lane 15.
  const __m512 right = _mm512_castsi512_ps(_mm512_alignr_epi32(
      _mm512_castps_si512(e), _mm512_castps_si512(*carry), 1));
  const __m512 v = _mm512_max_ps(*pending, right);
  *carry = e;
  *pending = _mm512_max_ps(e, o);
  return v;
}

#define MAX_VECTORS (2 * MAX_BLOCKS + 2)

// One PLANE_PLAIN plane x into y with a 3-column window at column stride
// 2, dilation 1 and padding pad_w 0 or 1 (PyTorch allows no more): the
// window separated. For 16 outputs the window rows' maxima of 32 aligned
// columns (one load and one maxps a row a vector, no shuffles) are split
// into the even and odd columns (two permutes); the third tap is the odd
// columns moved up a lane (padding 1) or the even ones moved down
// (padding 0). ResNet's stem pool so takes 6 loads, 4 vertical maxima, 3
// shuffles and 2 maxima a block a row where plane() takes 9 loads, 9
// shuffles and 9 maxima. Two out rows at a time (independent chains).
// Any order of maxima gives the reference's bits in such a plane.
// `masks` holds the columns inside the row of each 16-column vector.
ALWAYS_INLINE void plain_plane3(const float *x, const etr_pool_planes_t *g,
                                const __mmask16 *masks, bool pad1,
                                float *y) {
  const __m512 lowest = _mm512_set1_ps(-INFINITY);
  const int64_t blocks = (g->out_width + 15) / 16;
  // Padding 0 stores block b - 1 at step b, up to b = blocks.
  const int64_t steps = pad1 ? blocks : blocks + 1;
  for (int64_t oh = 0; oh < g->out_height; oh += 2) {
    const bool second = oh + 1 < g->out_height;
    const window_rows_t r0 = window_rows(x, g, oh);
    const window_rows_t r1 = second ? window_rows(x, g, oh + 1) : r0;
    float *y0 = y + oh * g->out_width;
    float *y1 = y0 + g->out_width;
    __m512 carry0 = lowest, pending0 = lowest;
    __m512 carry1 = lowest, pending1 = lowest;
    for (int64_t b = 0; b < steps; ++b) {
      const int64_t c = 32 * b;
      const __mmask16 mlo = masks[2 * b];
      const __mmask16 mhi = masks[2 * b + 1];
      __m512 lo0 = column_max(r0, c, mlo);
      __m512 lo1 = column_max(r1, c, mlo);
      __m512 hi0 = lowest, hi1 = lowest;
      if (mhi != 0) {
        hi0 = column_max(r0, c + 16, mhi);
        hi1 = column_max(r1, c + 16, mhi);
      }
      const __m512 v0 = block3(lo0, hi0, pad1, &carry0, &pending0);
      const __m512 v1 = block3(lo1, hi1, pad1, &carry1, &pending1);
      if (!pad1 && b == 0) {
        continue;
      }
      const int64_t ow = pad1 ? 16 * b : 16 * (b - 1);
      const __mmask16 out = (__mmask16)range32(0, g->out_width - ow);
      _mm512_mask_storeu_ps(y0 + ow, out, v0);
      if (second) {
        _mm512_mask_storeu_ps(y1 + ow, out, v1);
      }
    }
  }
}

// All planes, rows of at most 16 MAX_BLOCKS outputs and windows of at
// most MAX_COLUMNS columns: each block's tap masks computed once. Each
// plane's kind is asked in one pass that leaves it in L1 for the loop
// after. A plane with no NaN takes maxps alone for each tap (one
// instruction instead of three: ResNet's stem pool, fused, old and new
// builds alternated, medians of 200 runs, went from 16.0 to 14.5 us on
// AMD Zen 4); one with no -0.0 either and a 3-column stride-2 window,
// plain_plane3 (14.3 to 9.6 us, `paired.py program --fuse --instr 3`).
ALWAYS_INLINE void planes(const float *in, const etr_pool_planes_t *g,
                          int64_t stride, float *out) {
  block_masks_t masks[MAX_BLOCKS];
  const int64_t blocks = (g->out_width + 15) / 16;
  const bool three = stride == 2 && g->kernel_w == 3 && g->dilation_w == 1;
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t left = g->out_width - 16 * b;
    const int64_t base = 16 * b * stride - g->pad_w;
    if (three) {  // row_taps3's: columns inside the row, lanes unlimited
      uint32_t m = range32(-base, g->width - base);
      masks[b][0] = (tap_masks_t){(__mmask16)m, (__mmask16)(m >> 16)};
      masks[b][1].lo = (__mmask16)(base + 32 >= 0 && base + 32 < g->width);
      continue;
    }
    for (int64_t j = 0; j < g->kernel_w; ++j) {
      masks[b][j] = tap_masks(g->width, base + j * g->dilation_w,
                              left < 16 ? left : 16, stride);
    }
  }
  // plain_plane3's: the columns inside the row of each vector.
  __mmask16 columns[MAX_VECTORS];
  for (int64_t v = 0; three && v < 2 * blocks + 2; ++v) {
    columns[v] = (__mmask16)range32(0, g->width - 16 * v);
  }
  const int64_t plane_size = g->height * g->width;
  const int64_t out_plane = g->out_height * g->out_width;
  for (size_t p = 0; p < g->planes; ++p) {
    const float *x = in + (int64_t)p * plane_size;
    float *y = out + (int64_t)p * out_plane;
    const plane_kind_t kind = plane_kind(x, plane_size);
    if (kind == PLANE_PLAIN && three && g->pad_w == 1) {
      plain_plane3(x, g, columns, true, y);
    } else if (kind == PLANE_PLAIN && three && g->pad_w == 0) {
      plain_plane3(x, g, columns, false, y);
    } else if (kind != PLANE_NAN) {
      plane(x, g, stride, masks, blocks, true, y);
    } else {
      plane(x, g, stride, masks, blocks, false, y);
    }
  }
}

bool etr_pool_max_planes_values_avx512(const float *in,
                                       const etr_pool_planes_t *g,
                                       float *out) {
  if (g->out_width > 16 * MAX_BLOCKS || g->kernel_w > MAX_COLUMNS) {
    return false;
  }
  if (g->stride_w == 1) {
    planes(in, g, 1, out);
  } else if (g->stride_w == 2) {
    planes(in, g, 2, out);
  } else {
    return false;
  }
  return true;
}

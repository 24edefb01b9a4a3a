// SPDX-License-Identifier: Apache-2.0
//
// Depthwise 3x3, stride 2, padding 1, NCHW, AVX2 + FMA (conv.h), one
// channel at a time with its input rows read in place. The blocked
// kernel (depthwise_blocked_avx2.c) transposed 8 channels' planes into a
// tile and its outputs back: at stride 2, four input pixels an output,
// the transposes took about 60% of its time (perf, conv_kernel_bench
// with ETREF_ISA=avx2 on Zen 4: 48x32x32 8.3 us, 96x8x8 1.55 us, three
// times the AVX-512 kernels on the same FMA pipes).
//
// Here each input row is split, 16 columns (8 outputs) at a time, into
// its even and odd columns by two in-lane shuffles (vshufps of the two
// loads), in the scrambled lane order (0, 1, 4, 5, 2, 3, 6, 7) the FMAs
// do not mind. Output j reads columns 2 j - 1 .. 2 j + 1: kernel columns 1
// and 2 are the even and odd columns at j (`mid`), column 0 the odd
// column at j - 1 (`lead`, one output early). One permute puts `mid` in
// order, another `lead` in order one output on, its lane 0 taken from the
// block before (zero at the row's start, the padding). Two output rows a
// pass share their middle input row: five row splits for two rows.
//
// The row pairs whose five input rows are all inside the image (all but
// the first and the last) take a loop with no padding rows to test and
// plain loads for every block but the last: conv_kernel_bench
// (ETREF_ISA=avx2, Zen 4, medians of 3 alternated rounds) 144x56x56
// 57.1 -> 52.9 us, 192x28x28 25.3 -> 21.4, 96x112x112 115.9 -> 108.7,
// 16x224x224 93.6 -> 85.4, 4x28x28 0.51 -> 0.43, 48x32x32 5.0 -> 5.2
// (8 row pairs, 2 of them at the edges). Splitting each row just before
// its FMAs instead ran the middle layers faster still (192x28x28 19.3)
// but 96x112x112, whose input streams from L3, 12% slower than before
// (with a prefetch of the next pair's rows 1% slower).
//
// Taps outside the image contribute zeros (masked loads, zero rows),
// which add nothing: padded convolutions with a non-finite weight never
// come here (op_convolution.c). Each output is (mid + lead) + bias, mid
// one FMA chain from +0.0 over kernel rows 0 to 2, columns 1 and 2 of
// each, lead one over column 0 (padding taps included, as zeros); then
// the post as post_avx2.c applies it (an FMA, then the clamp). Not the
// one chain in (kh, kw) order of conv.h's other depthwise kernels: within
// the reference's tolerance on random data and bit for bit on exact data,
// and the test models this order exactly
// (diff_depthwise3x3_s2_avx2_test.c). A chain from +0.0 never ends at
// -0.0, so a -0.0 bias adds as the reference's sum + bias does.
#include <immintrin.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "ops_optimized/common/mask_avx2.h"
#include "ops_optimized/conv/conv.h"

static bool applies(const etr_conv2d_geometry_t *g) {
  return g->kernel_h == 3 && g->kernel_w == 3 && g->stride_h == 2 &&
         g->stride_w == 2 && g->dilation_h == 1 && g->dilation_w == 1 &&
         g->pad_h == 1 && g->pad_w == 1 && g->in_stride_w == 1 &&
         g->out_w >= 1 && g->out_h >= 1 && g->in_w <= INT32_MAX - 16;
}

bool etr_depthwise3x3_s2_avx2_wins(const etr_conv2d_geometry_t *g,
                                   int64_t channels, int64_t multiplier) {
  // Measured against the blocked kernel (conv_kernel_bench,
  // ETREF_ISA=avx2, paired.py run, 9 rounds): out rows of 8 (72x16x16)
  // 1.34x, 14 (192x28x28) 1.16x, 16 (48x32x32) 2.2x, 56 (96x112x112)
  // 1.75x; rows of 7 (576x14x14) 0.67x (half-empty blocks, one channel
  // at a time) and of 4 0.39x (depthwise3x3_w4_avx2.c takes rows of 8
  // inputs); 1.7x to 2x the rows kernel below 8 channels.
  return applies(g) &&
         (g->out_w >= 8 ||
          !etr_depthwise_blocked_nchw_avx2_applies(g, channels, multiplier));
}

// One channel's constants.
typedef struct channel3 {
  __m256 w[9];  // taps, row by row, in every lane
  __m256 bias;
  __m256 scale;
  __m256 shift;
  __m256 low;
  __m256 high;
} channel3_t;

// Columns c0 .. c0 + 15 of `row` (NULL: a padding row) split into the
// even and odd ones, scrambled; columns past in_w read as zeros.
static inline __attribute__((always_inline)) void split_row(
    const float *row, int64_t c0, int64_t in_w, __m256 *even, __m256 *odd) {
  if (row == NULL) {
    *even = _mm256_setzero_ps();
    *odd = _mm256_setzero_ps();
    return;
  }
  __m256 a;
  __m256 b;
  if (c0 + 16 <= in_w) {
    a = _mm256_loadu_ps(row + c0);
    b = _mm256_loadu_ps(row + c0 + 8);
  } else {
    a = _mm256_maskload_ps(row + c0, etr_avx2_first_lanes(in_w - c0));
    b = _mm256_maskload_ps(row + c0 + 8, etr_avx2_first_lanes(in_w - c0 - 8));
  }
  *even = _mm256_shuffle_ps(a, b, 0x88);
  *odd = _mm256_shuffle_ps(a, b, 0xdd);
}

// The three kernel rows of one output row on its three input rows'
// splits: mid (kernel columns 1 and 2) and lead (column 0), scrambled.
static inline __attribute__((always_inline)) void taps3(
    const channel3_t *c, const __m256 *even, const __m256 *odd, __m256 *mid,
    __m256 *lead) {
  const __m256 zero = _mm256_setzero_ps();
  __m256 m = _mm256_fmadd_ps(c->w[1], even[0], zero);
  __m256 l = _mm256_fmadd_ps(c->w[0], odd[0], zero);
  m = _mm256_fmadd_ps(c->w[2], odd[0], m);
  l = _mm256_fmadd_ps(c->w[3], odd[1], l);
  m = _mm256_fmadd_ps(c->w[4], even[1], m);
  l = _mm256_fmadd_ps(c->w[6], odd[2], l);
  m = _mm256_fmadd_ps(c->w[5], odd[1], m);
  m = _mm256_fmadd_ps(c->w[7], even[2], m);
  *mid = _mm256_fmadd_ps(c->w[8], odd[2], m);
  *lead = l;
}

// Output vector from a block's mid and lead (scrambled) and the previous
// block's `carry` (its lead in order one output on; updated), through the
// bias and, with POST, the post.
static inline __attribute__((always_inline)) __m256 finish3(
    const channel3_t *c, __m256 mid, __m256 lead, __m256 *carry,
    const bool POST) {
  // Scrambled lane L holds output (0, 1, 4, 5, 2, 3, 6, 7)[L], its own
  // inverse.
  const __m256i natural = _mm256_setr_epi32(0, 1, 4, 5, 2, 3, 6, 7);
  // Lane j: lead of output j - 1 (lane 0: output 7's, the next block's).
  const __m256i after = _mm256_setr_epi32(7, 0, 1, 4, 5, 2, 3, 6);
  const __m256 shifted = _mm256_permutevar8x32_ps(lead, after);
  const __m256 previous = *carry;
  *carry = shifted;
  __m256 v = _mm256_add_ps(_mm256_permutevar8x32_ps(mid, natural),
                           _mm256_blend_ps(shifted, previous, 0x01));
  v = _mm256_add_ps(v, c->bias);
  if (POST) {
    v = _mm256_fmadd_ps(v, c->scale, c->shift);
    // As post_avx2.c: v < low ? low : v, then v > high ? high : v.
    v = _mm256_min_ps(c->high, _mm256_max_ps(c->low, v));
  }
  return v;
}

// Output rows oh and, with TWO, oh + 1 of one channel: input rows 2 oh - 1
// .. 2 oh + 3 (`rows`, NULL where padding), 8 outputs a block.
static inline __attribute__((always_inline)) void row_pair(
    const channel3_t *c, const float *const *rows, int64_t in_w,
    int64_t out_w, float *out0, float *out1, const bool TWO,
    const bool POST) {
  __m256 carry0 = _mm256_setzero_ps();
  __m256 carry1 = _mm256_setzero_ps();
  for (int64_t j0 = 0; j0 < out_w; j0 += 8) {
    __m256 even[5];
    __m256 odd[5];
    split_row(rows[0], 2 * j0, in_w, &even[0], &odd[0]);
    split_row(rows[1], 2 * j0, in_w, &even[1], &odd[1]);
    split_row(rows[2], 2 * j0, in_w, &even[2], &odd[2]);
    if (TWO) {
      split_row(rows[3], 2 * j0, in_w, &even[3], &odd[3]);
      split_row(rows[4], 2 * j0, in_w, &even[4], &odd[4]);
    }
    __m256 mid;
    __m256 lead;
    taps3(c, even, odd, &mid, &lead);
    const int64_t n = out_w - j0 < 8 ? out_w - j0 : 8;  // outputs to store
    etr_avx2_store_first_ps(out0 + j0,
                            finish3(c, mid, lead, &carry0, POST), n);
    if (TWO) {
      taps3(c, even + 2, odd + 2, &mid, &lead);
      etr_avx2_store_first_ps(out1 + j0,
                              finish3(c, mid, lead, &carry1, POST), n);
    }
  }
}

// Kernel row `kr` of one output row on an input row's split: mid gets
// columns 1 and 2, lead column 0 (taps3's chains, one row of them).
static inline __attribute__((always_inline)) void kernel_row3(
    const channel3_t *c, int kr, __m256 even, __m256 odd, __m256 *mid,
    __m256 *lead) {
  *mid = _mm256_fmadd_ps(c->w[3 * kr + 1], even, *mid);
  *lead = _mm256_fmadd_ps(c->w[3 * kr], odd, *lead);
  *mid = _mm256_fmadd_ps(c->w[3 * kr + 2], odd, *mid);
}

// One block of 8 outputs (from j0) of output rows oh and oh + 1 whose
// five input rows (from `row`, `stride` apart) are all inside the image:
// the five rows split, then both output rows' sums (taps3's chains in its
// order). `tail`: the block reads past the row's end (masked loads) and
// stores n outputs.
static inline __attribute__((always_inline)) void block_inside(
    const channel3_t *c, const float *row, int64_t stride, int64_t j0,
    int64_t in_w, int64_t n, bool tail, __m256 *carry0, __m256 *carry1,
    float *out0, float *out1, const bool POST) {
  const __m256 zero = _mm256_setzero_ps();
  __m256 mid0 = zero, lead0 = zero, mid1 = zero, lead1 = zero;
  const __m256i low = etr_avx2_first_lanes(in_w - 2 * j0);
  const __m256i high = etr_avx2_first_lanes(in_w - 2 * j0 - 8);
  __m256 even[5], odd[5];
#pragma GCC unroll 5
  for (int i = 0; i < 5; ++i) {
    const float *r = row + i * stride + 2 * j0;
    const __m256 a = tail ? _mm256_maskload_ps(r, low) : _mm256_loadu_ps(r);
    const __m256 b =
        tail ? _mm256_maskload_ps(r + 8, high) : _mm256_loadu_ps(r + 8);
    even[i] = _mm256_shuffle_ps(a, b, 0x88);
    odd[i] = _mm256_shuffle_ps(a, b, 0xdd);
  }
#pragma GCC unroll 5
  for (int i = 0; i < 5; ++i) {
    if (i <= 2) {
      kernel_row3(c, i, even[i], odd[i], &mid0, &lead0);
    }
    if (i >= 2) {
      kernel_row3(c, i - 2, even[i], odd[i], &mid1, &lead1);
    }
  }
  etr_avx2_store_first_ps(out0 + j0, finish3(c, mid0, lead0, carry0, POST),
                          n);
  etr_avx2_store_first_ps(out1 + j0, finish3(c, mid1, lead1, carry1, POST),
                          n);
}

// Output rows oh and oh + 1 whose input rows 2 oh - 1 .. 2 oh + 3 (from
// `row`) are all inside the image: whole blocks with plain loads, then
// the last one masked.
static inline __attribute__((always_inline)) void row_pair_inside(
    const channel3_t *c, const float *row, int64_t stride, int64_t in_w,
    int64_t out_w, float *out0, float *out1, const bool POST) {
  __m256 carry0 = _mm256_setzero_ps();
  __m256 carry1 = _mm256_setzero_ps();
  int64_t j0 = 0;
  for (; j0 + 8 <= out_w && 2 * j0 + 16 <= in_w; j0 += 8) {
    block_inside(c, row, stride, j0, in_w, 8, false, &carry0, &carry1, out0,
                 out1, POST);
  }
  if (j0 < out_w) {
    block_inside(c, row, stride, j0, in_w, out_w - j0, true, &carry0,
                 &carry1, out0, out1, POST);
  }
}

// The arguments are copied so that the compiler knows the stores leave
// them alone (as in depthwise3x3_w4_avx2.c, where it had reloaded the
// strides after every store).
static inline __attribute__((always_inline)) void channels3(
    const etr_depthwise_args_t *args, const etr_conv_post_t *post,
    const bool POST) {
  const etr_depthwise_args_t a = *args;
  const etr_conv2d_geometry_t g = *args->geometry;
  channel3_t c;
  c.low = _mm256_set1_ps(POST ? post->low : -INFINITY);
  c.high = _mm256_set1_ps(POST ? post->high : INFINITY);
  // Without batch norm, fma(v, 1, -0.0) is v bit for bit (-0.0 too).
  c.scale = _mm256_set1_ps(1.0f);
  c.shift = _mm256_set1_ps(-0.0f);
  c.bias = _mm256_setzero_ps();
  const bool affine = POST && post->scale != NULL;
  const float *plane = a.input;  // the input plane of out channel oc
  int64_t repeat = 0;            // out channels so far of that plane
  for (int64_t oc = 0; oc < a.channels; ++oc) {
    const float *w = a.weight + oc * g.w_stride_oc;
#pragma GCC unroll 9
    for (int t = 0; t < 9; ++t) {
      c.w[t] = _mm256_set1_ps(w[(t / 3) * g.w_stride_h +
                                (t % 3) * g.w_stride_w]);
    }
    if (a.bias != NULL) {
      c.bias = _mm256_set1_ps(a.bias[oc * a.bias_stride]);
    }
    if (affine) {
      c.scale = _mm256_set1_ps(post->scale[oc]);
      c.shift = _mm256_set1_ps(post->shift[oc]);
    }
    float *out = a.out + oc * a.out_stride_c;
    for (int64_t oh = 0; oh < g.out_h; oh += 2) {
      float *out0 = out + oh * a.out_stride_h;
      if (oh >= 1 && 2 * oh + 3 < g.in_h && oh + 1 < g.out_h) {
        row_pair_inside(&c, plane + (2 * oh - 1) * g.in_stride_h,
                        g.in_stride_h, g.in_w, g.out_w, out0,
                        out0 + a.out_stride_h, POST);
        continue;
      }
      const float *rows[5];
#pragma GCC unroll 5
      for (int i = 0; i < 5; ++i) {
        const int64_t ih = 2 * oh - 1 + i;
        rows[i] = ih >= 0 && ih < g.in_h ? plane + ih * g.in_stride_h : NULL;
      }
      if (oh + 1 < g.out_h) {
        row_pair(&c, rows, g.in_w, g.out_w, out0, out0 + a.out_stride_h,
                 true, POST);
      } else {
        row_pair(&c, rows, g.in_w, g.out_w, out0, NULL, false, POST);
      }
    }
    if (++repeat == a.multiplier) {
      repeat = 0;
      plane += g.in_stride_c;
    }
  }
}

void etr_depthwise3x3_s2_nchw_avx2(const etr_depthwise_args_t *args,
                                   const etr_conv_post_t *post) {
  if (post != NULL) {
    channels3(args, post, true);
  } else {
    channels3(args, NULL, false);
  }
}

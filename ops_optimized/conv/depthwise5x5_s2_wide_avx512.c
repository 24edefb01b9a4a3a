// SPDX-License-Identifier: Apache-2.0
//
// Depthwise 5x5, stride 2, padding 2, NCHW, AVX-512 (conv.h), for rows
// of 17 or more inputs: the 56x56 -> 28x28 layers of MobileNetV3 (72
// channels) and EfficientNet (144), EfficientNet's 240x28x28. The plane
// is walked row by row, 16 outputs (32 inputs) a block, as the 3x3
// kernel on wide rows does
// (depthwise3x3_s2_wide_avx512.c): each input row of a block is two
// loads split into its even and odd columns by two in-lane shuffles
// (vshufps), in a scrambled lane order the FMAs do not mind. Output j
// reads columns 2 j - 2 .. 2 j + 2: kernel columns 2 and 3 are the even
// and odd columns at j, columns 0 and 1 those at j - 1 and column 4 the
// even column at j + 1. So each output row keeps three sums down its
// kernel rows: `mid` (columns 2 and 3, from the bias), `lead` (0 and 1,
// one output early) and `trail` (4, one output late); one permute puts
// `mid` in order, a second takes `lead` one output back (the previous
// block's last for output 0), and a third takes `trail` one output on
// (the next block's first for output 15), so a block is stored once the
// next one is summed. Output rows are taken two at a time: rows oh and
// oh + 1 read input rows 2 oh - 2 .. 2 oh + 4, seven row splits for
// both in place of ten. The 25 taps do not fit in registers beside the
// six sums and the carried vectors: each FMA broadcasts its tap from
// memory. conv_kernel_bench on Zen 4: 72x56x56 53 -> 65 GFLOP/s against
// the 16-channel kernel (depthwise_channels_avx512.c); its 28-wide out
// rows fill 28 of 32 lanes (8x64x64 runs at 85). Sums kept in the input's
// own lane order instead (loads at column offsets -2, 0 and +2 against
// vectors of alternating taps: no shuffles, but column 4's odd lanes
// waste a sixth of the FMAs) ran at 50; four output rows a pass, no
// faster than two. On the Intel Xeon of 2026-12-06 (46.7 us here) a
// kernel with the 25 taps in registers, reading a zero-padded copy of
// each plane split by column parity (one unmasked load per tap and 16
// outputs, no shuffle in the loop, 4 or 8 out rows a step) took 55-68
// us: copying the planes alone took 37 us (the input streamed from L2 at
// about 25 GB/s, not overlapped with the FMAs), and the sums ran at
// about one FMA a cycle without it, whatever the loop order (GCC spilled
// the taps when the kernel columns were unrolled).
//
// Rows of 17 to 64 inputs (the 56-wide layers) take another loop: one
// output row at a time, its one or two blocks (a full one and the tail)
// at once, so each tap serves two FMAs, and the row's ends are zeros, so
// nothing carries from block to block. Each kernel column sums in a chain
// of its own (ten chains of five FMAs, `lead` and `mid` their pairs'
// sums): with the four split vectors beside them there is room for 15 of
// the 25 taps (kernel rows 0 to 2) through the plane, the other ten
// broadcast by their own loads. Per output row: 50 FMAs, 20 row loads and
// 10 broadcasts (the two-row passes above spent 64 loads, the taps
// included, on 50 FMAs: past the one load per two FMAs that Zen 4 issues
// free beside them, tools/port_probe.c). Six chains of up to ten FMAs (20
// taps resident) ran 2-4% slower on Zen 5 (conv_kernel_bench, builds
// alternated, 3 rounds: 72x56x56 24.0-25.3 -> 23.6-24.7 us, 144x56x56
// 49.3-51.2 -> 47.0-49.9, 240x28x28 27.4-28.0 -> 26.6-27.3, 32x32x32
// 3.49-3.59 -> 3.38-3.47). One 56x56 plane held in L1, repeated: 41.6
// cycles an output row where its 50 FMAs need 25; without the six
// permutes that settle the blocks 36.7, without them and the 20 vshufps
// that split the rows 32.0 (a stand-alone copy of this file, timed
// alone; vshufps alone issues beside the FMAs for free on Zen 5, so the
// split's cost is its place in the schedule, not its port). Against the
// two-row passes, conv_kernel_bench on Zen 4, 64-byte aligned planes
// (as etref's planned pools), the two builds alternated over 5 rounds:
// 72x56x56 41.8-42.6 -> 34.2-36.7 us (67 -> 82 GFLOP/s),
// 144x56x56 86-96 -> 68-69 us; with each plane 16 bytes off a line (a
// large malloc's), every load across two, 44-47 -> 39-40 us. Tried:
// two output rows a pass with the taps broadcast from memory by each FMA
// or 10 kept in registers (GCC spilled the sums; both slower than one
// row), split accumulators for the odd kernel columns (no faster there),
// prefetching the rows 4, 12 or 28 output rows ahead (3-5% slower; with
// the input and out planes held in L1 the loop runs no faster). Rows of
// 17 to 32 (one block), which went to other kernels before (16 or more
// channels: depthwise_channels_avx512.c), the same way: 32x32x32 7.53 ->
// 5.51 us, 48x30x30 9.25 -> 8.34, 8x28x28 1.47 -> 1.25, 240x28x28 40.8
// -> 39.3, 64x24x24 8.9 either way (medians of 3 alternated rounds;
// kernel columns 1 and 3 in chains of their own, for the one block's
// short chains, ran slower on the Intel Xeon of 2026-12-06; every column
// in its own chain runs faster on Zen 5, above).
//
// Taps outside the image contribute zeros (masked loads), which add
// nothing: padded convolutions with a non-finite weight never come here
// (op_convolution.c). The sums run down the kernel rows (each kernel
// column apart on rows of at most 64, then the pairs of columns added),
// then mid + lead + trail: an order other than the reference's, within
// its tests' tolerance, exact for exact data.
#include <immintrin.h>

#include "ops_optimized/conv/conv.h"
#include "ops_optimized/conv/lanes_avx512.h"

bool etr_depthwise5x5_s2_wide_nchw_avx512_applies(
    const etr_conv2d_geometry_t *g) {
  return g->kernel_h == 5 && g->kernel_w == 5 && g->stride_h == 2 &&
         g->stride_w == 2 && g->dilation_h == 1 && g->dilation_w == 1 &&
         g->pad_h == 2 && g->pad_w == 2 && g->in_w >= 17 &&
         g->in_stride_w == 1;
}

// What stays the same for every block of a channel.
typedef struct channel5 {
  float taps[25];  // row by row
  __m512 bias;
  __m512i natural;  // lane m: the scrambled lane of output m
  __m512i before;   // lane m: that of output m - 1 (16 +: previous block)
  __m512i after;    // lane m: that of output m + 1 (16 +: next block)
} channel5_t;

// The three sums of one output row's block, scrambled.
typedef struct row_sums {
  __m512 lead;   // kernel columns 0 and 1, for the output after the lane's
  __m512 mid;    // columns 2 and 3, the bias included
  __m512 trail;  // column 4, for the output before the lane's
} row_sums_t;

// What an output row carries from block to block: the last block's
// `lead` and `trail`, and its outputs but for the trail's share.
typedef struct row_carry {
  __m512 lead;
  __m512 trail;
  __m512 pending;
} row_carry_t;

// `count` (1 or 2) sets of sums at their start: the bias in `mid`.
static inline __attribute__((always_inline)) void start_sums(
    const channel5_t *c, int count, row_sums_t *s) {
#pragma GCC unroll 2
  for (int k = 0; k < count; ++k) {
    s[k].lead = _mm512_setzero_ps();
    s[k].mid = c->bias;
    s[k].trail = _mm512_setzero_ps();
  }
}

// One kernel row (`w`, five taps) on one split input row.
static inline __attribute__((always_inline)) void kernel_row(
    const float *w, __m512 even, __m512 odd, row_sums_t *s) {
  s->lead = _mm512_fmadd_ps(_mm512_set1_ps(w[0]), even, s->lead);
  s->mid = _mm512_fmadd_ps(_mm512_set1_ps(w[2]), even, s->mid);
  s->trail = _mm512_fmadd_ps(_mm512_set1_ps(w[4]), even, s->trail);
  s->lead = _mm512_fmadd_ps(_mm512_set1_ps(w[1]), odd, s->lead);
  s->mid = _mm512_fmadd_ps(_mm512_set1_ps(w[3]), odd, s->mid);
}

// A block's sums put in order: the previous block's outputs are complete
// with this block's `trail` and stored (`store`: there is one) at
// `previous` under `previous_lanes`; this block's wait for the next.
static inline __attribute__((always_inline)) void settle(
    const channel5_t *c, const row_sums_t *s, row_carry_t *carry,
    bool store, float *previous, __mmask16 previous_lanes) {
  if (store) {
    const __m512 late =
        _mm512_permutex2var_ps(carry->trail, c->after, s->trail);
    _mm512_mask_storeu_ps(previous, previous_lanes,
                          _mm512_add_ps(carry->pending, late));
  }
  const __m512 early =
      _mm512_permutex2var_ps(s->lead, c->before, carry->lead);
  carry->pending =
      _mm512_add_ps(_mm512_permutexvar_ps(c->natural, s->mid), early);
  carry->lead = s->lead;
  carry->trail = s->trail;
}

// The last block of a row: nothing after it (zeros past the image).
static inline __attribute__((always_inline)) void settle_last(
    const channel5_t *c, const row_carry_t *carry, float *out,
    __mmask16 lanes) {
  const __m512 late =
      _mm512_permutex2var_ps(carry->trail, c->after, _mm512_setzero_ps());
  _mm512_mask_storeu_ps(out, lanes, _mm512_add_ps(carry->pending, late));
}

// The input rows of `count` output rows from oh (1 or 2): rows 2 oh - 2
// .. 2 oh + 2 count, those outside the image at row 0 with no lanes.
typedef struct row_window {
  const float *row[7];
  __mmask16 lanes[7];
} row_window_t;

static inline __attribute__((always_inline)) row_window_t window(
    const etr_conv2d_geometry_t *g, const float *in, int64_t oh,
    int count) {
  row_window_t w;
#pragma GCC unroll 7
  for (int i = 0; i < 3 + 2 * count; ++i) {
    const int64_t r = 2 * oh - 2 + i;
    const bool inside = r >= 0 && r < g->in_h;
    w.row[i] = inside ? in + r * g->in_stride_h : in;
    w.lanes[i] = inside ? 0xffff : 0;
  }
  return w;
}

// One block (input column `col`, output column `col` / 2) of `count`
// output rows (1 or 2; `out[k]` is row k's block): sums, then settled
// against the previous block (`store`: there is one, 16 outputs back).
static inline __attribute__((always_inline)) void block(
    const channel5_t *c, const row_window_t *w, int count, int64_t col,
    parity_masks_t m, bool store, __mmask16 previous_lanes,
    row_carry_t *carry, float *const *out) {
  row_sums_t s[2];
  start_sums(c, count, s);
#pragma GCC unroll 7
  for (int i = 0; i < 3 + 2 * count; ++i) {
    __m512 even, odd;
    split_parity(w->row[i] + col, m.low & w->lanes[i],
                 m.high & w->lanes[i], &even, &odd);
    if (i < 5) {
      kernel_row(c->taps + 5 * i, even, odd, &s[0]);
    }
    if (count == 2 && i >= 2) {
      kernel_row(c->taps + 5 * (i - 2), even, odd, &s[1]);
    }
  }
#pragma GCC unroll 2
  for (int k = 0; k < count; ++k) {
    settle(c, &s[k], &carry[k], store,
           store ? out[k] + col / 2 - 16 : out[k], previous_lanes);
  }
}

// Output rows oh .. oh + count - 1 (count 1 or 2) of one plane.
static inline __attribute__((always_inline)) void rows(
    const channel5_t *c, const etr_conv2d_geometry_t *g, const float *in,
    int64_t oh, int count, float *plane, int64_t out_stride_h) {
  const row_window_t w = window(g, in, oh, count);
  float *out[2] = {plane + oh * out_stride_h,
                   plane + (oh + count - 1) * out_stride_h};
  const int64_t full = g->in_w / 32;  // blocks of 32 inputs, 16 outputs
  const int64_t rest = g->in_w - 32 * full;
  const parity_masks_t all = {0xffff, 0xffff, 0xffff};
  const parity_masks_t tail = parity_tail_masks(rest);
  // The next pair's new rows, 2 oh + 5 .. 2 oh + 8, prefetched.
  const int64_t ahead = 2 * oh + 8 < g->in_h ? 2 * oh + 5 : 0;
  const float *pre = in + ahead * g->in_stride_h;
  const int64_t pre_stride = ahead > 0 ? g->in_stride_h : 0;
  row_carry_t carry[2];
  carry[0].lead = _mm512_setzero_ps();
  carry[1].lead = _mm512_setzero_ps();
  block(c, &w, count, 0, all, false, 0, carry, out);  // full >= 1
  for (int64_t b = 1; b < full; ++b) {
#pragma GCC unroll 4
    for (int r = 0; r < 4; ++r) {
      _mm_prefetch((const char *)(pre + r * pre_stride + 32 * b),
                   _MM_HINT_T0);
      _mm_prefetch((const char *)(pre + r * pre_stride + 32 * b + 16),
                   _MM_HINT_T0);
    }
    block(c, &w, count, 32 * b, all, true, 0xffff, carry, out);
  }
  __mmask16 last_lanes = 0xffff;
  int64_t last = 16 * (full - 1);
  if (rest > 0) {
    block(c, &w, count, 32 * full, tail, true, 0xffff, carry, out);
    last_lanes = tail.out;
    last = 16 * full;
  }
#pragma GCC unroll 2
  for (int k = 0; k < count; ++k) {
    settle_last(c, &carry[k], out[k] + last, last_lanes);
  }
}

// The rows of a plane outside the image (a block of 32 zeros and the
// tail's 32 more): the two-block passes read them unmasked.
static const float kZeroRow[64] __attribute__((aligned(64)));

// One tap of `taps` broadcast by its own load, kept out of GCC's hands
// (it hoisted all 25 broadcasts out of the loop and spilled them).
static inline __attribute__((always_inline)) __m512 tap_at(
    const float *taps, int t) {
  __m512 v;
  __asm__ volatile("vbroadcastss %1, %0" : "=v"(v) : "m"(taps[t]));
  return v;
}

// The taps (kernel rows 0 to 3) that stay in registers through a plane.
#define RESIDENT 15

// Output row oh of a plane whose rows are `blocks` blocks, the last the
// tail (17 to 32 inputs: one, 33 to 64: two; `row[i]` is input row
// 2 oh - 2 + i or kZeroRow): the blocks at once, so each tap serves two
// FMAs, and no sums carry from row to row (the row's ends are zeros, the
// blocks settle against each other).
static inline __attribute__((always_inline)) void row_blocks(
    const channel5_t *c, const __m512 *resident, const float *const *row,
    parity_masks_t tail, const int blocks, float *out) {
  // Per block, each kernel column's chain: [block][kw].
  __m512 chain[2][5];
#pragma GCC unroll 2
  for (int b = 0; b < blocks; ++b) {
#pragma GCC unroll 5
    for (int kw = 0; kw < 5; ++kw) {
      chain[b][kw] = kw == 2 ? c->bias : _mm512_setzero_ps();
    }
  }
#pragma GCC unroll 5
  for (int kh = 0; kh < 5; ++kh) {
    __m512 even[2], odd[2];
    if (blocks == 2) {
      split_parity(row[kh], 0xffff, 0xffff, &even[0], &odd[0]);
    }
    split_parity(row[kh] + 32 * (blocks - 1), tail.low, tail.high,
                 &even[blocks - 1], &odd[blocks - 1]);
#pragma GCC unroll 5
    for (int kw = 0; kw < 5; ++kw) {
      const int t = 5 * kh + kw;
      const __m512 tap = t < RESIDENT ? resident[t] : tap_at(c->taps, t);
#pragma GCC unroll 2
      for (int b = 0; b < blocks; ++b) {
        const __m512 x = kw % 2 == 0 ? even[b] : odd[b];
        chain[b][kw] = fma_into(chain[b][kw], tap, x);
      }
    }
  }
  row_sums_t s[2];  // [block]
#pragma GCC unroll 2
  for (int b = 0; b < blocks; ++b) {
    s[b].lead = _mm512_add_ps(chain[b][0], chain[b][1]);
    s[b].mid = _mm512_add_ps(chain[b][2], chain[b][3]);
    s[b].trail = chain[b][4];
  }
  // Nothing before output 0 or after the tail's last lane (zeros).
  const __m512 early0 =
      _mm512_maskz_permutexvar_ps(0xfffe, c->before, s[0].lead);
  const __m512 mid0 = _mm512_permutexvar_ps(c->natural, s[0].mid);
  if (blocks == 1) {
    const __m512 late0 =
        _mm512_maskz_permutexvar_ps(0x7fff, c->after, s[0].trail);
    _mm512_mask_storeu_ps(
        out, tail.out, _mm512_add_ps(_mm512_add_ps(mid0, early0), late0));
    return;
  }
  const __m512 late0 =
      _mm512_permutex2var_ps(s[0].trail, c->after, s[1].trail);
  const __m512 early1 =
      _mm512_permutex2var_ps(s[1].lead, c->before, s[0].lead);
  const __m512 late1 =
      _mm512_maskz_permutexvar_ps(0x7fff, c->after, s[1].trail);
  const __m512 mid1 = _mm512_permutexvar_ps(c->natural, s[1].mid);
  _mm512_storeu_ps(out, _mm512_add_ps(_mm512_add_ps(mid0, early0), late0));
  _mm512_mask_storeu_ps(out + 16, tail.out,
                        _mm512_add_ps(_mm512_add_ps(mid1, early1), late1));
}

// A plane of rows of 17 to 64 inputs (`blocks` of 32, the last one the
// tail), row by row.
static inline __attribute__((always_inline)) void plane_blocks(
    const channel5_t *c, const etr_conv2d_geometry_t *g, const float *in,
    float *plane, int64_t out_stride_h, const int blocks) {
  const parity_masks_t tail = parity_tail_masks(g->in_w - 32 * (blocks - 1));
  const int64_t stride = g->in_stride_h;
  __m512 resident[RESIDENT];
#pragma GCC unroll 25
  for (int t = 0; t < RESIDENT; ++t) {
    resident[t] = _mm512_set1_ps(c->taps[t]);
  }
  for (int64_t oh = 0; oh < g->out_h; ++oh) {
    const float *row[5];
#pragma GCC unroll 5
    for (int i = 0; i < 5; ++i) {
      const int64_t r = 2 * oh - 2 + i;
      row[i] = r >= 0 && r < g->in_h ? in + r * stride : kZeroRow;
    }
    row_blocks(c, resident, row, tail, blocks, plane + oh * out_stride_h);
  }
}

static __attribute__((noinline)) void plane_one_block(
    const channel5_t *c, const etr_conv2d_geometry_t *g, const float *in,
    float *plane, int64_t out_stride_h) {
  plane_blocks(c, g, in, plane, out_stride_h, 1);
}

static __attribute__((noinline)) void plane_two_blocks(
    const channel5_t *c, const etr_conv2d_geometry_t *g, const float *in,
    float *plane, int64_t out_stride_h) {
  plane_blocks(c, g, in, plane, out_stride_h, 2);
}

static void plane5x5(const etr_conv2d_geometry_t *g, const float *in,
                     const float *weight, float bias, float *plane,
                     int64_t out_stride_h) {
  channel5_t c;
  for (int t = 0; t < 25; ++t) {
    c.taps[t] = weight[(t / 5) * g->w_stride_h + (t % 5) * g->w_stride_w];
  }
  // + 0.0: a -0.0 bias adds as the +0.0 start of an unbiased sum does.
  c.bias = _mm512_set1_ps(bias + 0.0f);
  c.natural = _mm512_setr_epi32(0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10,
                                11, 14, 15);
  c.before = _mm512_setr_epi32(31, 0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7,
                               10, 11, 14);
  c.after = _mm512_setr_epi32(1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11,
                              14, 15, 16);
  int64_t oh = 0;
  if (g->in_w <= 32) {
    plane_one_block(&c, g, in, plane, out_stride_h);
    return;
  }
  if (g->in_w <= 64) {
    plane_two_blocks(&c, g, in, plane, out_stride_h);
    return;
  }
  for (; oh + 1 < g->out_h; oh += 2) {
    rows(&c, g, in, oh, 2, plane, out_stride_h);
  }
  if (oh < g->out_h) {
    rows(&c, g, in, oh, 1, plane, out_stride_h);
  }
}

void etr_depthwise5x5_s2_wide_nchw_avx512(const etr_depthwise_args_t *args) {
  const etr_depthwise_args_t a = *args;
  const etr_conv2d_geometry_t g = *args->geometry;
  int64_t ic = 0;      // the input channel of out channel oc
  int64_t repeat = 0;  // out channels so far of input channel ic
  for (int64_t oc = 0; oc < a.channels; ++oc) {
    plane5x5(&g, a.input + ic * g.in_stride_c, a.weight + oc * g.w_stride_oc,
             a.bias != NULL ? a.bias[oc * a.bias_stride] : 0.0f,
             a.out + oc * a.out_stride_c, a.out_stride_h);
    if (++repeat == a.multiplier) {
      repeat = 0;
      ++ic;
    }
  }
}

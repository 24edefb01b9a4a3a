// SPDX-License-Identifier: Apache-2.0
//
// Depthwise convolution, NCHW, AVX2 + FMA, 3x3 at stride 1 or 2 with
// padding 1, one channel at a time, eight out columns per vector (conv.h).
// The planes stay as they are (no transposes as in the channel-blocked
// kernel, depthwise_blocked_avx2.c). At stride 2, and on rows narrower
// than 16, each input row is copied once into a zero-padded stack row (at
// stride 2 split into its even and odd columns, so every tap is again one
// load at a constant offset); at stride 1 on rows of 16 or more the taps
// load the input rows in place, the first and last vector shifting the
// padding's zero in (a permute and a blend; the copy was 11-19% of
// 4x112x112 and 144x56x56, conv_kernel_bench: 21.4 -> 19.1 us, 235 ->
// 191), and ROWS (3) out rows of one vector, two vectors side by side
// inside rows read in place, accumulate together: each loaded input
// vector feeds the up to 3 out rows (2 at stride 2) whose taps it is,
// the 9 weights stay in registers. It runs where the blocked kernel does
// not, and at stride 1 on rows of 28 or more
// (etr_depthwise_rows_avx2_wins): 1.6x the phase planes of
// depthwise_avx2.c on 112x112 and 56x56 planes; on the other planes the
// blocked kernel takes, eight channels per vector win (3 to 6 chains of
// 9 dependent FMAs per block hold this kernel to about 60% of the FMA
// peak on 112-wide rows).
//
// The sums are those of the flat path: one FMA chain per output in (kh,
// kw) order from +0.0, then + bias, then the post (post_avx2.c's order).
// Padding taps multiply the rows' zeros, which leaves such a sum
// unchanged for the finite weights the op sends here (conv.h). A row's
// last vector ends at its end (overlapping the one before: the same
// bits); rows narrower than a vector store their first lanes.
#include <immintrin.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "ops_optimized/common/mask_avx2.h"
#include "ops_optimized/conv/conv.h"

#define ROWS 3            // out rows per block
#define MAX_OUT_W 128     // out columns a stack row holds
#define ROW_FLOATS (MAX_OUT_W + 16)  // a padded row (or one phase of it)
#define RING_FLOATS 6144  // the stack rows, 24 KiB
#define MAX_SLOTS 64  // a power of 2
// A block reads 2 ROWS + 1 input rows at most, all in the ring at once
// (the ring's slots are a power of 2 no less than half of what fits).
_Static_assert(RING_FLOATS / (2 * ROW_FLOATS) / 2 >= 2 * ROWS + 1,
               "the ring holds a block's rows");
#define MAX_DIM 65536  // so that products stay small

bool etr_depthwise_rows_nchw_avx2_applies(const etr_conv2d_geometry_t *g,
                                          int64_t channels,
                                          int64_t multiplier) {
  const int64_t s = g->stride_h;
  return !g->channels_last && multiplier == 1 && channels >= 1 &&
         g->kernel_h == 3 && g->kernel_w == 3 && (s == 1 || s == 2) &&
         g->stride_w == s && g->pad_h == 1 && g->pad_w == 1 &&
         g->dilation_h == 1 && g->dilation_w == 1 && g->in_stride_w == 1 &&
         g->in_h > 0 && g->in_w > 0 && g->in_h <= MAX_DIM &&
         g->in_w <= MAX_DIM && g->out_h > 0 && g->out_w > 0 &&
         g->out_h == (g->in_h - 1) / s + 1 &&
         g->out_w == (g->in_w - 1) / s + 1 && g->out_w <= MAX_OUT_W;
}

bool etr_depthwise_rows_avx2_wins(const etr_conv2d_geometry_t *g,
                                   int64_t channels, int64_t multiplier) {
  if (!etr_depthwise_rows_nchw_avx2_applies(g, channels, multiplier)) {
    return false;
  }
  // conv_kernel_bench on Zen 2 (rows vs blocked, us), with the rows
  // copied to the stack at stride 1 too: 48x32x32 s2 17.0 vs 12.0,
  // 72x16x16 s1 15.4 vs 10.5, 192x28x28 s1 107 vs 92: eight channels per
  // vector won on the blocked kernel's planes. 16x32x32 s1 was 9.7 vs
  // 10.7 alone, but 11.5 vs 10.8 fused in mobilenet_v2 (paired.py, 15
  // rounds).
  // Where the blocked kernel did not apply (planes past its tile) the
  // phase planes of depthwise_avx2.c were the other choice: 32x112x112
  // s1 179 vs 289, 96x112x112 s2 275 vs 510, 144x56x56 s1 234 vs 355,
  // s2 149 vs 240. Since the blocked kernel takes such planes in bands,
  // it wins at stride 2 where its bands are 4 out rows or more
  // (144x56x56 s2 1.52x, 96x112x112 s2 1.21x, paired.py, 7 rounds) and
  // declines the thinner ones (16x224x224 s2: 224 us in bands of 2, 183
  // here).
  // With fewer than 8 channels: 4x16x16 s1 0.85 vs 1.04, s2 0.59 vs
  // 0.71, 4x28x28 s2 1.51 vs 1.95, 4x8x8 s1 0.38 vs 0.41.
  // Since stride 1 reads the input rows in place (rows of 16 or more),
  // this kernel also wins there on rows of 28 and more: 16x32x32 s1 8.1
  // vs 11.1 (the op alone 11.1 -> 7.8 us, mobilenet_v2 fused 1% faster,
  // paired.py, 11 rounds), 192x28x28 s1 85.5 vs 97.6; on 16 it still
  // loses (72x16x16 s1 12.4 vs 10.9).
  if (g->stride_h == 1 && g->in_w >= 28) {
    return true;
  }
  return !etr_depthwise_blocked_nchw_avx2_applies(g, channels, multiplier);
}

// The first n (0..7) floats at src, zeros after; nothing past them is
// read. (A scalar loop here became a memcpy call, a quarter of a 4x4
// plane's time.)
static inline __m256 load_first(const float *src, int64_t n) {
  __m128 four = _mm_setzero_ps();
  __m128 rest = _mm_setzero_ps();
  if (n & 4) {
    four = _mm_loadu_ps(src);
    src += 4;
  }
  if (n & 2) {
    // (MOVQ: _mm_load_sd would claim a double's alignment.)
    rest = _mm_castsi128_ps(_mm_loadl_epi64((const __m128i_u *)src));
    src += 2;
  }
  if (n & 1) {
    rest = (n & 2) ? _mm_insert_ps(rest, _mm_load_ss(src), 0x20)
                   : _mm_load_ss(src);
  }
  return (n & 4) ? _mm256_set_m128(rest, four) : _mm256_set_m128(four, rest);
}

// Columns x..x+7 of a row of `width` (x < width), zeros past its end.
static inline __m256 load_columns(const float *row, int64_t x,
                                  int64_t width) {
  return x + 8 <= width ? _mm256_loadu_ps(row + x)
                        : load_first(row + x, width - x);
}

// Input row ih of `plane` as the taps read it, zero past its ends, with
// aligned stores (unaligned ones, half of them across cache lines, were
// slower): stride 1, input column x at row[8 + x], row[7] = 0 the left
// padding; stride 2, input column 2j + 1 at row[8 + j] (row[7] = 0 the
// padding) and 2j at row[phase + j]. Up to column max(out_w, 8) + 1 of
// the padded row at stride 1, max(out_w, 8) (odd columns) at stride 2.
static void copy_row(const etr_conv2d_geometry_t *g, const float *plane,
                     int64_t ih, int64_t phase, float *row) {
  const float *from = plane + ih * g->in_stride_h;
  const int64_t width = g->in_w;
  const __m256 zero = _mm256_setzero_ps();
  int64_t x = 0;
  row[7] = 0.0f;
  if (g->stride_w == 1) {
    for (; x < width; x += 8) {
      _mm256_store_ps(row + 8 + x, load_columns(from, x, width));
    }
    _mm256_store_ps(row + 8 + x, zero);
    return;
  }
  float *odd = row + 8;  // odd input columns
  float *even = row + phase;
  for (; x < width; x += 16) {
    const __m256 lo = load_columns(from, x, width);
    const __m256 hi =
        x + 8 < width ? load_columns(from, x + 8, width) : zero;
    // Even and odd columns of 16: the in-lane shuffle leaves
    // [0 2 8 10 | 4 6 12 14]; the 64-bit permute puts pairs in order.
    const __m256 e = _mm256_shuffle_ps(lo, hi, 0x88);
    const __m256 o = _mm256_shuffle_ps(lo, hi, 0xdd);
    _mm256_store_ps(even + x / 2, _mm256_castpd_ps(_mm256_permute4x64_pd(
                                      _mm256_castps_pd(e), 0xd8)));
    _mm256_store_ps(odd + x / 2, _mm256_castpd_ps(_mm256_permute4x64_pd(
                                     _mm256_castps_pd(o), 0xd8)));
  }
  _mm256_store_ps(even + x / 2, zero);
  _mm256_store_ps(odd + x / 2, zero);
}

typedef struct channel {
  __m256 w[9];
  __m256 bias;
  __m256 scale;
  __m256 shift;
  __m256 low;
  __m256 high;
  int64_t phase;  // floats from a stride-2 row's even columns to its odd
} channel_t;

// + bias, then with POST the post. Branch-free: no bias adds +0.0, no
// batch norm is fma(v, 1, 0), no clamp clamps to -inf and inf, all of
// which return v bit for bit since the FMA chain from +0.0 never makes a
// -0.0 (nor then does v + bias for any bias). Against a branch per step:
// 16x32x32 s1 9.3 us instead of 10.0 (conv_kernel_bench).
static inline __attribute__((always_inline)) __m256 finish(
    const channel_t *c, __m256 v, const bool POST) {
  v = _mm256_add_ps(v, c->bias);
  if (POST) {
    v = _mm256_fmadd_ps(v, c->scale, c->shift);
    // As post_avx2.c: v < low ? low : v, then v > high ? high : v.
    v = _mm256_min_ps(c->high, _mm256_max_ps(c->low, v));
  }
  return v;
}

// x shifted up one lane with a zero entering lane 0 ([0, x0 .. x6]), and
// down one lane with a zero entering lane 7 ([x1 .. x7, 0]): a row's
// columns -1 .. 6 and w - 7 .. w at its ends.
static inline __m256 zero_then(__m256 x) {
  const __m256 up = _mm256_permutevar8x32_ps(
      x, _mm256_setr_epi32(0, 0, 1, 2, 3, 4, 5, 6));
  return _mm256_blend_ps(up, _mm256_setzero_ps(), 0x01);
}
static inline __m256 then_zero(__m256 x) {
  const __m256 down = _mm256_permutevar8x32_ps(
      x, _mm256_setr_epi32(1, 2, 3, 4, 5, 6, 7, 7));
  return _mm256_blend_ps(down, _mm256_setzero_ps(), 0x80);
}

// Where a tap's vector comes from: the padded stack rows (RING, column x
// at row[8 + x]), or, at stride 1, the input rows themselves (column x at
// row[x]) away from the ends (DIRECT, ow >= 8 and ow + 9 <= in_w), at
// column 0 (LEFT: column -1 shifted in as zero) and at the last vector
// (RIGHT, ow = in_w - 8: column in_w shifted in as zero).
enum { RING, DIRECT, LEFT, RIGHT };

// RH out rows (at most ROWS) of V vectors (1, or 2 side by side on DIRECT
// rows) at column ow, stride S: `rows` are the input rows their taps
// read, in order (RH + 2 at stride 1, 2 RH + 1 at stride 2), `out` the
// first out row, rows `out_stride` apart; only the first `n` columns are
// stored (n < 8 with V = 1 only). 3 rows of 2 vectors are 6 chains with
// the 9 weights, the pixel and the post constants in registers: 4 rows
// (of 1 vector) spilled, and 4 rows of 2 vectors more so (conv_kernel_bench
// on Zen 2, paired.py: 32x112x112 s1 43.6 -> 54.7 GFLOP/s, 144x56x56 s1
// 41.9 -> 50.1, 16x32x32 s1 1.16x, stride 2 (16x224x224) 1.12x; 5 rows
// or 2 were slower). The empty asm keeps each loaded pixel in a register
// for the up to 3 FMAs that take it, where the compiler would load it
// again as a memory operand of each (5-11% slower).
static inline __attribute__((always_inline)) void out_vector(
    const channel_t *c, const float *const *rows, int64_t ow, float *out,
    int64_t out_stride, int64_t n, const int RH, const int S,
    const bool POST, const int FROM, const int V) {
  const int inputs = S == 1 ? RH + 2 : 2 * RH + 1;
  __m256 acc[2][ROWS];
#pragma GCC unroll 2
  for (int v = 0; v < V; ++v) {
#pragma GCC unroll 8
    for (int r = 0; r < RH; ++r) {
      acc[v][r] = _mm256_setzero_ps();
    }
  }
#pragma GCC unroll 16
  for (int i = 0; i < inputs; ++i) {
    const float *row = rows[i] + ow;
#pragma GCC unroll 3
    for (int kw = 0; kw < 3; ++kw) {
#pragma GCC unroll 2
      for (int v = 0; v < V; ++v) {
        // Padded column ow + kw (stride 1), 2 ow + kw (stride 2).
        __m256 x;
        if (S == 2) {
          x = _mm256_loadu_ps(row +
                              (kw == 0 ? 7 : kw == 1 ? c->phase : 8));
        } else if (FROM == RING) {
          x = _mm256_loadu_ps(row + 7 + kw);
        } else if (FROM == LEFT && kw == 0) {
          x = zero_then(_mm256_loadu_ps(row));
        } else if (FROM == RIGHT && kw == 2) {
          x = then_zero(_mm256_loadu_ps(row));
        } else {
          x = _mm256_loadu_ps(row + 8 * v - 1 + kw);
          __asm__("" : "+x"(x));
        }
        // Out row r reads input row r * S + kh: in increasing i, so each
        // chain runs in (kh, kw) order.
#pragma GCC unroll 8
        for (int r = 0; r < RH; ++r) {
          const int kh = i - r * S;
          if (kh >= 0 && kh < 3) {
            acc[v][r] = _mm256_fmadd_ps(x, c->w[kh * 3 + kw], acc[v][r]);
          }
        }
      }
    }
  }
#pragma GCC unroll 2
  for (int v = 0; v < V; ++v) {
#pragma GCC unroll 8
    for (int r = 0; r < RH; ++r) {
      const __m256 y = finish(c, acc[v][r], POST);
      if (n == 8) {
        _mm256_storeu_ps(out + r * out_stride + ow + 8 * v, y);
      } else {
        etr_avx2_store_first_ps(out + r * out_stride + ow, y, n);
      }
    }
  }
}

// RH out rows of the whole width: whole vectors, then (out_w % 8) the
// last 8 columns again (the same bits where they overlap) or, in rows
// narrower than a vector, the first out_w lanes. With DIRECT input rows
// (stride 1, out_w = in_w >= 16): the first vector, those inside, the
// last.
static inline __attribute__((always_inline)) void out_rows(
    const channel_t *c, const float *const *rows, int64_t out_w,
    float *out, int64_t out_stride, const int RH, const int S,
    const bool POST, const bool DIRECT_ROWS) {
  if (DIRECT_ROWS) {
    out_vector(c, rows, 0, out, out_stride, 8, RH, 1, POST, LEFT, 1);
    int64_t ow = 8;
    for (; ow + 17 <= out_w; ow += 16) {
      out_vector(c, rows, ow, out, out_stride, 8, RH, 1, POST, DIRECT, 2);
    }
    for (; ow + 9 <= out_w; ow += 8) {
      out_vector(c, rows, ow, out, out_stride, 8, RH, 1, POST, DIRECT, 1);
    }
    out_vector(c, rows, out_w - 8, out, out_stride, 8, RH, 1, POST, RIGHT, 1);
    return;
  }
  if (out_w < 8) {
    out_vector(c, rows, 0, out, out_stride, out_w, RH, S, POST, RING, 1);
    return;
  }
  int64_t ow = 0;
  for (; ow + 8 <= out_w; ow += 8) {
    out_vector(c, rows, ow, out, out_stride, 8, RH, S, POST, RING, 1);
  }
  if (ow < out_w) {
    out_vector(c, rows, out_w - 8, out, out_stride, 8, RH, S, POST, RING, 1);
  }
}

#define ROWS_CASE(RH)                                                  \
  case RH:                                                             \
    if (direct && post) {                                              \
      out_rows(c, rows, out_w, out, out_stride, RH, 1, true, true);    \
    } else if (direct) {                                               \
      out_rows(c, rows, out_w, out, out_stride, RH, 1, false, true);   \
    } else if (stride == 1 && post) {                                  \
      out_rows(c, rows, out_w, out, out_stride, RH, 1, true, false);   \
    } else if (stride == 1) {                                          \
      out_rows(c, rows, out_w, out, out_stride, RH, 1, false, false);  \
    } else if (post) {                                                 \
      out_rows(c, rows, out_w, out, out_stride, RH, 2, true, false);   \
    } else {                                                           \
      out_rows(c, rows, out_w, out, out_stride, RH, 2, false, false);  \
    }                                                                  \
    return;

// Inlined into its one caller, where the channel's weights are locals
// the out stores cannot reach: out of line (as the compiler chose once
// the kernel grew), they were reloaded after each store, 0.75-0.8x on
// every plane (conv_kernel_bench, paired.py).
static inline __attribute__((always_inline)) void block(
    const channel_t *c, const float *const *rows, int64_t out_w, float *out,
    int64_t out_stride, int rh, int64_t stride, bool post, bool direct) {
  switch (rh) {
    ROWS_CASE(1)
    ROWS_CASE(2)
    ROWS_CASE(3)

    default:
      return;  // not asked for
  }
}

#undef ROWS_CASE

// The stream of input rows, channel after channel, through a ring of
// `slots` stack rows `floats` apart: global row oc * in_h + ih lives in
// slot (that) & (slots - 1). Rows are copied as far ahead of the block
// that reads them as the ring allows, channels ahead on small planes:
// the taps load a row at other offsets than its copy stored it, which
// store forwarding cannot serve while the stores are in flight.
typedef struct stream {
  const etr_depthwise_args_t *args;
  float *ring;
  int64_t floats;  // per slot
  int64_t slots;
  int64_t phase;
  int64_t next;  // the first global row not yet copied
  int64_t end;   // channels * in_h
} stream_t;

static void copy_until(stream_t *st, int64_t global) {
  const etr_conv2d_geometry_t *g = st->args->geometry;
  if (global > st->end) {
    global = st->end;
  }
  int64_t oc = st->next / g->in_h;
  int64_t ih = st->next - oc * g->in_h;
  int64_t slot = st->next & (st->slots - 1);
  for (; st->next < global; ++st->next) {
    copy_row(g, st->args->input + oc * g->in_stride_c, ih, st->phase,
             st->ring + slot * st->floats);
    if (++ih == g->in_h) {
      ih = 0;
      ++oc;
    }
    if (++slot == st->slots) {
      slot = 0;
    }
  }
}

void etr_depthwise_rows_nchw_avx2(const etr_depthwise_args_t *args,
                                  const etr_conv_post_t *post) {
  const etr_conv2d_geometry_t *g = args->geometry;
  if (!etr_depthwise_rows_nchw_avx2_applies(g, args->channels,
                                            args->multiplier)) {
    return;  // not a call _applies accepts
  }
  const int64_t s = g->stride_h;
  const int64_t in_h = g->in_h;
  _Alignas(32) float ring[RING_FLOATS];
  _Alignas(32) float zero_row[2 * ROW_FLOATS];
  // A phase: the padding vector, max(out_w, 8) in whole vectors, then
  // copy_row's zero vector.
  const int64_t phase = ((g->out_w > 8 ? g->out_w : 8) + 7) / 8 * 8 + 16;
  stream_t st = {.args = args, .ring = ring, .floats = phase * s,
                 .phase = phase, .next = 0, .end = args->channels * in_h};
  // A power of 2, so that a row's slot is a mask away (a division per
  // row was most of a 4x4 plane's time).
  st.slots = MAX_SLOTS;
  while (st.slots * st.floats > RING_FLOATS) {
    st.slots /= 2;
  }
  for (int64_t j = 0; j < 2 * ROW_FLOATS / 8; ++j) {
    _mm256_store_ps(zero_row + j * 8, _mm256_setzero_ps());
  }
  // Stride 1 on rows of 16 or more reads the input rows in place (no
  // stack copy); the zero row stands for the padding rows.
  const bool direct = s == 1 && g->in_w >= 16;
  channel_t c;
  c.phase = phase;
  const bool affine = post != NULL && post->scale != NULL;
  c.low = _mm256_set1_ps(post != NULL ? post->low : -INFINITY);
  c.high = _mm256_set1_ps(post != NULL ? post->high : INFINITY);
  c.scale = _mm256_set1_ps(1.0f);
  c.shift = _mm256_setzero_ps();
  c.bias = _mm256_setzero_ps();
  for (int64_t oc = 0; oc < args->channels; ++oc) {
    const float *w = args->weight + oc * g->w_stride_oc;
    for (int kh = 0; kh < 3; ++kh) {
      for (int kw = 0; kw < 3; ++kw) {
        c.w[kh * 3 + kw] =
            _mm256_set1_ps(w[kh * g->w_stride_h + kw * g->w_stride_w]);
      }
    }
    if (args->bias != NULL) {
      c.bias = _mm256_set1_ps(args->bias[oc * args->bias_stride]);
    }
    if (affine) {
      c.scale = _mm256_set1_ps(post->scale[oc]);
      c.shift = _mm256_set1_ps(post->shift[oc]);
    }
    float *out = args->out + oc * args->out_stride_c;
    const float *plane = args->input + oc * g->in_stride_c;
    for (int64_t oh0 = 0; oh0 < g->out_h; oh0 += ROWS) {
      const int rh = g->out_h - oh0 < ROWS ? (int)(g->out_h - oh0) : ROWS;
      const int64_t first = oh0 * s - 1;
      if (!direct) {
        // Only rows before this block's first are overwritten: the ring
        // holds at least 2 ROWS + 1 (the _Static_assert above).
        copy_until(&st, oc * in_h + (first > 0 ? first : 0) + st.slots);
      }
      const int inputs = s == 1 ? rh + 2 : 2 * rh + 1;
      const float *rows[2 * ROWS + 1];
      for (int i = 0; i < inputs; ++i) {
        const int64_t ih = first + i;
        rows[i] = ih < 0 || ih >= in_h ? zero_row
                  : direct             ? plane + ih * g->in_stride_h
                                       : ring + ((oc * in_h + ih) &
                                                 (st.slots - 1)) *
                                                    st.floats;
      }
      block(&c, rows, g->out_w, out + oh0 * args->out_stride_h,
            args->out_stride_h, rh, s, post != NULL, direct);
    }
  }
}

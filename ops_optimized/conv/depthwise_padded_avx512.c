// SPDX-License-Identifier: Apache-2.0
//
// Depthwise convolution of small NCHW planes with kernels other than 3x3
// (MobileNetV3's and EfficientNet's 5x5, 7x7), AVX-512 (conv.h): per
// channel, the input plane is first copied into zero-padded planes on the
// stack, split at stride 2 into its four phases (even/odd rows by even/odd
// columns), so that every tap is a constant shift of a phase plane:
// out[oh][ow] = sum w[kh][kw] P[kh % s][kw % s][oh + kh / s][ow + kw / s].
// Four out rows are computed at once, 16 columns at a time: each phase
// row's two aligned vectors and their valignd shifts feed every (out row,
// tap) that reads them. The generic kernels (depthwise_avx512.c) mask,
// permute or gather per tap instead, and per-tap unaligned loads of the
// phase planes were load-bound (a load per FMA, most split across cache
// lines): dwconv5x5s2-72-56 435 -> 263 -> ~100 ms per 2000 calls
// (generic, per-tap loads, this). Planes of at most 16 outputs (4 x 4)
// are one vector per channel instead, each tap a vpermt2ps of the phase
// rows it reads. The zeros stand for the padding taps,
// which add nothing: padded convolutions with a non-finite weight never
// come here (op_convolution.c). Sums start from 0, the bias is added last.
#include <immintrin.h>
#include <string.h>

#include "ops_optimized/conv/conv.h"
#include "ops_optimized/conv/lanes_avx512.h"

#define MAX_K 7
#define MAX_PADDED_W 64   // padded row width (input width + 2 padding)
#define ROWS 4            // out rows per block (accumulators)
#define PHASE_BUFFER 6144 // floats of phase planes (24 KiB)

bool etr_depthwise_padded_nchw_avx512_applies(
    const etr_conv2d_geometry_t *g) {
  const int64_t k = g->kernel_w;
  const int64_t wp = g->in_w + 2 * g->pad_w;
  const int64_t hp = g->in_h + 2 * g->pad_h;
  const int64_t s = g->stride_w;
  if (!(g->kernel_h == k && k >= 2 && k <= MAX_K && k != 3 &&
        g->stride_h == s && (s == 1 || s == 2) && g->dilation_h == 1 &&
        g->dilation_w == 1 && g->pad_h >= 0 && g->pad_w >= 0 &&
        g->pad_h < k && g->pad_w < k && g->in_stride_w == 1 &&
        wp <= MAX_PADDED_W && hp <= 4 * MAX_PADDED_W && g->out_w >= 1 &&
        g->out_h >= 1)) {
    return false;
  }
  const int64_t hq = (hp + s - 1) / s;
  const int64_t wq16 = ((wp + s - 1) / s + 15) / 16 * 16;
  return s * s * ((hq + ROWS) * wq16 + 16) <= PHASE_BUFFER;
}

// Which lanes of padded columns [16 t, 16 t + 16) hold input columns
// (16 t + l - pad in [0, width)): the same for every row.
static inline __mmask16 padded_lanes(int64_t width, int64_t pad, int64_t t) {
  const int64_t first = 16 * t - pad;
  const int64_t lo = first < 0 ? -first : 0;
  const int64_t hi = width - first < 16 ? width - first : 16;
  return hi > lo ? (__mmask16)(first_lanes(hi) & ~first_lanes(lo))
                 : (__mmask16)0;
}

// Padded columns [16 t, 16 t + 16) of input row `row` (zeros in the
// padding; masked-off lanes are not read: `row + 16 t - pad` may point
// before the row).
static inline __m512 padded16(const float *row, int64_t pad, int64_t t,
                              const __mmask16 *lanes) {
  return _mm512_maskz_loadu_ps(lanes[t], row + 16 * t - pad);
}

// The input rows of one plane into the phase planes: phase (a, b) holds
// padded element (s i + a, s j + b) at [i][j], rows `wq` apart, planes
// `stride_plane` floats apart. Whole phase rows are written (zeros for
// the padding columns); the padding rows, the columns past a phase row's
// width and the slack past the planes were zeroed once per call (run).
static inline __attribute__((always_inline)) void split(
    const etr_conv2d_geometry_t *g, const float *plane, int64_t s,
    int64_t wq, int64_t stride_plane, const __mmask16 *lanes,
    float *phases) {
  const int64_t wp = g->in_w + 2 * g->pad_w;
  const int64_t width = (wp + s - 1) / s;  // of a phase row (<= wq)
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18,
                                         20, 22, 24, 26, 28, 30);
  const __m512i odd = _mm512_add_epi32(even, _mm512_set1_epi32(1));
  for (int64_t ih = 0; ih < g->in_h; ++ih) {
    const float *row = plane + ih * g->in_stride_h;
    const int64_t ph = ih + g->pad_h;  // padded row
    float *to = phases + (ph % s) * s * stride_plane + (ph / s) * wq;
    if (s == 1) {
      for (int64_t t = 0; 16 * t < wp; ++t) {
        _mm512_mask_storeu_ps(to + 16 * t, first_lanes(width - 16 * t),
                              padded16(row, g->pad_w, t, lanes));
      }
      continue;
    }
    // Padded columns [32 u, 32 u + 32): their even and odd ones.
    for (int64_t u = 0; 32 * u < wp; ++u) {
      __m512 lo = padded16(row, g->pad_w, 2 * u, lanes);
      __m512 hi = padded16(row, g->pad_w, 2 * u + 1, lanes);
      const __mmask16 m = first_lanes(width - 16 * u);
      _mm512_mask_storeu_ps(to + 16 * u, m,
                            _mm512_permutex2var_ps(lo, even, hi));
      _mm512_mask_storeu_ps(to + stride_plane + 16 * u, m,
                            _mm512_permutex2var_ps(lo, odd, hi));
    }
  }
}

// `t` lanes further along a phase row: lanes l of (a, b) = row[l + t].
#define SHIFT(a, b, t)                                                     \
  _mm512_castsi512_ps(_mm512_alignr_epi32(_mm512_castps_si512(b),          \
                                          _mm512_castps_si512(a), (t)))

// Out rows [oh0, oh0 + ROWS) (those past the last are computed from the
// zero rows below and not stored) of one channel, 16 columns at a time:
// per kernel row and out row, each phase's two aligned vectors and their
// shifts (valignd) give that row's k taps: two loads per ceil(k / s) FMAs
// instead of one (split across cache lines) per FMA.
static inline __attribute__((always_inline)) void rows_block(
    const float *phases, const float *w, const etr_conv2d_geometry_t *g,
    int64_t k, int64_t s, int64_t wq16, int64_t stride_plane, int64_t oh0,
    float *out, __m512 bias) {
  for (int64_t ow = 0; ow < g->out_w; ow += 16) {
    __m512 acc[ROWS];
#pragma GCC unroll 4
    for (int r = 0; r < ROWS; ++r) {
      acc[r] = _mm512_setzero_ps();
    }
    // Kernel row kh: out row oh0 + r reads phase row oh0 + r + kh / s of
    // phases (kh % s, b), columns ow + t (kw = s t + b).
#pragma GCC unroll 1
    for (int64_t kh = 0; kh < k; ++kh) {
      const float *wk = w + kh * g->w_stride_h;
#pragma GCC unroll 4
      for (int r = 0; r < ROWS; ++r) {
#pragma GCC unroll 2
        for (int64_t b = 0; b < s; ++b) {
          const float *row = phases + ((kh % s) * s + b) * stride_plane +
                             (oh0 + r + kh / s) * wq16 + ow;
          const __m512 lo = _mm512_load_ps(row);
          const __m512 hi = _mm512_load_ps(row + 16);
#pragma GCC unroll 7
          for (int64_t t = 0; t <= (k - 1 - b) / s; ++t) {
            __m512 v = lo;
            // valignd takes an immediate: one case per shift.
            switch (t) {
              case 1: v = SHIFT(lo, hi, 1); break;
              case 2: v = SHIFT(lo, hi, 2); break;
              case 3: v = SHIFT(lo, hi, 3); break;
              case 4: v = SHIFT(lo, hi, 4); break;
              case 5: v = SHIFT(lo, hi, 5); break;
              case 6: v = SHIFT(lo, hi, 6); break;
              default: break;
            }
            acc[r] = _mm512_fmadd_ps(
                _mm512_set1_ps(wk[(s * t + b) * g->w_stride_w]), v, acc[r]);
          }
        }
      }
    }
    const __mmask16 lanes = first_lanes(g->out_w - ow);
#pragma GCC unroll 4
    for (int r = 0; r < ROWS; ++r) {
      if (oh0 + r < g->out_h) {
        _mm512_mask_storeu_ps(out + (oh0 + r) * g->out_w + ow, lanes,
                              _mm512_add_ps(acc[r], bias));
      }
    }
  }
}

// A plane of at most 16 outputs (MobileNetV3's last 4 x 4 stages) as one
// vector, lane l = (l / out_w, l % out_w): per kernel row and phase, the
// out_h phase rows it reads (at most 32 floats, rows wq apart) in two
// registers, and each tap one vpermt2ps of them, then one masked store of
// the dense out plane.
static inline __attribute__((always_inline)) void tiny_channel(
    const float *phases, const float *w, const etr_conv2d_geometry_t *g,
    int64_t k, int64_t s, int64_t wq, int64_t stride_plane, __m512i index,
    float *out, const float *bias) {
  // Four chains (kernel row parity by phase column): one alone waited on
  // each FMA's latency, 25 deep for 5 x 5.
  __m512 acc[4] = {_mm512_setzero_ps(), _mm512_setzero_ps(),
                   _mm512_setzero_ps(), _mm512_setzero_ps()};
#pragma GCC unroll 1
  for (int64_t kh = 0; kh < k; ++kh) {
    const float *wk = w + kh * g->w_stride_h;
#pragma GCC unroll 2
    for (int64_t b = 0; b < s; ++b) {
      const float *rows =
          phases + ((kh % s) * s + b) * stride_plane + (kh / s) * wq;
      const __m512 lo = _mm512_loadu_ps(rows);
      const __m512 hi = _mm512_loadu_ps(rows + 16);
      __m512 *sum = &acc[(kh & 1) * 2 + b];
#pragma GCC unroll 7
      for (int64_t t = 0; t <= (k - 1 - b) / s; ++t) {
        const __m512 x = _mm512_permutex2var_ps(
            lo, _mm512_add_epi32(index, _mm512_set1_epi32((int32_t)t)), hi);
        *sum = _mm512_fmadd_ps(
            _mm512_set1_ps(wk[(s * t + b) * g->w_stride_w]), x, *sum);
      }
    }
  }
  __m512 total = _mm512_add_ps(_mm512_add_ps(acc[0], acc[1]),
                               _mm512_add_ps(acc[2], acc[3]));
  if (bias != NULL) {
    total = _mm512_add_ps(total, _mm512_set1_ps(*bias));
  }
  _mm512_mask_storeu_ps(out, first_lanes(g->out_h * g->out_w), total);
}

static inline __attribute__((always_inline)) void run(
    const etr_depthwise_args_t *args, int64_t k, int64_t s) {
  const etr_conv2d_geometry_t *g = args->geometry;
  const int64_t hp = g->in_h + 2 * g->pad_h;
  const int64_t wp = g->in_w + 2 * g->pad_w;
  const int64_t hq = (hp + s - 1) / s;
  const int64_t wq16 = ((wp + s - 1) / s + 15) / 16 * 16;
  // Tiny planes: phase rows as wide as they are (wq), so that out_h of
  // them fit two registers.
  const int64_t wq = (wp + s - 1) / s;
  const bool tiny = g->out_h * g->out_w <= 16 && g->out_h * wq <= 32;
  const int64_t row_stride = tiny ? wq : wq16;
  // ROWS zero rows under each phase plane (the last block's rows past the
  // out) and one vector of slack (its last vector's high half; a tiny
  // plane's second register).
  const int64_t stride_plane = (hq + ROWS) * wq16 + 16;
  int32_t lane_index[16];
  for (int l = 0; l < 16; ++l) {
    const int64_t r = l / g->out_w;
    lane_index[l] = r < g->out_h ? (int32_t)(r * wq + l % g->out_w) : 0;
  }
  const __m512i index = _mm512_loadu_si512(lane_index);
  _Alignas(64) float phases[PHASE_BUFFER];
  memset(phases, 0, (size_t)(s * s * stride_plane) * sizeof(float));
  __mmask16 lanes[MAX_PADDED_W / 16 + 1];
  for (int64_t t = 0; t <= MAX_PADDED_W / 16; ++t) {
    lanes[t] = padded_lanes(g->in_w, g->pad_w, t);
  }
  for (int64_t oc = 0; oc < args->channels; ++oc) {
    const int64_t ic = oc / args->multiplier;
    // Consecutive out channels of one input channel share its phases.
    if (oc == 0 || ic != (oc - 1) / args->multiplier) {
      split(g, args->input + ic * g->in_stride_c, s, row_stride,
            stride_plane, lanes, phases);
    }
    if (tiny) {
      tiny_channel(phases, args->weight + oc * g->w_stride_oc, g, k, s, wq,
                   stride_plane, index,
                   args->out + oc * args->out_stride_c,
                   args->bias != NULL ? args->bias + oc * args->bias_stride
                                      : NULL);
      continue;
    }
    const __m512 bias = args->bias != NULL
                            ? _mm512_set1_ps(args->bias[oc * args->bias_stride])
                            : _mm512_setzero_ps();
    const float *w = args->weight + oc * g->w_stride_oc;
    float *out = args->out + oc * args->out_stride_c;
    for (int64_t oh0 = 0; oh0 < g->out_h; oh0 += ROWS) {
      rows_block(phases, w, g, k, s, wq16, stride_plane, oh0, out, bias);
    }
  }
}

void etr_depthwise_padded_nchw_avx512(const etr_depthwise_args_t *args) {
  const etr_conv2d_geometry_t *g = args->geometry;
  if (g->kernel_w == 5 && g->stride_w == 1) {
    run(args, 5, 1);
  } else if (g->kernel_w == 5) {
    run(args, 5, 2);
  } else if (g->stride_w == 1) {
    run(args, g->kernel_w, 1);
  } else {
    run(args, g->kernel_w, 2);
  }
}

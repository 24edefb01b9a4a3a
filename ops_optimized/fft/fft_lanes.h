// SPDX-License-Identifier: Apache-2.0
//
// The FFT microkernels (fft.h), portable C over ETR_FFT_LANES signals at a
// time, included by each ISA's file and compiled with its flags. Each row
// of ETR_FFT_LANES values is worked in parts of FFT_VECTOR_LANES, one of
// the file's registers (16 floats on AVX-512, 8 on AVX2, 4 on NEON and
// SSE2), which the including file defines first. Include once per file.
#ifndef ETR_OPS_OPTIMIZED_FFT_FFT_LANES_H
#define ETR_OPS_OPTIMIZED_FFT_FFT_LANES_H

#include <string.h>

#include "ops_optimized/fft/fft.h"

#ifndef FFT_VECTOR_LANES
#error "define FFT_VECTOR_LANES (floats per register) before fft_lanes.h"
#endif

// One register's part of a row of lanes as a GCC/clang vector: the
// compiler keeps it in one register whatever its auto-vectorizer would
// decide (it kept the fused stages below scalar, with run-time alias
// checks). A vector of the whole row (16 floats) on AVX2 was two
// registers to GCC in the plain cases, but where a butterfly's twiddle
// splats were shared it built them as 64-byte temporaries on the stack,
// 16 scalar stores each: a 64-signal 1024-point r2c ran 436 us with
// AVX2 against ExecuTorch's 68 (the bench of 2026-12-06 forced to AVX2
// on the Xeon). Rows are 64-byte aligned (the driver's arena allocations
// and 64-byte rows).
typedef etr_fft_real_t fft_vec_t
    __attribute__((vector_size(FFT_VECTOR_LANES * sizeof(etr_fft_real_t))));

_Static_assert(ETR_FFT_LANES % FFT_VECTOR_LANES == 0,
               "a row of lanes is whole vectors");

static inline fft_vec_t fft_load(const etr_fft_real_t *at) {
  return *(const fft_vec_t *)at;
}

static inline void fft_store(etr_fft_real_t *at, fft_vec_t value) {
  *(fft_vec_t *)at = value;
}

// kLanes values a row, kVec a vector: each loop below over a row's parts
// (h) runs kLanes / kVec times, unrolled.
enum { kLanes = ETR_FFT_LANES, kVec = FFT_VECTOR_LANES };

// The stages run two at a time (radix 2^2: four rows loaded, both
// stages' butterflies done in registers, stored once), halving the passes
// over the m x lanes arrays, which outgrow L1 from m = 256; a first
// single stage when the count is odd (skipped when `first_done`: the
// caller's gather did it). The arithmetic is the radix-2 transform's.
static void fft_lanes_transform(size_t m, etr_fft_real_t *re,
                                etr_fft_real_t *im,
                                const etr_fft_real_t *w_re,
                                const etr_fft_real_t *w_im,
                                etr_fft_real_t sign, bool first_done) {
  size_t half = 1;
  size_t stages = 0;
  while (((size_t)1 << stages) < m) {
    ++stages;
  }
  if (stages % 2 == 1) {  // twiddle 1 throughout
    for (size_t start = 0; !first_done && start < m; start += 2) {
#pragma GCC unroll 4
      for (size_t h = 0; h < kLanes; h += kVec) {
        etr_fft_real_t *u_re = re + start * kLanes + h;
        etr_fft_real_t *u_im = im + start * kLanes + h;
        etr_fft_real_t *v_re = u_re + kLanes;
        etr_fft_real_t *v_im = u_im + kLanes;
        fft_vec_t ar = fft_load(u_re), ai = fft_load(u_im);
        fft_vec_t br = fft_load(v_re), bi = fft_load(v_im);
        fft_store(u_re, ar + br);
        fft_store(u_im, ai + bi);
        fft_store(v_re, ar - br);
        fft_store(v_im, ai - bi);
      }
    }
    half = 2;
  }
  for (; half < m; half *= 4) {
    size_t step1 = m / (2 * half);  // stage of length 2 half
    size_t step2 = m / (4 * half);  // stage of length 4 half
    for (size_t start = 0; start < m; start += 4 * half) {
      for (size_t k = 0; k < half; ++k) {
        etr_fft_real_t w1r = w_re[k * step1];
        etr_fft_real_t w1i = sign * w_im[k * step1];
        etr_fft_real_t w2r = w_re[k * step2];
        etr_fft_real_t w2i = sign * w_im[k * step2];
        etr_fft_real_t w3r = w_re[(k + half) * step2];
        etr_fft_real_t w3i = sign * w_im[(k + half) * step2];
#pragma GCC unroll 4
        for (size_t h = 0; h < kLanes; h += kVec) {
          size_t a = (start + k) * kLanes + h;
          size_t b = a + half * kLanes;
          size_t c = b + half * kLanes;
          size_t d = c + half * kLanes;
          fft_vec_t ar = fft_load(re + a), ai = fft_load(im + a);
          fft_vec_t br = fft_load(re + b), bi = fft_load(im + b);
          fft_vec_t cr = fft_load(re + c), ci = fft_load(im + c);
          fft_vec_t dr = fft_load(re + d), di = fft_load(im + d);
          // Stage one: (a, b) and (c, d), twiddle w1.
          fft_vec_t tr = br * w1r - bi * w1i;
          fft_vec_t ti = br * w1i + bi * w1r;
          fft_vec_t a1r = ar + tr, a1i = ai + ti;
          fft_vec_t b1r = ar - tr, b1i = ai - ti;
          tr = dr * w1r - di * w1i;
          ti = dr * w1i + di * w1r;
          fft_vec_t c1r = cr + tr, c1i = ci + ti;
          fft_vec_t d1r = cr - tr, d1i = ci - ti;
          // Stage two: (a, c) with w2, (b, d) with w3.
          tr = c1r * w2r - c1i * w2i;
          ti = c1r * w2i + c1i * w2r;
          fft_store(re + a, a1r + tr);
          fft_store(im + a, a1i + ti);
          fft_store(re + c, a1r - tr);
          fft_store(im + c, a1i - ti);
          tr = d1r * w3r - d1i * w3i;
          ti = d1r * w3i + d1i * w3r;
          fft_store(re + b, b1r + tr);
          fft_store(im + b, b1i + ti);
          fft_store(re + d, b1r - tr);
          fft_store(im + d, b1i - ti);
        }
      }
    }
  }
}

// One radix-`radix` step (2, 3, 4 or 5) of the Stockham transform below,
// for every j < m / radix: the points j + r m / radix (r < radix), times
// the twiddles of position k = j mod span, transformed, land at
// (j / span) span radix + k + q span (q < radix).
static inline __attribute__((always_inline)) void fft_lanes_stockham_stage(
    size_t m, size_t span, const int radix, const etr_fft_real_t *tw_re,
    const etr_fft_real_t *tw_im, etr_fft_real_t sign,
    const etr_fft_real_t *in_re, const etr_fft_real_t *in_im,
    etr_fft_real_t *out_re, etr_fft_real_t *out_im) {
  const size_t stride = m / (size_t)radix;
  // cos and sin of 2 pi / 3, 2 pi / 5 and 4 pi / 5.
  const etr_fft_real_t s3 = sign * 0.866025403784438647f;
  const etr_fft_real_t c1 = 0.309016994374947424f;
  const etr_fft_real_t c2 = -0.809016994374947424f;
  const etr_fft_real_t s1 = sign * 0.951056516295153572f;
  const etr_fft_real_t s2 = sign * 0.587785252292473129f;
  const etr_fft_real_t half = 0.5f;
  // j = g span + k, without a division per point.
  for (size_t g = 0, j = 0; g < stride / span; ++g) {
    for (size_t k = 0; k < span; ++k, ++j) {
      // The loops over r and q are unrolled (the pragmas):
      // left to GCC they stayed loops, the arrays below on the stack,
      // and a 64-signal 225-point r2c ran 1.7x slower (AVX-512 on Zen 4,
      // 1.5x with AVX2).
      etr_fft_real_t wr[5], wi[5];  // point r's twiddle (1 at k = 0)
      #pragma GCC unroll 5
      for (int r = 1; r < radix; ++r) {
        const size_t t = k * (size_t)(radix - 1) + (size_t)(r - 1);
        wr[r] = tw_re[t];
        wi[r] = sign * tw_im[t];
      }
      const size_t base = g * span * (size_t)radix + k;
#pragma GCC unroll 4
      for (size_t h = 0; h < kLanes; h += kVec) {
        fft_vec_t vr[5], vi[5];
        #pragma GCC unroll 5
        for (int r = 0; r < radix; ++r) {
          const size_t at = (j + (size_t)r * stride) * kLanes + h;
          vr[r] = fft_load(in_re + at);
          vi[r] = fft_load(in_im + at);
          if (r > 0 && k > 0) {
            const fft_vec_t xr = vr[r];
            vr[r] = xr * wr[r] - vi[r] * wi[r];
            vi[r] = xr * wi[r] + vi[r] * wr[r];
          }
        }
        fft_vec_t yr[5], yi[5];
        if (radix == 2) {
          yr[0] = vr[0] + vr[1], yi[0] = vi[0] + vi[1];
          yr[1] = vr[0] - vr[1], yi[1] = vi[0] - vi[1];
        } else if (radix == 3) {
          const fft_vec_t tr = vr[1] + vr[2], ti = vi[1] + vi[2];
          const fft_vec_t ar = vr[0] - half * tr, ai = vi[0] - half * ti;
          const fft_vec_t dr = s3 * (vr[1] - vr[2]), di = s3 * (vi[1] - vi[2]);
          yr[0] = vr[0] + tr, yi[0] = vi[0] + ti;
          yr[1] = ar + di, yi[1] = ai - dr;  // a - i s3 d
          yr[2] = ar - di, yi[2] = ai + dr;
        } else if (radix == 4) {
          const fft_vec_t pr = vr[0] + vr[2], pi = vi[0] + vi[2];
          const fft_vec_t qr = vr[0] - vr[2], qi = vi[0] - vi[2];
          const fft_vec_t ur = vr[1] + vr[3], ui = vi[1] + vi[3];
          const fft_vec_t er = sign * (vr[1] - vr[3]);
          const fft_vec_t ei = sign * (vi[1] - vi[3]);
          yr[0] = pr + ur, yi[0] = pi + ui;
          yr[2] = pr - ur, yi[2] = pi - ui;
          yr[1] = qr + ei, yi[1] = qi - er;  // q - i sign e
          yr[3] = qr - ei, yi[3] = qi + er;
        } else {  // 5
          const fft_vec_t t1r = vr[1] + vr[4], t1i = vi[1] + vi[4];
          const fft_vec_t t2r = vr[2] + vr[3], t2i = vi[2] + vi[3];
          const fft_vec_t t3r = vr[1] - vr[4], t3i = vi[1] - vi[4];
          const fft_vec_t t4r = vr[2] - vr[3], t4i = vi[2] - vi[3];
          const fft_vec_t a1r = vr[0] + c1 * t1r + c2 * t2r;
          const fft_vec_t a1i = vi[0] + c1 * t1i + c2 * t2i;
          const fft_vec_t a2r = vr[0] + c2 * t1r + c1 * t2r;
          const fft_vec_t a2i = vi[0] + c2 * t1i + c1 * t2i;
          const fft_vec_t b1r = s1 * t3r + s2 * t4r, b1i = s1 * t3i + s2 * t4i;
          const fft_vec_t b2r = s2 * t3r - s1 * t4r, b2i = s2 * t3i - s1 * t4i;
          yr[0] = vr[0] + t1r + t2r, yi[0] = vi[0] + t1i + t2i;
          yr[1] = a1r + b1i, yi[1] = a1i - b1r;  // a1 - i b1
          yr[4] = a1r - b1i, yi[4] = a1i + b1r;
          yr[2] = a2r + b2i, yi[2] = a2i - b2r;  // a2 - i b2
          yr[3] = a2r - b2i, yi[3] = a2i + b2r;
        }
        #pragma GCC unroll 5
        for (int q = 0; q < radix; ++q) {
          const size_t at = (base + (size_t)q * span) * kLanes + h;
          fft_store(out_re + at, yr[q]);
          fft_store(out_im + at, yi[q]);
        }
      }
    }
  }
}

// The transform of m points in natural order (re, im) by the Stockham
// (self-sorting) radix-2/3/4/5 steps `radices` (their product m), ping-
// ponging through (work_re, work_im), the result back in (re, im). tw:
// per step, for k < span (the product of the steps before) and r <
// radix - 1, exp(-2 pi i (r + 1) k / (span radix)); sign 1 forward, -1
// inverse (unnormalized). No bit reversal: 200 points (Whisper's 400-point
// real frames) are 4 x 2 x 5 x 5.
static void fft_lanes_stockham(size_t m, const uint8_t *radices,
                               size_t steps, const etr_fft_real_t *tw_re,
                               const etr_fft_real_t *tw_im,
                               etr_fft_real_t sign, etr_fft_real_t *re,
                               etr_fft_real_t *im, etr_fft_real_t *work_re,
                               etr_fft_real_t *work_im) {
  etr_fft_real_t *in_re = re, *in_im = im;
  etr_fft_real_t *out_re = work_re, *out_im = work_im;
  size_t span = 1;
  for (size_t s = 0; s < steps; ++s) {
    switch (radices[s]) {
      case 2:
        fft_lanes_stockham_stage(m, span, 2, tw_re, tw_im, sign, in_re,
                                 in_im, out_re, out_im);
        break;
      case 3:
        fft_lanes_stockham_stage(m, span, 3, tw_re, tw_im, sign, in_re,
                                 in_im, out_re, out_im);
        break;
      case 4:
        fft_lanes_stockham_stage(m, span, 4, tw_re, tw_im, sign, in_re,
                                 in_im, out_re, out_im);
        break;
      default:
        fft_lanes_stockham_stage(m, span, 5, tw_re, tw_im, sign, in_re,
                                 in_im, out_re, out_im);
        break;
    }
    tw_re += span * (size_t)(radices[s] - 1);
    tw_im += span * (size_t)(radices[s] - 1);
    span *= radices[s];
    etr_fft_real_t *swap_re = in_re, *swap_im = in_im;
    in_re = out_re, in_im = out_im;
    out_re = swap_re, out_im = swap_im;
  }
  if (in_re != re) {
    memcpy(re, in_re, m * kLanes * sizeof(etr_fft_real_t));
    memcpy(im, in_im, m * kLanes * sizeof(etr_fft_real_t));
  }
}

// Row j < count of (in_re, in_im) times (f_re[j] + i f_im[j]), into row
// (rev ? rev[j] : j) of (out_re, out_im): Bluestein's chirp products.
static void fft_lanes_scale_rows(size_t count, const etr_fft_real_t *in_re,
                                 const etr_fft_real_t *in_im,
                                 const etr_fft_real_t *f_re,
                                 const etr_fft_real_t *f_im,
                                 const uint32_t *rev, etr_fft_real_t *out_re,
                                 etr_fft_real_t *out_im) {
  for (size_t j = 0; j < count; ++j) {
    const etr_fft_real_t fr = f_re[j], fi = f_im[j];
    const size_t row = (rev != NULL ? rev[j] : j) * kLanes;
#pragma GCC unroll 4
    for (size_t h = 0; h < kLanes; h += kVec) {
      const fft_vec_t xr = fft_load(in_re + j * kLanes + h);
      const fft_vec_t xi = fft_load(in_im + j * kLanes + h);
      fft_store(out_re + row + h, xr * fr - xi * fi);
      fft_store(out_im + row + h, xr * fi + xi * fr);
    }
  }
}

// True when every one of the `count` values is below 2^exponent in
// magnitude (exponent 1 to 128; 128: finite), so no NaN either: a
// biased exponent of 127 + exponent or more plus 129 - exponent carries
// into bit 31, no smaller one does; one register of values per step, two
// sums.
static bool fft_lanes_all_below(const float *values, size_t count,
                                int exponent) {
  typedef uint32_t bits_t
      __attribute__((vector_size(FFT_VECTOR_LANES * sizeof(uint32_t))));
  const uint32_t carry = (uint32_t)(129 - exponent) << 23;
  bits_t special[2] = {{0}, {0}};
  size_t i = 0;
  for (; i + 2 * kVec <= count; i += 2 * kVec) {
#pragma GCC unroll 2
    for (int v = 0; v < 2; ++v) {
      bits_t bits;
      memcpy(&bits, values + i + v * kVec, sizeof(bits));
      special[v] |= (bits & 0x7f800000u) + carry;
    }
  }
  special[0] |= special[1];
  uint32_t any = 0;
  for (int l = 0; l < kVec; ++l) {
    any |= special[0][l];
  }
  for (; i < count; ++i) {
    uint32_t bits;
    memcpy(&bits, values + i, sizeof(bits));
    any |= (bits & 0x7f800000u) + carry;
  }
  return (any & 0x80000000u) == 0;
}

// With A = Z[k] and B = conj(Z[m - k]): the even samples' transform is
// E = (A + B) / 2, the odd ones' O = -i (A - B) / 2, and X[k] = E + w^k O
// (0 < k < m); X[0] and X[m] are Re Z[0] +- Im Z[0].
// Part h (lanes h .. h + kVec - 1) of row k.
static inline void fft_lanes_split_row(size_t m, const etr_fft_real_t *re,
                                       const etr_fft_real_t *im,
                                       const etr_fft_real_t *w_re,
                                       const etr_fft_real_t *w_im, size_t k,
                                       size_t h, fft_vec_t *xr,
                                       fft_vec_t *xi) {
  fft_vec_t ar = fft_load(re + k * kLanes + h);
  fft_vec_t ai = fft_load(im + k * kLanes + h);
  fft_vec_t br = fft_load(re + (m - k) * kLanes + h);
  fft_vec_t bi = fft_load(im + (m - k) * kLanes + h);  // B's imaginary: -bi
  etr_fft_real_t wr = w_re[k];
  etr_fft_real_t wi = w_im[k];
  const etr_fft_real_t half = 0.5f;
  fft_vec_t er = half * (ar + br);
  fft_vec_t ei = half * (ai - bi);
  fft_vec_t odd_r = half * (ai + bi);
  fft_vec_t odd_i = -half * (ar - br);
  *xr = er + (wr * odd_r - wi * odd_i);
  *xi = ei + (wr * odd_i + wi * odd_r);
}

static void fft_lanes_r2c_split(size_t m, const etr_fft_real_t *re,
                                const etr_fft_real_t *im,
                                const etr_fft_real_t *w_re,
                                const etr_fft_real_t *w_im,
                                etr_fft_real_t *xr, etr_fft_real_t *xi) {
#pragma GCC unroll 4
  for (size_t h = 0; h < kLanes; h += kVec) {
    fft_vec_t zr = fft_load(re + h), zi = fft_load(im + h);
    fft_vec_t zero = zr - zr;
    fft_store(xr + h, zr + zi);
    fft_store(xi + h, zero);
    fft_store(xr + m * kLanes + h, zr - zi);
    fft_store(xi + m * kLanes + h, zero);
  }
  for (size_t k = 1; k < m; ++k) {
#pragma GCC unroll 4
    for (size_t h = 0; h < kLanes; h += kVec) {
      fft_vec_t row_r, row_i;
      fft_lanes_split_row(m, re, im, w_re, w_im, k, h, &row_r, &row_i);
      fft_store(xr + k * kLanes + h, row_r);
      fft_store(xi + k * kLanes + h, row_i);
    }
  }
}

// With A = X[k] and B = conj(X[m - k]): Z[k] = (A + B) + i conj(w^k)
// (A - B), whose unnormalized inverse transform of m points is 2m times
// the interleaved samples (even ones real, odd ones imaginary). The
// caller zeroes the imaginary parts of X[0] and X[m].
static void fft_lanes_c2r_merge(size_t m, const etr_fft_real_t *xr,
                                const etr_fft_real_t *xi,
                                const etr_fft_real_t *w_re,
                                const etr_fft_real_t *w_im,
                                const uint32_t *rev, etr_fft_real_t *re,
                                etr_fft_real_t *im) {
  for (size_t k = 0; k < m; ++k) {
    const etr_fft_real_t wr = w_re[k];
    const etr_fft_real_t wi = -w_im[k];  // conj(w^k)
    const size_t row = rev != NULL ? rev[k] : k;
#pragma GCC unroll 4
    for (size_t h = 0; h < kLanes; h += kVec) {
      fft_vec_t ar = fft_load(xr + k * kLanes + h);
      fft_vec_t ai = fft_load(xi + k * kLanes + h);
      fft_vec_t br = fft_load(xr + (m - k) * kLanes + h);
      fft_vec_t bi = -fft_load(xi + (m - k) * kLanes + h);
      fft_vec_t sr = ar + br, si = ai + bi;
      fft_vec_t dr = ar - br, di = ai - bi;
      fft_vec_t pr = wr * dr - wi * di;
      fft_vec_t pi = wr * di + wi * dr;
      fft_store(re + row * kLanes + h, sr - pi);
      fft_store(im + row * kLanes + h, si + pr);
    }
  }
}

// Pairs t in [first, count) of each source into row (rev ? rev[t] : t),
// and rows t in [first, count) back into each target's pairs, scaled:
// the element loops that finish the ISAs' block movers (pairs_to_rows,
// rows_to_pairs in fft.h) past their last whole block.
static inline void fft_lanes_pairs_to_rows_from(size_t first, size_t count,
                                                const float *const *source,
                                                const uint32_t *rev,
                                                etr_fft_real_t *re,
                                                etr_fft_real_t *im) {
  for (size_t t = first; t < count; ++t) {
    const size_t row = rev != NULL ? rev[t] : t;
    for (int l = 0; l < kLanes; ++l) {
      re[row * kLanes + l] = source[l][2 * t];
      im[row * kLanes + l] = source[l][2 * t + 1];
    }
  }
}

static inline void fft_lanes_rows_to_pairs_from(size_t first, size_t count,
                                                const etr_fft_real_t *re,
                                                const etr_fft_real_t *im,
                                                etr_fft_real_t scale,
                                                float *const *target) {
  for (size_t t = first; t < count; ++t) {
    for (int l = 0; l < kLanes; ++l) {
      target[l][2 * t] = re[t * kLanes + l] * scale;
      target[l][2 * t + 1] = im[t * kLanes + l] * scale;
    }
  }
}

// The kernel-table entries every ISA's file takes from this header (the
// block movers and fusions, where an ISA has them, are its own).
#define FFT_LANES_KERNELS                                            \
  .transform = fft_lanes_transform, .r2c_split = fft_lanes_r2c_split, \
  .c2r_merge = fft_lanes_c2r_merge, .all_below = fft_lanes_all_below, \
  .scale_rows = fft_lanes_scale_rows, .stockham = fft_lanes_stockham

#endif  // ETR_OPS_OPTIMIZED_FFT_FFT_LANES_H

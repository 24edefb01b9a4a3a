// SPDX-License-Identifier: Apache-2.0
//
// FFT microkernels, AVX-512 (one 512-bit register of 16 floats per step):
// fft_lanes.h compiled with this file's flags, and the moves between the
// signals' float pairs and the rows of lanes (fft.h) in 16 x 16 blocks:
// eight pairs of each of the 16 signals are one load, and the 16 x 16
// transpose of those loads (in registers: unpacks, then 128-bit block
// shuffles; 64 shuffles) is the rows re t, im t, re t+1, ... of the eight
// points. The way back is the same transpose. The element loops these
// replace (a scalar load and store per value) were half the time of a
// 64-signal, 1024-point r2c.
#include <immintrin.h>

#define FFT_VECTOR_LANES 16
#include "ops_optimized/fft/fft_lanes.h"

// Transposes the 16 x 16 block rows[0..15] in place: rows[i][j] becomes
// rows[j][i].
static inline __attribute__((always_inline)) void transpose16(
    __m512 *rows) {
  __m512 t[16];
#pragma GCC unroll 16
  for (int i = 0; i < 16; i += 2) {
    // Per 128-bit block b: columns 4b, 4b + 1 (lo) or 4b + 2, 4b + 3 (hi)
    // of rows i and i + 1, interleaved.
    t[i] = _mm512_unpacklo_ps(rows[i], rows[i + 1]);
    t[i + 1] = _mm512_unpackhi_ps(rows[i], rows[i + 1]);
  }
  __m512 u[16];  // u[4 g + c], block b: column 4b + c of rows 4g .. 4g + 3
#pragma GCC unroll 16
  for (int g = 0; g < 16; g += 4) {
    const __m512d t0 = _mm512_castps_pd(t[g]);
    const __m512d t1 = _mm512_castps_pd(t[g + 1]);
    const __m512d t2 = _mm512_castps_pd(t[g + 2]);
    const __m512d t3 = _mm512_castps_pd(t[g + 3]);
    u[g] = _mm512_castpd_ps(_mm512_unpacklo_pd(t0, t2));
    u[g + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(t0, t2));
    u[g + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(t1, t3));
    u[g + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(t1, t3));
  }
  // Column 4b + c is block b of u[c], u[4 + c], u[8 + c], u[12 + c].
#pragma GCC unroll 4
  for (int c = 0; c < 4; ++c) {
    const __m512 v = _mm512_shuffle_f32x4(u[c], u[4 + c], 0x88);  // b 0, 2
    const __m512 w = _mm512_shuffle_f32x4(u[c], u[4 + c], 0xdd);  // b 1, 3
    const __m512 x = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0x88);
    const __m512 y = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0xdd);
    rows[c] = _mm512_shuffle_f32x4(v, x, 0x88);
    rows[c + 8] = _mm512_shuffle_f32x4(v, x, 0xdd);
    rows[c + 4] = _mm512_shuffle_f32x4(w, y, 0x88);
    rows[c + 12] = _mm512_shuffle_f32x4(w, y, 0xdd);
  }
}

// Eight pairs of signal l are one vector (re, im, re, im, ...); the
// transpose of the 16 signals' vectors is the rows re t0, im t0, ...,
// re t0 + 7, im t0 + 7.
static void pairs_to_rows_avx512(size_t count, const float *const *source,
                                 const uint32_t *rev, etr_fft_real_t *re,
                                 etr_fft_real_t *im) {
  size_t t0 = 0;
  for (; t0 + 8 <= count; t0 += 8) {
    __m512 rows[16];
#pragma GCC unroll 16
    for (int l = 0; l < 16; ++l) {
      rows[l] = _mm512_loadu_ps(source[l] + 2 * t0);
    }
    transpose16(rows);
#pragma GCC unroll 8
    for (int t = 0; t < 8; ++t) {
      size_t row = rev != NULL ? rev[t0 + t] : t0 + t;
      _mm512_store_ps(re + row * kLanes, rows[2 * t]);
      _mm512_store_ps(im + row * kLanes, rows[2 * t + 1]);
    }
  }
  fft_lanes_pairs_to_rows_from(t0, count, source, rev, re, im);
}

// The reverse: rows re t, im t, ... transposed are each signal's pairs.
static void rows_to_pairs_avx512(size_t count, const etr_fft_real_t *re,
                                 const etr_fft_real_t *im,
                                 etr_fft_real_t scale, float *const *target) {
  const __m512 factor = _mm512_set1_ps(scale);
  size_t t0 = 0;
  for (; t0 + 8 <= count; t0 += 8) {
    __m512 rows[16];
#pragma GCC unroll 8
    for (int t = 0; t < 8; ++t) {
      const size_t at = (t0 + t) * kLanes;
      rows[2 * t] = _mm512_mul_ps(_mm512_load_ps(re + at), factor);
      rows[2 * t + 1] = _mm512_mul_ps(_mm512_load_ps(im + at), factor);
    }
    transpose16(rows);
#pragma GCC unroll 16
    for (int l = 0; l < 16; ++l) {
      _mm512_storeu_ps(target[l] + 2 * t0, rows[l]);
    }
  }
  fft_lanes_rows_to_pairs_from(t0, count, re, im, scale, target);
}

// pairs_to_rows of all m points, then the transform's first stage: in
// bit-reversed order, point t < m/2 lands in the even row rev[t] and point
// t + m/2 in the row after it, the pair that stage combines, so two blocks
// of points m/2 apart are gathered together and stored already combined
// (one pass over the rows fewer).
static void pairs_to_rows_staged_avx512(size_t m, const float *const *source,
                                        const uint32_t *rev,
                                        etr_fft_real_t *re,
                                        etr_fft_real_t *im) {
  const size_t half = m / 2;  // a multiple of 8
  for (size_t t0 = 0; t0 < half; t0 += 8) {
    __m512 low[16];   // points t0 .. t0 + 7
    __m512 high[16];  // points t0 + m/2 .. t0 + m/2 + 7
#pragma GCC unroll 16
    for (int l = 0; l < 16; ++l) {
      low[l] = _mm512_loadu_ps(source[l] + 2 * t0);
      high[l] = _mm512_loadu_ps(source[l] + 2 * (t0 + half));
    }
    transpose16(low);
    transpose16(high);
#pragma GCC unroll 8
    for (int t = 0; t < 8; ++t) {
      const size_t row = rev[t0 + t];  // even; rev[t0 + t + m/2] = row + 1
      _mm512_store_ps(re + row * kLanes,
                      _mm512_add_ps(low[2 * t], high[2 * t]));
      _mm512_store_ps(im + row * kLanes,
                      _mm512_add_ps(low[2 * t + 1], high[2 * t + 1]));
      _mm512_store_ps(re + (row + 1) * kLanes,
                      _mm512_sub_ps(low[2 * t], high[2 * t]));
      _mm512_store_ps(im + (row + 1) * kLanes,
                      _mm512_sub_ps(low[2 * t + 1], high[2 * t + 1]));
    }
  }
}

// r2c_split, then rows_to_pairs of its m + 1 rows: each block of eight
// output rows is split in registers, scaled and transposed, and up to four
// such blocks are stored together, 128 contiguous bytes per signal. Stored
// block by block, the 16 signals' outputs (4104 bytes apart for 1024
// points: nearly the same L1 set) kept evicting the line a store left half
// written before the next block completed it: 58 -> 50 us. (The same
// grouping gained nothing in pairs_to_rows and rows_to_pairs.)
#define SPLIT_BLOCKS 4
static void split_to_pairs_avx512(size_t m, const etr_fft_real_t *re,
                                  const etr_fft_real_t *im,
                                  const etr_fft_real_t *w_re,
                                  const etr_fft_real_t *w_im,
                                  etr_fft_real_t scale,
                                  float *const *target) {
  const __m512 factor = _mm512_set1_ps(scale);
  const fft_vec_t zr = fft_load(re), zi = fft_load(im);
  // m is a multiple of 8.
  for (size_t j0 = 0, blocks = 0; j0 < m; j0 += 8 * blocks) {
    blocks = (m - j0) / 8 < SPLIT_BLOCKS ? (m - j0) / 8 : SPLIT_BLOCKS;
    __m512 rows[SPLIT_BLOCKS][16];
    for (size_t b = 0; b < blocks; ++b) {
#pragma GCC unroll 8
      for (int t = 0; t < 8; ++t) {
        const size_t j = j0 + 8 * b + (size_t)t;
        fft_vec_t xr, xi;
        if (j == 0) {  // X[0] = Re Z[0] + Im Z[0]
          xr = zr + zi;
          xi = zr - zr;
        } else {
          fft_lanes_split_row(m, re, im, w_re, w_im, j, 0, &xr, &xi);
        }
        rows[b][2 * t] = _mm512_mul_ps((__m512)xr, factor);
        rows[b][2 * t + 1] = _mm512_mul_ps((__m512)xi, factor);
      }
      transpose16(rows[b]);
    }
    for (int l = 0; l < 16; ++l) {
      for (size_t b = 0; b < blocks; ++b) {
        _mm512_storeu_ps(target[l] + 2 * (j0 + 8 * b), rows[b][l]);
      }
    }
  }
  // X[m] = Re Z[0] - Im Z[0].
  const fft_vec_t last_r = zr - zi, last_i = zr - zr;
  for (int l = 0; l < 16; ++l) {
    target[l][2 * m] = last_r[l] * scale;
    target[l][2 * m + 1] = last_i[l] * scale;
  }
}

const etr_fft_kernels_t etr_fft_kernels_avx512 = {
    FFT_LANES_KERNELS,
    .pairs_to_rows = pairs_to_rows_avx512,
    .rows_to_pairs = rows_to_pairs_avx512,
    .pairs_to_rows_staged = pairs_to_rows_staged_avx512,
    .split_to_pairs = split_to_pairs_avx512,
};

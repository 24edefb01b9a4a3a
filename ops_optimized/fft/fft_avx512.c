// SPDX-License-Identifier: Apache-2.0
//
// FFT microkernels, AVX-512 (one 512-bit register of doubles per step):
// fft_lanes.h compiled with this file's flags, and the moves between the
// signals' float pairs and the rows of lanes (fft.h) in 8 x 8 blocks:
// eight pairs of each of the eight signals are loaded (two 256-bit loads
// each), widened and transposed in registers (unpack, 128-bit and
// 256-bit block permutes: 24 shuffles per 8 x 8), and the way back the
// same in reverse. The element loops
// these replace (a scalar load, convert and store per value) were half
// the time of a 64-signal, 1024-point r2c. Values are those of the
// loops: widening is exact, and each output is the double product
// rounded once to float.
#include <immintrin.h>

#include "ops_optimized/fft/fft_lanes.h"

// Transposes the 8 x 8 block rows[0..7] in place: rows[i][j] becomes
// rows[j][i].
static inline __attribute__((always_inline)) void transpose8(__m512d *rows) {
  __m512d t[8];
#pragma GCC unroll 8
  for (int i = 0; i < 8; i += 2) {
    t[i] = _mm512_unpacklo_pd(rows[i], rows[i + 1]);      // columns 0 2 4 6
    t[i + 1] = _mm512_unpackhi_pd(rows[i], rows[i + 1]);  // columns 1 3 5 7
  }
  // 128-bit blocks of two pairs of rows: columns (c, c + 4) of 4 rows.
  const __m512i even_blocks = _mm512_setr_epi64(0, 1, 8, 9, 4, 5, 12, 13);
  const __m512i odd_blocks = _mm512_setr_epi64(2, 3, 10, 11, 6, 7, 14, 15);
  __m512d s[8];
#pragma GCC unroll 8
  for (int h = 0; h < 8; h += 4) {
    s[h + 0] = _mm512_permutex2var_pd(t[h], even_blocks, t[h + 2]);  // 0 4
    s[h + 1] = _mm512_permutex2var_pd(t[h + 1], even_blocks, t[h + 3]);
    s[h + 2] = _mm512_permutex2var_pd(t[h], odd_blocks, t[h + 2]);  // 2 6
    s[h + 3] = _mm512_permutex2var_pd(t[h + 1], odd_blocks, t[h + 3]);
  }
  // 256-bit halves: rows 0..3 with rows 4..7.
#pragma GCC unroll 8
  for (int c = 0; c < 4; ++c) {
    rows[c] = _mm512_shuffle_f64x2(s[c], s[c + 4], 0x44);
    rows[c + 4] = _mm512_shuffle_f64x2(s[c], s[c + 4], 0xee);
  }
}

// Eight pairs of a signal widened are two vectors (re, im, re, im, ...);
// the 8 x 8 transpose of the first vectors of the eight signals is the
// rows re t0, im t0, re t0+1, ... re t0+3, im t0+3, and of the second
// vectors those of t0+4 .. t0+7.
static void pairs_to_rows_avx512(size_t count, const float *const *source,
                                 const uint32_t *rev, double *re,
                                 double *im) {
  size_t t0 = 0;
  for (; t0 + 8 <= count; t0 += 8) {
    __m512d low[8];   // pairs t0 .. t0 + 3 of signal l
    __m512d high[8];  // pairs t0 + 4 .. t0 + 7
#pragma GCC unroll 8
    for (int l = 0; l < 8; ++l) {
      const float *p = source[l] + 2 * t0;
      low[l] = _mm512_cvtps_pd(_mm256_loadu_ps(p));
      high[l] = _mm512_cvtps_pd(_mm256_loadu_ps(p + 8));
    }
    transpose8(low);
    transpose8(high);
#pragma GCC unroll 8
    for (int t = 0; t < 4; ++t) {
      size_t first = rev != NULL ? rev[t0 + t] : t0 + t;
      size_t second = rev != NULL ? rev[t0 + 4 + t] : t0 + 4 + t;
      _mm512_store_pd(re + first * kLanes, low[2 * t]);
      _mm512_store_pd(im + first * kLanes, low[2 * t + 1]);
      _mm512_store_pd(re + second * kLanes, high[2 * t]);
      _mm512_store_pd(im + second * kLanes, high[2 * t + 1]);
    }
  }
  for (size_t t = t0; t < count; ++t) {
    size_t row = rev != NULL ? rev[t] : t;
    for (int l = 0; l < 8; ++l) {
      re[row * kLanes + l] = (double)source[l][2 * t];
      im[row * kLanes + l] = (double)source[l][2 * t + 1];
    }
  }
}

// The reverse: rows re t, im t, ... transposed are each signal's pairs.
static void rows_to_pairs_avx512(size_t count, const double *re,
                                 const double *im, double scale,
                                 float *const *target) {
  const __m512d factor = _mm512_set1_pd(scale);
  size_t t0 = 0;
  for (; t0 + 8 <= count; t0 += 8) {
    __m512d low[8];
    __m512d high[8];
#pragma GCC unroll 8
    for (int t = 0; t < 4; ++t) {
      const size_t first = (t0 + t) * kLanes;
      const size_t second = (t0 + 4 + t) * kLanes;
      low[2 * t] = _mm512_mul_pd(_mm512_load_pd(re + first), factor);
      low[2 * t + 1] = _mm512_mul_pd(_mm512_load_pd(im + first), factor);
      high[2 * t] = _mm512_mul_pd(_mm512_load_pd(re + second), factor);
      high[2 * t + 1] = _mm512_mul_pd(_mm512_load_pd(im + second), factor);
    }
    transpose8(low);
    transpose8(high);
#pragma GCC unroll 8
    for (int l = 0; l < 8; ++l) {
      float *p = target[l] + 2 * t0;
      _mm256_storeu_ps(p, _mm512_cvtpd_ps(low[l]));
      _mm256_storeu_ps(p + 8, _mm512_cvtpd_ps(high[l]));
    }
  }
  for (size_t t = t0; t < count; ++t) {
    for (int l = 0; l < 8; ++l) {
      target[l][2 * t] = (float)(re[t * kLanes + l] * scale);
      target[l][2 * t + 1] = (float)(im[t * kLanes + l] * scale);
    }
  }
}

const etr_fft_kernels_t etr_fft_kernels_avx512 = {
    .transform = fft_lanes_transform,
    .r2c_split = fft_lanes_r2c_split,
    .c2r_merge = fft_lanes_c2r_merge,
    .pairs_to_rows = pairs_to_rows_avx512,
    .rows_to_pairs = rows_to_pairs_avx512,
};

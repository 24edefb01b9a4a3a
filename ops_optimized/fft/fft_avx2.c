// SPDX-License-Identifier: Apache-2.0
//
// FFT microkernels, AVX2 (a row of 16 lanes in two 256-bit parts):
// fft_lanes.h compiled with this file's flags, and the moves between the
// signals' float pairs and the rows of lanes (fft.h) in 8 x 8 blocks, as
// fft_avx512.c does in 16 x 16 ones: four pairs of each of 8 signals are
// one load, and the 8 x 8 transpose of those loads (24 shuffles) is the
// rows re t, im t, re t+1, ... of the four points for those 8 lanes; the
// other 8 lanes are the next 8 signals. The way back is the same
// transpose. Semantics in fft.h. With the element loops instead, the
// moves were 60% of a 64-signal 1024-point r2c (106 us; ExecuTorch's
// pocketfft kernel 68 us, the bench of 2026-12-06 forced to AVX2 on an
// AVX-512 Xeon).
#include <immintrin.h>

#define FFT_VECTOR_LANES 8
#include "ops_optimized/fft/fft_lanes.h"

// Transposes the 8 x 8 block rows[0..7] in place: rows[i][j] becomes
// rows[j][i].
static inline __attribute__((always_inline)) void transpose8(__m256 *rows) {
  __m256 t[8];
#pragma GCC unroll 4
  for (int i = 0; i < 8; i += 2) {
    // Per 128-bit half: columns 0, 1 (lo) or 2, 3 (hi) of rows i, i + 1.
    t[i] = _mm256_unpacklo_ps(rows[i], rows[i + 1]);
    t[i + 1] = _mm256_unpackhi_ps(rows[i], rows[i + 1]);
  }
  __m256 u[8];  // u[4 g + c], half b: column 4 b + c of rows 4g .. 4g + 3
#pragma GCC unroll 2
  for (int g = 0; g < 8; g += 4) {
    u[g] = _mm256_shuffle_ps(t[g], t[g + 2], 0x44);
    u[g + 1] = _mm256_shuffle_ps(t[g], t[g + 2], 0xee);
    u[g + 2] = _mm256_shuffle_ps(t[g + 1], t[g + 3], 0x44);
    u[g + 3] = _mm256_shuffle_ps(t[g + 1], t[g + 3], 0xee);
  }
#pragma GCC unroll 4
  for (int c = 0; c < 4; ++c) {
    rows[c] = _mm256_permute2f128_ps(u[c], u[4 + c], 0x20);
    rows[c + 4] = _mm256_permute2f128_ps(u[c], u[4 + c], 0x31);
  }
}

// Pairs t0 .. t0 + 3 of signals 8 g .. 8 g + 7, transposed: rows[2 t] is
// re t0 + t and rows[2 t + 1] im t0 + t, of those 8 lanes.
static inline __attribute__((always_inline)) void load_block(
    const float *const *source, size_t t0, int g, __m256 *rows) {
#pragma GCC unroll 8
  for (int l = 0; l < 8; ++l) {
    rows[l] = _mm256_loadu_ps(source[8 * g + l] + 2 * t0);
  }
  transpose8(rows);
}

static void pairs_to_rows_avx2(size_t count, const float *const *source,
                               const uint32_t *rev, etr_fft_real_t *re,
                               etr_fft_real_t *im) {
  size_t t0 = 0;
  for (; t0 + 4 <= count; t0 += 4) {
#pragma GCC unroll 2
    for (int g = 0; g < 2; ++g) {
      __m256 rows[8];
      load_block(source, t0, g, rows);
#pragma GCC unroll 4
      for (int t = 0; t < 4; ++t) {
        const size_t row = rev != NULL ? rev[t0 + t] : t0 + t;
        _mm256_store_ps(re + row * kLanes + 8 * g, rows[2 * t]);
        _mm256_store_ps(im + row * kLanes + 8 * g, rows[2 * t + 1]);
      }
    }
  }
  fft_lanes_pairs_to_rows_from(t0, count, source, rev, re, im);
}

// Each 8 signals' block of four pairs is half a 64-byte line of each:
// both halves are stored one after the other (c2r of 64 signals of 1024
// points, outputs 4096 bytes apart, one L1 set: 86 -> 74 us). Reads
// ordered so in pairs_to_rows measured no faster.
static void rows_to_pairs_avx2(size_t count, const etr_fft_real_t *re,
                               const etr_fft_real_t *im,
                               etr_fft_real_t scale, float *const *target) {
  const __m256 factor = _mm256_set1_ps(scale);
  size_t t8 = 0;
  for (; t8 + 8 <= count; t8 += 8) {
#pragma GCC unroll 2
    for (int g = 0; g < 2; ++g) {
#pragma GCC unroll 2
      for (size_t t0 = t8; t0 < t8 + 8; t0 += 4) {
        __m256 rows[8];
#pragma GCC unroll 4
        for (int t = 0; t < 4; ++t) {
          const size_t at = (t0 + t) * kLanes + 8 * g;
          rows[2 * t] = _mm256_mul_ps(_mm256_load_ps(re + at), factor);
          rows[2 * t + 1] = _mm256_mul_ps(_mm256_load_ps(im + at), factor);
        }
        transpose8(rows);
#pragma GCC unroll 8
        for (int l = 0; l < 8; ++l) {
          _mm256_storeu_ps(target[8 * g + l] + 2 * t0, rows[l]);
        }
      }
    }
  }
  fft_lanes_rows_to_pairs_from(t8, count, re, im, scale, target);
}

// pairs_to_rows of all m points and the transform's first stage, as
// fft_avx512.c's: point t < m/2 lands in the even row rev[t], point
// t + m/2 in the row after it, stored already combined.
static void pairs_to_rows_staged_avx2(size_t m, const float *const *source,
                                      const uint32_t *rev,
                                      etr_fft_real_t *re,
                                      etr_fft_real_t *im) {
  const size_t half = m / 2;  // a multiple of 8
  for (size_t t0 = 0; t0 < half; t0 += 4) {
#pragma GCC unroll 2
    for (int g = 0; g < 2; ++g) {
      __m256 low[8];   // points t0 .. t0 + 3
      __m256 high[8];  // points t0 + m/2 .. t0 + m/2 + 3
      load_block(source, t0, g, low);
      load_block(source, t0 + half, g, high);
#pragma GCC unroll 4
      for (int t = 0; t < 4; ++t) {
        // Even; rev[t0 + t + m/2] = row + 1.
        const size_t at = rev[t0 + t] * kLanes + 8 * g;
        _mm256_store_ps(re + at, _mm256_add_ps(low[2 * t], high[2 * t]));
        _mm256_store_ps(im + at,
                        _mm256_add_ps(low[2 * t + 1], high[2 * t + 1]));
        _mm256_store_ps(re + at + kLanes,
                        _mm256_sub_ps(low[2 * t], high[2 * t]));
        _mm256_store_ps(im + at + kLanes,
                        _mm256_sub_ps(low[2 * t + 1], high[2 * t + 1]));
      }
    }
  }
}

// r2c_split, then rows_to_pairs of its m + 1 rows: each block of four
// output rows is split in registers (fft_lanes_split_row, one half of
// the lanes at a time), scaled, transposed and stored, the two blocks of
// a 64-byte line of the outputs one after the other, as rows_to_pairs
// does (r2c of 64 signals of 1024 points 78 -> 76 us). Measured and
// left: rows k and m - k split from the same loads (X[m - k] from the
// halves of X[k] with signs flipped, the same bits): 76 -> 73.5 us, the
// pass bound by its stores more than its arithmetic.
static void split_to_pairs_avx2(size_t m, const etr_fft_real_t *re,
                                const etr_fft_real_t *im,
                                const etr_fft_real_t *w_re,
                                const etr_fft_real_t *w_im,
                                etr_fft_real_t scale,
                                float *const *target) {
  const __m256 factor = _mm256_set1_ps(scale);
  // m is a multiple of 8.
  for (size_t j8 = 0; j8 < m; j8 += 8) {
#pragma GCC unroll 2
    for (int g = 0; g < 2; ++g) {
#pragma GCC unroll 2
      for (size_t j0 = j8; j0 < j8 + 8; j0 += 4) {
        __m256 rows[8];
#pragma GCC unroll 4
        for (int t = 0; t < 4; ++t) {
          const size_t j = j0 + (size_t)t;
          fft_vec_t xr, xi;
          if (j == 0) {  // X[0] = Re Z[0] + Im Z[0]
            const fft_vec_t zr = fft_load(re + 8 * g);
            const fft_vec_t zi = fft_load(im + 8 * g);
            xr = zr + zi;
            xi = zr - zr;
          } else {
            fft_lanes_split_row(m, re, im, w_re, w_im, j, 8 * (size_t)g, &xr,
                                &xi);
          }
          rows[2 * t] = _mm256_mul_ps((__m256)xr, factor);
          rows[2 * t + 1] = _mm256_mul_ps((__m256)xi, factor);
        }
        transpose8(rows);
#pragma GCC unroll 8
        for (int l = 0; l < 8; ++l) {
          _mm256_storeu_ps(target[8 * g + l] + 2 * j0, rows[l]);
        }
      }
    }
  }
  // X[m] = Re Z[0] - Im Z[0].
  for (int l = 0; l < kLanes; ++l) {
    const etr_fft_real_t zr = re[l], zi = im[l];
    target[l][2 * m] = (zr - zi) * scale;
    target[l][2 * m + 1] = (zr - zr) * scale;
  }
}

const etr_fft_kernels_t etr_fft_kernels_avx2 = {
    FFT_LANES_KERNELS,
    .pairs_to_rows = pairs_to_rows_avx2,
    .rows_to_pairs = rows_to_pairs_avx2,
    .pairs_to_rows_staged = pairs_to_rows_staged_avx2,
    .split_to_pairs = split_to_pairs_avx2,
};

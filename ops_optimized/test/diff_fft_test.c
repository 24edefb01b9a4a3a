// SPDX-License-Identifier: Apache-2.0
//
// Differential tests of the optimized _fft_r2c and _fft_c2r kernels
// (ops_optimized/fft/) against the reference kernels (direct DFTs), on
// every ISA this machine has.
//
// Sweeps: power-of-two lengths 1 to 1024 over either dim of batches of 3
// to 19 signals (strided gathers; whole and partial blocks of 16 lanes),
// normalization 0, 1 and 2, onesided both ways, c2r inputs of n/2 + 1 and
// of n entries; random and integer data; even lengths that are not powers
// of two (6 to 400: Stockham's radix-3/5 steps and Bluestein's transform);
// odd lengths (n complex points: Stockham's radix-3/5 steps, Bluestein's
// for 7, 11, 101), each checked to have run the FFT; several
// transformed dims, Double and signals holding an infinity or NaN
// (fallback: which outputs turn NaN depends on the summation order);
// argument errors (normalization 3, last_dim_size 0).
//
// Tolerance: the FFT computes in fp32 (as PyTorch's pocketfft does for
// float tensors), the reference's direct DFT in double; the FFT is within
// about (log2 n + 1) n 2^-24 max|x| of the exact transform, so |opt - ref|
// <= 2^-20 (log2 n + 1) n + 2^-23 |ref| holds with room for max|x| <= 4
// (a 1024-point signal: 0.011), while any wrong twiddle, sign or scale is
// off by O(max|x|).
#include <criterion/criterion.h>
#include <math.h>

#include "ops_optimized/test/diff.h"

static uint64_t g_seed = 160000;

// When >= 0: the float index of the input that gets g_plant_r2c (an
// infinity) or g_plant_c2r (a NaN) in a random fill.
static int64_t g_plant = -1;
static float g_plant_r2c = INFINITY;
static float g_plant_c2r = NAN;

// fp32 butterflies: each of log2(n) steps and the twiddles' rounding add
// up to about 2^-24 n max|x| (max|x| <= 4 in these fills); 16x room.
static double fft_atol(int64_t n) {
  double size = (double)(n > 0 ? n : 1);
  return 0x1p-20 * size * (log2(size) + 1.0);
}

// fft_atol's max|x| over 4, for a fill with a planted larger value.
static double g_atol_scale = 1.0;

static void set_bound(etr_diff_case_t *c, int64_t n) {
  etr_diff_tolerance_bound(c, fft_atol(n) * g_atol_scale, 0x1p-23);
}

static int run_r2c(int64_t batch, int64_t n, int64_t dim, int64_t mode,
                   bool onesided, etr_scalar_type_t dtype,
                   etr_diff_fill_t fill, bool two_dims) {
  etr_diff_case_t c;
  etr_diff_begin(&c, "aten::_fft_r2c.out", g_seed++,
                 "%s n %lld dim %lld norm %lld%s", etr_scalar_type_name(dtype),
                 (long long)n, (long long)dim, (long long)mode,
                 onesided ? " onesided" : "");
  int64_t sizes[2] = {dim == 1 ? batch : n, dim == 1 ? n : batch};
  etr_tensor_t *self = etr_diff_input(&c, dtype, 2, sizes, 0, fill);
  if (fill == ETR_FILL_SPECIAL && dtype == ETR_FLOAT) {
    ((float *)self->data)[1] = INFINITY;  // one signal with an infinity
  }
  if (g_plant >= 0) {
    ((float *)self->data)[g_plant] = g_plant_r2c;
  }
  etr_diff_arg(&c, two_dims ? TT_EV_INTS(0, 1) : tt_ev_int_list(1, &dim));
  etr_diff_arg(&c, tt_ev_int(mode));
  etr_diff_arg(&c, tt_ev_bool(onesided));
  etr_scalar_type_t out_dtype =
      dtype == ETR_DOUBLE ? ETR_COMPLEX_DOUBLE : ETR_COMPLEX_FLOAT;
  etr_diff_out(&c, out_dtype, 1, (const int64_t[]){0}, 0,
               batch * (n + 2) + 8);
  etr_diff_return(&c, 4);
  c.dtype = dtype;
  set_bound(&c, n);
  return etr_diff_run(&c);
}

static int run_c2r(int64_t batch, int64_t n, int64_t in_size, int64_t dim,
                   int64_t mode, etr_scalar_type_t dtype,
                   etr_diff_fill_t fill, int64_t last_dim_size) {
  etr_diff_case_t c;
  etr_diff_begin(&c, "aten::_fft_c2r.out", g_seed++,
                 "%s n %lld in %lld dim %lld norm %lld",
                 etr_scalar_type_name(dtype), (long long)n,
                 (long long)in_size, (long long)dim, (long long)mode);
  int64_t sizes[2] = {dim == 1 ? batch : in_size, dim == 1 ? in_size : batch};
  etr_tensor_t *self = etr_diff_input(&c, dtype, 2, sizes, 0, fill);
  if (fill == ETR_FILL_SPECIAL && dtype == ETR_COMPLEX_FLOAT) {
    ((float *)self->data)[3] = NAN;  // one signal with a NaN
  }
  if (g_plant >= 0) {
    ((float *)self->data)[g_plant] = g_plant_c2r;
  }
  etr_diff_arg(&c, tt_ev_int_list(1, &dim));
  etr_diff_arg(&c, tt_ev_int(mode));
  etr_diff_arg(&c, tt_ev_int(last_dim_size));
  etr_scalar_type_t out_dtype =
      dtype == ETR_COMPLEX_DOUBLE ? ETR_DOUBLE : ETR_FLOAT;
  etr_diff_out(&c, out_dtype, 1, (const int64_t[]){0}, 0,
               batch * (n + 2) + 8);
  etr_diff_return(&c, 4);
  c.dtype = dtype;
  set_bound(&c, n);
  return etr_diff_run(&c);
}

static const int64_t kLengths[] = {1, 2, 4, 8, 16, 64, 512};
// Even lengths whose half has radix 2, 3, 4 and 5 steps only (Stockham),
// whose half has another prime factor (Bluestein: 14, 22, 56, 202), odd.
static const int64_t kOtherLengths[] = {6,  10, 12, 20, 24,  40,  96, 100,
                                        400, 14, 22, 56, 202, 9,  15};

TT_TEST(diff_fft, r2c) {
  int failures = 0;
  for (size_t l = 0; l < sizeof(kLengths) / sizeof(kLengths[0]); ++l) {
    for (int64_t mode = 0; mode < 3; ++mode) {
      for (int onesided = 0; onesided < 2; ++onesided) {
        failures += run_r2c(3, kLengths[l], (int64_t)(l + (size_t)mode) % 2,
                            mode, onesided == 1, ETR_FLOAT,
                            mode == 0 ? ETR_FILL_EXACT_INT : ETR_FILL_RANDOM,
                            false);
      }
    }
  }
  // Blocks of 16 signals (fft.h's lanes): 8 and 19 signals (a partial
  // block; a whole one and a partial one), every length to 512 on either
  // dim (odd and even stage counts), and 17 of 1024. The reference's
  // direct DFT is O(n^2) per signal: 2048 points took the test past its
  // minute under ASan.
  static const int64_t kBatches[] = {8, 19};
  for (size_t b = 0; b < 2; ++b) {
    for (int64_t n = 2; n <= 512; n *= 2) {
      for (int64_t dim = 0; dim < 2; ++dim) {
        failures += run_r2c(kBatches[b], n, dim, (n + dim) % 3, dim == 1,
                            ETR_FLOAT, ETR_FILL_RANDOM, false);
      }
    }
  }
  failures += run_r2c(17, 1024, 1, 1, false, ETR_FLOAT, ETR_FILL_RANDOM,
                      false);
  // Even lengths that are not powers of two (Bluestein's transform), in
  // a partial block and a whole one plus three, on either dim, and odd
  // ones.
  for (size_t i = 0; i < sizeof(kOtherLengths) / sizeof(kOtherLengths[0]);
       ++i) {
    int64_t n = kOtherLengths[i];
    for (int64_t dim = 0; dim < 2; ++dim) {
      for (int onesided = 0; onesided < 1 + dim; ++onesided) {
        failures += run_r2c(dim == 1 ? 19 : 3, n, dim, (n + dim) % 3,
                            onesided == 1, ETR_FLOAT, ETR_FILL_RANDOM,
                            false);
      }
    }
  }
  failures += run_r2c(3, 12, 1, 0, true, ETR_FLOAT, ETR_FILL_RANDOM, false);
  failures += run_r2c(3, 8, 1, 1, true, ETR_FLOAT, ETR_FILL_SPECIAL, false);
  failures += run_r2c(3, 8, 1, 0, true, ETR_FLOAT, ETR_FILL_RANDOM, true);
  failures += run_r2c(3, 8, 1, 0, true, ETR_DOUBLE, ETR_FILL_RANDOM, false);
  failures += run_r2c(3, 8, 1, 3, true, ETR_FLOAT, ETR_FILL_RANDOM, false);
  cr_assert_eq(failures, 0, "%d r2c cases disagree", failures);
  cr_assert_gt(etr_diff_stats()->specialized, 0);
}

TT_TEST(diff_fft, c2r) {
  int failures = 0;
  for (size_t l = 0; l < sizeof(kLengths) / sizeof(kLengths[0]); ++l) {
    int64_t n = kLengths[l];
    for (int64_t mode = 0; mode < 3; ++mode) {
      for (int full = 0; full < 2; ++full) {
        int64_t in_size = full ? n : n / 2 + 1;
        failures += run_c2r(3, n, in_size, (int64_t)(l + (size_t)mode) % 2,
                            mode, ETR_COMPLEX_FLOAT,
                            mode == 0 ? ETR_FILL_EXACT_INT : ETR_FILL_RANDOM,
                            n);
      }
    }
  }
  static const int64_t kBatches[] = {8, 19};
  for (size_t b = 0; b < 2; ++b) {
    for (int64_t n = 2; n <= 512; n *= 2) {
      for (int64_t dim = 0; dim < 2; ++dim) {
        failures += run_c2r(kBatches[b], n, dim == 1 ? n / 2 + 1 : n, dim,
                            (n + dim) % 3, ETR_COMPLEX_FLOAT,
                            ETR_FILL_RANDOM, n);
      }
    }
  }
  failures += run_c2r(17, 1024, 513, 1, 2, ETR_COMPLEX_FLOAT,
                      ETR_FILL_RANDOM, 1024);
  for (size_t i = 0; i < sizeof(kOtherLengths) / sizeof(kOtherLengths[0]);
       ++i) {
    int64_t n = kOtherLengths[i];
    for (int64_t dim = 0; dim < 2; ++dim) {
      failures += run_c2r(dim == 1 ? 19 : 3, n, dim == 1 ? n / 2 + 1 : n,
                          dim, (n + dim) % 3, ETR_COMPLEX_FLOAT,
                          ETR_FILL_RANDOM, n);
    }
  }
  failures += run_c2r(3, 12, 7, 1, 0, ETR_COMPLEX_FLOAT, ETR_FILL_RANDOM, 12);
  failures += run_c2r(3, 8, 5, 1, 0, ETR_COMPLEX_FLOAT, ETR_FILL_SPECIAL, 8);
  failures += run_c2r(3, 8, 5, 1, 0, ETR_COMPLEX_DOUBLE, ETR_FILL_RANDOM, 8);
  failures += run_c2r(3, 8, 5, 1, 0, ETR_COMPLEX_FLOAT, ETR_FILL_RANDOM, 0);
  cr_assert_eq(failures, 0, "%d c2r cases disagree", failures);
  cr_assert_gt(etr_diff_stats()->specialized, 0);
}

// Odd lengths: n-point complex transforms of two signals a lane (fft.c's
// r2c_odd and c2r_odd), r2c both ways and c2r from n/2 + 1 and from n
// entries (the rest unread), X[0]'s imaginary part random (ignored; with
// two signals a lane it would land in the other's outputs), every length
// through the FFT on every ISA: n = 3, 5, 9, 15, 25, 45, 75, 135 and 225
// by radix-3/5 steps, 7, 11, 21 (3 x 7) and 101 by Bluestein's
// transform; 3, 16, 19, 32 and 35
// signals (two a lane: the first 16 alone, partly or wholly, both halves
// of a block of 32 partly or wholly, a block and a partial one).
TT_TEST(diff_fft, odd_lengths) {
  static const int64_t kOdd[] = {3,  5,  7,  9,  11,  15, 21,
                                 25, 45, 75, 101, 135, 225};
  static const int64_t kSignals[] = {3, 16, 19, 32, 35};
  int failures = 0;
  for (size_t i = 0; i < sizeof(kOdd) / sizeof(kOdd[0]); ++i) {
    int64_t n = kOdd[i];
    int64_t batch = kSignals[i % 5];
    for (int64_t dim = 0; dim < 2; ++dim) {
      etr_diff_fill_t fill = i % 3 == 0 ? ETR_FILL_EXACT_INT : ETR_FILL_RANDOM;
      uint64_t before = etr_diff_stats()->specialized;
      failures += run_r2c(batch, n, dim, (n + dim) % 3, dim == (int64_t)i % 2,
                          ETR_FLOAT, fill, false);
      cr_assert_gt(etr_diff_stats()->specialized, before,
                   "r2c of %lld points did not run the FFT", (long long)n);
      before = etr_diff_stats()->specialized;
      failures += run_c2r(batch, n, dim == 1 ? n / 2 + 1 : n, dim,
                          (n + dim + 1) % 3, ETR_COMPLEX_FLOAT, fill, n);
      cr_assert_gt(etr_diff_stats()->specialized, before,
                   "c2r of %lld points did not run the FFT", (long long)n);
    }
  }
  cr_assert_eq(failures, 0, "%d odd-length cases disagree", failures);
}

// The r2c and c2r of 3 x 64 points with g_plant_r2c and g_plant_c2r
// planted at each of a few positions of the finiteness pass's vectors
// (the first 16 values, later ones, the scalar tail): each call must go
// to the reference on every ISA (`what` names the value) and agree with
// it. The number of cases that disagree.
static int planted_falls_back(const char *what) {
  static const int64_t kAt[] = {1, 15, 16, 37, 3 * 64 - 1};
  int failures = 0;
  for (size_t i = 0; i < sizeof(kAt) / sizeof(kAt[0]); ++i) {
    g_plant = kAt[i];
    uint64_t before = etr_diff_stats()->specialized;
    failures += run_r2c(3, 64, 1, 1, true, ETR_FLOAT, ETR_FILL_RANDOM, false);
    cr_assert_eq(etr_diff_stats()->specialized, before,
                 "r2c with %s at %lld ran the FFT", what, (long long)kAt[i]);
    // 3 x 33 complex values: 198 floats.
    failures += run_c2r(3, 64, 33, 1, 1, ETR_COMPLEX_FLOAT, ETR_FILL_RANDOM,
                        64);
    cr_assert_eq(etr_diff_stats()->specialized, before,
                 "c2r with %s at %lld ran the FFT", what, (long long)kAt[i]);
  }
  g_plant = -1;
  return failures;
}

// One infinity or NaN among finite values sends the whole call to the
// reference on every ISA (which outputs turn NaN depends on the order of
// the sums).
TT_TEST(diff_fft, non_finite_falls_back) {
  int failures = planted_falls_back("an infinity (a NaN)");
  cr_assert_eq(failures, 0, "%d cases disagree", failures);
}

// A value so large that the fp32 sums could overflow where the
// reference's double sums do not (the fuzzer's r2c of values near 1e37
// gave -inf for -2.1e38) sends the call to the reference too; one below
// the bound (fft.c's safe_exponent: values below 2^118 for 64 points)
// still runs the FFT.
TT_TEST(diff_fft, huge_falls_back) {
  g_plant_r2c = 0x1p118f;
  g_plant_c2r = -0x1p118f;
  int failures = planted_falls_back("2^118 (-2^118)");
  g_plant = 37;
  g_plant_r2c = 0x1p116f;
  g_atol_scale = 0x1p114;  // max|x| 2^116 instead of 4
  uint64_t before = etr_diff_stats()->specialized;
  failures += run_r2c(3, 64, 1, 1, true, ETR_FLOAT, ETR_FILL_RANDOM, false);
  cr_assert_gt(etr_diff_stats()->specialized, before,
               "r2c with 2^116 (within the bound) did not run the FFT");
  g_atol_scale = 1.0;
  g_plant = -1;
  g_plant_r2c = INFINITY;
  g_plant_c2r = NAN;
  cr_assert_eq(failures, 0, "%d cases disagree", failures);
}

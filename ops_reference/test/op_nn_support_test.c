// SPDX-License-Identifier: Apache-2.0
//
// The nn family's support functions (support/nn_*.h) on values the kernel
// tests cannot reach cheaply: adaptive bins and DFT phases of int64-sized
// arguments (exact, from 128-bit arithmetic), the dense-layout test group
// norm applies, flat offsets of strided views, and the claim that rounding
// after each double operation reproduces float arithmetic.
#include <math.h>
#include <stdlib.h>

#include "ops_reference/support/nn_fft.h"
#include "ops_reference/support/nn_pool.h"
#include "ops_reference/support/nn_util.h"
#include "ops_reference/test/test_util.h"

TT_TEST(nn_support, adaptive_bins_of_huge_sizes) {
  // floor(o * in / out) and ceil((o + 1) * in / out) overflow int64 here.
  int64_t o = (int64_t)1 << 40;
  int64_t out = ((int64_t)1 << 41) + 7;
  int64_t in = ((int64_t)1 << 40) + 3;
  cr_expect_eq(etr_nn_adaptive_start(o, out, in), 549755813887);
  cr_expect_eq(etr_nn_adaptive_end(o, out, in), 549755813889);
  cr_expect_eq(etr_nn_adaptive_start(0, 3, 7), 0);
  cr_expect_eq(etr_nn_adaptive_end(2, 3, 7), 7);
  cr_expect_eq(etr_nn_adaptive_start(1, 3, 7), 2);
  cr_expect_eq(etr_nn_adaptive_end(1, 3, 7), 5);
}

TT_TEST(nn_support, fft_phase_is_exact) {
  int64_t n = ((int64_t)1 << 41) + 1;
  double phase = etr_nn_fft_phase(((int64_t)1 << 40) + 5,
                                  ((int64_t)1 << 41) + 9, n);
  cr_expect_eq(phase, 36.0 / (double)n);
  cr_expect_eq(etr_nn_fft_phase(3, 5, 7), 1.0 / 7.0);
  cr_expect_eq(etr_nn_fft_phase(0, 5, 7), 0.0);
}

TT_TEST(nn_support, dense_in_suggested_format) {
  etr_tensor_t *x = tt_tensor(ETR_FLOAT, TT_SIZES(2, 3, 4, 5), NULL);
  cr_expect(etr_nn_is_dense_suggested(x));
  cr_expect(etr_nn_is_dense_suggested(tt_channels_last(x)));
  cr_expect_not(etr_nn_is_dense_suggested(tt_noncontiguous(x)));
  // Channels-last 3-D: N, D, H, W, C outermost first.
  etr_tensor_t v = *tt_tensor(ETR_FLOAT, TT_SIZES(2, 3, 4, 5, 6), NULL);
  int64_t strides[5] = {360, 1, 90, 18, 3};
  for (int d = 0; d < 5; ++d) {
    v.strides[d] = strides[d];
  }
  cr_expect(etr_nn_is_dense_suggested(&v));
  // A permuted but dense layout that is neither (W and H swapped).
  etr_tensor_t p = *x;
  p.strides[2] = 1;
  p.strides[3] = 4;
  cr_expect_not(etr_nn_is_dense_suggested(&p));
  // Strides of size-1 dims do not matter; nor do any when empty.
  etr_tensor_t *ones = tt_tensor(ETR_FLOAT, TT_SIZES(1, 3, 1, 2), NULL);
  etr_tensor_t o = *ones;
  o.strides[0] = 999;
  o.strides[2] = -5;
  cr_expect(etr_nn_is_dense_suggested(&o));
  etr_tensor_t e = *tt_tensor(ETR_FLOAT, TT_SIZES(2, 0, 3), NULL);
  e.strides[2] = 7;
  cr_expect(etr_nn_is_dense_suggested(&e));
}

TT_TEST(nn_support, flat_offsets_follow_strides) {
  etr_tensor_t *x = tt_tensor(ETR_FLOAT, TT_SIZES(2, 3, 4), NULL);
  etr_tensor_t *nc = tt_noncontiguous(x);
  for (int64_t flat = 0; flat < 24; ++flat) {
    int64_t index[3] = {flat / 12, (flat / 4) % 3, flat % 4};
    cr_expect_eq(etr_nn_offset_of(nc, flat), etr_tensor_offset(nc, index));
  }
}

TT_TEST(nn_support, opmath_rounding_is_float_arithmetic) {
  srand(7);
  for (int i = 0; i < 200000; ++i) {
    float a = (float)((rand() - RAND_MAX / 2) * ldexp(1.0, rand() % 40 - 20));
    float b =
        (float)((rand() - RAND_MAX / 2 + 1) * ldexp(1.0, rand() % 40 - 30));
    cr_assert_eq((float)etr_nn_opmath(true, (double)a * (double)b), a * b);
    cr_assert_eq((float)etr_nn_opmath(true, (double)a / (double)b), a / b);
    cr_assert_eq((float)etr_nn_opmath(true, (double)a + (double)b), a + b);
    cr_assert_eq((float)etr_nn_opmath(true, (double)a - (double)b), a - b);
  }
  cr_expect_eq(etr_nn_opmath(false, 0.1), 0.1);
}

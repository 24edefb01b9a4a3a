// SPDX-License-Identifier: Apache-2.0
//
// Differential tests of the elementwise family's unary ops that are exact
// or nearly so against the reference kernels, on every ISA of this
// machine: sqrt, rsqrt, neg, abs, leaky_relu, hardtanh, clamp.out,
// pow.Tensor_Scalar_out, ceil, floor, round, trunc, sign and reciprocal;
// the rounding ops at their ties; and every unary op (of
// unary_test_util.h's table) on signed zeros. Their wide-range inputs run
// in diff_elementwise_unary_test.c (domains).
//
// Bounds, in ULP of the output dtype against the reference (which
// evaluates in double and rounds once):
//   exact (bit for bit): neg, abs, sqrt, leaky_relu, hardtanh, clamp,
//     pow with exponent 0, 1, 2, -1, 0.5, ceil, floor, round, trunc,
//     sign, reciprocal;
//   1 ULP: rsqrt (1 / sqrt(x) in float, as PyTorch computes it: two
//     roundings against the reference's one), pow with exponent 1.5 (the
//     general exponent path, see diff_elementwise_pow_test.c), 3, -2, -0.5
//     (double evaluation; the reference's pow may differ from it in the last
//     double bit);
//   signed zeros: every op bit for bit (ULP comparisons do not see a
//     zero's sign).
//
// Cases, per op and dtype (Float, Half, BFloat16 specialized; Double
// checked to fall back): the tile-edge sizes of 16 lanes, contiguous,
// non-contiguous (falls back) and channels-last, random values in [-1, 1)
// and special values (NaN, +-inf, -0.0, denormals, extremes), in place.
#include <criterion/criterion.h>
#include <math.h>

#include "ops_optimized/test/diff.h"
#include "ops_optimized/test/unary_test_util.h"
#include "ops_reference/support/element.h"

UNARY_TEST(diff_elementwise_unary_exact, sqrt_rsqrt, 4, 5)
UNARY_TEST(diff_elementwise_unary_exact, neg_abs, 6, 7)
UNARY_TEST(diff_elementwise_unary_exact, leaky_relu, 12, 13)
UNARY_TEST(diff_elementwise_unary_exact, hardtanh, 14, 17)
UNARY_TEST(diff_elementwise_unary_exact, clamp, 18, 23)
UNARY_TEST(diff_elementwise_unary_exact, pow, 24, 33)
UNARY_TEST(diff_elementwise_unary_exact, ceil_floor_round_trunc, 34, 37)
UNARY_TEST(diff_elementwise_unary_exact, sign_reciprocal, 38, 39)

// Rounding at the ties: k/4 for k in [-80, 80), and the halves near 2^22
// and 2^23 (the last binades with fractions), both signs.
TT_TEST(diff_elementwise_unary_exact, rounding_ties) {
  int failures = 0;
  for (size_t index = 34; index <= 37; ++index) {
    for (size_t d = 0; d < 3; ++d) {
      const unary_case_t *u = &kUnaryCases[index];
      etr_diff_case_t c;
      etr_diff_begin(&c, u->op, g_unary_seed++, "ties");
      int64_t n = 200;
      etr_tensor_t *t = etr_diff_input(&c, kUnaryDtypes[d], 1, &n,
                                       ETR_DIFF_CONTIGUOUS, ETR_FILL_ZERO);
      size_t size = etr_scalar_type_size(kUnaryDtypes[d]);
      for (int64_t i = 0; i < n; ++i) {
        double value = i < 160 ? (double)(i - 80) / 4.0
                               : (i % 2 ? -1.0 : 1.0) *
                                     (ldexp(1.0, 22 + (int)(i % 3 == 0)) +
                                      (double)(i - 160) + 0.5);
        etr_store_double(kUnaryDtypes[d], (uint8_t *)t->data + (size_t)i * size,
                         value);
      }
      etr_diff_out(&c, kUnaryDtypes[d], 1, (const int64_t[]){0},
                   ETR_DIFF_CONTIGUOUS, n + 8);
      etr_diff_return(&c, 1);
      etr_diff_tolerance_exact(&c);
      failures += etr_diff_run(&c);
    }
  }
  cr_assert_eq(failures, 0, "%d cases disagree", failures);
}

// +-0.0 in, every op (and parameter set) compared bit for bit: each is
// exact there (tanh(-0) = -0, gelu(-0) = -0, exp(-0) = 1, log(-0) = -inf).
TT_TEST(diff_elementwise_unary_exact, signed_zeros) {
  int failures = 0;
  for (size_t index = 0; index < UNARY_NUM_CASES; ++index) {
    for (size_t d = 0; d < 3; ++d) {
      const unary_case_t *u = &kUnaryCases[index];
      etr_diff_case_t c;
      etr_diff_begin(&c, u->op, g_unary_seed++, "%s signed zeros", u->label);
      int64_t n = 35;
      etr_tensor_t *t = etr_diff_input(&c, kUnaryDtypes[d], 1, &n,
                                       ETR_DIFF_CONTIGUOUS, ETR_FILL_ZERO);
      size_t size = etr_scalar_type_size(kUnaryDtypes[d]);
      for (int64_t i = 0; i < n; ++i) {
        etr_store_double(kUnaryDtypes[d], (uint8_t *)t->data + (size_t)i * size,
                         i % 2 ? -0.0 : 0.0);
      }
      for (size_t i = 0; i < u->num_extra; ++i) {
        etr_diff_arg(&c, u->extra[i]());
      }
      etr_diff_out(&c, kUnaryDtypes[d], 1, (const int64_t[]){0},
                   ETR_DIFF_CONTIGUOUS, n + 8);
      etr_diff_return(&c, c.num_args - 1);
      etr_diff_tolerance_exact(&c);
      failures += etr_diff_run(&c);
    }
  }
  cr_assert_eq(failures, 0, "%d cases disagree", failures);
}

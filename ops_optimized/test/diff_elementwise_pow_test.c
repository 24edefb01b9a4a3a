// SPDX-License-Identifier: Apache-2.0
//
// Differential tests of pow.Tensor_Scalar_out's general exponents (any
// finite exponent other than 0, 1, 2, 3, -1, -2, 0.5 and -0.5, which
// diff_elementwise_unary_exact_test.c covers) against the reference
// kernel, on every ISA of this machine: C's pow(x, c) with c in double,
// computed as e^(c ln|x|) in double (unary/vmath_explog.h's
// vf_pow_const).
//
// Bound: 1 ULP of the output dtype (the ULP table of
// diff_elementwise_transcendental_test.c: the sweep measured 1 on Float;
// Half and BFloat16 round that float once). Special values (NaN, +-inf,
// +-0, negative bases to integer and fractional exponents, overflow and
// underflow) agree exactly.
//
// Cases: exponents 1.5, 0.3, -1.7, 4, 5 (odd: signs kept), -3, 1/3, 37.5,
// a Long 7 and a huge 1e30 (an even integer), per dtype (Float, Half,
// BFloat16 specialized; Double and Int to the reference) at the
// tile-edge sizes of 16 lanes, random and special values, contiguous,
// channels-last and non-contiguous (reference); wide bases over many
// binades, both signs, to reach overflow and underflow; in place; and
// infinite and NaN exponents (reference).
#include <criterion/criterion.h>
#include <math.h>

#include "ops_optimized/test/diff.h"
#include "ops_reference/support/element.h"

static uint64_t g_seed = 120000;

static const etr_scalar_type_t kDtypes[] = {ETR_FLOAT, ETR_HALF,
                                            ETR_BFLOAT16};

static etr_evalue_t *exponent_arg(size_t index) {
  static const double kExponents[] = {1.5,     0.3,  -1.7, 4.0,  5.0,
                                      -3.0,    1.0 / 3, 37.5, 0.0, 1e30};
  return index == 8 ? tt_ev_int(7) : tt_ev_double(kExponents[index]);
}
#define NUM_EXPONENTS 10

static int finish(etr_diff_case_t *c, etr_evalue_t *exponent,
                  etr_scalar_type_t dtype, int32_t dim, const int64_t *sizes,
                  bool channels_last) {
  etr_diff_arg(c, exponent);
  int64_t numel = 1;
  for (int32_t i = 0; i < dim; ++i) {
    numel *= sizes[i];
  }
  if (channels_last) {
    etr_diff_out(c, dtype, dim, sizes, ETR_DIFF_CHANNELS_LAST, 0);
  } else {
    etr_diff_out(c, dtype, 1, (const int64_t[]){0}, ETR_DIFF_CONTIGUOUS,
                 numel + 8);
  }
  etr_diff_return(c, 2);
  etr_diff_tolerance_ulp(c, 1);
  return etr_diff_run(c);
}

static int run_exponent(size_t e, etr_scalar_type_t dtype) {
  int64_t sizes[16];
  size_t count = etr_diff_edge_sizes(16, sizes);
  int failures = 0;
  for (size_t s = 0; s < count; ++s) {
    int64_t n = sizes[s];
    for (int layout = 0; layout < 3; ++layout) {
      bool nhwc = layout == ETR_DIFF_CHANNELS_LAST;
      int64_t shape4[4] = {1, n, 2, 1};
      int64_t shape2[2] = {2, n};
      etr_diff_case_t c;
      etr_diff_begin(&c, "aten::pow.Tensor_Scalar_out", g_seed++,
                     "exponent %zu n=%lld layout %d", e, (long long)n,
                     layout);
      etr_diff_input(&c, dtype, nhwc ? 4 : 2, nhwc ? shape4 : shape2,
                     (etr_diff_layout_t)layout,
                     s % 2 ? ETR_FILL_SPECIAL : ETR_FILL_RANDOM);
      failures += finish(&c, exponent_arg(e), dtype, nhwc ? 4 : 2,
                         nhwc ? shape4 : shape2, nhwc);
    }
  }
  // Wide bases: +-e^u, u uniform in [-90, 90).
  etr_diff_case_t c;
  etr_diff_begin(&c, "aten::pow.Tensor_Scalar_out", g_seed++,
                 "exponent %zu wide", e);
  int64_t n = 4099;
  etr_tensor_t *t = etr_diff_input(&c, dtype, 1, &n, ETR_DIFF_CONTIGUOUS,
                                   ETR_FILL_ZERO);
  size_t size = etr_scalar_type_size(dtype);
  for (int64_t i = 0; i < n; ++i) {
    double u = (double)(etr_diff_next(&c) >> 11) / 9007199254740992.0;
    double value = exp(-90.0 + 180.0 * u);
    etr_store_double(dtype, (uint8_t *)t->data + (size_t)i * size,
                     i % 2 ? -value : value);
  }
  failures += finish(&c, exponent_arg(e), dtype, 1, &n, false);
  // In place.
  etr_diff_begin(&c, "aten::pow.Tensor_Scalar_out", g_seed++,
                 "exponent %zu in place", e);
  n = 67;
  etr_diff_input(&c, dtype, 1, &n, ETR_DIFF_CONTIGUOUS, ETR_FILL_SPECIAL);
  etr_diff_arg(&c, exponent_arg(e));
  etr_diff_out_aliasing(&c, 0);
  etr_diff_return(&c, 2);
  etr_diff_tolerance_ulp(&c, 1);
  failures += etr_diff_run(&c);
  return failures;
}

TT_TEST(diff_elementwise_pow, general_exponents) {
  uint64_t before = etr_diff_stats()->specialized;
  int failures = 0;
  for (size_t e = 0; e < NUM_EXPONENTS; ++e) {
    for (size_t d = 0; d < 3; ++d) {
      failures += run_exponent(e, kDtypes[d]);
    }
  }
  cr_assert_eq(failures, 0, "%d cases disagree", failures);
  cr_assert_gt(etr_diff_stats()->specialized, before);
}

// Left to the reference: infinite and NaN exponents, Double and Int.
TT_TEST(diff_elementwise_pow, reference_cases) {
  static const double kOdd[] = {INFINITY, -INFINITY, NAN};
  int failures = 0;
  int64_t n = 37;
  for (size_t i = 0; i < 3; ++i) {
    etr_diff_case_t c;
    etr_diff_begin(&c, "aten::pow.Tensor_Scalar_out", g_seed++,
                   "exponent %g", kOdd[i]);
    etr_diff_input(&c, ETR_FLOAT, 1, &n, ETR_DIFF_CONTIGUOUS,
                   ETR_FILL_SPECIAL);
    failures += finish(&c, tt_ev_double(kOdd[i]), ETR_FLOAT, 1, &n, false);
  }
  etr_diff_case_t c;
  etr_diff_begin(&c, "aten::pow.Tensor_Scalar_out", g_seed++, "Double");
  etr_diff_input(&c, ETR_DOUBLE, 1, &n, ETR_DIFF_CONTIGUOUS,
                 ETR_FILL_SPECIAL);
  failures += finish(&c, tt_ev_double(1.5), ETR_DOUBLE, 1, &n, false);
  etr_diff_begin(&c, "aten::pow.Tensor_Scalar_out", g_seed++, "Int");
  etr_diff_input(&c, ETR_INT, 1, &n, ETR_DIFF_CONTIGUOUS, ETR_FILL_RANDOM);
  failures += finish(&c, tt_ev_int(3), ETR_INT, 1, &n, false);
  cr_assert_eq(failures, 0, "%d cases disagree", failures);
}

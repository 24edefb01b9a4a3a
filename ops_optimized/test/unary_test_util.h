// SPDX-License-Identifier: Apache-2.0
//
// Helpers shared by the unary differential tests
// (diff_elementwise_unary_test.c, diff_elementwise_unary_exact_test.c,
// diff_elementwise_gelu_test.c): the table of unary cases (op, parameter
// set, tolerance per dtype; the tests name rows by their index), and the
// sweeps every row runs: tile-edge sizes in each layout and in place
// (unary_run_sizes, unary_run_case), and wide-range random inputs over a
// function's domain (unary_run_domain). The tolerances and why are stated
// in the file comments of the tests.
#ifndef ETR_OPS_OPTIMIZED_TEST_UNARY_TEST_UTIL_H
#define ETR_OPS_OPTIMIZED_TEST_UNARY_TEST_UTIL_H

#include <criterion/criterion.h>
#include <math.h>
#include <stdbool.h>

#include "ops_optimized/test/diff.h"
#include "ops_reference/support/element.h"

// Every case's seed comes from here, in order; each test runs in its own
// process, so a test's seeds start at 1000 whichever binary holds it.
static uint64_t g_unary_seed = 1000;

// The dtypes the unary kernels specialize.
static const etr_scalar_type_t kUnaryDtypes[] = {ETR_FLOAT, ETR_HALF,
                                                 ETR_BFLOAT16};

// How a case's extra arguments (between self and out) are made.
typedef struct unary_case {
  const char *op;
  const char *label;
  double float_ulp;  // Float tolerance, 0 = exact
  double half_ulp;   // Half/BFloat16 tolerance
  size_t num_extra;
  etr_evalue_t *(*extra[3])(void);
} unary_case_t;

static etr_evalue_t *none(void) { return tt_ev_none(); }
static etr_evalue_t *string_none(void) { return tt_ev_string("none"); }
static etr_evalue_t *string_tanh(void) { return tt_ev_string("tanh"); }
static etr_evalue_t *int_0(void) { return tt_ev_int(0); }
static etr_evalue_t *int_1(void) { return tt_ev_int(1); }
static etr_evalue_t *int_2(void) { return tt_ev_int(2); }
static etr_evalue_t *int_6(void) { return tt_ev_int(6); }
static etr_evalue_t *int_minus_1(void) { return tt_ev_int(-1); }
static etr_evalue_t *double_0(void) { return tt_ev_double(0.0); }
static etr_evalue_t *double_1(void) { return tt_ev_double(1.0); }
static etr_evalue_t *double_2(void) { return tt_ev_double(2.0); }
static etr_evalue_t *double_3(void) { return tt_ev_double(3.0); }
static etr_evalue_t *double_half(void) { return tt_ev_double(0.5); }
static etr_evalue_t *double_1_5(void) { return tt_ev_double(1.5); }
static etr_evalue_t *double_minus_half(void) { return tt_ev_double(-0.5); }
static etr_evalue_t *double_minus_1(void) { return tt_ev_double(-1.0); }
static etr_evalue_t *double_minus_2(void) { return tt_ev_double(-2.0); }
static etr_evalue_t *double_0_01(void) { return tt_ev_double(0.01); }
static etr_evalue_t *double_0_3(void) { return tt_ev_double(0.3); }
static etr_evalue_t *double_minus_0_7(void) { return tt_ev_double(-0.7); }
static etr_evalue_t *double_nan(void) { return tt_ev_double(NAN); }
static etr_evalue_t *double_1e39(void) { return tt_ev_double(1e39); }
static etr_evalue_t *bool_true(void) { return tt_ev_bool(true); }

static const unary_case_t kUnaryCases[] = {
    {"aten::sigmoid.out", "", 2, 1, 0, {NULL}},
    {"aten::tanh.out", "", 1, 1, 0, {NULL}},
    {"aten::exp.out", "", 1, 1, 0, {NULL}},
    {"aten::log.out", "", 1, 1, 0, {NULL}},
    {"aten::sqrt.out", "", 0, 0, 0, {NULL}},
    {"aten::rsqrt.out", "", 1, 1, 0, {NULL}},
    {"aten::neg.out", "", 0, 0, 0, {NULL}},
    {"aten::abs.out", "", 0, 0, 0, {NULL}},
    {"aten::gelu.out", "none", 4, 1, 1, {string_none}},
    {"aten::gelu.out", "tanh", 4, 1, 1, {string_tanh}},
    {"aten::elu.out", "1,1,1", 1, 1, 3, {int_1, int_1, int_1}},
    {"aten::elu.out", "0.3,2,-0.7", 2, 1, 3,
     {double_0_3, double_2, double_minus_0_7}},
    {"aten::leaky_relu.out", "0.01", 0, 0, 1, {double_0_01}},
    {"aten::leaky_relu.out", "-0.7", 0, 0, 1, {double_minus_0_7}},
    {"aten::hardtanh.out", "-1,1", 0, 0, 2, {int_minus_1, int_1}},
    {"aten::hardtanh.out", "0,6", 0, 0, 2, {double_0, int_6}},
    {"aten::hardtanh.out", "nan,0.3", 0, 0, 2, {double_nan, double_0_3}},
    {"aten::hardtanh.out", "2,-0.5", 0, 0, 2, {int_2, double_minus_half}},
    {"aten::clamp.out", "-0.5,0.3", 0, 0, 2, {double_minus_half, double_0_3}},
    {"aten::clamp.out", "0,None", 0, 0, 2, {int_0, none}},
    {"aten::clamp.out", "None,0.3", 0, 0, 2, {none, double_0_3}},
    {"aten::clamp.out", "1,-1", 0, 0, 2, {int_1, int_minus_1}},
    {"aten::clamp.out", "nan,1 (reference)", 0, 0, 2, {double_nan, int_1}},
    {"aten::clamp.out", "1e39 (reference)", 0, 0, 2, {none, double_1e39}},
    {"aten::pow.Tensor_Scalar_out", "0", 0, 0, 1, {double_0}},
    {"aten::pow.Tensor_Scalar_out", "1", 0, 0, 1, {double_1}},
    {"aten::pow.Tensor_Scalar_out", "2 (int)", 0, 0, 1, {int_2}},
    {"aten::pow.Tensor_Scalar_out", "true", 0, 0, 1, {bool_true}},
    {"aten::pow.Tensor_Scalar_out", "3", 1, 1, 1, {double_3}},
    {"aten::pow.Tensor_Scalar_out", "-1", 0, 0, 1, {double_minus_1}},
    {"aten::pow.Tensor_Scalar_out", "-2", 1, 1, 1, {double_minus_2}},
    {"aten::pow.Tensor_Scalar_out", "0.5", 0, 0, 1, {double_half}},
    {"aten::pow.Tensor_Scalar_out", "-0.5", 1, 1, 1, {double_minus_half}},
    {"aten::pow.Tensor_Scalar_out", "1.5", 1, 1, 1,
     {double_1_5}},
    {"aten::ceil.out", "", 0, 0, 0, {NULL}},        // 34
    {"aten::floor.out", "", 0, 0, 0, {NULL}},
    {"aten::round.out", "", 0, 0, 0, {NULL}},
    {"aten::trunc.out", "", 0, 0, 0, {NULL}},
    {"aten::sign.out", "", 0, 0, 0, {NULL}},
    {"aten::reciprocal.out", "", 0, 0, 0, {NULL}},  // 39
    // elu with 0 < input_scale != 1 (unary_kernels.h's op_elu: expm1
    // below 0 only, and the hi + lo correction).
    {"aten::elu.out", "1.5,1,0.3", 2, 1, 3,
     {double_1_5, int_1, double_0_3}},  // 40
};
#define UNARY_NUM_CASES (sizeof(kUnaryCases) / sizeof(kUnaryCases[0]))

static inline void unary_set_tolerance(etr_diff_case_t *c,
                                       const unary_case_t *u,
                                       etr_scalar_type_t dtype) {
  double ulp = dtype == ETR_FLOAT ? u->float_ulp : u->half_ulp;
  if (ulp == 0) {
    etr_diff_tolerance_exact(c);
  } else {
    etr_diff_tolerance_ulp(c, ulp);
  }
}

// Appends the extra arguments, the out (1-D with room, or exactly
// `sizes` in channels-last) and the return slot; runs the case.
static inline int unary_finish(etr_diff_case_t *c, const unary_case_t *u,
                               etr_scalar_type_t dtype, int32_t dim,
                               const int64_t *sizes, bool channels_last_out) {
  for (size_t i = 0; i < u->num_extra; ++i) {
    etr_diff_arg(c, u->extra[i]());
  }
  size_t out_index = c->num_args;
  int64_t numel = 1;
  for (int32_t i = 0; i < dim; ++i) {
    numel *= sizes[i];
  }
  if (channels_last_out) {
    etr_diff_out(c, dtype, dim, sizes, ETR_DIFF_CHANNELS_LAST, 0);
  } else {
    etr_diff_out(c, dtype, 1, (const int64_t[]){0}, ETR_DIFF_CONTIGUOUS,
                 numel + 8);
  }
  etr_diff_return(c, out_index);
  unary_set_tolerance(c, u, dtype);
  return etr_diff_run(c);
}

static inline int unary_run_sizes(const unary_case_t *u,
                                  etr_scalar_type_t dtype) {
  int64_t sizes[16];
  size_t count = etr_diff_edge_sizes(16, sizes);
  int failures = 0;
  for (size_t s = 0; s < count; ++s) {
    int64_t n = sizes[s];
    for (int layout = 0; layout < 3; ++layout) {
      for (int fill = 0; fill < 2; ++fill) {
        etr_diff_fill_t data = fill ? ETR_FILL_SPECIAL : ETR_FILL_RANDOM;
        bool nhwc = layout == ETR_DIFF_CHANNELS_LAST;
        int64_t shape4[4] = {1, n, 2, 1};
        int64_t shape2[2] = {2, n};
        etr_diff_case_t c;
        etr_diff_begin(&c, u->op, g_unary_seed++, "%s n=%lld %s", u->label,
                       (long long)n, fill ? "special" : "random");
        etr_diff_input(&c, dtype, nhwc ? 4 : 2, nhwc ? shape4 : shape2,
                       (etr_diff_layout_t)layout, data);
        failures += unary_finish(&c, u, dtype, nhwc ? 4 : 2,
                                 nhwc ? shape4 : shape2, nhwc);
      }
    }
    // In place.
    etr_diff_case_t c;
    etr_diff_begin(&c, u->op, g_unary_seed++, "%s n=%lld in place", u->label,
                   (long long)n);
    etr_diff_input(&c, dtype, 1, &n, ETR_DIFF_CONTIGUOUS, ETR_FILL_SPECIAL);
    for (size_t i = 0; i < u->num_extra; ++i) {
      etr_diff_arg(&c, u->extra[i]());
    }
    size_t out_index = c.num_args;
    etr_diff_out_aliasing(&c, 0);
    etr_diff_return(&c, out_index);
    unary_set_tolerance(&c, u, dtype);
    failures += etr_diff_run(&c);
  }
  return failures;
}

// A case on n values drawn uniformly from [low, high) (or, with
// `log_scale`, e^uniform: positives over many binades).
static inline etr_diff_case_t *unary_begin_ranged(
    etr_diff_case_t *c, const char *op, const char *label,
    etr_scalar_type_t dtype, int64_t n, double low, double high,
    bool log_scale) {
  etr_diff_begin(c, op, g_unary_seed++, "%s in [%g, %g)%s", label, low, high,
                 log_scale ? " (log scale)" : "");
  etr_tensor_t *t = etr_diff_input(c, dtype, 1, &n, ETR_DIFF_CONTIGUOUS,
                                   ETR_FILL_ZERO);
  size_t size = etr_scalar_type_size(dtype);
  for (int64_t i = 0; i < n; ++i) {
    double u = (double)(etr_diff_next(c) >> 11) / 9007199254740992.0;
    double value = low + (high - low) * u;
    etr_store_double(dtype, (uint8_t *)t->data + (size_t)i * size,
                     log_scale ? exp(value) : value);
  }
  return c;
}

static inline int unary_run_wide(const unary_case_t *u,
                                 etr_scalar_type_t dtype, double low,
                                 double high, bool log_scale) {
  etr_diff_case_t c;
  unary_begin_ranged(&c, u->op, u->label, dtype, 4099, low, high, log_scale);
  return unary_finish(&c, u, dtype, 1, (const int64_t[]){4099}, false);
}

static inline int unary_run_case(size_t index) {
  const unary_case_t *u = &kUnaryCases[index];
  int failures = 0;
  for (size_t d = 0; d < 3; ++d) {
    failures += unary_run_sizes(u, kUnaryDtypes[d]);
  }
  // A dtype left to the reference.
  etr_diff_case_t c;
  etr_diff_begin(&c, u->op, g_unary_seed++, "%s Double", u->label);
  etr_diff_input(&c, ETR_DOUBLE, 1, (const int64_t[]){37},
                 ETR_DIFF_CONTIGUOUS, ETR_FILL_RANDOM);
  failures +=
      unary_finish(&c, u, ETR_DOUBLE, 1, (const int64_t[]){37}, false);
  return failures;
}

// Wide ranges: each function over the inputs where it varies.
static inline int unary_run_domain(size_t index, double low, double high,
                                   bool log_scale) {
  int failures = 0;
  for (size_t d = 0; d < 3; ++d) {
    failures += unary_run_wide(&kUnaryCases[index], kUnaryDtypes[d], low,
                               high, log_scale);
  }
  return failures;
}

// A test running unary_run_case over the table rows first..last, which
// must take the fast path at least once.
#define UNARY_TEST(suite, name, first, last)                           \
  TT_TEST(suite, name) {                                               \
    uint64_t specialized = etr_diff_stats()->specialized;              \
    int failures = 0;                                                  \
    for (size_t i = (first); i <= (last); ++i) {                       \
      failures += unary_run_case(i);                                   \
    }                                                                  \
    cr_assert_eq(failures, 0, "%d cases disagree", failures);          \
    cr_assert_gt(etr_diff_stats()->specialized, specialized,           \
                 "never took the fast path");                          \
  }

#endif  // ETR_OPS_OPTIMIZED_TEST_UNARY_TEST_UTIL_H

// SPDX-License-Identifier: Apache-2.0
//
// Differential tests of the elementwise family's unary ops against the
// reference kernels, on every ISA of this machine: sigmoid, tanh, exp,
// log, sqrt, rsqrt, neg, abs, gelu (none, tanh), elu, leaky_relu,
// hardtanh, clamp.out, pow.Tensor_Scalar_out, ceil, floor, round, trunc,
// sign and reciprocal.
//
// Bounds, in ULP of the output dtype against the reference (which
// evaluates in double and rounds once):
//   exact (bit for bit): neg, abs, sqrt, rsqrt, leaky_relu, hardtanh,
//     clamp, pow with exponent 0, 1, 2, -1, 0.5, ceil, floor, round,
//     trunc, sign, reciprocal;
//   1 ULP: pow with exponent 1.5 (the general exponent path, see
//     diff_elementwise_pow_test.c), 3, -2, -0.5 (double evaluation; the
//     reference's pow may differ from it in the last double bit);
//   Float, the maxima measured over every float (exp, log, tanh, sigmoid,
//     gelu none, gelu tanh: ops_optimized/tools/ulp_sweep 1 OP) or every
//     5th float bit pattern (elu) on every x86 ISA, a
//     sweep kept out of the suite for time: exp 1, log 1, tanh 1,
//     sigmoid 2, elu 1 (2 allowed for non-unit input_scale), gelu none 4,
//     gelu tanh 4 (their fast paths for |x| < 3.875: 2 on AVX-512, else
//     3 and 4; test gelu_fast_paths);
//   Half and BFloat16: 1 ULP for the transcendental ops (the fp32 value
//     is within a few float ULP, then rounded once).
// (The transcendental ops of unary/vmath_explog.h and vmath_trig.h have
// their table in diff_elementwise_transcendental_test.c.)
// gelu's reference cancels in 1 + erf / 1 + tanh below about x = -5 and
// is then only accurate to about |x| 2^-53 absolute, so the wide-range
// gelu cases bound |optimized - reference| by 2e-15 + 4 * 2^-23 |ref|.
//
// Cases, per op and dtype (Float, Half, BFloat16 specialized; Double
// checked to fall back): the tile-edge sizes of 16 lanes, contiguous,
// non-contiguous (falls back) and channels-last, random values in [-1, 1)
// and special values (NaN, +-inf, -0.0, denormals, extremes), in place;
// plus wide-range random inputs covering each function's whole domain,
// and signed zeros, where every op is exact (ULP comparisons do not see a
// zero's sign).
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ops_optimized/isa.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/unary/unary.h"
#include "ops_optimized/test/diff.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/element.h"

static uint64_t g_seed = 1000;

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

static const unary_case_t kCases[] = {
    {"aten::sigmoid.out", "", 2, 1, 0, {NULL}},
    {"aten::tanh.out", "", 1, 1, 0, {NULL}},
    {"aten::exp.out", "", 1, 1, 0, {NULL}},
    {"aten::log.out", "", 1, 1, 0, {NULL}},
    {"aten::sqrt.out", "", 0, 0, 0, {NULL}},
    {"aten::rsqrt.out", "", 0, 0, 0, {NULL}},
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
};
#define NUM_CASES (sizeof(kCases) / sizeof(kCases[0]))

static void set_tolerance(etr_diff_case_t *c, const unary_case_t *u,
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
static int finish(etr_diff_case_t *c, const unary_case_t *u,
                  etr_scalar_type_t dtype, int32_t dim, const int64_t *sizes,
                  bool channels_last_out) {
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
  set_tolerance(c, u, dtype);
  return etr_diff_run(c);
}

static int run_sizes(const unary_case_t *u, etr_scalar_type_t dtype) {
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
        etr_diff_begin(&c, u->op, g_seed++, "%s n=%lld %s", u->label,
                       (long long)n, fill ? "special" : "random");
        etr_diff_input(&c, dtype, nhwc ? 4 : 2, nhwc ? shape4 : shape2,
                       (etr_diff_layout_t)layout, data);
        failures += finish(&c, u, dtype, nhwc ? 4 : 2,
                           nhwc ? shape4 : shape2, nhwc);
      }
    }
    // In place.
    etr_diff_case_t c;
    etr_diff_begin(&c, u->op, g_seed++, "%s n=%lld in place", u->label,
                   (long long)n);
    etr_diff_input(&c, dtype, 1, &n, ETR_DIFF_CONTIGUOUS, ETR_FILL_SPECIAL);
    for (size_t i = 0; i < u->num_extra; ++i) {
      etr_diff_arg(&c, u->extra[i]());
    }
    size_t out_index = c.num_args;
    etr_diff_out_aliasing(&c, 0);
    etr_diff_return(&c, out_index);
    set_tolerance(&c, u, dtype);
    failures += etr_diff_run(&c);
  }
  return failures;
}

// A case on n values drawn uniformly from [low, high) (or, with
// `log_scale`, e^uniform: positives over many binades).
static etr_diff_case_t *begin_ranged(etr_diff_case_t *c, const char *op,
                                     const char *label,
                                     etr_scalar_type_t dtype, int64_t n,
                                     double low, double high,
                                     bool log_scale) {
  etr_diff_begin(c, op, g_seed++, "%s in [%g, %g)%s", label, low, high,
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

static int run_wide(const unary_case_t *u, etr_scalar_type_t dtype,
                    double low, double high, bool log_scale) {
  etr_diff_case_t c;
  begin_ranged(&c, u->op, u->label, dtype, 4099, low, high, log_scale);
  return finish(&c, u, dtype, 1, (const int64_t[]){4099}, false);
}

static int run_case(size_t index) {
  static const etr_scalar_type_t kDtypes[] = {ETR_FLOAT, ETR_HALF,
                                              ETR_BFLOAT16};
  const unary_case_t *u = &kCases[index];
  int failures = 0;
  for (size_t d = 0; d < 3; ++d) {
    failures += run_sizes(u, kDtypes[d]);
  }
  // A dtype left to the reference.
  etr_diff_case_t c;
  etr_diff_begin(&c, u->op, g_seed++, "%s Double", u->label);
  etr_diff_input(&c, ETR_DOUBLE, 1, (const int64_t[]){37},
                 ETR_DIFF_CONTIGUOUS, ETR_FILL_RANDOM);
  failures += finish(&c, u, ETR_DOUBLE, 1, (const int64_t[]){37}, false);
  return failures;
}

// Wide ranges: each function over the inputs where it varies.
static int run_domain(size_t index, double low, double high,
                      bool log_scale) {
  int failures = 0;
  static const etr_scalar_type_t kDtypes[] = {ETR_FLOAT, ETR_HALF,
                                              ETR_BFLOAT16};
  for (size_t d = 0; d < 3; ++d) {
    failures += run_wide(&kCases[index], kDtypes[d], low, high, log_scale);
  }
  return failures;
}

#define UNARY_TEST(name, first, last)                                  \
  TT_TEST(diff_elementwise_unary, name) {                              \
    uint64_t specialized = etr_diff_stats()->specialized;              \
    int failures = 0;                                                  \
    for (size_t i = (first); i <= (last); ++i) {                       \
      failures += run_case(i);                                         \
    }                                                                  \
    cr_assert_eq(failures, 0, "%d cases disagree", failures);          \
    cr_assert_gt(etr_diff_stats()->specialized, specialized,           \
                 "never took the fast path");                          \
  }

UNARY_TEST(sigmoid, 0, 0)
UNARY_TEST(tanh, 1, 1)
UNARY_TEST(exp, 2, 2)
UNARY_TEST(log, 3, 3)
UNARY_TEST(sqrt_rsqrt, 4, 5)
UNARY_TEST(neg_abs, 6, 7)
UNARY_TEST(gelu, 8, 9)
UNARY_TEST(elu, 10, 11)
UNARY_TEST(leaky_relu, 12, 13)
UNARY_TEST(hardtanh, 14, 17)
UNARY_TEST(clamp, 18, 23)
UNARY_TEST(pow, 24, 33)
UNARY_TEST(ceil_floor_round_trunc, 34, 37)
UNARY_TEST(sign_reciprocal, 38, 39)

TT_TEST(diff_elementwise_unary, domains) {
  int failures = 0;
  failures += run_domain(0, -110, 40, false);  // sigmoid
  failures += run_domain(1, -12, 12, false);   // tanh
  failures += run_domain(2, -110, 92, false);  // exp
  failures += run_domain(3, -100, 89, true);   // log, subnormal to huge
  failures += run_domain(3, 0.5, 2, false);    // log around 1
  failures += run_domain(5, -100, 89, true);   // rsqrt
  failures += run_domain(8, -5, 10, false);    // gelu none
  failures += run_domain(9, -5, 10, false);    // gelu tanh
  failures += run_domain(10, -20, 2, false);   // elu
  failures += run_domain(11, -20, 2, false);
  failures += run_domain(28, -1e13, 1e13, false);  // pow 3 (overflow)
  failures += run_domain(30, -1e-19, 1e-19, false);  // pow -2
  failures += run_domain(32, -100, 89, true);  // pow -0.5
  for (size_t index = 34; index <= 37; ++index) {  // rounding, to 2^25
    failures += run_domain(index, -3.4e7, 3.4e7, false);
  }
  failures += run_domain(39, -100, 89, true);  // reciprocal, to subnormal
  cr_assert_eq(failures, 0, "%d cases disagree", failures);
}

// Rounding at the ties: k/4 for k in [-80, 80), and the halves near 2^22
// and 2^23 (the last binades with fractions), both signs.
TT_TEST(diff_elementwise_unary, rounding_ties) {
  static const etr_scalar_type_t kDtypes[] = {ETR_FLOAT, ETR_HALF,
                                              ETR_BFLOAT16};
  int failures = 0;
  for (size_t index = 34; index <= 37; ++index) {
    for (size_t d = 0; d < 3; ++d) {
      const unary_case_t *u = &kCases[index];
      etr_diff_case_t c;
      etr_diff_begin(&c, u->op, g_seed++, "ties");
      int64_t n = 200;
      etr_tensor_t *t = etr_diff_input(&c, kDtypes[d], 1, &n,
                                       ETR_DIFF_CONTIGUOUS, ETR_FILL_ZERO);
      size_t size = etr_scalar_type_size(kDtypes[d]);
      for (int64_t i = 0; i < n; ++i) {
        double value = i < 160 ? (double)(i - 80) / 4.0
                               : (i % 2 ? -1.0 : 1.0) *
                                     (ldexp(1.0, 22 + (int)(i % 3 == 0)) +
                                      (double)(i - 160) + 0.5);
        etr_store_double(kDtypes[d], (uint8_t *)t->data + (size_t)i * size,
                         value);
      }
      etr_diff_out(&c, kDtypes[d], 1, (const int64_t[]){0},
                   ETR_DIFF_CONTIGUOUS, n + 8);
      etr_diff_return(&c, 1);
      etr_diff_tolerance_exact(&c);
      failures += etr_diff_run(&c);
    }
  }
  cr_assert_eq(failures, 0, "%d cases disagree", failures);
}

// tanh at the seams of vf_tanh (unary/vmath.h), both signs, within its
// 1 ULP: a few floats either side of the switch from the polynomial to
// expm1 at |x| = ln2 / 2, of each step of n = floor(2|x| / ln2) (|x| =
// k ln2 / 2, k = 1..28, where r restarts at 0) and of the saturation to
// +-1 near 9.01.
TT_TEST(diff_elementwise_unary, tanh_seams) {
  const unary_case_t *u = &kCases[1];
  cr_assert(strcmp(u->op, "aten::tanh.out") == 0);
  etr_diff_case_t c;
  etr_diff_begin(&c, u->op, g_seed++, "seams");
  int64_t n = 30 * 8 * 2;
  etr_tensor_t *t = etr_diff_input(&c, ETR_FLOAT, 1, &n, ETR_DIFF_CONTIGUOUS,
                                   ETR_FILL_ZERO);
  float *data = (float *)t->data;
  int64_t i = 0;
  for (int k = 0; k < 30; ++k) {
    float seam = k < 29 ? (float)((k + 1) * 0.34657359027997264)
                        : 9.01091194f;
    float value = seam;
    for (int step = 0; step < 4; ++step) {
      value = nextafterf(value, 0.0f);
    }
    for (int step = 0; step < 8; ++step) {
      data[i++] = value;
      data[i++] = -value;
      value = nextafterf(value, INFINITY);
    }
  }
  etr_diff_out(&c, ETR_FLOAT, 1, (const int64_t[]){0}, ETR_DIFF_CONTIGUOUS,
               n + 8);
  etr_diff_return(&c, 1);
  etr_diff_tolerance_ulp(&c, u->float_ulp);
  cr_assert_eq(etr_diff_run(&c), 0, "tanh disagrees at a seam");
}

// gelu's left tail, where the reference itself is only accurate to about
// |x| 2^-53 absolute (see the file comment).
TT_TEST(diff_elementwise_unary, gelu_tail) {
  int failures = 0;
  for (size_t index = 8; index <= 9; ++index) {
    etr_diff_case_t c;
    begin_ranged(&c, kCases[index].op, kCases[index].label, ETR_FLOAT, 4099,
                 -16, 16, false);
    etr_diff_arg(&c, kCases[index].extra[0]());
    etr_diff_out(&c, ETR_FLOAT, 1, (const int64_t[]){0}, ETR_DIFF_CONTIGUOUS,
                 4107);
    etr_diff_return(&c, 2);
    etr_diff_tolerance_bound(&c, 2e-15, 4 * 0x1p-23);
    failures += etr_diff_run(&c);
  }
  cr_assert_eq(failures, 0, "%d cases disagree", failures);
}

// Whether y is not within `ulps` ULP of `expected` rounded to float, with
// the same zeros, signs and NaNs (x NaN or infinite: the same value).
static bool float_off(float x, float y, double expected, double ulps) {
  float rounded = (float)expected;
  if (isnan(x) || isinf(x) || isnan(rounded)) {
    return !(isnan(rounded) ? isnan(y) : y == rounded);
  }
  int exponent;
  frexp((double)rounded, &exponent);
  double ulp = fabsf(rounded) < 0x1p-126f ? 0x1p-149
                                          : ldexp(1.0, exponent - 24);
  return fabs((double)y - (double)rounded) > ulps * ulp ||
         (rounded == 0) != (y == 0) || signbit(rounded) != signbit(y);
}

// gelu against forms in double (libm) that do not cancel in the left
// tail: 0.5 x erfc(-x / sqrt 2), and x / (1 + e^(-2u)) for the tanh
// approximation, u = sqrt(2 / pi) (x + 0.044715 x^3).
static double gelu_erf_double(double x) {
  return 0.5 * x * erfc(-x * 0.70710678118654752440);
}
static double gelu_tanh_double(double x) {
  double u = 0.79788456080286535588 * (x + 0.044715 * x * x * x);
  return x / (1.0 + exp(-2.0 * u));
}

// gelu where its result is subnormal or near it: every float of x in
// [-14.5, -12.5] for approximate="none" and in [-11.5, -9.5] for "tanh",
// then the 64 smallest subnormals of each sign (gelu(+-2^-149) = +-0,
// signed), checked against the double forms above, which do not cancel
// there as the reference's 1 + erf and 1 + tanh do: within 4 ULP (of the
// subnormal spacing below FLT_MIN) and the same zeros with the same
// signs, on every ISA. (A product rounded into the subnormal range before
// the last multiplication by x cost up to 11 ULP for "none", 10 ULP and
// results flushed to zero or not near x = -10.9 for "tanh".)
TT_TEST(diff_elementwise_unary, gelu_subnormal_tail) {
  enum { kChunk = 4096 };
  static float x[kChunk];
  static float y[kChunk];
  static const struct {
    etr_unary_op_t op;
    double (*expected)(double);
    float high;
    float low;
  } kOps[] = {{ETR_UNARY_GELU_ERF, gelu_erf_double, -12.5f, -14.5f},
              {ETR_UNARY_GELU_TANH, gelu_tanh_double, -9.5f, -11.5f}};
  int failures = 0;
  for (int isa = 0; isa < ETR_NUM_ISAS; ++isa) {
    if (!etr_isa_available((etr_isa_t)isa)) {
      continue;
    }
    for (size_t o = 0; o < 2; ++o) {
      etr_f32_unary_op_fn gelu = etr_f32_unary_op_for(kOps[o].op,
                                                      (etr_isa_t)isa);
      float next = kOps[o].high;
      bool tiny_done = false;
      while (!tiny_done) {
        int count = 0;
        for (; count < kChunk && next >= kOps[o].low; ++count) {
          x[count] = next;
          next = nextafterf(next, -INFINITY);
        }
        if (count == 0) {
          for (; count < 128; ++count) {
            x[count] = (count % 2 ? -0x1p-149f : 0x1p-149f) *
                       (float)(count / 2 + 1);
          }
          tiny_done = true;
        }
        gelu((size_t)count, x, y, NULL);
        for (int i = 0; i < count; ++i) {
          if (float_off(x[i], y[i], kOps[o].expected((double)x[i]), 4) &&
              failures++ < 5) {
            fprintf(stderr, "isa %d op %d: gelu(%a) = %a\n", isa,
                    (int)kOps[o].op, (double)x[i], (double)y[i]);
          }
        }
      }
    }
  }
  cr_assert_eq(failures, 0, "%d results off", failures);
}

// gelu's fast paths, taken by a vector whose lanes all lie in range:
// |x| < 3.875 on AVX-512 (vmath.h's vf_gelu_table, both approximations),
// [-3, 3] elsewhere (vf_gelu_erf_bounded, approximate="none" only; the
// tanh approximation has no other path), against the double forms above
// within the bounds measured over every float (ulp_sweep 1 OP -3.8749998
// 3.8749998): 2 ULP on AVX-512 (the table), elsewhere 3 for "none" and 4
// for "tanh". Every 4099th float of
// the range, every float within 2^-12 of each table interval's seams
// (x = (i + 1/2) / 4, where round(4x) ties) and its centres, then 16-lane
// and 8-lane blocks of values in range with one lane out of it (the
// ranges' edges, large, +-inf, NaN) at each position, at lengths around
// the vector widths, and zeros, subnormals and NaN in range; on every
// ISA.
TT_TEST(diff_elementwise_unary, gelu_fast_paths) {
  enum { kChunk = 4096 };
  static float x[kChunk];
  static float y[kChunk];
  static const float kOutside[] = {3.875f,      -3.875f,     3.00000024f,
                                   -3.00000024f, 7.5f,       -9.0f,
                                   INFINITY,    -INFINITY,   NAN};
  static const float kEdges[] = {3.0f,        -3.0f,       3.87499976f,
                                 -3.87499976f, 0.0f,       -0.0f,
                                 0x1p-149f,   -0x1p-149f,  0x1p-126f,
                                 -0x1p-126f,  1e-30f,      -1e-30f,
                                 0.125f,      -0.125f,     NAN};
  static const struct {
    etr_unary_op_t op;
    double (*expected)(double);
    double ulps;
  } kOps[] = {{ETR_UNARY_GELU_ERF, gelu_erf_double, 3},
              {ETR_UNARY_GELU_TANH, gelu_tanh_double, 4}};
  int failures = 0;
  for (int isa = 0; isa < ETR_NUM_ISAS; ++isa) {
    if (!etr_isa_available((etr_isa_t)isa)) {
      continue;
    }
    for (size_t o = 0; o < 2; ++o) {
      etr_f32_unary_op_fn gelu = etr_f32_unary_op_for(kOps[o].op,
                                                      (etr_isa_t)isa);
      double ulps = isa == ETR_ISA_AVX512 ? 2 : kOps[o].ulps;
      // The sweep, then the seams and centres, a chunk at a time.
      uint32_t bits = 0;
      const uint32_t last = 0x4077ffffu;  // 3.87499976f
      int seam = -16;
      for (;;) {
        int count = 0;
        if (bits <= last) {
          for (; count + 1 < kChunk && bits <= last; count += 2,
                                                     bits += 4099) {
            float v;
            memcpy(&v, &bits, sizeof(v));
            x[count] = v;
            x[count + 1] = -v;
          }
        } else if (seam < 16) {
          // 2^11 floats each side of c = seam / 8 (a seam when odd, a
          // centre when even).
          float c = (float)seam / 8.0f;
          float v = c;
          for (int k = 0; k < 1024; ++k) {
            v = nextafterf(v, -INFINITY);
          }
          for (; count < 2048; ++count) {
            x[count] = v;
            v = nextafterf(v, INFINITY);
          }
          ++seam;
        } else {
          break;
        }
        gelu((size_t)count, x, y, NULL);
        for (int i = 0; i < count; ++i) {
          if (float_off(x[i], y[i], kOps[o].expected((double)x[i]), ulps) &&
              failures++ < 5) {
            fprintf(stderr, "isa %d op %d: gelu(%a) = %a\n", isa,
                    (int)kOps[o].op, (double)x[i], (double)y[i]);
          }
        }
      }
      // One lane out of range among in-range values, and the edges; the
      // lanes are checked against the 4 ULP of the general paths.
      static const int kLengths[] = {0, 1, 7, 8, 9, 15, 16, 17, 31, 32, 33};
      for (size_t u = 0; u < sizeof(kOutside) / sizeof(kOutside[0]); ++u) {
        for (size_t l = 0; l < sizeof(kLengths) / sizeof(kLengths[0]); ++l) {
          int n = kLengths[l];
          for (int at = 0; at < (n > 0 ? n : 1); ++at) {
            for (int i = 0; i < n; ++i) {
              x[i] = i % 2 ? kEdges[i % 15] : -2.9f + 0.37f * (float)(i % 16);
            }
            if (n > 0) {
              x[at] = kOutside[u];
            }
            gelu((size_t)n, x, y, NULL);
            for (int i = 0; i < n; ++i) {
              if (float_off(x[i], y[i], kOps[o].expected((double)x[i]), 4) &&
                  failures++ < 5) {
                fprintf(stderr,
                        "isa %d op %d: gelu(%a) = %a (n %d, %a at %d)\n",
                        isa, (int)kOps[o].op, (double)x[i], (double)y[i], n,
                        (double)kOutside[u], at);
              }
            }
          }
        }
      }
    }
  }
  cr_assert_eq(failures, 0, "%d results off", failures);
}

// +-0.0 in, every op (and parameter set) compared bit for bit: each is
// exact there (tanh(-0) = -0, gelu(-0) = -0, exp(-0) = 1, log(-0) = -inf).
TT_TEST(diff_elementwise_unary, signed_zeros) {
  static const etr_scalar_type_t kDtypes[] = {ETR_FLOAT, ETR_HALF,
                                              ETR_BFLOAT16};
  int failures = 0;
  for (size_t index = 0; index < NUM_CASES; ++index) {
    for (size_t d = 0; d < 3; ++d) {
      const unary_case_t *u = &kCases[index];
      etr_diff_case_t c;
      etr_diff_begin(&c, u->op, g_seed++, "%s signed zeros", u->label);
      int64_t n = 35;
      etr_tensor_t *t = etr_diff_input(&c, kDtypes[d], 1, &n,
                                       ETR_DIFF_CONTIGUOUS, ETR_FILL_ZERO);
      size_t size = etr_scalar_type_size(kDtypes[d]);
      for (int64_t i = 0; i < n; ++i) {
        etr_store_double(kDtypes[d], (uint8_t *)t->data + (size_t)i * size,
                         i % 2 ? -0.0 : 0.0);
      }
      for (size_t i = 0; i < u->num_extra; ++i) {
        etr_diff_arg(&c, u->extra[i]());
      }
      etr_diff_out(&c, kDtypes[d], 1, (const int64_t[]){0},
                   ETR_DIFF_CONTIGUOUS, n + 8);
      etr_diff_return(&c, c.num_args - 1);
      etr_diff_tolerance_exact(&c);
      failures += etr_diff_run(&c);
    }
  }
  cr_assert_eq(failures, 0, "%d cases disagree", failures);
}

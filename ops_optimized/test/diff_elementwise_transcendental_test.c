// SPDX-License-Identifier: Apache-2.0
//
// Differential tests of the elementwise family's transcendental ops
// against the reference kernels (libm in double, rounded once), on every
// ISA of this machine: expm1, log2, log10, log1p, sinh, cosh, asinh,
// acosh, atanh, erf, sin, cos, tan, asin, acos, atan (unary/
// vmath_explog.h, unary/vmath_trig.h), atan2, pow.Tensor_Tensor_out and
// pow.Scalar_out.
//
// The ULP table: bounds in ULP of the output dtype against the reference.
// Float, the maxima measured by ops_optimized/tools/ulp_sweep (bazel run
// -c opt //ops_optimized/tools:ulp_sweep -- STRIDE) over every 211th and
// every 1021st float bit pattern (20 and 4.2 million inputs, all
// exponents and signs) on the scalar, AVX2 and AVX-512 paths, and over
// every 1021st on NEON (the same kernels cross-compiled, under qemu),
// against (float)libm(double) — kept out of the suite for time — then
// tested here on edge sizes, specials and each function's domain:
//   sin 1, cos 1, tan 1 (float evaluation within 1.5 ulp of the exact
//     value; every float, stride 1, saw 1 on each x86 path),
//   acos 1 (the sweeps saw 0: double evaluation, rounded once; 1
//     allowed for the last double bit),
//   asin 1, atan 1, expm1 1, log2 1 (exact at powers of two),
//   erf 1 (AVX-512's table: every float, stride 1, saw 1),
//   log10 2, log1p 2, sinh 2, cosh 2, asinh 2, acosh 2, atanh 2 (a float
//     exp/expm1/log inside, about an ulp, then double steps),
//   atan2 1 and pow.Tensor_Tensor_out 1 (12 million pairs: raw bit
//     patterns, exponents in +-107, negative bases to integers, bases
//     near 1), pow.Scalar_out 1 (bases 2, 0.5, 10, e, 1e-3, 3 over every
//     1021st exponent pattern), pow.Tensor_Scalar_out's general
//     exponents 1 (1.5, 0.3, -1.7, 4, 5, -3, 1/3, 37.5, 0.1, -0.75 over
//     every 1021st base pattern);
// Half and BFloat16: 1 ULP for every op (the fp32 value is within 2 float
// ULP, then rounded once). Special values (NaN, +-inf, -0.0, the domain
// edges, overflow) agree exactly, and +-0.0 inputs compare bit for bit.
//
// Cases, per op and dtype (Float, Half, BFloat16 specialized; Double
// checked to fall back): the tile-edge sizes of 16 lanes, contiguous,
// non-contiguous (falls back) and channels-last, random values in [-1, 1)
// and special values, in place; wide-range values over each function's
// domain (4099 each); signed zeros. atan2 and pow.Tensor_Tensor_out add
// the broadcast patterns and a 0-dim operand; pow.Scalar_out bases 2,
// 0.5, 10, e, 1e-3 over wide exponents, and bases left to the reference
// (1, 0, -2, inf, a Bool); erf the seams of its paths. pow.Tensor_Scalar_
// out's general exponents are in diff_elementwise_pow_test.c.
#include <criterion/criterion.h>
#include <math.h>

#include "ops_optimized/test/diff.h"
#include "ops_reference/support/element.h"

static uint64_t g_seed = 90000;

typedef struct transcendental_op {
  const char *op;
  double float_ulp;
  double low;  // the domain sweep: uniform in [low, high)
  double high;
  bool log_scale;  // e^uniform instead (positives over many binades)
} transcendental_op_t;

static const transcendental_op_t kOps[] = {
    {"aten::expm1.out", 1, -100, 90, false},
    {"aten::log2.out", 1, -104, 89, true},
    {"aten::log10.out", 2, -104, 89, true},
    {"aten::log1p.out", 2, -1, 3, false},
    {"aten::sinh.out", 2, -92, 92, false},
    {"aten::cosh.out", 2, -92, 92, false},
    {"aten::asinh.out", 2, -3e38, 3e38, false},
    {"aten::acosh.out", 2, -1, 89, true},
    {"aten::atanh.out", 2, -1.01, 1.01, false},
    {"aten::erf.out", 1, -5, 5, false},
    {"aten::sin.out", 1, -1e5, 1e5, false},
    {"aten::cos.out", 1, -1e5, 1e5, false},
    {"aten::tan.out", 1, -1e5, 1e5, false},
    {"aten::asin.out", 1, -1.01, 1.01, false},
    {"aten::acos.out", 1, -1.01, 1.01, false},
    {"aten::atan.out", 1, -1e4, 1e4, false},
};
#define NUM_OPS (sizeof(kOps) / sizeof(kOps[0]))

static const etr_scalar_type_t kDtypes[] = {ETR_FLOAT, ETR_HALF,
                                            ETR_BFLOAT16};

static void set_ulp(etr_diff_case_t *c, double float_ulp,
                    etr_scalar_type_t dtype) {
  etr_diff_tolerance_ulp(c, dtype == ETR_FLOAT ? float_ulp : 1);
}

// Fills t with uniform [low, high) (or e^uniform).
static void fill_range(etr_diff_case_t *c, etr_tensor_t *t, double low,
                       double high, bool log_scale) {
  size_t size = etr_scalar_type_size(t->dtype);
  int64_t n = etr_tensor_numel(t);
  for (int64_t i = 0; i < n; ++i) {
    double u = (double)(etr_diff_next(c) >> 11) / 9007199254740992.0;
    double value = low + (high - low) * u;
    etr_store_double(t->dtype, (uint8_t *)t->data + (size_t)i * size,
                     log_scale ? exp(value) : value);
  }
}

// self -> out: out 1-D with room, or `sizes` in channels-last.
static int finish_unary(etr_diff_case_t *c, const transcendental_op_t *op,
                        etr_scalar_type_t dtype, int32_t dim,
                        const int64_t *sizes, bool channels_last) {
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
  etr_diff_return(c, 1);
  set_ulp(c, op->float_ulp, dtype);
  return etr_diff_run(c);
}

static int run_unary(const transcendental_op_t *op, etr_scalar_type_t dtype) {
  int64_t sizes[16];
  size_t count = etr_diff_edge_sizes(16, sizes);
  int failures = 0;
  for (size_t s = 0; s < count; ++s) {
    int64_t n = sizes[s];
    for (int layout = 0; layout < 3; ++layout) {
      for (int fill = 0; fill < 2; ++fill) {
        bool nhwc = layout == ETR_DIFF_CHANNELS_LAST;
        int64_t shape4[4] = {1, n, 2, 1};
        int64_t shape2[2] = {2, n};
        etr_diff_case_t c;
        etr_diff_begin(&c, op->op, g_seed++, "n=%lld layout %d %s",
                       (long long)n, layout, fill ? "special" : "random");
        etr_diff_input(&c, dtype, nhwc ? 4 : 2, nhwc ? shape4 : shape2,
                       (etr_diff_layout_t)layout,
                       fill ? ETR_FILL_SPECIAL : ETR_FILL_RANDOM);
        failures += finish_unary(&c, op, dtype, nhwc ? 4 : 2,
                                 nhwc ? shape4 : shape2, nhwc);
      }
    }
    etr_diff_case_t c;
    etr_diff_begin(&c, op->op, g_seed++, "n=%lld in place", (long long)n);
    etr_diff_input(&c, dtype, 1, &n, ETR_DIFF_CONTIGUOUS, ETR_FILL_SPECIAL);
    etr_diff_out_aliasing(&c, 0);
    etr_diff_return(&c, 1);
    set_ulp(&c, op->float_ulp, dtype);
    failures += etr_diff_run(&c);
  }
  // The whole domain.
  etr_diff_case_t c;
  etr_diff_begin(&c, op->op, g_seed++, "domain [%g, %g)%s", op->low,
                 op->high, op->log_scale ? " (log scale)" : "");
  int64_t n = 4099;
  etr_tensor_t *t = etr_diff_input(&c, dtype, 1, &n, ETR_DIFF_CONTIGUOUS,
                                   ETR_FILL_ZERO);
  fill_range(&c, t, op->low, op->high, op->log_scale);
  failures += finish_unary(&c, op, dtype, 1, &n, false);
  // Signed zeros, exactly.
  etr_diff_begin(&c, op->op, g_seed++, "signed zeros");
  n = 35;
  t = etr_diff_input(&c, dtype, 1, &n, ETR_DIFF_CONTIGUOUS, ETR_FILL_ZERO);
  for (int64_t i = 1; i < n; i += 2) {
    etr_store_double(dtype, (uint8_t *)t->data +
                                (size_t)i * etr_scalar_type_size(dtype),
                     -0.0);
  }
  etr_diff_out(&c, dtype, 1, (const int64_t[]){0}, ETR_DIFF_CONTIGUOUS,
               n + 8);
  etr_diff_return(&c, 1);
  etr_diff_tolerance_exact(&c);
  failures += etr_diff_run(&c);
  return failures;
}

static int run_op(size_t index) {
  int failures = 0;
  for (size_t d = 0; d < 3; ++d) {
    failures += run_unary(&kOps[index], kDtypes[d]);
  }
  etr_diff_case_t c;
  etr_diff_begin(&c, kOps[index].op, g_seed++, "Double (reference)");
  int64_t n = 37;
  etr_diff_input(&c, ETR_DOUBLE, 1, &n, ETR_DIFF_CONTIGUOUS,
                 ETR_FILL_RANDOM);
  failures += finish_unary(&c, &kOps[index], ETR_DOUBLE, 1, &n, false);
  return failures;
}

#define TRANSCENDENTAL_TEST(name, index)                                \
  TT_TEST(diff_elementwise_transcendental, name) {                      \
    uint64_t before = etr_diff_stats()->specialized;                    \
    int failures = run_op(index);                                       \
    cr_assert_eq(failures, 0, "%d cases disagree", failures);           \
    cr_assert_gt(etr_diff_stats()->specialized, before,                 \
                 "never took the fast path");                           \
  }

TRANSCENDENTAL_TEST(expm1, 0)
TRANSCENDENTAL_TEST(log2, 1)
TRANSCENDENTAL_TEST(log10, 2)
TRANSCENDENTAL_TEST(log1p, 3)
TRANSCENDENTAL_TEST(sinh, 4)
TRANSCENDENTAL_TEST(cosh, 5)
TRANSCENDENTAL_TEST(asinh, 6)
TRANSCENDENTAL_TEST(acosh, 7)
TRANSCENDENTAL_TEST(atanh, 8)
TRANSCENDENTAL_TEST(erf, 9)
TRANSCENDENTAL_TEST(sin, 10)
TRANSCENDENTAL_TEST(cos, 11)
TRANSCENDENTAL_TEST(tan, 12)
TRANSCENDENTAL_TEST(asin, 13)
TRANSCENDENTAL_TEST(acos, 14)
TRANSCENDENTAL_TEST(atan, 15)

// op(self, other) (atan2, pow) for two tensors of `dtype`.
static int run_pair(const char *op, etr_scalar_type_t dtype, int32_t dim_a,
                     const int64_t *a, int32_t dim_b, const int64_t *b,
                     etr_diff_layout_t layout, etr_diff_fill_t fill,
                     const char *what) {
  etr_diff_case_t c;
  etr_diff_begin(&c, op, g_seed++, "%s %s", what,
                 fill == ETR_FILL_SPECIAL ? "special" : "random");
  etr_diff_input(&c, dtype, dim_a, a, layout, fill);
  etr_diff_input(&c, dtype, dim_b, b, layout, fill);
  int32_t dim = dim_a > dim_b ? dim_a : dim_b;
  int64_t sizes[ETR_MAX_DIMS];
  int64_t numel = 1;
  for (int32_t i = 0; i < dim; ++i) {
    int32_t ia = i - (dim - dim_a);
    int32_t ib = i - (dim - dim_b);
    int64_t sa = ia >= 0 ? a[ia] : 1;
    int64_t sb = ib >= 0 ? b[ib] : 1;
    sizes[i] = sa == 1 ? sb : sa;
    numel *= sizes[i];
  }
  if (layout == ETR_DIFF_CHANNELS_LAST && dim == 4) {
    etr_diff_out(&c, dtype, dim, sizes, ETR_DIFF_CHANNELS_LAST, 0);
  } else {
    etr_diff_out(&c, dtype, 1, (const int64_t[]){0}, ETR_DIFF_CONTIGUOUS,
                 numel + 8);
  }
  etr_diff_return(&c, 2);
  set_ulp(&c, 1, dtype);
  return etr_diff_run(&c);
}

// Every pattern of `op` at the 16-lane edge sizes, then `wide` cases of
// 4099 pairs: self uniform in [self_low, self_high), other in
// [other_low, other_high) (rounded to integers with `integer_other`).
static int run_binary_op(const char *op, double self_low, double self_high,
                         double other_low, double other_high,
                         bool integer_other) {
  int64_t sizes[16];
  size_t count = etr_diff_edge_sizes(16, sizes);
  int failures = 0;
  for (size_t d = 0; d < 3; ++d) {
    for (size_t s = 0; s < count; ++s) {
      int64_t n = sizes[s];
      for (int fill = 0; fill < 2; ++fill) {
        etr_diff_fill_t data = fill ? ETR_FILL_SPECIAL : ETR_FILL_RANDOM;
        int64_t same[2] = {2, n};
        failures += run_pair(op, kDtypes[d], 2, same, 2, same,
                             ETR_DIFF_CONTIGUOUS, data, "same shape");
        failures += run_pair(op, kDtypes[d], 2, same, 2, same,
                             ETR_DIFF_NONCONTIGUOUS, data, "strided");
        int64_t nhwc[4] = {2, n, 1, 2};
        failures += run_pair(op, kDtypes[d], 4, nhwc, 4, nhwc,
                             ETR_DIFF_CHANNELS_LAST, data, "nhwc");
        int64_t rows[2] = {3, n};
        failures += run_pair(op, kDtypes[d], 2, rows, 1, &n,
                             ETR_DIFF_CONTIGUOUS, data, "[3,n] op [n]");
        failures += run_pair(op, kDtypes[d], 1, &n, 2, rows,
                             ETR_DIFF_CONTIGUOUS, data, "[n] op [3,n]");
        failures += run_pair(op, kDtypes[d], 0, NULL, 2, rows,
                             ETR_DIFF_CONTIGUOUS, data, "0-dim op [3,n]");
      }
    }
    etr_diff_case_t c;
    etr_diff_begin(&c, op, g_seed++, "wide");
    int64_t n = 4099;
    etr_tensor_t *a = etr_diff_input(&c, kDtypes[d], 1, &n,
                                     ETR_DIFF_CONTIGUOUS, ETR_FILL_ZERO);
    etr_tensor_t *b = etr_diff_input(&c, kDtypes[d], 1, &n,
                                     ETR_DIFF_CONTIGUOUS, ETR_FILL_ZERO);
    fill_range(&c, a, self_low, self_high, false);
    fill_range(&c, b, other_low, other_high, false);
    if (integer_other) {
      size_t size = etr_scalar_type_size(kDtypes[d]);
      for (int64_t i = 0; i < n; ++i) {
        uint8_t *p = (uint8_t *)b->data + (size_t)i * size;
        etr_store_double(kDtypes[d], p, round(etr_load_double(kDtypes[d], p)));
      }
    }
    etr_diff_out(&c, kDtypes[d], 1, (const int64_t[]){0},
                 ETR_DIFF_CONTIGUOUS, n + 8);
    etr_diff_return(&c, 2);
    set_ulp(&c, 1, kDtypes[d]);
    failures += etr_diff_run(&c);
  }
  int64_t shape[2] = {3, 17};
  failures += run_pair(op, ETR_DOUBLE, 2, shape, 2, shape,
                       ETR_DIFF_CONTIGUOUS, ETR_FILL_SPECIAL,
                       "Double (reference)");
  failures += run_pair(op, ETR_INT, 2, shape, 2, shape, ETR_DIFF_CONTIGUOUS,
                       ETR_FILL_POSITIVE, "Int (reference)");
  return failures;
}

// `op` on the floats around each of the `count` seams
// (etr_diff_seams_input), within 1 ULP, on every ISA.
static int run_seams(const char *op, const float *seams, int count) {
  etr_diff_case_t c;
  etr_diff_begin(&c, op, g_seed++, "seams");
  etr_diff_seams_input(&c, seams, count);
  etr_diff_out(&c, ETR_FLOAT, 1, (const int64_t[]){0}, ETR_DIFF_CONTIGUOUS,
               (int64_t)count * 16 + 8);
  etr_diff_return(&c, 1);
  etr_diff_tolerance_ulp(&c, 1);
  return etr_diff_run(&c);
}

// erf at the seams of its AVX-512 table (vmath_explog.h's vf_erf, on
// tanh's intervals: etr_diff_binade_table_seams; just below 1/16, where
// |x| + 1/2 rounds up to 9/16, a lane must not take the first interval's
// t + t P), 3.9192059, the smallest float whose erf is 1 in float; and
// the double form's switch at |x| = 0.6 (the other ISAs).
TT_TEST(diff_elementwise_transcendental, erf_seams) {
  float seams[kEtrDiffBinadeSeams + 2];
  int count = kEtrDiffBinadeSeams;
  etr_diff_binade_table_seams(seams);
  seams[count++] = 3.91920590f;
  seams[count++] = 0.6f;
  cr_assert_eq(run_seams("aten::erf.out", seams, count), 0,
               "erf disagrees at a seam");
}

// sin, cos and tan where the reduction's n steps (odd multiples of pi/4,
// |r| near pi/4) and at multiples of pi/2 (r near 0: tan's poles and
// zeros, -1 / tan r for odd n), up to 40 pi/2; near 2^16, where lanes
// leave the float path for libm (the split loop then takes those pairs
// vector by vector); the largest multiples of pi/2 below it; and two
// floats where tan was 2 ULP off: 0x1.159b8p+0 without vf_tan_near's
// Newton step for odd n (ulp_sweep 64 tan), 0x1.f3bd2ap+1 on the scalar
// build (unfused multiply-adds) with w's last step not fused (ulp_sweep
// 1 tan).
TT_TEST(diff_elementwise_transcendental, trig_seams) {
  float seams[96];
  int count = 0;
  for (int k = 1; k <= 80; ++k) {
    seams[count++] = (float)(k * 0.78539816339744830962);
  }
  seams[count++] = 65536.0f;
  seams[count++] = (float)(41720 * 1.57079632679489661923);
  seams[count++] = (float)(41721 * 1.57079632679489661923);
  seams[count++] = (float)(41719.5 * 1.57079632679489661923);
  seams[count++] = 0x1.159b8p+0f;
  seams[count++] = 0x1.f3bd2ap+1f;
  int failures = 0;
  failures += run_seams("aten::sin.out", seams, count);
  failures += run_seams("aten::cos.out", seams, count);
  failures += run_seams("aten::tan.out", seams, count);
  cr_assert_eq(failures, 0, "%d seam cases disagree", failures);
}

// Every quadrant and magnitude ratio.
TT_TEST(diff_elementwise_transcendental, atan2) {
  uint64_t before = etr_diff_stats()->specialized;
  int failures = run_binary_op("aten::atan2.out", -1e4, 1e4, -3, 3, false);
  cr_assert_eq(failures, 0, "%d cases disagree", failures);
  cr_assert_gt(etr_diff_stats()->specialized, before);
}

// Positive bases over wide exponents (to overflow and underflow), and
// negative bases to integer exponents (signs by parity).
TT_TEST(diff_elementwise_transcendental, pow_tensor_tensor) {
  uint64_t before = etr_diff_stats()->specialized;
  int failures = run_binary_op("aten::pow.Tensor_Tensor_out", 0, 8, -60, 60,
                               false);
  failures += run_binary_op("aten::pow.Tensor_Tensor_out", -8, 8, -40, 40,
                            true);
  cr_assert_eq(failures, 0, "%d cases disagree", failures);
  cr_assert_gt(etr_diff_stats()->specialized, before);
}

// pow(base, exponent tensor).
static int run_pow(etr_evalue_t *base, const char *what,
                   etr_scalar_type_t dtype, int64_t n, double low,
                   double high, etr_diff_fill_t fill) {
  etr_diff_case_t c;
  etr_diff_begin(&c, "aten::pow.Scalar_out", g_seed++, "%s n=%lld [%g, %g)",
                 what, (long long)n, low, high);
  etr_diff_arg(&c, base);
  etr_tensor_t *t = etr_diff_input(&c, dtype, 1, &n, ETR_DIFF_CONTIGUOUS,
                                   fill);
  if (fill == ETR_FILL_ZERO) {
    fill_range(&c, t, low, high, false);
  }
  etr_diff_out(&c, dtype, 1, (const int64_t[]){0}, ETR_DIFF_CONTIGUOUS,
               n + 8);
  etr_diff_return(&c, 2);
  set_ulp(&c, 1, dtype);
  return etr_diff_run(&c);
}

TT_TEST(diff_elementwise_transcendental, pow_scalar) {
  static const double kBases[] = {2.0, 0.5, 10.0, 2.718281828459045, 1e-3};
  uint64_t before = etr_diff_stats()->specialized;
  int64_t sizes[16];
  size_t count = etr_diff_edge_sizes(16, sizes);
  int failures = 0;
  for (size_t d = 0; d < 3; ++d) {
    for (size_t b = 0; b < sizeof(kBases) / sizeof(kBases[0]); ++b) {
      for (size_t s = 0; s < count; ++s) {
        failures += run_pow(tt_ev_double(kBases[b]), "base", kDtypes[d],
                            sizes[s], 0, 0,
                            s % 2 ? ETR_FILL_SPECIAL : ETR_FILL_RANDOM);
      }
      // Exponents from underflow to overflow.
      double reach = 160.0 / fabs(log2(kBases[b]));
      failures += run_pow(tt_ev_double(kBases[b]), "wide", kDtypes[d], 4099,
                          -reach, reach, ETR_FILL_ZERO);
    }
    failures += run_pow(tt_ev_int(3), "int base", kDtypes[d], 67, -40, 40,
                        ETR_FILL_ZERO);
    // Left to the reference.
    failures += run_pow(tt_ev_int(1), "base 1", kDtypes[d], 33, 0, 0,
                        ETR_FILL_SPECIAL);
    failures += run_pow(tt_ev_double(0.0), "base 0", kDtypes[d], 33, 0, 0,
                        ETR_FILL_SPECIAL);
    failures += run_pow(tt_ev_double(-2.0), "base -2", kDtypes[d], 33, 0, 0,
                        ETR_FILL_SPECIAL);
    failures += run_pow(tt_ev_double(INFINITY), "base inf", kDtypes[d], 33,
                        0, 0, ETR_FILL_SPECIAL);
    failures += run_pow(tt_ev_bool(true), "base true", kDtypes[d], 33, 0, 0,
                        ETR_FILL_SPECIAL);
  }
  failures += run_pow(tt_ev_double(2.0), "Double (reference)", ETR_DOUBLE,
                      33, 0, 0, ETR_FILL_SPECIAL);
  cr_assert_eq(failures, 0, "%d cases disagree", failures);
  cr_assert_gt(etr_diff_stats()->specialized, before);
}

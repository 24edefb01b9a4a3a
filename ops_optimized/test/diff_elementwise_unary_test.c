// SPDX-License-Identifier: Apache-2.0
//
// Differential tests of the elementwise family's transcendental unary ops
// against the reference kernels, on every ISA of this machine: sigmoid,
// tanh, exp, log and elu; and every unary op's wide-range inputs
// (domains). gelu has diff_elementwise_gelu_test.c; the exact ops (sqrt,
// rsqrt (1 ULP), neg, abs, leaky_relu, hardtanh, clamp, pow.Tensor_Scalar_out,
// ceil, floor, round, trunc, sign, reciprocal) and every op's signed zeros
// diff_elementwise_unary_exact_test.c. The case table and sweeps are in
// unary_test_util.h.
//
// Bounds, in ULP of the output dtype against the reference (which
// evaluates in double and rounds once):
//   Float, the maxima measured over every float (exp, log, tanh, sigmoid,
//     gelu none, gelu tanh, elu with unit parameters:
//     ops_optimized/tools/ulp_sweep 1 OP) on every x86 ISA, a
//     sweep kept out of the suite for time: exp 1, log 1, tanh 1,
//     sigmoid 2, elu 1 (2 allowed for non-unit input_scale), gelu none 4,
//     gelu tanh 4 (their fast paths and tails: diff_elementwise_gelu_test.c);
//   Half and BFloat16: 1 ULP for the transcendental ops (the fp32 value
//     is within a few float ULP, then rounded once);
//   the exact ops as stated in diff_elementwise_unary_exact_test.c (their
//     wide-range cases run here, in domains).
// (The transcendental ops of unary/vmath_explog.h and vmath_trig.h have
// their table in diff_elementwise_transcendental_test.c.)
//
// Cases, per op and dtype (Float, Half, BFloat16 specialized; Double
// checked to fall back): the tile-edge sizes of 16 lanes, contiguous,
// non-contiguous (falls back) and channels-last, random values in [-1, 1)
// and special values (NaN, +-inf, -0.0, denormals, extremes), in place;
// plus wide-range random inputs covering each function's whole domain.
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "ops_optimized/test/diff.h"
#include "ops_optimized/test/unary_test_util.h"

UNARY_TEST(diff_elementwise_unary, sigmoid, 0, 0)
UNARY_TEST(diff_elementwise_unary, tanh, 1, 1)
UNARY_TEST(diff_elementwise_unary, exp, 2, 2)
UNARY_TEST(diff_elementwise_unary, log, 3, 3)
UNARY_TEST(diff_elementwise_unary, elu, 10, 11)
UNARY_TEST(diff_elementwise_unary, elu_scaled, 40, 40)

TT_TEST(diff_elementwise_unary, domains) {
  int failures = 0;
  failures += unary_run_domain(0, -110, 40, false);  // sigmoid
  failures += unary_run_domain(1, -12, 12, false);   // tanh
  failures += unary_run_domain(2, -110, 92, false);  // exp
  failures += unary_run_domain(3, -100, 89, true);   // log, subnormal to huge
  failures += unary_run_domain(3, 0.5, 2, false);    // log around 1
  failures += unary_run_domain(5, -100, 89, true);   // rsqrt
  failures += unary_run_domain(8, -5, 10, false);    // gelu none
  failures += unary_run_domain(9, -5, 10, false);    // gelu tanh
  failures += unary_run_domain(10, -20, 2, false);   // elu
  failures += unary_run_domain(11, -20, 2, false);
  failures += unary_run_domain(40, -80, 2, false);   // elu, input_scale 0.3
  failures += unary_run_domain(28, -1e13, 1e13, false);  // pow 3 (overflow)
  failures += unary_run_domain(30, -1e-19, 1e-19, false);  // pow -2
  failures += unary_run_domain(32, -100, 89, true);  // pow -0.5
  for (size_t index = 34; index <= 37; ++index) {  // rounding, to 2^25
    failures += unary_run_domain(index, -3.4e7, 3.4e7, false);
  }
  failures += unary_run_domain(39, -100, 89, true);  // reciprocal, to subnormal
  cr_assert_eq(failures, 0, "%d cases disagree", failures);
}

// The op of kUnaryCases[which] on 8 floats around each of the `count`
// seams, both signs (4 below the seam, the seam, 3 above), within the
// case's float bound.
static void run_seams(size_t which, const char *op, const float *seams,
                      int count) {
  const unary_case_t *u = &kUnaryCases[which];
  cr_assert(strcmp(u->op, op) == 0);
  etr_diff_case_t c;
  etr_diff_begin(&c, u->op, g_unary_seed++, "seams");
  etr_diff_seams_input(&c, seams, count);
  etr_diff_out(&c, ETR_FLOAT, 1, (const int64_t[]){0}, ETR_DIFF_CONTIGUOUS,
               (int64_t)count * 16 + 8);
  etr_diff_return(&c, 1);
  etr_diff_tolerance_ulp(&c, u->float_ulp);
  cr_assert_eq(etr_diff_run(&c), 0, "%s disagrees at a seam", op);
}

// The seams of an AVX-512 table path of uniform intervals (vmath.h's
// vf_table_poly) of `step` up to |x| = 8: where round(|x| / step) steps,
// |x| = (k + 1/2) step for k = 0..8/step-1 (the last, 8 - step/2).
static int table_seams(float *seams, float step) {
  const int count = (int)(8.0f / step);
  for (int k = 0; k < count; ++k) {
    seams[k] = ((float)k + 0.5f) * step;
  }
  return count;
}

// tanh at the seams of vf_tanh (unary/vmath.h), both signs, within its
// 1 ULP. The exp form (AVX2, scalar, NEON): the switch from the
// polynomial to expm1 at |x| = ln2 / 2, each step of n = floor(2|x| /
// ln2) (|x| = k ln2 / 2, k = 1..29, where r restarts at 0) and the
// saturation to +-1 near 9.01. The table (AVX-512): its seams
// (etr_diff_binade_table_seams).
TT_TEST(diff_elementwise_unary, tanh_seams) {
  float seams[72];
  int count = 0;
  for (int k = 1; k <= 29; ++k) {
    seams[count++] = (float)(k * 0.34657359027997264);
  }
  seams[count++] = 9.01091194f;
  etr_diff_binade_table_seams(seams + count);
  count += kEtrDiffBinadeSeams;
  run_seams(1, "aten::tanh.out", seams, count);
}

// sigmoid at the seams of its AVX-512 table path (intervals of 1/4 of
// |x|), both signs, within its 2 ULP: the intervals, and 7.75, where |x|
// leaves the table for the general path (the vector with such a lane
// takes it lane by lane); and |x| = (k + 1/2) / 2, the seams of the
// table of x itself in intervals of 1/2 that it had before.
TT_TEST(diff_elementwise_unary, sigmoid_seams) {
  float seams[48];
  int count = table_seams(seams, 0.5f);
  count += table_seams(seams + count, 0.25f);
  run_seams(0, "aten::sigmoid.out", seams, count);
}

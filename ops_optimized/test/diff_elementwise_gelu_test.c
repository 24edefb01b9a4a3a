// SPDX-License-Identifier: Apache-2.0
//
// Differential tests of gelu (approximate "none" and "tanh") against the
// reference kernel, on every ISA of this machine: the unary sweeps of
// unary_test_util.h, the left tail where the reference cancels, results
// in and near the subnormal range, and the fast paths' lanes, seams and
// range checks (the last two call the microkernels directly, against
// forms in double that do not cancel).
//
// Bounds: Float 4 ULP (the maximum measured over every float,
// ops_optimized/tools/ulp_sweep 1 OP, on every x86 ISA; see
// diff_elementwise_unary_test.c), Half and BFloat16 1 ULP; the fast
// paths: 2 ULP on AVX-512 (|x| < 3.875), else for |x| <= 3 3 ("none")
// and 2 ("tanh"); subnormal results within 4 ULP of the subnormal spacing with
// the same zeros and signs. gelu's reference cancels in 1 + erf / 1 + tanh
// below about x = -5 and is then only accurate to about |x| 2^-53
// absolute, so the wide-range gelu cases bound |optimized - reference| by
// 2e-15 + 4 * 2^-23 |ref|.
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ops_optimized/isa.h"
#include "ops_optimized/test/diff.h"
#include "ops_optimized/test/unary_test_util.h"
#include "ops_optimized/unary/unary.h"

UNARY_TEST(diff_elementwise_gelu, gelu, 8, 9)

// The same cases with each of AVX-512's gelu tables forced (isa.h's
// etr_isa_narrow_lookups picks one by CPU vendor): both are checked
// against the reference on any AVX-512 machine.
TT_TEST(diff_elementwise_gelu, gelu_both_tables) {
  int failures = 0;
  for (int narrow = 0; narrow < 2; ++narrow) {
    etr_isa_force_narrow_lookups(narrow);
    for (size_t i = 8; i <= 9; ++i) {
      failures += unary_run_case(i);
    }
  }
  etr_isa_force_narrow_lookups(-1);
  cr_assert_eq(failures, 0, "%d cases disagree", failures);
}

// gelu's left tail, where the reference itself is only accurate to about
// |x| 2^-53 absolute (see the file comment).
TT_TEST(diff_elementwise_gelu, gelu_tail) {
  int failures = 0;
  for (size_t index = 8; index <= 9; ++index) {
    etr_diff_case_t c;
    unary_begin_ranged(&c, kUnaryCases[index].op, kUnaryCases[index].label,
                       ETR_FLOAT, 4099, -16, 16, false);
    etr_diff_arg(&c, kUnaryCases[index].extra[0]());
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

// The gelu microkernels under test, as variant v: ISA v / 2 where this
// machine has it, and on AVX-512 both tables (etr_isa_narrow_lookups,
// isa.h: v % 2 = 1 the narrow ones). False for a variant that does not
// exist here.
enum { kVariants = 2 * ETR_NUM_ISAS };
static bool variant_kernel(int v, etr_unary_op_t op,
                           etr_f32_unary_op_fn *kernel) {
  const etr_isa_t isa = (etr_isa_t)(v / 2);
  const int narrow = v % 2;
  if (!etr_isa_available(isa) || (narrow && isa != ETR_ISA_AVX512)) {
    return false;
  }
  etr_isa_force_narrow_lookups(narrow);
  *kernel = etr_f32_unary_op_for(op, isa);
  etr_isa_force_narrow_lookups(-1);
  return true;
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
TT_TEST(diff_elementwise_gelu, gelu_subnormal_tail) {
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
  for (int v = 0; v < kVariants; ++v) {
    const int isa = v / 2;
    for (size_t o = 0; o < 2; ++o) {
      etr_f32_unary_op_fn gelu;
      if (!variant_kernel(v, kOps[o].op, &gelu)) {
        continue;
      }
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
            fprintf(stderr, "isa %d narrow %d op %d: gelu(%a) = %a\n",
                    isa, v % 2, (int)kOps[o].op, (double)x[i],
                    (double)y[i]);
          }
        }
      }
    }
  }
  cr_assert_eq(failures, 0, "%d results off", failures);
}

// gelu's fast paths, taken by a vector whose lanes all lie in range:
// |x| < 3.875 on AVX-512 and AVX2 (vmath.h's vf_gelu_rows, both
// approximations), [-3, 3] elsewhere (vf_gelu_erf_bounded and
// vf_gelu_tanh_fast's bounded form), against the double forms above
// within the bounds measured over every float (ulp_sweep 1 OP -3.8749998
// 3.8749998): 2 ULP on AVX-512 and AVX2 (the tables), elsewhere 3 for
// "none" and 2 for "tanh" within [-3, 3]
// and the wide paths' 4 past it. Every 4099th float of the range, the
// 2^11 floats around each multiple of 1/16 below 3.875 on both sides of
// zero (among them the table's seams, |x| = (i + 1/2) / 4, where
// round(4 |x|) ties, and centres, |x| = i / 4), then 16-lane and 8-lane
// blocks of values in range with one lane out of it (the ranges' edges,
// large, +-inf, NaN; and the narrow table's own edge, x = -3.375, below
// which a lane takes the tail table, with lanes past it and positive
// ones past the split loop's |x| >= 3.375 check) at each position, at
// lengths around the vector widths, and zeros, subnormals and NaN in
// range; on every ISA.
TT_TEST(diff_elementwise_gelu, gelu_fast_paths) {
  enum { kChunk = 4096 };
  static float x[kChunk];
  static float y[kChunk];
  static const float kOutside[] = {
      3.875f,   -3.875f,    3.00000024f, -3.00000024f, 7.5f, -9.0f,
      INFINITY, -INFINITY,  NAN,         -3.375f,      -3.5f, 3.375f,
      3.5f,     -3.37499976f};
  static const float kEdges[] = {
      3.0f,        -3.0f,      3.87499976f, -3.87499976f, 0.0f,
      -0.0f,       0x1p-149f,  -0x1p-149f,  0x1p-126f,    -0x1p-126f,
      1e-30f,      -1e-30f,    0.125f,      -0.125f,      NAN,
      -3.37499976f, -3.375f,   -3.6f,       3.6f};
  const int edges = (int)(sizeof(kEdges) / sizeof(kEdges[0]));
  static const struct {
    etr_unary_op_t op;
    double (*expected)(double);
    double ulps;
  } kOps[] = {{ETR_UNARY_GELU_ERF, gelu_erf_double, 3},
              {ETR_UNARY_GELU_TANH, gelu_tanh_double, 2}};
  int failures = 0;
  for (int v = 0; v < kVariants; ++v) {
    const int isa = v / 2;
    for (size_t o = 0; o < 2; ++o) {
      etr_f32_unary_op_fn gelu;
      if (!variant_kernel(v, kOps[o].op, &gelu)) {
        continue;
      }
      const bool table = isa == ETR_ISA_AVX512 || isa == ETR_ISA_AVX2;
      // The sweep, then the seams and centres, a chunk at a time.
      uint32_t bits = 0;
      const uint32_t last = 0x4077ffffu;  // 3.87499976f
      int seam = -61;
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
        } else if (seam <= 61) {
          // 2^11 floats around c = seam / 16 (a seam of the table when
          // seam is 2 (2i + 1), a centre when a multiple of 4).
          float c = (float)seam / 16.0f;
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
          double ulps =
              table ? 2 : (fabsf(x[i]) <= 3.0f ? kOps[o].ulps : 4);
          if (float_off(x[i], y[i], kOps[o].expected((double)x[i]), ulps) &&
              failures++ < 5) {
            fprintf(stderr, "isa %d narrow %d op %d: gelu(%a) = %a\n",
                    isa, v % 2, (int)kOps[o].op, (double)x[i],
                    (double)y[i]);
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
              x[i] = i % 2 ? kEdges[i % edges]
                           : -2.9f + 0.37f * (float)(i % 16);
            }
            if (n > 0) {
              x[at] = kOutside[u];
            }
            gelu((size_t)n, x, y, NULL);
            for (int i = 0; i < n; ++i) {
              if (float_off(x[i], y[i], kOps[o].expected((double)x[i]), 4) &&
                  failures++ < 5) {
                fprintf(stderr,
                        "isa %d narrow %d op %d: gelu(%a) = %a (n %d, %a "
                        "at %d)\n",
                        isa, v % 2, (int)kOps[o].op, (double)x[i],
                        (double)y[i], n, (double)kOutside[u], at);
              }
            }
          }
        }
      }
    }
  }
  cr_assert_eq(failures, 0, "%d results off", failures);
}

// Same bits or both NaN.
static bool same_float(float a, float b) {
  uint32_t ua;
  uint32_t ub;
  memcpy(&ua, &a, sizeof(ua));
  memcpy(&ub, &b, sizeof(ub));
  return ua == ub || (isnan(a) && isnan(b));
}

// A lane's result is a function of that lane alone: the fast paths round
// some lanes within range differently from the wide ones, so a vector
// with lanes on both sides takes each lane's own path (vmath.h's
// vf_gelu_erf_mixed and vf_gelu_tanh_mixed; on the narrow table, lanes
// at or below -3.375 take the tail table). Probes in range (near the
// ranges' edges, the bounded and table paths' seams, zeros, NaN) and out
// of it, each in a block of 33 lanes that are all in range, then all out
// of range (among them the narrow table's tail), then alternating: its
// bits must not change. On every ISA.
TT_TEST(diff_elementwise_gelu, gelu_lanes_independent) {
  enum { kLanes = 33 };
  static const float kProbes[] = {
      2.99999976f, -2.99999976f, 3.0f,   -3.0f,  3.00000024f, -3.00000024f,
      3.87499976f, -3.87499976f, 3.875f, -3.875f, 2.3456789f, -1.6180339f,
      0.70710677f, -0.4375f,     1e-3f,  -1e-30f, 0.0f,       -0.0f,
      NAN,         5.5f,         -6.25f, INFINITY, -3.375f,    -3.37499976f,
      -3.37500024f, -3.6f,       3.5f,   -3.125f};
  static const float kInside[] = {0.5f, -1.25f, 2.75f, -2.875f};
  static const float kOutside[] = {7.5f,   -9.0f,     3.9f,
                                   -40.0f, INFINITY,  -3.5f};
  const int outside = (int)(sizeof(kOutside) / sizeof(kOutside[0]));
  static const etr_unary_op_t kOps[] = {ETR_UNARY_GELU_ERF,
                                        ETR_UNARY_GELU_TANH};
  int failures = 0;
  for (int v = 0; v < kVariants; ++v) {
    const int isa = v / 2;
    for (size_t o = 0; o < 2; ++o) {
      etr_f32_unary_op_fn gelu;
      if (!variant_kernel(v, kOps[o], &gelu)) {
        continue;
      }
      for (size_t p = 0; p < sizeof(kProbes) / sizeof(kProbes[0]); ++p) {
        float want = 0.0f;
        for (int fill = 0; fill < 3; ++fill) {
          for (int at = 0; at < kLanes; at += 5) {
            float x[kLanes];
            float y[kLanes];
            for (int i = 0; i < kLanes; ++i) {
              const bool out = fill == 1 || (fill == 2 && i % 2 == 1);
              x[i] = out ? kOutside[i % outside] : kInside[i % 4];
            }
            x[at] = kProbes[p];
            gelu((size_t)kLanes, x, y, NULL);
            if (fill == 0 && at == 0) {
              want = y[0];
            } else if (!same_float(y[at], want) && failures++ < 5) {
              fprintf(stderr,
                      "isa %d narrow %d op %d: gelu(%a) = %a at lane %d "
                      "of fill %d, %a among in-range lanes\n",
                      isa, v % 2, (int)kOps[o], (double)kProbes[p],
                      (double)y[at], at, fill, (double)want);
            }
          }
        }
      }
    }
  }
  cr_assert_eq(failures, 0, "%d lanes depend on their neighbours",
               failures);
}

// SPDX-License-Identifier: Apache-2.0
//
// The sweep behind the ULP table of ops_optimized/test/
// diff_elementwise_transcendental_test.c: the fp32 microkernels of the
// transcendental ops on every ISA this build and machine have, against
// libm in double rounded once to float (what the reference kernels
// compute), over every STRIDE-th float bit pattern (all signs and
// exponents), plus atan2 and pow on pseudo-random pairs,
// pow.Scalar_out's e^(y ln base) for a few bases and
// pow.Tensor_Scalar_out's x^c for a few exponents c. Prints, per op and
// ISA, the largest difference in ULP of the reference's float, where it
// happens, and how many special results (NaN, infinities, zeros and their
// signs) differ. Kept out of the test suite for time.
//
//   bazel run -c opt //ops_optimized/tools:ulp_sweep -- [STRIDE] [OP]
//       [LOW HIGH]
//
// STRIDE defaults to 1021 (4.2 million inputs an op); OP limits the
// sweep to one op ("sin", "sigmoid", "tanh", "gelu_erf", "gelu_tanh",
// "elu", "pow", "pow_scalar", "pow_exponent", ...); LOW HIGH limit the
// inputs of the one-input sweeps (not atan2 and pow's pairs) to [LOW,
// HIGH] (one path of a kernel, say gelu's table path: ulp_sweep 1
// gelu_erf -4.125 3.8749998).
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops_optimized/binary/binary.h"
#include "ops_optimized/isa.h"
#include "ops_optimized/unary/unary.h"

#define CHUNK 4096

// One ULP of the float `r` (subnormal spacing below FLT_MIN).
static double ulp_of(float r) {
  float a = fabsf(r);
  if (a < 1.17549435e-38f) {
    return ldexp(1.0, -149);
  }
  int e;
  frexpf(a, &e);
  return ldexp(1.0, e - 24);
}

static float from_bits(uint32_t bits) {
  float f;
  memcpy(&f, &bits, sizeof(f));
  return f;
}

typedef struct worst {
  double ulp;
  float x;
  float y;
  uint64_t special_mismatches;
} worst_t;

// Folds one result into `w`: specials must match exactly (NaN with NaN,
// signed zeros and infinities), the rest within the ULP measured.
static void account(worst_t *w, float x, float y, float got, float ref) {
  bool special = !isfinite(ref) || !isfinite(got) || ref == 0 || got == 0;
  if (special) {
    bool same = (isnan(ref) && isnan(got)) ||
                (ref == got && signbit(ref) == signbit(got));
    if (!same) {
      ++w->special_mismatches;
    }
    return;
  }
  double ulp = fabs((double)got - (double)ref) / ulp_of(ref);
  if (ulp > w->ulp) {
    w->ulp = ulp;
    w->x = x;
    w->y = y;
  }
}

static void report(const char *op, etr_isa_t isa, const worst_t *w) {
  printf("%-16s %-7s max %.2f ulp at (%a, %a), special mismatches %llu\n",
         op, etr_isa_name(isa), w->ulp, w->x, w->y,
         (unsigned long long)w->special_mismatches);
}

static double log1p_ref(double x) { return log1p(x); }
static double sigmoid_ref(double x) { return 1.0 / (1.0 + exp(-x)); }
// gelu through erfc and x sigmoid(2u), forms that do not cancel in the
// left tail (the reference's 1 + erf and 1 + tanh do, below about -5).
static double gelu_erf_ref(double x) {
  return 0.5 * x * erfc(-x * 0.70710678118654752440);
}
// elu with alpha, scale and input_scale 1 (the kernels' parameters when
// none are given).
static double elu_ref(double x) { return x < 0.0 ? expm1(x) : x; }
static double gelu_tanh_ref(double x) {
  double u = 0.79788456080286535588 * (x + 0.044715 * x * x * x);
  return x / (1.0 + exp(-2.0 * u));
}

static const struct {
  etr_unary_op_t op;
  const char *name;
  double (*ref)(double);
} kUnary[] = {
    {ETR_UNARY_EXP, "exp", exp},       {ETR_UNARY_LOG, "log", log},
    {ETR_UNARY_EXPM1, "expm1", expm1}, {ETR_UNARY_LOG2, "log2", log2},
    {ETR_UNARY_LOG10, "log10", log10}, {ETR_UNARY_LOG1P, "log1p", log1p_ref},
    {ETR_UNARY_SINH, "sinh", sinh},    {ETR_UNARY_COSH, "cosh", cosh},
    {ETR_UNARY_ASINH, "asinh", asinh}, {ETR_UNARY_ACOSH, "acosh", acosh},
    {ETR_UNARY_ATANH, "atanh", atanh}, {ETR_UNARY_ERF, "erf", erf},
    {ETR_UNARY_SIN, "sin", sin},       {ETR_UNARY_COS, "cos", cos},
    {ETR_UNARY_TAN, "tan", tan},       {ETR_UNARY_ASIN, "asin", asin},
    {ETR_UNARY_ACOS, "acos", acos},    {ETR_UNARY_ATAN, "atan", atan},
    {ETR_UNARY_SIGMOID, "sigmoid", sigmoid_ref},
    {ETR_UNARY_TANH, "tanh", tanh},
    {ETR_UNARY_GELU_ERF, "gelu_erf", gelu_erf_ref},
    {ETR_UNARY_GELU_TANH, "gelu_tanh", gelu_tanh_ref},
    {ETR_UNARY_ELU, "elu", elu_ref},
};

static void sweep_unary(etr_isa_t isa, uint32_t stride, const char *only,
                        float low, float high) {
  static float x[CHUNK];
  static float y[CHUNK];
  for (size_t o = 0; o < sizeof(kUnary) / sizeof(kUnary[0]); ++o) {
    if (only != NULL && strcmp(only, kUnary[o].name) != 0) {
      continue;
    }
    etr_f32_unary_op_fn kernel = etr_f32_unary_op_for(kUnary[o].op, isa);
    worst_t w = {0};
    for (uint64_t bits = 0; bits < 0x100000000ull;) {
      size_t n = 0;
      for (; n < CHUNK && bits < 0x100000000ull; bits += stride) {
        float v = from_bits((uint32_t)bits);
        if (!(v < low || v > high)) {  // NaN is in every range
          x[n++] = v;
        }
      }
      kernel(n, x, y, NULL);
      for (size_t j = 0; j < n; ++j) {
        account(&w, x[j], 0, y[j], (float)kUnary[o].ref((double)x[j]));
      }
    }
    report(kUnary[o].name, isa, &w);
  }
}

// A linear congruential generator (Knuth's MMIX constants).
static uint32_t next(uint64_t *state) {
  *state = *state * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(*state >> 32);
}

// atan2 and pow on 12 million pairs: raw bit patterns, moderate
// exponents, negative bases to integers, bases near 1.
static void sweep_pairs(etr_isa_t isa, const char *only) {
  static float a[CHUNK];
  static float b[CHUNK];
  static float y[CHUNK];
  const etr_f32_binary_kernels_t *k = etr_f32_binary_for(isa);
  for (int op = 0; op < 2; ++op) {
    const char *name = op == 0 ? "atan2" : "pow";
    if (only != NULL && strcmp(only, name) != 0) {
      continue;
    }
    worst_t w = {0};
    uint64_t state = 777;
    for (int rep = 0; rep < 3000; ++rep) {
      for (size_t j = 0; j < CHUNK; ++j) {
        uint32_t r1 = next(&state);
        uint32_t r2 = next(&state);
        switch (rep % 4) {
          case 0:
            a[j] = from_bits(r1);
            b[j] = from_bits(r2);
            break;
          case 1:
            a[j] = from_bits(r1 & 0x7fffffffu);
            b[j] = (float)((int32_t)r2 / 2.0e7);
            break;
          case 2:
            a[j] = -from_bits((r1 & 0x007fffffu) | 0x3f000000u) *
                   (float)(1 + (r2 & 15));
            b[j] = (float)((int32_t)(r2 >> 8) % 60);
            break;
          default:
            a[j] = 1.0f + (float)(int32_t)r1 / 2.1e18f;
            b[j] = from_bits(r2);
            break;
        }
      }
      k->vv[op == 0 ? ETR_BINARY_ATAN2 : ETR_BINARY_POW](CHUNK, a, b, y,
                                                          NULL);
      for (size_t j = 0; j < CHUNK; ++j) {
        double ref = op == 0 ? atan2((double)a[j], (double)b[j])
                             : pow((double)a[j], (double)b[j]);
        account(&w, a[j], b[j], y[j], (float)ref);
      }
    }
    report(name, isa, &w);
  }
}

// pow.Scalar_out: base^y over every STRIDE-th exponent pattern.
static void sweep_pow_scalar(etr_isa_t isa, uint32_t stride,
                             const char *only, float low, float high) {
  static const double kBases[] = {2.0, 0.5, 10.0, 2.718281828459045, 1e-3,
                                  3.0};
  static float x[CHUNK];
  static float y[CHUNK];
  if (only != NULL && strcmp(only, "pow_scalar") != 0) {
    return;
  }
  etr_f32_unary_op_fn kernel = etr_f32_unary_op_for(ETR_UNARY_EXP_SCALED,
                                                    isa);
  worst_t w = {0};
  for (size_t b = 0; b < sizeof(kBases) / sizeof(kBases[0]); ++b) {
    float base = (float)kBases[b];
    etr_unary_params_t params = {0};
    params.log_base = log((double)base);
    for (uint64_t bits = 0; bits < 0x100000000ull;) {
      size_t n = 0;
      for (; n < CHUNK && bits < 0x100000000ull; bits += stride) {
        float v = from_bits((uint32_t)bits);
        if (!(v < low || v > high)) {  // NaN is in every range
          x[n++] = v;
        }
      }
      kernel(n, x, y, &params);
      for (size_t j = 0; j < n; ++j) {
        account(&w, base, x[j], y[j],
                (float)pow((double)base, (double)x[j]));
      }
    }
  }
  report("pow_scalar", isa, &w);
}

// pow.Tensor_Scalar_out's general exponents: x^c over every STRIDE-th
// base pattern, c in double.
static void sweep_pow_exponent(etr_isa_t isa, uint32_t stride,
                               const char *only, float low, float high) {
  static const double kExponents[] = {1.5, 0.3,  -1.7, 4.0,  5.0,
                                      -3.0, 1.0 / 3, 37.5, 0.1, -0.75};
  static float x[CHUNK];
  static float y[CHUNK];
  if (only != NULL && strcmp(only, "pow_exponent") != 0) {
    return;
  }
  etr_f32_unary_op_fn kernel = etr_f32_unary_op_for(ETR_UNARY_POW_SCALAR,
                                                    isa);
  worst_t w = {0};
  for (size_t e = 0; e < sizeof(kExponents) / sizeof(kExponents[0]); ++e) {
    etr_unary_params_t params = {0};
    params.exponent = kExponents[e];
    for (uint64_t bits = 0; bits < 0x100000000ull;) {
      size_t n = 0;
      for (; n < CHUNK && bits < 0x100000000ull; bits += stride) {
        float v = from_bits((uint32_t)bits);
        if (!(v < low || v > high)) {  // NaN is in every range
          x[n++] = v;
        }
      }
      kernel(n, x, y, &params);
      for (size_t j = 0; j < n; ++j) {
        account(&w, x[j], (float)kExponents[e], y[j],
                (float)pow((double)x[j], kExponents[e]));
      }
    }
  }
  report("pow_exponent", isa, &w);
}

int main(int argc, char **argv) {
  uint32_t stride = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 1021;
  const char *only = argc > 2 ? argv[2] : NULL;
  float low = argc > 4 ? strtof(argv[3], NULL) : -INFINITY;
  float high = argc > 4 ? strtof(argv[4], NULL) : INFINITY;
  if (stride == 0 || argc == 4 || argc > 5) {
    fprintf(stderr, "usage: ulp_sweep [STRIDE > 0] [OP] [LOW HIGH]\n");
    return 2;
  }
  for (int i = 0; i < ETR_NUM_ISAS; ++i) {
    etr_isa_t isa = (etr_isa_t)i;
    if (!etr_isa_available(isa)) {
      continue;
    }
    sweep_unary(isa, stride, only, low, high);
    sweep_pairs(isa, only);
    sweep_pow_scalar(isa, stride, only, low, high);
    sweep_pow_exponent(isa, stride, only, low, high);
  }
  return 0;
}

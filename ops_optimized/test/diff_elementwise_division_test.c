// SPDX-License-Identifier: Apache-2.0
//
// Differential tests of the elementwise family's rounding divisions
// against the reference kernels, on every ISA of this machine:
// div.Scalar_mode_out (None, "trunc", "floor"), the quotients that stress
// fmod, remainder and div.out_mode's modes, and all of them on integers.
// (fmod and remainder also run every pattern of
// diff_elementwise_binary_test.c.)
//
// Bounds: all exact (fmod is exact; remainder's one addition and the
// modes' float steps are the reference's own), so bit for bit.
//
// Cases: div.Scalar_mode_out per mode, dtype (Float, Half, BFloat16
// specialized; Int and Double to the reference) and tile-edge size of 16
// lanes, random and special values, with Scalars that round differently
// in float and Half (0.1), an Int Scalar, -0.0 and 0 (IEEE quotients),
// non-contiguous (reference) and in place; and quotient sweeps: 4099
// pairs self = +-e^u (u uniform over many binades) with other = +-e^v,
// which make quotients from below 1 to past 2^23 (the exact fused path,
// its one-off correction and the fmodf lanes) for every op; and the
// integer divisions of binary/integer.h; and division by one float
// (binary_kernels.h's multiply-and-correct kernel, forced on whatever the
// CPU) against the divide, bit for bit, over 2^14 significands of self for
// 29 divisors on every ISA (ops_optimized/tools/div_scalar_check runs all
// 2^23); and both AVX-512
// division tables (whole vectors, and in two halves as Intel CPUs get)
// against C's division.
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#if defined(__x86_64__)
#include <xmmintrin.h>  // _mm_getcsr, _mm_setcsr
#endif

#include "ops_optimized/binary/binary.h"
#include "ops_optimized/isa.h"
#include "ops_optimized/test/diff.h"
#include "ops_reference/support/element.h"

static uint64_t g_seed = 70000;

static const etr_scalar_type_t kFloatDtypes[] = {ETR_FLOAT, ETR_HALF,
                                                 ETR_BFLOAT16};

static etr_evalue_t *mode_arg(int mode) {
  return mode == 0   ? tt_ev_none()
         : mode == 1 ? tt_ev_string("trunc")
                     : tt_ev_string("floor");
}

static int run_scalar_mode(etr_scalar_type_t dtype, int64_t n, int mode,
                           etr_diff_layout_t layout) {
  static const double kValues[] = {0.1, -0.0, 3.0, 1e-3, -7.5, 0.0, 1e-40};
  int failures = 0;
  for (size_t v = 0; v < sizeof(kValues) / sizeof(kValues[0]); ++v) {
    etr_diff_case_t c;
    etr_diff_begin(&c, "aten::div.Scalar_mode_out", g_seed++,
                   "mode %d / %g n=%lld layout %d", mode, kValues[v],
                   (long long)n, (int)layout);
    int64_t sizes[2] = {2, n};
    etr_diff_input(&c, dtype, 2, sizes, layout,
                   v % 2 ? ETR_FILL_SPECIAL : ETR_FILL_RANDOM);
    etr_diff_arg(&c, v == 2 ? tt_ev_int(3) : tt_ev_double(kValues[v]));
    etr_diff_arg(&c, mode_arg(mode));
    etr_diff_out(&c, dtype, 1, (const int64_t[]){0}, ETR_DIFF_CONTIGUOUS,
                 2 * n + 8);
    etr_diff_return(&c, 3);
    etr_diff_tolerance_exact(&c);
    failures += etr_diff_run(&c);
  }
  // In place.
  etr_diff_case_t c;
  etr_diff_begin(&c, "aten::div.Scalar_mode_out", g_seed++,
                 "mode %d in place n=%lld", mode, (long long)n);
  etr_diff_input(&c, dtype, 1, &n, ETR_DIFF_CONTIGUOUS, ETR_FILL_SPECIAL);
  etr_diff_arg(&c, tt_ev_double(-0.3));
  etr_diff_arg(&c, mode_arg(mode));
  etr_diff_out_aliasing(&c, 0);
  etr_diff_return(&c, 3);
  etr_diff_tolerance_exact(&c);
  failures += etr_diff_run(&c);
  return failures;
}

TT_TEST(diff_elementwise_division, div_scalar_mode) {
  uint64_t before = etr_diff_stats()->specialized;
  int64_t sizes[16];
  size_t count = etr_diff_edge_sizes(16, sizes);
  int failures = 0;
  for (int mode = 0; mode < 3; ++mode) {
    for (size_t d = 0; d < 3; ++d) {
      for (size_t s = 0; s < count; ++s) {
        failures += run_scalar_mode(kFloatDtypes[d], sizes[s], mode,
                                    ETR_DIFF_CONTIGUOUS);
      }
      failures += run_scalar_mode(kFloatDtypes[d], 33, mode,
                                  ETR_DIFF_NONCONTIGUOUS);
    }
    failures += run_scalar_mode(ETR_INT, 17, mode, ETR_DIFF_CONTIGUOUS);
    failures += run_scalar_mode(ETR_DOUBLE, 17, mode, ETR_DIFF_CONTIGUOUS);
  }
  cr_assert_eq(failures, 0, "%d cases disagree", failures);
  cr_assert_gt(etr_diff_stats()->specialized, before);
}

// self = +-e^u, other = +-e^v over `dtype`'s range.
static void fill_wide(etr_diff_case_t *c, etr_tensor_t *t, double low,
                      double high) {
  size_t size = etr_scalar_type_size(t->dtype);
  int64_t n = etr_tensor_numel(t);
  for (int64_t i = 0; i < n; ++i) {
    double u = (double)(etr_diff_next(c) >> 11) / 9007199254740992.0;
    double value = exp(low + (high - low) * u);
    if (etr_diff_next(c) & 1) {
      value = -value;
    }
    etr_store_double(t->dtype, (uint8_t *)t->data + (size_t)i * size, value);
  }
}

TT_TEST(diff_elementwise_division, quotients) {
  static const char *const kOps[] = {"aten::fmod.Tensor_out",
                                     "aten::remainder.Tensor_out",
                                     "aten::div.out_mode",
                                     "aten::div.out_mode"};
  uint64_t before = etr_diff_stats()->specialized;
  int failures = 0;
  for (size_t op = 0; op < 4; ++op) {
    for (size_t d = 0; d < 3; ++d) {
      // Float reaches past 2^23 within its range; Half's range is small.
      double span = kFloatDtypes[d] == ETR_HALF ? 10.0 : 40.0;
      for (int scale = 0; scale < 2; ++scale) {
        etr_diff_case_t c;
        etr_diff_begin(&c, kOps[op], g_seed++, "quotients %zu scale %d", op,
                       scale);
        int64_t n = 4099;
        etr_tensor_t *a = etr_diff_input(&c, kFloatDtypes[d], 1, &n,
                                         ETR_DIFF_CONTIGUOUS, ETR_FILL_ZERO);
        etr_tensor_t *b = etr_diff_input(&c, kFloatDtypes[d], 1, &n,
                                         ETR_DIFF_CONTIGUOUS, ETR_FILL_ZERO);
        fill_wide(&c, a, scale ? -span : -2.0, span);
        fill_wide(&c, b, -2.0, scale ? span : 3.0);
        if (op >= 2) {
          etr_diff_arg(&c, tt_ev_string(op == 2 ? "trunc" : "floor"));
        }
        size_t out_index = c.num_args;
        etr_diff_out(&c, kFloatDtypes[d], 1, (const int64_t[]){0},
                     ETR_DIFF_CONTIGUOUS, n + 8);
        etr_diff_return(&c, out_index);
        etr_diff_tolerance_exact(&c);
        failures += etr_diff_run(&c);
      }
    }
  }
  cr_assert_eq(failures, 0, "%d cases disagree", failures);
  cr_assert_gt(etr_diff_stats()->specialized, before);
}

// ---------------------------------------------------------------------------
// Integer divisions (binary/integer.h): every op on uint8 and int8..int64
// with divisors made non-zero (zeros become -1 or 3, so x / -1 and
// INT_MIN / -1 are reached with the special values' extremes), in the
// patterns plan.h takes; then zero divisors (the reference's error on
// both sides, also for empty results at n = 0, where remainder raises and
// fmod does not) and mixed dtypes (reference).

static const etr_scalar_type_t kIntDtypes[] = {ETR_BYTE, ETR_CHAR, ETR_SHORT,
                                               ETR_INT, ETR_LONG};

static void make_nonzero(etr_tensor_t *t) {
  size_t size = etr_scalar_type_size(t->dtype);
  int64_t n = etr_tensor_numel(t);
  for (int64_t i = 0; i < n; ++i) {
    uint8_t *p = (uint8_t *)t->data + (size_t)i * size;
    if (etr_load_int64(t->dtype, p) == 0) {
      etr_store_int64(t->dtype, p, i % 2 ? -1 : 3);
    }
  }
}

// When set, finish_int gives an out of exactly [g_exact_n] (the Scalar
// cases' result shape) instead of one the kernel resizes: the only outs
// remainder.Scalar_out's dense Long path takes.
static bool g_exact_int_out = false;
static int64_t g_exact_n = 0;

// The op's trailing arguments: div.out_mode's mode; then out and return.
static int finish_int(etr_diff_case_t *c, const char *mode,
                      etr_scalar_type_t dtype, int64_t numel) {
  if (mode != NULL) {
    etr_diff_arg(c, tt_ev_string(mode));
  }
  size_t out_index = c->num_args;
  if (g_exact_int_out) {
    etr_diff_out(c, dtype, 1, &g_exact_n, ETR_DIFF_CONTIGUOUS, 0);
  } else {
    etr_diff_out(c, dtype, 1, (const int64_t[]){0}, ETR_DIFF_CONTIGUOUS,
                 numel + 8);
  }
  etr_diff_return(c, out_index);
  etr_diff_tolerance_exact(c);
  return etr_diff_run(c);
}

static int run_int_tensors(const char *op, const char *mode,
                           etr_scalar_type_t dtype, int64_t n) {
  int failures = 0;
  int64_t rows[2] = {3, n};
  // (self, other) shapes: same, [3,n] op [n], [n] op [3,n], x op 0-dim.
  const int64_t *shapes[4][2] = {
      {rows, rows}, {rows, &rows[1]}, {&rows[1], rows}, {rows, NULL}};
  const int32_t dims[4][2] = {{2, 2}, {2, 1}, {1, 2}, {2, 0}};
  for (int p = 0; p < 4; ++p) {
    for (int zeros = 0; zeros < 2; ++zeros) {
      etr_diff_case_t c;
      etr_diff_begin(&c, op, g_seed++, "%s pattern %d n=%lld%s",
                     mode != NULL ? mode : "", p, (long long)n,
                     zeros ? " zero divisors" : "");
      etr_diff_input(&c, dtype, dims[p][0], shapes[p][0],
                     ETR_DIFF_CONTIGUOUS, ETR_FILL_SPECIAL);
      etr_tensor_t *b = etr_diff_input(&c, dtype, dims[p][1], shapes[p][1],
                                       ETR_DIFF_CONTIGUOUS,
                                       ETR_FILL_SPECIAL);
      if (!zeros) {
        make_nonzero(b);
      } else if (etr_tensor_numel(b) > 0) {
        memset(b->data, 0, etr_scalar_type_size(dtype));
      }
      failures += finish_int(&c, mode, dtype, 3 * n);
    }
  }
  return failures;
}

static int run_int_scalars(const char *op, const char *mode,
                           etr_scalar_type_t dtype, int64_t n) {
  int failures = 0;
  for (int v = 0; v < 6; ++v) {
    etr_diff_case_t c;
    etr_diff_begin(&c, op, g_seed++, "%s Scalar %d n=%lld",
                   mode != NULL ? mode : "", v, (long long)n);
    etr_diff_input(&c, dtype, 1, &n, ETR_DIFF_CONTIGUOUS, ETR_FILL_SPECIAL);
    etr_diff_arg(&c, v == 0   ? tt_ev_int(-3)
                     : v == 1 ? tt_ev_int(7)
                     : v == 2 ? tt_ev_int(1000)  // wraps for 8 bits
                     : v == 3 ? tt_ev_int(-1)
                     : v == 4 ? tt_ev_int(256)   // 0 in 8 bits: an error
                              : tt_ev_bool(true));
    failures += finish_int(&c, mode, dtype, n);
  }
  return failures;
}

TT_TEST(diff_elementwise_division, integers) {
  static const struct {
    const char *tensor_op;
    const char *scalar_op;
    const char *mode;
  } kIntOps[] = {
      {"aten::fmod.Tensor_out", "aten::fmod.Scalar_out", NULL},
      {"aten::remainder.Tensor_out", "aten::remainder.Scalar_out", NULL},
      {"aten::div.out_mode", "aten::div.Scalar_mode_out", "trunc"},
      {"aten::div.out_mode", "aten::div.Scalar_mode_out", "floor"},
  };
  uint64_t before = etr_diff_stats()->specialized;
  int64_t sizes[16];
  size_t count = etr_diff_edge_sizes(16, sizes);
  int failures = 0;
  for (size_t op = 0; op < 4; ++op) {
    for (size_t d = 0; d < 5; ++d) {
      for (size_t s = 0; s < count; ++s) {
        failures += run_int_tensors(kIntOps[op].tensor_op, kIntOps[op].mode,
                                    kIntDtypes[d], sizes[s]);
        failures += run_int_scalars(kIntOps[op].scalar_op, kIntOps[op].mode,
                                    kIntDtypes[d], sizes[s]);
      }
    }
    // Mixed dtypes: the reference's.
    etr_diff_case_t c;
    etr_diff_begin(&c, kIntOps[op].tensor_op, g_seed++, "Int op Long");
    int64_t n = 33;
    etr_diff_input(&c, ETR_INT, 1, &n, ETR_DIFF_CONTIGUOUS, ETR_FILL_RANDOM);
    make_nonzero(etr_diff_input(&c, ETR_LONG, 1, &n, ETR_DIFF_CONTIGUOUS,
                                ETR_FILL_RANDOM));
    failures += finish_int(&c, kIntOps[op].mode, ETR_LONG, n);
  }
  // The Scalar cases again with outs of the exact shape (Long remainder's
  // dense path; the others general), and in place.
  g_exact_int_out = true;
  for (size_t op = 0; op < 4; ++op) {
    for (size_t d = 3; d < 5; ++d) {
      for (size_t s = 0; s < count; ++s) {
        g_exact_n = sizes[s];
        failures += run_int_scalars(kIntOps[op].scalar_op, kIntOps[op].mode,
                                    kIntDtypes[d], sizes[s]);
      }
    }
  }
  g_exact_int_out = false;
  for (int64_t divisor = -3; divisor <= 3; divisor += 2) {
    int64_t n = 17;
    etr_diff_case_t c;
    etr_diff_begin(&c, "aten::remainder.Scalar_out", g_seed++,
                   "Long in place %% %lld", (long long)divisor);
    etr_diff_input(&c, ETR_LONG, 1, &n, ETR_DIFF_CONTIGUOUS,
                   ETR_FILL_SPECIAL);
    etr_diff_arg(&c, tt_ev_int(divisor));
    size_t out_index = c.num_args;
    etr_diff_out_aliasing(&c, 0);
    etr_diff_return(&c, out_index);
    etr_diff_tolerance_exact(&c);
    failures += etr_diff_run(&c);
  }
  cr_assert_eq(failures, 0, "%d cases disagree", failures);
  cr_assert_gt(etr_diff_stats()->specialized, before);
}

// The vs kernel of div on every ISA (and the AVX-512 vector-by-vector
// division with Newton steps, b in every lane), bit for bit against the
// divide: 2^14
// significands of self spread over [1, 2), at exponents putting the
// quotient near 2^-70, 1 and 2^70 (the kernel's range ends: the vectors
// astride them take the divide), both signs, for divisors of special
// significands (1, 1 + ulp, all ones, 3, 10, ...) and seeded random ones
// with |b| in [2^-30, 2^30]; and divisors outside that range (the plain
// divide). On x86 the sweep runs again with denormals flushed (MXCSR FTZ
// and DAZ), against the divide in that mode.
static int div_by_one_float_sweep(void);

TT_TEST(diff_elementwise_division, div_by_one_float_bitwise) {
  int failures = div_by_one_float_sweep();
  cr_assert_eq(failures, 0, "%d quotients differ from the divide", failures);
#if defined(__x86_64__)
  const unsigned int mxcsr = _mm_getcsr();
  _mm_setcsr(mxcsr | 0x8040u);  // FTZ (bit 15) and DAZ (bit 6)
  failures = div_by_one_float_sweep();
  _mm_setcsr(mxcsr);
  cr_assert_eq(failures, 0,
               "%d quotients differ from the divide with FTZ and DAZ set",
               failures);
#endif
}

// Quotients y[i] of a[i] / b against C's division; failures logged.
static int check_quotients(const char *label, const float *a, float b,
                           const float *y, uint32_t n, int failures) {
  for (uint32_t i = 0; i < n; ++i) {
    float want = a[i] / b;
    if (memcmp(&want, &y[i], sizeof(float)) != 0 &&
        !(isnan(want) && isnan(y[i]))) {
      if (++failures <= 5) {
        cr_log_error("%s: %a / %a = %a, kernel %a", label, (double)a[i],
                     (double)b, (double)want, (double)y[i]);
      }
    }
  }
  return failures;
}

static int div_by_one_float_sweep(void) {
  enum { kCount = 1 << 14 };
  static float a[kCount + 16];
  static float b_lanes[kCount + 16];
  static float y[kCount];
  enum { kDivisors = 29 };
  float divisors[kDivisors];
  size_t count = 0;
  static const float kSpecial[] = {1.0f,  -(1.0f + 0x1p-23f),
                                   2.0f - 0x1p-23f, -1.5f, 3.0f, -5.0f,
                                   7.0f,  10.0f, -3.14159265f, 0x1p-30f,
                                   0x1p30f, 0x1.8p31f, 0x1p-40f, 0.0f};
  for (size_t i = 0; i < sizeof(kSpecial) / sizeof(kSpecial[0]); ++i) {
    divisors[count++] = kSpecial[i];
  }
  uint64_t state = g_seed++;
  // exponent in [-30, 29], random significand, sign
  while (count < kDivisors) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    uint32_t r = (uint32_t)(state >> 32);
    uint32_t bits = (r & 0x807fffffu) |
                    ((uint32_t)(127 - 30 + (int)((r >> 8) % 60)) << 23);
    memcpy(&divisors[count++], &bits, sizeof(float));
  }
  int failures = 0;
  for (size_t d = 0; d < count; ++d) {
    const float b = divisors[d];
    const int b_exponent = b == 0.0f ? 0 : ilogbf(b);
    static const int kQuotientExponents[] = {-70, -69, -1, 0, 1, 69};
    for (size_t e = 0; e < 6; ++e) {
      for (int sign = 0; sign < 2; ++sign) {
        for (uint32_t i = 0; i < kCount + 16; ++i) {
          uint32_t bits = 0x3f800000u | ((i % kCount) << 9);
          float m;
          memcpy(&m, &bits, sizeof(m));
          a[i] = ldexpf(sign ? -m : m, kQuotientExponents[e] + b_exponent);
          b_lanes[i] = b;
        }
        for (int isa = 0; isa < ETR_NUM_ISAS; ++isa) {
          if (!etr_isa_available((etr_isa_t)isa)) {
            continue;
          }
          // Both divisions whatever this CPU takes (etr_isa_slow_divide).
          for (int slow = 0; slow < 2; ++slow) {
            etr_isa_force_slow_divide(slow);
            etr_f32_binary_for((etr_isa_t)isa)->vs[ETR_BINARY_DIV](
                kCount, a, b, y, &(etr_binary_params_t){0});
            failures = check_quotients(etr_isa_name((etr_isa_t)isa), a, b,
                                       y, kCount, failures);
          }
          etr_isa_force_slow_divide(-1);
        }
#if defined(__x86_64__)
        // The split-divide table's vector-by-vector division takes every
        // other vector by Newton steps: b in every lane, at offsets 0 and
        // 16 so each quotient goes through both halves of a pair.
        if (etr_isa_available(ETR_ISA_AVX512)) {
          for (uint32_t offset = 0; offset <= 16; offset += 16) {
            etr_f32_binary_avx512_split_divide.vv[ETR_BINARY_DIV](
                kCount, a + offset, b_lanes + offset, y,
                &(etr_binary_params_t){0});
            failures = check_quotients("avx512 split vv", a + offset, b, y,
                                       kCount, failures);
          }
        }
#endif
      }
    }
  }
  return failures;
}

// Both AVX-512 division tables (binary.h: etr_f32_binary_avx512 and the
// split-divide one that Intel CPUs get; the op-level tests above run only
// the one this CPU selects), vector by vector and a value by a vector,
// bit for bit against C's division: lengths across the 16-lane and
// 32-lane loop edges and past the unrolled pairs, random magnitudes over
// many binades with special values (zeros of both signs, infinities,
// NaN, subnormals, extremes) mixed in, y separate and y aliasing b.
TT_TEST(diff_elementwise_division, avx512_divide_tables_bitwise) {
#if defined(__x86_64__)
  if (!etr_isa_available(ETR_ISA_AVX512)) {
    return;
  }
  static const float kSpecial[] = {0.0f,     -0.0f,      INFINITY,
                                   -INFINITY, NAN,       0x1p-149f,
                                   -0x1p-140f, 0x1.fffffep127f,
                                   1.0f,     -3.0f,      0x1p-126f};
  enum { kMax = 4099 };
  static float a[kMax];
  static float b[kMax];
  static float y[kMax];
  static float want[kMax];
  const etr_f32_binary_kernels_t *tables[] = {
      &etr_f32_binary_avx512, &etr_f32_binary_avx512_split_divide};
  static const size_t kLengths[] = {0,  1,  7,  15, 16, 17, 31, 32, 33,
                                    47, 48, 63, 64, 65, 100, kMax};
  uint64_t state = g_seed++;
  int failures = 0;
  for (size_t l = 0; l < sizeof(kLengths) / sizeof(kLengths[0]); ++l) {
    const size_t n = kLengths[l];
    for (size_t i = 0; i < n; ++i) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      uint32_t r = (uint32_t)(state >> 32);
      a[i] = ldexpf((r & 1u) ? -1.0f - (float)(r >> 9) * 0x1p-23f
                             : 1.0f + (float)(r >> 9) * 0x1p-23f,
                    (int)((r >> 1) % 120) - 60);
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      r = (uint32_t)(state >> 32);
      b[i] = ldexpf((r & 1u) ? -1.0f - (float)(r >> 9) * 0x1p-23f
                             : 1.0f + (float)(r >> 9) * 0x1p-23f,
                    (int)((r >> 1) % 120) - 60);
      if (r % 7 == 0) {
        b[i] = kSpecial[(r >> 3) % (sizeof(kSpecial) / sizeof(kSpecial[0]))];
      }
      if (r % 11 == 0) {
        a[i] = kSpecial[(r >> 5) % (sizeof(kSpecial) / sizeof(kSpecial[0]))];
      }
    }
    const float scalar = n > 0 ? a[n / 2] : 2.5f;
    for (size_t t = 0; t < 2; ++t) {
      for (int shape = 0; shape < 3; ++shape) {  // vv, sv, vv with y = b
        for (size_t i = 0; i < n; ++i) {
          want[i] = (shape == 1 ? scalar : a[i]) / b[i];
          y[i] = b[i];
        }
        etr_binary_params_t params = {.alpha = 0.0};
        if (shape == 0) {
          tables[t]->vv[ETR_BINARY_DIV](n, a, b, y, &params);
        } else if (shape == 1) {
          tables[t]->sv[ETR_BINARY_DIV](n, scalar, b, y, &params);
        } else {
          tables[t]->vv[ETR_BINARY_DIV](n, a, y, y, &params);
        }
        for (size_t i = 0; i < n; ++i) {
          if (memcmp(&want[i], &y[i], sizeof(float)) != 0 &&
              !(isnan(want[i]) && isnan(y[i]))) {
            if (++failures <= 5) {
              cr_log_error("table %zu shape %d n %zu [%zu]: %a / %a = %a, "
                           "kernel %a (seed %llu)",
                           t, shape, n, i,
                           (double)(shape == 1 ? scalar : a[i]),
                           (double)b[i], (double)want[i], (double)y[i],
                           (unsigned long long)g_seed - 1);
            }
          }
        }
      }
    }
  }
  cr_assert_eq(failures, 0, "%d quotients differ from C's division",
               failures);
#endif
}

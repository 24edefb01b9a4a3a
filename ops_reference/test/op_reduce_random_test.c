// SPDX-License-Identifier: Apache-2.0
//
// The random kernels of the reduce family: aten::rand.out, randn.out,
// randperm.out and native_dropout.out in training. Their values come from
// etref's seeded SplitMix64 stream (support/reduce_random.h), not
// PyTorch's, so these tests pin the documented stream-to-value mapping,
// check determinism (same seed, same values; a continuing stream; dry runs
// and NULL states) and check distributions on large samples with bounds of
// at least six standard deviations (so a correct kernel fails with
// probability well under 1e-8 per check, and these are deterministic
// anyway: fixed seeds).
#include <math.h>
#include <string.h>

#include "ops_reference/support/element.h"
#include "ops_reference/test/test_util.h"

// SplitMix64 written out again, independently of the kernel's support
// code, as the documented reference for the stream.
// pi (M_PI is not part of C11).
#define M_PI_VALUE 3.14159265358979323846

static uint64_t splitmix64(uint64_t *state) {
  uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));
  z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
  return z ^ (z >> 31);
}

// Calls `op` with ctx->rng_state = state (NULL allowed) and dry_run.
static etr_error_t call_rng(const char *op, etr_evalue_t **args, size_t n,
                            uint64_t *state, bool dry_run) {
  etr_diag_t diag;
  etr_diag_reset(&diag);
  etr_kernel_context_t ctx;
  memset(&ctx, 0, sizeof(ctx));
  ctx.diag = &diag;
  ctx.op_name = op;
  ctx.rng_state = state;
  ctx.dry_run = dry_run;
  etr_kernel_fn fn = tt_find_kernel(op);
  cr_assert_not_null(fn, "%s is not registered", op);
  etr_error_t status = fn(&ctx, args, n);
  if (status != ETR_OK) {
    cr_log_info("%s -> %s: %s", op, etr_error_name(status), diag.message);
  }
  return status;
}

// rand.out / randn.out of `count` elements into a fresh out of `dtype`.
static etr_tensor_t *draw(const char *op, etr_scalar_type_t dtype,
                          int64_t count, uint64_t *state) {
  etr_tensor_t *out = tt_out(dtype, 1, &count, 0);
  etr_evalue_t *args[3] = {tt_ev_int_list(1, &count), tt_ev_tensor(out),
                           tt_ev_tensor(out)};
  cr_assert_eq(call_rng(op, args, 3, state, false), ETR_OK);
  return out;
}

static etr_tensor_t *randperm(etr_scalar_type_t dtype, int64_t n,
                              uint64_t *state) {
  etr_tensor_t *out = tt_out(dtype, 1, &n, 0);
  etr_evalue_t *args[3] = {tt_ev_int(n), tt_ev_tensor(out),
                           tt_ev_tensor(out)};
  cr_assert_eq(call_rng("aten::randperm.out", args, 3, state, false), ETR_OK);
  return out;
}

static void moments(const etr_tensor_t *t, bool imag, double *mean,
                    double *variance) {
  int64_t n = t->sizes[0];
  double sum = 0.0;
  double squares = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    double v = imag ? tt_get_imag(t, i) : tt_get(t, i);
    sum += v;
    squares += v * v;
  }
  *mean = sum / (double)n;
  *variance = squares / (double)n - *mean * *mean;
}

TT_TEST(rand, documented_stream) {
  // Double: element k is the top 53 bits of the k-th output times 2^-53;
  // Float keeps 24 bits, Half 11, BFloat16 8.
  static const etr_scalar_type_t kTypes[] = {ETR_DOUBLE, ETR_FLOAT, ETR_HALF,
                                             ETR_BFLOAT16};
  static const int kBits[] = {53, 24, 11, 8};
  for (size_t t = 0; t < 4; ++t) {
    uint64_t state = 12345;
    etr_tensor_t *out = draw("aten::rand.out", kTypes[t], 64, &state);
    uint64_t reference = 12345;
    for (int64_t i = 0; i < 64; ++i) {
      uint64_t bits = splitmix64(&reference) >> (64 - kBits[t]);
      cr_expect_eq(tt_get(out, i), ldexp((double)bits, -kBits[t]),
                   "%s element %lld", etr_scalar_type_name(kTypes[t]),
                   (long long)i);
    }
    cr_expect_eq(state, reference, "one draw per element");
  }
  // The first SplitMix64 output for seed 0 is 0xe220a8397b1dcdaf.
  uint64_t zero = 0;
  etr_tensor_t *first = draw("aten::rand.out", ETR_DOUBLE, 1, &zero);
  cr_expect_eq(tt_get(first, 0),
               ldexp((double)(UINT64_C(0xe220a8397b1dcdaf) >> 11), -53));
  // Complex: real part, then imaginary part.
  uint64_t state = 7;
  etr_tensor_t *complex = draw("aten::rand.out", ETR_COMPLEX_DOUBLE, 3, &state);
  uint64_t reference = 7;
  for (int64_t i = 0; i < 3; ++i) {
    double real = ldexp((double)(splitmix64(&reference) >> 11), -53);
    double imag = ldexp((double)(splitmix64(&reference) >> 11), -53);
    cr_expect_eq(tt_get(complex, i), real);
    cr_expect_eq(tt_get_imag(complex, i), imag);
  }
}

TT_TEST(rand, determinism_and_state) {
  uint64_t a = 99;
  uint64_t b = 99;
  etr_tensor_t *first = draw("aten::rand.out", ETR_FLOAT, 100, &a);
  etr_tensor_t *same = draw("aten::rand.out", ETR_FLOAT, 100, &b);
  etr_tensor_t *next = draw("aten::rand.out", ETR_FLOAT, 100, &a);
  int differing = 0;
  for (int64_t i = 0; i < 100; ++i) {
    cr_expect_eq(tt_get(first, i), tt_get(same, i));
    differing += tt_get(first, i) != tt_get(next, i);
  }
  cr_expect_gt(differing, 90, "a continuing stream gives new values");
  // A dry run resizes but draws nothing.
  uint64_t state = 5;
  int64_t sizes[2] = {3, 4};
  etr_tensor_t *out = tt_out(ETR_FLOAT, TT_SIZES(1), 16);
  out->shape_dynamism = ETR_SHAPE_DYNAMIC_BOUND;
  etr_evalue_t *args[3] = {tt_ev_int_list(2, sizes), tt_ev_tensor(out),
                           tt_ev_tensor(out)};
  void *data = out->data;
  out->data = NULL;
  cr_expect_eq(call_rng("aten::rand.out", args, 3, &state, true), ETR_OK);
  out->data = data;
  cr_expect_eq(state, 5u);
  tt_expect_shape(out, 2, sizes);
  // Without a state every call starts again from the default seed 0.
  uint64_t zero = 0;
  etr_tensor_t *seeded = draw("aten::rand.out", ETR_DOUBLE, 8, &zero);
  etr_tensor_t *unseeded1 = draw("aten::rand.out", ETR_DOUBLE, 8, NULL);
  etr_tensor_t *unseeded2 = draw("aten::rand.out", ETR_DOUBLE, 8, NULL);
  for (int64_t i = 0; i < 8; ++i) {
    cr_expect_eq(tt_get(unseeded1, i), tt_get(seeded, i));
    cr_expect_eq(tt_get(unseeded2, i), tt_get(seeded, i));
  }
}

TT_TEST(rand, uniform_statistics) {
  static const etr_scalar_type_t kTypes[] = {ETR_FLOAT, ETR_DOUBLE, ETR_HALF,
                                             ETR_BFLOAT16};
  const int64_t n = 200000;
  for (size_t t = 0; t < 4; ++t) {
    uint64_t state = 2024 + t;
    etr_tensor_t *out = draw("aten::rand.out", kTypes[t], n, &state);
    int64_t bins[16] = {0};
    for (int64_t i = 0; i < n; ++i) {
      double v = tt_get(out, i);
      cr_assert(v >= 0.0 && v < 1.0, "%s value %g outside [0, 1)",
                etr_scalar_type_name(kTypes[t]), v);
      bins[(int)(v * 16)]++;
    }
    double mean = 0.0;
    double variance = 0.0;
    moments(out, false, &mean, &variance);
    // sd(mean) = 0.289 / sqrt(n) = 6.5e-4; BFloat16's 8 bits shift the
    // mean by -2^-9 and the variance a little, inside these bounds.
    cr_expect(fabs(mean - 0.5) < 0.006, "%s mean %g",
              etr_scalar_type_name(kTypes[t]), mean);
    cr_expect(fabs(variance - 1.0 / 12.0) < 0.003, "%s variance %g",
              etr_scalar_type_name(kTypes[t]), variance);
    for (int b = 0; b < 16; ++b) {
      // Expected 12500 per bin, sd 108.
      cr_expect(labs((long)bins[b] - 12500) < 700, "%s bin %d holds %lld",
                etr_scalar_type_name(kTypes[t]), b, (long long)bins[b]);
    }
  }
  uint64_t state = 3;
  etr_tensor_t *complex = draw("aten::rand.out", ETR_COMPLEX_FLOAT, n, &state);
  for (int part = 0; part < 2; ++part) {
    double mean = 0.0;
    double variance = 0.0;
    moments(complex, part == 1, &mean, &variance);
    cr_expect(fabs(mean - 0.5) < 0.006, "complex part %d mean %g", part,
              mean);
    cr_expect(fabs(variance - 1.0 / 12.0) < 0.003);
  }
}

TT_TEST(randn, normal_statistics) {
  const int64_t n = 200000;
  static const etr_scalar_type_t kTypes[] = {ETR_DOUBLE, ETR_FLOAT, ETR_HALF,
                                             ETR_BFLOAT16};
  for (size_t t = 0; t < 4; ++t) {
    uint64_t state = 77 + t;
    etr_tensor_t *out = draw("aten::randn.out", kTypes[t], n, &state);
    // The polar method's attempts: two draws each, about 4/pi attempts a
    // pair (n / 2 pairs), so about 1.27 draws an element.
    // (The state moves by the odd gamma per draw: times its inverse mod
    // 2^64, by Newton's iteration, the move is the count.)
    uint64_t gamma = UINT64_C(0x9e3779b97f4a7c15);
    uint64_t inverse = gamma;
    for (int step = 0; step < 6; ++step) {
      inverse *= 2 - gamma * inverse;
    }
    uint64_t draws = (state - (77 + t)) * inverse;
    cr_expect(draws % 2 == 0 && draws >= (uint64_t)n &&
                  fabs((double)draws / (double)n - 4.0 / M_PI_VALUE) < 0.01,
              "%llu draws for %lld elements", (unsigned long long)draws,
              (long long)n);
    double mean = 0.0;
    double variance = 0.0;
    moments(out, false, &mean, &variance);
    int64_t within_one = 0;
    int64_t positive = 0;
    for (int64_t i = 0; i < n; ++i) {
      double v = tt_get(out, i);
      cr_assert(isfinite(v));
      within_one += fabs(v) < 1.0;
      positive += v > 0.0;
    }
    const char *name = etr_scalar_type_name(kTypes[t]);
    // sd(mean) = 0.0022, sd(variance) = 0.0032, sd(fractions) = 0.0011.
    cr_expect(fabs(mean) < 0.015, "%s mean %g", name, mean);
    cr_expect(fabs(variance - 1.0) < 0.03, "%s variance %g", name, variance);
    cr_expect(fabs((double)within_one / n - 0.6827) < 0.008,
              "%s P(|x| < 1) = %g", name, (double)within_one / n);
    cr_expect(fabs((double)positive / n - 0.5) < 0.008, "%s P(x > 0) = %g",
              name, (double)positive / n);
  }
  // The polar method on the documented draws, for an odd count (the last
  // element's pair loses its second value): values and final state.
  for (int64_t count = 1; count <= 41; count += 8) {
    uint64_t state = 11;
    etr_tensor_t *out = draw("aten::randn.out", ETR_DOUBLE, count, &state);
    uint64_t reference = 11;
    int rejected = 0;
    for (int64_t i = 0; i < count; i += 2) {
      double u = 0.0;
      double v = 0.0;
      double q = 0.0;
      for (;;) {
        u = ldexp((double)(splitmix64(&reference) >> 11), -52) - 1.0;
        v = ldexp((double)(splitmix64(&reference) >> 11), -52) - 1.0;
        q = u * u + v * v;
        if (q < 1.0 && q != 0.0) {
          break;
        }
        ++rejected;
      }
      double factor = sqrt(-2.0 * log(q) / q);
      cr_expect_eq(tt_get(out, i), u * factor, "element %lld of %lld",
                   (long long)i, (long long)count);
      if (i + 1 < count) {
        cr_expect_eq(tt_get(out, i + 1), v * factor, "element %lld of %lld",
                     (long long)i + 1, (long long)count);
      }
    }
    cr_expect_eq(state, reference, "%lld elements", (long long)count);
    if (count == 41) {
      cr_expect_gt(rejected, 0, "a rejected attempt among 21 pairs");
    }
  }
  // Complex: one pair an element, each part with variance 1/2.
  uint64_t state = 5;
  etr_tensor_t *complex = draw("aten::randn.out", ETR_COMPLEX_DOUBLE, n,
                               &state);
  for (int part = 0; part < 2; ++part) {
    double mean = 0.0;
    double variance = 0.0;
    moments(complex, part == 1, &mean, &variance);
    cr_expect(fabs(mean) < 0.01, "complex part %d mean %g", part, mean);
    cr_expect(fabs(variance - 0.5) < 0.015, "complex part %d variance %g",
              part, variance);
  }
}

// True when `out` holds each of `expected[0..n)` exactly once.
static void expect_permutation_of(const etr_tensor_t *out,
                                  const double *expected, int64_t n) {
  bool *seen = tt_alloc((size_t)n + 1);
  for (int64_t i = 0; i < n; ++i) {
    double v = tt_get(out, i);
    int64_t slot = -1;
    for (int64_t j = 0; j < n && slot < 0; ++j) {
      if (!seen[j] && expected[j] == v) {
        slot = j;
      }
    }
    cr_assert(slot >= 0, "value %g at %lld is not expected or repeated", v,
              (long long)i);
    seen[slot] = true;
  }
}

TT_TEST(randperm, permutations_of_every_dtype) {
  static const etr_scalar_type_t kTypes[] = {
      ETR_BYTE, ETR_CHAR, ETR_SHORT, ETR_INT, ETR_LONG,
      ETR_HALF, ETR_BFLOAT16, ETR_FLOAT, ETR_DOUBLE};
  static const int64_t kSizes[] = {256, 128, 1000, 1000, 1000,
                                   2049, 300, 1000, 1000};
  for (size_t t = 0; t < sizeof(kTypes) / sizeof(kTypes[0]); ++t) {
    uint64_t state = 31 + t;
    int64_t n = kSizes[t];
    etr_tensor_t *out = randperm(kTypes[t], n, &state);
    // 0..n-1 as the dtype holds them (BFloat16 rounds past 256, as
    // PyTorch does).
    double *expected = tt_alloc(sizeof(double) * (size_t)n);
    int64_t fixed_points = 0;
    for (int64_t i = 0; i < n; ++i) {
      expected[i] = etr_round_double(kTypes[t], (double)i);
      fixed_points += tt_get(out, i) == expected[i];
    }
    expect_permutation_of(out, expected, n);
    // A uniform permutation has about one fixed point.
    cr_expect_lt(fixed_points, 12, "%s: %lld fixed points",
                 etr_scalar_type_name(kTypes[t]), (long long)fixed_points);
  }
  // n = 0 and 1.
  uint64_t state = 1;
  etr_tensor_t *empty = randperm(ETR_LONG, 0, &state);
  cr_expect_eq(empty->sizes[0], 0);
  etr_tensor_t *one = randperm(ETR_LONG, 1, &state);
  tt_expect_values(one, TT_VALUES(0), 1);
}

TT_TEST(randperm, uniform_over_permutations) {
  // 24000 permutations of 4 from one continuing stream: each of the 24
  // should appear about 1000 times; chi-square with 23 degrees of freedom
  // stays below 60 with probability 1 - 5e-5.
  uint64_t state = 2718;
  int64_t counts[24] = {0};
  for (int trial = 0; trial < 24000; ++trial) {
    etr_tensor_t *out = randperm(ETR_LONG, 4, &state);
    // Lehmer code of the permutation.
    int64_t values[4];
    for (int i = 0; i < 4; ++i) {
      values[i] = tt_get_i64(out, i);
    }
    int code = 0;
    for (int i = 0; i < 4; ++i) {
      int smaller = 0;
      for (int j = i + 1; j < 4; ++j) {
        smaller += values[j] < values[i];
      }
      code = code * (4 - i) + smaller;
    }
    counts[code]++;
    tt_free_all();
  }
  double chi_square = 0.0;
  for (int k = 0; k < 24; ++k) {
    double d = (double)counts[k] - 1000.0;
    chi_square += d * d / 1000.0;
  }
  cr_expect_lt(chi_square, 60.0, "chi-square %g", chi_square);
}

TT_TEST(randperm, same_seed_same_permutation) {
  uint64_t a = 8;
  uint64_t b = 8;
  etr_tensor_t *first = randperm(ETR_INT, 50, &a);
  etr_tensor_t *second = randperm(ETR_INT, 50, &b);
  for (int64_t i = 0; i < 50; ++i) {
    cr_expect_eq(tt_get(first, i), tt_get(second, i));
  }
  cr_expect_eq(a, b);
  etr_tensor_t *unseeded = randperm(ETR_INT, 50, NULL);
  uint64_t zero = 0;
  etr_tensor_t *seeded = randperm(ETR_INT, 50, &zero);
  for (int64_t i = 0; i < 50; ++i) {
    cr_expect_eq(tt_get(unseeded, i), tt_get(seeded, i));
  }
}

static etr_error_t dropout(etr_tensor_t *input, double p, bool train,
                           etr_tensor_t *out, etr_tensor_t *mask,
                           uint64_t *state) {
  etr_evalue_t *args[6] = {
      tt_ev_tensor(input), tt_ev_double(p), tt_ev_bool(train),
      tt_ev_tensor(out), tt_ev_tensor(mask),
      tt_ev_tensor_list(2, (etr_tensor_t *const[]){out, mask})};
  return call_rng("aten::native_dropout.out", args, 6, state, false);
}

TT_TEST(native_dropout, training_statistics_and_scaling) {
  const int64_t n = 100000;
  static const double kP[] = {0.3, 0.5, 0.9};
  for (size_t k = 0; k < 3; ++k) {
    double p = kP[k];
    etr_tensor_t *x = tt_tensor(ETR_FLOAT, 1, &n, NULL);
    for (int64_t i = 0; i < n; ++i) {
      ((float *)x->data)[i] = (float)(i % 13) - 6.0f;
    }
    etr_tensor_t *out = tt_out(ETR_FLOAT, 1, &n, 0);
    etr_tensor_t *mask = tt_out(ETR_BOOL, 1, &n, 0);
    uint64_t state = 404 + k;
    cr_assert_eq(dropout(x, p, true, out, mask, &state), ETR_OK);
    int64_t kept = 0;
    for (int64_t i = 0; i < n; ++i) {
      bool keep = tt_get(mask, i) != 0.0;
      kept += keep;
      double expected = keep ? (double)(float)(tt_get(x, i) * (1.0 / (1.0 - p)))
                             : 0.0;
      cr_assert_eq(tt_get(out, i), expected, "p %g element %lld", p,
                   (long long)i);
    }
    // sd(kept fraction) <= 0.0016.
    double fraction = (double)kept / (double)n;
    cr_expect(fabs(fraction - (1.0 - p)) < 0.01, "p %g kept %g", p,
              fraction);
    // The mask is the documented draws: kept when u53 < 1 - p.
    uint64_t reference = 404 + k;
    for (int64_t i = 0; i < 1000; ++i) {
      double u = ldexp((double)(splitmix64(&reference) >> 11), -53);
      cr_expect_eq(tt_get(mask, i) != 0.0, u < 1.0 - p);
    }
  }
}

TT_TEST(native_dropout, determinism_eval_and_dry_run) {
  etr_tensor_t *x = tt_tensor(ETR_DOUBLE, TT_SIZES(2, 50), NULL);
  for (int64_t i = 0; i < 100; ++i) {
    ((double *)x->data)[i] = (double)i - 49.5;
  }
  etr_tensor_t *out1 = tt_out(ETR_DOUBLE, TT_SIZES(2, 50), 0);
  etr_tensor_t *mask1 = tt_out(ETR_BOOL, TT_SIZES(2, 50), 0);
  etr_tensor_t *out2 = tt_out(ETR_DOUBLE, TT_SIZES(2, 50), 0);
  etr_tensor_t *mask2 = tt_out(ETR_BOOL, TT_SIZES(2, 50), 0);
  uint64_t a = 6;
  uint64_t b = 6;
  cr_assert_eq(dropout(x, 0.5, true, out1, mask1, &a), ETR_OK);
  cr_assert_eq(dropout(tt_noncontiguous(x), 0.5, true, out2, mask2, &b),
               ETR_OK);
  for (int64_t i = 0; i < 100; ++i) {
    cr_expect_eq(tt_get(out1, i), tt_get(out2, i));
    cr_expect_eq(tt_get(mask1, i), tt_get(mask2, i));
  }
  cr_expect_eq(a, b);
  // Not training: a copy, an all-true mask, and no draw.
  uint64_t state = 6;
  cr_assert_eq(dropout(x, 0.5, false, out1, mask1, &state), ETR_OK);
  cr_expect_eq(state, 6u);
  for (int64_t i = 0; i < 100; ++i) {
    cr_expect_eq(tt_get(out1, i), tt_get(x, i));
    cr_expect_eq(tt_get(mask1, i), 1.0);
  }
  // A dry run does not draw.
  etr_evalue_t *args[6] = {
      tt_ev_tensor(x), tt_ev_double(0.5), tt_ev_bool(true),
      tt_ev_tensor(out1), tt_ev_tensor(mask1),
      tt_ev_tensor_list(2, (etr_tensor_t *const[]){out1, mask1})};
  cr_expect_eq(call_rng("aten::native_dropout.out", args, 6, &state, true),
               ETR_OK);
  cr_expect_eq(state, 6u);
}

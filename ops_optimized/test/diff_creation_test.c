// SPDX-License-Identifier: Apache-2.0
//
// Differential tests of the optimized creation kernels -- the random ones
// (rand.out, randn.out, native_dropout.out, randperm.out;
// ops_optimized/random/) and arange.start_out -- against the reference
// kernels, on every ISA this machine has. arange must match bit for bit
// (the reference's element rule). Random ops must reproduce the
// reference's seeded stream exactly, so every value and mask bit must
// match bit for bit, and so must the generator state a call leaves (the
// next random op of a method continues from it).
//
// Sweeps: sizes over the 2/4/8-lane and 256-draw block edges (0 to 1000
// elements), ranks 0 to 3, Float and Double (rand, randn), Half and
// complex (fallback); dropout p = 0, 0.1, 0.5, 1 with special values in
// the input (NaN and inf times a dropped 0 give NaN, as in the
// reference), evaluation (fallback copy); seeds 0, 42 and 2^64 - 1, and
// two calls in a row; randperm's Fisher-Yates with its rejections.
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/random/random.h"
#include "ops_optimized/test/diff.h"
#include "ops_reference/ops_reference.h"

static uint64_t g_seed = 120000;

static const int64_t kSizes[] = {0, 1, 3, 7, 8, 9, 17, 255, 256, 257, 1000};

static int run_fill(const char *op, etr_scalar_type_t dtype, int64_t n,
                    int32_t rank) {
  etr_diff_case_t c;
  etr_diff_begin(&c, op, g_seed++, "%s n %lld rank %d",
                 etr_scalar_type_name(dtype), (long long)n, (int)rank);
  int64_t sizes[3] = {n, 1, 1};
  if (rank == 3 && n % 2 == 0 && n > 0) {
    sizes[0] = 2;
    sizes[2] = n / 2;
  }
  etr_diff_arg(&c, tt_ev_int_list((size_t)rank, sizes));
  etr_diff_out(&c, dtype, 1, (const int64_t[]){0}, 0, n + 8);
  etr_diff_return(&c, 1);
  c.dtype = dtype;
  etr_diff_tolerance_exact(&c);
  return etr_diff_run(&c);
}

static int run_dropout(etr_scalar_type_t dtype, int64_t n, double p,
                       bool train) {
  etr_diff_case_t c;
  etr_diff_begin(&c, "aten::native_dropout.out", g_seed++,
                 "%s n %lld p %g%s", etr_scalar_type_name(dtype),
                 (long long)n, p, train ? "" : " eval");
  etr_diff_input(&c, dtype, 1, (const int64_t[]){n}, 0, ETR_FILL_SPECIAL);
  etr_diff_arg(&c, tt_ev_double(p));
  etr_diff_arg(&c, tt_ev_bool(train));
  etr_diff_out(&c, dtype, 1, (const int64_t[]){0}, 0, n + 8);
  etr_diff_out(&c, ETR_BOOL, 1, (const int64_t[]){0}, 0, n + 8);
  size_t outs[2] = {3, 4};
  etr_diff_out_list(&c, 2, outs);
  etr_diff_tolerance_exact(&c);
  return etr_diff_run(&c);
}

TT_TEST(diff_creation, values) {
  int failures = 0;
  static const char *const kOps[] = {"aten::rand.out", "aten::randn.out"};
  for (size_t o = 0; o < 2; ++o) {
    for (size_t k = 0; k < sizeof(kSizes) / sizeof(kSizes[0]); ++k) {
      failures += run_fill(kOps[o], ETR_FLOAT, kSizes[k], k % 2 ? 1 : 3);
      failures += run_fill(kOps[o], ETR_DOUBLE, kSizes[k], 1);
    }
    failures += run_fill(kOps[o], ETR_FLOAT, 1, 0);
    failures += run_fill(kOps[o], ETR_HALF, 9, 1);
    failures += run_fill(kOps[o], ETR_COMPLEX_FLOAT, 9, 1);
  }
  static const double kPs[] = {0.0, 0.1, 0.5, 1.0};
  for (size_t k = 0; k < sizeof(kSizes) / sizeof(kSizes[0]); ++k) {
    failures += run_dropout(ETR_FLOAT, kSizes[k], kPs[k % 4], true);
  }
  // Keep probabilities whose threshold is not a whole number of 2^-53
  // steps (the kernels compare the draws as integers), lengths around the
  // AVX2 and AVX-512 steps.
  static const double kOddPs[] = {0.3, 0.7, 1.0 / 3.0, 0.999};
  for (int64_t n = 1; n <= 17; n += 4) {
    for (size_t k = 0; k < 4; ++k) {
      failures += run_dropout(ETR_FLOAT, n + (int64_t)k, kOddPs[k], true);
    }
  }
  failures += run_dropout(ETR_FLOAT, 9, 0.5, false);
  failures += run_dropout(ETR_DOUBLE, 9, 0.5, true);
  failures += run_dropout(ETR_FLOAT, 9, 1.5, true);
  cr_assert_eq(failures, 0, "%d random cases disagree", failures);
  cr_assert_gt(etr_diff_stats()->specialized, 0);
}

// etr_random_keep_threshold (random.h): for keep probabilities across
// [0, 1], a 53-bit draw k is below the threshold exactly when k 2^-53 <
// keep, the reference's comparison, at the threshold and around it; and
// the ISAs' dropout kernels on such draws.
TT_TEST(diff_creation, dropout_threshold) {
  static const double kKeeps[] = {0.0, 1.0, 0.5, 0.9, 0.7, 1.0 / 3.0,
                                  0x1p-53, 1.0 - 0x1p-53, 0.1, 0.999};
  for (size_t i = 0; i < sizeof(kKeeps) / sizeof(kKeeps[0]); ++i) {
    const double keep = kKeeps[i];
    const uint64_t t = etr_random_keep_threshold(keep);
    for (int64_t d = -2; d <= 2; ++d) {
      if ((int64_t)t + d < 0 || (uint64_t)((int64_t)t + d) >= (1ull << 53)) {
        continue;
      }
      const uint64_t k = (uint64_t)((int64_t)t + d);
      cr_assert_eq(k < t, (double)k * 0x1p-53 < keep,
                   "keep %a: k = threshold %+lld", keep, (long long)d);
    }
  }
  // Each ISA's dropout kernel on draws at and around the threshold (the
  // random cases above rarely come near it), 1..19 elements: the
  // reference's formula bit for bit, mask bytes exactly 0 or 1.
  for (int isa = 0; isa < ETR_NUM_ISAS; ++isa) {
    const etr_random_kernels_t *k = etr_random_kernels_for((etr_isa_t)isa);
    if (!etr_isa_available((etr_isa_t)isa) || k->dropout == NULL) {
      continue;
    }
    for (size_t i = 0; i < sizeof(kKeeps) / sizeof(kKeeps[0]); ++i) {
      const double keep = kKeeps[i];
      const double scale = keep == 0.0 ? 0.0 : 1.0 / keep;
      const uint64_t t = etr_random_keep_threshold(keep);
      for (size_t n = 1; n <= 19; ++n) {
        uint64_t draws[19];
        float x[19];
        float y[19];
        uint8_t m[20];
        for (size_t j = 0; j < n; ++j) {
          int64_t k53 = (int64_t)t + (int64_t)(j % 5) - 2;
          k53 = k53 < 0 ? 0 : k53 >= (1ll << 53) ? (1ll << 53) - 1 : k53;
          draws[j] = ((uint64_t)k53 << 11) | (uint64_t)(j * 37 % 2048);
          x[j] = (float)j * 0.37f - 2.0f;
        }
        m[n] = 0xa5;  // past the end: untouched
        k->dropout(draws, n, t, scale, x, y, m);
        for (size_t j = 0; j < n; ++j) {
          const bool kept = (double)(draws[j] >> 11) * 0x1p-53 < keep;
          const float want = (float)((double)x[j] * (kept ? 1.0 : 0.0) *
                                     scale);
          cr_assert(memcmp(&want, &y[j], sizeof(float)) == 0 &&
                        m[j] == (kept ? 1 : 0),
                    "%s keep %a n %zu: element %zu", etr_isa_name(
                        (etr_isa_t)isa), keep, n, j);
        }
        cr_assert_eq(m[n], 0xa5, "%s: wrote past the mask",
                     etr_isa_name((etr_isa_t)isa));
      }
    }
  }
}

static etr_kernel_fn find(const etr_kernel_registration_t *table,
                          size_t count, const char *name) {
  for (size_t i = 0; i < count; ++i) {
    if (strcmp(table[i].name, name) == 0) {
      return table[i].fn;
    }
  }
  return NULL;
}

// Two calls in a row from `seed`: the values of both and the state after
// them must be the reference's, on every ISA.
TT_TEST(diff_creation, stream_state) {
  static const uint64_t kSeeds[] = {0, 42, UINT64_MAX};
  static const char *const kOps[] = {"aten::rand.out", "aten::randn.out"};
  for (size_t o = 0; o < 2; ++o) {
    etr_kernel_fn reference =
        find(etr_reference_kernels, etr_reference_kernel_count, kOps[o]);
    etr_kernel_fn optimized =
        find(etr_optimized_kernels, etr_optimized_kernel_count, kOps[o]);
    cr_assert_not_null(optimized);
    for (size_t s = 0; s < 3; ++s) {
      for (int isa = 0; isa < ETR_NUM_ISAS; ++isa) {
        if (!etr_isa_available((etr_isa_t)isa)) {
          continue;
        }
        etr_isa_force((etr_isa_t)isa);
        float values[2][2][300];
        uint64_t states[2];
        for (int k = 0; k < 2; ++k) {
          uint64_t state = kSeeds[s];
          etr_diag_t diag;
          etr_diag_reset(&diag);
          etr_kernel_context_t ctx = {.diag = &diag, .op_name = kOps[o],
                                      .rng_state = &state};
          for (int call = 0; call < 2; ++call) {
            int64_t n = call == 0 ? 300 : 37;
            etr_tensor_t *out = tt_out(ETR_FLOAT, 1, &n, 0);
            etr_evalue_t *args[3] = {tt_ev_int_list(1, &n), tt_ev_tensor(out),
                                     tt_ev_tensor(out)};
            cr_assert_eq((k == 0 ? reference : optimized)(&ctx, args, 3),
                         ETR_OK);
            memcpy(values[k][call], out->data, (size_t)n * sizeof(float));
          }
          states[k] = state;
        }
        cr_assert_eq(states[0], states[1], "%s seed %llu isa %s: state",
                     kOps[o], (unsigned long long)kSeeds[s],
                     etr_isa_name((etr_isa_t)isa));
        cr_assert_eq(memcmp(values[0][0], values[1][0], 300 * sizeof(float)),
                     0, "%s seed %llu isa %s: first call", kOps[o],
                     (unsigned long long)kSeeds[s],
                     etr_isa_name((etr_isa_t)isa));
        cr_assert_eq(memcmp(values[0][1], values[1][1], 37 * sizeof(float)),
                     0, "%s seed %llu isa %s: second call", kOps[o],
                     (unsigned long long)kSeeds[s],
                     etr_isa_name((etr_isa_t)isa));
      }
      etr_isa_reset();
    }
  }
}

// arange: Float, Double and Long outs; integer and fractional steps, up
// and down; sizes over the vector edges; an out that keeps its [2, 3]
// shape; Double Scalars into Long, Int and Half (fallback); errors (a zero
// step, a step of the wrong sign, a non-finite bound).
static int run_arange(etr_scalar_type_t dtype, etr_evalue_t *start,
                      etr_evalue_t *end, etr_evalue_t *step,
                      const int64_t *out_sizes, int32_t out_rank) {
  etr_diff_case_t c;
  etr_diff_begin(&c, "aten::arange.start_out", g_seed++, "%s",
                 etr_scalar_type_name(dtype));
  etr_diff_arg(&c, start);
  etr_diff_arg(&c, end);
  etr_diff_arg(&c, step);
  if (out_rank > 0) {
    etr_diff_out(&c, dtype, out_rank, out_sizes, 0, 0);
  } else {
    etr_diff_out(&c, dtype, 1, (const int64_t[]){0}, 0, 4096);
  }
  etr_diff_return(&c, 3);
  c.dtype = dtype;
  etr_diff_tolerance_exact(&c);
  return etr_diff_run(&c);
}

TT_TEST(diff_creation, arange) {
  int failures = 0;
  static const etr_scalar_type_t kDtypes[] = {ETR_FLOAT, ETR_DOUBLE,
                                              ETR_LONG};
  static const int64_t kEnds[] = {0, 1, 7, 8, 9, 17, 33, 1000};
  for (size_t t = 0; t < 3; ++t) {
    for (size_t e = 0; e < sizeof(kEnds) / sizeof(kEnds[0]); ++e) {
      failures += run_arange(kDtypes[t], tt_ev_int(-3), tt_ev_int(kEnds[e]),
                             tt_ev_int(1), NULL, 0);
      failures += run_arange(kDtypes[t], tt_ev_int(kEnds[e] * 3),
                             tt_ev_int(-5), tt_ev_int(-3), NULL, 0);
      failures += run_arange(kDtypes[t], tt_ev_double(0.1),
                             tt_ev_double((double)kEnds[e] * 0.7 + 0.2),
                             tt_ev_double(0.7), NULL, 0);
    }
    failures += run_arange(kDtypes[t], tt_ev_int(0), tt_ev_int(6),
                           tt_ev_int(1), (const int64_t[]){2, 3}, 2);
    failures += run_arange(kDtypes[t], tt_ev_int(0), tt_ev_int(6),
                           tt_ev_int(0), NULL, 0);
    failures += run_arange(kDtypes[t], tt_ev_int(0), tt_ev_int(6),
                           tt_ev_int(-1), NULL, 0);
    failures += run_arange(kDtypes[t], tt_ev_double(0.0),
                           tt_ev_double(INFINITY), tt_ev_double(1.0), NULL,
                           0);
  }
  failures += run_arange(ETR_INT, tt_ev_int(0), tt_ev_int(9), tt_ev_int(2),
                         NULL, 0);
  failures += run_arange(ETR_HALF, tt_ev_int(0), tt_ev_int(9), tt_ev_int(2),
                         NULL, 0);
  failures += run_arange(ETR_LONG, tt_ev_int(INT64_MAX - 10),
                         tt_ev_int(INT64_MAX), tt_ev_int(3), NULL, 0);
  cr_assert_eq(failures, 0, "%d arange cases disagree", failures);
  cr_assert_gt(etr_diff_stats()->specialized, 0);
}

// randperm: the permutation and the final generator state must be the
// reference's (Fisher-Yates on the same stream, rejections included).
// n over the 256-draw block edges; Int and Float outs (fallback); a
// negative n (refused alike).
static int run_randperm(etr_scalar_type_t dtype, int64_t n) {
  etr_diff_case_t c;
  etr_diff_begin(&c, "aten::randperm.out", g_seed++, "%s n %lld",
                 etr_scalar_type_name(dtype), (long long)n);
  etr_diff_arg(&c, tt_ev_int(n));
  etr_diff_out(&c, dtype, 1, (const int64_t[]){0}, 0, (n > 0 ? n : 0) + 8);
  etr_diff_return(&c, 1);
  c.dtype = dtype;
  etr_diff_tolerance_exact(&c);
  return etr_diff_run(&c);
}

TT_TEST(diff_creation, randperm) {
  int failures = 0;
  static const int64_t kSizes[] = {0, 1, 2, 3, 255, 256, 257, 1000};
  for (size_t k = 0; k < sizeof(kSizes) / sizeof(kSizes[0]); ++k) {
    failures += run_randperm(ETR_LONG, kSizes[k]);
  }
  failures += run_randperm(ETR_INT, 100);
  failures += run_randperm(ETR_FLOAT, 100);
  failures += run_randperm(ETR_LONG, -1);
  // The state a call leaves, on every ISA.
  etr_kernel_fn reference =
      find(etr_reference_kernels, etr_reference_kernel_count,
           "aten::randperm.out");
  etr_kernel_fn optimized =
      find(etr_optimized_kernels, etr_optimized_kernel_count,
           "aten::randperm.out");
  cr_assert_not_null(optimized);
  for (int isa = 0; isa < ETR_NUM_ISAS; ++isa) {
    if (!etr_isa_available((etr_isa_t)isa)) {
      continue;
    }
    etr_isa_force((etr_isa_t)isa);
    uint64_t states[2];
    for (int k = 0; k < 2; ++k) {
      uint64_t state = UINT64_C(0x123456789abcdef);
      etr_diag_t diag;
      etr_diag_reset(&diag);
      etr_kernel_context_t ctx = {.diag = &diag,
                                  .op_name = "aten::randperm.out",
                                  .rng_state = &state};
      int64_t n = 777;
      etr_tensor_t *out = tt_out(ETR_LONG, 1, &n, 0);
      etr_evalue_t *args[3] = {tt_ev_int(n), tt_ev_tensor(out),
                               tt_ev_tensor(out)};
      cr_assert_eq((k == 0 ? reference : optimized)(&ctx, args, 3), ETR_OK);
      states[k] = state;
    }
    cr_assert_eq(states[0], states[1], "randperm state, isa %s",
                 etr_isa_name((etr_isa_t)isa));
  }
  etr_isa_reset();
  cr_assert_eq(failures, 0, "%d randperm cases disagree", failures);
}

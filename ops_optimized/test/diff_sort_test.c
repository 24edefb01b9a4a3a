// SPDX-License-Identifier: Apache-2.0
//
// Differential tests of the optimized sort.values and topk.values kernels
// (ops_optimized/sort/) against the reference kernels, on every ISA this
// machine has. Both run the same libstdc++ algorithms, so values and
// indices must match bit for bit -- including the order of ties, of -0.0
// against 0.0 and of NaNs, which integer-valued and special data make
// frequent.
//
// Sweeps: slice lengths around the insertion-sort threshold (16, 17), the
// partial_sort / nth_element switch of topk (k * 64 <= n), long slices
// that drive introsort's partitions (1000); every dim of rank-1 to rank-3
// inputs; ascending and descending, largest and smallest, sorted and not;
// contiguous, non-contiguous and channels-last inputs; Double and Long
// (fallback); argument errors (k out of range, a bad dim).
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "ops_optimized/sort/sort.h"
#include "ops_optimized/test/diff.h"

static uint64_t g_seed = 150000;

static int run_sort(int32_t rank, const int64_t *sizes, int64_t dim,
                    bool descending, etr_scalar_type_t dtype,
                    etr_diff_layout_t layout, etr_diff_fill_t fill) {
  etr_diff_case_t c;
  etr_diff_begin(&c, "aten::sort.values", g_seed++,
                 "%s rank %d [%lld ..] dim %lld%s",
                 etr_scalar_type_name(dtype), (int)rank,
                 (long long)sizes[0], (long long)dim,
                 descending ? " descending" : "");
  etr_tensor_t *self = etr_diff_input(&c, dtype, rank, sizes, layout, fill);
  etr_diff_arg(&c, tt_ev_int(dim));
  etr_diff_arg(&c, tt_ev_bool(descending));
  int64_t capacity = etr_tensor_numel(self) + 8;
  etr_diff_out(&c, dtype, 1, (const int64_t[]){0}, 0, capacity);
  etr_diff_out(&c, ETR_LONG, 1, (const int64_t[]){0}, 0, capacity);
  size_t outs[2] = {3, 4};
  etr_diff_out_list(&c, 2, outs);
  etr_diff_tolerance_exact(&c);
  return etr_diff_run(&c);
}

// Elements of a contiguous Float input set after the fill: NaN at the
// first `nans` positions of `nan_at`, and `value` at `at` (when at >= 0).
typedef struct patch {
  const int64_t *nan_at;
  int nans;
  int64_t at;
  float value;
} patch_t;

static int run_topk_patched(int32_t rank, const int64_t *sizes, int64_t k,
                            int64_t dim, bool largest, bool sorted,
                            etr_scalar_type_t dtype, etr_diff_layout_t layout,
                            etr_diff_fill_t fill, const patch_t *patch) {
  etr_diff_case_t c;
  etr_diff_begin(&c, "aten::topk.values", g_seed++,
                 "%s rank %d [%lld ..] k %lld dim %lld%s%s%s",
                 etr_scalar_type_name(dtype), (int)rank,
                 (long long)sizes[0], (long long)k, (long long)dim,
                 largest ? " largest" : "", sorted ? " sorted" : "",
                 patch != NULL ? " patched" : "");
  etr_tensor_t *self = etr_diff_input(&c, dtype, rank, sizes, layout, fill);
  if (patch != NULL) {
    float *x = (float *)self->data;
    for (int i = 0; i < patch->nans; ++i) {
      x[patch->nan_at[i]] = NAN;
    }
    if (patch->at >= 0) {
      x[patch->at] = patch->value;
    }
  }
  etr_diff_arg(&c, tt_ev_int(k));
  etr_diff_arg(&c, tt_ev_int(dim));
  etr_diff_arg(&c, tt_ev_bool(largest));
  etr_diff_arg(&c, tt_ev_bool(sorted));
  int64_t capacity = etr_tensor_numel(self) + 8;
  etr_diff_out(&c, dtype, 1, (const int64_t[]){0}, 0, capacity);
  etr_diff_out(&c, ETR_LONG, 1, (const int64_t[]){0}, 0, capacity);
  size_t outs[2] = {5, 6};
  etr_diff_out_list(&c, 2, outs);
  etr_diff_tolerance_exact(&c);
  return etr_diff_run(&c);
}

static int run_topk(int32_t rank, const int64_t *sizes, int64_t k,
                    int64_t dim, bool largest, bool sorted,
                    etr_scalar_type_t dtype, etr_diff_layout_t layout,
                    etr_diff_fill_t fill) {
  return run_topk_patched(rank, sizes, k, dim, largest, sorted, dtype,
                          layout, fill, NULL);
}

static const int64_t kLengths[] = {1, 2, 15, 16, 17, 33, 128, 1000};
static const etr_diff_fill_t kFills[] = {ETR_FILL_EXACT_INT, ETR_FILL_SPECIAL,
                                         ETR_FILL_RANDOM};

TT_TEST(diff_sort, sort) {
  int failures = 0;
  for (size_t l = 0; l < sizeof(kLengths) / sizeof(kLengths[0]); ++l) {
    for (int descending = 0; descending < 2; ++descending) {
      for (size_t f = 0; f < 3; ++f) {
        int64_t one[1] = {kLengths[l]};
        failures += run_sort(1, one, 0, descending == 1, ETR_FLOAT, 0,
                             kFills[f]);
      }
      int64_t three[3] = {3, kLengths[l] < 100 ? kLengths[l] : 100, 4};
      for (int64_t dim = -1; dim < 3; ++dim) {
        failures += run_sort(3, three, dim, descending == 1, ETR_FLOAT,
                             (etr_diff_layout_t)((l + (size_t)dim + 1) % 2),
                             kFills[(l + (size_t)descending) % 3]);
      }
    }
  }
  int64_t image[4] = {2, 5, 3, 7};
  for (int64_t dim = 0; dim < 4; ++dim) {
    failures += run_sort(4, image, dim, dim % 2 == 1, ETR_FLOAT,
                         ETR_DIFF_CHANNELS_LAST, ETR_FILL_EXACT_INT);
  }
  int64_t two[2] = {3, 20};
  failures += run_sort(0, two, 0, false, ETR_FLOAT, 0, ETR_FILL_RANDOM);
  failures += run_sort(2, two, 1, false, ETR_DOUBLE, 0, ETR_FILL_EXACT_INT);
  failures += run_sort(2, two, 1, true, ETR_LONG, 0, ETR_FILL_RANDOM);
  failures += run_sort(2, two, 2, true, ETR_FLOAT, 0, ETR_FILL_RANDOM);
  cr_assert_eq(failures, 0, "%d sort cases disagree", failures);
  cr_assert_gt(etr_diff_stats()->specialized, 0);
}

TT_TEST(diff_sort, topk) {
  int failures = 0;
  for (size_t l = 0; l < sizeof(kLengths) / sizeof(kLengths[0]); ++l) {
    int64_t n = kLengths[l];
    // k around the partial_sort switch (n / 64) and the whole slice.
    int64_t ks[4] = {1, n / 64 > 0 ? n / 64 : 1, n / 64 + 1, n};
    for (size_t q = 0; q < 4; ++q) {
      int64_t k = ks[q] <= n ? ks[q] : n;
      for (int largest = 0; largest < 2; ++largest) {
        for (int sorted = 0; sorted < 2; ++sorted) {
          int64_t one[1] = {n};
          failures += run_topk(1, one, k, 0, largest == 1, sorted == 1,
                               ETR_FLOAT, 0,
                               kFills[(q + (size_t)sorted) % 3]);
        }
      }
      int64_t three[3] = {2, n < 200 ? n : 200, 3};
      int64_t k3 = k <= three[1] ? k : three[1];
      failures += run_topk(3, three, k3, 1, q % 2 == 0, true, ETR_FLOAT,
                           (etr_diff_layout_t)(q % 2), kFills[q % 3]);
    }
  }
  int64_t two[2] = {3, 20};
  failures += run_topk(2, two, 0, 1, true, true, ETR_FLOAT, 0,
                       ETR_FILL_RANDOM);
  failures += run_topk(2, two, 21, 1, true, true, ETR_FLOAT, 0,
                       ETR_FILL_RANDOM);
  failures += run_topk(2, two, 3, 1, true, true, ETR_DOUBLE, 0,
                       ETR_FILL_RANDOM);
  failures += run_topk(0, two, 1, 0, true, true, ETR_FLOAT, 0,
                       ETR_FILL_RANDOM);
  cr_assert_eq(failures, 0, "%d topk cases disagree", failures);
  cr_assert_gt(etr_diff_stats()->specialized, 0);
}

// topk's partial_sort path (k * 64 <= n) reads contiguous slices in
// place, a vector at a time, for elements that beat the heap's root:
// slice lengths around the 8-, 16- and 32-float steps and their tails,
// ties (small integers) and specials; roots that are NaN (largest: nothing
// enters; smallest: every number does), NaNs on vector edges, and a winner
// in the last slot.
TT_TEST(diff_sort, topk_partial_in_place) {
  static const int64_t kPartialLengths[] = {64,  65,  79,  80,  81,  95, 96,
                                            97,  127, 128, 129, 143, 160,
                                            161, 1000};
  int failures = 0;
  for (size_t l = 0; l < sizeof(kPartialLengths) / sizeof(int64_t); ++l) {
    int64_t n = kPartialLengths[l];
    for (int64_t k = 1; k <= n / 64; k += n / 64 > 1 ? n / 64 - 1 : 1) {
      for (int largest = 0; largest < 2; ++largest) {
        for (size_t f = 0; f < 3; ++f) {
          failures += run_topk(1, &n, k, 0, largest == 1, f != 1, ETR_FLOAT,
                               0, kFills[f]);
        }
      }
    }
  }
  static const int64_t kHead[] = {0, 1, 2, 3};
  static const int64_t kEdges[] = {15, 16, 31, 32, 33, 63, 64, 255};
  int64_t n = 256;
  for (int largest = 0; largest < 2; ++largest) {
    for (int64_t k = 1; k <= 4; k += 3) {
      patch_t head = {kHead, (int)k, -1, 0.0f};
      patch_t edges = {kEdges, 8, -1, 0.0f};
      patch_t last = {NULL, 0, n - 1, largest ? 1e30f : -1e30f};
      patch_t both = {kHead, (int)k, n - 1, largest ? 1e30f : -1e30f};
      const patch_t *patches[4] = {&head, &edges, &last, &both};
      for (int q = 0; q < 4; ++q) {
        for (size_t f = 0; f < 3; ++f) {
          failures += run_topk_patched(1, &n, k, 0, largest == 1, true,
                                       ETR_FLOAT, 0, kFills[f], patches[q]);
        }
      }
    }
  }
  cr_assert_eq(failures, 0, "%d topk cases disagree", failures);
  cr_assert_gt(etr_diff_stats()->specialized, 0);
}

// sort's radix path (slices of at least 64 distinct numbers, sort.h's
// etr_sort_f32_distinct), which must agree with the introsort exactly
// where it is taken and hand over where it is not: random slices (every
// digit pass), slices in [1, 2) (the sign and exponent digit passes
// skipped), negative ones, ascending and descending, strided; -0.0 beside
// 0.0 (equal: the introsort's order), one NaN, and a value repeated at
// the ends of a slice. After the fill, x[at[i]] = value[i] for i < sets.
static int run_sort_set(const int64_t *sizes, int64_t dim, bool descending,
                        float scale, float offset, int sets,
                        const int64_t *at, const float *value) {
  etr_diff_case_t c;
  etr_diff_begin(&c, "aten::sort.values", g_seed++,
                 "Float [%lld, %lld] dim %lld%s scale %g offset %g sets %d",
                 (long long)sizes[0], (long long)sizes[1], (long long)dim,
                 descending ? " descending" : "", (double)scale,
                 (double)offset, sets);
  etr_tensor_t *self =
      etr_diff_input(&c, ETR_FLOAT, 2, sizes, 0, ETR_FILL_RANDOM);
  float *x = (float *)self->data;
  for (int64_t i = 0; i < sizes[0] * sizes[1]; ++i) {
    x[i] = x[i] * scale + offset;
  }
  for (int i = 0; i < sets; ++i) {
    x[at[i]] = value[i];
  }
  etr_diff_arg(&c, tt_ev_int(dim));
  etr_diff_arg(&c, tt_ev_bool(descending));
  int64_t capacity = sizes[0] * sizes[1] + 8;
  etr_diff_out(&c, ETR_FLOAT, 1, (const int64_t[]){0}, 0, capacity);
  etr_diff_out(&c, ETR_LONG, 1, (const int64_t[]){0}, 0, capacity);
  size_t outs[2] = {3, 4};
  etr_diff_out_list(&c, 2, outs);
  etr_diff_tolerance_exact(&c);
  return etr_diff_run(&c);
}

TT_TEST(diff_sort, sort_distinct_radix) {
  int failures = 0;
  static const int64_t kRows[][2] = {{3, 64}, {2, 65}, {1, 1000}, {2, 257}};
  for (size_t r = 0; r < sizeof(kRows) / sizeof(kRows[0]); ++r) {
    const int64_t *sizes = kRows[r];
    const int64_t last = sizes[1] - 1;
    for (int down = 0; down < 2; ++down) {
      // Random in [-1, 1), in [1, 2), negative in (-3, -1].
      failures += run_sort_set(sizes, 1, down, 1.0f, 0.0f, 0, NULL, NULL);
      failures += run_sort_set(sizes, 1, down, 0.5f, 1.5f, 0, NULL, NULL);
      failures += run_sort_set(sizes, 1, down, 1.0f, -2.0f, 0, NULL, NULL);
      // Along dim 0 of the transpose: strided slices.
      int64_t t[2] = {sizes[1], sizes[0]};
      failures += run_sort_set(t, 0, down, 1.0f, 0.0f, 0, NULL, NULL);
      // Handed over: -0.0 beside 0.0, one NaN, a repeated value.
      const int64_t zeros_at[2] = {5, 9};
      const float zeros[2] = {-0.0f, 0.0f};
      failures += run_sort_set(sizes, 1, down, 1.0f, 0.0f, 2, zeros_at,
                               zeros);
      const int64_t nan_at[1] = {37};
      failures += run_sort_set(sizes, 1, down, 1.0f, 0.0f, 1, nan_at,
                               (const float[]){NAN});
      const int64_t twins_at[2] = {0, last};
      const float twins[2] = {0.25f, 0.25f};
      failures += run_sort_set(sizes, 1, down, 1.0f, 0.0f, 2, twins_at,
                               twins);
    }
  }
  cr_assert_eq(failures, 0, "%d sort cases disagree", failures);
  cr_assert_gt(etr_diff_stats()->specialized, 0);
}

// etr_sort_f32_distinct itself: it takes every slice of distinct numbers
// (so the path above is not silently handed over) and orders it as the
// introsort does; it declines ties, -0.0 beside 0.0 and NaN.
TT_TEST(diff_sort, sort_distinct_kernel) {
  enum { kMax = 1000 };
  static float x[2 * kMax];
  static uint32_t scratch[4 * kMax];
  static etr_sort_f32_pair_t got[kMax];
  static etr_sort_f32_pair_t want[kMax];
  static const size_t kLengths[] = {1, 2, 63, 64, 65, 257, 1000};
  static const float kScale[][2] = {{1.0f, 0.0f}, {0.5f, 1.5f},
                                    {1.0f, -2.0f}, {1e-30f, 0.0f}};
  uint64_t state = 5;
  for (size_t l = 0; l < sizeof(kLengths) / sizeof(kLengths[0]); ++l) {
    const int64_t n = (int64_t)kLengths[l];
    for (size_t q = 0; q < 4; ++q) {
      for (int stride = 1; stride <= 2; ++stride) {
        for (int64_t i = 0; i < n * stride; ++i) {
          state = state * 6364136223846793005ull + 1442695040888963407ull;
          float u = (float)((int32_t)(state >> 32) >> 8) * 0x1p-23f;
          x[i] = u * kScale[q][0] + kScale[q][1];
        }
        for (int down = 0; down < 2; ++down) {
          for (int64_t i = 0; i < n; ++i) {
            want[i].value = x[i * stride];
            want[i].index = i;
          }
          etr_sort_f32_sort(want, 0, n, down == 1);
          bool distinct = true;
          for (int64_t i = 1; i < n; ++i) {
            distinct = distinct && want[i - 1].value != want[i].value;
          }
          bool took = etr_sort_f32_distinct(x, stride, n, down == 1, scratch,
                                            got);
          cr_assert_eq(took, distinct,
                       "n %lld scale %zu stride %d down %d: took %d, "
                       "distinct %d",
                       (long long)n, q, stride, down, took, distinct);
          for (int64_t i = 0; took && i < n; ++i) {
            cr_assert(got[i].index == want[i].index &&
                          memcmp(&got[i].value, &want[i].value, 4) == 0,
                      "n %lld scale %zu stride %d down %d: position %lld",
                      (long long)n, q, stride, down, (long long)i);
          }
        }
      }
    }
  }
  // Declined: a repeat, -0.0 beside 0.0, a NaN.
  for (int64_t i = 0; i < 100; ++i) {
    x[i] = (float)i * 0.5f - 20.0f;
  }
  for (int down = 0; down < 2; ++down) {
    cr_assert(etr_sort_f32_distinct(x, 1, 100, down, scratch, got));
    x[7] = x[93];
    cr_assert(!etr_sort_f32_distinct(x, 1, 100, down, scratch, got));
    x[7] = -0.0f;  // x[40] is 0.0
    cr_assert(!etr_sort_f32_distinct(x, 1, 100, down, scratch, got));
    x[7] = NAN;
    cr_assert(!etr_sort_f32_distinct(x, 1, 100, down, scratch, got));
    x[7] = (float)7 * 0.5f - 20.0f;
  }
}

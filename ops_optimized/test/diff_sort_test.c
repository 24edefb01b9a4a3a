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
#include <stdlib.h>
#include <string.h>

#include "ops_optimized/isa.h"
#include "ops_optimized/reduce/reduce.h"
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

// sort along the last dim of a contiguous [1, 3, 2, 80] Float input into
// channels-last values and indices (their last dim strided): the sorting
// network, which writes contiguous outs, must hand these slices over.
static int run_sort_channels_last_outs(bool descending) {
  static const int64_t kSizes[4] = {1, 3, 2, 80};
  etr_diff_case_t c;
  etr_diff_begin(&c, "aten::sort.values", g_seed++,
                 "Float [1, 3, 2, 80] dim 3%s, channels-last outs",
                 descending ? " descending" : "");
  etr_diff_input(&c, ETR_FLOAT, 4, kSizes, ETR_DIFF_CONTIGUOUS,
                 ETR_FILL_RANDOM);
  etr_diff_arg(&c, tt_ev_int(3));
  etr_diff_arg(&c, tt_ev_bool(descending));
  etr_diff_out(&c, ETR_FLOAT, 4, kSizes, ETR_DIFF_CHANNELS_LAST, 0);
  etr_diff_out(&c, ETR_LONG, 4, kSizes, ETR_DIFF_CHANNELS_LAST, 0);
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
  // 5000: past the sorting networks' reach (ETR_SORT_DISTINCT_MAX).
  static const int64_t kRows[][2] = {{3, 64},   {2, 65}, {1, 1000},
                                     {2, 257},  {1, 5000}};
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
  failures += run_sort_channels_last_outs(false);
  failures += run_sort_channels_last_outs(true);
  cr_assert_eq(failures, 0, "%d sort cases disagree", failures);
  cr_assert_gt(etr_diff_stats()->specialized, 0);
}

// The reduce tables of this machine's ISAs that have a sorting network.
static int network_isas(etr_isa_t isas[ETR_NUM_ISAS]) {
  int count = 0;
  for (int isa = 0; isa < ETR_NUM_ISAS; ++isa) {
    if (etr_isa_available((etr_isa_t)isa) &&
        etr_reduce_kernels_for((etr_isa_t)isa)->sort_distinct != NULL) {
      isas[count++] = (etr_isa_t)isa;
    }
  }
  return count;
}

static int compare_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a;
  uint64_t y = *(const uint64_t *)b;
  return x < y ? -1 : (x > y ? 1 : 0);
}

// Each network on every power of two it takes: random entries (the top
// bit set in half, so a signed compare would misorder them), entries
// drawn from four values (runs of equal ones), UINT64_MAX among them,
// and already sorted and reversed arrays; against qsort.
TT_TEST(diff_sort, sort_u64_network) {
  static uint64_t x[ETR_SORT_DISTINCT_MAX];
  static uint64_t want[ETR_SORT_DISTINCT_MAX];
  etr_isa_t isas[ETR_NUM_ISAS];
  int count = network_isas(isas);
  uint64_t state = 11;
  for (int k = 0; k < count; ++k) {
    const etr_reduce_kernels_t *kernels = etr_reduce_kernels_for(isas[k]);
    for (size_t n = 8; n <= ETR_SORT_DISTINCT_MAX; n *= 2) {
      for (int fill = 0; fill < 4; ++fill) {
        for (size_t i = 0; i < n; ++i) {
          state = state * 6364136223846793005ull + 1442695040888963407ull;
          uint64_t r = state ^ (state >> 29);
          static const uint64_t kFour[4] = {0, 5, UINT64_MAX, 1ull << 63};
          x[i] = fill == 0   ? r
                 : fill == 1 ? kFour[r >> 62]
                 : fill == 2 ? (uint64_t)i << 40
                             : (uint64_t)(n - i) << 33 | 1ull << 63;
        }
        memcpy(want, x, n * sizeof(*x));
        qsort(want, n, sizeof(*want), compare_u64);
        kernels->sort_u64(x, n);
        cr_assert(memcmp(x, want, n * sizeof(*x)) == 0,
                  "%s network, n %zu, fill %d: order differs",
                  etr_isa_name(isas[k]), n, fill);
      }
    }
  }
}

// One slice by the radix sort (isa < 0) or an ISA's sort_distinct
// (contiguous slices, n >= 8) into got; whether it took the slice.
static bool sort_distinct_by(int isa, const float *x, int stride, int64_t n,
                             bool down, uint32_t *scratch,
                             etr_sort_f32_pair_t *got) {
  if (isa < 0) {
    return etr_sort_f32_distinct(x, stride, n, down, scratch, got);
  }
  static float values[ETR_SORT_DISTINCT_MAX + 1];
  static int64_t indices[ETR_SORT_DISTINCT_MAX + 1];
  // The outs' slot past n must stay untouched.
  values[n] = 42.0f;
  indices[n] = 42;
  bool took = etr_reduce_kernels_for((etr_isa_t)isa)->sort_distinct(
      x, (size_t)n, down, (uint64_t *)(void *)scratch, values, indices);
  cr_assert(values[n] == 42.0f && indices[n] == 42,
            "%s: n %lld: written past the outs", etr_isa_name(isa),
            (long long)n);
  for (int64_t i = 0; i < n; ++i) {
    got[i].value = values[i];
    got[i].index = indices[i];
  }
  return took;
}

// etr_sort_f32_distinct and each ISA's sort_distinct: each takes every
// slice of distinct numbers (so the path above is not silently handed
// over) and orders it as the introsort does; it declines ties, -0.0
// beside 0.0 and NaN. Lengths around the vectors (8, 16) and the
// network's reach (4096), padded ones.
TT_TEST(diff_sort, sort_distinct_kernel) {
  enum { kMax = ETR_SORT_DISTINCT_MAX };
  static float x[2 * kMax];
  static uint32_t scratch[4 * kMax];
  static etr_sort_f32_pair_t got[kMax];
  static etr_sort_f32_pair_t want[kMax];
  static const size_t kLengths[] = {1,  2,   7,   8,    9,    15,   16,
                                    17, 63,  64,  65,   257,  1000, 1024,
                                    1025, 4095, 4096};
  static const float kScale[][2] = {{1.0f, 0.0f}, {0.5f, 1.5f},
                                    {1.0f, -2.0f}, {1e-30f, 0.0f}};
  etr_isa_t isas[ETR_NUM_ISAS];
  int count = network_isas(isas);
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
          for (int k = -1; k < count; ++k) {
            int isa = k < 0 ? -1 : (int)isas[k];
            if (isa >= 0 && (stride != 1 || n < 8)) {
              continue;
            }
            const char *name = isa < 0 ? "radix" : etr_isa_name(isa);
            bool took =
                sort_distinct_by(isa, x, stride, n, down, scratch, got);
            cr_assert_eq(took, distinct,
                         "%s: n %lld scale %zu stride %d down %d: took %d, "
                         "distinct %d",
                         name, (long long)n, q, stride, down, took,
                         distinct);
            for (int64_t i = 0; took && i < n; ++i) {
              cr_assert(got[i].index == want[i].index &&
                            memcmp(&got[i].value, &want[i].value, 4) == 0,
                        "%s: n %lld scale %zu stride %d down %d: position "
                        "%lld",
                        name, (long long)n, q, stride, down, (long long)i);
            }
          }
        }
      }
    }
  }
  // Declined: a repeat, -0.0 beside 0.0, a NaN; +inf and -inf taken.
  for (int k = -1; k < count; ++k) {
    int isa = k < 0 ? -1 : (int)isas[k];
    const char *name = isa < 0 ? "radix" : etr_isa_name(isa);
    for (int64_t i = 0; i < 100; ++i) {
      x[i] = (float)i * 0.5f - 20.0f;
    }
    for (int down = 0; down < 2; ++down) {
      cr_assert(sort_distinct_by(isa, x, 1, 100, down, scratch, got));
      x[7] = x[93];
      cr_assert(!sort_distinct_by(isa, x, 1, 100, down, scratch, got),
                "%s: a repeat", name);
      x[7] = -0.0f;  // x[40] is 0.0
      cr_assert(!sort_distinct_by(isa, x, 1, 100, down, scratch, got),
                "%s: -0.0 beside 0.0", name);
      x[7] = NAN;
      cr_assert(!sort_distinct_by(isa, x, 1, 100, down, scratch, got),
                "%s: a NaN", name);
      x[99] = NAN;  // in the last, partial vector
      x[7] = (float)7 * 0.5f - 20.0f;
      cr_assert(!sort_distinct_by(isa, x, 1, 100, down, scratch, got),
                "%s: a last NaN", name);
      x[99] = (float)99 * 0.5f - 20.0f;
      x[7] = INFINITY;
      x[8] = -INFINITY;
      cr_assert(sort_distinct_by(isa, x, 1, 100, down, scratch, got));
      cr_assert(got[down ? 0 : 99].index == 7 &&
                    got[down ? 99 : 0].index == 8,
                "%s: the infinities' places", name);
      x[7] = (float)7 * 0.5f - 20.0f;
      x[8] = (float)8 * 0.5f - 20.0f;
    }
  }
}

// The radix sort past 2^16 elements: indices need all 32 bits of their
// entries. A shuffled ramp, ascending and descending.
TT_TEST(diff_sort, sort_distinct_radix_long) {
  enum { kLong = 70001 };
  static float x[kLong];
  static uint32_t scratch[4 * kLong];
  static etr_sort_f32_pair_t got[kLong];
  for (int64_t i = 0; i < kLong; ++i) {
    x[i] = (float)i - 35000.0f;
  }
  uint64_t state = 3;
  for (int64_t i = kLong - 1; i > 0; --i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    int64_t j = (int64_t)((state >> 33) % (uint64_t)(i + 1));
    float t = x[i];
    x[i] = x[j];
    x[j] = t;
  }
  for (int down = 0; down < 2; ++down) {
    cr_assert(etr_sort_f32_distinct(x, 1, kLong, down, scratch, got));
    for (int64_t i = 0; i < kLong; ++i) {
      float want = down ? 35000.0f - (float)i : (float)i - 35000.0f;
      cr_assert(got[i].value == want && x[got[i].index] == want,
                "down %d: position %lld", down, (long long)i);
    }
  }
}

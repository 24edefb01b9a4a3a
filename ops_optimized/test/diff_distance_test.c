// SPDX-License-Identifier: Apache-2.0
//
// Differential tests of the optimized _cdist_forward and _pdist_forward
// kernels (ops_optimized/distance/) against the reference kernels, on
// every ISA this machine has.
//
// Sweeps: column counts over the 2/4/8/16-lane edges (0 included), row
// counts 1..9, batch dims, p = 2, 1, inf, 0, 3 and 0.5 (pdist also -inf),
// compute_mode none/0/1/2 (ignored by both), random, special (NaN, +-inf,
// extremes) and integer data; broadcast batch dims, Double and
// non-contiguous inputs (fallback); argument errors (p < 0, column counts
// that differ, a rank-1 input).
//
// Tolerances: integer data is exact for every p (every partial sum is);
// p = inf, 0 and the general p are bit-exact always (the same max, counts
// and sequential pow as the reference); p = 2 and 1 on random or special
// data sum in other double lanes: within 1 float ulp.
#include <criterion/criterion.h>
#include <math.h>

#include "ops_optimized/test/diff.h"

static uint64_t g_seed = 50000;

static void set_tolerance(etr_diff_case_t *c, double p, etr_diff_fill_t fill) {
  if (fill == ETR_FILL_EXACT_INT || !(p == 1.0 || p == 2.0)) {
    etr_diff_tolerance_exact(c);
  } else {
    etr_diff_tolerance_ulp(c, 1);
  }
}

static int run_cdist(etr_scalar_type_t dtype, int32_t rank,
                     const int64_t *sizes1, const int64_t *sizes2, double p,
                     int mode, etr_diff_layout_t layout,
                     etr_diff_fill_t fill) {
  etr_diff_case_t c;
  etr_diff_begin(&c, "aten::_cdist_forward.out", g_seed++,
                 "%s rank %d R %lld,%lld C %lld p %g mode %d",
                 etr_scalar_type_name(dtype), (int)rank,
                 (long long)sizes1[rank - 2], (long long)sizes2[rank - 2],
                 (long long)sizes1[rank - 1], p, mode);
  etr_tensor_t *x1 = etr_diff_input(&c, dtype, rank, sizes1, layout, fill);
  etr_tensor_t *x2 = etr_diff_input(&c, dtype, rank, sizes2, layout, fill);
  etr_diff_arg(&c, tt_ev_double(p));
  etr_diff_arg(&c, mode < 0 ? tt_ev_none() : tt_ev_int(mode));
  etr_diff_out(&c, dtype, 1, (const int64_t[]){0}, 0,
               etr_tensor_numel(x1) + etr_tensor_numel(x2) +
                   sizes1[rank - 2] * sizes2[rank - 2] * 4 + 8);
  etr_diff_return(&c, 4);
  c.dtype = dtype;
  c.layout = layout;
  set_tolerance(&c, p, fill);
  return etr_diff_run(&c);
}

static int run_pdist(etr_scalar_type_t dtype, int32_t rank,
                     const int64_t *sizes, double p, etr_diff_layout_t layout,
                     etr_diff_fill_t fill) {
  etr_diff_case_t c;
  etr_diff_begin(&c, "aten::_pdist_forward.out", g_seed++,
                 "%s N %lld M %lld p %g", etr_scalar_type_name(dtype),
                 (long long)sizes[0], (long long)sizes[rank - 1], p);
  etr_diff_input(&c, dtype, rank, sizes, layout, fill);
  etr_diff_arg(&c, tt_ev_double(p));
  etr_diff_out(&c, dtype, 1, (const int64_t[]){0}, 0,
               sizes[0] * sizes[0] + 8);
  etr_diff_return(&c, 2);
  set_tolerance(&c, p, fill);
  return etr_diff_run(&c);
}

static const int64_t kColumns[] = {0, 1, 3, 4, 7, 8, 9, 15, 16, 17, 33, 100};
static const double kPs[] = {2.0, 1.0, INFINITY, 0.0, 3.0, 0.5};
static const etr_diff_fill_t kFills[] = {ETR_FILL_RANDOM, ETR_FILL_SPECIAL,
                                         ETR_FILL_EXACT_INT};

TT_TEST(diff_distance, cdist) {
  int failures = 0;
  for (size_t k = 0; k < sizeof(kColumns) / sizeof(kColumns[0]); ++k) {
    for (size_t p = 0; p < sizeof(kPs) / sizeof(kPs[0]); ++p) {
      for (size_t f = 0; f < 3; ++f) {
        int64_t a[3] = {2, 1 + (int64_t)(k + p) % 5, kColumns[k]};
        int64_t b[3] = {2, 1 + (int64_t)(k + f) % 7, kColumns[k]};
        int rank = (k + p + f) % 2 ? 3 : 2;
        failures += run_cdist(ETR_FLOAT, rank, a + 3 - rank, b + 3 - rank,
                              kPs[p], (int)((k + f) % 4) - 1, 0, kFills[f]);
      }
    }
  }
  // Fallbacks: broadcast batch dims, Double, non-contiguous; errors.
  int64_t a[3] = {2, 4, 9};
  int64_t b[3] = {1, 5, 9};
  failures += run_cdist(ETR_FLOAT, 3, a, b, 2.0, -1, 0, ETR_FILL_RANDOM);
  failures += run_cdist(ETR_DOUBLE, 3, a, a, 2.0, -1, 0, ETR_FILL_RANDOM);
  failures += run_cdist(ETR_FLOAT, 3, a, a, 1.0, -1, ETR_DIFF_NONCONTIGUOUS,
                        ETR_FILL_RANDOM);
  failures += run_cdist(ETR_FLOAT, 3, a, a, -1.0, -1, 0, ETR_FILL_RANDOM);
  int64_t c[3] = {2, 5, 8};
  failures += run_cdist(ETR_FLOAT, 3, a, c, 2.0, -1, 0, ETR_FILL_RANDOM);
  failures += run_cdist(ETR_FLOAT, 3, a, a, 2.0, 3, 0, ETR_FILL_RANDOM);
  // The blocked kernels (pairs_block): rows of x1 over the 8-row blocks
  // and their 4/2/1 tails, rows of x2 over the 16-column blocks, columns
  // over the vector edges; p = 2, 1, inf on every fill.
  static const int64_t kBlockRows[][2] = {{8, 16}, {19, 37}, {15, 17},
                                          {1, 33},  {12, 29}};
  static const int64_t kBlockColumns[] = {1, 8, 17, 64};
  for (size_t r = 0; r < sizeof(kBlockRows) / sizeof(kBlockRows[0]); ++r) {
    for (size_t k = 0; k < 4; ++k) {
      for (size_t p = 0; p < 3; ++p) {
        for (size_t f = 0; f < 3; ++f) {
          int64_t x[3] = {2, kBlockRows[r][0], kBlockColumns[k]};
          int64_t y[3] = {2, kBlockRows[r][1], kBlockColumns[k]};
          int rank = (r + k + f) % 2 ? 3 : 2;
          failures += run_cdist(ETR_FLOAT, rank, x + 3 - rank, y + 3 - rank,
                                kPs[p], -1, 0, kFills[f]);
        }
      }
    }
  }
  // A retrieval-style size: 64 queries against 256 keys of 128 features.
  failures += run_cdist(ETR_FLOAT, 2, (const int64_t[]){64, 128},
                        (const int64_t[]){256, 128}, 2.0, -1, 0,
                        ETR_FILL_RANDOM);
  cr_assert_eq(failures, 0, "%d cdist cases disagree", failures);
  cr_assert_gt(etr_diff_stats()->specialized, 0);
}

TT_TEST(diff_distance, pdist) {
  int failures = 0;
  static const double kPdistPs[] = {2.0,       1.0, INFINITY, -INFINITY,
                                    0.0, 3.0, -1.5};
  static const int64_t kRows[] = {0, 1, 2, 5, 9};
  for (size_t k = 0; k < sizeof(kColumns) / sizeof(kColumns[0]); ++k) {
    for (size_t p = 0; p < sizeof(kPdistPs) / sizeof(kPdistPs[0]); ++p) {
      for (size_t f = 0; f < 3; ++f) {
        int64_t sizes[2] = {kRows[(k + p + f) % 5], kColumns[k]};
        failures += run_pdist(ETR_FLOAT, 2, sizes, kPdistPs[p], 0, kFills[f]);
      }
    }
  }
  // The blocked kernels (pairs_block): rows over the 8-row and 16-column
  // blocks and the diagonal ones, p = 2 and 1 on every fill.
  static const int64_t kBlockRows[] = {8, 16, 17, 31, 40};
  static const int64_t kBlockColumns[] = {1, 9, 64};
  for (size_t r = 0; r < sizeof(kBlockRows) / sizeof(kBlockRows[0]); ++r) {
    for (size_t k = 0; k < 3; ++k) {
      for (size_t p = 0; p < 2; ++p) {
        for (size_t f = 0; f < 3; ++f) {
          int64_t block[2] = {kBlockRows[r], kBlockColumns[k]};
          failures +=
              run_pdist(ETR_FLOAT, 2, block, kPdistPs[p], 0, kFills[f]);
        }
      }
    }
  }
  int64_t sizes[2] = {6, 17};
  failures += run_pdist(ETR_DOUBLE, 2, sizes, 2.0, 0, ETR_FILL_RANDOM);
  failures += run_pdist(ETR_FLOAT, 2, sizes, 2.0, ETR_DIFF_NONCONTIGUOUS,
                        ETR_FILL_RANDOM);
  failures += run_pdist(ETR_FLOAT, 1, sizes, 2.0, 0, ETR_FILL_RANDOM);
  cr_assert_eq(failures, 0, "%d pdist cases disagree", failures);
  cr_assert_gt(etr_diff_stats()->specialized, 0);
}

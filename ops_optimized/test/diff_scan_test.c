// SPDX-License-Identifier: Apache-2.0
//
// Differential tests of the optimized cumsum and prod kernels
// (ops_optimized/scan/) against the reference kernels, on every ISA this
// machine has.
//
// Sweeps: the size inside the scanned or reduced dim (the columns the
// microkernels vectorize) over the 4/8/16-lane edges, the scanned size
// (1, 2, 5, 33), every dim of rank-3 and rank-4 inputs (negative dims
// too), contiguous, channels-last and non-contiguous (fallback) inputs,
// 0-dim inputs; Float, Half, BFloat16 (staged through fp32), Long and
// Int, a dtype conversion (fallback); random, special and integer data;
// keepdim both ways; argument errors (a bad dim, a wrong out dtype for
// prod.out).
//
// Tolerances: cumsum and column products keep the reference's order, so
// every result must match bit for bit, random data included; products of
// contiguous rows (inner size 1, prod.out) use other double lanes, so
// any data may differ by 1 float ulp (integer products past 2^53 round
// too); special values there stay within rows of at most 8
// elements (so no partial product can overflow double in one order and
// not the other). Half and BFloat16 cumsums sum in float in both kernels
// (ATen's accumulation type), so they match bit for bit too; their
// products are rounded to fp32 before their dtype, so they may differ
// from the reference's by 1 ulp of the dtype.
#include <criterion/criterion.h>
#include <string.h>

#include "ops_optimized/test/diff.h"

static uint64_t g_seed = 40000;

static int run_cumsum(etr_scalar_type_t dtype, etr_scalar_type_t out_dtype,
                      int32_t rank, const int64_t *sizes, int64_t dim,
                      etr_diff_layout_t layout, etr_diff_fill_t fill) {
  etr_diff_case_t c;
  etr_diff_begin(&c, "aten::cumsum.out", g_seed++,
                 "%s rank %d [%lld .. %lld] dim %lld",
                 etr_scalar_type_name(dtype), (int)rank,
                 (long long)(rank > 0 ? sizes[0] : 0),
                 (long long)(rank > 0 ? sizes[rank - 1] : 0),
                 (long long)dim);
  etr_tensor_t *self = etr_diff_input(&c, dtype, rank, sizes, layout, fill);
  etr_diff_arg(&c, tt_ev_int(dim));
  etr_diff_arg(&c, tt_ev_none());
  if (rank == 4 && layout == ETR_DIFF_CHANNELS_LAST) {
    etr_diff_out(&c, out_dtype, 4, sizes, ETR_DIFF_CHANNELS_LAST, 0);
  } else {
    etr_diff_out(&c, out_dtype, 1, (const int64_t[]){0}, 0,
                 etr_tensor_numel(self) + 8);
  }
  etr_diff_return(&c, 3);
  etr_diff_tolerance_exact(&c);
  return etr_diff_run(&c);
}

static int run_prod(etr_scalar_type_t dtype, int32_t rank,
                    const int64_t *sizes, int64_t dim, bool all, bool keepdim,
                    etr_diff_layout_t layout, etr_diff_fill_t fill,
                    etr_scalar_type_t out_dtype) {
  etr_diff_case_t c;
  etr_diff_begin(&c, all ? "aten::prod.out" : "aten::prod.int_out",
                 g_seed++, "%s rank %d [%lld .. %lld] dim %lld%s",
                 etr_scalar_type_name(dtype), (int)rank,
                 (long long)(rank > 0 ? sizes[0] : 0),
                 (long long)(rank > 0 ? sizes[rank - 1] : 0),
                 (long long)dim, keepdim ? " keepdim" : "");
  etr_tensor_t *self = etr_diff_input(&c, dtype, rank, sizes, layout, fill);
  if (!all) {
    etr_diff_arg(&c, tt_ev_int(dim));
    etr_diff_arg(&c, tt_ev_bool(keepdim));
  }
  etr_diff_arg(&c, tt_ev_none());
  size_t out_index = c.num_args;
  etr_diff_out(&c, out_dtype, 1, (const int64_t[]){0}, 0,
               etr_tensor_numel(self) + 8);
  etr_diff_return(&c, out_index);
  // Rows (the reduced dim innermost in memory) use other double lanes.
  int32_t d = rank > 0 ? (int32_t)((dim + rank) % rank) : 0;
  bool rows = all || (layout == ETR_DIFF_CONTIGUOUS && d == rank - 1) ||
              (layout == ETR_DIFF_CHANNELS_LAST && rank == 4 && d == 1);
  if ((dtype == ETR_FLOAT && rows) || dtype == ETR_HALF ||
      dtype == ETR_BFLOAT16) {
    etr_diff_tolerance_ulp(&c, 1);
  } else {
    etr_diff_tolerance_exact(&c);
  }
  return etr_diff_run(&c);
}

static const int64_t kInner[] = {1, 3, 4, 7, 8, 9, 15, 16, 17, 33};
static const int64_t kScanned[] = {1, 2, 5, 33};

TT_TEST(diff_scan, cumsum) {
  int failures = 0;
  static const etr_diff_fill_t kFills[] = {ETR_FILL_RANDOM, ETR_FILL_SPECIAL,
                                           ETR_FILL_EXACT_INT};
  for (size_t i = 0; i < sizeof(kInner) / sizeof(kInner[0]); ++i) {
    for (size_t s = 0; s < sizeof(kScanned) / sizeof(kScanned[0]); ++s) {
      int64_t sizes[3] = {2, kScanned[s], kInner[i]};
      etr_diff_fill_t fill = kFills[(i + s) % 3];
      etr_scalar_type_t narrow = (i + s) % 2 ? ETR_HALF : ETR_BFLOAT16;
      for (int64_t dim = -1; dim < 3; ++dim) {
        failures += run_cumsum(ETR_FLOAT, ETR_FLOAT, 3, sizes, dim, 0, fill);
        failures += run_cumsum(narrow, narrow, 3, sizes, dim, 0, fill);
      }
      failures += run_cumsum(ETR_LONG, ETR_LONG, 3, sizes, 1, 0, fill);
      failures += run_cumsum(ETR_INT, ETR_INT, 3, sizes, (int64_t)s % 3, 0,
                             fill);
    }
  }
  // Layouts: channels-last along every dim, non-contiguous (fallback).
  int64_t image[4] = {2, 9, 5, 6};
  for (int64_t dim = 0; dim < 4; ++dim) {
    for (int layout = 0; layout < 3; ++layout) {
      failures += run_cumsum(ETR_FLOAT, ETR_FLOAT, 4, image, dim,
                             (etr_diff_layout_t)layout, ETR_FILL_RANDOM);
      failures += run_cumsum(ETR_LONG, ETR_LONG, 4, image, dim,
                             (etr_diff_layout_t)layout, ETR_FILL_RANDOM);
      failures += run_cumsum(ETR_HALF, ETR_HALF, 4, image, dim,
                             (etr_diff_layout_t)layout, ETR_FILL_RANDOM);
    }
  }
  // A long row and a long column (the transformer's position-id scan);
  // 0-dim; Half slabs larger than a staging chunk (one at a time); a
  // conversion (fallback); a bad dim.
  failures += run_cumsum(ETR_FLOAT, ETR_FLOAT, 2, (const int64_t[]){3, 1000},
                         1, 0, ETR_FILL_RANDOM);
  failures += run_cumsum(ETR_LONG, ETR_LONG, 2, (const int64_t[]){1, 517}, 1,
                         0, ETR_FILL_RANDOM);
  failures += run_cumsum(ETR_FLOAT, ETR_FLOAT, 2, (const int64_t[]){300, 70},
                         0, 0, ETR_FILL_RANDOM);
  // Columns across the AVX-512 strips of 128, 64, 16 and 8 (and a tail).
  static const int64_t kWidths[] = {127, 128, 129, 191, 192, 219, 256};
  for (size_t w = 0; w < sizeof(kWidths) / sizeof(kWidths[0]); ++w) {
    failures += run_cumsum(ETR_FLOAT, ETR_FLOAT, 2,
                           (const int64_t[]){5, kWidths[w]}, 0, 0,
                           w % 2 ? ETR_FILL_SPECIAL : ETR_FILL_RANDOM);
  }
  failures += run_cumsum(ETR_FLOAT, ETR_FLOAT, 0, NULL, 0, 0, ETR_FILL_RANDOM);
  failures += run_cumsum(ETR_HALF, ETR_HALF, 3,
                         (const int64_t[]){3, 300, 250}, 1, 0,
                         ETR_FILL_RANDOM);
  failures += run_cumsum(ETR_BFLOAT16, ETR_BFLOAT16, 2,
                         (const int64_t[]){3, 1000}, 1, 0, ETR_FILL_RANDOM);
  failures += run_cumsum(ETR_INT, ETR_LONG, 3, (const int64_t[]){2, 3, 4}, 1,
                         0, ETR_FILL_RANDOM);
  failures += run_cumsum(ETR_FLOAT, ETR_FLOAT, 3, (const int64_t[]){2, 3, 4},
                         3, 0, ETR_FILL_RANDOM);
  cr_assert_eq(failures, 0, "%d cumsum cases disagree", failures);
  cr_assert_gt(etr_diff_stats()->specialized, 0);
}

TT_TEST(diff_scan, prod) {
  int failures = 0;
  for (size_t i = 0; i < sizeof(kInner) / sizeof(kInner[0]); ++i) {
    for (size_t s = 0; s < sizeof(kScanned) / sizeof(kScanned[0]); ++s) {
      int64_t sizes[3] = {2, kScanned[s], kInner[i]};
      bool short_rows = kInner[i] <= 8;
      for (int64_t dim = -1; dim < 3; ++dim) {
        bool keepdim = (i + s + (size_t)(dim + 1)) % 2 == 0;
        etr_diff_fill_t fill =
            (s % 2 == 0 && (dim != 2 && dim != -1 ? true : short_rows))
                ? ETR_FILL_SPECIAL
                : ETR_FILL_RANDOM;
        failures += run_prod(ETR_FLOAT, 3, sizes, dim, false, keepdim, 0,
                             fill, ETR_FLOAT);
        failures += run_prod(ETR_FLOAT, 3, sizes, dim, false, keepdim, 0,
                             ETR_FILL_EXACT_INT, ETR_FLOAT);
        etr_scalar_type_t narrow = (i + s) % 2 ? ETR_HALF : ETR_BFLOAT16;
        failures += run_prod(narrow, 3, sizes, dim, false, keepdim, 0, fill,
                             narrow);
      }
      failures += run_prod(ETR_BFLOAT16, 3, sizes, 0, true, false, 0,
                           ETR_FILL_RANDOM, ETR_BFLOAT16);
      failures += run_prod(ETR_LONG, 3, sizes, (int64_t)s % 3, false, true, 0,
                           ETR_FILL_RANDOM, ETR_LONG);
      failures += run_prod(ETR_FLOAT, 3, sizes, 0, true, false, 0,
                           ETR_FILL_RANDOM, ETR_FLOAT);
      failures += run_prod(ETR_FLOAT, 3, sizes, 0, true, false, 0,
                           ETR_FILL_EXACT_INT, ETR_FLOAT);
      failures += run_prod(ETR_LONG, 3, sizes, 0, true, false, 0,
                           ETR_FILL_RANDOM, ETR_LONG);
    }
  }
  int64_t image[4] = {2, 9, 5, 6};
  for (int64_t dim = 0; dim < 4; ++dim) {
    for (int layout = 0; layout < 3; ++layout) {
      failures += run_prod(ETR_FLOAT, 4, image, dim, false, false,
                           (etr_diff_layout_t)layout, ETR_FILL_RANDOM,
                           ETR_FLOAT);
    }
  }
  // Long rows; 0-dim and a conversion (fallback); errors: a bad dim,
  // prod.out into another dtype.
  failures += run_prod(ETR_FLOAT, 2, (const int64_t[]){5, 301}, 1, false,
                       false, 0, ETR_FILL_POSITIVE, ETR_FLOAT);
  failures += run_prod(ETR_FLOAT, 0, NULL, 0, false, false, 0,
                       ETR_FILL_RANDOM, ETR_FLOAT);
  failures += run_prod(ETR_FLOAT, 0, NULL, 0, true, false, 0,
                       ETR_FILL_RANDOM, ETR_FLOAT);
  failures += run_prod(ETR_HALF, 2, (const int64_t[]){3, 4}, 1, false, false,
                       0, ETR_FILL_RANDOM, ETR_HALF);
  failures += run_prod(ETR_INT, 2, (const int64_t[]){3, 4}, 1, false, false,
                       0, ETR_FILL_RANDOM, ETR_LONG);
  failures += run_prod(ETR_FLOAT, 2, (const int64_t[]){3, 4}, 2, false, false,
                       0, ETR_FILL_RANDOM, ETR_FLOAT);
  failures += run_prod(ETR_FLOAT, 2, (const int64_t[]){3, 4}, 0, true, false,
                       0, ETR_FILL_RANDOM, ETR_DOUBLE);
  cr_assert_eq(failures, 0, "%d prod cases disagree", failures);
  cr_assert_gt(etr_diff_stats()->specialized, 0);
}

// SPDX-License-Identifier: Apache-2.0
//
// Differential test of relu (the harness's first client): every tile-edge
// size for 8 and 16 lanes, contiguous, non-contiguous and channels-last
// inputs, random and special values (NaN, +-inf, -0.0, denormals), every
// float dtype, in place and not, on every ISA of this machine. relu is
// exact: results must match bit for bit. Float, Half, BFloat16 and Int
// must take the optimized path (Double falls back).
#include <criterion/criterion.h>

#include "ops_optimized/test/diff.h"

TT_TEST(diff_unary, relu) {
  static const etr_scalar_type_t dtypes[] = {ETR_FLOAT, ETR_DOUBLE, ETR_HALF,
                                             ETR_BFLOAT16, ETR_INT};
  int64_t sizes[16];
  size_t count = etr_diff_edge_sizes(16, sizes);
  int failures = 0;
  uint64_t seed = 1;
  for (size_t d = 0; d < sizeof(dtypes) / sizeof(dtypes[0]); ++d) {
    uint64_t specialized = etr_diff_stats()->specialized;
    for (size_t s = 0; s < count; ++s) {
      for (int layout = 0; layout < 3; ++layout) {
        for (int fill = 0; fill < 2; ++fill) {
          etr_diff_case_t c;
          etr_diff_fill_t data = fill ? ETR_FILL_SPECIAL : ETR_FILL_RANDOM;
          // Rank 4 for channels-last, rank 2 otherwise.
          int64_t shape4[4] = {1, sizes[s], 1, 1};
          int64_t shape2[2] = {sizes[s] > 0 ? 1 : 0, sizes[s]};
          bool nhwc = layout == ETR_DIFF_CHANNELS_LAST;
          etr_diff_begin(&c, "aten::relu.out", seed++, "n=%lld %s",
                         (long long)sizes[s], fill ? "special" : "random");
          etr_diff_input(&c, dtypes[d], nhwc ? 4 : 2, nhwc ? shape4 : shape2,
                         (etr_diff_layout_t)layout, data);
          etr_diff_out(&c, dtypes[d], 1, (const int64_t[]){0},
                       ETR_DIFF_CONTIGUOUS, 4096);
          etr_diff_return(&c, 1);
          etr_diff_tolerance_exact(&c);
          failures += etr_diff_run(&c);
        }
      }
      // In place: relu(x, out=x).
      etr_diff_case_t c;
      etr_diff_begin(&c, "aten::relu.out", seed++, "n=%lld in place",
                     (long long)sizes[s]);
      etr_diff_input(&c, dtypes[d], 1, (const int64_t[]){sizes[s]},
                     ETR_DIFF_CONTIGUOUS, ETR_FILL_SPECIAL);
      etr_diff_out_aliasing(&c, 0);
      etr_diff_return(&c, 1);
      etr_diff_tolerance_exact(&c);
      failures += etr_diff_run(&c);
    }
    if (dtypes[d] != ETR_DOUBLE) {
      cr_expect_gt(etr_diff_stats()->specialized, specialized,
                   "relu of dtype %d never took the optimized path",
                   (int)dtypes[d]);
    }
  }
  cr_assert_eq(failures, 0, "%d relu cases disagree", failures);
  cr_assert_gt(etr_diff_stats()->specialized, 0,
               "the optimized relu never took its fast path");
}
